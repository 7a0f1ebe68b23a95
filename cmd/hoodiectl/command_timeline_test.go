package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
)

func TestTimelineOfFixtures(t *testing.T) {
	// Records written per commit: the second commit of the non-partitioned
	// table rewrites its one file group (4 records); the partitioned tables
	// rewrite one group and create another (3 records).
	tests := map[string]struct {
		instants []string
		writes   []int64
	}{
		"v6_nonpartitioned":            {[]string{"20240418173550988", "20240418173551906"}, []int64{3, 4}},
		"v6_simplekeygen_nonhivestyle": {[]string{"20240418172802262", "20240418172804498"}, []int64{3, 3}},
		"v6_complexkeygen_hivestyle":   {[]string{"20240418173213674", "20240418173235694"}, []int64{3, 3}},
		"v6_empty":                     {},
	}
	for table, want := range tests {
		instants := want.instants
		t.Run(table, func(t *testing.T) {
			dir := fixtures.Unzip(t, table)
			out := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
			var got []instantRow
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line == "" {
					continue
				}
				var row instantRow
				if err := json.Unmarshal([]byte(line), &row); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				got = append(got, row)
			}
			if len(got) != len(instants) {
				t.Fatalf("got %d instants, want %d:\n%s", len(got), len(instants), out)
			}
			for i, row := range got {
				if row.Instant != instants[i] || row.Action != "commit" || row.State != "completed" || row.Operation != "upsert" {
					t.Errorf("instant %d: %+v", i, row)
				}
				if row.Writes == nil || *row.Writes != want.writes[i] {
					t.Errorf("instant %d: writes %+v, want %d", i, row, want.writes[i])
				}
			}
			if len(got) == 2 && (*got[1].Inserts != 1 || *got[1].Updates != 1) {
				t.Errorf("second commit: inserts %d updates %d, want 1 and 1", *got[1].Inserts, *got[1].Updates)
			}
			table := hoodiectl(t, "", "timeline", dir, "--format", "table").mustSucceed(t).stdout
			header := strings.Fields(strings.SplitN(table, "\n", 2)[0])
			if !slices.Equal(header, []string{"INSTANT", "ACTION", "STATE", "OPERATION", "WRITES", "INSERTS", "UPDATES", "DELETES", "FILES", "BYTES"}) || strings.Count(table, "\n") != len(instants)+1 {
				t.Errorf("table output:\n%s", table)
			}
		})
	}
}

func TestTimelineShowsPendingInstants(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	// A writer died after marking its instant inflight.
	for _, name := range []string{"20250101000000000.commit.requested", "20250101000000000.inflight"} {
		if err := os.WriteFile(filepath.Join(dir, ".hoodie", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	if !strings.Contains(out, `{"instant":"20250101000000000","action":"commit","state":"inflight"}`) {
		t.Errorf("pending instant missing or carrying counts:\n%s", out)
	}
}

func TestTimelineErrors(t *testing.T) {
	hoodiectl(t, "", "timeline", t.TempDir()).mustFail(t, exitError, "not a Hudi table")

	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	bad := filepath.Join(dir, ".hoodie", "20240418173551906.commit")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, "", "timeline", dir).mustFail(t, exitError, "20240418173551906.commit")

	dir = fixtures.Unzip(t, "v6_nonpartitioned")
	if err := os.WriteFile(filepath.Join(dir, ".hoodie", "2024x.commit"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, "", "timeline", dir).mustFail(t, exitError, "2024x.commit")

	dir = fixtures.Unzip(t, "v6_nonpartitioned")
	props := filepath.Join(dir, ".hoodie", "hoodie.properties")
	data, _ := os.ReadFile(props)
	os.WriteFile(props, []byte(strings.Replace(string(data), "hoodie.table.checksum=", "hoodie.table.checksum=9", 1)), 0o644)
	hoodiectl(t, "", "timeline", dir).mustFail(t, exitError, "hoodie.properties", "checksum mismatch")
}

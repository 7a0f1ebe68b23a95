package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuickstartTour(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tour")
	out := hoodiectl(t, "", "quickstart", dir).mustSucceed(t).stdout
	for _, want := range []string{
		"10 record(s):", "15 record(s):", "13 record(s):",
		"0 inserted, 4 updated", "2 deleted", "soft-delete: committed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("quickstart output lacks %q", want)
		}
	}
	lines := strings.Split(strings.TrimSpace(hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout), "\n")
	wantOps := []string{"insert", "insert", "upsert", "delete", "upsert"}
	if len(lines) != len(wantOps) {
		t.Fatalf("%d instants, want %d", len(lines), len(wantOps))
	}
	for i, line := range lines {
		var row instantRow
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if row.State != "completed" || row.Operation != wantOps[i] {
			t.Errorf("instant %d: %+v, want a completed %s", i, row, wantOps[i])
		}
	}
	// The soft-deleted records stay with their key, partition and ts only.
	read := hoodiectl(t, "", "read", dir, "--columns", "uuid,rider,ts,batch_id").mustSucceed(t).stdout
	records := strings.Split(strings.TrimSpace(read), "\n")
	if len(records) != 13 {
		t.Fatalf("%d records after the tour, want 13", len(records))
	}
	if n := strings.Count(read, `"rider":null`); n != 2 {
		t.Errorf("%d soft-deleted records, want 2", n)
	}
	// A second tour in the same folder is refused.
	hoodiectl(t, "", "quickstart", dir).mustFail(t, exitError, "not empty")
}

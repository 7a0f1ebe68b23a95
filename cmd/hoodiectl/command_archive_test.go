package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestArchiveCommand: upserts with archival off, then hoodiectl archive
// with small bounds; timeline --archived lists every commit once, the
// archived ones marked and still with their counts, and reads of archived
// commits work.
func TestArchiveCommand(t *testing.T) {
	dir := newTripsCLITable(t)
	var instants []string
	for i := range 7 {
		r := hoodiectl(t, fmt.Sprintf(`{"uuid":"k%d","ts":1,"fare":1.5,"region":"eu"}`, i), "upsert", dir, "--set", "hoodie.archive.automatic=false").mustSucceed(t)
		instants = append(instants, lastLine(r.stdout))
	}
	hoodiectl(t, "", "archive", dir, "--set", "hoodie.keep.max.commits=5").mustFail(t, exitError, "hoodie.keep.max.commits=5", "hoodie.keep.min.commits=20")
	r := hoodiectl(t, "", "archive", dir, "--set", "hoodie.keep.min.commits=2", "--set", "hoodie.keep.max.commits=4", "--set", "hoodie.cleaner.commits.retained=1").mustSucceed(t)
	if r.stdout != "" || !strings.Contains(r.stderr, "archived 5 instant(s)") {
		t.Fatalf("archive printed %q on stdout, %q on stderr", r.stdout, r.stderr)
	}
	active := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	if n := strings.Count(active, "\n"); n != 2 || strings.Contains(active, "archived") {
		t.Errorf("active timeline after archiving:\n%s", active)
	}
	var rows []instantRow
	for _, line := range strings.Split(strings.TrimSpace(hoodiectl(t, "", "timeline", dir, "--archived").mustSucceed(t).stdout), "\n") {
		var row instantRow
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rows = append(rows, row)
	}
	var got []string
	for i, row := range rows {
		got = append(got, row.Instant)
		if row.Archived == nil || *row.Archived != (i < 5) || row.Operation != "upsert" || row.Inserts == nil || *row.Inserts != 1 {
			t.Errorf("row %d: %+v", i, row)
		}
	}
	if !slices.Equal(got, instants) {
		t.Errorf("timeline --archived lists %v, want %v", got, instants)
	}
	table := hoodiectl(t, "", "timeline", dir, "--archived", "--format", "table").mustSucceed(t).stdout
	if header := strings.Fields(strings.SplitN(table, "\n", 2)[0]); header[len(header)-1] != "ARCHIVED" || strings.Count(table, " true") != 5 {
		t.Errorf("table output:\n%s", table)
	}
	// Time travel to an archived commit reads what was then.
	asOf := hoodiectl(t, "", "read", dir, "--as-of", instants[2]).mustSucceed(t).stdout
	if n := strings.Count(asOf, "\n"); n != 3 {
		t.Errorf("read as of the third (archived) commit: %d records, want 3:\n%s", n, asOf)
	}
	if r := hoodiectl(t, "", "archive", dir).mustSucceed(t); !strings.Contains(r.stderr, "nothing to archive") {
		t.Errorf("a second archive said %q", r.stderr)
	}
}

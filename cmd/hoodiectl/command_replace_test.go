package main

import (
	"slices"
	"strings"
	"testing"
)

// TestReplaceCommandsEndToEnd runs insert-overwrite, delete-partition,
// insert-overwrite-table and cluster through hoodiectl: each prints its
// instant last, the records are as the contract says, and bad input is
// refused (exit 1) with nothing committed.
func TestReplaceCommandsEndToEnd(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}
{"uuid":"b","ts":1,"fare":2.5,"region":"us"}
{"uuid":"c","ts":1,"fare":3.5,"region":"eu"}
`, "insert", dir).mustSucceed(t)
	r := hoodiectl(t, `{"uuid":"a","ts":2,"fare":9.5,"region":"eu"}
{"uuid":"d","ts":2,"fare":4.5,"region":"eu"}
`, "insert-overwrite", dir).mustSucceed(t)
	if !instantLine.MatchString(lastLine(r.stdout)) {
		t.Fatalf("insert-overwrite: last line %q is not an instant", lastLine(r.stdout))
	}
	if got := sortedKeys(readKeys(t, dir)); got != "a,b,d" {
		t.Fatalf("after insert-overwrite of eu: keys %s, want a,b,d (c replaced, us kept)", got)
	}
	// b lives in us, which an overwrite of eu does not replace.
	hoodiectl(t, `{"uuid":"b","ts":3,"fare":1,"region":"eu"}`+"\n", "insert-overwrite", dir).mustFail(t, 1, `"b"`, "nothing was committed")
	hoodiectl(t, "", "insert-overwrite", dir).mustFail(t, 1, "no records", "delete-partition")
	hoodiectl(t, "", "delete-partition", dir, "eu", "asia").mustFail(t, 1, `"asia"`, "nothing was committed")
	hoodiectl(t, "", "delete-partition", dir).mustFail(t, 2)
	r = hoodiectl(t, "", "delete-partition", dir, "us").mustSucceed(t)
	if !instantLine.MatchString(lastLine(r.stdout)) {
		t.Fatalf("delete-partition: last line %q is not an instant", lastLine(r.stdout))
	}
	if got := sortedKeys(readKeys(t, dir)); got != "a,d" {
		t.Fatalf("after delete-partition us: keys %s, want a,d", got)
	}
	hoodiectl(t, `{"uuid":"e","ts":1,"fare":1,"region":"eu"}`+"\n", "bulk-insert", dir).mustSucceed(t) // a second file group in eu
	r = hoodiectl(t, "", "cluster", dir).mustSucceed(t)
	if !instantLine.MatchString(lastLine(r.stdout)) {
		t.Fatalf("cluster: last line %q is not an instant", lastLine(r.stdout))
	}
	if got := sortedKeys(readKeys(t, dir)); got != "a,d,e" {
		t.Fatalf("after cluster: keys %s, want a,d,e", got)
	}
	if r := hoodiectl(t, "", "cluster", dir).mustSucceed(t); r.stdout != "" {
		t.Errorf("a cluster with nothing to do printed %q", r.stdout)
	}
	hoodiectl(t, `{"uuid":"z","ts":1,"fare":1,"region":"asia"}`+"\n", "insert-overwrite-table", dir, "--set", "hoodie.datasource.write.operation=insert_overwrite_table").mustSucceed(t)
	if got := sortedKeys(readKeys(t, dir)); got != "z" {
		t.Fatalf("after insert-overwrite-table: keys %s, want z", got)
	}
	out := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	for _, op := range []string{"insert_overwrite", "delete_partition", "cluster", "insert_overwrite_table"} {
		if !strings.Contains(out, `"operation":"`+op+`"`) {
			t.Errorf("timeline lacks a %s: %s", op, out)
		}
	}
	hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)
}

// sortedKeys returns the keys of recs, sorted and comma-separated.
func sortedKeys(recs map[string]map[string]any) string {
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

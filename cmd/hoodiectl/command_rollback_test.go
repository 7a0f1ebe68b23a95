package main

import (
	"strings"
	"testing"
)

func TestRollbackCommand(t *testing.T) {
	dir := newTripsCLITable(t)
	first := lastLine(hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`, "upsert", dir).mustSucceed(t).stdout)
	second := lastLine(hoodiectl(t, `{"uuid":"a","ts":2,"fare":9.5,"region":"eu"}
{"uuid":"b","ts":1,"fare":2.5,"region":"us"}`, "upsert", dir).mustSucceed(t).stdout)

	// Not the latest write: refused, naming the latest, nothing changed.
	hoodiectl(t, "", "rollback", dir, first).mustFail(t, exitRefused, "not the table's latest write", second, "nothing was changed")
	if recs := readKeys(t, dir); len(recs) != 2 {
		t.Fatalf("after a refused rollback the table holds %d records, want 2", len(recs))
	}
	hoodiectl(t, "", "rollback", dir, "20000101000000000").mustFail(t, exitError, "20000101000000000 is not on the table's timeline")
	hoodiectl(t, "", "rollback", dir).mustFail(t, exitUsage, "expected TABLE INSTANT")
	hoodiectl(t, "", "rollback", dir, " ").mustFail(t, exitUsage, "INSTANT is empty")

	res := hoodiectl(t, "", "rollback", dir, second).mustSucceed(t)
	rb := lastLine(res.stdout)
	if !instantLine.MatchString(rb) || rb <= second {
		t.Fatalf("rollback printed %q as its last line; want the rollback instant, after %s", rb, second)
	}
	if !strings.Contains(res.stderr, "rolled back commit "+second) {
		t.Errorf("rollback said %q", res.stderr)
	}
	recs := readKeys(t, dir)
	if len(recs) != 1 || recs["a"]["fare"] != 1.5 {
		t.Fatalf("after the rollback the table holds %v; want a as the first write left it", recs)
	}
	tl := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	if !strings.Contains(tl, `{"instant":"`+rb+`","action":"rollback","state":"completed"}`) || strings.Contains(tl, second) {
		t.Errorf("timeline after the rollback:\n%s", tl)
	}
}

func TestRestoreCommandRefusesWhatIsNotASavepoint(t *testing.T) {
	dir := newTripsCLITable(t)
	first := lastLine(hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`, "upsert", dir).mustSucceed(t).stdout)
	hoodiectl(t, "", "restore", dir, first).mustFail(t, exitRefused, "instant "+first+" is not a savepoint of the table (it has none)", "nothing was changed")
	if tl := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; strings.Contains(tl, "restore") {
		t.Errorf("a refused restore left an instant:\n%s", tl)
	}
}

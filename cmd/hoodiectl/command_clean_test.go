package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// upserts makes n upserts of one record each into a new trips table,
// without the automatic cleaner, and returns the table and the instants.
func upserts(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := newTripsCLITable(t)
	var instants []string
	for i := range n {
		in := `{"uuid":"a","ts":` + strings.Repeat("1", i+1) + `,"fare":1.5,"region":"eu"}`
		r := hoodiectl(t, in, "upsert", dir, "--set", "hoodie.clean.automatic=false").mustSucceed(t)
		instants = append(instants, lastLine(r.stdout))
	}
	return dir, instants
}

func TestCleanCommand(t *testing.T) {
	dir, instants := upserts(t, 4)
	r := hoodiectl(t, "", "clean", dir, "--set", "hoodie.cleaner.commits.retained=1").mustSucceed(t)
	clean := lastLine(r.stdout)
	if !instantLine.MatchString(clean) || !strings.Contains(r.stderr, "clean: 2 file(s) deleted") {
		t.Fatalf("clean printed %q, stderr %q", r.stdout, r.stderr)
	}
	if tl := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; !strings.Contains(tl, `{"instant":"`+clean+`","action":"clean","state":"completed"}`) {
		t.Errorf("timeline lacks the completed clean %s:\n%s", clean, tl)
	}
	r = hoodiectl(t, "", "clean", dir, "--set", "hoodie.cleaner.commits.retained=1").mustSucceed(t)
	if r.stdout != "" || !strings.Contains(r.stderr, "clean: nothing to clean") {
		t.Errorf("second clean printed %q, stderr %q; want no instant, and nothing to clean", r.stdout, r.stderr)
	}
	hoodiectl(t, "", "read", dir, "--as-of", instants[0]).mustFail(t, exitError,
		"the snapshot as of "+instants[0]+" cannot be read", "is gone", "the oldest instant still readable is "+instants[2])
	hoodiectl(t, "", "read", dir, "--begin", instants[0], "--end", instants[1]).mustFail(t, exitError, "the oldest instant still readable is "+instants[2])
	hoodiectl(t, "", "read", dir, "--as-of", instants[2]).mustSucceed(t)
	hoodiectl(t, "", "clean", dir, "--set", "hoodie.cleaner.policy=KEEP_EVERYTHING").mustFail(t, exitError, "hoodie.cleaner.policy")
	hoodiectl(t, "", "clean").mustFail(t, exitUsage)
}

// TestAutomaticClean checks that writes clean after each commit by
// default, keeping 10 commits and the version before them: the 11th commit
// is the first to move the earliest commit to retain on (a clean that
// deletes nothing records it), the 12th the first to leave a version to
// delete. The instant printed last is still the write's.
func TestAutomaticClean(t *testing.T) {
	dir := newTripsCLITable(t)
	var last string
	for i := range 13 {
		in := `{"uuid":"a","ts":` + strings.Repeat("1", i+1) + `,"fare":1.5,"region":"eu"}`
		last = lastLine(hoodiectl(t, in, "upsert", dir).mustSucceed(t).stdout)
	}
	var cleans, lastCommit int
	for i, line := range strings.Split(strings.TrimSpace(hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		switch row["action"] {
		case "clean":
			cleans++
		case "commit":
			if row["instant"] == last {
				lastCommit = i
			}
		}
	}
	if cleans != 3 || lastCommit == 0 {
		t.Errorf("%d cleans (want 3, after commits 11, 12 and 13), last commit at %d", cleans, lastCommit)
	}
}

func TestSavepointCommands(t *testing.T) {
	dir, instants := upserts(t, 3)
	r := hoodiectl(t, "", "savepoint", dir, instants[1], "--comment", "before the backfill").mustSucceed(t)
	if lastLine(r.stdout) != instants[1] {
		t.Fatalf("savepoint printed %q, want %s", r.stdout, instants[1])
	}
	var row savepointRow
	out := hoodiectl(t, "", "savepoints", dir).mustSucceed(t).stdout
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if row.Instant != instants[1] || row.Comment != "before the backfill" || row.Files != 1 || row.SavepointedBy == "" {
		t.Errorf("savepoints listed %+v", row)
	}
	hoodiectl(t, "", "savepoint", dir, instants[1]).mustFail(t, exitError, "savepointed already")
	hoodiectl(t, "", "savepoint", dir, "20200101000000000").mustFail(t, exitError, "no such instant")
	// The savepoint keeps its files through a clean that keeps one commit.
	hoodiectl(t, "", "clean", dir, "--set", "hoodie.cleaner.commits.retained=1").mustSucceed(t)
	hoodiectl(t, "", "read", dir, "--as-of", instants[1]).mustSucceed(t)
	hoodiectl(t, "", "read", dir, "--as-of", instants[0]).mustFail(t, exitError, "cannot be read")

	r = hoodiectl(t, "", "savepoint", dir, instants[1], "--delete").mustSucceed(t)
	if r.stdout != "" {
		t.Errorf("savepoint --delete printed %q", r.stdout)
	}
	if out := hoodiectl(t, "", "savepoints", dir).mustSucceed(t).stdout; out != "" {
		t.Errorf("savepoints after the delete: %q", out)
	}
	hoodiectl(t, "", "savepoint", dir, instants[1], "--delete").mustFail(t, exitError, "no such savepoint")
	hoodiectl(t, "", "savepoint", dir).mustFail(t, exitUsage)
}

// TestReadAsOfExportedCopy reads an old instant of a copy made by export
// --format hudi, which holds the latest files only: the read fails naming
// the oldest instant the copy can give, where it used to print part of
// the table with exit 0.
func TestReadAsOfExportedCopy(t *testing.T) {
	dir := newTripsCLITable(t)
	first := lastLine(hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`, "insert", dir).mustSucceed(t).stdout)
	second := lastLine(hoodiectl(t, `{"uuid":"b","ts":1,"fare":2.5,"region":"eu"}`, "upsert", dir).mustSucceed(t).stdout)
	copyDir := t.TempDir() + "/copy"
	hoodiectl(t, "", "export", dir, copyDir, "--format", "hudi").mustSucceed(t)
	hoodiectl(t, "", "read", copyDir, "--as-of", first).mustFail(t, exitError, "cannot be read", "the oldest instant still readable is "+second)
	if recs := readKeys(t, copyDir); len(recs) != 2 {
		t.Errorf("the copy's latest snapshot has %d records, want 2", len(recs))
	}
}

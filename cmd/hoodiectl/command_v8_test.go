package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/hudi1test"
	"github.com/hoodie-dev/hoodie/storage"
)

// v8Table writes a table with hoodiectl, three commits (insert ids 0 to 7,
// upsert 1 and 2, delete 3), and lays it out as Hudi 1.0.2 would have
// written it (table version 8): each commit completes when the next one is
// requested, the last at "20991231235959999". It returns the folder and the
// instants.
func v8Table(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cow_v8")
	hoodiectl(t, "", "init", dir, "--name", "hudi1", "--record-key", "id", "--precombine", "ts", "--partition-by", "part").mustSucceed(t)
	rows := func(tag string, ts int, ids ...int) string {
		var b strings.Builder
		for _, id := range ids {
			row, _ := json.Marshal(map[string]any{"id": id, "ts": ts, "name": tag, "part": []string{"p0", "p1"}[id%2]})
			b.Write(append(row, '\n'))
		}
		return b.String()
	}
	var instants []string
	for _, w := range []struct{ op, in string }{
		{"insert", rows("i", 1, 0, 1, 2, 3, 4, 5, 6, 7)},
		{"upsert", rows("u", 2, 1, 2)},
		{"delete", rows("d", 3, 3)},
	} {
		out := strings.Fields(hoodiectl(t, w.in, w.op, dir).mustSucceed(t).stdout)
		instants = append(instants, out[len(out)-1])
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	completion := map[string]string{instants[0]: instants[1], instants[1]: instants[2], instants[2]: "20991231235959999"}
	if err := hudi1test.Upgrade(context.Background(), fsys, func(r string) string { return completion[r] }); err != nil {
		t.Fatal(err)
	}
	return dir, instants
}

// TestVersion8Commands: on a table of version 8 the reading commands work
// (timeline with completion times, read, export) and the writing ones are
// refused with exit status 1.
func TestVersion8Commands(t *testing.T) {
	dir, instants := v8Table(t)
	out := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	var completions []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row instantRow
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		completions = append(completions, row.Instant+"_"+row.Completion)
	}
	if want := []string{instants[0] + "_" + instants[1], instants[1] + "_" + instants[2], instants[2] + "_20991231235959999"}; strings.Join(completions, " ") != strings.Join(want, " ") {
		t.Errorf("timeline: instants and completion times %v, want %v", completions, want)
	}
	table := hoodiectl(t, "", "timeline", dir, "--format", "table").mustSucceed(t).stdout
	if header := strings.Fields(strings.SplitN(table, "\n", 2)[0]); len(header) < 4 || header[3] != "COMPLETION" {
		t.Errorf("timeline table without a COMPLETION column:\n%s", table)
	}

	// The first commit completed when the second was requested: the range
	// holds it alone, with the records it wrote.
	got := hoodiectl(t, "", "read", dir, "--begin", instants[0], "--end", instants[1], "--columns", "id,name").mustSucceed(t).stdout
	if n := strings.Count(got, `"name":"i"`); n != 8 || strings.Count(got, "\n") != 8 {
		t.Errorf("read [%s, %s]: want the 8 records of the first commit:\n%s", instants[0], instants[1], got)
	}

	copyDir := filepath.Join(t.TempDir(), "copy")
	hoodiectl(t, "", "export", dir, copyDir, "--format", "hudi").mustSucceed(t)
	want := hoodiectl(t, "", "read", dir, "--format", "csv").mustSucceed(t).stdout
	if got := hoodiectl(t, "", "read", copyDir, "--format", "csv").mustSucceed(t).stdout; sortedLines(got) != sortedLines(want) {
		t.Errorf("the hudi export reads\n%s\nwant\n%s", got, want)
	}
	if got := hoodiectl(t, "", "timeline", copyDir).mustSucceed(t).stdout; got != out {
		t.Errorf("the hudi export's timeline:\n%s\nwant\n%s", got, out)
	}

	for _, args := range [][]string{{"upsert", dir}, {"delete", dir}, {"index", "rebuild", dir}, {"index", "verify", dir}} {
		hoodiectl(t, `{"id":1,"ts":9,"name":"x","part":"p1"}`+"\n", args...).mustFail(t, exitRefused, "hoodie.table.version 8", "downgrade")
	}
}

// sortedLines returns the lines of s sorted, joined by newlines.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

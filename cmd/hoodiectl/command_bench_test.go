package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/bench"
)

// benchRowsWant are the rows each workload of bench --rows 3000 handles.
var benchRowsWant = map[bench.Workload]int{
	bench.ParquetGoWrite:   3000,
	bench.BulkInsert:       3000,
	bench.BulkInsertNoMeta: 3000,
	bench.BulkInsertNoSort: 3000,
	bench.Upsert1k:         1000,
	bench.Upsert100k:       100_000,
	bench.Delete1k:         1000,
	bench.Tag100k:          100_000,
	bench.SnapshotScan:     3000,
	bench.TimeTravel:       3000,
	bench.PartitionScan:    1018, // the trips of seed 1 in asia/india/chennai
	bench.KeyLookup:        1,
	bench.SQL:              3000,
	bench.DuckDB:           3000,
	bench.Upsert1kNoClean:  1000,
	bench.Upsert1kClean:    1000,
}

func TestBenchTable(t *testing.T) {
	dir := t.TempDir()
	r := hoodiectl(t, "", "bench", "--rows", "3000", "--runs", "1", "--dir", dir).mustSucceed(t)
	if r.stderr != "" {
		t.Errorf("progress lines on a standard error that is no terminal:\n%s", r.stderr)
	}
	if header, _, _ := strings.Cut(r.stdout, "\n"); !strings.Contains(header, "of 1 runs, cold memory;") {
		t.Errorf("header %q does not say each workload started with cold memory", header)
	}
	report, validated, ok := strings.Cut(r.stdout, "Validated in every run:")
	if !ok {
		t.Fatalf("no validation section:\n%s", r.stdout)
	}
	for _, w := range bench.Workloads() {
		rows, ok := tableCell(report, string(w))
		if !ok {
			t.Errorf("no line for %s:\n%s", w, report)
			continue
		}
		if want := strconv.Itoa(benchRowsWant[w]); rows != want {
			t.Errorf("%s: %s rows, want %s", w, rows, want)
		}
		if check, ok := tableCell(validated, string(w)); !ok || check == "" {
			t.Errorf("%s: nothing validated:\n%s", w, validated)
		}
	}
	for _, ratio := range []string{"bulk-insert throughput / parquet-go's", "time travel / snapshot scan", "sql on the snapshot / DuckDB"} {
		if !strings.Contains(report, ratio) {
			t.Errorf("no ratio %q:\n%s", ratio, report)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was not removed: %v, %v", entries, err)
	}
}

// tableCell returns the first word after name on the line of text that
// starts with name.
func tableCell(text, name string) (string, bool) {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				return fields[0], true
			}
			return "", true
		}
	}
	return "", false
}

func TestBenchJSON(t *testing.T) {
	r := hoodiectl(t, "", "bench", "--rows", "3000", "--runs", "2", "--format", "json", "--warm", "--dir", t.TempDir()).mustSucceed(t)
	workloads := bench.Workloads()
	var rep bench.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if rep.Rows != 3000 || rep.Runs != 2 || rep.Memory != "warm" || len(rep.Results) != len(workloads) || len(rep.Ratios) != 4 {
		t.Fatalf("report of %d rows, %d runs, %q memory, %d results, %d ratios:\n%s", rep.Rows, rep.Runs, rep.Memory, len(rep.Results), len(rep.Ratios), r.stdout)
	}
	for i, res := range rep.Results {
		if res.Workload != workloads[i] || res.Rows != benchRowsWant[res.Workload] {
			t.Errorf("result %d: %s of %d rows, want %s of %d", i, res.Workload, res.Rows, workloads[i], benchRowsWant[workloads[i]])
		}
		runs := 2
		if res.Workload == bench.Upsert1kClean || res.Workload == bench.Upsert1kNoClean {
			runs = 2 * bench.CleanerPairs
		}
		if len(res.Runs) != runs || res.Best <= 0 || res.Best > res.Median || res.Validated == "" {
			t.Errorf("%s: runs %v, best %v, median %v, validated %q", res.Workload, res.Runs, res.Best, res.Median, res.Validated)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	hoodiectl(t, "", "bench", "--rows", "999").mustFail(t, exitUsage, "--rows 999: need at least 1000")
	hoodiectl(t, "", "bench", "--runs", "0").mustFail(t, exitUsage, "--runs 0")
	hoodiectl(t, "", "bench", "--format", "csv").mustFail(t, exitUsage, `--format "csv"`)
	hoodiectl(t, "", "bench", "extra").mustFail(t, exitUsage, "expected no arguments")
}

func TestBenchGrowth(t *testing.T) {
	dir := t.TempDir()
	r := hoodiectl(t, "", "bench", "--rows", "3000", "--growth", "3", "--dir", dir).mustSucceed(t)
	if r.stderr != "" {
		t.Errorf("progress lines on a standard error that is no terminal:\n%s", r.stderr)
	}
	if header, _, _ := strings.Cut(r.stdout, "\n"); !strings.Contains(header, "3 upserts of 1000 existing keys into 3000 trips") {
		t.Errorf("header %q", header)
	}
	measures, bounds, ok := strings.Cut(r.stdout, "Bounds:")
	if !ok {
		t.Fatalf("no bounds:\n%s", r.stdout)
	}
	if v, _ := tableCell(measures, "commits retained (hoodie.cleaner.commits.retained)"); v != "10" {
		t.Errorf("commits retained %q, want the default 10:\n%s", v, measures)
	}
	for _, name := range []string{"table bytes / ((commits retained + 2) × snapshot bytes)", "completed commits on the active timeline", "completed cleans on the active timeline"} {
		if _, ok := tableCell(bounds, name); !ok {
			t.Errorf("no bound %q:\n%s", name, bounds)
		}
	}
	if strings.Count(bounds, " met\n") != 3 || strings.Contains(bounds, "not met") {
		t.Errorf("bounds not all met:\n%s", bounds)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was not removed: %v, %v", entries, err)
	}

	r = hoodiectl(t, "", "bench", "--rows", "3000", "--growth", "2", "--format", "json", "--dir", dir).mustSucceed(t)
	var rep bench.GrowthReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if rep.Rows != 3000 || rep.Upserts != 2 || len(rep.Upsert) != 2 || rep.KeepMaxCommits != 30 || len(rep.Bounds) != 3 || rep.Check() != nil {
		t.Errorf("report of %d rows, %d upserts, %d times, keep max %d, bounds %v", rep.Rows, rep.Upserts, len(rep.Upsert), rep.KeepMaxCommits, rep.Bounds)
	}
}

func TestBenchGrowthUsage(t *testing.T) {
	hoodiectl(t, "", "bench", "--growth", "0").mustFail(t, exitUsage, "--growth 0: need at least 1 upsert")
	hoodiectl(t, "", "bench", "--growth", "2", "--runs", "2").mustFail(t, exitUsage, "--runs does not apply to --growth")
	hoodiectl(t, "", "bench", "--growth", "2", "--warm").mustFail(t, exitUsage, "--warm does not apply to --growth")
	hoodiectl(t, "", "bench", "--growth", "2", "--rows", "10").mustFail(t, exitUsage, "--rows 10: need at least 1000")
}

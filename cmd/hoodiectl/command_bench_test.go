package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchRowsWant are the rows each workload of bench --rows 3000 handles.
var benchRowsWant = map[string]int{
	wlParquetGo:  3000,
	wlBulkInsert: 3000,
	wlBulkNoMeta: 3000,
	wlBulkNoSort: 3000,
	wlUpsert1k:   1000,
	wlUpsert100k: 100_000,
	wlDelete:     1000,
	wlTag:        100_000,
	wlSnapshot:   3000,
	wlTimeTravel: 3000,
	wlPartition:  1018, // the trips of seed 1 in asia/india/chennai
	wlOneKey:     1,
	wlSQL:        3000,
	wlDuckDB:     3000,
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
	for _, w := range benchWorkloads {
		rows, ok := tableCell(report, w)
		if !ok {
			t.Errorf("no line for %s:\n%s", w, report)
			continue
		}
		if want := strconv.Itoa(benchRowsWant[w]); rows != want {
			t.Errorf("%s: %s rows, want %s", w, rows, want)
		}
		if check, ok := tableCell(validated, w); !ok || check == "" {
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
	var rep benchReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if rep.Rows != 3000 || rep.Runs != 2 || rep.Memory != "warm" || len(rep.Results) != len(benchWorkloads) || len(rep.Ratios) != 3 {
		t.Fatalf("report of %d rows, %d runs, %q memory, %d results, %d ratios:\n%s", rep.Rows, rep.Runs, rep.Memory, len(rep.Results), len(rep.Ratios), r.stdout)
	}
	for i, res := range rep.Results {
		if res.Workload != benchWorkloads[i] || res.Rows != benchRowsWant[res.Workload] {
			t.Errorf("result %d: %s of %d rows, want %s of %d", i, res.Workload, res.Rows, benchWorkloads[i], benchRowsWant[benchWorkloads[i]])
		}
		if len(res.Runs) != 2 || res.Best <= 0 || res.Best > res.Median || res.Validated == "" {
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

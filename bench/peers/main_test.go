package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunSmall runs every workload on a small table, which also runs every
// check of the table's contents, and reads the JSON report back.
func TestRunSmall(t *testing.T) {
	var out bytes.Buffer
	cfg := config{rows: 3000, runs: 2, dir: t.TempDir(), format: "json"}
	if err := run(context.Background(), cfg, &out); err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("reading the report: %v\n%s", err, out.Bytes())
	}
	if len(rep.Results) != len(workloadOrder) || rep.Memory != "cold" {
		t.Fatalf("%d results, want %d; %q memory, want cold", len(rep.Results), len(workloadOrder), rep.Memory)
	}
	want := map[string]int{
		wlAppend: 3000, wlScan: 3000, wlLookup: 1, wlUpsert1k: 1000,
		wlUpsert100k: 100_000, wlDelete: 1000, wlParquetGo: 3000,
	}
	for _, r := range rep.Results {
		if len(r.Runs) != 2 || r.Best <= 0 || r.Median < r.Best {
			t.Errorf("%s: runs %v, best %v, median %v", r.Workload, r.Runs, r.Best, r.Median)
		}
		if n, ok := want[r.Workload]; ok && r.Rows != n {
			t.Errorf("%s: %d rows, want %d", r.Workload, r.Rows, n)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var out bytes.Buffer
	rep := report{Rows: 10, Runs: 1, Memory: "warm", Results: []result{{Workload: wlAppend, Rows: 10, Best: 0.5, Median: 0.5, RowsPerSec: 20, CPU: 0.75}}}
	if err := writeTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "10 trips, best and median of 1 runs, warm memory;") ||
		!strings.Contains(out.String(), "iceberg-go: append         10     0.500     0.500            20     0.750") {
		t.Fatalf("table:\n%s", out.String())
	}
}

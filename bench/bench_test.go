package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
)

// TestRun runs every workload once on the smallest base table Run accepts,
// in a Dir that does not exist yet.
func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made", "by", "run")
	var progress bytes.Buffer
	rep, err := Run(context.Background(), Options{Rows: MinRows, Runs: 1, Dir: dir, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	chennai := 0
	for _, tr := range tripbench.NewData(MinRows).Base {
		if tr.PartitionPath == trips.Chennai {
			chennai++
		}
	}
	rowsWant := map[Workload]int{
		ParquetGoWrite: MinRows, BulkInsert: MinRows, BulkInsertNoMeta: MinRows, BulkInsertNoSort: MinRows,
		Upsert1k: 1000, Upsert100k: 100_000, Delete1k: 1000, Tag100k: 100_000,
		SnapshotScan: MinRows, TimeTravel: MinRows, PartitionScan: chennai, KeyLookup: 1, SQL: MinRows, DuckDB: MinRows,
		Upsert1kNoClean: 1000, Upsert1kClean: 1000,
	}
	if rep.Rows != MinRows || rep.Runs != 1 || rep.Memory != "cold" || rep.GOMAXPROCS < 1 || len(rep.Ratios) != 4 {
		t.Errorf("report of %d rows, %d runs, %q memory, GOMAXPROCS %d, %d ratios", rep.Rows, rep.Runs, rep.Memory, rep.GOMAXPROCS, len(rep.Ratios))
	}
	var got []Workload
	for _, res := range rep.Results {
		got = append(got, res.Workload)
		if res.Rows != rowsWant[res.Workload] {
			t.Errorf("%s: %d rows, want %d", res.Workload, res.Rows, rowsWant[res.Workload])
		}
		runs := 1
		if res.Workload == Upsert1kClean || res.Workload == Upsert1kNoClean {
			runs = CleanerPairs
		}
		if len(res.Runs) != runs || res.Best != slices.Min(res.Runs) || res.Median > slices.Max(res.Runs) || res.Median < res.Best || res.Detail == "" || res.Validated == "" {
			t.Errorf("%s: runs %v, best %v, median %v, detail %q, validated %q", res.Workload, res.Runs, res.Best, res.Median, res.Detail, res.Validated)
		}
	}
	if !slices.Equal(got, Workloads()) {
		t.Errorf("results of %v, want %v", got, Workloads())
	}
	lines := progress.String()
	for _, want := range []string{"generating 1000 trips", "run 1 of 1"} {
		if !strings.Contains(lines, want+"\n") {
			t.Errorf("no progress line %q:\n%s", want, lines)
		}
	}
	for _, w := range Workloads() {
		if !strings.Contains(lines, "  "+string(w)+" ") {
			t.Errorf("no progress line for %s:\n%s", w, lines)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was not removed: %v, %v", entries, err)
	}
}

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []Options{{Rows: MinRows - 1, Runs: 1, Dir: dir}, {Rows: MinRows, Runs: 0, Dir: dir}} {
		if _, err := Run(context.Background(), opts); err == nil {
			t.Errorf("%d rows, %d runs: no error", opts.Rows, opts.Runs)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{Rows: MinRows, Runs: 1, Dir: dir})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "run 1: ") {
		t.Errorf("a canceled run: %v", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was made or not removed: %v, %v", entries, err)
	}
}

func TestResult(t *testing.T) {
	samples := []sample{
		{wall: 3 * time.Second, cpu: 5 * time.Second, detail: "third"},
		{wall: time.Second, cpu: 2 * time.Second, detail: "best"},
		{wall: 4 * time.Second, cpu: 7 * time.Second, detail: "slowest"},
		{wall: 2 * time.Second, cpu: 3 * time.Second, detail: "second"},
	}
	r := result(BulkInsert, 1000, samples, "checked")
	want := Result{Workload: BulkInsert, Rows: 1000, Best: 1, Median: 2.5, RowsPerSec: 1000, CPU: 2,
		Runs: []float64{3, 1, 4, 2}, Detail: "best", Validated: "checked"}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("result %+v, want %+v", r, want)
	}
	if r := result(KeyLookup, 1, samples[:3], ""); r.Median != 3 {
		t.Errorf("median of 3, 1 and 4 seconds: %v", r.Median)
	}
}

func TestRatio(t *testing.T) {
	for _, c := range []struct {
		value, limit float64
		atLeast      bool
		target       string
		met          bool
	}{
		{0.85, 0.85, true, ">= 0.85", true},
		{0.84, 0.85, true, ">= 0.85", false},
		{2, 2, false, "<= 2", true},
		{2.01, 2, false, "<= 2", false},
	} {
		r := ratio("r", c.value, c.limit, c.atLeast)
		if r != (Ratio{Name: "r", Value: c.value, Target: c.target, Met: c.met}) {
			t.Errorf("ratio(%v, %v, %v) = %+v", c.value, c.limit, c.atLeast, r)
		}
	}
}

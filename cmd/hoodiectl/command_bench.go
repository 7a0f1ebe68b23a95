package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// benchOptions are the flags of hoodiectl bench.
type benchOptions struct {
	rows, runs  int
	dir, format string
	warm        bool // keep the process's memory between workloads
}

// minBenchRows is the smallest base table bench accepts: one the delete of
// 1,000 keys and the upsert of 500 existing ones can be drawn from.
const minBenchRows = 1000

func newBenchCommand(io streams) *cobra.Command {
	var opts benchOptions
	cmd := &cobra.Command{
		Use:   "bench [--rows N] [--runs R] [--dir DIR] [--format table|json] [--warm]",
		Short: "Measure Hoodie's workloads beside plain parquet-go and DuckDB",
		Long: `bench generates N trips (internal/trips with seed 1: the records bench/peers
gives iceberg-go) and runs each workload below R times, every run on a new table
in a work folder under DIR (default: the system's temporary folder) that is
removed at the end:

  parquet-go: write    plain parquet-go writing the N trips from Go structs with
                       the five Hudi meta columns, zstd, into as many files per
                       partition as the bulk insert made
  hoodie: bulk-insert  the N trips into a new table
  hoodie: bulk-insert, no meta fields
                       the same into a table with
                       hoodie.populate.meta.fields=false
  hoodie: bulk-insert, sort mode NONE
                       the same with hoodie.bulkinsert.sort.mode=NONE: files
                       in input order, not in key order
  index: tag 100k      record-index lookups of 100,000 keys, half of them
                       present, on the N-key index
  read: ...            on the N-record snapshot: every column, summing fare;
                       one partition; one key (uuid and fare)
  sql, duckdb          select count(*), sum(fare) through hoodiectl query's
                       engine over the snapshot, and DuckDB reading the base
                       files directly
  hoodie: upsert       1,000 then 100,000 keys, half updates and half new
  hoodie: delete 1k    1,000 existing keys
  read: time travel    every column as of the first commit, after the writes

Every run checks its results and fails on a wrong one: row counts after each
step, fare sums, sampled keys read back with their new fares, deleted keys
gone, tagged keys found in their partitions.

Before each timed workload, bench collects garbage and gives the memory the
process does not use back to the system, so that each workload pays for the
memory it touches, as a process that runs it alone does, whatever ran before
it. --warm only collects garbage: a workload then reuses memory that earlier
ones took from the system, as in a long-lived process, and its time depends
on what ran before it.

The report gives per workload the best and the median wall-clock seconds,
the rows per second of the best run, the CPU seconds of the whole process
during the best run (less sensitive to other load on the machine than wall
time), then the ratios that Hoodie's performance targets state. Progress
goes to standard error when it is a terminal. For iceberg-go's side, run in
the same session:
cd bench/peers && go run . -rows N -runs R (see docs/performance.md).`,
		Example: `  hoodiectl bench
  hoodiectl bench --rows 100000 --runs 5 --format json > bench.json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.rows < minBenchRows {
				return usagef("--rows %d: need at least %d", opts.rows, minBenchRows)
			}
			if opts.runs < 1 {
				return usagef("--runs %d: need at least 1", opts.runs)
			}
			if err := checkFormat(opts.format, "table", "json"); err != nil {
				return err
			}
			progress := io.err // nil unless standard error is a terminal
			if !isTerminal(progress) {
				progress = nil
			}
			rep, err := runBench(cmd.Context(), opts, progress)
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			if opts.format == "json" {
				enc := json.NewEncoder(io.out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return writeBenchReport(io.out, rep)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.rows, "rows", 1_000_000, "trips in the base table (at least 1000)")
	f.IntVar(&opts.runs, "runs", 3, "runs of every workload; the report gives the best and the median")
	f.StringVar(&opts.dir, "dir", "", "folder to make the work folder in (default: the system's temporary folder)")
	f.StringVar(&opts.format, "format", "table", "report format: table or json")
	f.BoolVar(&opts.warm, "warm", false, "keep the memory the process holds between workloads instead of giving it back to the system")
	return cmd
}

// The workloads, in report order.
const (
	wlParquetGo  = "parquet-go: write"
	wlBulkInsert = "hoodie: bulk-insert"
	wlBulkNoMeta = "hoodie: bulk-insert, no meta fields"
	wlBulkNoSort = "hoodie: bulk-insert, sort mode NONE"
	wlUpsert1k   = "hoodie: upsert 1k"
	wlUpsert100k = "hoodie: upsert 100k"
	wlDelete     = "hoodie: delete 1k"
	wlTag        = "index: tag 100k keys"
	wlSnapshot   = "read: snapshot scan"
	wlTimeTravel = "read: time travel to 1st commit"
	wlPartition  = "read: one partition"
	wlOneKey     = "read: one key"
	wlSQL        = "sql: count, sum(fare) on snapshot"
	wlDuckDB     = "duckdb: count, sum(fare) on files"
)

var benchWorkloads = []string{
	wlParquetGo, wlBulkInsert, wlBulkNoMeta, wlBulkNoSort, wlUpsert1k, wlUpsert100k, wlDelete, wlTag,
	wlSnapshot, wlTimeTravel, wlPartition, wlOneKey, wlSQL, wlDuckDB,
}

// benchReport is what bench prints.
type benchReport struct {
	Rows int `json:"rows"`
	Runs int `json:"runs"`
	// Memory is "cold" when each workload started with the memory the
	// process does not use given back to the system, "warm" (--warm) when
	// it kept it.
	Memory     string        `json:"memory"`
	GoVersion  string        `json:"go_version"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	Results    []benchResult `json:"results"`
	Ratios     []benchRatio  `json:"ratios"`
}

// benchResult is one workload's line of the report.
type benchResult struct {
	Workload string `json:"workload"`
	// Rows are the records (keys, for tagging) the workload handles.
	Rows       int       `json:"rows"`
	Best       float64   `json:"best_seconds"`
	Median     float64   `json:"median_seconds"`
	RowsPerSec float64   `json:"rows_per_second"` // Rows / Best
	CPU        float64   `json:"cpu_seconds"`     // of the whole process, in the best run
	Runs       []float64 `json:"runs_seconds"`
	// Detail is what the best run did: files written, files and row groups
	// read and skipped, keys found.
	Detail string `json:"detail"`
	// Validated says what every run checked of its result.
	Validated string `json:"validated"`
}

// benchRatio is a ratio a performance target states, from the best times of
// this run.
type benchRatio struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Met    bool    `json:"met"`
}

// benchSample is one timed execution of a workload.
type benchSample struct {
	wall, cpu time.Duration
	detail    string
}

// bench runs the workloads on one set of data and collects their samples.
type bench struct {
	ctx      context.Context
	warm     bool // see benchOptions
	data     tripbench.Data
	progress io.Writer // nil: no progress lines
	// folders maps each partition path of the trips to its folder in the
	// table.
	folders   map[string]string
	rows      map[string]int
	samples   map[string][]benchSample
	validated map[string]string
}

func runBench(ctx context.Context, opts benchOptions, progress io.Writer) (*benchReport, error) {
	if opts.dir != "" {
		if err := os.MkdirAll(opts.dir, 0o755); err != nil {
			return nil, fmt.Errorf("make --dir: %w", err)
		}
	}
	work, err := os.MkdirTemp(opts.dir, "hoodie-bench-")
	if err != nil {
		return nil, fmt.Errorf("make the work folder: %w", err)
	}
	defer os.RemoveAll(work)

	b := &bench{ctx: ctx, warm: opts.warm, progress: progress,
		rows: map[string]int{}, samples: map[string][]benchSample{}, validated: map[string]string{}}
	b.progressf("generating %d trips", opts.rows)
	b.data = tripbench.NewData(opts.rows)
	for r := range opts.runs {
		b.progressf("run %d of %d", r+1, opts.runs)
		dir := filepath.Join(work, "run-"+strconv.Itoa(r+1))
		err := b.run(dir)
		if rmErr := os.RemoveAll(dir); err == nil && rmErr != nil {
			err = fmt.Errorf("remove the run's folder: %w", rmErr)
		}
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", r+1, err)
		}
	}
	rep := &benchReport{Rows: opts.rows, Runs: opts.runs, Memory: "cold", GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if opts.warm {
		rep.Memory = "warm"
	}
	best := map[string]float64{}
	for _, w := range benchWorkloads {
		r := b.result(w)
		best[w] = r.Best
		rep.Results = append(rep.Results, r)
	}
	rep.Ratios = []benchRatio{
		ratio("bulk-insert throughput / parquet-go's", best[wlParquetGo]/best[wlBulkInsert], 0.85, true),
		ratio("time travel / snapshot scan of the same size, time", best[wlTimeTravel]/best[wlSnapshot], 1.2, false),
		ratio("sql on the snapshot / DuckDB on the files, time", best[wlSQL]/best[wlDuckDB], 2, false),
	}
	return rep, nil
}

// ratio returns a benchRatio of value against limit, met when value is at
// least limit (atLeast) or at most limit.
func ratio(name string, value, limit float64, atLeast bool) benchRatio {
	if atLeast {
		return benchRatio{Name: name, Value: value, Target: fmt.Sprintf(">= %g", limit), Met: value >= limit}
	}
	return benchRatio{Name: name, Value: value, Target: fmt.Sprintf("<= %g", limit), Met: value <= limit}
}

// progressf prints a progress line when progress lines are wanted.
func (b *bench) progressf(format string, args ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, format+"\n", args...)
	}
}

// measure times fn as one sample of workload, which handles rows records.
// It collects garbage first, so that the garbage of earlier work is not
// collected on fn's clock, and unless b.warm gives the memory the process
// does not use back to the system: a workload that reused the pages an
// earlier one had taken (and the system had zeroed and mapped, at about 11 µs a
// page on the machines of docs/performance.md) would be timed without a
// cost that the same workload run alone pays. fn returns the detail of the
// report.
func (b *bench) measure(workload string, rows int, fn func() (string, error)) error {
	if b.warm {
		runtime.GC()
	} else {
		debug.FreeOSMemory()
	}
	start, cpu := time.Now(), cpuTime()
	detail, err := fn()
	s := benchSample{wall: time.Since(start), cpu: cpuTime() - cpu, detail: detail}
	if err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	b.rows[workload] = rows
	b.samples[workload] = append(b.samples[workload], s)
	b.progressf("  %-34s %8.3f s (CPU %.3f s)  %s", workload, s.wall.Seconds(), s.cpu.Seconds(), detail)
	return nil
}

// validate records what a run checked of workload's result.
func (b *bench) validate(workload, format string, args ...any) {
	b.validated[workload] = fmt.Sprintf(format, args...)
}

// result sums up the samples of workload.
func (b *bench) result(workload string) benchResult {
	ss := b.samples[workload]
	walls := make([]float64, len(ss))
	best := 0
	for i, s := range ss {
		walls[i] = s.wall.Seconds()
		if s.wall < ss[best].wall {
			best = i
		}
	}
	sorted := slices.Sorted(slices.Values(walls))
	median := (sorted[(len(sorted)-1)/2] + sorted[len(sorted)/2]) / 2
	r := benchResult{
		Workload: workload, Rows: b.rows[workload],
		Best: walls[best], Median: median, CPU: ss[best].cpu.Seconds(), Runs: walls,
		Detail: ss[best].detail, Validated: b.validated[workload],
	}
	if r.Best > 0 {
		r.RowsPerSec = float64(r.Rows) / r.Best
	}
	return r
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// run makes a table in dir and runs every workload on it once, in the
// order that lets the reads and the tagging see the N-record table, and time
// travel an older commit: bulk insert, the parquet-go baseline, tagging,
// reads, upserts, delete, time travel.
func (b *bench) run(dir string) error {
	ctx, d := b.ctx, b.data
	t, err := hoodie.Create(ctx, filepath.Join(dir, "table"), triptable.Spec())
	if err != nil {
		return err
	}
	cfg, err := t.Config(ctx)
	if err != nil {
		return err
	}
	b.folders = map[string]string{}
	for _, p := range trips.Partitions() {
		b.folders[p] = storage.PartitionPath(cfg.PartitionFields, []string{p}, cfg.HiveStylePartitioning, cfg.URLEncodePartitioning)
	}

	in := benchInput(d.Base)
	var bulk *write.Result
	if err := b.measure(wlBulkInsert, len(d.Base), func() (string, error) {
		var err error
		bulk, err = t.Write(ctx, write.OpBulkInsert, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(bulk), err
	}); err != nil {
		return err
	}
	if err := b.checkWrite(wlBulkInsert, t, bulk, len(d.Base), 0, 0, int64(len(d.Base))); err != nil {
		return err
	}
	if err := b.parquetGo(filepath.Join(dir, "parquet-go"), bulk); err != nil {
		return err
	}
	if err := b.bulkVariant(filepath.Join(dir, "no-meta"), wlBulkNoMeta, in, false, write.DefaultSettings()); err != nil {
		return err
	}
	unsorted := write.DefaultSettings()
	unsorted.BulkInsertSortMode = "NONE"
	if err := b.bulkVariant(filepath.Join(dir, "no-sort"), wlBulkNoSort, in, true, unsorted); err != nil {
		return err
	}
	if err := b.tag(t, bulk); err != nil {
		return err
	}
	if err := b.reads(t); err != nil {
		return err
	}
	if err := b.sql(t); err != nil {
		return err
	}
	rows := int64(len(d.Base))
	for _, u := range []struct {
		workload string
		batch    tripbench.Batch
	}{{wlUpsert1k, d.Upsert1k}, {wlUpsert100k, d.Upsert100k}} {
		rows += int64(u.batch.Inserts())
		if err := b.upsert(t, u.workload, u.batch, rows); err != nil {
			return err
		}
	}
	rows -= int64(len(d.Deletes))
	if err := b.deleteKeys(t, rows); err != nil {
		return err
	}
	return b.timeTravel(t, bulk.Instant)
}

// benchInput is the write input of ts.
func benchInput(ts []trips.Trip) *write.Input {
	return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

// written is the detail of a write.
func written(res *write.Result) string {
	if res == nil {
		return ""
	}
	return fmt.Sprintf("%d files written", len(res.Files))
}

// checkWrite checks a write's counts and warnings, and that the snapshot
// after it holds rows records by the row counts of its files' footers.
func (b *bench) checkWrite(workload string, t *hoodie.Table, res *write.Result, inserted, updated, deleted int, rows int64) error {
	if len(res.Warnings) > 0 {
		return fmt.Errorf("%s: %w", workload, errors.Join(res.Warnings...))
	}
	if res.Inserted != int64(inserted) || res.Updated != int64(updated) || res.Deleted != int64(deleted) {
		return fmt.Errorf("%s: %d inserted, %d updated, %d deleted; want %d, %d, %d",
			workload, res.Inserted, res.Updated, res.Deleted, inserted, updated, deleted)
	}
	got, files, err := snapshotRows(b.ctx, t)
	if err != nil {
		return fmt.Errorf("%s: count the snapshot's records: %w", workload, err)
	}
	if got != rows {
		return fmt.Errorf("%s: the snapshot holds %d records, want %d", workload, got, rows)
	}
	b.validate(workload, "%d inserted, %d updated, %d deleted; the snapshot's %d files hold %d records", inserted, updated, deleted, files, rows)
	return nil
}

// snapshotRows returns the number of records the latest snapshot of t holds,
// by its files' footers, and the number of files.
func snapshotRows(ctx context.Context, t *hoodie.Table) (int64, int, error) {
	latest, err := t.FileSlices(ctx, "")
	if err != nil {
		return 0, 0, err
	}
	fsys, err := storage.NewLocalFS(t.Path())
	if err != nil {
		return 0, 0, err
	}
	var n int64
	for _, s := range latest {
		f, err := storage.OpenBaseFile(ctx, fsys, s.Path)
		if err != nil {
			return 0, 0, err
		}
		n += f.NumRows()
		if err := f.Close(); err != nil {
			return 0, 0, fmt.Errorf("close %s: %w", s.Path, err)
		}
	}
	return n, len(latest), nil
}

// bulkVariant measures workload: a bulk insert of the base trips, in, with
// settings into a new table in dir that populates meta fields or not
// (hoodie.populate.meta.fields).
func (b *bench) bulkVariant(dir, workload string, in *write.Input, populateMeta bool, settings write.Settings) error {
	spec := triptable.Spec()
	spec.NoMetaFields = !populateMeta
	t, err := hoodie.Create(b.ctx, dir, spec)
	if err != nil {
		return err
	}
	var res *write.Result
	if err := b.measure(workload, len(b.data.Base), func() (string, error) {
		var err error
		res, err = t.Write(b.ctx, write.OpBulkInsert, in, hoodie.WriteOptions{Settings: settings})
		return written(res), err
	}); err != nil {
		return err
	}
	return b.checkWrite(workload, t, res, len(b.data.Base), 0, 0, int64(len(b.data.Base)))
}

// parquetGo runs the baseline in dir: the base trips written by plain
// parquet-go into as many files per partition as bulk wrote.
func (b *bench) parquetGo(dir string, bulk *write.Result) error {
	perFolder := map[string]int{}
	for _, f := range bulk.Files {
		perFolder[f.Partition]++
	}
	files := map[string]int{}
	for p, folder := range b.folders {
		files[p] = perFolder[folder]
	}
	var paths []string
	if err := b.measure(wlParquetGo, len(b.data.Base), func() (string, error) {
		var err error
		paths, err = tripbench.WriteParquet(dir, bulk.Instant, b.data.Base, files, write.DefaultSettings().Parallelism)
		return fmt.Sprintf("%d files written", len(paths)), err
	}); err != nil {
		return err
	}
	var rows int64
	for _, p := range paths {
		n, err := tripbench.ParquetRows(p)
		if err != nil {
			return fmt.Errorf("%s: %w", wlParquetGo, err)
		}
		rows += n
	}
	if len(paths) != len(bulk.Files) || rows != int64(len(b.data.Base)) {
		return fmt.Errorf("%s: %d files hold %d rows, want %d files of %d rows", wlParquetGo, len(paths), rows, len(bulk.Files), len(b.data.Base))
	}
	b.validate(wlParquetGo, "%d files hold %d rows, as many files per partition as the bulk insert", len(paths), rows)
	return nil
}

// tag looks the tag keys up in the index of t, which holds the base trips
// that bulk wrote. It measures the index itself, which the hoodie package
// keeps behind its Table, so it opens the index in its folder, holding the
// writer lock while it uses it, as the index belongs to the writer.
func (b *bench) tag(t *hoodie.Table, bulk *write.Result) (err error) {
	fsys, err := storage.NewLocalFS(t.Path())
	if err != nil {
		return err
	}
	unlock, err := storage.Lock(b.ctx, fsys, storage.LockFile, storage.LockOptions{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	dir := filepath.Join(t.Path(), filepath.FromSlash(hoodie.DefaultIndexFolder))
	idx, err := index.Open(b.ctx, dir, index.Options{TableName: triptable.Spec().Name, TableID: t.Path()})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, idx.Close()) }()
	return b.tagWith(idx, bulk)
}

// tagWith measures the tagging on an open index.
func (b *bench) tagWith(idx *index.Index, bulk *write.Result) error {
	ctx, batch := b.ctx, b.data.Tag
	if err := idx.Stale(); err != nil {
		return fmt.Errorf("%s: %w", wlTag, err)
	}
	if wm := idx.Watermark(); wm != bulk.Instant {
		return fmt.Errorf("%s: the index is at instant %q, want the bulk insert's %s", wlTag, wm, bulk.Instant)
	}
	keys := trips.Keys(batch.Trips)
	var matches index.Matches
	if err := b.measure(wlTag, len(keys), func() (string, error) {
		var err error
		matches, err = idx.Tag(ctx, keys)
		found := 0
		for _, m := range matches.All() {
			if m.Found {
				found++
			}
		}
		return fmt.Sprintf("%d keys found", found), err
	}); err != nil {
		return err
	}
	groups := map[index.Location]bool{}
	for _, f := range bulk.Files {
		groups[index.Location{PartitionPath: f.Partition, FileID: f.FileID}] = true
	}
	for i, m := range matches.All() {
		tr := batch.Trips[i]
		switch {
		case m.Found != (i < batch.Updates):
			return fmt.Errorf("%s: key %s: found %v, want %v", wlTag, tr.UUID, m.Found, i < batch.Updates)
		case m.Found && (m.Location.PartitionPath != b.folders[tr.PartitionPath] || !groups[m.Location]):
			return fmt.Errorf("%s: key %s of partition %s: tagged %s, not a file group of the bulk insert there", wlTag, tr.UUID, tr.PartitionPath, m.Location)
		}
	}
	b.validate(wlTag, "the %d present keys found in file groups of their partitions, the %d others not found", batch.Updates, batch.Inserts())
	return nil
}

// reads times the reads of the N-record snapshot: every column, one
// partition, one key.
func (b *bench) reads(t *hoodie.Table) error {
	base := b.data.Base
	if err := b.fareTotals(t, wlSnapshot, hoodie.ScanOptions{}, base); err != nil {
		return err
	}
	var chennai []trips.Trip
	for _, tr := range base {
		if tr.PartitionPath == trips.Chennai {
			chennai = append(chennai, tr)
		}
	}
	where := trips.ColPartitionPath + " = " + quoteLiteral(trips.Chennai)
	if err := b.fareTotals(t, wlPartition, hoodie.ScanOptions{Where: where}, chennai); err != nil {
		return err
	}
	key := b.data.Lookup
	var found map[string][]float64
	if err := b.measure(wlOneKey, 1, func() (string, error) {
		var stats read.Stats
		var err error
		found, stats, err = faresByKey(b.ctx, t, hoodie.ScanOptions{Where: trips.ColUUID + " = " + quoteLiteral(key.UUID)})
		return scanDetail(stats), err
	}); err != nil {
		return err
	}
	if err := checkFares(found, []trips.Trip{key}); err != nil {
		return fmt.Errorf("%s: %w", wlOneKey, err)
	}
	b.validate(wlOneKey, "key %s read back with its fare, once", key.UUID)
	return nil
}

// timeTravel times the scan of t as of the bulk insert's instant, after
// the upserts and the delete: the N base trips with their first fares.
func (b *bench) timeTravel(t *hoodie.Table, instant string) error {
	return b.fareTotals(t, wlTimeTravel, hoodie.ScanOptions{AsOf: instant}, b.data.Base)
}

// fareTotals times a scan of t with opts as workload, counting the records
// and summing their fares, and checks both against want.
func (b *bench) fareTotals(t *hoodie.Table, workload string, opts hoodie.ScanOptions, want []trips.Trip) error {
	var (
		n   int64
		sum float64
	)
	if err := b.measure(workload, len(want), func() (string, error) {
		stats, err := scanTable(b.ctx, t, opts, func(batch *read.Batch) error {
			fares, err := batchColumn(batch, trips.ColFare)
			if err != nil {
				return err
			}
			for _, f := range fares.Float64s() {
				sum += f
			}
			n += int64(batch.Len())
			return nil
		})
		return scanDetail(stats), err
	}); err != nil {
		return err
	}
	if err := checkTotals(n, sum, want); err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	b.validate(workload, "%d records, fares summing to the generated %.2f", n, sum)
	return nil
}

// checkTotals checks a count of records and a sum of their fares against
// the trips want.
func checkTotals(n int64, sum float64, want []trips.Trip) error {
	wantSum := tripbench.FareSum(want)
	if n != int64(len(want)) || math.Abs(sum-wantSum) > 1e-9*math.Max(1, wantSum) {
		return fmt.Errorf("%d records with fares summing to %v, want %d summing to %v", n, sum, len(want), wantSum)
	}
	return nil
}

// scanDetail is the detail of a scan.
func scanDetail(s read.Stats) string {
	return fmt.Sprintf("files %d read %d skipped, row groups %d read %d skipped", s.FilesRead, s.FilesSkipped, s.RowGroupsRead, s.RowGroupsSkipped)
}

// scanTable scans t with opts, calling fn on each batch, and returns the
// scan's counters.
func scanTable(ctx context.Context, t *hoodie.Table, opts hoodie.ScanOptions, fn func(*read.Batch) error) (stats read.Stats, err error) {
	s, err := t.Scan(ctx, opts)
	if err != nil {
		return stats, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	for batch, err := range s.Batches() {
		if err != nil {
			return stats, err
		}
		if err := fn(batch); err != nil {
			return stats, err
		}
	}
	return s.Stats(), nil
}

// batchColumn returns the column name of batch.
func batchColumn(batch *read.Batch, name string) (*read.Vector, error) {
	i := batch.Schema().FieldIndex(name)
	if i < 0 {
		return nil, fmt.Errorf("the scan returned no column %s", name)
	}
	return batch.Column(i), nil
}

// faresByKey scans t with opts, reading uuid and fare, and returns the
// fares found by key.
func faresByKey(ctx context.Context, t *hoodie.Table, opts hoodie.ScanOptions) (map[string][]float64, read.Stats, error) {
	opts.Columns = []string{trips.ColUUID, trips.ColFare}
	found := map[string][]float64{}
	stats, err := scanTable(ctx, t, opts, func(batch *read.Batch) error {
		keys, fares := batch.Column(0), batch.Column(1).Float64s()
		for i := range batch.Len() {
			k := string(keys.Bytes(i))
			found[k] = append(found[k], fares[i])
		}
		return nil
	})
	return found, stats, err
}

// readBack returns the fares of the records of keys in the latest snapshot
// of t, by key.
func readBack(ctx context.Context, t *hoodie.Table, keys []string) (map[string][]float64, error) {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = quoteLiteral(k)
	}
	found, _, err := faresByKey(ctx, t, hoodie.ScanOptions{Where: trips.ColUUID + " IN (" + strings.Join(quoted, ", ") + ")"})
	return found, err
}

// checkFares checks that found holds exactly the keys of want, each once
// and with want's fare.
func checkFares(found map[string][]float64, want []trips.Trip) error {
	if len(found) != len(want) {
		return fmt.Errorf("read back %d of %d keys", len(found), len(want))
	}
	for _, w := range want {
		if fares := found[w.UUID]; len(fares) != 1 || fares[0] != w.Fare {
			return fmt.Errorf("key %s: fares %v, want [%v]", w.UUID, fares, w.Fare)
		}
	}
	return nil
}

// quoteLiteral quotes s as a string literal of the filter language and of
// SQL.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sampleSize is how many keys of a write the checks read back.
const sampleSize = 20

// upsert times the upsert of batch into t as workload and checks that the
// table then holds rows records and, of a sample of the batch's updated and
// new keys, each once with its new fare.
func (b *bench) upsert(t *hoodie.Table, workload string, batch tripbench.Batch, rows int64) error {
	in := benchInput(batch.Trips)
	var res *write.Result
	if err := b.measure(workload, len(batch.Trips), func() (string, error) {
		var err error
		res, err = t.Write(b.ctx, write.OpUpsert, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(res), err
	}); err != nil {
		return err
	}
	if err := b.checkWrite(workload, t, res, batch.Inserts(), batch.Updates, 0, rows); err != nil {
		return err
	}
	updates, inserts := batch.Trips[:batch.Updates], batch.Trips[batch.Updates:]
	sample := slices.Concat(updates[:min(sampleSize/2, len(updates))], inserts[:min(sampleSize/2, len(inserts))])
	found, err := readBack(b.ctx, t, trips.Keys(sample))
	if err != nil {
		return fmt.Errorf("%s: read back a sample: %w", workload, err)
	}
	if err := checkFares(found, sample); err != nil {
		return fmt.Errorf("%s: read back a sample: %w", workload, err)
	}
	b.validated[workload] += fmt.Sprintf("; %d sampled keys read back with their new fares", len(sample))
	return nil
}

// deleteKeys times the delete of the delete trips from t and checks that
// the table then holds rows records and none of a sample of the deleted keys.
func (b *bench) deleteKeys(t *hoodie.Table, rows int64) error {
	victims := b.data.Deletes
	in := benchInput(victims)
	var res *write.Result
	if err := b.measure(wlDelete, len(victims), func() (string, error) {
		var err error
		res, err = t.Write(b.ctx, write.OpDelete, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(res), err
	}); err != nil {
		return err
	}
	if err := b.checkWrite(wlDelete, t, res, 0, 0, len(victims), rows); err != nil {
		return err
	}
	sample := trips.Keys(victims[:min(sampleSize, len(victims))])
	found, err := readBack(b.ctx, t, sample)
	if err != nil {
		return fmt.Errorf("%s: read back a sample: %w", wlDelete, err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%s: %d of %d sampled deleted keys are still there", wlDelete, len(found), len(sample))
	}
	b.validated[wlDelete] += fmt.Sprintf("; %d sampled deleted keys gone", len(sample))
	return nil
}

// sql times select count(*), sum(fare) through the query engine over the
// snapshot's files, found through the timeline as hoodiectl query finds
// them, and through DuckDB reading the base files straight from the
// partition folders. On the N-record table of one commit both read the same
// files.
func (b *bench) sql(t *hoodie.Table) error {
	const query = "select count(*), sum(fare) from "
	// The table's configuration tells which columns the view computes; the
	// table has meta fields, so it computes none.
	cfg, err := t.Config(b.ctx)
	if err != nil {
		return err
	}
	if err := b.query(wlSQL, sqlengine.LockedDown, func(e *sqlengine.Engine) (*sqlengine.Rows, string, error) {
		latest, err := t.FileSlices(b.ctx, "")
		if err != nil {
			return nil, "", err
		}
		files := sqlengine.TableFiles(t.Path(), cfg, nil, latest)
		if err := e.CreateView(b.ctx, "trips", files, nil); err != nil {
			return nil, "", err
		}
		rows, err := e.Query(b.ctx, sqlengine.ExpandTableName(query+sqlengine.TableNameToken, "trips"))
		return rows, fmt.Sprintf("a view of %d files", len(files)), err
	}); err != nil {
		return err
	}
	var globs []string
	for _, folder := range b.folders {
		globs = append(globs, quoteLiteral(filepath.Join(t.Path(), filepath.FromSlash(folder), "*.parquet")))
	}
	return b.query(wlDuckDB, sqlengine.ExternalAccess, func(e *sqlengine.Engine) (*sqlengine.Rows, string, error) {
		rows, err := e.Query(b.ctx, query+"read_parquet(["+strings.Join(globs, ", ")+"])")
		return rows, fmt.Sprintf("read_parquet of %d folders' *.parquet", len(globs)), err
	})
}

// query opens a query engine of the given access and times run on it as
// workload, which returns the result of a query of the count of records and
// the sum of their fares, and the detail of the report, and checks the
// result against the base trips. Opening the engine is not timed.
func (b *bench) query(workload string, access sqlengine.Access, run func(*sqlengine.Engine) (*sqlengine.Rows, string, error)) (err error) {
	e, err := sqlengine.Open(b.ctx, access)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, e.Close()) }()
	var values []any
	if err := b.measure(workload, len(b.data.Base), func() (string, error) {
		rows, detail, err := run(e)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return "", err
			}
			return "", errors.New("no result row")
		}
		values = slices.Clone(rows.Values())
		return detail, rows.Close()
	}); err != nil {
		return err
	}
	n, okN := values[0].(int64)
	sum, okSum := values[1].(float64)
	if !okN || !okSum {
		return fmt.Errorf("%s: result %v, want a count and a sum", workload, values)
	}
	if err := checkTotals(n, sum, b.data.Base); err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	b.validate(workload, "count %d and fare sum %.2f as generated", n, sum)
	return nil
}

// writeBenchReport prints the report as tables.
func writeBenchReport(w io.Writer, rep *benchReport) error {
	fmt.Fprintf(w, "hoodiectl bench: %d trips, best and median of %d runs, %s memory; %s, GOMAXPROCS=%d\n\n", rep.Rows, rep.Runs, rep.Memory, rep.GoVersion, rep.GOMAXPROCS)
	var rows [][]string
	for _, r := range rep.Results {
		rows = append(rows, []string{r.Workload, strconv.Itoa(r.Rows), fmt.Sprintf("%.3f", r.Best), fmt.Sprintf("%.3f", r.Median),
			fmt.Sprintf("%.0f", r.RowsPerSec), fmt.Sprintf("%.3f", r.CPU), r.Detail})
	}
	if err := writeTable(w, []string{"workload", "rows", "best s", "median s", "rows/s", "CPU s", "detail"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nbest s, median s: wall-clock seconds over the runs; rows/s: rows / best s;")
	fmt.Fprintln(w, "CPU s: user+system CPU seconds of the whole process during the best run.")
	fmt.Fprintln(w, "\nRatios of this run's best times:")
	rows = rows[:0]
	for _, r := range rep.Ratios {
		met := "not met"
		if r.Met {
			met = "met"
		}
		rows = append(rows, []string{r.Name, fmt.Sprintf("%.2f", r.Value), r.Target, met})
	}
	if err := writeTable(w, []string{"ratio", "value", "target", ""}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nValidated in every run:")
	rows = rows[:0]
	for _, r := range rep.Results {
		rows = append(rows, []string{r.Workload, r.Validated})
	}
	if err := writeTable(w, []string{"workload", "result checked"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nFor iceberg-go on the same trips: cd bench/peers && go run . -rows N -runs R")
	return err
}

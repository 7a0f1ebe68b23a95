// Package bench measures Hoodie's workloads beside plain parquet-go and
// DuckDB on the same trips: the engine of hoodiectl bench.
//
// Run generates the trips of internal/tripbench, runs every Workload on new
// tables, checks every result and fails on a wrong one, and returns a
// Report of wall-clock and CPU times with the ratios that Hoodie's
// performance targets state. The iceberg-go side runs on the same trips in
// the separate module bench/peers. The figures and how they were measured
// are in docs/performance.md.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// MinRows is the smallest base table Run accepts: one the delete of 1,000
// keys and the upsert of 500 existing ones can be drawn from.
const MinRows = 1000

// Options say what Run measures and where.
type Options struct {
	Rows int // trips in the base table, at least MinRows
	Runs int // runs of every workload, at least 1
	// Dir is the folder Run makes its work folder in ("": the system's
	// temporary folder); it is made if missing. The work folder is removed
	// at the end.
	Dir string
	// Warm keeps the memory the process holds between workloads; see Run.
	Warm bool
	// Progress, if not nil, receives a line per run and per timed sample.
	Progress io.Writer
}

// Run generates opts.Rows trips and runs each workload opts.Runs times,
// every run on new tables in a work folder under opts.Dir, and returns the
// report. It fails on the first wrong result, naming the run and the
// workload.
//
// Before each timed workload, Run collects garbage and gives the memory
// the process does not use back to the system, so that each workload pays
// for the memory it touches, as a process that runs it alone does,
// whatever ran before it. With opts.Warm it only collects garbage: a
// workload then reuses memory that earlier ones took from the system, as
// in a long-lived process, and its time depends on what ran before it.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Rows < MinRows {
		return nil, fmt.Errorf("%d rows: need at least %d", opts.Rows, MinRows)
	}
	if opts.Runs < 1 {
		return nil, fmt.Errorf("%d runs: need at least 1", opts.Runs)
	}
	work, err := workFolder(opts.Dir, "hoodie-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	r := &runner{ctx: ctx, warm: opts.Warm, progress: opts.Progress,
		rows: map[Workload]int{}, samples: map[Workload][]sample{}, validated: map[Workload]string{}}
	r.progressf("generating %d trips", opts.Rows)
	r.data = tripbench.NewData(opts.Rows)
	for i := range opts.Runs {
		r.progressf("run %d of %d", i+1, opts.Runs)
		dir := filepath.Join(work, "run-"+strconv.Itoa(i+1))
		err := r.run(dir)
		if rmErr := os.RemoveAll(dir); err == nil && rmErr != nil {
			err = fmt.Errorf("remove the run's folder: %w", rmErr)
		}
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
	}
	rep := &Report{Rows: opts.Rows, Runs: opts.Runs, Memory: "cold", GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if opts.Warm {
		rep.Memory = "warm"
	}
	best, median := map[Workload]float64{}, map[Workload]float64{}
	for _, w := range workloads {
		res := result(w, r.rows[w], r.samples[w], r.validated[w])
		best[w], median[w] = res.Best, res.Median
		rep.Results = append(rep.Results, res)
	}
	rep.Ratios = ratios(best, median)
	return rep, nil
}

// workFolder makes a new work folder named with prefix in dir ("": the
// system's temporary folder), making dir if missing, and returns its path.
func workFolder(dir, prefix string) (string, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("make the folder for the work folder: %w", err)
		}
	}
	work, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		return "", fmt.Errorf("make the work folder: %w", err)
	}
	return work, nil
}

// sample is one timed execution of a workload.
type sample struct {
	wall, cpu time.Duration
	detail    string
}

// runner runs the workloads on one set of data and collects their samples.
type runner struct {
	ctx      context.Context
	warm     bool // see Options
	data     tripbench.Data
	progress io.Writer // nil: no progress lines
	// folders maps each partition path of the trips to its folder in the
	// table.
	folders   map[string]string
	rows      map[Workload]int
	samples   map[Workload][]sample
	validated map[Workload]string
}

// progressf prints a progress line when progress lines are wanted.
func (r *runner) progressf(format string, args ...any) {
	if r.progress != nil {
		fmt.Fprintf(r.progress, format+"\n", args...)
	}
}

// measure times fn as one sample of workload, which handles rows records.
// It collects garbage first, so that the garbage of earlier work is not
// collected on fn's clock, and unless r.warm gives the memory the process
// does not use back to the system: a workload that reused the pages an
// earlier one had taken (and the system had zeroed and mapped) would be
// timed without a cost that the same workload run alone pays. fn returns
// the detail of the report.
func (r *runner) measure(workload Workload, rows int, fn func() (string, error)) error {
	if r.warm {
		runtime.GC()
	} else {
		debug.FreeOSMemory()
	}
	start, cpu := time.Now(), cpuTime()
	detail, err := fn()
	s := sample{wall: time.Since(start), cpu: cpuTime() - cpu, detail: detail}
	if err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	r.rows[workload] = rows
	r.samples[workload] = append(r.samples[workload], s)
	r.progressf("  %-34s %8.3f s (CPU %.3f s)  %s", workload, s.wall.Seconds(), s.cpu.Seconds(), detail)
	return nil
}

// validate records what a run checked of workload's result.
func (r *runner) validate(workload Workload, format string, args ...any) {
	r.validated[workload] = fmt.Sprintf(format, args...)
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
// reads, upserts, delete, time travel, then the upserts with and without
// the cleaner, which removes the files time travel read.
func (r *runner) run(dir string) error {
	ctx, d := r.ctx, r.data
	t, err := hoodie.Create(ctx, filepath.Join(dir, "table"), triptable.Spec())
	if err != nil {
		return err
	}
	cfg, err := t.Config(ctx)
	if err != nil {
		return err
	}
	r.folders = map[string]string{}
	for _, p := range trips.Partitions() {
		r.folders[p] = config.PartitionPath(cfg.PartitionFields, []string{p}, cfg.HiveStylePartitioning, cfg.URLEncodePartitioning)
	}

	in := input(d.Base)
	var bulk *write.Result
	if err := r.measure(BulkInsert, len(d.Base), func() (string, error) {
		var err error
		bulk, err = t.Write(ctx, write.OpBulkInsert, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(bulk), err
	}); err != nil {
		return err
	}
	if err := r.checkWrite(BulkInsert, t, bulk, len(d.Base), 0, 0, int64(len(d.Base))); err != nil {
		return err
	}
	if err := r.parquetGo(filepath.Join(dir, "parquet-go"), bulk); err != nil {
		return err
	}
	if err := r.bulkVariant(filepath.Join(dir, "no-meta"), BulkInsertNoMeta, in, false, write.DefaultSettings()); err != nil {
		return err
	}
	unsorted := write.DefaultSettings()
	unsorted.BulkInsertSortMode = "NONE"
	if err := r.bulkVariant(filepath.Join(dir, "no-sort"), BulkInsertNoSort, in, true, unsorted); err != nil {
		return err
	}
	if err := r.tag(t, bulk); err != nil {
		return err
	}
	if err := r.reads(t); err != nil {
		return err
	}
	if err := r.sql(t); err != nil {
		return err
	}
	rows := int64(len(d.Base))
	for _, u := range []struct {
		workload Workload
		batch    tripbench.Batch
	}{{Upsert1k, d.Upsert1k}, {Upsert100k, d.Upsert100k}} {
		rows += int64(u.batch.Inserts())
		if err := r.upsert(t, u.workload, u.batch, rows); err != nil {
			return err
		}
	}
	rows -= int64(len(d.Deletes))
	if err := r.deleteKeys(t, rows); err != nil {
		return err
	}
	if err := r.timeTravel(t, bulk.Instant); err != nil {
		return err
	}
	return r.cleaner(t)
}

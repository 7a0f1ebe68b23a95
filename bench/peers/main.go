// Command peers measures the workloads that Hoodie's performance targets are
// stated against on Apache iceberg-go, and plain parquet-go writes, on trip
// records from internal/trips.
//
// Usage (from bench/peers):
//
//	go run . [-rows 1000000] [-runs 3] [-dir DIR] [-format table|json] [-keep]
//
// Each run builds its own Iceberg table on the local filesystem (iceberg-go's
// Hadoop catalog) and goes through append, full scan, point lookup, two
// copy-on-write upserts and a copy-on-write delete, checking the table's
// contents after each step. The report gives the best and the median time of
// each workload over the runs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

func main() {
	var cfg config
	flag.IntVar(&cfg.rows, "rows", 1_000_000, "number of trips in the base table")
	flag.IntVar(&cfg.runs, "runs", 3, "number of runs; the report gives the best and the median")
	flag.StringVar(&cfg.dir, "dir", "", "folder in which to make the work folder (default: the system's temporary folder)")
	flag.StringVar(&cfg.format, "format", "table", "report format: table or json")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the work folder instead of removing it")
	flag.BoolVar(&cfg.warm, "warm", false, "keep the memory the process holds between workloads instead of giving it back to the system")
	flag.BoolVar(&cfg.uuidBloom, "uuid-bloom", false, "write a Parquet bloom filter on the uuid column of the Iceberg table (iceberg-go writes none by default)")
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole program to this file")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "peers: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

type config struct {
	rows   int
	runs   int
	dir    string
	format string
	keep   bool
	warm   bool // keep the process's memory between workloads

	uuidBloom  bool
	cpuProfile string
}

// Workload names, in report order.
const (
	wlArrow      = "arrow: build record batches"
	wlAppend     = "iceberg-go: append"
	wlUpsert1k   = "iceberg-go: upsert 1k (CoW)"
	wlUpsert100k = "iceberg-go: upsert 100k (CoW)"
	wlDelete     = "iceberg-go: delete 1k (CoW)"
	wlScan       = "iceberg-go: full scan"
	wlLookup     = "iceberg-go: scan uuid = key"
	wlParquetGo  = "parquet-go: write 3 files"
)

var workloadOrder = []string{wlArrow, wlAppend, wlUpsert1k, wlUpsert100k, wlDelete, wlScan, wlLookup, wlParquetGo}

// data is what every run works on, made once.
type data struct {
	base       []trips.Trip // the N trips appended first
	upsert1k   upsertBatch
	upsert100k upsertBatch  // 100k keys
	deletes    []trips.Trip // existing trips to delete
	lookup     trips.Trip   // the trip the point lookup looks for
}

// upsertBatch holds an upsert's records: updates of existing keys followed by
// new trips.
type upsertBatch struct {
	trips   []trips.Trip
	updates int // trips[:updates] update existing keys
}

func (u upsertBatch) inserts() int { return len(u.trips) - u.updates }

// makeData generates the trips with seed 1: the base table, then the upsert
// and delete batches.
func makeData(rows int) data {
	g := trips.NewGenerator(1)
	d := data{base: g.Inserts(rows)}
	upsert := func(keys int) upsertBatch {
		updates := min(keys/2, rows)
		return upsertBatch{
			trips:   slices.Concat(g.Updates(d.base, updates), g.Inserts(keys-updates)),
			updates: updates,
		}
	}
	d.upsert1k = upsert(1000)
	d.upsert100k = upsert(100_000)
	d.deletes = g.Updates(d.base, min(1000, rows))
	d.lookup = d.base[rows/2]
	return d
}

// A timer measures the wall-clock and CPU time since it was started.
type timer struct {
	wall time.Time
	cpu  time.Duration
}

// startTimer collects garbage, so that the garbage of earlier work is not
// collected on the timed work's clock, and unless t.warm gives the memory
// the process does not use back to the system, as hoodiectl bench does:
// each workload then pays for the memory it touches, whatever ran before
// it. It labels the goroutine (and those it starts) with the workload for
// CPU profiles, and starts a timer.
func (t *timings) startTimer(workload string) timer {
	if t.warm {
		runtime.GC()
	} else {
		debug.FreeOSMemory()
	}
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("workload", workload)))
	return timer{wall: time.Now(), cpu: cpuTime()}
}

// sample is one timed execution of a workload.
type sample struct {
	wall, cpu time.Duration
}

// stop returns the wall-clock and CPU time since t was started.
func (t timer) stop() sample {
	s := sample{wall: time.Since(t.wall), cpu: cpuTime() - t.cpu}
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("workload", "untimed")))
	return s
}

// timings collects the samples of each workload over the runs.
type timings struct {
	warm    bool // see config
	rows    map[string]int
	samples map[string][]sample
}

func (t *timings) add(workload string, rows int, s sample) {
	if t.rows == nil {
		t.rows = map[string]int{}
		t.samples = map[string][]sample{}
	}
	t.rows[workload] = rows
	t.samples[workload] = append(t.samples[workload], s)
	progress("  %-32s %9.3f s (CPU %.3f s)", workload, s.wall.Seconds(), s.cpu.Seconds())
}

// result is one line of the report.
type result struct {
	Workload   string    `json:"workload"`
	Rows       int       `json:"rows"`
	Best       float64   `json:"best_seconds"`
	Median     float64   `json:"median_seconds"`
	RowsPerSec float64   `json:"rows_per_second"`
	CPU        float64   `json:"cpu_seconds"` // process CPU time of the best run
	Runs       []float64 `json:"runs_seconds"`
}

// report is the whole output.
type report struct {
	Rows       int               `json:"rows"`
	Runs       int               `json:"runs"`
	Memory     string            `json:"memory"` // "cold", or "warm" with -warm: see hoodiectl bench
	UUIDBloom  bool              `json:"uuid_bloom"`
	GoVersion  string            `json:"go_version"`
	GOMAXPROCS int               `json:"gomaxprocs"`
	Modules    map[string]string `json:"modules"`
	Results    []result          `json:"results"`
}

func (t *timings) results() []result {
	var rs []result
	for _, w := range workloadOrder {
		ss := t.samples[w]
		if len(ss) == 0 {
			continue
		}
		walls := make([]time.Duration, len(ss))
		best := 0
		for i, s := range ss {
			walls[i] = s.wall
			if s.wall < ss[best].wall {
				best = i
			}
		}
		sorted := slices.Sorted(slices.Values(walls))
		r := result{
			Workload: w,
			Rows:     t.rows[w],
			Best:     ss[best].wall.Seconds(),
			Median:   median(sorted).Seconds(),
			CPU:      ss[best].cpu.Seconds(),
		}
		if r.Best > 0 {
			r.RowsPerSec = float64(r.Rows) / r.Best
		}
		for _, d := range walls {
			r.Runs = append(r.Runs, d.Seconds())
		}
		rs = append(rs, r)
	}
	return rs
}

// median returns the median of sorted durations.
func median(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func run(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.rows < 2 {
		return fmt.Errorf("-rows %d: need at least 2", cfg.rows)
	}
	if cfg.runs < 1 {
		return fmt.Errorf("-runs %d: need at least 1", cfg.runs)
	}
	if cfg.format != "table" && cfg.format != "json" {
		return fmt.Errorf("-format %q: want table or json", cfg.format)
	}
	if cfg.dir != "" {
		if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
			return fmt.Errorf("making -dir: %w", err)
		}
	}
	work, err := os.MkdirTemp(cfg.dir, "peers-bench-")
	if err != nil {
		return fmt.Errorf("making the work folder: %w", err)
	}
	if cfg.keep {
		progress("work folder: %s (kept)", work)
	} else {
		defer os.RemoveAll(work)
	}

	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return fmt.Errorf("creating the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("starting the CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}

	progress("generating %d trips", cfg.rows)
	start := time.Now()
	d := makeData(cfg.rows)
	progress("  generated in %.3f s", time.Since(start).Seconds())

	t := timings{warm: cfg.warm}
	for r := range cfg.runs {
		progress("run %d of %d", r+1, cfg.runs)
		if err := runIceberg(ctx, cfg, d, work, r, &t); err != nil {
			return fmt.Errorf("run %d: iceberg-go: %w", r+1, err)
		}
		if err := runParquetGo(d.base, work, r, cfg.keep, &t); err != nil {
			return fmt.Errorf("run %d: parquet-go: %w", r+1, err)
		}
	}

	rep := report{
		Rows:       cfg.rows,
		Runs:       cfg.runs,
		Memory:     "cold",
		UUIDBloom:  cfg.uuidBloom,
		GoVersion:  runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Modules:    moduleVersions(),
		Results:    t.results(),
	}
	if cfg.warm {
		rep.Memory = "warm"
	}
	if cfg.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeTable(out, rep)
}

// writeTable prints the report as an aligned text table.
func writeTable(out io.Writer, rep report) error {
	fmt.Fprintf(out, "%d trips, best and median of %d runs, %s memory; %s, GOMAXPROCS=%d\n", rep.Rows, rep.Runs, rep.Memory, rep.GoVersion, rep.GOMAXPROCS)
	if rep.UUIDBloom {
		fmt.Fprintln(out, "Iceberg table written with a Parquet bloom filter on uuid")
	}
	for _, m := range []string{"github.com/apache/iceberg-go", "github.com/apache/arrow-go/v18", "github.com/parquet-go/parquet-go"} {
		if v, ok := rep.Modules[m]; ok {
			fmt.Fprintf(out, "%s %s\n", m, v)
		}
	}
	width := len("workload")
	for _, r := range rep.Results {
		width = max(width, len(r.Workload))
	}
	fmt.Fprintf(out, "\n%-*s  %9s  %8s  %8s  %12s  %8s\n", width, "workload", "rows", "best s", "median s", "rows/s", "CPU s")
	for _, r := range rep.Results {
		fmt.Fprintf(out, "%-*s  %9d  %8.3f  %8.3f  %12.0f  %8.3f\n", width, r.Workload, r.Rows, r.Best, r.Median, r.RowsPerSec, r.CPU)
	}
	fmt.Fprintln(out, "\nbest s, median s: wall-clock seconds over the runs; rows/s: rows / best s;")
	fmt.Fprintln(out, "CPU s: user+system CPU seconds of the whole process during the best run.")
	return nil
}

// moduleVersions returns the versions of the modules the binary was built
// with, by module path.
func moduleVersions() map[string]string {
	m := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return m
	}
	for _, dep := range info.Deps {
		m[dep.Path] = dep.Version
	}
	return m
}

// stderrIsTerminal reports whether progress lines should be printed.
var stderrIsTerminal = func() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}()

// progress prints a line to stderr when stderr is a terminal.
func progress(format string, args ...any) {
	if stderrIsTerminal {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

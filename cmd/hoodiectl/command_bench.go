package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/bench"
)

func newBenchCommand(io streams) *cobra.Command {
	var (
		opts   bench.Options
		format string
		growth int
	)
	cmd := &cobra.Command{
		Use:   "bench [--rows N] [--runs R] [--dir DIR] [--format table|json] [--warm] [--growth U]",
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
  hoodie: upsert 1k, cleaner off / automatic clean
                       the 1,000-key upsert with hoodie.clean.automatic=false,
                       and with the cleaner keeping one commit (every clean
                       deletes files); three pairs a run, alternating which
                       goes first

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
cd bench/peers && go run . -rows N -runs R (see docs/performance.md).

--growth U measures growth instead of the workloads: it bulk-inserts the N
trips into a new table, then upserts U times 1,000 distinct existing keys,
all with the default settings (the automatic cleaner and archival on). It
reports the bytes of one snapshot (the latest file slices), the bytes of the
whole table on disk (.hoodie included), their ratio to
(hoodie.cleaner.commits.retained + 2) × the snapshot, the completed commits
and cleans on the active timeline against hoodie.keep.max.commits, and the
median time of the first and of the last 10 upserts. It fails (exit 3) after
the report when the table is above that size or the active timeline holds
more commits or cleans than hoodie.keep.max.commits. --runs and --warm do
not apply to it.`,
		Example: `  hoodiectl bench
  hoodiectl bench --rows 100000 --runs 5 --format json > bench.json
  hoodiectl bench --growth 100`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Rows < bench.MinRows {
				return usagef("--rows %d: need at least %d", opts.Rows, bench.MinRows)
			}
			if opts.Runs < 1 {
				return usagef("--runs %d: need at least 1", opts.Runs)
			}
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			if isTerminal(io.err) {
				opts.Progress = io.err
			}
			if cmd.Flags().Changed("growth") {
				if growth < 1 {
					return usagef("--growth %d: need at least 1 upsert", growth)
				}
				for _, name := range []string{"runs", "warm"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s does not apply to --growth", name)
					}
				}
				return runGrowth(cmd, io, bench.GrowthOptions{Rows: opts.Rows, Upserts: growth, Dir: opts.Dir, Progress: opts.Progress}, format)
			}
			rep, err := bench.Run(cmd.Context(), opts)
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			if format == "json" {
				return writeIndentedJSON(io.out, rep)
			}
			return writeBenchReport(io.out, rep)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Rows, "rows", 1_000_000, "trips in the base table (at least 1000)")
	f.IntVar(&opts.Runs, "runs", 3, "runs of every workload; the report gives the best and the median")
	f.StringVar(&opts.Dir, "dir", "", "folder to make the work folder in (default: the system's temporary folder)")
	f.StringVar(&format, "format", "table", "report format: table or json")
	f.BoolVar(&opts.Warm, "warm", false, "keep the memory the process holds between workloads instead of giving it back to the system")
	f.IntVar(&growth, "growth", 0, "instead of the workloads, upsert 1,000 existing keys this many times with the default settings and report the table's growth")
	return cmd
}

// runGrowth runs bench.RunGrowth with opts, prints its report in format,
// and fails when the report does not meet its bounds.
func runGrowth(cmd *cobra.Command, io streams, opts bench.GrowthOptions, format string) error {
	rep, err := bench.RunGrowth(cmd.Context(), opts)
	if err != nil {
		return fmt.Errorf("bench --growth: %w", err)
	}
	if format == "json" {
		err = writeIndentedJSON(io.out, rep)
	} else {
		err = writeGrowthReport(io.out, rep)
	}
	if err != nil {
		return err
	}
	if err := rep.Check(); err != nil {
		return fmt.Errorf("bench --growth: bound not met: %w", err)
	}
	return nil
}

// writeIndentedJSON writes v to w as indented JSON.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeGrowthReport prints the growth report as a table.
func writeGrowthReport(w io.Writer, rep *bench.GrowthReport) error {
	fmt.Fprintf(w, "hoodiectl bench --growth: %d upserts of %d existing keys into %d trips, default settings; %s, GOMAXPROCS=%d\n\n",
		rep.Upserts, rep.Keys, rep.Rows, rep.GoVersion, rep.GOMAXPROCS)
	rows := [][]string{
		{"snapshot (latest file slices)", fmt.Sprintf("%d bytes", rep.SnapshotBytes)},
		{"table on disk (.hoodie included)", fmt.Sprintf("%d bytes", rep.TableBytes)},
		{"  of which .hoodie", fmt.Sprintf("%d bytes", rep.MetaBytes)},
		{"  of which the record index", fmt.Sprintf("%d bytes", rep.IndexBytes)},
		{"commits retained (hoodie.cleaner.commits.retained)", strconv.Itoa(rep.CommitsRetained)},
		{"hoodie.keep.max.commits", strconv.Itoa(rep.KeepMaxCommits)},
		{"instants on the active timeline", strconv.Itoa(rep.ActiveInstants)},
		{"instants on the archived timeline", strconv.Itoa(rep.ArchivedInstants)},
		{"median upsert, first 10", fmt.Sprintf("%.3f s", rep.FirstMedian)},
		{"median upsert, last 10", fmt.Sprintf("%.3f s", rep.LastMedian)},
	}
	if err := writeTable(w, []string{"measure", "value"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nBounds:")
	return writeRatios(w, rep.Bounds)
}

// writeBenchReport prints the report as tables.
func writeBenchReport(w io.Writer, rep *bench.Report) error {
	fmt.Fprintf(w, "hoodiectl bench: %d trips, best and median of %d runs, %s memory; %s, GOMAXPROCS=%d\n\n", rep.Rows, rep.Runs, rep.Memory, rep.GoVersion, rep.GOMAXPROCS)
	var rows [][]string
	for _, r := range rep.Results {
		rows = append(rows, []string{string(r.Workload), strconv.Itoa(r.Rows), fmt.Sprintf("%.3f", r.Best), fmt.Sprintf("%.3f", r.Median),
			fmt.Sprintf("%.0f", r.RowsPerSec), fmt.Sprintf("%.3f", r.CPU), r.Detail})
	}
	if err := writeTable(w, []string{"workload", "rows", "best s", "median s", "rows/s", "CPU s", "detail"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nbest s, median s: wall-clock seconds over the runs; rows/s: rows / best s;")
	fmt.Fprintln(w, "CPU s: user+system CPU seconds of the whole process during the best run.")
	fmt.Fprintln(w, "\nRatios of this run's best times:")
	if err := writeRatios(w, rep.Ratios); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nValidated in every run:")
	rows = nil
	for _, r := range rep.Results {
		rows = append(rows, []string{string(r.Workload), r.Validated})
	}
	if err := writeTable(w, []string{"workload", "result checked"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nFor iceberg-go on the same trips: cd bench/peers && go run . -rows N -runs R")
	return err
}

// writeRatios prints ratios as a table, each with its target and whether it
// is met.
func writeRatios(w io.Writer, ratios []bench.Ratio) error {
	var rows [][]string
	for _, r := range ratios {
		met := "not met"
		if r.Met {
			met = "met"
		}
		rows = append(rows, []string{r.Name, fmt.Sprintf("%.2f", r.Value), r.Target, met})
	}
	return writeTable(w, []string{"ratio", "value", "target", ""}, rows)
}

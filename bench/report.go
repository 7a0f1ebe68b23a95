package bench

import (
	"fmt"
	"slices"
)

// A Workload is one timed step of a run, named as the report names it.
type Workload string

// The workloads, in report order. N is Options.Rows.
const (
	ParquetGoWrite   Workload = "parquet-go: write"                   // the N base trips by plain parquet-go, as many files per partition as BulkInsert
	BulkInsert       Workload = "hoodie: bulk-insert"                 // the N base trips into a new table
	BulkInsertNoMeta Workload = "hoodie: bulk-insert, no meta fields" // the same, hoodie.populate.meta.fields=false
	BulkInsertNoSort Workload = "hoodie: bulk-insert, sort mode NONE" // the same, hoodie.bulkinsert.sort.mode=NONE
	Upsert1k         Workload = "hoodie: upsert 1k"                   // 1,000 keys, half of them updates
	Upsert100k       Workload = "hoodie: upsert 100k"                 // 100,000 keys, half of them updates
	Delete1k         Workload = "hoodie: delete 1k"                   // 1,000 existing keys
	Tag100k          Workload = "index: tag 100k keys"                // record-index lookups, half of them present
	SnapshotScan     Workload = "read: snapshot scan"                 // every column of the N records, summing fare
	TimeTravel       Workload = "read: time travel to 1st commit"     // the same as of the bulk insert, after the writes
	PartitionScan    Workload = "read: one partition"                 // the records of asia/india/chennai
	KeyLookup        Workload = "read: one key"                       // uuid and fare of one key
	SQL              Workload = "sql: count, sum(fare) on snapshot"   // hoodiectl query's engine over the snapshot
	DuckDB           Workload = "duckdb: count, sum(fare) on files"   // DuckDB reading the base files directly
	// Upsert1kNoClean and Upsert1kClean alternate, after the other
	// workloads: the same 1,000-key upsert with hoodie.clean.automatic off,
	// and on with hoodie.cleaner.commits.retained=1, so that every clean
	// deletes the versions the upserts before it left.
	Upsert1kNoClean Workload = "hoodie: upsert 1k, cleaner off"
	Upsert1kClean   Workload = "hoodie: upsert 1k, automatic clean"
)

var workloads = []Workload{
	ParquetGoWrite, BulkInsert, BulkInsertNoMeta, BulkInsertNoSort, Upsert1k, Upsert100k, Delete1k, Tag100k,
	SnapshotScan, TimeTravel, PartitionScan, KeyLookup, SQL, DuckDB, Upsert1kNoClean, Upsert1kClean,
}

// Workloads returns every workload in report order, the order of
// Report.Results.
func Workloads() []Workload { return slices.Clone(workloads) }

// Report is the outcome of Run.
type Report struct {
	Rows int `json:"rows"`
	Runs int `json:"runs"`
	// Memory is "cold" when each workload started with the memory the
	// process does not use given back to the system, "warm" (Options.Warm)
	// when it kept it.
	Memory     string   `json:"memory"`
	GoVersion  string   `json:"go_version"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	Results    []Result `json:"results"` // one per workload, in the order of Workloads
	Ratios     []Ratio  `json:"ratios"`
}

// Result is one workload's line of the report.
type Result struct {
	Workload Workload `json:"workload"`
	// Rows are the records (keys, for tagging) the workload handles.
	Rows       int       `json:"rows"`
	Best       float64   `json:"best_seconds"`
	Median     float64   `json:"median_seconds"`
	RowsPerSec float64   `json:"rows_per_second"` // Rows / Best
	CPU        float64   `json:"cpu_seconds"`     // of the whole process, in the best run
	Runs       []float64 `json:"runs_seconds"`    // wall-clock seconds of each run, in run order
	// Detail is what the best run did: files written, files and row groups
	// read and skipped, keys found.
	Detail string `json:"detail"`
	// Validated says what every run checked of its result.
	Validated string `json:"validated"`
}

// Ratio is a ratio a performance target states, from the best (or, for
// the cleaner's, the median) times of one Run.
type Ratio struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target"` // ">= limit" or "<= limit"
	Met    bool    `json:"met"`
}

// ratios returns the ratios of the performance targets from the best and
// median times of the workloads.
func ratios(best, median map[Workload]float64) []Ratio {
	return []Ratio{
		ratio("bulk-insert throughput / parquet-go's", best[ParquetGoWrite]/best[BulkInsert], 0.85, true),
		ratio("time travel / snapshot scan of the same size, time", best[TimeTravel]/best[SnapshotScan], 1.2, false),
		ratio("sql on the snapshot / DuckDB on the files, time", best[SQL]/best[DuckDB], 2, false),
		ratio("upsert 1k with the automatic cleaner / without, median time", median[Upsert1kClean]/median[Upsert1kNoClean], 1.1, false),
	}
}

// ratio returns a Ratio of value against limit, met when value is at least
// limit (atLeast) or at most limit.
func ratio(name string, value, limit float64, atLeast bool) Ratio {
	if atLeast {
		return Ratio{Name: name, Value: value, Target: fmt.Sprintf(">= %g", limit), Met: value >= limit}
	}
	return Ratio{Name: name, Value: value, Target: fmt.Sprintf("<= %g", limit), Met: value <= limit}
}

// result sums up samples, the samples of workload, which handles rows
// records in each; samples holds at least one sample.
func result(workload Workload, rows int, samples []sample, validated string) Result {
	walls := make([]float64, len(samples))
	best := 0
	for i, s := range samples {
		walls[i] = s.wall.Seconds()
		if s.wall < samples[best].wall {
			best = i
		}
	}
	r := Result{
		Workload: workload, Rows: rows,
		Best: walls[best], Median: median(walls), CPU: samples[best].cpu.Seconds(), Runs: walls,
		Detail: samples[best].detail, Validated: validated,
	}
	if r.Best > 0 {
		r.RowsPerSec = float64(r.Rows) / r.Best
	}
	return r
}

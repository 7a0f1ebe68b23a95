// Package export copies a snapshot of a table somewhere else, as Hudi's
// HoodieSnapshotExporter does: as plain Parquet or JSON lines files without
// the Hudi meta columns, all with the table's schema as of the snapshot (as
// the one DataFrame Hudi's exporter writes), optionally partitioned by a
// column into hive-style folders, or as a copy of the table itself (the latest base files, their
// partition metadata and the timeline up to the snapshot) that is a valid
// table of its own.
//
// An export writes into a target that must not exist yet and marks its end
// with an empty SuccessFile, written last: a target without it holds an
// export that failed or is still running, never a complete one.
package export

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// SuccessFile is the file, at the target's root, whose presence marks a
// complete export (Hadoop's and Spark's _SUCCESS marker).
const SuccessFile = "_SUCCESS"

// Format is the form of an export.
type Format string

// The export formats (Hudi's --output-format PARQUET, JSON and HUDI).
const (
	// FormatParquet writes the snapshot's records as Parquet files, without
	// the meta columns, every file with the table's schema as of the
	// snapshot (the columns of a scan), whatever schema its base file has.
	FormatParquet Format = "parquet"
	// FormatJSON writes the snapshot's records as JSON lines files, without
	// the meta columns, each record with every column of the table's schema
	// as of the snapshot and each value as `hoodiectl read --format jsonl`
	// prints it.
	FormatJSON Format = "json"
	// FormatHudi copies the snapshot's base files, their partition metadata,
	// hoodie.properties and the completed instants up to the snapshot: a
	// table whose latest snapshot is the exported one.
	FormatHudi Format = "hudi"
)

// Formats lists the export formats.
var Formats = []Format{FormatParquet, FormatJSON, FormatHudi}

// Options tune an export.
type Options struct {
	// Format is the form of the export.
	Format Format
	// AsOf is the 17-digit instant time to export the table as of (see
	// timeline.ParseInstantOrTime), or "" for the latest snapshot.
	AsOf string
	// PartitionBy, if not empty, names a top-level column of the table's
	// schema as of the snapshot by
	// whose values the records of a parquet or json export are spread into
	// hive-style folders "column=value/" (values escaped as partition paths
	// are, a null or empty value being __HIVE_DEFAULT_PARTITION__); as Spark
	// does, the column is then left out of the files. A hudi export keeps
	// the table's partitioning and refuses it.
	PartitionBy string
	// Progress, if not nil, is called after each base file is exported,
	// never concurrently.
	Progress func(Progress)
}

// Progress tells how far an export is.
type Progress struct {
	// Done and Total count the snapshot's base files.
	Done, Total int
	// Bytes is the number of bytes written so far.
	Bytes int64
}

// Result describes a complete export.
type Result struct {
	// Instant is the instant of the exported snapshot: the last completed
	// write at or before Options.AsOf; "" when there was none, and the
	// export is empty.
	Instant string
	// BaseFiles is the number of base files of the snapshot.
	BaseFiles int
	// Files is the number of data files written: Parquet or JSON files, or
	// base files copied.
	Files int
	// Records is the number of records written by a parquet or json export;
	// a hudi export copies files without reading them and leaves it 0.
	Records int64
	// Bytes is the number of bytes written, SuccessFile excluded.
	Bytes int64
}

// ErrTargetExists reports an export to a target that already exists.
var ErrTargetExists = errors.New("the export target already exists")

// ErrUnknownColumn reports a partition column that the table does not have.
var ErrUnknownColumn = errors.New("no such column")

// Export writes the snapshot of the table on src as of opts.AsOf to dst,
// whose root is the target, in opts.Format; see the package documentation.
// It refuses a target that exists, before writing anything. Base files are
// exported in parallel. If the export fails, or ctx is cancelled, what was
// written stays in the target, without SuccessFile.
func Export(ctx context.Context, src, dst storage.FS, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	exists, err := storage.Exists(ctx, dst, ".")
	if err != nil {
		return nil, fmt.Errorf("check the target: %w", err)
	}
	if exists {
		return nil, ErrTargetExists
	}
	cfg, err := config.Load(ctx, src)
	if err != nil {
		return nil, err
	}
	tl, err := timeline.Load(ctx, src)
	if err != nil {
		return nil, err
	}
	view, err := read.LoadView(ctx, src, tl, opts.AsOf)
	if err != nil {
		return nil, err
	}
	e := &exporter{src: src, dst: dst, opts: opts, slices: view.LatestSlices(),
		res: Result{Instant: view.AsOf(), BaseFiles: len(view.LatestSlices())}}
	if opts.Format == FormatHudi {
		err = e.copyTable(ctx, tl, view)
	} else {
		err = e.exportRecords(ctx, cfg, tl, view)
	}
	if err != nil {
		return nil, err
	}
	if err := dst.CreateIfAbsent(ctx, SuccessFile, nil); err != nil {
		return nil, fmt.Errorf("write %s: %w", SuccessFile, err)
	}
	return &e.res, nil
}

// check reports options that cannot work together.
func (o *Options) check() error {
	switch o.Format {
	case FormatParquet, FormatJSON:
	case FormatHudi:
		if o.PartitionBy != "" {
			return errors.New("a hudi export keeps the table's partitioning: it takes no partition column")
		}
	default:
		return fmt.Errorf("unknown format %q: want parquet, json or hudi", o.Format)
	}
	if o.AsOf != "" {
		if err := timeline.CheckInstantTime(o.AsOf); err != nil {
			return fmt.Errorf("as of: %w", err)
		}
	}
	return nil
}

// exporter is one export under way.
type exporter struct {
	src, dst storage.FS
	opts     Options
	slices   []read.FileSlice

	mu   sync.Mutex // guards res and done
	res  Result
	done int
}

// fileDone records a base file's export: files and records written, and
// bytes.
func (e *exporter) fileDone(files int, records, bytes int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done++
	e.res.Files += files
	e.res.Records += records
	e.res.Bytes += bytes
	if e.opts.Progress != nil {
		e.opts.Progress(Progress{Done: e.done, Total: len(e.slices), Bytes: e.res.Bytes})
	}
}

// eachSlice calls fn for every slice of the snapshot, from as many
// goroutines as there are CPUs. The first error cancels the others' context
// and is returned.
func (e *exporter) eachSlice(ctx context.Context, fn func(ctx context.Context, i int, s read.FileSlice) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(e.slices)) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i, e.slices[i]); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range e.slices {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

package basefile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
)

// File is an open Parquet base file.
type File struct {
	path   string
	file   storage.File
	pf     *parquet.File
	schema *Schema
	plan   *rowPlan
}

// Open opens the base file path on fsys and reads its footer. The
// schema comes from the parquet.avro.schema footer when there is one, and
// is derived from the Parquet schema otherwise. Close the file when done.
func Open(ctx context.Context, fsys storage.FS, path string) (*File, error) {
	f, err := fsys.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("storage: open base file %q: %w", path, err)
	}
	bf, err := openFile(f, path)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("storage: open base file %q: %w", path, err), f.Close())
	}
	return bf, nil
}

func openFile(f storage.File, path string) (*File, error) {
	var pf *parquet.File
	err := catchPanic(func() error {
		var err error
		pf, err = parquet.OpenFile(f, f.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("not a readable Parquet file: %w", err)
	}
	var schema *Schema
	if avroJSON, ok := pf.Lookup(FooterAvroSchema); ok {
		schema, err = ParseSchema([]byte(avroJSON))
	} else {
		schema, err = SchemaFromParquet(pf.Schema())
	}
	if err != nil {
		return nil, err
	}
	plan, err := compilePlan(schema.recordType(), pf.Schema())
	if err != nil {
		return nil, fmt.Errorf("the Parquet schema does not match the Avro schema: %w", err)
	}
	return &File{path: path, file: f, pf: pf, schema: schema, plan: plan}, nil
}

// catchPanic runs fn, turning a panic into an error: parquet-go panics on
// some malformed files instead of returning errors.
func catchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt file: %v", r)
		}
	}()
	return fn()
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Schema returns the file's schema, meta fields included.
func (f *File) Schema() *Schema { return f.schema }

// NumRows returns the number of rows in the file.
func (f *File) NumRows() int64 { return f.pf.NumRows() }

// Size returns the file's size in bytes.
func (f *File) Size() int64 { return f.file.Size() }

// Metadata returns the footer's key/value metadata.
func (f *File) Metadata() map[string]string {
	kvs := f.pf.Metadata().KeyValueMetadata
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// RecordKeyRange returns the least and greatest record key of the file from
// its footer; ok is false if the footer does not hold them.
func (f *File) RecordKeyRange() (minKey, maxKey string, ok bool) {
	minKey, okMin := f.pf.Lookup(FooterMinRecordKey)
	maxKey, okMax := f.pf.Lookup(FooterMaxRecordKey)
	return minKey, maxKey, okMin && okMax
}

// BloomFilter returns the bloom filter of the file's record keys, or an
// error if the footer has none or it cannot be read.
func (f *File) BloomFilter() (*BloomFilter, error) {
	s, ok := f.pf.Lookup(FooterBloomFilter)
	if !ok {
		return nil, fmt.Errorf("storage: base file %q has no bloom filter", f.path)
	}
	if typ, ok := f.pf.Lookup(FooterBloomFilterType); ok && typ != bloomFilterTypeDynamic {
		return nil, fmt.Errorf("storage: base file %q: unsupported bloom filter type %q", f.path, typ)
	}
	bf, err := ParseBloomFilter(s)
	if err != nil {
		return nil, fmt.Errorf("storage: base file %q: %w", f.path, err)
	}
	return bf, nil
}

// Parquet returns the underlying Parquet file, for its row groups, column
// statistics and schema.
func (f *File) Parquet() *parquet.File { return f.pf }

// RowGroups returns the file's row groups; DecodeRow turns their rows into
// values.
func (f *File) RowGroups() []parquet.RowGroup { return f.pf.RowGroups() }

// DecodeRow converts a row read from the file to values of the file's
// schema, as the value model in value.go describes.
func (f *File) DecodeRow(row parquet.Row) ([]any, error) {
	values, err := f.plan.decodeRow(row)
	if err != nil {
		return nil, fmt.Errorf("storage: base file %q: %w", f.path, err)
	}
	return values, nil
}

// Rows returns a reader of the file's rows, in file order.
func (f *File) Rows(ctx context.Context) *Rows {
	return &Rows{ctx: ctx, file: f, groups: f.pf.RowGroups()}
}

// Close closes the file.
func (f *File) Close() error {
	if err := f.file.Close(); err != nil {
		return fmt.Errorf("storage: close base file %q: %w", f.path, err)
	}
	return nil
}

// rowBatch is how many rows Rows.Next reads at once.
const rowBatch = 256

// Rows reads the rows of a base file, as parquet.Row (ReadRows) or
// as values (Next), one row group after the other. Close it when done.
type Rows struct {
	ctx    context.Context
	file   *File
	groups []parquet.RowGroup // row groups not started yet
	rows   parquet.Rows       // rows of the current row group
	ended  bool               // rows has returned its last row
	batch  []parquet.Row
	next   int // index in batch of the row Next returns next
	err    error
}

// ReadRows reads up to len(rows) rows into rows, reusing their memory, and
// returns io.EOF after the last row. The rows are valid until the next call.
// Do not mix ReadRows and Next.
func (r *Rows) ReadRows(rows []parquet.Row) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	for {
		if r.ended {
			// Closed only now: the rows last returned may point into its pages.
			r.closeRows()
		}
		if r.rows == nil {
			if len(r.groups) == 0 {
				return 0, io.EOF
			}
			r.rows, r.groups = r.groups[0].Rows(), r.groups[1:]
		}
		var n int
		err := catchPanic(func() error {
			var err error
			n, err = r.rows.ReadRows(rows)
			return err
		})
		switch {
		case errors.Is(err, io.EOF):
			r.ended = true
			if n == 0 {
				continue
			}
		case err != nil:
			r.err = fmt.Errorf("storage: read base file %q: %w", r.file.path, err)
			return n, r.err
		}
		return n, nil
	}
}

func (r *Rows) closeRows() {
	if r.rows != nil {
		r.rows.Close()
	}
	r.rows, r.ended = nil, false
}

// Next returns the values of the next row, and io.EOF after the last.
func (r *Rows) Next() ([]any, error) {
	for r.next >= len(r.batch) {
		if r.batch == nil {
			r.batch = make([]parquet.Row, rowBatch)
		}
		n, err := r.ReadRows(r.batch[:cap(r.batch)])
		r.batch, r.next = r.batch[:n], 0
		if n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return nil, err
		}
	}
	row := r.batch[r.next]
	r.next++
	return r.file.DecodeRow(row)
}

// Close releases the reader.
func (r *Rows) Close() error {
	r.closeRows()
	r.groups = nil
	return nil
}

package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// exportRecords writes the records of every base file of the snapshot,
// without meta columns, into Parquet or JSON lines files named
// part-<n>-<file id>.parquet (or .json), n numbering the base files: one
// file per base file, or with a partition column one per base file and
// value of the column, in the value's folder. Every file has the table's
// schema as of the snapshot (read.SnapshotSchema), less the meta columns
// and the partition column, whatever the schema its base file was written
// with: records are read as a scan reads them, a column their file lacks
// null and one it stores narrower widened. So files of file groups that
// the writes which evolved the schema left alone still have every column,
// and a reader that takes one file's schema for the whole dataset (Spark's
// Parquet reader without mergeSchema) sees the snapshot's columns.
func (e *exporter) exportRecords(ctx context.Context, cfg *config.Table, tl *timeline.Timeline, view *read.View) error {
	schema, err := read.SnapshotSchema(ctx, cfg, tl, view)
	if err != nil {
		return fmt.Errorf("schema of the snapshot: %w", err)
	}
	if e.opts.PartitionBy != "" {
		if err := checkPartitionColumn(schema, e.opts.PartitionBy); err != nil {
			return err
		}
	}
	if len(e.slices) == 0 {
		return nil
	}
	if schema == nil {
		return fmt.Errorf("the table has no schema as of %s", view.AsOf())
	}
	columns := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		columns[i] = f.Name
	}
	scan, err := read.NewScan(ctx, e.src, cfg, tl, read.Options{AsOf: view.AsOf(), Columns: columns, Parallelism: 1})
	if err != nil {
		return fmt.Errorf("read the snapshot: %w", err)
	}
	defer scan.Close()
	return e.eachSlice(ctx, func(ctx context.Context, i int, slice read.FileSlice) error {
		return e.exportFile(ctx, scan, schema, i, slice)
	})
}

// checkPartitionColumn checks that the table schema has a column name of a
// type whose values can name folders.
func checkPartitionColumn(schema *basefile.Schema, name string) error {
	var field basefile.Field
	ok := false
	if schema != nil && !basefile.IsMetaField(name) {
		field, ok = schema.Field(name)
	}
	if !ok {
		var names []string
		if schema != nil {
			for _, f := range schema.Fields {
				names = append(names, f.Name)
			}
		}
		return fmt.Errorf("partition column %q: %w in the table (its columns: %s)", name, ErrUnknownColumn, strings.Join(names, ", "))
	}
	t := field.Type
	switch {
	case t.Kind == basefile.KindRecord || t.Kind == basefile.KindArray || t.Kind == basefile.KindMap,
		(t.Kind == basefile.KindBytes || t.Kind == basefile.KindFixed) && t.Logical != basefile.LogicalDecimal:
		return fmt.Errorf("partition column %q is of type %s: only columns of primitive types other than bytes can name folders", name, t.Kind)
	}
	return nil
}

// exportFile writes the records of the base file of slice i, read by scan
// in the columns of schema.
func (e *exporter) exportFile(ctx context.Context, scan *read.Scan, schema *basefile.Schema, i int, slice read.FileSlice) (err error) {
	part, keep := -1, []int(nil)
	var fields []basefile.Field
	for j, f := range schema.Fields {
		if f.Name == e.opts.PartitionBy {
			part = j
			continue
		}
		keep = append(keep, j)
		fields = append(fields, f)
	}
	outs := &outputs{
		ctx: ctx, fsys: e.dst, format: e.opts.Format,
		schema: &basefile.Schema{Name: schema.Name, Namespace: schema.Namespace, Doc: schema.Doc, Fields: fields},
		name:   fmt.Sprintf("part-%05d-%s.%s", i, slice.FileID, e.opts.Format),
		byDir:  map[string]*output{},
	}
	defer func() {
		if err != nil {
			outs.abort()
		}
	}()
	var records int64
	row := make([]any, len(keep))
	err = scan.ReadSlice(ctx, slice, func(b *read.Batch) error {
		for r := range b.Len() {
			dir := ""
			if part >= 0 {
				s, err := partitionValue(b.Column(part).Value(r))
				if err != nil {
					return fmt.Errorf("%s: column %s: %w", slice.Path, e.opts.PartitionBy, err)
				}
				dir = e.opts.PartitionBy + "=" + config.EscapePartitionValue(s)
			}
			out, err := outs.get(dir)
			if err != nil {
				return err
			}
			for k, j := range keep {
				row[k] = b.Column(j).Value(r)
			}
			if err := out.w.write(row); err != nil {
				return fmt.Errorf("write %s: %w", out.path, err)
			}
			records++
		}
		return nil
	})
	if err != nil {
		return err
	}
	files, bytes, err := outs.close()
	if err != nil {
		return err
	}
	e.fileDone(files, records, bytes)
	return nil
}

// partitionValue is the text of a partition column's value, before
// escaping: "" for null.
func partitionValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case basefile.Decimal:
		return x.String(), nil
	case basefile.Date:
		return x.String(), nil
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999"), nil
	}
	return "", fmt.Errorf("a %T value cannot name a folder", v)
}

// outputs are the files written from one base file, by folder.
type outputs struct {
	ctx    context.Context
	fsys   storage.FS
	format Format
	schema *basefile.Schema
	name   string
	byDir  map[string]*output
}

// output is one file being written.
type output struct {
	path string
	out  *countingWriter
	w    recordWriter
}

// recordWriter writes rows to a file and finishes it.
type recordWriter interface {
	write(row []any) error
	// close finishes and closes the file.
	close() error
}

// get returns the file of folder dir, creating it on first use.
func (o *outputs) get(dir string) (*output, error) {
	if out, ok := o.byDir[dir]; ok {
		return out, nil
	}
	name := path.Join(dir, o.name)
	f, err := o.fsys.Create(o.ctx, name)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	out := &output{path: name, out: &countingWriter{w: f}}
	if o.format == FormatParquet {
		out.w, err = newParquetWriter(out.out, o.schema)
	} else {
		out.w = newJSONWriter(out.out, o.schema)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("create %s: %w", name, err), f.Close())
	}
	o.byDir[dir] = out
	return out, nil
}

// close finishes every file, and returns how many there are and their
// bytes.
func (o *outputs) close() (files int, bytes int64, err error) {
	var errs []error
	files = len(o.byDir)
	for _, out := range o.byDir {
		if err := out.w.close(); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", out.path, err))
		}
		bytes += out.out.n
	}
	o.byDir = nil
	return files, bytes, errors.Join(errs...)
}

// abort closes the files after an error, leaving them as they are.
func (o *outputs) abort() {
	for _, out := range o.byDir {
		out.out.Close()
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.WriteCloser
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }

// parquetBatch is how many rows a Parquet file buffers before writing them.
const parquetBatch = 256

// parquetWriter writes rows to a Parquet file in the layout of base files,
// snappy-compressed, with the Avro schema in the footer as parquet-avro
// writes it.
type parquetWriter struct {
	out io.WriteCloser
	// parquet.Writer is deprecated for writing Go values, but
	// GenericWriter[any] maps the schema onto Go types, which fails on
	// parquet-avro's two-level lists.
	//lint:ignore SA1019 rows, not Go values, are written
	pw     *parquet.Writer
	schema *basefile.Schema
	batch  []parquet.Row
}

func newParquetWriter(out io.WriteCloser, schema *basefile.Schema) (*parquetWriter, error) {
	ps, err := schema.ParquetSchema()
	if err != nil {
		return nil, err
	}
	avro, err := schema.MarshalJSON()
	if err != nil {
		return nil, err
	}
	pw := parquet.NewWriter(out, ps,
		parquet.Compression(&parquet.Snappy),
		parquet.KeyValueMetadata(basefile.FooterAvroSchema, string(avro)))
	return &parquetWriter{out: out, pw: pw, schema: schema}, nil
}

func (w *parquetWriter) write(row []any) error {
	r, err := w.schema.AppendRow(nil, row)
	if err != nil {
		return err
	}
	w.batch = append(w.batch, r)
	if len(w.batch) == parquetBatch {
		return w.flush()
	}
	return nil
}

func (w *parquetWriter) flush() error {
	_, err := w.pw.WriteRows(w.batch)
	w.batch = w.batch[:0]
	return err
}

func (w *parquetWriter) close() error {
	err := w.flush()
	if err == nil {
		err = w.pw.Close()
	}
	return errors.Join(err, w.out.Close())
}

// jsonWriter writes rows as JSON lines.
type jsonWriter struct {
	out    io.WriteCloser
	buf    *bufio.Writer
	fields []basefile.Field
	line   []byte
}

func newJSONWriter(out io.WriteCloser, schema *basefile.Schema) *jsonWriter {
	return &jsonWriter{out: out, buf: bufio.NewWriterSize(out, 256<<10), fields: schema.Fields}
}

func (w *jsonWriter) write(row []any) error {
	line, err := appendRecord(w.line[:0], w.fields, row)
	if err != nil {
		return err
	}
	w.line = append(line, '\n')
	_, err = w.buf.Write(w.line)
	return err
}

func (w *jsonWriter) close() error {
	return errors.Join(w.buf.Flush(), w.out.Close())
}

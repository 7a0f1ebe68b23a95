package basefile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage"
)

// Stats describes a written base file.
type Stats struct {
	NumRows  int64
	FileSize int64
	// MinRecordKey and MaxRecordKey are the least and greatest record keys,
	// empty for a file without rows or without meta fields.
	MinRecordKey string
	MaxRecordKey string
}

// rowBatchSize is how many rows WriteRow buffers before writing them.
const rowBatchSize = 64

// Writer streams rows into a new Parquet base file, as Spark's Hudi
// writer makes them: the schema with the five meta fields first, parquet-avro's
// Parquet layout, and Hudi's footer (the Avro schema, min and max record
// keys, bloom filter). Memory stays bounded by a row group.
//
// Rows follow the schema with meta fields (see Schema.WithMetaFields); the
// record key, at index 2, must be a non-empty string. With
// Options.NoMetaFields they follow the schema as given instead. A row refused for its
// values is not written and the writer stays usable; any other error is
// final: call Abort. Every writer must end with Close or Abort, which also
// stop the goroutine that builds the bloom filter. A Writer is not
// safe for concurrent use.
type Writer struct {
	ctx    context.Context
	fsys   storage.FS
	path   string
	schema *Schema
	plan   *rowPlan
	out    io.WriteCloser
	count  countingWriter
	// parquet.Writer is deprecated for writing Go values, but it is the way
	// to write parquet.Row values of a schema parquet-go did not derive:
	// GenericWriter[any] maps the schema onto Go types, which fails on
	// parquet-avro's two-level lists.
	//lint:ignore SA1019 rows, not Go values, are written
	pw *parquet.Writer
	// columnar writes the file instead of pw for NewRecordsOnly writers
	// of flat schemas; pw is then nil.
	columnar *columnarFile

	blockSize    int64
	rowGroupBase int64 // Size() when the current row group began

	numRows        int64
	minKey, maxKey []byte        // valid once numRows > 0
	bloom          *bloomBuilder // nil without a bloom filter
	seeded         bool          // the bloom filter started from SeedBloom
	keyed          bool          // rows have meta fields: track their keys
	batch          []parquet.Row // rows of WriteRow not written yet
	nan            []bool        // by leaf column: a float NaN was written to its chunk
	nanGroups      [][]bool      // nan of each row group flushed
	arena          []byte        // copies of the byte slices of batch
	newCols        *newColumns   // WriteNew's scratch memory; nil before its first call
	err            error         // the error that ended the writer
	done           bool
}

// NewWriter creates the base file path on fsys and returns a writer
// for rows of schema, which gets the meta fields if it lacks them (unless
// opts.NoMetaFields is set).
func NewWriter(ctx context.Context, fsys storage.FS, path string, schema *Schema, opts Options) (*Writer, error) {
	w, err := newWriter(ctx, fsys, path, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("storage: create base file %q: %w", path, err)
	}
	return w, nil
}

func newWriter(ctx context.Context, fsys storage.FS, path string, schema *Schema, opts Options) (*Writer, error) {
	keyed := !opts.NoMetaFields
	if keyed && !schema.HasMetaFields() {
		schema = schema.WithMetaFields()
	}
	c, err := schema.compile()
	if err != nil {
		return nil, err
	}
	if keyed {
		for _, f := range schema.Fields[:NumMetaFields] {
			if f.Type.Kind != KindString {
				return nil, fmt.Errorf("meta field %s must be a string, not %s", f.Name, describeType(f.Type))
			}
		}
	}
	avroJSON, err := schema.MarshalJSON()
	if err != nil {
		return nil, err
	}
	codec, err := CompressionCodec(opts.Compression)
	if err != nil {
		return nil, err
	}
	stringEncoding, err := StringEncoding(opts.StringEncoding)
	if err != nil {
		return nil, err
	}
	pageSize := cmp.Or(opts.PageSize, DefaultPageSize)
	blockSize := cmp.Or(opts.BlockSize, DefaultBlockSize)
	if pageSize < 0 || blockSize < 0 || pageSize > MaxPageSize {
		return nil, fmt.Errorf("bad page size %d or block size %d (pages hold at most %d bytes)", pageSize, blockSize, MaxPageSize)
	}
	var layout *columnarLayout
	if opts.NewRecordsOnly {
		if layout, err = columnarLayoutOf(c); err != nil {
			return nil, err
		}
	}
	w := &Writer{ctx: ctx, fsys: fsys, path: path, schema: schema, plan: c.plan, blockSize: blockSize, keyed: keyed}
	var bloom *BloomFilter
	switch {
	case opts.NoBloomFilter || !keyed:
	case opts.SeedBloom != nil:
		bloom = opts.SeedBloom.clone(cmp.Or(opts.BloomMaxEntries, DefaultBloomMaxEntries))
	default:
		bloom, err = NewBloomFilter(cmp.Or(opts.BloomNumEntries, DefaultBloomNumEntries),
			cmp.Or(opts.BloomFPP, DefaultBloomFPP), cmp.Or(opts.BloomMaxEntries, DefaultBloomMaxEntries))
		if err != nil {
			return nil, err
		}
	}
	if w.out, err = fsys.Create(ctx, path); err != nil {
		return nil, err
	}
	if bloom != nil {
		w.bloom = newBloomBuilder(bloom)
		w.seeded = opts.SeedBloom != nil
	}
	w.count.w = w.out
	if layout != nil {
		w.columnar = newColumnarFile(layout, &w.count, columnarOptions{
			codec: codec, stringEncoding: stringEncoding, pageSize: pageSize, dictionary: !opts.NoDictionary,
			metadata: []format.KeyValue{
				{Key: FooterAvroSchema, Value: string(avroJSON)},
				{Key: FooterWriterModel, Value: "avro"},
			},
		})
		return w, nil
	}
	w.pw = parquet.NewWriter(&w.count, append(writerOptions(c.parquet, codec, stringEncoding, pageSize),
		parquet.KeyValueMetadata(FooterAvroSchema, string(avroJSON)),
		parquet.KeyValueMetadata(FooterWriterModel, "avro"),
	)...)
	return w, nil
}

// Schema returns the schema of the rows, meta fields included.
func (w *Writer) Schema() *Schema { return w.schema }

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// NumRows returns the number of rows written so far.
func (w *Writer) NumRows() int64 { return w.numRows }

// Size returns the bytes written so far plus an estimate of the bytes
// buffered for the current row group: about the file's size if it were
// closed now, less the footer. Writers use it to cap file sizes.
func (w *Writer) Size() int64 {
	if w.columnar != nil {
		return w.columnar.size()
	}
	return w.pw.Size()
}

// WriteRow writes one row given as values of the value model.
func (w *Writer) WriteRow(values []any) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.columnar != nil {
		return w.fail(errNewRecordsOnly)
	}
	var key string
	if w.keyed && len(values) > 2 {
		key, _ = values[2].(string)
	}
	if w.keyed && key == "" {
		return w.rowError(fmt.Errorf("field %s must be a non-empty string, not %#v", MetaRecordKey, valueAt(values, 2)))
	}
	// Rows wait in a batch, which parquet-go writes faster than single
	// rows; the batch owns copies of the values' byte slices.
	i := len(w.batch)
	if i == cap(w.batch) {
		w.batch = append(w.batch, nil)
	} else {
		w.batch = w.batch[:i+1]
	}
	row, err := w.plan.appendRow(w.batch[i][:0], values, &w.arena)
	w.batch[i] = row
	if err != nil {
		w.batch = w.batch[:i]
		return w.rowError(err)
	}
	w.addKey(key, true)
	if len(w.batch) == rowBatchSize {
		return w.writeBatch()
	}
	return nil
}

// writeBatch writes the rows WriteRow buffered.
func (w *Writer) writeBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	w.noteNaNRows(w.batch)
	if _, err := w.pw.WriteRows(w.batch); err != nil {
		return w.fail(err)
	}
	w.batch, w.arena = w.batch[:0], w.arena[:0]
	return w.checkRowGroup()
}

func valueAt(values []any, i int) any {
	if i < len(values) {
		return values[i]
	}
	return nil
}

// WriteRows writes rows already in the schema's Parquet form, as AppendRow
// makes them or as read from a base file of the same schema. It checks the
// record keys of all rows before writing any.
func (w *Writer) WriteRows(rows []parquet.Row) (int, error) {
	return w.writeRows(rows, true)
}

// CarryRows writes rows like WriteRows, but leaves their keys out of the
// bloom filter: the rows come from the previous version of the file group
// whose filter seeded this one (Options.SeedBloom), so the filter
// holds them already. Without a seed it is WriteRows.
func (w *Writer) CarryRows(rows []parquet.Row) (int, error) {
	return w.writeRows(rows, !w.seeded)
}

func (w *Writer) writeRows(rows []parquet.Row, bloom bool) (int, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	if w.columnar != nil {
		return 0, w.fail(errNewRecordsOnly)
	}
	if err := w.writeBatch(); err != nil {
		return 0, err
	}
	for i, row := range rows {
		if w.keyed && len(RowRecordKey(row)) == 0 {
			return 0, fmt.Errorf("storage: base file %q: row %d of the batch: no %s value of column 2, or an empty one", w.path, i, MetaRecordKey)
		}
	}
	w.noteNaNRows(rows)
	n, err := w.pw.WriteRows(rows)
	for _, row := range rows[:n] {
		w.addKey(unsafeString(RowRecordKey(row)), bloom)
	}
	if err != nil {
		return n, w.fail(err)
	}
	return n, w.checkRowGroup()
}

// RowRecordKey returns the _hoodie_record_key of a Parquet row with meta
// fields, without copying: the bytes belong to the row. It returns nil when
// the row has no such value.
func RowRecordKey(row parquet.Row) []byte {
	if len(row) <= MetaRecordKeyPos || row[MetaRecordKeyPos].Column() != MetaRecordKeyPos || row[MetaRecordKeyPos].IsNull() {
		return nil
	}
	return row[MetaRecordKeyPos].ByteArray()
}

// unsafeString returns b as a string without copying; it must not outlive b
// unless copied.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// addKey counts a written row and records its key, in the bloom filter too
// when bloom is set; key may alias the caller's memory. Rows without meta
// fields are only counted.
func (w *Writer) addKey(key string, bloom bool) {
	w.numRows++
	if !w.keyed {
		return
	}
	if bloom && w.bloom != nil {
		w.bloom.add(key)
	}
	if w.numRows == 1 || compareUTF16(key, unsafeString(w.minKey)) < 0 {
		w.minKey = append(w.minKey[:0], key...)
	}
	if w.numRows == 1 || compareUTF16(key, unsafeString(w.maxKey)) > 0 {
		w.maxKey = append(w.maxKey[:0], key...)
	}
}

// checkRowGroup ends the current row group once it reaches the block size.
func (w *Writer) checkRowGroup() error {
	if w.Size()-w.rowGroupBase < w.blockSize {
		return nil
	}
	if err := w.ctx.Err(); err != nil {
		return w.fail(err)
	}
	var err error
	if w.columnar != nil {
		err = w.columnar.endRowGroup()
	} else {
		err = w.pw.Flush()
		w.nanGroups, w.nan = append(w.nanGroups, w.nan), nil
	}
	if err != nil {
		return w.fail(err)
	}
	w.rowGroupBase = w.Size()
	return nil
}

func (w *Writer) usable() error {
	switch {
	case w.err != nil:
		return w.err
	case w.done:
		return fmt.Errorf("storage: base file %q: writer is closed", w.path)
	}
	return nil
}

// rowError reports a refused row; the writer stays usable.
func (w *Writer) rowError(err error) error {
	return fmt.Errorf("storage: base file %q: row %d: %w", w.path, w.numRows, err)
}

// fail ends the writer with err.
func (w *Writer) fail(err error) error {
	w.err = fmt.Errorf("storage: write base file %q: %w", w.path, err)
	return w.err
}

// Close writes the footer, closes the file and returns its stats. If it
// fails, or the writer failed before, the partial file is removed.
func (w *Writer) Close() (Stats, error) {
	if w.done {
		return Stats{}, fmt.Errorf("storage: base file %q: writer is closed", w.path)
	}
	if w.err == nil {
		if err := w.finish(); err != nil {
			w.fail(err)
		}
	}
	if w.err != nil {
		return Stats{}, errors.Join(w.err, w.discard())
	}
	w.done = true
	if err := w.out.Close(); err != nil {
		return Stats{}, errors.Join(w.fail(err), w.remove())
	}
	return Stats{NumRows: w.numRows, FileSize: w.count.n, MinRecordKey: string(w.minKey), MaxRecordKey: string(w.maxKey)}, nil
}

// finish writes the last rows and the footer.
func (w *Writer) finish() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if len(w.batch) > 0 {
		w.noteNaNRows(w.batch)
		if _, err := w.pw.WriteRows(w.batch); err != nil {
			return err
		}
	}
	if w.keyed && w.numRows > 0 {
		w.setMetadata(FooterMinRecordKey, string(w.minKey))
		w.setMetadata(FooterMaxRecordKey, string(w.maxKey))
	}
	if w.bloom != nil {
		w.setMetadata(FooterBloomFilter, w.stopBloom().String())
		w.setMetadata(FooterBloomFilterType, bloomFilterTypeDynamic)
	}
	if w.columnar != nil {
		err := w.columnar.close()
		w.columnar.release()
		return err
	}
	return w.closeMendingPageIndexes()
}

// noteNaNRows notes the columns of rows that hold a float NaN (see
// noteNaNs).
func (w *Writer) noteNaNRows(rows []parquet.Row) {
	for _, row := range rows {
		w.noteNaNs(row)
	}
}

// noteNaNs notes the columns of values that hold a float NaN: their chunks
// get neither bounds nor a column index (see mendPageIndexes).
func (w *Writer) noteNaNs(values []parquet.Value) {
	for _, v := range values {
		var nan bool
		switch v.Kind() {
		case parquet.Float:
			nan = math.IsNaN(float64(v.Float()))
		case parquet.Double:
			nan = math.IsNaN(v.Double())
		}
		if nan {
			for len(w.nan) <= v.Column() {
				w.nan = append(w.nan, false)
			}
			w.nan[v.Column()] = true
		}
	}
}

// holdsNaN reports whether a float NaN was written to the chunk of leaf
// column i in the row group of that index, of groups row groups: those the
// writer flushed, and the rows written since if any. If the file holds
// other row groups (parquet-go ended one on its own), it reports whether
// any chunk of the column holds one.
func (w *Writer) holdsNaN(rowGroup, groups, i int) bool {
	holds := func(nan []bool) bool { return i < len(nan) && nan[i] }
	if groups != len(w.nanGroups) && groups != len(w.nanGroups)+1 {
		return slices.ContainsFunc(w.nanGroups, holds) || holds(w.nan)
	}
	if rowGroup < len(w.nanGroups) {
		return holds(w.nanGroups[rowGroup])
	}
	return holds(w.nan)
}

// setMetadata sets a key of the footer's metadata.
func (w *Writer) setMetadata(key, value string) {
	if w.columnar != nil {
		w.columnar.setMetadata(key, value)
		return
	}
	w.pw.SetKeyValueMetadata(key, value)
}

// Abort gives up the file: it closes and removes it. It may be called after
// any error, and does nothing after Close or a previous Abort.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	if w.err == nil {
		w.err = fmt.Errorf("storage: base file %q: writer was aborted", w.path)
	}
	return w.discard()
}

// stopBloom stops the bloom filter's goroutine and returns the filter.
func (w *Writer) stopBloom() *BloomFilter {
	b := w.bloom
	w.bloom = nil
	return b.finish()
}

// discard closes the file without its footer and removes it. The file is
// given up: only an error removing it is reported, not one closing it,
// which repeats the error that made the writer give up (a full disk).
func (w *Writer) discard() error {
	if w.bloom != nil {
		w.stopBloom()
	}
	if w.columnar != nil {
		w.columnar.release()
	}
	w.done = true
	_ = w.out.Close()
	return w.remove()
}

func (w *Writer) remove() error {
	err := w.fsys.Remove(context.WithoutCancel(w.ctx), w.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: remove partial base file %q: %w", w.path, err)
	}
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// compareUTF16 compares strings as Java's String.compareTo does, by UTF-16
// code units, so that min and max record keys agree with Hudi's. That order
// differs from byte order only between a character above U+FFFF and one in
// U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmp.Compare(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if (ra > 0xffff) != (rb > 0xffff) {
		// A character above U+FFFF is a surrogate pair, whose first unit
		// (U+D800..U+DBFF) sorts below U+E000..U+FFFF.
		ra, rb = utf16First(ra), utf16First(rb)
	}
	return cmp.Compare(ra, rb)
}

// utf16First returns the first UTF-16 code unit of r.
func utf16First(r rune) rune {
	if r > 0xffff {
		return 0xd800 + (r-0x10000)>>10
	}
	return r
}

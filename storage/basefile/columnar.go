package basefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/internal/prefetch"
)

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// columnarLayout is what the columnar writer needs to know of a schema,
// derived once per schema: the footer parts parquet-go's writer would
// write for it, and the leaf columns.
type columnarLayout struct {
	elements     []format.SchemaElement
	createdBy    string
	columnOrders []format.ColumnOrder
	leaves       []columnarLeaf
}

// columnarLeaf is one leaf column of a flat schema.
type columnarLeaf struct {
	path     []string
	typ      parquet.Type
	kind     parquet.Kind
	size     int // the length of a fixed-length byte array
	optional bool
	// dictionary marks the string columns that are always
	// dictionary-encoded: the meta fields that hold a few values per file
	// (see dictionaryMetaFields).
	dictionary bool
	// plain marks the byte array columns written PLAIN whatever the
	// string encoding (decimals).
	plain bool
	// signed marks the byte array columns of decimals, whose values are
	// ordered as signed integers.
	signed bool
	// unique marks the meta columns whose values differ in every row of a
	// file (the record key, the sequence number): a dictionary never pays.
	unique bool
}

// columnarLayoutOf returns the layout of the compiled schema c, deriving
// it on first use, or nil when the columnar writer cannot write the schema:
// a field is not a single leaf column.
func columnarLayoutOf(c *compiledSchema) (*columnarLayout, error) {
	c.columnarOnce.Do(func() { c.columnar, c.columnarErr = newColumnarLayout(c) })
	return c.columnar, c.columnarErr
}

// newColumnarLayout derives the columnar layout of c, nil when a field of
// the schema is not a single leaf column.
func newColumnarLayout(c *compiledSchema) (*columnarLayout, error) {
	layout := new(columnarLayout)
	for _, n := range c.plan.fields {
		if n.kind != leafValue {
			return nil, nil
		}
	}
	for i, path := range c.parquet.Columns() {
		leaf, _ := c.parquet.Lookup(path...)
		node := leaf.Node
		l := columnarLeaf{
			path:       path,
			typ:        node.Type(),
			kind:       node.Type().Kind(),
			size:       node.Type().Length(),
			optional:   node.Optional(),
			dictionary: node.Encoding() != nil && node.Encoding().Encoding() == format.RLEDictionary && node.Type().Kind() == parquet.ByteArray,
			plain:      node.Encoding() != nil && node.Encoding().Encoding() == format.Plain,
			signed:     isDecimal(node.Type()),
			unique:     len(path) == 1 && (path[0] == MetaRecordKey || path[0] == MetaCommitSeqNo),
		}
		if leaf.MaxRepetitionLevel != 0 || leaf.MaxDefinitionLevel > 1 || leaf.ColumnIndex != i || l.kind == parquet.Int96 {
			return nil, nil
		}
		layout.leaves = append(layout.leaves, l)
	}
	// parquet-go's writer knows how to describe the schema in a footer:
	// an empty file of it gives the schema elements, the writer's name and
	// the column orders, which the columnar writer's footers then repeat.
	var empty bytes.Buffer
	pw := parquet.NewWriter(&empty, c.parquet)
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("describe the Parquet schema: %w", err)
	}
	meta := pw.File().Metadata()
	layout.elements, layout.createdBy, layout.columnOrders = meta.Schema, meta.CreatedBy, meta.ColumnOrders
	return layout, nil
}

// isDecimal tells whether a Parquet type is a decimal.
func isDecimal(t parquet.Type) bool {
	_, ok := logicalTypeOf(t).(*format.DecimalType)
	return ok
}

// columnarFile writes a base file of a flat schema column by column, with
// pages of its own making: the values of new records go straight into
// typed page buffers, without becoming parquet.Values, and each page is
// encoded from them with parquet-go's encoders. It writes what parquet-go's
// writer writes with the base files' options (data pages v1, the same
// encodings and codec, chunk statistics and size statistics, column and
// offset indexes, and the same footer), but also dictionary-encodes string
// columns where a dictionary pays, and orders decimals as signed integers.
type columnarFile struct {
	layout   *columnarLayout
	out      *countingWriter
	codec    compress.Codec // nil for uncompressed pages
	codecID  format.CompressionCodec
	pageSize int // a page is written once its values reach this size
	columns  []*columnarColumn
	metadata []format.KeyValue

	rowGroupRows  int64 // rows in the current row group
	rowGroups     []format.RowGroup
	columnIndexes [][]*format.ColumnIndex // nil for a chunk without one
	offsetIndexes [][]format.OffsetIndex
	page          *pageScratch // shared by the columns' page encoding
	flat          []any        // the values of writeNew's rows, row by row
	seqNo         []byte       // a sequence number being made
}

// columnarOptions are the settings of a columnarFile.
type columnarOptions struct {
	codec          compress.Codec
	stringEncoding encoding.Encoding
	pageSize       int
	// dictionary lets byte array columns be dictionary-encoded while the
	// dictionary pays.
	dictionary bool
	metadata   []format.KeyValue
}

// newColumnarFile returns a writer of files of layout to out.
func newColumnarFile(layout *columnarLayout, out *countingWriter, opts columnarOptions) *columnarFile {
	f := &columnarFile{layout: layout, out: out, codec: opts.codec, codecID: opts.codec.CompressionCodec(), metadata: opts.metadata,
		// parquet-go ends a page at 98% of the page buffer size.
		pageSize: int(float64(opts.pageSize) * 0.98)}
	if f.codecID == format.Uncompressed {
		f.codec = nil
	}
	buf, ok := columnarFilePool.Get().(*columnarFileBuffers)
	if !ok {
		buf = &columnarFileBuffers{page: new(pageScratch)}
	}
	for i := range layout.leaves {
		var cb columnarBuffers
		if i < len(buf.columns) {
			cb = buf.columns[i]
		}
		f.columns = append(f.columns, newColumnarColumn(f, &layout.leaves[i], opts.stringEncoding, opts.dictionary, cb))
	}
	f.page, f.flat = buf.page, buf.flat[:0]
	return f
}

// columnarFileBuffers is the memory of a columnarFile done, which it gives
// to the next one through columnarFilePool, column by column: the files
// of a bulk insert, which have one schema, then do not each grow theirs
// from nothing, and each column takes the memory of a column of its kind.
// (A pool of columns took any column's memory for any other: a column of
// longs grew its page afresh in the memory of a column of strings.)
type columnarFileBuffers struct {
	columns []columnarBuffers
	page    *pageScratch
	flat    []any
}

// columnarFilePool holds the *columnarFileBuffers of writers done.
var columnarFilePool sync.Pool

// release gives the writer's memory back for other writers to use. The
// writer is done.
func (f *columnarFile) release() {
	if f.page == nil {
		return
	}
	// The values of the rows written, the longest chunk's included, go:
	// the pool must not keep them alive.
	clear(f.flat[:cap(f.flat)])
	buf := &columnarFileBuffers{page: f.page, flat: f.flat[:0]}
	for _, c := range f.columns {
		buf.columns = append(buf.columns, c.buffers())
	}
	columnarFilePool.Put(buf)
	f.columns, f.page, f.flat = nil, nil, nil
}

// setMetadata sets a key of the footer's metadata, replacing its value if
// it has one.
func (f *columnarFile) setMetadata(key, value string) {
	for i := range f.metadata {
		if f.metadata[i].Key == key {
			f.metadata[i].Value = value
			return
		}
	}
	f.metadata = append(f.metadata, format.KeyValue{Key: key, Value: value})
}

// size returns the bytes written plus those buffered for the current row
// group, as parquet.Writer.Size does.
func (f *columnarFile) size() int64 {
	n := f.out.n
	for _, c := range f.columns {
		n += int64(len(c.pages)) + int64(c.page.size()) + int64(len(c.dict.bytes))
	}
	return n
}

// endPages writes out the page of every column that has reached the page
// size. Rows are whole in every column between calls of writeNew.
func (f *columnarFile) endPages() error {
	for i, c := range f.columns {
		if c.err != nil {
			return fmt.Errorf("column %d: %w", i, c.err)
		}
		if c.page.size() >= f.pageSize {
			if err := c.endPage(); err != nil {
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
	}
	return nil
}

// endRowGroup writes the current row group: each column's chunk, its
// dictionary page first when it has one.
func (f *columnarFile) endRowGroup() error {
	if err := f.endPages(); err != nil || f.rowGroupRows == 0 {
		return err
	}
	if f.out.n == 0 {
		if _, err := io.WriteString(f.out, parquetMagic); err != nil {
			return err
		}
	}
	rg := format.RowGroup{NumRows: f.rowGroupRows, FileOffset: f.out.n, Ordinal: int16(len(f.rowGroups))}
	columnIndexes := make([]*format.ColumnIndex, len(f.columns))
	offsetIndexes := make([]format.OffsetIndex, len(f.columns))
	for i, c := range f.columns {
		if err := c.endPage(); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
		chunk, err := c.writeChunk()
		if err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
		rg.Columns = append(rg.Columns, chunk.column)
		rg.TotalByteSize += chunk.column.MetaData.TotalUncompressedSize
		rg.TotalCompressedSize += chunk.column.MetaData.TotalCompressedSize
		if !chunk.noColumnIndex {
			columnIndexes[i] = &chunk.columnIndex
		}
		offsetIndexes[i] = chunk.offsetIndex
	}
	f.rowGroups = append(f.rowGroups, rg)
	f.columnIndexes = append(f.columnIndexes, columnIndexes)
	f.offsetIndexes = append(f.offsetIndexes, offsetIndexes)
	f.rowGroupRows = 0
	return nil
}

// close writes the last row group, the page indexes and the footer.
func (f *columnarFile) close() error {
	if err := f.endRowGroup(); err != nil {
		return err
	}
	if f.out.n == 0 {
		if _, err := io.WriteString(f.out, parquetMagic); err != nil {
			return err
		}
	}
	var numRows int64
	for _, rg := range f.rowGroups {
		numRows += rg.NumRows
	}
	var buf bytes.Buffer
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&buf))
	// The column indexes of every chunk come first, then the offset
	// indexes, as parquet-go and parquet-mr lay them out.
	for i := range f.rowGroups {
		for j := range f.rowGroups[i].Columns {
			if f.columnIndexes[i][j] == nil {
				continue
			}
			offset := f.out.n + int64(buf.Len())
			if err := enc.Encode(f.columnIndexes[i][j]); err != nil {
				return fmt.Errorf("encode a column index: %w", err)
			}
			chunk := &f.rowGroups[i].Columns[j]
			chunk.ColumnIndexOffset, chunk.ColumnIndexLength = offset, int32(f.out.n+int64(buf.Len())-offset)
		}
	}
	for i := range f.rowGroups {
		for j := range f.rowGroups[i].Columns {
			offset := f.out.n + int64(buf.Len())
			if err := enc.Encode(&f.offsetIndexes[i][j]); err != nil {
				return fmt.Errorf("encode an offset index: %w", err)
			}
			chunk := &f.rowGroups[i].Columns[j]
			chunk.OffsetIndexOffset, chunk.OffsetIndexLength = offset, int32(f.out.n+int64(buf.Len())-offset)
		}
	}
	footerStart := buf.Len()
	meta := format.FileMetaData{
		// parquet-go's version number: the format's version 2 features.
		Version:          2,
		Schema:           f.layout.elements,
		NumRows:          numRows,
		RowGroups:        f.rowGroups,
		KeyValueMetadata: f.metadata,
		CreatedBy:        f.layout.createdBy,
		ColumnOrders:     f.layout.columnOrders,
	}
	if err := enc.Encode(&meta); err != nil {
		return fmt.Errorf("encode the footer: %w", err)
	}
	footer := buf.AvailableBuffer()
	footer = binary.LittleEndian.AppendUint32(footer, uint32(buf.Len()-footerStart))
	footer = append(footer, parquetMagic...)
	buf.Write(footer)
	_, err := f.out.Write(buf.Bytes())
	return err
}

// writeNew appends new records to the columns, as WriteNew describes them:
// keys (all non-empty) and the meta fields of meta first when meta is not
// nil, then the values of rows. It returns the index of the record at
// fault with its error.
func (f *columnarFile) writeNew(plan *rowPlan, meta *NewRecordMeta, firstSeqNo int64, keys []string, rows [][]any) (int, error) {
	fields := plan.fields
	columns := f.columns
	if meta != nil {
		prefetch.Strings(keys)
		f.appendMeta(meta, firstSeqNo, keys)
		fields, columns = fields[NumMetaFields:], columns[NumMetaFields:]
	}
	// The values are first copied out of the rows, then taken a field at a
	// time: the rows and the values they point to lie anywhere in memory
	// (records come in key order, not input order), and the loads of a
	// short loop that do not wait on each other overlap their cache misses.
	f.flat = f.flat[:0]
	for r, row := range rows {
		if len(row) != len(fields) {
			return r, fmt.Errorf("storage: row has %d values, the schema %d data fields", len(row), len(fields))
		}
		f.flat = append(f.flat, row...)
	}
	for i, n := range fields {
		if n.leaf.codec == codecString {
			// New records come in key order: their strings lie all over
			// memory. Loading them first made a 1M-record bulk insert
			// take 8 to 10% less time (write.BenchmarkBulkInsert).
			prefetch.Column(f.flat, i, len(fields))
		}
		if r, err := columns[i].appendField(n, f.flat, i, len(fields)); err != nil {
			return r, err
		}
	}
	f.rowGroupRows += int64(len(rows))
	return 0, nil
}

// appendMeta appends the meta fields of new records with keys, all
// non-empty, to the first five columns.
func (f *columnarFile) appendMeta(meta *NewRecordMeta, firstSeqNo int64, keys []string) {
	f.columns[MetaCommitTimePos].appendRepeated(meta.CommitTime, len(keys))
	f.columns[MetaPartitionPathPos].appendRepeated(meta.PartitionPath, len(keys))
	f.columns[MetaFileNamePos].appendRepeated(meta.FileName, len(keys))
	seqNos, recordKeys := f.columns[MetaSeqNoPos], f.columns[MetaRecordKeyPos]
	seqNos.reserveRows(len(keys))
	recordKeys.reserveRows(len(keys))
	for i, key := range keys {
		f.seqNo = strconv.AppendInt(append(f.seqNo[:0], meta.SeqNoPrefix...), firstSeqNo+int64(i), 10)
		seqNos.appendPresent(f.seqNo)
		recordKeys.appendPresent(stringBytes(key))
	}
}

// errNewRecordsOnly is the error of writing anything but new records to a
// writer made with Options.NewRecordsOnly.
var errNewRecordsOnly = errors.New("the writer takes new records only (Options.NewRecordsOnly): use WriteNew")

// pageScratch is the memory a page is encoded in, reused page after page.
type pageScratch struct {
	levels     []byte
	values     []byte
	body       []byte
	compressed []byte
	header     bytes.Buffer
	encoder    *thrift.Encoder
}

// encodeHeader returns the thrift encoding of a page header, valid until
// the next call.
func (s *pageScratch) encodeHeader(h *format.PageHeader) ([]byte, error) {
	if s.encoder == nil {
		s.encoder = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&s.header))
	}
	s.header.Reset()
	if err := s.encoder.Encode(h); err != nil {
		return nil, fmt.Errorf("encode a page header: %w", err)
	}
	return s.header.Bytes(), nil
}

// compress returns the page body compressed with codec, or the body
// itself without a codec.
func (s *pageScratch) compress(codec compress.Codec, body []byte) ([]byte, error) {
	if codec == nil {
		return body, nil
	}
	var err error
	s.compressed, err = codec.Encode(s.compressed[:0], body)
	if err != nil {
		return nil, fmt.Errorf("compress a page: %w", err)
	}
	return s.compressed, nil
}

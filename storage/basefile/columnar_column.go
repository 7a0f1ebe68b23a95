package basefile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/internal/grow"
)

// columnIndexSizeLimit is how many bytes of a byte array the column index
// keeps of a page's bounds: parquet-go's default.
const columnIndexSizeLimit = parquet.DefaultColumnIndexSizeLimit

// definitionLevels encodes the definition levels of an optional column of a
// flat schema: 0 for null, 1 for a value.
var definitionLevels = &rle.Encoding{BitWidth: 1}

// columnarColumn is one column of a columnarFile: the page being filled,
// and the pages of the current row group's chunk.
type columnarColumn struct {
	file  *columnarFile
	leaf  *columnarLeaf
	plain encoding.Encoding // of the values of pages without a dictionary
	page  columnarPage
	// err is the error of a page ended while values were being appended;
	// the file fails with it.
	err error

	// canDict is set when the column's chunks may be dictionary-encoded:
	// always for a leaf.dictionary column, and otherwise as long as the
	// dictionary pays, as parquet-mr decides it.
	canDict bool

	// The chunk of the current row group.
	dict           columnarDictionary
	dictOn         bool   // the page being filled takes dictionary indexes
	dictChecked    bool   // whether the dictionary pays is decided
	pages          []byte // data pages, headers and bodies, back to back
	indexer        parquet.ColumnIndexer
	locations      []format.PageLocation // offsets from the first data page
	meta           format.ColumnMetaData // what the pages add up to
	dictPages      int32                 // data pages of dictionary indexes
	plainPages     int32                 // data pages of values
	numRows        int64
	pageLevels     []int64 // the pages' histograms of definition levels
	minValue       []byte  // the chunk's least value, in PLAIN encoding
	maxValue       []byte  // and its greatest
	hasBounds      bool
	hasNaN         bool // a page of the chunk holds a float NaN
	unencodedBytes int64
}

// columnarDictionary is the dictionary of a column chunk: its values in the
// order of their indexes, back to back, and an open-addressing hash table
// of them. The values of a small dictionary lie close together, where a
// map's string keys would each sit in memory of their own.
type columnarDictionary struct {
	slots   []int32 // a power of two of them: 0, or a value's index plus one
	seed    maphash.Seed
	bytes   []byte
	offsets []uint32 // starts with 0, then where each value ends
	last    int32    // the index last looked up, or -1: runs of a value are common
}

// lookup returns the index of s, adding it first if it is new.
func (d *columnarDictionary) lookup(s []byte) int32 {
	if d.last >= 0 && bytes.Equal(d.value(d.last), s) {
		return d.last
	}
	if 2*len(d.offsets) > len(d.slots) {
		d.grow()
	}
	mask := len(d.slots) - 1
	for i := int(maphash.Bytes(d.seed, s)) & mask; ; i = (i + 1) & mask {
		e := d.slots[i] - 1
		if e < 0 {
			e = int32(len(d.offsets) - 1)
			d.slots[i] = e + 1
			d.bytes = append(d.bytes, s...)
			d.offsets = append(d.offsets, uint32(len(d.bytes)))
			d.last = e
			return e
		}
		if bytes.Equal(d.value(e), s) {
			d.last = e
			return e
		}
	}
}

// grow doubles the hash table, at most half full after.
func (d *columnarDictionary) grow() {
	d.slots = make([]int32, max(64, 2*len(d.slots)))
	mask := len(d.slots) - 1
	for e := range int32(len(d.offsets) - 1) {
		i := int(maphash.Bytes(d.seed, d.value(e))) & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = e + 1
	}
}

// value returns the value of index i.
func (d *columnarDictionary) value(i int32) []byte {
	return d.bytes[d.offsets[i]:d.offsets[i+1]]
}

// len returns the number of values.
func (d *columnarDictionary) len() int { return len(d.offsets) - 1 }

// reset empties the dictionary, keeping its memory.
func (d *columnarDictionary) reset() {
	clear(d.slots)
	d.bytes, d.offsets, d.last = d.bytes[:0], append(d.offsets[:0], 0), -1
}

// dictionaryProbe is how many values of a chunk's first page are enough
// to give up its dictionary when nine in ten of them differ.
const dictionaryProbe = 1024

// maxDictionaryBytes is the size of a chunk's dictionary beyond which its
// next pages hold plain values: parquet-mr's parquet.dictionary.page.size.
const maxDictionaryBytes = 1 << 20

// newColumnarColumn returns a column of leaf whose byte arrays are encoded
// with stringEncoding when they take no dictionary; tryDictionary lets a
// byte array column try one. The column takes over the memory of buf.
func newColumnarColumn(f *columnarFile, leaf *columnarLeaf, stringEncoding encoding.Encoding, tryDictionary bool, buf columnarBuffers) *columnarColumn {
	c := &columnarColumn{file: f, leaf: leaf, plain: &parquet.Plain,
		canDict: leaf.dictionary || tryDictionary && leaf.kind == parquet.ByteArray && !leaf.unique,
		page:    buf.page, pages: buf.pages, dict: buf.dict}
	if leaf.kind == parquet.ByteArray && !leaf.plain {
		c.plain = stringEncoding
	}
	if c.canDict {
		c.dict.seed = maphash.MakeSeed()
		c.dict.reset()
	}
	c.page.offsets = append(c.page.offsets[:0], 0)
	c.page.reset()
	c.resetChunk()
	return c
}

// columnarBuffers is the memory of a column's page, chunk and dictionary,
// which a writer done gives to the next one (see columnarFileBuffers).
type columnarBuffers struct {
	page  columnarPage
	pages []byte
	dict  columnarDictionary
}

// buffers returns the column's memory for another column to use. The
// column is done.
func (c *columnarColumn) buffers() columnarBuffers {
	b := columnarBuffers{page: c.page, pages: c.pages, dict: c.dict}
	c.page, c.pages, c.dict = columnarPage{}, nil, columnarDictionary{}
	return b
}

// resetChunk starts the column's chunk of a new row group.
func (c *columnarColumn) resetChunk() {
	c.pages, c.locations, c.pageLevels = c.pages[:0], nil, nil
	// A new indexer each time: the column index of the last one may still
	// point into its memory. Byte arrays are truncated by writeChunk.
	limit := columnIndexSizeLimit
	if c.leaf.kind == parquet.ByteArray || c.leaf.kind == parquet.FixedLenByteArray {
		limit = 0
	}
	c.indexer = c.leaf.typ.NewColumnIndexer(limit)
	c.meta = format.ColumnMetaData{}
	c.dictPages, c.plainPages, c.numRows, c.unencodedBytes = 0, 0, 0, 0
	c.minValue, c.maxValue, c.hasBounds, c.hasNaN = nil, nil, false, false
	c.dictOn, c.dictChecked = c.canDict, c.leaf.dictionary
	if c.canDict {
		c.dict.reset()
	}
}

// pageEncoding returns the encoding of the page being filled.
func (c *columnarColumn) pageEncoding() encoding.Encoding {
	if c.dictOn {
		return &parquet.RLEDictionary
	}
	return c.plain
}

// appendPresent appends a non-null string or byte array, and ends the page
// if it is full.
func (c *columnarColumn) appendPresent(b []byte) {
	c.appendString(b)
	c.page.addPresent(c.leaf.optional, 1)
	c.checkBytes()
}

// appendString appends the bytes of a non-null string or byte array, to be
// counted: see appendPresent.
func (c *columnarColumn) appendString(b []byte) {
	p := &c.page
	if c.dictOn {
		p.indexes = append(p.indexes, c.dict.lookup(b))
		p.dictBytes += len(b)
		if len(p.indexes) == dictionaryProbe && !c.dictChecked && 10*c.dict.len() > 9*dictionaryProbe {
			// Keys, UUIDs...: no use hashing the rest of the page.
			c.dictChecked = true
			c.dropDictionary()
		}
	} else {
		p.bytes = append(grow.Reserve(p.bytes, len(b)), b...)
		p.offsets = append(p.offsets, uint32(len(p.bytes)))
	}
}

// reserveRows makes room in the page for n more values without another
// allocation, in the slice the column's values go to and in its
// definition levels.
func (c *columnarColumn) reserveRows(n int) {
	p := &c.page
	if c.leaf.optional {
		p.defs = grow.Reserve(p.defs, n)
	}
	switch {
	case c.dictOn:
		p.indexes = grow.Reserve(p.indexes, n)
	case c.leaf.kind == parquet.ByteArray || c.leaf.kind == parquet.FixedLenByteArray:
		p.offsets = grow.Reserve(p.offsets, n)
	case c.leaf.kind == parquet.Int32:
		p.ints32 = grow.Reserve(p.ints32, n)
	case c.leaf.kind == parquet.Int64:
		p.ints64 = grow.Reserve(p.ints64, n)
	case c.leaf.kind == parquet.Float:
		p.floats = grow.Reserve(p.floats, n)
	case c.leaf.kind == parquet.Double:
		p.doubles = grow.Reserve(p.doubles, n)
	}
}

// checkBytes ends the page once its byte arrays, or the dictionary, reach
// their limit, without waiting for the end of the records being written:
// a few large values must not make a page of gigabytes, whose offsets
// would not fit 32 bits. A page holds whole values, counted.
func (c *columnarColumn) checkBytes() {
	// While a dictionary is on trial, the page is as large as its values
	// would be without one: if the dictionary does not pay, the page is
	// written with them.
	full := len(c.page.bytes) >= c.file.pageSize ||
		c.dictOn && !c.dictChecked && c.page.dictBytes >= c.file.pageSize ||
		c.dictOn && !c.leaf.dictionary && len(c.dict.bytes) >= maxDictionaryBytes
	if full && c.err == nil {
		c.err = c.endPage()
	}
}

// dictionaryPays tells whether the page's dictionary indexes and the
// dictionary take less room than its plain values would, parquet-mr's test
// at the end of a chunk's first page. A first page of nulls alone does not
// pay, and the chunk goes on without a dictionary, as in parquet-mr.
func (c *columnarColumn) dictionaryPays() bool {
	p := &c.page
	values, entries := len(p.indexes), c.dict.len()
	plain := p.dictBytes + 4*values
	encoded := len(c.dict.bytes) + 4*entries + (values*bits.Len(uint(max(entries-1, 0)))+7)/8
	return encoded < plain
}

// dropDictionary turns the page's dictionary indexes into plain values and
// empties the dictionary: the chunk goes on without one.
func (c *columnarColumn) dropDictionary() {
	p := &c.page
	for _, i := range p.indexes {
		p.bytes = append(grow.Reserve(p.bytes, len(c.dict.value(i))), c.dict.value(i)...)
		p.offsets = append(p.offsets, uint32(len(p.bytes)))
	}
	p.indexes, p.dictBytes = p.indexes[:0], 0
	c.dict.reset()
	c.dictOn = false
}

// appendField appends the values of field n, at index i of each row of
// stride values in flat, to the page, and on error returns the row that
// failed. Strings, longs and doubles are converted in a loop of their own;
// anything else goes through appendValue.
func (c *columnarColumn) appendField(n *valueNode, flat []any, i, stride int) (int, error) {
	p := &c.page
	optional := c.leaf.optional
	codec := n.leaf.codec
	c.reserveRows((len(flat) - i + stride - 1) / stride)
	for r := 0; i < len(flat); r, i = r+1, i+stride {
		v := flat[i]
		switch codec {
		case codecString:
			if s, ok := v.(string); ok {
				c.appendPresent(stringBytes(s))
				continue
			}
		case codecInt64:
			if x, ok := v.(int64); ok {
				p.ints64 = append(p.ints64, x)
				p.addPresent(optional, 1)
				continue
			}
		case codecDouble:
			if x, ok := v.(float64); ok {
				p.doubles = append(p.doubles, x)
				p.addPresent(optional, 1)
				continue
			}
		}
		if err := c.appendValue(n, v); err != nil {
			return r, err
		}
	}
	return 0, nil
}

// appendValue appends v, a value of the field n, to the page.
func (c *columnarColumn) appendValue(n *valueNode, v any) error {
	if v == nil {
		if !c.leaf.optional {
			return n.nullError()
		}
		c.page.addNull()
		return nil
	}
	pv, err := n.encode(v, nil)
	if err != nil {
		return err
	}
	c.appendParquet(pv)
	return nil
}

// appendParquet appends a non-null Parquet value of the column's kind.
func (c *columnarColumn) appendParquet(v parquet.Value) {
	p := &c.page
	switch c.leaf.kind {
	case parquet.Boolean:
		if p.numBools%8 == 0 {
			p.bools = append(p.bools, 0)
		}
		if v.Boolean() {
			p.bools[p.numBools/8] |= 1 << (p.numBools % 8)
		}
		p.numBools++
	case parquet.Int32:
		p.ints32 = append(p.ints32, v.Int32())
	case parquet.Int64:
		p.ints64 = append(p.ints64, v.Int64())
	case parquet.Float:
		p.floats = append(p.floats, v.Float())
	case parquet.Double:
		p.doubles = append(p.doubles, v.Double())
	case parquet.ByteArray, parquet.FixedLenByteArray:
		c.appendPresent(v.ByteArray())
		return
	}
	p.addPresent(c.leaf.optional, 1)
}

// appendRepeated appends n copies of s to a column of strings: with a
// dictionary, one lookup and n indexes.
func (c *columnarColumn) appendRepeated(s string, n int) {
	if !c.dictOn {
		for range n {
			c.appendPresent(stringBytes(s))
		}
		return
	}
	p := &c.page
	c.reserveRows(n)
	i := c.dict.lookup(stringBytes(s))
	for range n {
		p.indexes = append(p.indexes, i)
	}
	p.dictBytes += n * len(s)
	p.addPresent(c.leaf.optional, n)
	c.checkBytes()
}

// endPage encodes the page, if it holds any rows, and adds it to the chunk.
func (c *columnarColumn) endPage() error {
	p, s, codec := &c.page, c.file.page, c.file.codec
	if p.rows == 0 {
		return nil
	}
	if c.dictOn && !c.dictChecked {
		c.dictChecked = true
		if !c.dictionaryPays() {
			c.dropDictionary()
		}
	}
	if err := c.encodeValues(s); err != nil {
		return err
	}
	body := s.body[:0]
	if c.leaf.optional {
		var err error
		if s.levels, err = definitionLevels.EncodeLevels(s.levels[:0], p.defs); err != nil {
			return fmt.Errorf("encode definition levels: %w", err)
		}
		// Data pages v1 put the length of the levels before them.
		body = binary.LittleEndian.AppendUint32(body, uint32(len(s.levels)))
		body = append(body, s.levels...)
	}
	body = append(body, s.values...)
	s.body = body
	compressed, err := s.compress(codec, body)
	if err != nil {
		return err
	}
	if len(body) > math.MaxInt32 || len(compressed) > math.MaxInt32 {
		return fmt.Errorf("a page of %d bytes: Parquet pages hold at most 2 GiB", len(body))
	}
	header, err := s.encodeHeader(&format.PageHeader{
		Type:                 format.DataPage,
		UncompressedPageSize: int32(len(body)),
		CompressedPageSize:   int32(len(compressed)),
		CRC:                  int32(crc32.ChecksumIEEE(compressed)),
		DataPageHeader: thrift.New(format.DataPageHeader{
			NumValues:               int32(p.rows),
			Encoding:                c.pageEncoding().Encoding(),
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
		}),
	})
	if err != nil {
		return err
	}
	c.locations = append(c.locations, format.PageLocation{
		Offset:             int64(len(c.pages)),
		CompressedPageSize: int32(len(header) + len(compressed)),
		FirstRowIndex:      c.numRows,
	})
	c.pages = append(append(grow.Reserve(c.pages, len(header)+len(compressed)), header...), compressed...)
	c.meta.TotalUncompressedSize += int64(len(header) + len(body))
	c.meta.TotalCompressedSize += int64(len(header) + len(compressed))
	c.meta.NumValues += int64(p.rows)
	c.meta.Statistics.NullCount += int64(p.nulls)
	if c.dictOn {
		c.dictPages++
	} else {
		c.plainPages++
	}
	c.numRows += int64(p.rows)
	if c.leaf.optional {
		c.pageLevels = append(c.pageLevels, int64(p.nulls), int64(p.rows-p.nulls))
	}
	c.indexPage()
	p.reset()
	if c.dictOn && len(c.dict.bytes) >= maxDictionaryBytes && !c.leaf.dictionary {
		// The dictionary stays for the pages that use it; the next ones
		// hold their values.
		c.dictOn = false
	}
	return nil
}

// encodeValues encodes the page's non-null values into s.values.
func (c *columnarColumn) encodeValues(s *pageScratch) error {
	p := &c.page
	var err error
	enc := c.plain
	switch {
	case c.dictOn:
		s.values, err = parquet.RLEDictionary.EncodeInt32(s.values[:0], p.indexes)
		c.unencodedBytes += int64(p.dictBytes)
	case c.leaf.kind == parquet.Boolean:
		s.values, err = enc.EncodeBoolean(s.values[:0], p.bools)
	case c.leaf.kind == parquet.Int32:
		s.values, err = enc.EncodeInt32(s.values[:0], p.ints32)
	case c.leaf.kind == parquet.Int64:
		s.values, err = enc.EncodeInt64(s.values[:0], p.ints64)
	case c.leaf.kind == parquet.Float:
		s.values, err = enc.EncodeFloat(s.values[:0], p.floats)
	case c.leaf.kind == parquet.Double:
		s.values, err = enc.EncodeDouble(s.values[:0], p.doubles)
	case c.leaf.kind == parquet.ByteArray:
		s.values, err = enc.EncodeByteArray(s.values[:0], p.bytes, p.offsets)
		c.unencodedBytes += int64(len(p.bytes))
	case c.leaf.kind == parquet.FixedLenByteArray:
		s.values, err = enc.EncodeFixedLenByteArray(s.values[:0], p.bytes, c.leaf.size)
	}
	if err != nil {
		return fmt.Errorf("encode a page: %w", err)
	}
	return nil
}

// indexPage adds the page's bounds to the column index and the chunk's
// statistics.
func (c *columnarColumn) indexPage() {
	p := &c.page
	lo, hi, ok := c.pageBounds()
	nulls := int64(p.nulls)
	if !ok {
		// parquet-go's indexer of fixed-length byte arrays keeps no entry
		// for a null value: it gets zeros, which writeChunk empties.
		null := parquet.Value{}
		if c.leaf.kind == parquet.FixedLenByteArray {
			null = parquet.FixedLenByteArrayValue(make([]byte, c.leaf.size))
		}
		c.indexer.IndexPage(int64(p.rows), nulls, null, null)
		return
	}
	c.indexer.IndexPage(int64(p.rows), nulls, lo, hi)
	switch {
	case c.hasNaN:
		// The chunk gets no bounds (see writeChunk).
	case !c.hasBounds:
		c.minValue, c.maxValue = lo.AppendBytes(c.minValue[:0]), hi.AppendBytes(c.maxValue[:0])
		c.hasBounds = true
	default:
		if c.compare(lo, c.minValue) < 0 {
			c.minValue = lo.AppendBytes(c.minValue[:0])
		}
		if c.compare(hi, c.maxValue) > 0 {
			c.maxValue = hi.AppendBytes(c.maxValue[:0])
		}
	}
}

// compare compares v to the PLAIN encoding of a value of the column, in
// the column's order.
func (c *columnarColumn) compare(v parquet.Value, plain []byte) int {
	if k := c.leaf.kind; k == parquet.ByteArray || k == parquet.FixedLenByteArray {
		return c.compareBytes(v.ByteArray(), plain)
	}
	return c.leaf.typ.Compare(v, c.leaf.kind.Value(plain))
}

// compareBytes compares two byte array values of the column: as signed
// big-endian integers for decimals, as the format orders them, and byte by
// byte otherwise (parquet-go compares decimals byte by byte too, which
// puts -0.01 above 0.01).
func (c *columnarColumn) compareBytes(a, b []byte) int {
	if c.leaf.signed {
		return compareSigned(a, b)
	}
	return bytes.Compare(a, b)
}

// compareSigned compares two big-endian two's complement integers of any
// lengths; an empty one is zero.
func compareSigned(a, b []byte) int {
	neg := func(x []byte) bool { return len(x) > 0 && x[0]&0x80 != 0 }
	if na, nb := neg(a), neg(b); na != nb {
		if na {
			return -1
		}
		return 1
	}
	// Of the same sign: sign-extend the shorter to the longer's length.
	sign := byte(0)
	if neg(a) {
		sign = 0xff
	}
	for n := max(len(a), len(b)); n > 0; n-- {
		x, y := sign, sign
		if i := len(a) - n; i >= 0 {
			x = a[i]
		}
		if i := len(b) - n; i >= 0 {
			y = b[i]
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return 0
}

// pageBounds returns the least and greatest values of the page, by their
// physical type as parquet-go's pages order them, and false when it holds
// nulls only. NaNs count only when the page holds nothing else.
func (c *columnarColumn) pageBounds() (lo, hi parquet.Value, ok bool) {
	p := &c.page
	if p.rows == p.nulls {
		return lo, hi, false
	}
	switch {
	case c.dictOn:
		prev := int32(-1)
		var min, max []byte
		for _, i := range p.indexes {
			if i == prev {
				continue
			}
			prev = i
			v := c.dict.value(i)
			if min == nil || c.compareBytes(v, min) < 0 {
				min = v
			}
			if max == nil || c.compareBytes(v, max) > 0 {
				max = v
			}
		}
		return parquet.ByteArrayValue(min), parquet.ByteArrayValue(max), true
	case c.leaf.kind == parquet.Boolean:
		allSet, anySet := true, false
		for i := range p.numBools {
			set := p.bools[i/8]&(1<<(i%8)) != 0
			allSet, anySet = allSet && set, anySet || set
		}
		return parquet.BooleanValue(allSet), parquet.BooleanValue(anySet), true
	case c.leaf.kind == parquet.Int32:
		return parquet.Int32Value(slices.Min(p.ints32)), parquet.Int32Value(slices.Max(p.ints32)), true
	case c.leaf.kind == parquet.Int64:
		return parquet.Int64Value(slices.Min(p.ints64)), parquet.Int64Value(slices.Max(p.ints64)), true
	case c.leaf.kind == parquet.Float:
		min, max, nan := floatBounds(p.floats)
		c.hasNaN = c.hasNaN || nan
		return parquet.FloatValue(min), parquet.FloatValue(max), true
	case c.leaf.kind == parquet.Double:
		min, max, nan := floatBounds(p.doubles)
		c.hasNaN = c.hasNaN || nan
		return parquet.DoubleValue(min), parquet.DoubleValue(max), true
	default:
		min, max := p.value(0), p.value(0)
		for i := 1; i < len(p.offsets)-1; i++ {
			v := p.value(i)
			if c.compareBytes(v, min) < 0 {
				min = v
			} else if c.compareBytes(v, max) > 0 {
				max = v
			}
		}
		if c.leaf.kind == parquet.FixedLenByteArray {
			return parquet.FixedLenByteArrayValue(min), parquet.FixedLenByteArrayValue(max), true
		}
		return parquet.ByteArrayValue(min), parquet.ByteArrayValue(max), true
	}
}

// floatBounds returns the least and greatest of values, leaving NaNs out
// unless all are NaN, as parquet-go does, and whether any is NaN.
func floatBounds[F float32 | float64](values []F) (min, max F, nan bool) {
	i := 0
	for i < len(values) && math.IsNaN(float64(values[i])) {
		i++
	}
	if i == len(values) {
		return values[0], values[0], true
	}
	nan = i > 0
	min, max = values[i], values[i]
	for _, v := range values[i+1:] {
		switch {
		case math.IsNaN(float64(v)):
			nan = true
		case v < min:
			min = v
		case v > max:
			max = v
		}
	}
	return min, max, nan
}

// columnarChunk is a column chunk written out, with its page indexes.
type columnarChunk struct {
	noColumnIndex bool // the chunk is written without its column index
	column        format.ColumnChunk
	columnIndex   format.ColumnIndex
	offsetIndex   format.OffsetIndex
}

// writeChunk writes the chunk's pages to the file, its dictionary page first,
// and starts a new chunk.
func (c *columnarColumn) writeChunk() (columnarChunk, error) {
	out := c.file.out
	meta := c.meta
	meta.Type = format.Type(c.leaf.kind)
	meta.PathInSchema = c.leaf.path
	meta.Codec = c.file.codecID
	if c.leaf.optional {
		meta.Encoding = append(meta.Encoding, format.RLE)
	}
	if c.dictPages > 0 {
		// The dictionary page's values are PLAIN.
		meta.Encoding = append(meta.Encoding, format.Plain, format.RLEDictionary)
		meta.EncodingStats = append(meta.EncodingStats, format.PageEncodingStats{PageType: format.DataPage, Encoding: format.RLEDictionary, Count: c.dictPages})
	}
	if c.plainPages > 0 {
		meta.Encoding = append(meta.Encoding, c.plain.Encoding())
		meta.EncodingStats = append(meta.EncodingStats, format.PageEncodingStats{PageType: format.DataPage, Encoding: c.plain.Encoding(), Count: c.plainPages})
	}
	slices.Sort(meta.Encoding)
	meta.Encoding = slices.Compact(meta.Encoding)
	if c.dictPages > 0 {
		meta.DictionaryPageOffset = out.n
		n, err := c.writeDictionaryPage()
		if err != nil {
			return columnarChunk{}, err
		}
		meta.TotalUncompressedSize += n.uncompressed
		meta.TotalCompressedSize += n.compressed
		meta.EncodingStats = append(meta.EncodingStats, format.PageEncodingStats{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1})
		slices.SortFunc(meta.EncodingStats, func(a, b format.PageEncodingStats) int {
			return cmp.Or(cmp.Compare(a.PageType, b.PageType), cmp.Compare(a.Encoding, b.Encoding))
		})
	}
	meta.DataPageOffset = out.n
	if _, err := out.Write(c.pages); err != nil {
		return columnarChunk{}, err
	}
	// A chunk holding NaNs gets neither bounds nor a column index, as
	// parquet-mr leaves them unused: readers order NaN above every number
	// (DuckDB, Spark), or below, and bounds without it would have them
	// skip the NaN rows.
	if c.hasBounds && !c.hasNaN {
		// An empty string is a bound too: not nil, which would mean none.
		meta.Statistics.MinValue = append([]byte{}, c.minValue...)
		meta.Statistics.MaxValue = append([]byte{}, c.maxValue...)
	}
	chunk := columnarChunk{columnIndex: c.indexer.ColumnIndex(), noColumnIndex: c.hasNaN}
	ci := &chunk.columnIndex
	// The bounds of a null page are empty, as the format wants them, and
	// pages of nulls alone have no order (the indexer saw zeros).
	for i, null := range ci.NullPages {
		if null {
			ci.MinValues[i], ci.MaxValues[i] = []byte{}, []byte{}
		}
	}
	if !slices.Contains(ci.NullPages, false) {
		ci.BoundaryOrder = format.Unordered
	}
	switch {
	case c.leaf.signed:
		// Decimals stay whole, as parquet-mr leaves them, and the order
		// the indexer found is that of their bytes, not of their values.
		ci.BoundaryOrder = format.Unordered
	case c.leaf.kind == parquet.ByteArray || c.leaf.kind == parquet.FixedLenByteArray:
		truncateBounds(ci)
	}
	meta.SizeStatistics.UnencodedByteArrayDataBytes = c.unencodedBytes
	if c.leaf.optional {
		chunk.columnIndex.DefinitionLevelHistogram = c.pageLevels
		meta.SizeStatistics.DefinitionLevelHistogram = []int64{meta.Statistics.NullCount, meta.NumValues - meta.Statistics.NullCount}
	}
	chunk.offsetIndex.PageLocations = c.locations
	for i := range chunk.offsetIndex.PageLocations {
		chunk.offsetIndex.PageLocations[i].Offset += meta.DataPageOffset
	}
	chunk.column.MetaData = meta
	c.resetChunk()
	return chunk, nil
}

// truncateBounds cuts the byte array bounds of a column index to
// columnIndexSizeLimit bytes, as parquet-go and parquet-mr do: a least
// value to its prefix, a greatest one to its prefix plus one (with carry).
// A greatest value whose prefix is all 0xff bytes has no such bound and
// stays whole (parquet-go's own truncation cuts it below the value). The
// boundary order is then that of the bounds kept, as parquet-go finds it:
// bounds cut alike may be in order where the values were not.
func truncateBounds(ci *format.ColumnIndex) {
	const limit = columnIndexSizeLimit
	for i := range ci.MinValues {
		if len(ci.MinValues[i]) > limit {
			ci.MinValues[i] = ci.MinValues[i][:limit]
		}
		if max := ci.MaxValues[i]; len(max) > limit {
			bound := bytes.Clone(max[:limit])
			for j := limit - 1; j >= 0; j-- {
				if bound[j]++; bound[j] != 0 {
					ci.MaxValues[i] = bound
					break
				}
			}
		}
	}
	byMin, byMax := orderOfBytes(ci.MinValues), orderOfBytes(ci.MaxValues)
	switch {
	case byMin != byMax:
		ci.BoundaryOrder = format.Unordered
	case byMin > 0:
		ci.BoundaryOrder = format.Ascending
	case byMin < 0:
		ci.BoundaryOrder = format.Descending
	default:
		ci.BoundaryOrder = format.Unordered
	}
}

// orderOfBytes tells whether byte arrays are in ascending order (1),
// descending order (-1) or neither (0), as parquet-go's indexers decide
// it: fewer than two are in no order, all equal ones in ascending order.
// The empty bounds of null pages count: they may only break an order.
func orderOfBytes(values [][]byte) int {
	if len(values) < 2 {
		return 0
	}
	first := 0
	for first+1 < len(values) && bytes.Equal(values[first+1], values[0]) {
		first++
	}
	values = values[first:]
	if len(values) < 2 {
		return 1
	}
	step := bytes.Compare(values[0], values[1])
	for i := 2; i < len(values); i++ {
		if c := bytes.Compare(values[i-1], values[i]); c != 0 && c != step {
			return 0
		}
	}
	// A step up is ascending order.
	return -step
}

// pageSizes are the sizes of a page written, its header included.
type pageSizes struct{ uncompressed, compressed int64 }

// writeDictionaryPage writes the chunk's dictionary to the file.
func (c *columnarColumn) writeDictionaryPage() (pageSizes, error) {
	out, s := c.file.out, c.file.page
	var err error
	if s.body, err = parquet.Plain.EncodeByteArray(s.body[:0], c.dict.bytes, c.dict.offsets); err != nil {
		return pageSizes{}, fmt.Errorf("encode a dictionary page: %w", err)
	}
	compressed, err := s.compress(c.file.codec, s.body)
	if err != nil {
		return pageSizes{}, err
	}
	header, err := s.encodeHeader(&format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(s.body)),
		CompressedPageSize:   int32(len(compressed)),
		CRC:                  int32(crc32.ChecksumIEEE(compressed)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{
			NumValues: int32(c.dict.len()),
			Encoding:  format.Plain,
		}),
	})
	if err != nil {
		return pageSizes{}, err
	}
	if _, err := out.Write(header); err != nil {
		return pageSizes{}, err
	}
	if _, err := out.Write(compressed); err != nil {
		return pageSizes{}, err
	}
	return pageSizes{uncompressed: int64(len(header) + len(s.body)), compressed: int64(len(header) + len(compressed))}, nil
}

// columnarPage is the page a column is filling: its definition levels
// and its non-null values, in the buffer of the column's kind.
type columnarPage struct {
	rows  int    // values, nulls included
	nulls int    // nulls among them
	defs  []byte // definition levels, for an optional column

	bytes     []byte   // byte arrays, back to back
	offsets   []uint32 // 0, then where each byte array ends
	ints32    []int32
	ints64    []int64
	floats    []float32
	doubles   []float64
	bools     []byte // bit-packed
	numBools  int
	indexes   []int32 // dictionary indexes
	dictBytes int     // the length of the values of indexes, added up
}

// addPresent counts n values appended.
func (p *columnarPage) addPresent(optional bool, n int) {
	p.rows += n
	if optional {
		for range n {
			p.defs = append(p.defs, 1)
		}
	}
}

// addNull counts a null.
func (p *columnarPage) addNull() {
	p.rows++
	p.nulls++
	p.defs = append(p.defs, 0)
}

// value returns byte array i.
func (p *columnarPage) value(i int) []byte {
	return p.bytes[p.offsets[i]:p.offsets[i+1]]
}

// size returns about how many bytes the page's values take.
func (p *columnarPage) size() int {
	return len(p.defs) + len(p.bytes) + 4*(len(p.offsets)-1) + 4*len(p.ints32) + 8*len(p.ints64) +
		4*len(p.floats) + 8*len(p.doubles) + len(p.bools) + 4*len(p.indexes)
}

// reset empties the page for the next one, keeping its memory.
func (p *columnarPage) reset() {
	p.rows, p.nulls, p.numBools = 0, 0, 0
	p.defs, p.bytes, p.offsets = p.defs[:0], p.bytes[:0], p.offsets[:1]
	p.ints32, p.ints64, p.floats, p.doubles = p.ints32[:0], p.ints64[:0], p.floats[:0], p.doubles[:0]
	p.bools, p.indexes, p.dictBytes = p.bools[:0], p.indexes[:0], 0
}

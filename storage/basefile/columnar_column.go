package basefile

import (
	"hash/maphash"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/internal/grow"
)

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

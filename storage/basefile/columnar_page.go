package basefile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/internal/grow"
)

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

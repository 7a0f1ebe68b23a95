package basefile

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// columnIndexSizeLimit is how many bytes of a byte array the column index
// keeps of a page's bounds: parquet-go's default.
const columnIndexSizeLimit = parquet.DefaultColumnIndexSizeLimit

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

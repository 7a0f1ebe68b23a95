package basefile

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// closeMendingPageIndexes closes parquet-go's writer like pw.Close, but
// mends on the way out what it gets wrong in the column indexes and the
// chunk statistics (see mendBounds), which a reader that skips pages and
// row groups by them trusts. The file's tail (the page indexes and the
// footer) goes to memory, is mended, and is written out with the offsets
// that follow.
func (w *Writer) closeMendingPageIndexes() error {
	if err := w.pw.Flush(); err != nil {
		return err
	}
	out, tailStart := w.count.w, w.count.n
	var tail bytes.Buffer
	w.count.w = &tail
	err := w.pw.Close()
	w.count.w = out
	if err != nil {
		return err
	}
	fixed, err := mendPageIndexes(w.pw.File().Metadata(), tail.Bytes(), tailStart, w.holdsNaN)
	if err != nil {
		return fmt.Errorf("mend the page indexes: %w", err)
	}
	w.count.n = tailStart
	_, err = w.count.Write(fixed)
	return err
}

// mendPageIndexes returns the tail of a Parquet file, which begins at
// offset start of the file, with the column indexes and the statistics of
// meta's chunks mended (see mendBounds), or tail itself when none needs
// it. The chunks for which holdsNaN(row group, row groups, leaf column)
// reports that they hold a float NaN lose their bounds and their column index, as
// parquet-mr leaves them unused: readers order NaN above every number
// (DuckDB, Spark), or below, and bounds without it would have them skip
// the NaN rows. The column indexes must come first, then the offset
// indexes, then the footer, as parquet-go writes them; meta is updated.
func mendPageIndexes(meta *format.FileMetaData, tail []byte, start int64, holdsNaN func(rowGroup, rowGroups, column int) bool) ([]byte, error) {
	var chunks []*format.ColumnChunk
	for i := range meta.RowGroups {
		for j := range meta.RowGroups[i].Columns {
			chunks = append(chunks, &meta.RowGroups[i].Columns[j])
		}
	}
	if len(chunks) == 0 {
		return tail, nil
	}
	decimals := decimalWidths(meta.Schema)
	indexes := make([]format.ColumnIndex, len(chunks))
	dropped := make([]bool, len(chunks))
	mended := false
	at := chunks[0].ColumnIndexOffset
	for i, c := range chunks {
		if c.ColumnIndexOffset != at || c.ColumnIndexOffset < start || c.ColumnIndexOffset+int64(c.ColumnIndexLength) > start+int64(len(tail)) {
			return nil, fmt.Errorf("column index %d at %d, not where the indexes follow each other", i, c.ColumnIndexOffset)
		}
		at += int64(c.ColumnIndexLength)
		raw := tail[c.ColumnIndexOffset-start : at-start]
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw, &indexes[i]); err != nil {
			return nil, fmt.Errorf("column index %d: %w", i, err)
		}
		columns := len(meta.RowGroups[0].Columns)
		column := i % columns
		if t := c.MetaData.Type; (t == format.Float || t == format.Double) && holdsNaN(i/columns, len(meta.RowGroups), column) {
			st := &c.MetaData.Statistics
			st.MinValue, st.MaxValue, st.Min, st.Max = nil, nil, nil, nil
			dropped[i], mended = true, true
			continue
		}
		if mendBounds(&c.MetaData, &indexes[i], decimals[column]) {
			mended = true
		}
	}
	if !mended {
		return tail, nil
	}
	offsetIndexes, last := at, chunks[len(chunks)-1]
	offsetIndexesEnd := last.OffsetIndexOffset + int64(last.OffsetIndexLength)
	if chunks[0].OffsetIndexOffset != offsetIndexes || offsetIndexesEnd > start+int64(len(tail)) {
		return nil, fmt.Errorf("the offset indexes do not follow the column indexes")
	}
	var fixed bytes.Buffer
	fixed.Write(tail[:chunks[0].ColumnIndexOffset-start])
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&fixed))
	for i, c := range chunks {
		if dropped[i] {
			c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0
			continue
		}
		offset := start + int64(fixed.Len())
		if err := enc.Encode(&indexes[i]); err != nil {
			return nil, fmt.Errorf("column index %d: %w", i, err)
		}
		c.ColumnIndexOffset, c.ColumnIndexLength = offset, int32(start+int64(fixed.Len())-offset)
	}
	shift := start + int64(fixed.Len()) - offsetIndexes
	fixed.Write(tail[offsetIndexes-start : offsetIndexesEnd-start])
	for _, c := range chunks {
		c.OffsetIndexOffset += shift
	}
	footerStart := fixed.Len()
	if err := enc.Encode(meta); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	fixed.Write(binary.LittleEndian.AppendUint32(nil, uint32(fixed.Len()-footerStart)))
	fixed.WriteString(parquetMagic)
	return fixed.Bytes(), nil
}

// decimalWidths returns, by leaf column, the byte width of the values of
// the decimal columns stored as byte arrays in a file of the schema
// elements: the fixed length, or the bytes that the precision needs.
func decimalWidths(elements []format.SchemaElement) map[int]int {
	widths := map[int]int{}
	column := 0
	for _, e := range elements[min(1, len(elements)):] {
		if e.NumChildren.Valid && e.NumChildren.V > 0 {
			continue
		}
		_, logicalDecimal := e.LogicalType.Value.(*format.DecimalType)
		decimal := logicalDecimal || e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Decimal
		switch {
		case !decimal || !e.Type.Valid:
		case e.Type.V == format.FixedLenByteArray && e.TypeLength.Valid && e.TypeLength.V > 0:
			widths[column] = int(e.TypeLength.V)
		case e.Type.V == format.ByteArray && e.Precision.Valid:
			widths[column] = decimalBytes(int(e.Precision.V))
		}
		column++
	}
	return widths
}

// widenDecimalBounds gives the pages of a decimal byte array chunk bounds
// that hold every value of width bytes, and the chunk no least or greatest
// value. parquet-go orders decimals byte by byte, which puts -0.01 above
// 0.01, where the format orders them as signed integers: its bounds would
// have readers skip pages and row groups that hold what they look for.
func widenDecimalBounds(chunk *format.ColumnMetaData, ci *format.ColumnIndex, width int) {
	lo := append([]byte{0x80}, make([]byte, width-1)...)
	hi := append([]byte{0x7f}, bytes.Repeat([]byte{0xff}, width-1)...)
	for i, null := range ci.NullPages {
		if i < len(ci.MinValues) && i < len(ci.MaxValues) && !null {
			ci.MinValues[i], ci.MaxValues[i] = lo, hi
		}
	}
	ci.BoundaryOrder = format.Unordered
	chunk.Statistics.MinValue, chunk.Statistics.MaxValue = nil, nil
	chunk.Statistics.Min, chunk.Statistics.Max = nil, nil
}

// mendBounds mends what parquet-go's writer gets wrong in the column index
// ci of a chunk and in the chunk's statistics, and tells whether it had
// to: the bounds it leaves out for the null pages of a fixed-length
// column, the greatest byte arrays it cuts below their value, and the
// bounds of decimals stored in byte arrays of decimalWidth bytes (0 for
// other columns), which it orders byte by byte.
func mendBounds(chunk *format.ColumnMetaData, ci *format.ColumnIndex, decimalWidth int) bool {
	mended := false
	switch chunk.Type {
	case format.FixedLenByteArray, format.ByteArray:
		if chunk.Type == format.FixedLenByteArray {
			mended = alignBounds(ci)
		}
		if decimalWidth > 0 {
			widenDecimalBounds(chunk, ci, decimalWidth)
			return true
		}
		// A cut greatest value beginning with 16 0xff bytes is those bytes
		// alone, below the value; the chunk's greatest value is a bound.
		allOnes := bytes.Repeat([]byte{0xff}, columnIndexSizeLimit)
		for i, max := range ci.MaxValues {
			if i < len(ci.NullPages) && !ci.NullPages[i] && bytes.Equal(max, allOnes) && len(chunk.Statistics.MaxValue) > len(max) &&
				bytes.HasPrefix(chunk.Statistics.MaxValue, allOnes) {
				ci.MaxValues[i] = bytes.Clone(chunk.Statistics.MaxValue)
				mended = true
			}
		}
	}
	return mended
}

// alignBounds gives the null pages of a column index whose bounds leave
// them out empty bounds, and tells whether it had to.
func alignBounds(ci *format.ColumnIndex) bool {
	nonNull := 0
	for _, null := range ci.NullPages {
		if !null {
			nonNull++
		}
	}
	if len(ci.MinValues) == len(ci.NullPages) || len(ci.MinValues) != nonNull || len(ci.MaxValues) != nonNull {
		return false
	}
	mins, maxes := make([][]byte, len(ci.NullPages)), make([][]byte, len(ci.NullPages))
	next := 0
	for i, null := range ci.NullPages {
		if null {
			mins[i], maxes[i] = []byte{}, []byte{}
			continue
		}
		mins[i], maxes[i] = ci.MinValues[next], ci.MaxValues[next]
		next++
	}
	ci.MinValues, ci.MaxValues = mins, maxes
	return true
}

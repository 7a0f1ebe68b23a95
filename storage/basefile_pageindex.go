package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// hasFixedColumns tells whether a Parquet schema has a fixed-length byte
// array column.
func hasFixedColumns(schema *parquet.Schema) bool {
	for _, path := range schema.Columns() {
		leaf, _ := schema.Lookup(path...)
		if leaf.Node.Type().Kind() == parquet.FixedLenByteArray {
			return true
		}
	}
	return false
}

// closeAligningColumnIndexes closes parquet-go's writer like pw.Close, but
// mends the column indexes of fixed-length byte array columns on the way
// out: parquet-go's indexer keeps no bounds for their null pages, so the
// bounds of every later page sit one place early, and a reader that skips
// pages by them may skip the wrong ones. The file's tail (the page indexes
// and the footer) is written to memory, the bounds are put back in line
// with empty ones for the null pages, as the format wants them, and the
// tail is written out with the offsets that follow.
func (w *BaseFileWriter) closeAligningColumnIndexes() error {
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
	fixed, err := alignColumnIndexes(w.pw.File().Metadata(), tail.Bytes(), tailStart)
	if err != nil {
		return fmt.Errorf("align the column indexes: %w", err)
	}
	w.count.n = tailStart
	_, err = w.count.Write(fixed)
	return err
}

// alignColumnIndexes returns the tail of a Parquet file, which begins at
// offset start of the file, with the column indexes of meta's fixed-length
// columns aligned (see closeAligningColumnIndexes), or tail itself when
// none needs it. The column indexes must come first, then the offset
// indexes, then the footer, as parquet-go writes them; meta is updated.
func alignColumnIndexes(meta *format.FileMetaData, tail []byte, start int64) ([]byte, error) {
	var chunks []*format.ColumnChunk
	for i := range meta.RowGroups {
		for j := range meta.RowGroups[i].Columns {
			chunks = append(chunks, &meta.RowGroups[i].Columns[j])
		}
	}
	if len(chunks) == 0 {
		return tail, nil
	}
	indexes := make([]format.ColumnIndex, len(chunks))
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
		if c.MetaData.Type == format.FixedLenByteArray && alignBounds(&indexes[i]) {
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

package read

import (
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// rowRange is the rows [start, end) of a row group.
type rowRange struct{ start, end int64 }

// pageIndex is the column index and offset index of one column chunk.
type pageIndex struct {
	leaf    *leafReader
	col     int // read column
	columns parquet.ColumnIndex
	offsets parquet.OffsetIndex
}

// pageRanges returns the runs of rows of row group rg that the filter may
// be true for, judged by the page statistics (the column index) of the
// filter's flat columns, and by src for the other columns; or nil when
// page statistics rule out no row (or there are none).
//
// The page starts of all those columns cut the row group into runs that
// lie each within one page of every such column; a run is kept when the
// filter may be true given the statistics of those pages.
func (f *fileReader) pageRanges(rg parquet.RowGroup, src rangeSource) []rowRange {
	var idx []pageIndex
	for col, p := range f.plans {
		if !f.filterCols[col] || !p.flat() || p.constant != nil {
			continue
		}
		l := p.leaves[0]
		chunk := rg.ColumnChunks()[l.col]
		ci, err := chunk.ColumnIndex()
		if err != nil || ci == nil || ci.NumPages() < 2 {
			continue
		}
		oi, err := chunk.OffsetIndex()
		if err != nil || oi == nil || oi.NumPages() != ci.NumPages() {
			continue
		}
		idx = append(idx, pageIndex{leaf: l, col: col, columns: ci, offsets: oi})
	}
	if len(idx) == 0 {
		return nil
	}
	numRows := rg.NumRows()
	var cuts []int64
	for _, x := range idx {
		for i := range x.offsets.NumPages() {
			cuts = append(cuts, x.offsets.FirstRowIndex(i))
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(append(cuts, numRows))
	var ranges []rowRange
	pruned := false
	page := make([]int, len(idx)) // by index: the page holding the run
	for i := 0; i+1 < len(cuts); i++ {
		start, end := cuts[i], cuts[i+1]
		if start < 0 || start >= end || start >= numRows {
			continue
		}
		for j, x := range idx {
			for page[j]+1 < x.offsets.NumPages() && x.offsets.FirstRowIndex(page[j]+1) <= start {
				page[j]++
			}
		}
		pageSrc := func(col int) colRange {
			for j, x := range idx {
				if x.col == col {
					return x.leaf.pageRange(x.columns, page[j])
				}
			}
			return src(col)
		}
		if !f.filter.possible(pageSrc).has(tTrue) {
			pruned = true
			continue
		}
		if n := len(ranges); n > 0 && ranges[n-1].end == start {
			ranges[n-1].end = end
		} else {
			ranges = append(ranges, rowRange{start, end})
		}
	}
	if !pruned {
		return nil
	}
	if ranges == nil {
		ranges = []rowRange{} // every row ruled out
	}
	return ranges
}

// pageRange describes the values of page i of a column chunk by its column
// index.
func (l *leafReader) pageRange(ci parquet.ColumnIndex, i int) colRange {
	if ci.NullPage(i) {
		return colRange{known: true, mayNull: true}
	}
	r := colRange{known: true, mayValue: true, mayNull: ci.NullCount(i) > 0}
	maxV := ci.MaxValue(i)
	lo, okLo := l.conv.scalarOf(ci.MinValue(i), l.typ)
	hi, okHi := l.conv.scalarOf(maxV, l.typ)
	// Writers truncate long byte-array bounds, rounding a maximum up; one
	// of all 0xff bytes could not be rounded up and bounds nothing.
	r.hasBounds = okLo && okHi && !math.IsNaN(lo.f) && !math.IsNaN(hi.f) && !allOnes(maxV)
	r.min, r.max = lo, hi
	return r
}

// allOnes reports whether v is a byte array of 0xff bytes only.
func allOnes(v parquet.Value) bool {
	if v.Kind() != parquet.ByteArray && v.Kind() != parquet.FixedLenByteArray {
		return false
	}
	b := v.ByteArray()
	for _, c := range b {
		if c != 0xff {
			return false
		}
	}
	return len(b) > 0
}

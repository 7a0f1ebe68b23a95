package basefile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// openParquet opens the Parquet file at path with parquet-go, page indexes
// included.
func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(false))
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// chunkValues returns the values of a column chunk, nulls included, read
// page by page with parquet-go, and the number of values of each page.
func chunkValues(t *testing.T, chunk parquet.ColumnChunk) ([]parquet.Value, []int64) {
	t.Helper()
	pages := chunk.Pages()
	defer pages.Close()
	var values []parquet.Value
	var counts []int64
	buf := make([]parquet.Value, 256)
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return values, counts
		}
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, page.NumValues())
		r := page.Values()
		for {
			n, err := r.ReadValues(buf)
			for _, v := range buf[:n] {
				values = append(values, v.Clone())
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// columnOrder is how the values of a column are ordered: by their physical
// kind, and for decimal byte arrays as signed integers.
type columnOrder struct {
	kind   parquet.Kind
	signed bool
}

// comparePhysical compares two non-null values of a column in its order:
// false before true, integers signed, floats by value, byte arrays byte by
// byte, decimals as signed big-endian integers.
func comparePhysical(o columnOrder, a, b parquet.Value) int {
	switch o.kind {
	case parquet.Boolean:
		return cmp.Compare(boolInt(a.Boolean()), boolInt(b.Boolean()))
	case parquet.Int32:
		return cmp.Compare(a.Int32(), b.Int32())
	case parquet.Int64:
		return cmp.Compare(a.Int64(), b.Int64())
	case parquet.Float:
		return cmp.Compare(a.Float(), b.Float())
	case parquet.Double:
		return cmp.Compare(a.Double(), b.Double())
	}
	if o.signed {
		return compareSigned(a.ByteArray(), b.ByteArray())
	}
	return bytes.Compare(a.ByteArray(), b.ByteArray())
}

// boolInt returns 1 for true and 0 for false, the order of booleans.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isNaN reports whether v is a float NaN.
func isNaN(kind parquet.Kind, v parquet.Value) bool {
	switch kind {
	case parquet.Float:
		return math.IsNaN(float64(v.Float()))
	case parquet.Double:
		return math.IsNaN(v.Double())
	}
	return false
}

// valueBounds returns the least and greatest non-null values, NaNs left out
// unless all are NaN, how many are null, and false when all are null.
func valueBounds(o columnOrder, values []parquet.Value) (lo, hi parquet.Value, nulls int, ok bool) {
	nanOnly := true
	for _, v := range values {
		if v.IsNull() {
			nulls++
			continue
		}
		nan := isNaN(o.kind, v)
		switch {
		case !ok || (nanOnly && !nan):
			lo, hi, ok, nanOnly = v, v, true, nan
		case nan:
		default:
			if comparePhysical(o, v, lo) < 0 {
				lo = v
			}
			if comparePhysical(o, v, hi) > 0 {
				hi = v
			}
		}
	}
	return lo, hi, nulls, ok
}

// checkBound checks that bound, a PLAIN-encoded page or chunk bound of a
// column of kind, is the bound want (the least value when min is set, the
// greatest otherwise) of the non-null values, or for byte arrays longer
// than limit (when limit > 0) a truncation of it still below (above) every
// value.
func checkBound(t *testing.T, at string, o columnOrder, bound []byte, want parquet.Value, min bool, values []parquet.Value, limit int) {
	t.Helper()
	kind := o.kind
	if o.signed {
		// Decimals are never cut.
		limit = 0
	}
	what := map[bool]string{true: "min", false: "max"}[min]
	b := kind.Value(bound)
	if isNaN(kind, want) {
		if !isNaN(kind, b) {
			t.Errorf("%s: %s %v, want NaN: all values are NaN", at, what, b)
		}
		return
	}
	byteArray := kind == parquet.ByteArray || kind == parquet.FixedLenByteArray
	if !byteArray || limit <= 0 || len(want.ByteArray()) <= limit {
		if comparePhysical(o, b, want) != 0 || isNaN(kind, b) {
			t.Errorf("%s: %s %.60q, want %.60q", at, what, bound, want.Bytes())
		}
		return
	}
	if min && !bytes.HasPrefix(want.ByteArray(), bound) {
		t.Errorf("%s: min %.60q is no prefix of the least value %.60q", at, bound, want.ByteArray())
	}
	for _, v := range values {
		if v.IsNull() {
			continue
		}
		if c := comparePhysical(o, v, b); min && c < 0 || !min && c > 0 {
			t.Errorf("%s: truncated %s %.60q is not a bound of %.60q", at, what, bound, v.ByteArray())
			return
		}
	}
}

// checkPageIndexes checks the column chunks of the Parquet file at path
// against the values they hold: for every page of every chunk, the column
// index's null count, null-page flag, definition level histogram and
// bounds (the page's least and greatest values, truncated beyond 16 bytes
// as parquet-go does); for every chunk, its statistics and value count;
// and that the offset index and the chunk's offsets point at the page
// headers actually written, back to back, whose sizes add up to the
// chunk's.
func checkPageIndexes(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf := openParquet(t, path)
	meta := pf.Metadata()
	offsetIndexes := pf.OffsetIndexes()
	leaves := pf.Schema().Columns()
	for i, rg := range pf.RowGroups() {
		rgMeta := meta.RowGroups[i]
		var total int64
		for j, chunk := range rg.ColumnChunks() {
			at := fmt.Sprintf("row group %d column %d %v", i, j, leaves[j])
			k := i*len(rgMeta.Columns) + j
			cm := rgMeta.Columns[j].MetaData
			kind := parquet.Kind(cm.Type)
			ci, oi := readColumnIndex(t, data, &rgMeta.Columns[j]), offsetIndexes[k]
			values, counts := chunkValues(t, chunk)
			total += cm.TotalCompressedSize
			if int64(len(values)) != rgMeta.NumRows || cm.NumValues != rgMeta.NumRows {
				t.Errorf("%s: %d values read, %d in the metadata, want the row group's %d", at, len(values), cm.NumValues, rgMeta.NumRows)
				continue
			}
			locs := oi.PageLocations
			n := len(locs)
			if slices.ContainsFunc(values, isNaNValue) {
				// A chunk holding NaNs has neither bounds nor a column index.
				if rgMeta.Columns[j].ColumnIndexOffset != 0 || cm.Statistics.MinValue != nil || cm.Statistics.MaxValue != nil {
					t.Errorf("%s: NaNs, and a column index at %d, bounds %x and %x", at, rgMeta.Columns[j].ColumnIndexOffset, cm.Statistics.MinValue, cm.Statistics.MaxValue)
				}
				checkChunkLayout(t, at, data, cm, locs, counts)
				continue
			}
			if len(counts) != n || len(ci.NullPages) != n || len(ci.NullCounts) != n {
				t.Errorf("%s: %d pages read, %d locations, column index of %d null flags and %d null counts", at, len(counts), n, len(ci.NullPages), len(ci.NullCounts))
				continue
			}
			// Null pages too have bounds in the column index, empty ones.
			bounds := len(ci.MinValues) == n && len(ci.MaxValues) == n
			if !bounds {
				t.Errorf("%s: %d pages, but the column index has %d min and %d max values", at, n, len(ci.MinValues), len(ci.MaxValues))
			}
			leaf, _ := pf.Schema().Lookup(leaves[j]...)
			optional := leaf.MaxDefinitionLevel > 0
			order := columnOrder{kind: kind, signed: isDecimal(leaf.Node.Type())}
			for p, loc := range locs {
				end := rgMeta.NumRows
				if p+1 < n {
					end = locs[p+1].FirstRowIndex
				}
				if (p == 0 && loc.FirstRowIndex != 0) || end <= loc.FirstRowIndex || end-loc.FirstRowIndex != counts[p] {
					t.Errorf("%s page %d: rows [%d, %d), %d values read", at, p, loc.FirstRowIndex, end, counts[p])
					continue
				}
				page := values[loc.FirstRowIndex:end]
				lo, hi, nulls, ok := valueBounds(order, page)
				pat := fmt.Sprintf("%s page %d", at, p)
				if ci.NullCounts[p] != int64(nulls) || ci.NullPages[p] != !ok {
					t.Errorf("%s: %d nulls, null page %v; want %d, %v", pat, ci.NullCounts[p], ci.NullPages[p], nulls, !ok)
				}
				if optional && (len(ci.DefinitionLevelHistogram) != 2*n || ci.DefinitionLevelHistogram[2*p] != int64(nulls) || ci.DefinitionLevelHistogram[2*p+1] != int64(len(page)-nulls)) {
					t.Errorf("%s: definition level histogram %v, want %d nulls of %d", pat, ci.DefinitionLevelHistogram, nulls, len(page))
				}
				if ok && bounds {
					checkBound(t, pat, order, ci.MinValues[p], lo, true, page, columnIndexSizeLimit)
					checkBound(t, pat, order, ci.MaxValues[p], hi, false, page, columnIndexSizeLimit)
				}
			}
			lo, hi, nulls, ok := valueBounds(order, values)
			if cm.Statistics.NullCount != int64(nulls) {
				t.Errorf("%s: statistics count %d nulls, want %d", at, cm.Statistics.NullCount, nulls)
			}
			if ok {
				checkBound(t, at+" statistics", order, cm.Statistics.MinValue, lo, true, values, 0)
				checkBound(t, at+" statistics", order, cm.Statistics.MaxValue, hi, false, values, 0)
			} else if cm.Statistics.MinValue != nil || cm.Statistics.MaxValue != nil {
				t.Errorf("%s: bounds %q and %q of nulls only", at, cm.Statistics.MinValue, cm.Statistics.MaxValue)
			}
			checkChunkLayout(t, at, data, cm, locs, counts)
		}
		if total != rgMeta.TotalCompressedSize {
			t.Errorf("row group %d: %d bytes, its chunks %d", i, rgMeta.TotalCompressedSize, total)
		}
	}
}

// isNaNValue tells whether v is a float or double NaN.
func isNaNValue(v parquet.Value) bool {
	switch v.Kind() {
	case parquet.Float:
		return math.IsNaN(float64(v.Float()))
	case parquet.Double:
		return math.IsNaN(v.Double())
	}
	return false
}

// readColumnIndex decodes the column index of chunk from the file's data,
// or returns an empty one for a chunk without: parquet-go reads no column
// index of a file whose first chunk has none.
func readColumnIndex(t *testing.T, data []byte, chunk *format.ColumnChunk) format.ColumnIndex {
	t.Helper()
	var ci format.ColumnIndex
	if chunk.ColumnIndexOffset == 0 {
		return ci
	}
	raw := data[chunk.ColumnIndexOffset : chunk.ColumnIndexOffset+int64(chunk.ColumnIndexLength)]
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw, &ci); err != nil {
		t.Fatalf("column index at %d: %v", chunk.ColumnIndexOffset, err)
	}
	return ci
}

// checkWidenedDecimalBounds checks the one decimal column of the file at
// path as parquet-go's writer leaves it once mended (widenDecimalBounds):
// every page's bounds hold its values in their signed order, and the
// chunks have no least or greatest value.
func checkWidenedDecimalBounds(t *testing.T, path string) {
	t.Helper()
	pf := openParquet(t, path)
	columnIndexes, offsetIndexes := pf.ColumnIndexes(), pf.OffsetIndexes()
	for i, rg := range pf.RowGroups() {
		chunk := rg.ColumnChunks()[0]
		cm := pf.Metadata().RowGroups[i].Columns[0].MetaData
		if cm.Statistics.MinValue != nil || cm.Statistics.MaxValue != nil {
			t.Errorf("row group %d: decimal bounds %x and %x, want none", i, cm.Statistics.MinValue, cm.Statistics.MaxValue)
		}
		values, _ := chunkValues(t, chunk)
		ci, locs := columnIndexes[i], offsetIndexes[i].PageLocations
		for p, loc := range locs {
			end := int64(len(values))
			if p+1 < len(locs) {
				end = locs[p+1].FirstRowIndex
			}
			for _, v := range values[loc.FirstRowIndex:end] {
				if !v.IsNull() && (compareSigned(ci.MinValues[p], v.ByteArray()) > 0 || compareSigned(ci.MaxValues[p], v.ByteArray()) < 0) {
					t.Errorf("row group %d page %d: bounds %x and %x do not hold %x", i, p, ci.MinValues[p], ci.MaxValues[p], v.ByteArray())
				}
			}
		}
	}
}

// checkChunkLayout checks that a chunk's pages lie where its metadata and
// offset index say, in the file's bytes data: the dictionary page (if any)
// at DictionaryPageOffset right before the first data page, the data pages
// at their locations, back to back from DataPageOffset, each a v1 data page
// header of counts[p] values whose body's size and CRC match, all adding up
// to TotalCompressedSize.
func checkChunkLayout(t *testing.T, at string, data []byte, cm format.ColumnMetaData, locs []format.PageLocation, counts []int64) {
	t.Helper()
	var dictSize int64
	if cm.DictionaryPageOffset != 0 {
		h, size := readPageHeader(t, at+" dictionary page", data, cm.DictionaryPageOffset)
		if h == nil {
			return
		}
		if h.Type != format.DictionaryPage || !h.DictionaryPageHeader.Valid || h.DictionaryPageHeader.V.Encoding != format.Plain {
			t.Errorf("%s: page at the dictionary offset: %+v", at, h)
		}
		dictSize = size
		if cm.DictionaryPageOffset+size != cm.DataPageOffset {
			t.Errorf("%s: dictionary page [%d, %d), data pages from %d", at, cm.DictionaryPageOffset, cm.DictionaryPageOffset+size, cm.DataPageOffset)
		}
	}
	if len(locs) == 0 || locs[0].Offset != cm.DataPageOffset {
		t.Errorf("%s: data pages from %d, first location %+v", at, cm.DataPageOffset, locs)
		return
	}
	sum := dictSize
	for p, loc := range locs {
		pat := fmt.Sprintf("%s page %d", at, p)
		if p > 0 && loc.Offset != locs[p-1].Offset+int64(locs[p-1].CompressedPageSize) {
			t.Errorf("%s: at %d, the previous page ends at %d", pat, loc.Offset, locs[p-1].Offset+int64(locs[p-1].CompressedPageSize))
		}
		sum += int64(loc.CompressedPageSize)
		h, size := readPageHeader(t, pat, data, loc.Offset)
		if h == nil {
			continue
		}
		if h.Type != format.DataPage || !h.DataPageHeader.Valid || int64(h.DataPageHeader.V.NumValues) != counts[p] || size != int64(loc.CompressedPageSize) {
			t.Errorf("%s: header %+v of %d bytes, want a data page v1 of %d values and %d bytes", pat, h, size, counts[p], loc.CompressedPageSize)
			continue
		}
		// A chunk with a dictionary page may go on without the dictionary
		// once it fills up; one without has no dictionary pages.
		if want := cm.Encoding; !slices.Contains(want, h.DataPageHeader.V.Encoding) || cm.DictionaryPageOffset == 0 && h.DataPageHeader.V.Encoding == format.RLEDictionary {
			t.Errorf("%s: encoding %v, the chunk's %v", pat, h.DataPageHeader.V.Encoding, want)
		}
	}
	if sum != cm.TotalCompressedSize {
		t.Errorf("%s: pages of %d bytes, the chunk %d", at, sum, cm.TotalCompressedSize)
	}
}

// readPageHeader decodes the page header at offset of data and checks the
// CRC of the body after it; it returns the header and the page's size,
// header included, or nil after reporting a header that does not decode.
func readPageHeader(t *testing.T, at string, data []byte, offset int64) (*format.PageHeader, int64) {
	t.Helper()
	if offset < 4 || offset >= int64(len(data)) {
		t.Errorf("%s: offset %d outside the file of %d bytes", at, offset, len(data))
		return nil, 0
	}
	r := new(thrift.CompactProtocol).NewReaderFromBytes(data[offset:])
	var h format.PageHeader
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		t.Errorf("%s: no page header at %d: %v", at, offset, err)
		return nil, 0
	}
	start := offset + int64(r.BytesRead())
	end := start + int64(h.CompressedPageSize)
	if end > int64(len(data)) {
		t.Errorf("%s: page body [%d, %d) outside the file", at, start, end)
		return nil, 0
	}
	if crc := int32(crc32.ChecksumIEEE(data[start:end])); crc != h.CRC {
		t.Errorf("%s: CRC %x, the body's %x", at, h.CRC, crc)
	}
	return &h, end - offset
}

// TestColumnarPageIndexes writes columns whose pages hold telling values
// with the columnar writer, and checks every page's column index entry,
// the chunk statistics and the offset index against the values read back
// (checkPageIndexes), and that the column got the pages the case needs.
func TestColumnarPageIndexes(t *testing.T) {
	for _, tc := range pageIndexCases() {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, true) })
	}
}

// TestParquetGoWriterPageIndexes checks the page indexes of the files
// parquet-go's writer writes, which the base file writer mends on Close
// (closeMendingPageIndexes).
func TestParquetGoWriterPageIndexes(t *testing.T) {
	for _, tc := range pageIndexCases() {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, false) })
	}
}

// pageIndexCase is a column of one type and its values, which must make
// at least pages pages of 1 KiB.
type pageIndexCase struct {
	name   string
	typ    *Type
	values []any
	pages  int
}

// pageIndexCases are the cases of TestColumnarPageIndexes.
func pageIndexCases() []pageIndexCase {
	repeat := func(n int, v any) []any { return slices.Repeat([]any{v}, n) }
	concat := func(parts ...[]any) []any { return slices.Concat(parts...) }
	nan := math.NaN()
	return []pageIndexCase{
		{name: "ints with extremes", typ: Primitive(KindInt), pages: 3,
			values: concat(repeat(300, int32(5)), []any{int32(math.MinInt32)}, repeat(300, int32(-1)), []any{int32(math.MaxInt32)}, repeat(300, int32(0)))},
		{name: "nullable longs, a null page between", typ: Nullable(Primitive(KindLong)), pages: 3,
			values: concat(repeat(200, int64(-7)), repeat(400, nil), repeat(200, int64(math.MaxInt64)))},
		{name: "booleans all true, then mixed", typ: Primitive(KindBoolean), pages: 2,
			values: concat(repeat(9000, true), repeat(5000, false), repeat(5000, true))},
		{name: "strings longer than the index keeps", typ: Nullable(Primitive(KindString)), pages: 3,
			values: concat(repeat(100, "abcdefghijklmnopqrstuvwxyz"), repeat(100, "abcdefghijklmnopZZZ"), []any{nil, ""}, repeat(98, "\xff\xfeé世界 beyond sixteen bytes"))},
		{name: "empty strings only", typ: Primitive(KindString), pages: 1, values: repeat(100, "")},
		{name: "bytes beginning with 16 0xff bytes", typ: Primitive(KindBytes), pages: 2,
			values: concat(repeat(100, []byte("abc")), repeat(100, bytes.Repeat([]byte{0xff}, 20)), repeat(100, []byte("abd")))},
		{name: "bytes of 16 bytes exactly", typ: Primitive(KindBytes), pages: 2,
			values: concat(repeat(100, []byte("0123456789abcdef")), repeat(100, []byte("0123456789abcdeg")))},
		{name: "doubles with NaN, infinities and zeros", typ: Primitive(KindDouble), pages: 3,
			values: concat(repeat(100, nan), repeat(100, math.Inf(-1)), repeat(100, math.Copysign(0, -1)), repeat(100, 0.0), repeat(100, math.Inf(1)), repeat(100, nan))},
		{name: "a page of NaN first", typ: Primitive(KindDouble), pages: 2,
			values: concat(repeat(600, nan), repeat(600, 1.5), repeat(600, -2.5))},
		{name: "floats, a page of NaN last", typ: Primitive(KindFloat), pages: 2,
			values: concat(repeat(600, float32(3)), repeat(1200, float32(math.NaN())))},
		{name: "nullable fixed, a null page between", typ: Nullable(FixedType("f16", 16)), pages: 3,
			values: concat(repeat(100, bytes.Repeat([]byte{1}, 16)), repeat(1100, nil), repeat(100, bytes.Repeat([]byte{2}, 16)))},
		{name: "nullable fixed, nulls only", typ: Nullable(FixedType("f4", 4)), pages: 1, values: repeat(10, nil)},
		{name: "nullable bytes decimal, a null page between", typ: Nullable(DecimalType(12, 2)), pages: 3,
			values: concat(repeat(150, NewDecimalInt64(-5, 2)), repeat(150, NewDecimalInt64(3, 2)), repeat(1100, nil), repeat(100, NewDecimalInt64(-700, 2)), repeat(100, NewDecimalInt64(0, 2)))},
		{name: "fixed decimal, negative and positive", typ: FixedDecimalType("d", 9, 20, 2), pages: 2,
			values: concat(repeat(300, NewDecimalInt64(-12345, 2)), repeat(300, NewDecimalInt64(99999, 2)))},
	}
}

// check writes the case's values with the columnar writer or parquet-go's
// and checks the file's page indexes against its pages, and its values.
func (tc pageIndexCase) check(t *testing.T, columnar bool) {
	t.Helper()
	fsys, dir := newTestFS(t)
	schema := &Schema{Name: "r", Fields: []Field{{Name: "v", Type: tc.typ}}}
	// Without dictionaries, whose pages would hold other rows.
	opts := Options{NoMetaFields: true, PageSize: 1 << 10, NewRecordsOnly: columnar, NoDictionary: true}
	w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if (w.columnar != nil) != columnar {
		t.Fatalf("the columnar writer: %v, want %v", w.columnar != nil, columnar)
	}
	// Calls of 100 records: pages end between calls.
	for start := 0; start < len(tc.values); start += 100 {
		var rows [][]any
		for _, v := range tc.values[start:min(start+100, len(tc.values))] {
			rows = append(rows, []any{v})
		}
		if err := w.WriteNew(nil, 0, nil, rows); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f.parquet")
	if got := len(openParquet(t, path).OffsetIndexes()[0].PageLocations); got < tc.pages {
		t.Fatalf("%d pages, want %d or more", got, tc.pages)
	}
	if !columnar && tc.typ.Logical == LogicalDecimal {
		checkWidenedDecimalBounds(t, path)
	} else {
		checkPageIndexes(t, path)
	}
	var want [][]any
	for _, v := range tc.values {
		want = append(want, []any{v})
	}
	assertSameRows(t, "values read back", readAllValues(t, mustOpenBaseFile(t, fsys, "f.parquet")), want)
}

// TestParquetGoWriterFixedColumnIndexesRowGroups checks the mended column
// indexes of a file of several row groups and columns, where every
// chunk's index moves.
func TestParquetGoWriterFixedColumnIndexesRowGroups(t *testing.T) {
	schema := &Schema{Name: "r", Fields: []Field{
		{Name: "s", Type: Nullable(Primitive(KindString))},
		{Name: "f", Type: Nullable(FixedType("f8", 8))},
		{Name: "n", Type: Primitive(KindLong)},
	}}
	var rows [][]any
	for i := range 6000 {
		var f any
		if i/700%2 == 1 {
			f = []byte(fmt.Sprintf("%08d", i))
		}
		rows = append(rows, []any{fmt.Sprintf("s-%d", i%37), f, int64(i)})
	}
	fsys, dir := newTestFS(t)
	opts := Options{NoMetaFields: true, PageSize: 1 << 10, BlockSize: 8 << 10}
	w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(rows); start += 100 {
		if err := w.WriteNew(nil, 0, nil, rows[start:min(start+100, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f.parquet")
	if n := len(openParquet(t, path).Metadata().RowGroups); n < 3 {
		t.Fatalf("%d row groups, want 3 or more", n)
	}
	checkPageIndexes(t, path)
	assertSameRows(t, "values read back", readAllValues(t, mustOpenBaseFile(t, fsys, "f.parquet")), rows)
}

package read

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// leafConv converts the values of one Parquet leaf column, as pages hold
// them, to a Vector of the reader's type: the file's physical type may be
// narrower than the table's (int read as long, float as double) after the
// schema evolved, and timestamps of any unit become microseconds.
type leafConv struct {
	kind  parquet.Kind // the file's physical type
	size  int          // fixed length of a FIXED_LEN_BYTE_ARRAY
	out   repr
	tsMul int64 // timestamps: multiply by tsMul, or floor-divide by tsDiv, to get µs
	tsDiv int64
	scale int  // the file's decimal scale
	want  int  // the reader's decimal scale
	uuid  bool // a 16-byte UUID read as its text form
}

// newLeafConv checks that values of Parquet type pt can be read as values
// of Avro type t.
func newLeafConv(t *basefile.Type, pt parquet.Type) (leafConv, error) {
	c := leafConv{kind: pt.Kind(), size: pt.Length(), out: reprOf(t), tsMul: 1, tsDiv: 1}
	var logical format.LogicalTypeValue
	if lt := pt.LogicalType(); lt != nil {
		logical = lt.Value
	}
	k := c.kind
	ok := false
	switch c.out {
	case reprBool:
		ok = k == parquet.Boolean
	case reprInt32:
		ok = k == parquet.Int32
	case reprInt64:
		if isTimestamp(t) {
			ok = k == parquet.Int64 || k == parquet.Int96
			c.setUnit(t, pt, logical)
		} else {
			ok = k == parquet.Int64 || k == parquet.Int32
		}
	case reprFloat32:
		ok = k == parquet.Float || k == parquet.Int32 || k == parquet.Int64
	case reprFloat64:
		ok = k == parquet.Double || k == parquet.Float || k == parquet.Int32 || k == parquet.Int64
	case reprBytes:
		ok = k == parquet.ByteArray || k == parquet.FixedLenByteArray
		if _, isUUID := logical.(*format.UUIDType); isUUID && k == parquet.FixedLenByteArray && c.size == 16 && !(t.Kind == basefile.KindBytes || t.Kind == basefile.KindFixed) {
			c.uuid = true
		}
	case reprDecimal:
		if d, isDec := logical.(*format.DecimalType); isDec && int(d.Scale) <= t.Scale {
			c.scale, c.want = int(d.Scale), t.Scale
			ok = k == parquet.Int32 || k == parquet.Int64 || k == parquet.ByteArray || k == parquet.FixedLenByteArray
		}
	}
	if !ok {
		return c, fmt.Errorf("the file's Parquet type %s cannot be read as %s", pt, typeName(t))
	}
	return c, nil
}

// setUnit sets the conversion of a timestamp column to microseconds: the
// file's unit wins over the reader's.
func (c *leafConv) setUnit(t *basefile.Type, pt parquet.Type, logical format.LogicalTypeValue) {
	millis := t.Logical == basefile.LogicalTimestampMillis
	nanos := false
	if ts, ok := logical.(*format.TimestampType); ok {
		switch ts.Unit.Value.(type) {
		case *format.MilliSeconds:
			millis = true
		case *format.MicroSeconds:
			millis = false
		case *format.NanoSeconds:
			millis, nanos = false, true
		}
	} else if ct := pt.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.TimestampMillis:
			millis = true
		case deprecated.TimestampMicros:
			millis = false
		}
	}
	switch {
	case millis:
		c.tsMul = 1000
	case nanos:
		c.tsDiv = 1000
	}
}

// errShortPage reports a page whose levels promise more values than it has.
var errShortPage = errors.New("a page holds fewer values than its definition levels say")

// numValues returns how many dense values vals holds.
func (c *leafConv) numValues(vals encoding.Values) int {
	data, offs := vals.Data()
	switch c.kind {
	case parquet.Boolean:
		return 8 * len(data)
	case parquet.Int32, parquet.Float:
		return len(data) / 4
	case parquet.Int64, parquet.Double:
		return len(data) / 8
	case parquet.Int96:
		return len(data) / 12
	case parquet.ByteArray:
		return max(len(offs)-1, 0)
	case parquet.FixedLenByteArray:
		if c.size > 0 {
			return len(data) / c.size
		}
	}
	return 0
}

// appendDense appends the dense values vals[from:from+count] to out.
func (c *leafConv) appendDense(out *Vector, vals encoding.Values, from, count int) error {
	if from+count > c.numValues(vals) {
		return errShortPage
	}
	to := from + count
	switch c.kind {
	case parquet.Boolean:
		bits := vals.Boolean()
		for i := from; i < to; i++ {
			out.bools = append(out.bools, bits[i>>3]>>(i&7)&1 != 0)
		}
	case parquet.Int32:
		xs := vals.Int32()[from:to]
		switch out.repr {
		case reprInt32:
			out.i32 = append(out.i32, xs...)
		case reprInt64:
			out.i64 = widen(out.i64, xs)
		case reprFloat32:
			out.f32 = widen(out.f32, xs)
		case reprFloat64:
			out.f64 = widen(out.f64, xs)
		case reprDecimal:
			for _, x := range xs {
				out.decs = append(out.decs, c.decimal(basefile.NewDecimalInt64(int64(x), c.scale)))
			}
		}
	case parquet.Int64:
		xs := vals.Int64()[from:to]
		switch out.repr {
		case reprInt64:
			c.appendInt64s(out, xs)
		case reprFloat32:
			out.f32 = widen(out.f32, xs)
		case reprFloat64:
			out.f64 = widen(out.f64, xs)
		case reprDecimal:
			for _, x := range xs {
				out.decs = append(out.decs, c.decimal(basefile.NewDecimalInt64(x, c.scale)))
			}
		}
	case parquet.Int96:
		for _, x := range vals.Int96()[from:to] {
			out.i64 = append(out.i64, int96Micros(x))
		}
	case parquet.Float:
		xs := vals.Float()[from:to]
		if out.repr == reprFloat32 {
			out.f32 = append(out.f32, xs...)
		} else {
			out.f64 = widen(out.f64, xs)
		}
	case parquet.Double:
		out.f64 = append(out.f64, vals.Double()[from:to]...)
	case parquet.ByteArray:
		data, offs := vals.ByteArray()
		for i := from; i < to; i++ {
			if offs[i] > offs[i+1] || int(offs[i+1]) > len(data) {
				return errShortPage
			}
		}
		if out.repr == reprBytes && !c.uuid { // one copy for the whole run
			start, base := uint32(len(out.data)), offs[from]
			out.data = append(out.data, data[base:offs[to]]...)
			for _, o := range offs[from+1 : to+1] {
				out.offs = append(out.offs, start+o-base)
			}
			break
		}
		c.appendByteValues(out, count, func(i int) []byte { return data[offs[from+i]:offs[from+i+1]] })
	case parquet.FixedLenByteArray:
		data, size := vals.FixedLenByteArray()
		c.appendByteValues(out, count, func(i int) []byte { return data[(from+i)*size : (from+i+1)*size] })
	}
	out.grewBy(count)
	return nil
}

// appendInt64s appends longs, or timestamps converted to microseconds.
func (c *leafConv) appendInt64s(out *Vector, xs []int64) {
	switch {
	case c.tsMul != 1:
		for _, x := range xs {
			out.i64 = append(out.i64, x*c.tsMul)
		}
	case c.tsDiv != 1:
		for _, x := range xs {
			out.i64 = append(out.i64, floorDiv(x, c.tsDiv))
		}
	default:
		out.i64 = append(out.i64, xs...)
	}
}

// appendByteValues appends count byte-array values, value(i) being the
// i-th, as bytes, decimals or UUID text. It does not count them in out.n.
func (c *leafConv) appendByteValues(out *Vector, count int, value func(i int) []byte) {
	switch {
	case out.repr == reprDecimal:
		for i := range count {
			out.decs = append(out.decs, c.decimal(decodeTwosComplement(value(i), c.scale)))
		}
	case c.uuid:
		for i := range count {
			out.data = append(out.data, uuid.UUID(value(i)).String()...)
			out.offs = append(out.offs, uint32(len(out.data)))
		}
	default:
		for i := range count {
			out.data = append(out.data, value(i)...)
			out.offs = append(out.offs, uint32(len(out.data)))
		}
	}
}

// decimal brings a decimal of the file's scale to the reader's.
func (c *leafConv) decimal(d basefile.Decimal) basefile.Decimal {
	if c.want == c.scale {
		return d
	}
	d, _ = d.Rescale(c.want) // raising the scale is exact
	return d
}

func widen[T int32 | int64 | float32, U int64 | float32 | float64](dst []U, xs []T) []U {
	for _, x := range xs {
		dst = append(dst, U(x))
	}
	return dst
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// julianUnixEpoch is the Julian day number of 1970-01-01.
const julianUnixEpoch = 2440588

// int96Micros converts a legacy INT96 timestamp (nanoseconds of the day,
// then the Julian day) to microseconds since the epoch.
func int96Micros(v deprecated.Int96) int64 {
	nanos := int64(v[1])<<32 | int64(v[0])
	days := int64(v[2]) - julianUnixEpoch
	return days*86_400_000_000 + floorDiv(nanos, 1000)
}

// decodeTwosComplement reads a big-endian two's complement unscaled
// decimal.
func decodeTwosComplement(b []byte, scale int) basefile.Decimal {
	if len(b) <= 8 {
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, x := range b {
			v = v<<8 | int64(x)
		}
		return basefile.NewDecimalInt64(v, scale)
	}
	x := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return basefile.NewDecimal(x, scale)
}

// scalarOf converts a statistics value of the column to a scalar of the
// reader's type t.
func (c *leafConv) scalarOf(v parquet.Value, t *basefile.Type) (scalar, bool) {
	var vals encoding.Values
	switch c.kind {
	case parquet.Boolean:
		vals = encoding.BooleanValues([]byte{byte(boolInt(v.Boolean()))})
	case parquet.Int32:
		vals = encoding.Int32Values([]int32{v.Int32()})
	case parquet.Int64:
		vals = encoding.Int64Values([]int64{v.Int64()})
	case parquet.Float:
		vals = encoding.FloatValues([]float32{v.Float()})
	case parquet.Double:
		vals = encoding.DoubleValues([]float64{v.Double()})
	case parquet.ByteArray:
		b := v.ByteArray()
		vals = encoding.ByteArrayValues(b, []uint32{0, uint32(len(b))})
	case parquet.FixedLenByteArray:
		vals = encoding.FixedLenByteArrayValues(v.ByteArray(), c.size)
	default:
		return scalar{}, false // INT96 statistics are not reliable
	}
	vec := newVector(t)
	if c.appendDense(vec, vals, 0, 1) != nil {
		return scalar{}, false
	}
	return scalarAt(vec, 0)
}

// leafReader streams the values of one leaf column of one row group, page
// by page, into vectors.
type leafReader struct {
	column string // the Parquet column path, for errors
	col    int    // the Parquet column index
	maxDef byte
	maxRep byte
	conv   leafConv
	typ    *basefile.Type // the reader's type of the values
	nested bool           // part of a record, array or map: keep levels and entries

	chunk parquet.ColumnChunk
	pages parquet.Pages
	page  parquet.Page
	defs  []byte // the page's levels; nil when maxDef or maxRep is 0
	reps  []byte
	n     int             // entries (levels) in the page
	cur   int             // next entry of the page
	vcur  int             // next dense value of the page
	data  encoding.Values // the page's dense values, or dictionary indexes
	idx   []int32         // the page's dictionary indexes, nil for a plain page
	dict  parquet.Dictionary
	dvec  *Vector // dict's values

	// Skipping rows: offsets is the chunk's offset index, loaded on first
	// use (indexed) and only for a leaf outside lists and maps, nil if it
	// has none; pageRow is the chunk's row of the page's first entry (for
	// maxRep 0); skip is how many rows to skip before the next read;
	// pagesSkipped counts the pages skipped without reading them.
	offsets      parquet.OffsetIndex
	indexed      bool
	pageRow      int64
	skip         int
	pagesSkipped int

	// Of the batch, for nested leaves: the entries and their levels, and
	// the next entry to assemble.
	vals         *Vector
	bdefs, breps []byte
	pos          int
}

// start begins reading the leaf's column chunk of row group rg.
func (l *leafReader) start(rg parquet.RowGroup) {
	l.close()
	l.chunk = rg.ColumnChunks()[l.col]
	l.pages = l.chunk.Pages()
}

// close releases the current page and page reader, counting the pages
// that the rows left to skip cover.
func (l *leafReader) close() error {
	if l.skip > 0 && l.pages != nil {
		next := l.pageRow + int64(l.n)
		l.pagesSkipped += l.pagesIn(next, next+int64(l.skip-(l.n-l.cur)))
	}
	if l.page != nil {
		parquet.Release(l.page)
		l.page = nil
	}
	l.n, l.cur, l.pageRow, l.skip = 0, 0, 0, 0
	l.chunk, l.offsets, l.indexed = nil, nil, false
	if l.pages == nil {
		return nil
	}
	err := l.pages.Close()
	l.pages = nil
	return err
}

// offsetIndex returns the offset index of the chunk of a leaf outside
// lists and maps, or nil.
func (l *leafReader) offsetIndex() parquet.OffsetIndex {
	if !l.indexed && l.maxRep == 0 && l.chunk != nil {
		l.indexed = true
		if oi, err := l.chunk.OffsetIndex(); err == nil && oi.NumPages() > 0 {
			l.offsets = oi
		}
	}
	return l.offsets
}

// pagesIn returns how many pages of the chunk start at rows in [from, to).
func (l *leafReader) pagesIn(from, to int64) int {
	oi := l.offsetIndex()
	if oi == nil || to <= from {
		return 0
	}
	return l.pagesBefore(to) - l.pagesBefore(from)
}

// pagesBefore returns how many pages of the chunk start before row r; the
// offset index must be loaded.
func (l *leafReader) pagesBefore(r int64) int {
	return sort.Search(l.offsets.NumPages(), func(i int) bool { return l.offsets.FirstRowIndex(i) >= r })
}

// seek jumps, when the current page is used up, over the whole pages that
// the next rows rows cover, by the offset index, to the page holding the
// first row after them. It returns the rows jumped over.
func (l *leafReader) seek(rows int) (int, error) {
	if l.offsetIndex() == nil {
		return 0, nil
	}
	next := l.pageRow + int64(l.n) // the first row of the next page
	to := l.pagesBefore(next+int64(rows)+1) - 1
	if to < 0 {
		return 0, nil
	}
	first := l.offsets.FirstRowIndex(to)
	if first <= next {
		return 0, nil
	}
	if err := l.pages.SeekToRow(first); err != nil {
		return 0, err
	}
	l.pagesSkipped += l.pagesIn(next, first)
	if l.page != nil {
		parquet.Release(l.page)
		l.page = nil
	}
	l.pageRow, l.n, l.cur = first, 0, 0
	return int(first - next), nil
}

// nextPage loads the next page; ok is false at the end of the chunk.
func (l *leafReader) nextPage() (ok bool, err error) {
	if l.page != nil {
		parquet.Release(l.page)
		l.page = nil
	}
	l.pageRow += int64(l.n)
	p, err := l.pages.ReadPage()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.page = p
	l.defs, l.reps = p.DefinitionLevels(), p.RepetitionLevels()
	l.n = int(p.NumValues())
	if l.maxDef > 0 && len(l.defs) != l.n || l.maxRep > 0 && len(l.reps) != l.n {
		return false, fmt.Errorf("a page has %d values but %d definition and %d repetition levels", l.n, len(l.defs), len(l.reps))
	}
	l.cur, l.vcur = 0, 0
	l.data = p.Data()
	l.idx = nil
	if d := p.Dictionary(); d != nil {
		if l.data.Kind() != encoding.Int32 {
			return false, errors.New("a dictionary page holds no indexes")
		}
		l.idx = l.data.Int32()
		if d != l.dict {
			l.dict, l.dvec = d, newVector(l.typ)
			if err := l.conv.appendDense(l.dvec, d.Page().Data(), 0, d.Len()); err != nil {
				return false, fmt.Errorf("dictionary: %w", err)
			}
		}
	}
	return true, nil
}

// read reads the next rows rows of the column: into out for a flat leaf,
// or into the leaf's entries and levels for a nested one.
func (l *leafReader) read(rows int, out *Vector) error {
	if l.skip > 0 {
		skip := l.skip
		l.skip = 0
		if err := l.walk(skip, nil); err != nil {
			return err
		}
	}
	if l.nested {
		l.vals.reset()
		l.bdefs, l.breps, l.pos = l.bdefs[:0], l.breps[:0], 0
		out = l.vals
	}
	return l.walk(rows, out)
}

// walk consumes the next rows rows of the column, appending their entries
// to out, or discarding them if out is nil.
func (l *leafReader) walk(rows int, out *Vector) error {
	for {
		if l.cur == l.n {
			if rows == 0 && l.maxRep == 0 {
				return nil
			}
			if out == nil && l.maxRep == 0 {
				jumped, err := l.seek(rows)
				if err != nil {
					return err
				}
				if rows -= jumped; rows == 0 {
					return nil
				}
			}
			ok, err := l.nextPage()
			if err != nil {
				return err
			}
			if !ok {
				if rows > 0 {
					return fmt.Errorf("the column chunk ends %d rows early", rows)
				}
				return nil
			}
			continue
		}
		if l.maxRep == 0 {
			take := min(rows, l.n-l.cur)
			if take == 0 {
				return nil
			}
			if err := l.take(take, out); err != nil {
				return err
			}
			rows -= take
			continue
		}
		// Entries with repetition level 0 start rows: take whole rows.
		j := l.cur
		for ; j < l.n; j++ {
			if l.reps[j] == 0 {
				if rows == 0 {
					break
				}
				rows--
			}
		}
		if j > l.cur {
			if err := l.take(j-l.cur, out); err != nil {
				return err
			}
		}
		if j < l.n {
			return nil // at the first row after the batch
		}
	}
}

// take appends the next count entries of the page to out, or discards
// them if out is nil.
func (l *leafReader) take(count int, out *Vector) error {
	from, to := l.cur, l.cur+count
	if out == nil {
		l.cur = to
		if l.maxDef == 0 {
			l.vcur += count
			return nil
		}
		for _, d := range l.defs[from:to] {
			if d == l.maxDef {
				l.vcur++
			}
		}
		return nil
	}
	if l.nested {
		if l.maxDef > 0 {
			l.bdefs = append(l.bdefs, l.defs[from:to]...)
		}
		if l.maxRep > 0 {
			l.breps = append(l.breps, l.reps[from:to]...)
		}
	}
	l.cur = to
	if l.maxDef == 0 {
		return l.dense(count, out)
	}
	defs := l.defs[from:to]
	for i := 0; i < len(defs); {
		j := i
		for j < len(defs) && defs[j] == l.maxDef {
			j++
		}
		if j > i {
			if err := l.dense(j-i, out); err != nil {
				return err
			}
		}
		k := j
		for k < len(defs) && defs[k] != l.maxDef {
			k++
		}
		out.appendNulls(k - j)
		i = k
	}
	return nil
}

// dense appends the next count dense values of the page to out.
func (l *leafReader) dense(count int, out *Vector) error {
	from := l.vcur
	l.vcur += count
	if l.idx == nil {
		return l.conv.appendDense(out, l.data, from, count)
	}
	if l.vcur > len(l.idx) {
		return errShortPage
	}
	return out.appendIndexed(l.dvec, l.idx[from:l.vcur])
}

// statsRange returns what the column chunk's statistics say about the
// values of the leaf (a flat one).
func (l *leafReader) statsRange(rg parquet.RowGroup) colRange {
	chunk, ok := rg.ColumnChunks()[l.col].(*parquet.FileColumnChunk)
	if !ok {
		return colRange{}
	}
	nulls, values := chunk.NullCount(), chunk.NumValues()
	minV, maxV, ok := chunk.Bounds()
	if !ok {
		if values > 0 && nulls == values {
			return colRange{known: true, mayNull: true}
		}
		return colRange{}
	}
	r := colRange{known: true, mayValue: true, mayNull: nulls > 0}
	lo, okLo := l.conv.scalarOf(minV, l.typ)
	hi, okHi := l.conv.scalarOf(maxV, l.typ)
	r.hasBounds = okLo && okHi && !math.IsNaN(lo.f) && !math.IsNaN(hi.f)
	r.min, r.max = lo, hi
	return r
}

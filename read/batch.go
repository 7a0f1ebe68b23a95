package read

import (
	"fmt"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// repr is how a Vector holds its values.
type repr uint8

const (
	reprBool    repr = iota // bools
	reprInt32               // int32s: int, date (days since 1970-01-01)
	reprInt64               // int64s: long, timestamps (microseconds since the epoch)
	reprFloat32             // float32s
	reprFloat64             // float64s
	reprBytes               // data and offs: string, enum, uuid, bytes, fixed
	reprDecimal             // decimals
	reprAny                 // anys: records, arrays and maps in the value model
)

// reprOf returns the representation of values of type t.
func reprOf(t *basefile.Type) repr {
	if t.Logical == basefile.LogicalDecimal {
		return reprDecimal
	}
	switch t.Kind {
	case basefile.KindBoolean:
		return reprBool
	case basefile.KindInt:
		return reprInt32
	case basefile.KindLong:
		return reprInt64
	case basefile.KindFloat:
		return reprFloat32
	case basefile.KindDouble:
		return reprFloat64
	case basefile.KindString, basefile.KindEnum, basefile.KindBytes, basefile.KindFixed:
		return reprBytes
	}
	return reprAny
}

// isTimestamp reports whether t is a timestamp type.
func isTimestamp(t *basefile.Type) bool {
	return t.Logical == basefile.LogicalTimestampMicros || t.Logical == basefile.LogicalTimestampMillis
}

// isText reports whether values of t are strings in the value model (and
// []byte otherwise, for a byte-array representation).
func isText(t *basefile.Type) bool {
	return t.Kind == basefile.KindString || t.Kind == basefile.KindEnum
}

// Vector is one column of a Batch: Len values of one type, held in typed
// slices rather than as interface values.
//
// Which typed slice holds the values depends on the type: Bools for
// boolean; Int32s for int and date (days since 1970-01-01); Int64s for long
// and for both timestamp types, always in microseconds since the Unix epoch
// (UTC); Float32s for float; Float64s for double; Bytes for string, enum,
// uuid, bytes and fixed; Decimals for decimals. Records, arrays and maps are
// only available through Value. The other slices are nil. A null value has
// the zero value in its slice; IsNull tells nulls apart.
//
// A Vector belongs to its Batch and is valid until the scan's next call.
type Vector struct {
	typ   *basefile.Type
	repr  repr
	n     int
	nulls []bool // nil when no value is null
	bools []bool
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	data  []byte
	offs  []uint32 // n+1 offsets into data for reprBytes
	decs  []basefile.Decimal
	anys  []any
}

// newVector returns an empty vector of type t.
func newVector(t *basefile.Type) *Vector {
	v := &Vector{typ: t, repr: reprOf(t)}
	v.reset()
	return v
}

// reset empties the vector, keeping its memory.
func (v *Vector) reset() {
	v.n = 0
	if v.nulls != nil {
		v.nulls = v.nulls[:0] // keeps tracking nulls, in step with n
	}
	v.bools, v.i32, v.i64, v.f32, v.f64 = v.bools[:0], v.i32[:0], v.i64[:0], v.f32[:0], v.f64[:0]
	v.data, v.decs, v.anys = v.data[:0], v.decs[:0], v.anys[:0]
	clear(v.anys[:cap(v.anys)]) // let go of the last batch's nested values
	if v.repr == reprBytes {
		v.offs = append(v.offs[:0], 0)
	}
}

// Type returns the type of the vector's values.
func (v *Vector) Type() *basefile.Type { return v.typ }

// Len returns the number of values.
func (v *Vector) Len() int { return v.n }

// IsNull reports whether value i is null.
func (v *Vector) IsNull(i int) bool { return v.nulls != nil && v.nulls[i] }

// Bools returns the values of a boolean vector.
func (v *Vector) Bools() []bool { return v.bools }

// Int32s returns the values of an int or date vector.
func (v *Vector) Int32s() []int32 { return v.i32 }

// Int64s returns the values of a long or timestamp vector; timestamps are in
// microseconds since the Unix epoch.
func (v *Vector) Int64s() []int64 { return v.i64 }

// Float32s returns the values of a float vector.
func (v *Vector) Float32s() []float32 { return v.f32 }

// Float64s returns the values of a double vector.
func (v *Vector) Float64s() []float64 { return v.f64 }

// Decimals returns the values of a decimal vector.
func (v *Vector) Decimals() []basefile.Decimal { return v.decs }

// Bytes returns value i of a string, enum, uuid, bytes or fixed vector. The
// slice is shared with the vector: do not modify or keep it.
func (v *Vector) Bytes(i int) []byte {
	return v.data[v.offs[i]:v.offs[i+1]:v.offs[i+1]]
}

// Value returns value i in the value model (see storage/basefile/value.go): nil for
// null, a string for string types, a fresh []byte for bytes and fixed, a
// basefile.Date, a time.Time in UTC, a basefile.Decimal, and []any or
// map[string]any for records, arrays and maps.
func (v *Vector) Value(i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.repr {
	case reprBool:
		return v.bools[i]
	case reprInt32:
		if v.typ.Logical == basefile.LogicalDate {
			return basefile.Date(v.i32[i])
		}
		return v.i32[i]
	case reprInt64:
		if isTimestamp(v.typ) {
			return time.UnixMicro(v.i64[i]).UTC()
		}
		return v.i64[i]
	case reprFloat32:
		return v.f32[i]
	case reprFloat64:
		return v.f64[i]
	case reprBytes:
		if isText(v.typ) || v.typ.Logical == basefile.LogicalUUID {
			return string(v.Bytes(i))
		}
		return append([]byte{}, v.Bytes(i)...)
	case reprDecimal:
		return v.decs[i]
	}
	return v.anys[i]
}

// markNull records that the value just appended at index v.n-1 is null or
// not.
func (v *Vector) markNull(null bool) {
	if v.nulls == nil {
		if !null {
			return
		}
		v.nulls = make([]bool, v.n-1, max(v.n, 64))
	}
	v.nulls = append(v.nulls, null)
}

// grewBy records that count non-null values were appended.
func (v *Vector) grewBy(count int) {
	v.n += count
	if v.nulls != nil {
		for range count {
			v.nulls = append(v.nulls, false)
		}
	}
}

// appendNulls appends count nulls.
func (v *Vector) appendNulls(count int) {
	for range count {
		switch v.repr {
		case reprBool:
			v.bools = append(v.bools, false)
		case reprInt32:
			v.i32 = append(v.i32, 0)
		case reprInt64:
			v.i64 = append(v.i64, 0)
		case reprFloat32:
			v.f32 = append(v.f32, 0)
		case reprFloat64:
			v.f64 = append(v.f64, 0)
		case reprBytes:
			v.offs = append(v.offs, uint32(len(v.data)))
		case reprDecimal:
			v.decs = append(v.decs, basefile.Decimal{})
		default:
			v.anys = append(v.anys, nil)
		}
		v.n++
		v.markNull(true)
	}
}

// appendBytes appends one byte-array value.
func (v *Vector) appendBytes(b []byte) {
	v.data = append(v.data, b...)
	v.offs = append(v.offs, uint32(len(v.data)))
	v.grewBy(1)
}

// appendValue appends a value of the value model, which must match the
// vector's type.
func (v *Vector) appendValue(x any) error {
	if x == nil {
		v.appendNulls(1)
		return nil
	}
	ok := true
	switch v.repr {
	case reprBool:
		var b bool
		b, ok = x.(bool)
		v.bools = append(v.bools, b)
	case reprInt32:
		switch x := x.(type) {
		case int32:
			v.i32 = append(v.i32, x)
		case basefile.Date:
			v.i32 = append(v.i32, int32(x))
		default:
			ok = false
		}
	case reprInt64:
		switch x := x.(type) {
		case int64:
			v.i64 = append(v.i64, x)
		case time.Time:
			v.i64 = append(v.i64, x.UnixMicro())
		default:
			ok = false
		}
	case reprFloat32:
		var f float32
		f, ok = x.(float32)
		v.f32 = append(v.f32, f)
	case reprFloat64:
		var f float64
		f, ok = x.(float64)
		v.f64 = append(v.f64, f)
	case reprBytes:
		switch x := x.(type) {
		case string:
			v.data = append(v.data, x...)
		case []byte:
			v.data = append(v.data, x...)
		default:
			ok = false
		}
		v.offs = append(v.offs, uint32(len(v.data)))
	case reprDecimal:
		var d basefile.Decimal
		d, ok = x.(basefile.Decimal)
		v.decs = append(v.decs, d)
	default:
		v.anys = append(v.anys, x)
	}
	v.grewBy(1)
	if !ok {
		return fmt.Errorf("%T does not match type %s", x, typeName(v.typ))
	}
	return nil
}

// appendIndexed appends the values of dict at the given indexes, as a
// dictionary-encoded page refers to them. dict has the vector's
// representation and no nulls.
func (v *Vector) appendIndexed(dict *Vector, idx []int32) error {
	for _, i := range idx {
		if i < 0 || int(i) >= dict.n {
			return fmt.Errorf("dictionary index %d out of range [0, %d)", i, dict.n)
		}
	}
	switch v.repr {
	case reprBool:
		for _, i := range idx {
			v.bools = append(v.bools, dict.bools[i])
		}
	case reprInt32:
		for _, i := range idx {
			v.i32 = append(v.i32, dict.i32[i])
		}
	case reprInt64:
		for _, i := range idx {
			v.i64 = append(v.i64, dict.i64[i])
		}
	case reprFloat32:
		for _, i := range idx {
			v.f32 = append(v.f32, dict.f32[i])
		}
	case reprFloat64:
		for _, i := range idx {
			v.f64 = append(v.f64, dict.f64[i])
		}
	case reprBytes:
		for _, i := range idx {
			v.data = append(v.data, dict.data[dict.offs[i]:dict.offs[i+1]]...)
			v.offs = append(v.offs, uint32(len(v.data)))
		}
	case reprDecimal:
		for _, i := range idx {
			v.decs = append(v.decs, dict.decs[i])
		}
	default:
		return fmt.Errorf("dictionary of %s values", typeName(v.typ))
	}
	v.grewBy(len(idx))
	return nil
}

// fill appends count copies of value 0 of c, a one-value vector of the same
// type.
func (v *Vector) fill(c *Vector, count int) {
	if c.IsNull(0) {
		v.appendNulls(count)
		return
	}
	idx := make([]int32, count) // all zero
	if v.repr == reprAny {
		for range count {
			v.anys = append(v.anys, c.anys[0])
		}
		v.grewBy(count)
		return
	}
	// appendIndexed cannot fail here: index 0 exists and the
	// representation is not reprAny.
	_ = v.appendIndexed(c, idx)
}

// keep compacts the vector to the values at the ascending indexes sel.
func (v *Vector) keep(sel []int32) {
	if v.nulls != nil {
		v.nulls = compact(v.nulls, sel)
	}
	switch v.repr {
	case reprBool:
		v.bools = compact(v.bools, sel)
	case reprInt32:
		v.i32 = compact(v.i32, sel)
	case reprInt64:
		v.i64 = compact(v.i64, sel)
	case reprFloat32:
		v.f32 = compact(v.f32, sel)
	case reprFloat64:
		v.f64 = compact(v.f64, sel)
	case reprBytes:
		w := uint32(0)
		for j, i := range sel {
			start, end := v.offs[i], v.offs[i+1]
			copy(v.data[w:], v.data[start:end]) // w <= start: moves left
			v.offs[j] = w
			w += end - start
		}
		v.offs[len(sel)] = w
		v.offs = v.offs[:len(sel)+1]
		v.data = v.data[:w]
	case reprDecimal:
		v.decs = compact(v.decs, sel)
	default:
		n := len(v.anys)
		v.anys = compact(v.anys, sel)
		clear(v.anys[len(sel):n])
	}
	v.n = len(sel)
}

// compact moves s[sel[j]] to s[j] for ascending sel and truncates s.
func compact[T any](s []T, sel []int32) []T {
	for j, i := range sel {
		s[j] = s[i]
	}
	return s[:len(sel)]
}

// Batch is a run of records held column by column, in the columns of the
// scan's Schema. It is valid until the scan's next call.
type Batch struct {
	schema *basefile.Schema
	cols   []*Vector
	n      int
}

// Len returns the number of records.
func (b *Batch) Len() int { return b.n }

// Schema returns the schema of the records: one field per column.
func (b *Batch) Schema() *basefile.Schema { return b.schema }

// Column returns column i, the values of field i of Schema.
func (b *Batch) Column(i int) *Vector { return b.cols[i] }

// Row returns record i as a row of the value model: a new []any holding
// one value per column.
func (b *Batch) Row(i int) []any {
	row := make([]any, len(b.cols))
	for c, v := range b.cols {
		row[c] = v.Value(i)
	}
	return row
}

// keep compacts every column to the rows at the ascending indexes sel.
func (b *Batch) keep(sel []int32) {
	if len(sel) == b.n {
		return
	}
	for _, v := range b.cols {
		v.keep(sel)
	}
	b.n = len(sel)
}

// typeName describes a type for messages: "int", "decimal(10,5)",
// "timestamp-micros", "record structField".
func typeName(t *basefile.Type) string {
	switch t.Logical {
	case basefile.LogicalDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case basefile.LogicalNone:
	default:
		return t.Logical.String()
	}
	if t.Kind == basefile.KindRecord && t.Name != "" {
		return "record " + t.Name
	}
	return t.Kind.String()
}

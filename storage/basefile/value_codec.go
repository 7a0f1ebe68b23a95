package basefile

import (
	"encoding/binary"
	"math/big"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// encode converts a non-null Go value to the leaf's Parquet value, copying
// byte slices into arena unless it is nil.
func (n *valueNode) encode(v any, arena *[]byte) (parquet.Value, error) {
	lc := n.leaf
	switch lc.codec {
	case codecBoolean:
		if b, ok := v.(bool); ok {
			return parquet.BooleanValue(b), nil
		}
	case codecInt32:
		if i, ok := v.(int32); ok {
			return parquet.Int32Value(i), nil
		}
	case codecInt64:
		if i, ok := v.(int64); ok {
			return parquet.Int64Value(i), nil
		}
	case codecFloat:
		if f, ok := v.(float32); ok {
			return parquet.FloatValue(f), nil
		}
	case codecDouble:
		if f, ok := v.(float64); ok {
			return parquet.DoubleValue(f), nil
		}
	case codecString:
		if s, ok := v.(string); ok {
			return parquet.ByteArrayValue(stringBytes(s)), nil
		}
	case codecEnum:
		if s, ok := v.(string); ok {
			if _, known := lc.symbols[s]; !known {
				return parquet.Value{}, n.fieldError("%q is not a symbol of enum %s", s, lc.typ.Name)
			}
			return parquet.ByteArrayValue(stringBytes(s)), nil
		}
	case codecBytes:
		if b, ok := v.([]byte); ok {
			return parquet.ByteArrayValue(copyTo(arena, b)), nil
		}
	case codecFixed:
		if b, ok := v.([]byte); ok {
			if len(b) != lc.size {
				return parquet.Value{}, n.fieldError("%d bytes for a fixed of size %d", len(b), lc.size)
			}
			return parquet.FixedLenByteArrayValue(copyTo(arena, b)), nil
		}
	case codecDecimal:
		if d, ok := v.(Decimal); ok {
			return n.encodeDecimal(d)
		}
	case codecDate:
		if d, ok := v.(Date); ok {
			return parquet.Int32Value(int32(d)), nil
		}
	case codecTimestampMicros:
		if t, ok := v.(time.Time); ok {
			if t.Nanosecond()%int(time.Microsecond) != 0 {
				return parquet.Value{}, n.belowUnitError(t, "microseconds")
			}
			return parquet.Int64Value(t.UnixMicro()), nil
		}
	case codecTimestampMillis:
		if t, ok := v.(time.Time); ok {
			if t.Nanosecond()%int(time.Millisecond) != 0 {
				return parquet.Value{}, n.belowUnitError(t, "milliseconds")
			}
			return parquet.Int64Value(t.UnixMilli()), nil
		}
	default:
		return parquet.Value{}, n.fieldError("%s values cannot be written to this file's column", describeType(lc.typ))
	}
	return parquet.Value{}, n.typeError(v)
}

// belowUnitError refuses the timestamp t, which has digits below the
// unit of the column, which would drop them.
func (n *valueNode) belowUnitError(t time.Time, unit string) error {
	return n.fieldError("%s has digits below the column's %s, which it would drop; truncate it first", t.UTC().Format(time.RFC3339Nano), unit)
}

// copyTo appends b to arena and returns the copy, or returns b if arena is
// nil.
func copyTo(arena *[]byte, b []byte) []byte {
	if arena == nil {
		return b
	}
	start := len(*arena)
	*arena = append(*arena, b...)
	return (*arena)[start:len(*arena):len(*arena)]
}

// stringBytes returns the bytes of s without copying. Parquet values only
// read them.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// encodeDecimal writes d at the column's scale as a big-endian two's
// complement integer: in the fixed's size, or in as few bytes as possible.
func (n *valueNode) encodeDecimal(d Decimal) (parquet.Value, error) {
	lc := n.leaf
	d, err := d.Rescale(lc.scale)
	if err != nil {
		return parquet.Value{}, n.fieldError("%v", err)
	}
	if !d.Fits(lc.precision) {
		return parquet.Value{}, n.fieldError("%s does not fit decimal(%d,%d)", d, lc.precision, lc.scale)
	}
	b := appendTwosComplement(nil, d, lc.size)
	if lc.size > 0 {
		return parquet.FixedLenByteArrayValue(b), nil
	}
	return parquet.ByteArrayValue(b), nil
}

// pow10Int64 holds the powers of ten an int64 can hold.
var pow10Int64 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Fits reports whether d's unscaled value has at most precision digits.
func (d Decimal) Fits(precision int) bool {
	if d.big == nil {
		if precision >= len(pow10Int64) {
			return true
		}
		limit := pow10Int64[precision]
		return -limit < d.small && d.small < limit
	}
	limit := pow10Big(precision)
	return new(big.Int).Abs(d.big).Cmp(limit) < 0
}

// appendTwosComplement appends d's unscaled value as a big-endian two's
// complement integer of size bytes, or of the fewest bytes if size is 0. The
// caller checked that it fits.
func appendTwosComplement(dst []byte, d Decimal, size int) []byte {
	var b []byte
	if d.big == nil {
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], uint64(d.small))
		b = buf[:]
		// Drop leading bytes that only repeat the sign.
		for len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
			b = b[1:]
		}
	} else {
		b = bigTwosComplement(d.big)
	}
	if size > len(b) {
		pad := byte(0)
		if b[0]&0x80 != 0 {
			pad = 0xff
		}
		for range size - len(b) {
			dst = append(dst, pad)
		}
	}
	return append(dst, b...)
}

// bigTwosComplement returns x as the shortest big-endian two's complement.
func bigTwosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 = |x|-1 has the same bits as x inverted.
	m := new(big.Int).Neg(x)
	m.Sub(m, big.NewInt(1))
	b := make([]byte, m.BitLen()/8+1)
	m.FillBytes(b)
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// decodeTwosComplement reads a big-endian two's complement integer.
func decodeTwosComplement(b []byte, scale int) Decimal {
	if len(b) <= 8 {
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return NewDecimalInt64(v, scale)
	}
	x := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		// Subtract 2^(8·len) to get the negative value.
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return makeDecimal(x, scale)
}

// decode converts a leaf's Parquet value to its Go value.
func (n *valueNode) decode(v parquet.Value) (any, error) {
	if v.IsNull() {
		if n.optional {
			return nil, nil
		}
		return nil, n.fieldError("null value in a non-null column")
	}
	lc := n.leaf
	switch lc.codec {
	case codecBoolean:
		return v.Boolean(), nil
	case codecInt32:
		return v.Int32(), nil
	case codecInt64:
		return v.Int64(), nil
	case codecFloat:
		return v.Float(), nil
	case codecDouble:
		return v.Double(), nil
	case codecString, codecEnum:
		return string(v.ByteArray()), nil
	case codecBytes, codecFixed:
		return append([]byte{}, v.ByteArray()...), nil
	case codecDecimal:
		return decodeTwosComplement(v.ByteArray(), lc.scale), nil
	case codecDecimalInt32:
		return NewDecimalInt64(int64(v.Int32()), lc.scale), nil
	case codecDecimalInt64:
		return NewDecimalInt64(v.Int64(), lc.scale), nil
	case codecDate:
		return Date(v.Int32()), nil
	case codecTimestampMicros:
		return time.UnixMicro(v.Int64()).UTC(), nil
	case codecTimestampMillis:
		return time.UnixMilli(v.Int64()).UTC(), nil
	case codecTimestampInt96:
		// Kept whole: a write refuses the nanoseconds a microsecond
		// column would drop (Spark writes whole microseconds).
		return int96Time(v.Int96()), nil
	case codecUUIDFixed:
		u, err := uuid.FromBytes(v.ByteArray())
		if err != nil {
			return nil, n.fieldError("%v", err)
		}
		return u.String(), nil
	}
	return nil, n.fieldError("unknown codec %d", lc.codec)
}

// julianUnixEpoch is the Julian day number of 1970-01-01.
const julianUnixEpoch = 2440588

// int96Time converts an INT96 timestamp: nanoseconds of the day in the first
// eight bytes (little endian), then the Julian day.
func int96Time(v deprecated.Int96) time.Time {
	nanos := int64(v[1])<<32 | int64(v[0])
	days := int64(v[2]) - julianUnixEpoch
	return time.Unix(days*secondsPerDay, nanos).UTC()
}

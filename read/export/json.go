package export

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/storage"
)

// The JSON form of values, as the hoodiectl contract gives it for `read`:
// integers and floating point as numbers (NaN and infinities as the strings
// "NaN", "Infinity", "-Infinity", which JSON numbers cannot be); decimals as
// strings holding the exact decimal; dates as "YYYY-MM-DD"; timestamps in
// RFC 3339 in UTC with the stored precision ("2023-04-01T17:01:00Z",
// "2023-04-01T17:01:00.123456Z"); bytes and fixed in base64; records and
// maps as objects (records in field order, maps by key); arrays as arrays;
// null as null.

// appendRecord appends row, values of fields in storage's value model, as
// a JSON object.
func appendRecord(dst []byte, fields []storage.Field, row []any) ([]byte, error) {
	if len(row) != len(fields) {
		return nil, fmt.Errorf("a record of %d values for %d fields", len(row), len(fields))
	}
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Name)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, f.Type, row[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return append(dst, '}'), nil
}

// appendValue appends v, a value of type t, as JSON.
func appendValue(dst []byte, t *storage.Type, v any) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	mismatch := func() ([]byte, error) {
		return nil, fmt.Errorf("a %T value for type %s", v, t.Kind)
	}
	switch t.Kind {
	case storage.KindBoolean:
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(dst, b), nil
		}
	case storage.KindInt:
		if d, ok := v.(storage.Date); ok && t.Logical == storage.LogicalDate {
			return appendString(dst, d.String()), nil
		}
		if n, ok := v.(int32); ok {
			return strconv.AppendInt(dst, int64(n), 10), nil
		}
	case storage.KindLong:
		if ts, ok := v.(time.Time); ok {
			switch t.Logical {
			case storage.LogicalTimestampMicros:
				return appendTimestamp(dst, ts, 6), nil
			case storage.LogicalTimestampMillis:
				return appendTimestamp(dst, ts, 3), nil
			}
		}
		if n, ok := v.(int64); ok {
			return strconv.AppendInt(dst, n, 10), nil
		}
	case storage.KindFloat:
		if f, ok := v.(float32); ok {
			return appendFloat(dst, float64(f), 32), nil
		}
	case storage.KindDouble:
		if f, ok := v.(float64); ok {
			return appendFloat(dst, f, 64), nil
		}
	case storage.KindString, storage.KindEnum:
		if s, ok := v.(string); ok {
			return appendString(dst, s), nil
		}
	case storage.KindBytes, storage.KindFixed:
		if d, ok := v.(storage.Decimal); ok && t.Logical == storage.LogicalDecimal {
			return appendString(dst, d.String()), nil
		}
		if b, ok := v.([]byte); ok {
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, b)
			return append(dst, '"'), nil
		}
	case storage.KindArray:
		items, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		dst = append(dst, '[')
		for i, item := range items {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, t.Items, item); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case storage.KindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendValue(dst, t.Values, m[k]); err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
		}
		return append(dst, '}'), nil
	case storage.KindRecord:
		fields, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		return appendRecord(dst, t.Fields, fields)
	}
	return mismatch()
}

// appendTimestamp appends t in RFC 3339 in UTC, with digits fractional
// digits unless the fraction is zero.
func appendTimestamp(dst []byte, t time.Time, digits int) []byte {
	t = t.UTC()
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, "2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac := strconv.Itoa(1e9 + ns) // "1" and nine digits
		dst = append(dst, '.')
		dst = append(dst, frac[1:1+digits]...)
	}
	return append(dst, 'Z', '"')
}

// appendFloat appends f, a float of bits bits, as encoding/json writes it,
// or as a string when it is not a number JSON can hold.
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs, format := math.Abs(f), byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// Shorten e-09 to e-9, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json writes it.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

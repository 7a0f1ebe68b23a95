// Package valuefmt writes values of the storage value model (see storage)
// in the forms of the hoodiectl contract (its section "Output"), which
// `hoodiectl read`, `hoodiectl query` and JSON exports share:
//
//   - integers and floating point as JSON numbers (a float as its shortest
//     decimal form; NaN and infinities, which JSON lacks, as the strings
//     "NaN", "Infinity" and "-Infinity");
//   - decimal as a JSON string holding the exact decimal at the column's
//     scale ("12345.67890");
//   - date as "YYYY-MM-DD";
//   - timestamp as RFC 3339 in UTC with the stored precision: no fraction
//     when the value is a whole second, otherwise all the digits of the
//     column's unit, 6 for timestamp-micros and 3 for timestamp-millis
//     ("2023-04-01T17:01:00Z", "2023-04-01T17:01:00.123456Z",
//     "2023-04-01T17:01:00.120000Z");
//   - string, enum and uuid as JSON strings, bytes and fixed as base64;
//   - record and map as objects (record fields in schema order, map keys
//     sorted), array as an array;
//   - null as null.
//
// A csv or table cell holds the same text without JSON quoting (see Text
// and Cell), records, maps and arrays as their JSON text; null is an empty
// csv cell and NULL in a table, whose cells also have their control
// characters escaped (see TableCell).
//
// The encoders never fail: a value that does not match its type is written
// by what it holds (a []any of a non-record type as an array, a string as a
// string), and a value outside the value model as fmt prints it.
package valuefmt

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// AppendJSON appends v, a value of type t in the value model, as JSON.
func AppendJSON(dst []byte, t *basefile.Type, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case []any:
		if t != nil && t.Kind == basefile.KindRecord {
			return AppendRecord(dst, t.Fields, v)
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, itemsType(t), e)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, k), ':')
			dst = AppendJSON(dst, valuesType(t), v[k])
		}
		return append(dst, '}')
	case bool:
		return strconv.AppendBool(dst, v)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case float32:
		return AppendFloat(dst, float64(v), 32)
	case float64:
		return AppendFloat(dst, v, 64)
	case string:
		return AppendString(dst, v)
	}
	return AppendString(dst, Text(t, v))
}

// AppendRecord appends values, those of fields in the value model (a row,
// or the value of a record), as a JSON object: the fields in order, each
// under its name. A field without a value (values is shorter than fields)
// is null.
func AppendRecord(dst []byte, fields []basefile.Field, values []any) []byte {
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(AppendString(dst, f.Name), ':')
		if i < len(values) {
			dst = AppendJSON(dst, f.Type, values[i])
		} else {
			dst = append(dst, "null"...)
		}
	}
	return append(dst, '}')
}

// itemsType and valuesType return the element types of an array and a map,
// or a string type when t is not one (so that a value never lacks a type).
func itemsType(t *basefile.Type) *basefile.Type {
	if t != nil && t.Items != nil {
		return t.Items
	}
	return basefile.Primitive(basefile.KindString)
}

func valuesType(t *basefile.Type) *basefile.Type {
	if t != nil && t.Values != nil {
		return t.Values
	}
	return basefile.Primitive(basefile.KindString)
}

// AppendFloat appends f, a float of bits bits (32 or 64), as a JSON number
// in the form of FormatFloat, or NaN and the infinities, which JSON numbers
// cannot be, as the JSON strings "NaN", "Infinity" and "-Infinity".
func AppendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return AppendString(dst, FormatFloat(f, bits))
	}
	return append(dst, FormatFloat(f, bits)...)
}

// AppendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping: quotes, backslashes and control characters are
// escaped (\n, \r, \t, otherwise \u00XX), so are U+2028 and U+2029, and
// invalid UTF-8 becomes \ufffd.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, `\u202`...)
				dst = append(dst, hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

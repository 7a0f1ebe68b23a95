package main

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/storage"
)

// How `hoodiectl read` writes values (the hoodiectl contract, "Output"):
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
//   - record and map as objects (map keys sorted), array as an array;
//   - null as null.
//
// A csv or table cell holds the same text without JSON quoting, records,
// maps and arrays as their JSON text; null is an empty csv cell and NULL in
// a table.

// appendJSONValue appends v, a value of type t in the value model, as JSON.
func appendJSONValue(b []byte, t *storage.Type, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case []any:
		if t.Kind == storage.KindRecord {
			b = append(b, '{')
			for i, f := range t.Fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, f.Name)
				b = append(b, ':')
				if i < len(v) {
					b = appendJSONValue(b, f.Type, v[i])
				} else {
					b = append(b, "null"...)
				}
			}
			return append(b, '}')
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, itemsType(t), e)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONValue(b, valuesType(t), v[k])
		}
		return append(b, '}')
	case bool:
		return strconv.AppendBool(b, v)
	case int32:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float32:
		return appendJSONFloat(b, float64(v), 32)
	case float64:
		return appendJSONFloat(b, v, 64)
	case string:
		return appendJSONString(b, v)
	}
	return appendJSONString(b, scalarText(t, v))
}

// itemsType and valuesType return the element types of an array and a map,
// or a string type when t is not one (so that a value never lacks a type).
func itemsType(t *storage.Type) *storage.Type {
	if t.Items != nil {
		return t.Items
	}
	return storage.Primitive(storage.KindString)
}

func valuesType(t *storage.Type) *storage.Type {
	if t.Values != nil {
		return t.Values
	}
	return storage.Primitive(storage.KindString)
}

// scalarText returns the text of a value that is not a record, array, map
// or null, as a csv cell holds it.
func scalarText(t *storage.Type, v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case float32:
		return floatText(float64(v), 32)
	case float64:
		return floatText(v, 64)
	case storage.Decimal:
		return v.String()
	case storage.Date:
		return v.String()
	case time.Time:
		return timestampText(v, t.Logical == storage.LogicalTimestampMillis)
	case []byte:
		return base64.StdEncoding.EncodeToString(v)
	}
	return fmt.Sprint(v)
}

// timestampText formats a timestamp in RFC 3339, UTC, with the fraction
// of its unit unless it is a whole second.
func timestampText(ts time.Time, millis bool) string {
	ts = ts.UTC()
	switch {
	case ts.Nanosecond() == 0:
		return ts.Format("2006-01-02T15:04:05Z")
	case millis:
		return ts.Format("2006-01-02T15:04:05.000Z")
	}
	return ts.Format("2006-01-02T15:04:05.000000Z")
}

// floatText formats a float as its shortest decimal form, switching to an
// exponent for very small and very large magnitudes as encoding/json does.
func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, bits)
	if format == 'e' { // "1e-07" -> "1e-7", as encoding/json writes it
		if n := len(s); n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
			s = s[:n-2] + s[n-1:]
		}
	}
	return s
}

func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendJSONString(b, floatText(f, bits))
	}
	return append(b, floatText(f, bits)...)
}

// appendJSONString appends s as a JSON string. HTML characters are left
// as they are; invalid UTF-8 becomes U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, `\u202`...)
				b = append(b, hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// cellText returns v as the text of a csv or table cell; null is null.
func cellText(t *storage.Type, v any, null string) string {
	switch v.(type) {
	case nil:
		return null
	case []any, map[string]any:
		return string(appendJSONValue(nil, t, v))
	}
	return scalarText(t, v)
}

// tableCell returns v as the text of a `--format table` cell: control
// characters are escaped (\n, \t, \x01) so that each record stays on one
// line.
func tableCell(t *storage.Type, v any) string {
	s := cellText(t, v, "NULL")
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

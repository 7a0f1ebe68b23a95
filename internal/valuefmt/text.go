package valuefmt

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Text returns the text of v, a value of type t that is not a record,
// array, map or null, as a csv cell holds it: the JSON form of the value
// without quotes. t matters only for a timestamp (see FormatTimestamp) and
// may be nil, for a timestamp of microseconds. A value outside the value
// model (a uint64 or *big.Int of a SQL result, say) is as fmt prints it.
func Text(t *basefile.Type, v any) string {
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
		return FormatFloat(float64(v), 32)
	case float64:
		return FormatFloat(v, 64)
	case basefile.Decimal:
		return v.String()
	case basefile.Date:
		return v.String()
	case time.Time:
		if t == nil {
			return FormatTimestamp(v, basefile.LogicalTimestampMicros)
		}
		return FormatTimestamp(v, t.Logical)
	case []byte:
		return base64.StdEncoding.EncodeToString(v)
	}
	return fmt.Sprint(v)
}

// Cell returns v, a value of type t, as the text of a csv or table cell:
// null as null, a record, array or map as its JSON text (see AppendJSON),
// anything else as Text does.
func Cell(t *basefile.Type, v any, null string) string {
	switch v.(type) {
	case nil:
		return null
	case []any, map[string]any:
		return string(AppendJSON(nil, t, v))
	}
	return Text(t, v)
}

// TableCell returns v, a value of type t, as the text of a `--format table`
// cell: Cell's text, null being NULL, with its control characters escaped
// (see EscapeControl).
func TableCell(t *basefile.Type, v any) string {
	return EscapeControl(Cell(t, v, "NULL"))
}

// EscapeControl escapes the control characters of s (\n, \r and \t as
// such, the others as \x01 ... \x1f and \x7f) so that a table row stays on
// one line. Text without control characters is returned as it is; in text
// with some, invalid UTF-8 becomes U+FFFD.
func EscapeControl(s string) string {
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

// FormatTimestamp returns ts in RFC 3339, in UTC: without a fraction when
// ts is a whole second, otherwise with all the (truncated) digits of unit,
// the column's logical type: 3 for basefile.LogicalTimestampMillis, 6 for
// any other ("2023-04-01T17:01:00Z", "2023-04-01T17:01:00.120000Z").
func FormatTimestamp(ts time.Time, unit basefile.Logical) string {
	ts = ts.UTC()
	switch {
	case ts.Nanosecond() == 0:
		return ts.Format("2006-01-02T15:04:05Z")
	case unit == basefile.LogicalTimestampMillis:
		return ts.Format("2006-01-02T15:04:05.000Z")
	}
	return ts.Format("2006-01-02T15:04:05.000000Z")
}

// NonFinite returns the name of f when it is NaN or an infinity, as Java
// and the contract write them: "NaN", "Infinity" or "-Infinity".
func NonFinite(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// FormatFloat returns f, a float of bits bits (32 or 64), as its shortest
// decimal form, switching to an exponent below 1e-6 and from 1e21 on in
// magnitude, as encoding/json does ("0.1", "2", "1e-7", "1e+21"); NaN and
// the infinities are "NaN", "Infinity" and "-Infinity".
//
// The bounds are compared in float64, also for a float32, unlike
// encoding/json: float32(1e-6), a little below 1e-6, is "1e-6" where
// encoding/json writes 0.000001.
func FormatFloat(f float64, bits int) string {
	if s, ok := NonFinite(f); ok {
		return s
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

package ingest

// Coercion of loose values into the value model: CoerceValue, and the
// errors that name the column path of a value that does not fit.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Object is a JSON object as a decoder reads it: its members in input order.
// Names and Values have the same length; the values are loose values.
type Object struct {
	Names  []string
	Values []any
}

// valueError is a problem with a loose value of a column. The path below the
// column is collected, innermost element first, as the error travels up.
// Errors about a value that does not fit a type are formatted only when
// printed, since inference tries and drops many of them.
type valueError struct {
	column string
	path   []string // field names, and "[i]", `["key"]`, "[]" or "{}" elements
	msg    string   // the problem; empty for a value that does not fit typ
	value  any
	typ    *basefile.Type
	why    string
}

func (e *valueError) Error() string {
	// The column is the outermost element; the full slice makes append copy.
	where := valuePath(append(e.path[:len(e.path):len(e.path)], e.column))
	if e.msg != "" {
		return fmt.Sprintf("column %q: %s", where, e.msg)
	}
	return fmt.Sprintf("column %q: %s does not fit %s: %s", where, describeValue(e.value), typeName(e.typ), e.why)
}

// valuePath writes the path to a value inside a record, given innermost
// first as errors collect it on their way up: field names joined by dots,
// and elements of arrays and maps ("[1]", `["key"]`, "[]", "{}") written
// after what holds them, as in "r.tags[1].name".
func valuePath(innermostFirst []string) string {
	var b strings.Builder
	for i := len(innermostFirst) - 1; i >= 0; i-- {
		p := innermostFirst[i]
		if b.Len() > 0 && !isElement(p) {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// isElement tells an element of an array or a map in a value path from a
// field name.
func isElement(p string) bool { return strings.HasPrefix(p, "[") || strings.HasPrefix(p, "{") }

// at adds the path element elem above the place of the problem.
func (e *valueError) at(elem string) *valueError {
	e.path = append(e.path, elem)
	return e
}

func misfit(v any, t *basefile.Type, why string) *valueError {
	return &valueError{value: v, typ: t, why: why}
}

func indexElem(i int) string { return "[" + strconv.Itoa(i) + "]" }

func keyElem(k string) string { return "[" + strconv.Quote(k) + "]" }

// describeValue shows a loose value in an error message.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return string(x)
	case string:
		if len(x) > 64 {
			return strconv.Quote(x[:61]) + "..."
		}
		return strconv.Quote(x)
	case *Object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%v", v)
}

// typeName names a type in error messages, ignoring nullability.
func typeName(t *basefile.Type) string {
	switch {
	case t == nil:
		return "null"
	case t.Logical == basefile.LogicalDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case t.Logical != basefile.LogicalNone:
		return t.Logical.String()
	case t.Kind == basefile.KindArray:
		return "array of " + typeName(t.Items)
	case t.Kind == basefile.KindMap:
		return "map of " + typeName(t.Values)
	case t.Kind == basefile.KindRecord || t.Kind == basefile.KindEnum || t.Kind == basefile.KindFixed:
		return t.Kind.String() + " " + strconv.Quote(t.Name)
	}
	return t.Kind.String()
}

// CoerceValue converts the loose value v to a value of type t in the value
// model. column names the value in errors. The conversions, by type:
//
//   - boolean: a bool, or the string "true" or "false" in any case;
//   - int, long: a number, that is a json.Number or a string in JSON number
//     syntax, that is whole ("3.0" is 3) and in range;
//   - float, double: a number in range, or "NaN", "Inf" or "Infinity" with
//     an optional sign; a number written in full beyond 2^53 (2^24 for a
//     float) must be held exactly, and one that is not zero must not
//     become zero (see inexactFloat);
//   - decimal: a number with at most the scale's digits after the point and
//     the precision's digits in all, kept exactly at the type's scale;
//   - date: "YYYY-MM-DD" (a number is refused: its unit would be a guess);
//   - timestamp: RFC 3339 text ("2023-04-01T17:01:00.5Z"; a space may stand
//     for the T, and text without an offset is UTC) without non-zero digits
//     below the unit (a number is refused: its unit would be a guess);
//   - string and uuid: a string, or a number or bool as its JSON text;
//   - enum: a string among the symbols;
//   - bytes and fixed: standard base64 text (of the fixed size);
//   - record: an *Object whose members are fields of the record, missing
//     ones being null;
//   - array: a []any; map: an *Object; their elements converted in turn.
//
// Null fits nullable types only. The error names the column path and the
// value.
func CoerceValue(v any, t *basefile.Type, column string) (any, error) {
	out, err := coerce(v, t)
	if err != nil {
		err.column = column
		return nil, err
	}
	return out, nil
}

// coerce is CoerceValue. A nil t stands for a type only null fits.
func coerce(v any, t *basefile.Type) (any, *valueError) {
	switch {
	case v == nil:
		if t == nil || t.Nullable {
			return nil, nil
		}
		return nil, misfit(v, t, "the column is not nullable")
	case t == nil:
		return nil, misfit(v, t, "only null fits")
	}
	switch t.Logical {
	case basefile.LogicalDecimal:
		return coerceDecimal(v, t)
	case basefile.LogicalDate:
		return coerceDate(v, t)
	case basefile.LogicalTimestampMicros, basefile.LogicalTimestampMillis:
		return coerceTimestamp(v, t)
	}
	switch t.Kind {
	case basefile.KindBoolean:
		return coerceBoolean(v, t)
	case basefile.KindInt:
		n, err := coerceWhole(v, t, 32)
		return int32(n), err
	case basefile.KindLong:
		n, err := coerceWhole(v, t, 64)
		return n, err
	case basefile.KindFloat:
		f, err := coerceFloat(v, t, 32)
		return float32(f), err
	case basefile.KindDouble:
		return coerceFloat(v, t, 64)
	case basefile.KindString:
		return coerceString(v, t)
	case basefile.KindEnum:
		if s, ok := v.(string); ok && slices.Contains(t.Symbols, s) {
			return v, nil
		}
		return nil, misfit(v, t, "not a symbol of the enum")
	case basefile.KindBytes, basefile.KindFixed:
		return coerceBytes(v, t)
	case basefile.KindRecord:
		return coerceRecord(v, t)
	case basefile.KindArray:
		return coerceArray(v, t)
	case basefile.KindMap:
		return coerceMap(v, t)
	}
	return nil, misfit(v, t, "unsupported type")
}

func coerceBoolean(v any, t *basefile.Type) (any, *valueError) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch {
		case strings.EqualFold(x, "true"):
			return true, nil
		case strings.EqualFold(x, "false"):
			return false, nil
		}
	}
	return nil, misfit(v, t, "not a boolean")
}

func coerceString(v any, t *basefile.Type) (any, *valueError) {
	switch x := v.(type) {
	case string:
		return v, nil // v, not x: boxing x again would allocate
	case json.Number:
		return string(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return nil, misfit(v, t, "not a string")
}

// numberText returns the text of a json.Number or a string, and whether it
// is a number in JSON syntax.
func numberText(v any) (s string, ok bool) {
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return "", false
	}
	ok, _ = scanNumber(s)
	return s, ok
}

// scanNumber reports whether s is a number in JSON syntax, and whether it is
// written as a whole number: without fraction or exponent.
func scanNumber(s string) (ok, whole bool) {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false, false
	}
	whole = true
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false, false
		}
		whole = false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false, false
		}
		whole = false
	}
	return i == len(s), whole
}

// coerceWhole reads a whole number of bitSize bits.
func coerceWhole(v any, t *basefile.Type, bitSize int) (int64, *valueError) {
	s, ok := numberText(v)
	if !ok {
		return 0, misfit(v, t, "not a number")
	}
	n, why := parseWhole(s, bitSize)
	if why != "" {
		return 0, misfit(v, t, why)
	}
	return n, nil
}

// parseWhole parses s, a number in JSON syntax, as a whole number of bitSize
// bits; why tells what is wrong when it is not one.
func parseWhole(s string, bitSize int) (n int64, why string) {
	n, err := strconv.ParseInt(s, 10, bitSize)
	if err == nil {
		return n, ""
	}
	if err.(*strconv.NumError).Err == strconv.ErrRange {
		return 0, "out of range"
	}
	// A fraction or an exponent: "3.0", "1e3".
	d, err := basefile.ParseDecimal(s)
	if err != nil {
		return 0, "too many digits"
	}
	d, err = d.Rescale(0)
	if err != nil {
		return 0, "not a whole number"
	}
	u := d.Unscaled()
	if !u.IsInt64() {
		return 0, "out of range"
	}
	n = u.Int64()
	if bitSize == 32 && int64(int32(n)) != n {
		return 0, "out of range"
	}
	return n, ""
}

// coerceFloat reads a floating-point number of bitSize bits.
func coerceFloat(v any, t *basefile.Type, bitSize int) (float64, *valueError) {
	s, ok := numberText(v)
	if !ok && !isSpecialFloat(s) {
		return 0, misfit(v, t, "not a number")
	}
	f, err := strconv.ParseFloat(s, bitSize)
	if err != nil {
		return 0, misfit(v, t, "out of range")
	}
	if why := inexactFloat(s, f, bitSize); why != "" {
		return 0, misfit(v, t, why)
	}
	return f, nil
}

// inexactFloat returns why f, parsed from the text s as a float of bitSize
// bits, loses what s says, or "". A number written in full (without an
// exponent) from 2^53 on (2^24 for a float), where the type no longer
// holds every whole number, must be held exactly: two record keys, or a
// key and its update, would become one. A number that is not zero must
// not become zero. Other fractions take the nearest value, as in every
// reader of the type.
func inexactFloat(s string, f float64, bitSize int) string {
	limit := float64(1 << 53)
	if bitSize == 32 {
		limit = 1 << 24
	}
	if ok, _ := scanNumber(s); !ok {
		return "" // NaN or an infinity
	}
	if f == 0 {
		if strings.Trim(mantissa(s), "-+0.") != "" {
			return "too close to zero: the column's floating-point type would make it 0"
		}
		return ""
	}
	if math.Abs(f) < limit || strings.ContainsAny(s, "eE") {
		return ""
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		// Beyond the limit, float64 holds n exactly only if converting
		// back gives n (f, of bitSize bits, is held by float64 exactly).
		if f < 1<<63 && f >= -(1<<63) && int64(f) == n {
			return ""
		}
	} else if want, ok := new(big.Rat).SetString(s); ok && want.Cmp(new(big.Rat).SetFloat64(f)) == 0 {
		return ""
	}
	return "a number the column's floating-point type cannot hold exactly (a long, decimal or string column keeps its digits)"
}

// mantissa returns the number text s without its exponent.
func mantissa(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}

// isSpecialFloat reports whether s names NaN or an infinity.
func isSpecialFloat(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return strings.EqualFold(s, "nan") || strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity")
}

func coerceDecimal(v any, t *basefile.Type) (any, *valueError) {
	s, ok := numberText(v)
	if !ok {
		return nil, misfit(v, t, "not a number")
	}
	d, err := basefile.ParseDecimal(s)
	if err != nil {
		return nil, misfit(v, t, "too many digits")
	}
	if d, err = d.Rescale(t.Scale); err != nil {
		return nil, misfit(v, t, fmt.Sprintf("more than %d digits after the point", t.Scale))
	}
	if !d.Fits(t.Precision) {
		return nil, misfit(v, t, fmt.Sprintf("more than %d digits", t.Precision))
	}
	return d, nil
}

// coerceDate reads a date from its text. A number is refused: whether
// 20240101 is a day count (year 57385) or yyyyMMdd digits would be a
// guess.
func coerceDate(v any, t *basefile.Type) (any, *valueError) {
	if _, ok := numberText(v); ok {
		return nil, misfit(v, t, `a number is not a date: write it "YYYY-MM-DD" (a count of days, or yyyyMMdd digits, would be a guess)`)
	}
	if s, ok := v.(string); ok {
		if d, err := basefile.ParseDate(s); err == nil {
			return d, nil
		}
	}
	return nil, misfit(v, t, "not a YYYY-MM-DD date")
}

// coerceTimestamp reads a timestamp from its text. A number is refused:
// its unit (seconds, as Spark takes it, or the column's) would be a guess;
// and so is text with non-zero digits below the column's unit, which the
// column would drop.
func coerceTimestamp(v any, t *basefile.Type) (any, *valueError) {
	if _, ok := numberText(v); ok {
		return nil, misfit(v, t, `a number is not a timestamp: write it as RFC 3339 text ("2023-04-01T17:01:00.5Z"), as its unit (seconds, milliseconds or microseconds) would be a guess`)
	}
	unit, unitName := time.Microsecond, "microseconds"
	if t.Logical == basefile.LogicalTimestampMillis {
		unit, unitName = time.Millisecond, "milliseconds"
	}
	if s, ok := v.(string); ok {
		if ts, ok := parseTimestamp(s); ok {
			if !ts.Truncate(unit).Equal(ts) {
				return nil, misfit(v, t, "more fraction digits than the column's "+unitName+" keep")
			}
			return ts.UTC(), nil
		}
	}
	return nil, misfit(v, t, "not an RFC 3339 timestamp")
}

// parseTimestamp parses RFC 3339 text, with a space allowed for the T and a
// missing offset meaning UTC.
func parseTimestamp(s string) (time.Time, bool) {
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		ts, err = time.Parse("2006-01-02T15:04:05.999999999", s)
	}
	return ts, err == nil
}

func coerceBytes(v any, t *basefile.Type) (any, *valueError) {
	s, ok := v.(string)
	if !ok {
		return nil, misfit(v, t, "not base64 text")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err != nil:
		return nil, misfit(v, t, "not base64 text")
	case t.Kind == basefile.KindFixed && len(b) != t.Size:
		return nil, misfit(v, t, fmt.Sprintf("%d bytes, not %d", len(b), t.Size))
	}
	return b, nil
}

func coerceRecord(v any, t *basefile.Type) (any, *valueError) {
	o, err := objectOf(v, t)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(t.Fields))
	for i, name := range o.Names {
		j := fieldIndex(t.Fields, name, i)
		if j < 0 {
			return nil, misfit(v, t, fmt.Sprintf("the record has no field %q", name))
		}
		fv, err := coerce(o.Values[i], t.Fields[j].Type)
		if err != nil {
			return nil, err.at(name)
		}
		out[j] = fv
	}
	for j, f := range t.Fields {
		// A member that is there is null only if its type allows it.
		if out[j] == nil && f.Type != nil && !f.Type.Nullable {
			return nil, misfit(nil, f.Type, "the field is missing and not nullable").at(f.Name)
		}
	}
	return out, nil
}

func coerceArray(v any, t *basefile.Type) (any, *valueError) {
	a, ok := v.([]any)
	if !ok {
		return nil, misfit(v, t, "not an array")
	}
	out := make([]any, len(a))
	for i, e := range a {
		ev, err := coerce(e, t.Items)
		if err != nil {
			return nil, err.at(indexElem(i))
		}
		out[i] = ev
	}
	return out, nil
}

func coerceMap(v any, t *basefile.Type) (any, *valueError) {
	o, err := objectOf(v, t)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(o.Names))
	for i, k := range o.Names {
		ev, err := coerce(o.Values[i], t.Values)
		if err != nil {
			return nil, err.at(keyElem(k))
		}
		out[k] = ev
	}
	return out, nil
}

// objectOf returns v as an object for a record or map type t: one with as
// many names as values, and no name twice.
func objectOf(v any, t *basefile.Type) (*Object, *valueError) {
	o, ok := v.(*Object)
	switch {
	case !ok:
		return nil, misfit(v, t, "not an object")
	case len(o.Names) != len(o.Values):
		return nil, &valueError{msg: "malformed object: names and values differ in number"}
	}
	if dup, ok := duplicateName(o.Names); ok {
		return nil, &valueError{msg: fmt.Sprintf("the object has member %q twice", dup)}
	}
	return o, nil
}

// fieldIndex returns the index of the field name, looking first at hint, the
// index where it usually is; -1 if there is none.
func fieldIndex(fields []basefile.Field, name string, hint int) int {
	if hint < len(fields) && fields[hint].Name == name {
		return hint
	}
	return slices.IndexFunc(fields, func(f basefile.Field) bool { return f.Name == name })
}

package storage

// Schema inference and value coercion for loosely typed input.
//
// A loose value is what a JSON or CSV decoder yields before any schema
// applies: nil, bool, json.Number, string, []any of loose values, or *Object.
// CoerceValue converts one to a value of the value model (value.go) under a
// given type; an Inferrer infers the schema of whole records, preferring the
// types of the table they are written to, and converts them to rows.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
	typ    *Type
	why    string
}

func (e *valueError) Error() string {
	// The column is the outermost element; the full slice makes append copy.
	where := ValuePath(append(e.path[:len(e.path):len(e.path)], e.column))
	if e.msg != "" {
		return fmt.Sprintf("column %q: %s", where, e.msg)
	}
	return fmt.Sprintf("column %q: %s does not fit %s: %s", where, describeValue(e.value), typeName(e.typ), e.why)
}

// ValuePath writes the path to a value inside a record, given innermost
// first as errors collect it on their way up: field names joined by dots,
// and elements of arrays and maps ("[1]", `["key"]`, "[]", "{}") written
// after what holds them, as in "r.tags[1].name".
func ValuePath(innermostFirst []string) string {
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

func misfit(v any, t *Type, why string) *valueError {
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
func typeName(t *Type) string {
	switch {
	case t == nil:
		return "null"
	case t.Logical == LogicalDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case t.Logical != LogicalNone:
		return t.Logical.String()
	case t.Kind == KindArray:
		return "array of " + typeName(t.Items)
	case t.Kind == KindMap:
		return "map of " + typeName(t.Values)
	case t.Kind == KindRecord || t.Kind == KindEnum || t.Kind == KindFixed:
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
func CoerceValue(v any, t *Type, column string) (any, error) {
	out, err := coerce(v, t)
	if err != nil {
		err.column = column
		return nil, err
	}
	return out, nil
}

// coerce is CoerceValue. A nil t stands for a type only null fits.
func coerce(v any, t *Type) (any, *valueError) {
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
	case LogicalDecimal:
		return coerceDecimal(v, t)
	case LogicalDate:
		return coerceDate(v, t)
	case LogicalTimestampMicros, LogicalTimestampMillis:
		return coerceTimestamp(v, t)
	}
	switch t.Kind {
	case KindBoolean:
		return coerceBoolean(v, t)
	case KindInt:
		n, err := coerceWhole(v, t, 32)
		return int32(n), err
	case KindLong:
		n, err := coerceWhole(v, t, 64)
		return n, err
	case KindFloat:
		f, err := coerceFloat(v, t, 32)
		return float32(f), err
	case KindDouble:
		return coerceFloat(v, t, 64)
	case KindString:
		return coerceString(v, t)
	case KindEnum:
		if s, ok := v.(string); ok && slices.Contains(t.Symbols, s) {
			return v, nil
		}
		return nil, misfit(v, t, "not a symbol of the enum")
	case KindBytes, KindFixed:
		return coerceBytes(v, t)
	case KindRecord:
		return coerceRecord(v, t)
	case KindArray:
		return coerceArray(v, t)
	case KindMap:
		return coerceMap(v, t)
	}
	return nil, misfit(v, t, "unsupported type")
}

func coerceBoolean(v any, t *Type) (any, *valueError) {
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

func coerceString(v any, t *Type) (any, *valueError) {
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
func coerceWhole(v any, t *Type, bitSize int) (int64, *valueError) {
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
	d, err := ParseDecimal(s)
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
func coerceFloat(v any, t *Type, bitSize int) (float64, *valueError) {
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

func coerceDecimal(v any, t *Type) (any, *valueError) {
	s, ok := numberText(v)
	if !ok {
		return nil, misfit(v, t, "not a number")
	}
	d, err := ParseDecimal(s)
	if err != nil {
		return nil, misfit(v, t, "too many digits")
	}
	if d, err = d.Rescale(t.Scale); err != nil {
		return nil, misfit(v, t, fmt.Sprintf("more than %d digits after the point", t.Scale))
	}
	if !decimalFits(d, t.Precision) {
		return nil, misfit(v, t, fmt.Sprintf("more than %d digits", t.Precision))
	}
	return d, nil
}

// coerceDate reads a date from its text. A number is refused: whether
// 20240101 is a day count (year 57385) or yyyyMMdd digits would be a
// guess.
func coerceDate(v any, t *Type) (any, *valueError) {
	if _, ok := numberText(v); ok {
		return nil, misfit(v, t, `a number is not a date: write it "YYYY-MM-DD" (a count of days, or yyyyMMdd digits, would be a guess)`)
	}
	if s, ok := v.(string); ok {
		if d, err := ParseDate(s); err == nil {
			return d, nil
		}
	}
	return nil, misfit(v, t, "not a YYYY-MM-DD date")
}

// coerceTimestamp reads a timestamp from its text. A number is refused:
// its unit (seconds, as Spark takes it, or the column's) would be a guess;
// and so is text with non-zero digits below the column's unit, which the
// column would drop.
func coerceTimestamp(v any, t *Type) (any, *valueError) {
	if _, ok := numberText(v); ok {
		return nil, misfit(v, t, `a number is not a timestamp: write it as RFC 3339 text ("2023-04-01T17:01:00.5Z"), as its unit (seconds, milliseconds or microseconds) would be a guess`)
	}
	unit, unitName := time.Microsecond, "microseconds"
	if t.Logical == LogicalTimestampMillis {
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

func coerceBytes(v any, t *Type) (any, *valueError) {
	s, ok := v.(string)
	if !ok {
		return nil, misfit(v, t, "not base64 text")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err != nil:
		return nil, misfit(v, t, "not base64 text")
	case t.Kind == KindFixed && len(b) != t.Size:
		return nil, misfit(v, t, fmt.Sprintf("%d bytes, not %d", len(b), t.Size))
	}
	return b, nil
}

func coerceRecord(v any, t *Type) (any, *valueError) {
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

func coerceArray(v any, t *Type) (any, *valueError) {
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

func coerceMap(v any, t *Type) (any, *valueError) {
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
func objectOf(v any, t *Type) (*Object, *valueError) {
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
func fieldIndex(fields []Field, name string, hint int) int {
	if hint < len(fields) && fields[hint].Name == name {
		return hint
	}
	return slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
}

// The nullable primitive types inference gives loose values. They are shared:
// join copies a type before changing it, and Finish hands out copies.
var (
	inferredBoolean = &Type{Kind: KindBoolean, Nullable: true}
	inferredLong    = &Type{Kind: KindLong, Nullable: true}
	inferredDouble  = &Type{Kind: KindDouble, Nullable: true}
	inferredString  = &Type{Kind: KindString, Nullable: true}
)

// typer infers the types of loose values. A nil *Type stands for the type of
// null, about which nothing is known yet.
type typer struct {
	// text tells that strings are untyped text, which may read as numbers
	// and booleans.
	text bool
}

// typeOf returns the type of the loose value v: pref, if v fits it, or the
// type inferred from v, keeping pref's types for the parts of a record, array
// or map that fit them. pref may be nil. An inferred record is named as Spark
// names it: name, the field holding it, in the namespace parent, the full name
// of the enclosing record. Inferred types are nullable, elements and fields
// included.
func (ty typer) typeOf(v any, pref *Type, name, parent string) (*Type, *valueError) {
	if pref != nil {
		if v == nil {
			return nullable(pref), nil
		}
		_, misfit := coerce(v, pref)
		if misfit == nil {
			return pref, nil
		}
		switch x := v.(type) {
		case *Object:
			switch pref.Kind {
			case KindRecord:
				return ty.recordOf(x, pref, name, parent)
			case KindMap:
				return ty.mapOf(x, pref, name, parent)
			}
		case []any:
			if pref.Kind == KindArray {
				return ty.arrayOf(x, pref.Items, pref.Nullable, name, parent)
			}
		}
		// A value that is not null is nullable only where pref is.
		t, err := ty.infer(v, name, parent)
		if err != nil {
			return nil, err
		}
		if !isComplex(pref) && !Widens(pref, t) {
			// A write would refuse the column's type: the value that does
			// not fit, and why, is the better error.
			return nil, misfit
		}
		if t.Nullable == pref.Nullable {
			return t, nil
		}
		c := *t
		c.Nullable = pref.Nullable
		return &c, nil
	}
	return ty.infer(v, name, parent)
}

// infer returns the type inferred from the loose value v, named as typeOf
// says.
func (ty typer) infer(v any, name, parent string) (*Type, *valueError) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return inferredBoolean, nil
	case json.Number:
		return inferNumber(string(x))
	case string:
		if ty.text {
			return inferText(x), nil
		}
		return inferredString, nil
	case []any:
		return ty.arrayOf(x, nil, true, name, parent)
	case *Object:
		return ty.recordOf(x, nil, name, parent)
	}
	return nil, &valueError{msg: fmt.Sprintf("unsupported value of Go type %T", v)}
}

// inferNumber returns the type of a JSON number: long when it is written as
// a whole number, double otherwise. A whole number out of the range of a
// long is refused: as a double it would lose digits, and two keys could
// become one.
func inferNumber(s string) (*Type, *valueError) {
	ok, whole := scanNumber(s)
	if !ok {
		return nil, &valueError{msg: fmt.Sprintf("%q is not a JSON number", s)}
	}
	if t := numberType(s, whole); t != nil {
		return t, nil
	}
	if whole {
		return nil, &valueError{msg: fmt.Sprintf("%s is a whole number out of the range of a long; write it as a string, or give the column a decimal type (hoodiectl init --schema)", s)}
	}
	return nil, &valueError{msg: fmt.Sprintf("%s is out of the range of a double", s)}
}

// numberType returns long for a whole number in JSON syntax that fits one,
// double for any other number, or nil for a whole number out of the range
// of a long or a number out of the range of a double.
func numberType(s string, whole bool) *Type {
	if whole {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return inferredLong
		}
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return nil
	}
	return inferredDouble
}

// inferText returns the type of untyped text: long or double for a number in
// JSON syntax (in range: a longer whole number, an identifier perhaps, is a
// string), boolean for "true" or "false" in any case, string otherwise.
func inferText(s string) *Type {
	if ok, whole := scanNumber(s); ok {
		if t := numberType(s, whole); t != nil {
			return t
		}
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return inferredBoolean
	}
	return inferredString
}

// arrayOf returns the array type of elems, the join of their types (each
// preferring items).
func (ty typer) arrayOf(elems []any, items *Type, isNullable bool, name, parent string) (*Type, *valueError) {
	var joined *Type
	for i, e := range elems {
		t, err := ty.typeOf(e, items, name, parent)
		if err == nil {
			joined, err = joinNext(i, joined, t, ty.text, "elements")
		}
		if err != nil {
			return nil, err.at(indexElem(i))
		}
	}
	if items == nil {
		joined = nullable(joined)
	}
	return &Type{Kind: KindArray, Items: joined, Nullable: isNullable}, nil
}

// mapOf returns the map type of o, the join of its values' types (each
// preferring pref's values).
func (ty typer) mapOf(o *Object, pref *Type, name, parent string) (*Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	var joined *Type
	for i, v := range o.Values {
		t, err := ty.typeOf(v, pref.Values, name, parent)
		if err == nil {
			joined, err = joinNext(i, joined, t, ty.text, "values")
		}
		if err != nil {
			return nil, err.at(keyElem(o.Names[i]))
		}
	}
	return &Type{Kind: KindMap, Values: joined, Nullable: pref.Nullable}, nil
}

// recordOf returns the record type of o: pref's fields first, each with the
// type of its member preferring the field's type, then the other members in
// order, with inferred nullable types. Without pref the record is named name
// in the namespace parent.
func (ty typer) recordOf(o *Object, pref *Type, name, parent string) (*Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	rec := &Type{Kind: KindRecord, Name: name, Namespace: parent, Nullable: true}
	var prefFields []Field
	if pref != nil {
		rec = &Type{Kind: KindRecord, Name: pref.Name, Namespace: pref.Namespace, Doc: pref.Doc, Nullable: pref.Nullable}
		prefFields = pref.Fields
	}
	full := fullName(rec.Name, rec.Namespace, namespaceOf(parent))
	rec.Fields = make([]Field, 0, len(prefFields)+len(o.Names))
	for _, f := range prefFields {
		var m any
		if j := slices.Index(o.Names, f.Name); j >= 0 {
			m = o.Values[j]
		}
		t, err := ty.typeOf(m, f.Type, f.Name, full)
		if err != nil {
			return nil, err.at(f.Name)
		}
		f.Type = t
		rec.Fields = append(rec.Fields, f)
	}
	for i, n := range o.Names {
		if pref != nil && fieldIndex(prefFields, n, i) >= 0 {
			continue
		}
		if !validName(n) {
			return nil, (&valueError{msg: "not a valid field name (letters, digits and _, not starting with a digit)"}).at(n)
		}
		t, err := ty.typeOf(o.Values[i], nil, n, full)
		if err != nil {
			return nil, err.at(n)
		}
		rec.Fields = append(rec.Fields, Field{Name: n, Type: nullable(t)})
	}
	return rec, nil
}

// duplicateName returns a name that names holds twice.
func duplicateName(names []string) (string, bool) {
	if len(names) <= 16 {
		for i, n := range names {
			if slices.Contains(names[:i], n) {
				return n, true
			}
		}
		return "", false
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n, true
		}
		seen[n] = true
	}
	return "", false
}

// nullable returns t if it is nullable or nil, and a nullable copy otherwise.
func nullable(t *Type) *Type {
	if t == nil || t.Nullable {
		return t
	}
	return Nullable(t)
}

// join returns the least type that both a and b fit, which is a itself when b
// adds nothing to it: records get the fields of both (those of a first),
// arrays and maps the join of their elements, numbers the wider of long and
// double, strings and enums string; in text mode, any two primitive types
// join to string. A nil type (null) joins to the other made nullable. Types
// that do not join are a conflict; scope says what a and b are the types of,
// for the error.
func join(a, b *Type, text bool, scope string) (*Type, *valueError) {
	switch {
	case a == b:
		return a, nil
	case a == nil:
		return nullable(b), nil
	case b == nil:
		return nullable(a), nil
	}
	isNullable := a.Nullable || b.Nullable
	switch {
	case a.Kind == KindRecord && b.Kind == KindRecord:
		return joinRecords(a, b, isNullable, text, scope)
	case a.Kind == KindArray && b.Kind == KindArray:
		items, err := join(a.Items, b.Items, text, scope)
		if err != nil {
			return nil, err.at("[]")
		}
		if items == a.Items && isNullable == a.Nullable {
			return a, nil
		}
		c := *a
		c.Items, c.Nullable = items, isNullable
		return &c, nil
	case a.Kind == KindMap && b.Kind == KindMap:
		values, err := join(a.Values, b.Values, text, scope)
		if err != nil {
			return nil, err.at("{}")
		}
		if values == a.Values && isNullable == a.Nullable {
			return a, nil
		}
		c := *a
		c.Values, c.Nullable = values, isNullable
		return &c, nil
	case sameDefinition(a, b):
		if isNullable == a.Nullable {
			return a, nil
		}
		return nullable(a), nil
	}
	if kind, ok := joinPrimitives(a, b, text); ok {
		if a.Kind == kind && a.Logical == LogicalNone && isNullable == a.Nullable {
			return a, nil
		}
		return &Type{Kind: kind, Nullable: isNullable}, nil
	}
	return nil, &valueError{msg: fmt.Sprintf("%s here, but %s in earlier %s", typeName(b), typeName(a), scope)}
}

// joinNext joins the type t of element i to joined, the join of the types
// of the elements before it.
func joinNext(i int, joined, t *Type, text bool, scope string) (*Type, *valueError) {
	if i == 0 {
		return t, nil
	}
	return join(joined, t, text, scope)
}

// The ranks of numeric types, widest last.
const (
	rankNone = iota
	rankInt
	rankLong
	rankFloat
	rankDouble
	rankDecimal
)

func numericRank(t *Type) int {
	switch t.Logical {
	case LogicalNone:
		switch t.Kind {
		case KindInt:
			return rankInt
		case KindLong:
			return rankLong
		case KindFloat:
			return rankFloat
		case KindDouble:
			return rankDouble
		}
	case LogicalDecimal:
		return rankDecimal
	}
	return rankNone
}

// WideningRank is t's place on the chain schema evolution widens numbers
// along, int -> long -> float -> double, from 1; 0 for any other type.
func WideningRank(t *Type) int {
	if r := numericRank(t); r < rankDecimal {
		return r
	}
	return 0
}

// Widens reports whether a column of type from widens to type to along
// that chain.
func Widens(from, to *Type) bool {
	rf := WideningRank(from)
	return rf > 0 && rf < WideningRank(to)
}

// isComplex reports whether t holds values made of others.
func isComplex(t *Type) bool {
	return t.Kind == KindRecord || t.Kind == KindArray || t.Kind == KindMap
}

// joinPrimitives returns the kind that two different primitive types join to.
func joinPrimitives(a, b *Type, text bool) (Kind, bool) {
	ra, rb := numericRank(a), numericRank(b)
	isString := func(t *Type) bool { return t.Kind == KindString || t.Kind == KindEnum }
	switch {
	case ra != rankNone && rb != rankNone:
		if ra <= rankLong && rb <= rankLong {
			return KindLong, true
		}
		return KindDouble, true
	case isString(a) && isString(b), text && !isComplex(a) && !isComplex(b):
		return KindString, true
	}
	return 0, false
}

// joinRecords joins two records: a's fields in order, then b's other fields;
// a field missing on one side becomes nullable.
func joinRecords(a, b *Type, isNullable, text bool, scope string) (*Type, *valueError) {
	fields, changed := a.Fields, false
	change := func() {
		if !changed {
			fields, changed = slices.Clone(a.Fields), true
		}
	}
	for i, fa := range a.Fields {
		t := nullable(fa.Type)
		if j := fieldIndex(b.Fields, fa.Name, i); j >= 0 {
			var err *valueError
			if t, err = join(fa.Type, b.Fields[j].Type, text, scope); err != nil {
				return nil, err.at(fa.Name)
			}
		}
		if t != fa.Type {
			change()
			fields[i].Type = t
		}
	}
	for j, fb := range b.Fields {
		if fieldIndex(a.Fields, fb.Name, j) < 0 {
			change()
			fields = append(fields, Field{Name: fb.Name, Type: nullable(fb.Type), Doc: fb.Doc})
		}
	}
	if !changed && isNullable == a.Nullable {
		return a, nil
	}
	c := *a
	c.Fields, c.Nullable = fields, isNullable
	return &c, nil
}

// resolved returns a deep copy of t in which the parts only null was seen in
// (nil types) are nullable strings.
func resolved(t *Type) *Type {
	if t == nil {
		return Nullable(Primitive(KindString))
	}
	c := *t
	c.Symbols = slices.Clone(t.Symbols)
	switch t.Kind {
	case KindArray:
		c.Items = resolved(t.Items)
	case KindMap:
		c.Values = resolved(t.Values)
	case KindRecord:
		c.Fields = make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = resolved(f.Type)
			c.Fields[i] = f
		}
	}
	return &c
}

// InferOptions configures an Inferrer.
type InferOptions struct {
	// Table is the schema of the table the records are written to, without
	// meta fields, or nil for a table without a schema yet. Its name and
	// namespace name the inferred schema (which is "record" otherwise), and
	// the types of its columns are preferred (see Inferrer).
	Table *Schema
	// Text tells that strings are untyped text, as CSV fields are: text
	// that reads as a JSON number infers long or double, "true" or "false"
	// (in any case) boolean, and two primitive types that conflict join to
	// string rather than fail.
	Text bool
}

// An Inferrer turns loosely typed records into rows of one schema, inferring
// the schema as the records come.
//
// A column of the table whose values all fit the table's type (see
// CoerceValue) keeps that type. A number that does not fit but widens the
// column along int -> long -> float -> double (3.5 in an int column) has
// its type inferred instead, so that a writer can widen the column; any
// other value that does not fit ("abc" in a long column) is an error naming
// the column, the value and why. Inside records, arrays and maps only the
// parts that do not fit are inferred.
// Other columns are inferred as Spark infers JSON: a whole number is a long,
// another number a double, a bool a boolean, a string a string, an object a
// record (fields in first-seen order, named after the field holding it in
// the namespace of the enclosing record's full name), an array an array of
// its elements' type; a column only ever null is a string, but for
// IsDeletedField, a boolean. Types are joined
// across records and elements: int and long give long, other mixes of
// numbers double, and a field missing from some records is nullable; other
// mixes (string and long, say) are an error naming the column and both
// types. Columns are in first-seen order, and all nullable.
type Inferrer struct {
	ty        typer
	name      string // of the inferred record
	namespace string
	full      string // the record's full name
	table     *Schema
	cols      []inferColumn
	index     map[string]int // column index by name
	// chunks hold the rows, up to rowChunk to a chunk: growing one slice
	// of millions of rows would copy it over and over. Merge moves the
	// chunks of another Inferrer over, so that chunks but the last may be
	// short too.
	chunks [][][]any
	n      int     // the number of rows
	next   []*Type // the column types once the record being added is in
}

// rowChunk is the number of rows a chunk of Inferrer.chunks holds when Add
// starts it.
const rowChunk = 4096

type inferColumn struct {
	name string
	pref *Type // the table column's type made nullable, or nil
	typ  *Type // the join of the types of the values so far
	rows int   // the number of records whose values reach the column
}

// NewInferrer returns an Inferrer holding no records.
func NewInferrer(opts InferOptions) *Inferrer {
	in := &Inferrer{ty: typer{text: opts.Text}, name: "record", table: opts.Table, index: map[string]int{}}
	if opts.Table != nil {
		in.name, in.namespace = opts.Table.Name, opts.Table.Namespace
	}
	in.full = fullName(in.name, in.namespace, "")
	return in
}

// Column returns the index of the column name in the values Add takes,
// adding the column if it is new. A name that is not a valid Avro name is an
// error.
func (in *Inferrer) Column(name string) (int, error) {
	if i, ok := in.index[name]; ok {
		return i, nil
	}
	if !validName(name) {
		return 0, fmt.Errorf("column %q: not a valid column name (letters, digits and _, not starting with a digit)", name)
	}
	c := inferColumn{name: name}
	if in.table != nil {
		if f, ok := in.table.Field(name); ok {
			c.pref = nullable(f.Type)
		}
	}
	in.index[name] = len(in.cols)
	in.cols = append(in.cols, c)
	return len(in.cols) - 1, nil
}

// Add adds a record: values[i] is the loose value of column i (see Column),
// and columns past the end of values are null. The Inferrer keeps values as
// the record's row and converts it in place in Finish. An error names the
// column and the problem, and leaves the Inferrer as it was.
func (in *Inferrer) Add(values []any) error {
	if len(values) > len(in.cols) {
		return fmt.Errorf("storage: %d values for %d columns", len(values), len(in.cols))
	}
	in.next = in.next[:0]
	for i, v := range values {
		c := &in.cols[i]
		t, err := in.ty.typeOf(v, c.pref, c.name, in.full)
		if err == nil {
			t, err = join(c.typ, t, in.ty.text, "records")
		}
		if err != nil {
			err.column = c.name
			return err
		}
		in.next = append(in.next, t)
	}
	for i, t := range in.next {
		in.cols[i].typ, in.cols[i].rows = t, in.cols[i].rows+1
	}
	if k := len(in.chunks); k == 0 || len(in.chunks[k-1]) == cap(in.chunks[k-1]) {
		in.chunks = append(in.chunks, make([][]any, 0, rowChunk))
	}
	last := &in.chunks[len(in.chunks)-1]
	*last = append(*last, values)
	in.n++
	return nil
}

// Merge adds the records of other after those of in, as if Add had added
// them to in one by one, each with null for the columns of in it lacks
// (which matters for a column of the table: null has the column's type).
// Records can so be inferred in parts, each by an Inferrer of its own, and
// merged in order. The columns of other that in lacks are added after in's,
// in other's order.
//
// Joining the types part by part gives the types that joining them record
// by record does, and a conflict in one as in the other. An error names a
// column whose types conflict, not a record; it leaves in as it was, so that
// the caller can add other's records again by Add to learn which record
// conflicts. other must have been made with the options in was made with,
// and must not be used afterwards.
func (in *Inferrer) Merge(other *Inferrer) error {
	if other.ty != in.ty || other.table != in.table {
		return fmt.Errorf("storage: merge of Inferrers made with different options")
	}
	// in.next holds the types of the columns once merged, in's then the
	// new ones, and at the index in in of each column of other.
	in.next = in.next[:0]
	for j, c := range in.cols {
		in.next = append(in.next, c.typ)
		// The records of other that lack the column hold null there,
		// which has the table's type.
		if k, ok := other.index[c.name]; c.pref != nil && other.n > 0 && (!ok || other.cols[k].rows < other.n) {
			var err *valueError
			if in.next[j], err = join(in.next[j], c.pref, in.ty.text, "records"); err != nil {
				err.column = c.name
				return err
			}
		}
	}
	at := make([]int, len(other.cols))
	for i, c := range other.cols {
		j, ok := in.index[c.name]
		if !ok {
			at[i] = len(in.next)
			in.next = append(in.next, c.typ)
			continue
		}
		at[i] = j
		var err *valueError
		if in.next[j], err = join(in.next[j], c.typ, in.ty.text, "records"); err != nil {
			err.column = c.name
			return err
		}
	}
	for j := range in.cols {
		in.cols[j].typ, in.cols[j].rows = in.next[j], in.cols[j].rows+other.n
	}
	moved := false
	for i, c := range other.cols {
		if at[i] >= len(in.cols) {
			c.typ = in.next[at[i]]
			in.index[c.name] = len(in.cols)
			in.cols = append(in.cols, c)
		}
		moved = moved || at[i] != i
	}
	for _, chunk := range other.chunks {
		if moved {
			renumber(chunk, at)
		}
		in.chunks = append(in.chunks, chunk)
	}
	in.n += other.n
	other.chunks, other.n = nil, 0
	return nil
}

// renumber replaces each row of rows, values by column, by one with value i
// at column at[i].
func renumber(rows [][]any, at []int) {
	widths := make([]int, len(rows))
	total := 0
	for r, row := range rows {
		for i := range row {
			widths[r] = max(widths[r], at[i]+1)
		}
		total += widths[r]
	}
	slab := make([]any, total)
	for r, row := range rows {
		out := slab[:widths[r]:widths[r]]
		slab = slab[widths[r]:]
		for i, v := range row {
			out[at[i]] = v
		}
		rows[r] = out
	}
}

// NumColumns returns the number of columns.
func (in *Inferrer) NumColumns() int { return len(in.cols) }

// Len returns the number of records added.
func (in *Inferrer) Len() int { return in.n }

// Finish returns the inferred schema, its columns in first-seen order, and
// the records as its rows, in the order added and in the value model. The
// Inferrer must not be used afterwards.
func (in *Inferrer) Finish() (*Schema, [][]any, error) {
	if len(in.cols) == 0 {
		return nil, nil, fmt.Errorf("storage: the records have no columns")
	}
	fields := make([]Field, len(in.cols))
	for i, c := range in.cols {
		t := resolved(c.typ)
		if c.typ == nil && c.name == IsDeletedField {
			t = Primitive(KindBoolean)
		}
		t.Nullable = true
		fields[i] = Field{Name: c.name, Type: t}
	}
	s := &Schema{Name: in.name, Namespace: in.namespace, Fields: fields}
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	rows := make([][]any, 0, in.n)
	for _, chunk := range in.chunks {
		rows = append(rows, chunk...)
	}
	in.chunks = nil
	// The rows are converted in parts, rowChunk rows at least, one a
	// core; the error is the first part's that has one.
	parts := max(1, min(runtime.GOMAXPROCS(0), len(rows)/rowChunk))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		convert := func() { errs[p] = convertRows(rows, p*len(rows)/parts, (p+1)*len(rows)/parts, fields) }
		if p == parts-1 {
			convert()
		} else {
			wg.Go(convert)
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return s, rows, nil
}

// RowError is an error of Inferrer.Finish about one of the records added:
// a value that does not take the type its column ended with.
type RowError struct {
	Row int // the record's index, from 0, in the order added
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("storage: record %d: %v", e.Row+1, e.Err) }

func (e *RowError) Unwrap() error { return e.Err }

// convertRows converts rows[from:to] in place to values of the types of
// fields. An error is about the first row that does not convert.
func convertRows(rows [][]any, from, to int, fields []Field) error {
	for r := from; r < to; r++ {
		row := rows[r]
		if len(row) < len(fields) {
			row = append(row, make([]any, len(fields)-len(row))...)
		}
		for i, v := range row {
			cv, err := coerce(v, fields[i].Type)
			if err != nil {
				err.column = fields[i].Name
				return &RowError{Row: r, Err: err}
			}
			row[i] = cv
		}
		rows[r] = row
	}
	return nil
}

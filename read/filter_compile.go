package read

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// readCol is a column a scan reads: a top-level field of the table schema,
// or a field nested in records below one.
type readCol struct {
	name string   // the path joined with "."
	path []string // field names from the top level down
	typ  *basefile.Type
	doc  *string
}

// columnSet is the columns a scan reads, resolved against the table schema
// (meta fields included).
type columnSet struct {
	schema *basefile.Schema
	cols   []readCol
}

// UnknownColumnError reports a column that the table does not have.
type UnknownColumnError struct {
	// Column is the name as given ("a.b" for a nested field).
	Column string
	// Reason says why it does not resolve, with the names that would.
	Reason string
}

// Error returns `unknown column "<name>": <reason>`.
func (e *UnknownColumnError) Error() string {
	return fmt.Sprintf("unknown column %q: %s", e.Column, e.Reason)
}

// fieldNames lists the names of fields for messages.
func fieldNames(fields []basefile.Field) string {
	names := make([]string, 0, min(len(fields), maxNamesListed))
	for _, f := range fields[:min(len(fields), maxNamesListed)] {
		names = append(names, f.Name)
	}
	if left := len(fields) - len(names); left > 0 {
		names = append(names, fmt.Sprintf("and %d more", left))
	}
	return strings.Join(names, ", ")
}

// maxNamesListed bounds the column names an error lists, so that an error
// about a wide table stays one short line.
const maxNamesListed = 12

// resolve returns the index of the column at path, adding it if it is not
// read yet.
func (cs *columnSet) resolve(path []string) (int, error) {
	name := strings.Join(path, ".")
	for i, c := range cs.cols {
		if c.name == name {
			return i, nil
		}
	}
	col, err := resolveColumn(cs.schema, path)
	if err != nil {
		return 0, err
	}
	cs.cols = append(cs.cols, col)
	return len(cs.cols) - 1, nil
}

// resolveColumn finds the field at path in schema. A nested field is
// nullable when any record above it is.
func resolveColumn(schema *basefile.Schema, path []string) (readCol, error) {
	name := strings.Join(path, ".")
	fields := schema.Fields
	var t *basefile.Type
	var doc *string
	nullable := false
	for i, p := range path {
		j := -1
		for k, f := range fields {
			if f.Name == p {
				j = k
				break
			}
		}
		if j < 0 {
			if i == 0 {
				return readCol{}, &UnknownColumnError{Column: name, Reason: "the table's columns are " + fieldNames(fields)}
			}
			return readCol{}, &UnknownColumnError{Column: name, Reason: fmt.Sprintf("%q has no field %q; its fields are %s", strings.Join(path[:i], "."), p, fieldNames(fields))}
		}
		t, doc = fields[j].Type, fields[j].Doc
		nullable = nullable || t.Nullable
		if i < len(path)-1 {
			if t.Kind != basefile.KindRecord {
				return readCol{}, &UnknownColumnError{Column: name, Reason: fmt.Sprintf("%q is %s, not a record: only fields of records can be named with '.'", strings.Join(path[:i+1], "."), article(typeName(t)))}
			}
			fields = t.Fields
		}
	}
	if nullable && !t.Nullable {
		t = basefile.Nullable(t)
	}
	return readCol{name: name, path: path, typ: t, doc: doc}, nil
}

// article prefixes a type name with "a" or "an".
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// domain is how the values of a column compare.
type domain uint8

const (
	domNone    domain = iota // records, arrays, maps: not comparable
	domInt                   // int64 in scalar.i: int, long, date, timestamps (µs), boolean (0, 1)
	domFloat                 // float64 in scalar.f
	domDecimal               // scalar.d
	domBytes                 // scalar.s, compared bytewise
)

func domainOf(t *basefile.Type) domain {
	switch reprOf(t) {
	case reprBool, reprInt32, reprInt64:
		return domInt
	case reprFloat32, reprFloat64:
		return domFloat
	case reprDecimal:
		return domDecimal
	case reprBytes:
		return domBytes
	}
	return domNone
}

// scalar is a comparable value of a domain.
type scalar struct {
	i int64
	f float64
	d basefile.Decimal
	s string
}

// compareScalars compares a and b of domain dom.
func compareScalars(dom domain, a, b scalar) int {
	switch dom {
	case domInt:
		return cmpOrdered(a.i, b.i)
	case domFloat:
		return cmpOrdered(a.f, b.f)
	case domDecimal:
		return a.d.Cmp(b.d)
	}
	return strings.Compare(a.s, b.s)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scalarAt returns value i of v as a scalar; ok is false for records,
// arrays and maps.
func scalarAt(v *Vector, i int) (s scalar, ok bool) {
	switch v.repr {
	case reprBool:
		if v.bools[i] {
			s.i = 1
		}
	case reprInt32:
		s.i = int64(v.i32[i])
	case reprInt64:
		s.i = v.i64[i]
	case reprFloat32:
		s.f = float64(v.f32[i])
	case reprFloat64:
		s.f = v.f64[i]
	case reprBytes:
		s.s = string(v.Bytes(i))
	case reprDecimal:
		s.d = v.decs[i]
	default:
		return s, false
	}
	return s, true
}

// FilterError reports a filter that parses but does not fit the table: a
// literal of the wrong type for its column.
type FilterError struct {
	// Column is the column compared.
	Column string
	// Msg says what was wrong.
	Msg string
}

// Error returns `filter: column "<name>": <what was wrong>`.
func (e *FilterError) Error() string {
	return fmt.Sprintf("filter: column %q: %s", e.Column, e.Msg)
}

// compileFilter binds e to the columns of cs, adding the columns it reads.
func compileFilter(e Expr, cs *columnSet) (pred, error) {
	switch e := e.(type) {
	case *andExpr:
		l, r, err := compileBoth(e.l, e.r, cs)
		if err != nil {
			return nil, err
		}
		return &andPred{l, r}, nil
	case *orExpr:
		l, r, err := compileBoth(e.l, e.r, cs)
		if err != nil {
			return nil, err
		}
		return &orPred{l, r}, nil
	case *notExpr:
		x, err := compileFilter(e.x, cs)
		if err != nil {
			return nil, err
		}
		return &notPred{x}, nil
	case *nullExpr:
		col, err := cs.resolve(e.col.path)
		if err != nil {
			return nil, err
		}
		return &nullPred{col: col, not: e.not}, nil
	case *cmpExpr:
		col, dom, err := comparable(cs, e.col)
		if err != nil {
			return nil, err
		}
		c := cs.cols[col]
		k, op, err := bindLiteral(c, dom, e.op, e.lit)
		if err != nil {
			return nil, err
		}
		return &cmpPred{col: col, dom: dom, op: op, k: k}, nil
	case *inExpr:
		col, dom, err := comparable(cs, e.col)
		if err != nil {
			return nil, err
		}
		p := &inPred{col: col, dom: dom, not: e.not}
		for _, l := range e.lits {
			k, op, err := bindLiteral(cs.cols[col], dom, opEq, l)
			if err != nil {
				return nil, err
			}
			if op == opEq { // opNever: a value no column value can equal
				p.vals = append(p.vals, k)
			}
		}
		p.index()
		return p, nil
	}
	return nil, fmt.Errorf("filter: unknown expression %T", e)
}

func compileBoth(l, r Expr, cs *columnSet) (pred, pred, error) {
	lp, err := compileFilter(l, cs)
	if err != nil {
		return nil, nil, err
	}
	rp, err := compileFilter(r, cs)
	if err != nil {
		return nil, nil, err
	}
	return lp, rp, nil
}

// comparable resolves a column compared with literals.
func comparable(cs *columnSet, ref columnRef) (int, domain, error) {
	col, err := cs.resolve(ref.path)
	if err != nil {
		return 0, 0, err
	}
	t := cs.cols[col].typ
	dom := domainOf(t)
	if dom == domNone {
		return 0, 0, &FilterError{Column: ref.name(), Msg: fmt.Sprintf("it is %s, which cannot be compared; compare one of its fields, or test it with IS NULL", article(typeName(t)))}
	}
	return col, dom, nil
}

// bindLiteral converts lit to the domain of column c, compared with op. It
// may change the comparison: an int column compared with 10.5 becomes
// "<= 10" for "<", or opNever for "=".
func bindLiteral(c readCol, dom domain, op cmpOp, lit literal) (scalar, cmpOp, error) {
	t := c.typ
	wrong := func(want string) error {
		return &FilterError{Column: c.name, Msg: fmt.Sprintf("it is %s: compare it with %s, not %s", article(typeName(t)), want, lit.describe())}
	}
	var k scalar
	switch {
	case t.Kind == basefile.KindBoolean:
		if lit.kind != litBool {
			return k, op, wrong("TRUE or FALSE")
		}
		if lit.b {
			k.i = 1
		}
	case t.Logical == basefile.LogicalDate:
		if lit.kind != litString {
			return k, op, wrong("a 'YYYY-MM-DD' string")
		}
		d, err := basefile.ParseDate(lit.text)
		if err != nil {
			return k, op, wrong("a 'YYYY-MM-DD' string")
		}
		k.i = int64(d)
	case isTimestamp(t):
		if lit.kind != litString {
			return k, op, wrong("a timestamp string such as '2023-04-01 17:01:00' or '2023-04-01T17:01:00.123456Z'")
		}
		ts, err := parseTimestampLiteral(lit.text)
		if err != nil {
			return k, op, wrong("a timestamp string such as '2023-04-01 17:01:00' or '2023-04-01T17:01:00.123456Z'")
		}
		// UnixMicro is the floor: the nanoseconds are never negative.
		op, k.i = intBound(op, ts.UnixMicro(), ts.Nanosecond()%1000 == 0, 0)
	case dom == domInt:
		if lit.kind != litNumber {
			return k, op, wrong("a number")
		}
		floor, exact, clamp, err := integerPart(lit.text)
		if err != nil {
			return k, op, wrong("a number")
		}
		op, k.i = intBound(op, floor, exact, clamp)
	case dom == domFloat:
		if lit.kind != litNumber {
			return k, op, wrong("a number")
		}
		f, err := strconv.ParseFloat(lit.text, 64)
		if err != nil && !isRangeError(err) {
			return k, op, wrong("a number")
		}
		k.f = f
	case dom == domDecimal:
		if lit.kind != litNumber {
			return k, op, wrong("a number")
		}
		d, err := basefile.ParseDecimal(lit.text)
		if err != nil {
			return k, op, wrong("a number")
		}
		k.d = d
	default: // domBytes
		if lit.kind != litString {
			return k, op, wrong("a 'string'")
		}
		k.s = lit.text
	}
	return k, op, nil
}

// integerPart returns the floor of the number s as an int64, whether s is
// that integer exactly, and clamp -1 or +1 when s lies below or above the
// int64 range.
func integerPart(s string) (floor int64, exact bool, clamp int, err error) {
	d, err := basefile.ParseDecimal(s)
	if err != nil {
		return 0, false, 0, err
	}
	u := d.Unscaled()
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale())), nil)
	q, m := new(big.Int).DivMod(u, pow, new(big.Int)) // Euclidean: m >= 0, q is the floor
	exact = m.Sign() == 0
	switch {
	case q.Cmp(big.NewInt(math.MinInt64)) < 0:
		return 0, exact, -1, nil
	case q.Cmp(big.NewInt(math.MaxInt64)) > 0:
		return 0, exact, 1, nil
	}
	return q.Int64(), exact, 0, nil
}

// intBound turns "x op v" for integers x into an equivalent comparison with
// an integer, where v = floor (+ a fraction unless exact), or lies beyond
// the int64 range when clamp is not 0.
func intBound(op cmpOp, floor int64, exact bool, clamp int) (cmpOp, int64) {
	switch {
	case clamp != 0:
		below := clamp < 0 // v is below every x
		switch op {
		case opEq:
			return opNever, 0
		case opNe:
			return opAlways, 0
		case opLt, opLe:
			if below {
				return opNever, 0
			}
			return opAlways, 0
		default:
			if below {
				return opAlways, 0
			}
			return opNever, 0
		}
	case exact:
		return op, floor
	}
	switch op { // floor < v < floor+1
	case opEq:
		return opNever, 0
	case opNe:
		return opAlways, 0
	case opLt, opLe:
		return opLe, floor
	default:
		return opGt, floor
	}
}

// timestampLayouts are the forms of a timestamp literal; those without a
// zone are read in UTC.
var timestampLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	time.DateOnly,
}

var errTimestamp = errors.New("not a timestamp")

// parseTimestampLiteral parses a timestamp written in a filter.
func parseTimestampLiteral(s string) (time.Time, error) {
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errTimestamp
}

package read

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

func TestParseFilter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"id = 1", "id = 1"},
		{"structField.field2 >= -1.5e3", "structField.field2 >= -1.5e3"},
		{"10 < x", "x > 10"},
		{"10 >= x", "x <= 10"},
		{"x <> 'it''s'", "x != 'it''s'"},
		{"x != .5", "x != .5"},
		{"NOT a IS NULL", "NOT a IS NULL"},
		{"a is not null and (b in (1, 2) or c not in ('x'))", "(a IS NOT NULL AND (b IN (1, 2) OR c NOT IN ('x')))"},
		{"a = 1 OR b = 2 AND c = 3", "(a = 1 OR (b = 2 AND c = 3))"},
		{"NOT a = 1 AND b = 2", "(NOT a = 1 AND b = 2)"},
		{"flag", "flag = TRUE"},
		{"flag AND NOT (other)", "(flag = TRUE AND NOT other = TRUE)"},
		{"b = false", "b = FALSE"},
		{`"in".x = true`, `"in".x = TRUE`},
		{`"select".x = true`, `select.x = TRUE`},
		{"`a b` = 1", `"a b" = 1`},
		{`"say ""hi""" = 'x'`, `"say ""hi""" = 'x'`},
		{"t > '2023-04-01 17:01:00'", "t > '2023-04-01 17:01:00'"},
		{"  ( ( x < 1 ) )  ", "x < 1"},
		{"a.in = 1", `a."in" = 1`},
	}
	for _, tt := range tests {
		e, err := ParseFilter(tt.in)
		if err != nil {
			t.Errorf("ParseFilter(%q): %v", tt.in, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ParseFilter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseFilterErrors(t *testing.T) {
	tests := []struct {
		in  string
		pos int
		msg string
	}{
		{"", 1, "expected a column, a literal or '(', found the end of the filter"},
		{"id = ", 6, "expected a column, a literal or '(', found the end of the filter"},
		{"id = 1 AND", 11, "expected a column, a literal or '(', found the end of the filter"},
		{"(id = 1", 8, "expected AND, OR or ')', found the end of the filter"},
		{"id = 1)", 7, `expected AND, OR or the end of the filter, found ")"`},
		{"id IN 1", 7, `expected '(' after IN, found "1"`},
		{"id IN (1 2)", 10, `expected ',' or ')' in the IN list, found "2"`},
		{"id IN (a)", 8, `expected a literal (a number, a 'string', TRUE or FALSE), found column "a"`},
		{"id NOT 1", 8, `expected IN after NOT, found "1"`},
		{"id IS 1", 7, `expected NULL or NOT NULL after IS, found "1"`},
		{"name = 'abc", 8, "unterminated string: expected a closing '"},
		{`"abc = 1`, 1, `unterminated quoted name: expected a closing "`},
		{`"" = 1`, 1, "expected a column name, found an empty quoted name"},
		{"a = b", 5, `expected a literal after =, found column "b"`},
		{"1 = 2", 5, `expected a column after =, found "2"`},
		{"1 AND x", 3, `expected a comparison operator after "1", found "AND"`},
		{"id = NULL", 6, "found NULL (test for null with IS NULL or IS NOT NULL)"},
		{"id == 1", 5, `expected a column, a literal or '(', found "="`},
		{"id % 2 = 0", 4, `expected a comparison operator, IN, IS, AND, OR or the end of the filter after column "id", found "%"`},
		{"a ! 1", 3, `found "!"`},
		{"a. = 1", 4, `expected a field name after "a.", found "="`},
		{"x = 1.2.3", 8, `expected AND, OR or the end of the filter, found ".3"`},
		{"x = +.e5", 5, `malformed number "+.e5"`},
		{"x = 'é' AND ü", 13, `expected a column, a literal or '(', found "ü"`},
		{strings.Repeat("(", 300) + "a", 202, "the filter nests deeper than 200 levels"},
		{strings.Repeat("NOT ", 300) + "a", 805, "the filter nests deeper than 200 levels"},
	}
	for _, tt := range tests {
		_, err := ParseFilter(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseFilter(%q): %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Pos != tt.pos || !strings.Contains(se.Msg, tt.msg) || se.Filter != tt.in {
			t.Errorf("ParseFilter(%q): position %d %q, want position %d %q", tt.in, se.Pos, se.Msg, tt.pos, tt.msg)
		}
	}
	err := &SyntaxError{Filter: "a ! 1", Pos: 3, Msg: "x"}
	if got, want := err.Error(), `filter "a ! 1": position 3: x`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// FuzzParseFilter checks that the parser never panics, reports positions
// within the input, and that what it parses prints to a filter that
// parses back to the same expression.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"id = 1", "a.b >= -1.5e3 AND NOT (c IN (1, 'x', TRUE) OR d IS NOT NULL)", `"q""x".y <> 'it''s'`,
		"x NOT IN (1,2", "((((", "flag", "1 < x", "`a b` = .5", "id % 2", "'unterminated", "a = 1e400",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseFilter(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseFilter(%q): %T %v", s, err, err)
			}
			if se.Pos < 1 || se.Pos > utf8.RuneCountInString(s)+1 {
				t.Fatalf("ParseFilter(%q): position %d out of range", s, se.Pos)
			}
			return
		}
		printed := e.String()
		again, err := ParseFilter(printed)
		if err != nil {
			t.Fatalf("ParseFilter(%q) printed %q, which does not parse: %v", s, printed, err)
		}
		if again.String() != printed {
			t.Fatalf("ParseFilter(%q) printed %q, which parses to %q", s, printed, again.String())
		}
	})
}

// evalSchema is the schema of the batch evalBatch builds.
func evalSchema() *basefile.Schema {
	return &basefile.Schema{Name: "t", Fields: []basefile.Field{
		field("i", nullable(basefile.KindInt)),
		field("s", nullable(basefile.KindString)),
		field("f", nullable(basefile.KindDouble)),
		field("b", nullable(basefile.KindBoolean)),
		field("d", basefile.Nullable(basefile.DecimalType(6, 2))),
		field("ts", basefile.Nullable(basefile.TimestampMillisType())),
	}}
}

// evalBatch holds three rows of evalSchema's columns.
func evalBatch(t *testing.T, cs *columnSet) *Batch {
	t.Helper()
	values := map[string][]any{
		"i":  {int32(1), nil, int32(3)},
		"s":  {"a", "b", nil},
		"f":  {math.NaN(), 1.5, nil},
		"b":  {true, nil, false},
		"d":  {basefile.NewDecimalInt64(150, 2), basefile.NewDecimalInt64(-1, 0), nil},
		"ts": {nil, mustTime(t, "2023-04-01T17:01:00.123Z"), mustTime(t, "1969-12-31T23:59:59.999Z")},
	}
	b := &Batch{n: 3}
	for _, c := range cs.cols {
		v := newVector(c.typ)
		for _, x := range values[c.name] {
			if err := v.appendValue(x); err != nil {
				t.Fatal(err)
			}
		}
		b.cols = append(b.cols, v)
	}
	return b
}

func TestFilterEval(t *testing.T) {
	const F, N, T = tFalse, tNull, tTrue
	tests := []struct {
		where string
		want  [3]truth
	}{
		{"i > 1", [3]truth{F, N, T}},
		{"i > 1 OR s = 'a'", [3]truth{T, N, T}},
		{"i > 1 AND s = 'a'", [3]truth{F, F, N}},
		{"NOT (i > 1)", [3]truth{T, N, F}},
		{"i = 1.5", [3]truth{F, N, F}},
		{"i != 1.5", [3]truth{T, N, T}},
		{"i < 1.5", [3]truth{T, N, F}},
		{"i >= 1.5", [3]truth{F, N, T}},
		{"i < 99999999999999999999", [3]truth{T, N, T}},
		{"i > -99999999999999999999", [3]truth{T, N, T}},
		{"i = 99999999999999999999", [3]truth{F, N, F}},
		{"i IN (3, 4.5)", [3]truth{F, N, T}},
		{"i NOT IN (3)", [3]truth{T, N, F}},
		{"i IS NULL", [3]truth{F, T, F}},
		{"s IS NOT NULL", [3]truth{T, T, F}},
		{"s >= 'b'", [3]truth{F, T, N}},
		{"s IN ('b', 'c')", [3]truth{F, T, N}},
		{"f = 1.5", [3]truth{F, T, N}},
		{"f != 1.5", [3]truth{T, F, N}},
		{"f > 0", [3]truth{F, T, N}},
		{"f IN (1.5)", [3]truth{F, T, N}},
		{"b", [3]truth{T, N, F}},
		{"b = false", [3]truth{F, N, T}},
		{"b > false", [3]truth{T, N, F}},
		{"d = 1.5", [3]truth{T, F, N}},
		{"d < 0", [3]truth{F, T, N}},
		{"d IN (-1, 2)", [3]truth{F, T, N}},
		{"ts = '2023-04-01 17:01:00.123'", [3]truth{N, T, F}},
		{"ts > '2023-04-01T17:01:00.1229999Z'", [3]truth{N, T, F}},
		{"ts <= '2023-04-01T19:01:00.123+02:00'", [3]truth{N, T, T}},
		{"ts < '1970-01-01'", [3]truth{N, F, T}},
		{"ts < '1969-12-31T23:59:59.9995Z'", [3]truth{N, F, T}},
		{"ts > '1969-12-31T23:59:59.9985Z'", [3]truth{N, T, T}},
	}
	for _, tt := range tests {
		cs := &columnSet{schema: evalSchema()}
		for _, f := range cs.schema.Fields {
			cs.resolve([]string{f.Name})
		}
		e, err := ParseFilter(tt.where)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compileFilter(e, cs)
		if err != nil {
			t.Fatalf("%s: %v", tt.where, err)
		}
		out := make([]truth, 3)
		p.eval(evalBatch(t, cs), out)
		if [3]truth(out) != tt.want {
			t.Errorf("%s = %v, want %v", tt.where, out, tt.want)
		}
	}
}

func mustTime(t *testing.T, s string) any {
	t.Helper()
	ts, err := parseTimestampLiteral(s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestFilterPossible(t *testing.T) {
	ints := func(lo, hi int64, nulls bool) colRange {
		return colRange{known: true, mayValue: true, mayNull: nulls, hasBounds: true, min: scalar{i: lo}, max: scalar{i: hi}}
	}
	floats := func(lo, hi float64) colRange {
		return colRange{known: true, mayValue: true, hasBounds: true, min: scalar{f: lo}, max: scalar{f: hi}}
	}
	allNull := colRange{known: true, mayNull: true}
	strs := colRange{known: true, mayValue: true, mightHold: func(s string) bool { return s == "in" }}
	const F, N, T = 1 << tFalse, 1 << tNull, 1 << tTrue
	tests := []struct {
		where string
		r     colRange // of every column
		want  truthSet
	}{
		{"i = 5", ints(1, 3, false), F},
		{"i = 5", ints(1, 3, true), F | N},
		{"i = 2", ints(1, 3, false), T | F},
		{"i = 2", ints(2, 2, false), T},
		{"i != 2", ints(2, 2, false), F},
		{"i < 1", ints(1, 3, false), F},
		{"i <= 1", ints(1, 3, false), T | F},
		{"i > 3", ints(1, 3, false), F},
		{"i >= 3", ints(1, 3, false), T | F},
		{"i IN (5, 7)", ints(1, 3, false), F},
		{"i IN (1)", ints(1, 1, false), T},
		{"i NOT IN (1)", ints(1, 1, false), F},
		{"i = 1.5", ints(1, 3, false), F},
		{"i != 1.5", ints(1, 3, false), T},
		{"i IS NULL", ints(1, 3, false), F},
		{"i IS NOT NULL", allNull, F},
		{"i > 0", allNull, N},
		{"NOT i > 0", allNull, N},
		{"i IS NULL", colRange{}, T | F},
		{"i > 0", colRange{}, T | F | N},
		{"f = 2", floats(2, 2), T | F},
		{"f != 2", floats(2, 2), T | F},
		{"f > 5", floats(1, 3), F},
		{"NOT f > 5", floats(1, 3), T},
		{"f IN (5)", floats(1, 3), F},
		{"s = 'out'", strs, F},
		{"s = 'in'", strs, T | F},
		{"s IN ('out', 'other')", strs, F},
		{"s NOT IN ('out')", strs, T},
		{"i = 5 OR i = 2", ints(1, 3, false), T | F},
		{"i = 5 AND i = 2", ints(1, 3, false), F},
	}
	schema := &basefile.Schema{Name: "t", Fields: []basefile.Field{
		field("i", nullable(basefile.KindLong)), field("f", nullable(basefile.KindDouble)), field("s", nullable(basefile.KindString)),
	}}
	for _, tt := range tests {
		cs := &columnSet{schema: schema}
		e, err := ParseFilter(tt.where)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compileFilter(e, cs)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.possible(func(int) colRange { return tt.r }); got != tt.want {
			t.Errorf("%s over %+v: possible %03b, want %03b", tt.where, tt.r, got, tt.want)
		}
	}
}

func TestIntegerPart(t *testing.T) {
	tests := []struct {
		in    string
		floor int64
		exact bool
		clamp int
	}{
		{"10", 10, true, 0},
		{"10.5", 10, false, 0},
		{"-10.5", -11, false, 0},
		{"1e3", 1000, true, 0},
		{"9223372036854775807", math.MaxInt64, true, 0},
		{"9223372036854775807.5", math.MaxInt64, false, 0},
		{"9223372036854775808", 0, true, 1},
		{"-9223372036854775808", math.MinInt64, true, 0},
		{"-9223372036854775808.5", 0, false, -1},
	}
	for _, tt := range tests {
		floor, exact, clamp, err := integerPart(tt.in)
		if err != nil || floor != tt.floor || exact != tt.exact || clamp != tt.clamp {
			t.Errorf("integerPart(%s) = %d, %v, %d, %v; want %d, %v, %d", tt.in, floor, exact, clamp, err, tt.floor, tt.exact, tt.clamp)
		}
	}
}

// TestFieldNamesOfAWideTable checks that an error lists a few of a wide
// table's columns and counts the others.
func TestFieldNamesOfAWideTable(t *testing.T) {
	fields := make([]basefile.Field, 40)
	for i := range fields {
		fields[i].Name = fmt.Sprintf("column_%d", i)
	}
	got := fieldNames(fields)
	if !strings.HasPrefix(got, "column_0, column_1, ") || !strings.HasSuffix(got, "column_11, and 28 more") {
		t.Errorf("fieldNames = %q", got)
	}
	if got := fieldNames(fields[:2]); got != "column_0, column_1" {
		t.Errorf("fieldNames of two = %q", got)
	}
}

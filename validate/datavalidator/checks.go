package datavalidator

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
)

// column is a column of a table's view: its name and DuckDB type.
type column struct {
	Name string
	Type string
}

// numeric reports whether the column holds numbers.
func (c column) numeric() bool {
	t := strings.ToUpper(c.Type)
	switch t {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE":
		return true
	}
	return strings.HasPrefix(t, "DECIMAL")
}

// text reports whether the column holds strings.
func (c column) text() bool { return strings.ToUpper(c.Type) == "VARCHAR" }

func (c column) sql() string { return sqlengine.QuoteIdent(c.Name) }

// columns are a view's columns, looked up as DuckDB does: ignoring case.
type columns []column

func (cs columns) find(name string) (column, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range cs {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return column{}, false
}

// literal is a value of a check parameter: a number, string or boolean, or
// for rangeCheck's bounds another column.
type literal struct {
	kind literalKind
	text string // the number's SQL text, the string, "true"/"false", the column name
}

type literalKind int

const (
	numberLit literalKind = iota
	stringLit
	boolLit
	columnLit
)

// numberText matches a decimal number as both YAML and DuckDB write it.
var numberText = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// newLiteral types the value of parameter p after substitution (text):
// YAML numbers and booleans as such, a string that held variables and
// reads as a number as a number (data-validator does the same), other
// strings as strings; "`col" names a column where allowColumn.
func newLiteral(p Param, text string, allowColumn bool) (literal, error) {
	if p.IsList {
		return literal{}, fmt.Errorf("want a single value, got a list")
	}
	switch p.Tag {
	case "!!int", "!!float":
		return numberLiteral(text)
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(text))
		if err != nil {
			return literal{}, fmt.Errorf("%q is not a boolean", text)
		}
		return literal{kind: boolLit, text: strconv.FormatBool(b)}, nil
	}
	if allowColumn && strings.HasPrefix(text, "`") {
		name := strings.TrimSuffix(strings.TrimPrefix(text, "`"), "`")
		if name == "" {
			return literal{}, fmt.Errorf("%q names no column", text)
		}
		return literal{kind: columnLit, text: name}, nil
	}
	if hasVars(p.Text) && numberText.MatchString(text) {
		return numberLiteral(text)
	}
	return literal{kind: stringLit, text: text}, nil
}

// numberLiteral reads a YAML number (decimal, hex, octal, 1_000) as the
// text of a DuckDB numeric literal.
func numberLiteral(text string) (literal, error) {
	if numberText.MatchString(text) {
		t := strings.TrimPrefix(text, "+")
		if strings.ContainsAny(t, "eE") {
			f, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsInf(f, 0) {
				return literal{}, fmt.Errorf("%q is not a finite number", text)
			}
		}
		return literal{kind: numberLit, text: t}, nil
	}
	if i, ok := new(big.Int).SetString(strings.ReplaceAll(text, "_", ""), 0); ok {
		return literal{kind: numberLit, text: i.String()}, nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return literal{}, fmt.Errorf("%q is not a finite number", text)
	}
	return literal{kind: numberLit, text: strconv.FormatFloat(f, 'g', -1, 64)}, nil
}

// sql returns the literal as DuckDB SQL.
func (l literal) sql() string {
	switch l.kind {
	case numberLit:
		if strings.ContainsAny(l.text, "eE") {
			return "CAST(" + sqlengine.QuoteString(l.text) + " AS DOUBLE)"
		}
		return l.text
	case boolLit:
		return strings.ToUpper(l.text)
	case columnLit:
		return sqlengine.QuoteIdent(l.text)
	}
	return sqlengine.QuoteString(l.text)
}

// json returns the literal as the report shows it.
func (l literal) json() any {
	switch l.kind {
	case numberLit:
		return json.Number(l.text)
	case boolLit:
		return l.text == "true"
	case columnLit:
		return "`" + l.text
	}
	return l.text
}

func (l literal) String() string {
	if l.kind == columnLit {
		return "column " + l.text
	}
	if l.kind == stringLit {
		return strconv.Quote(l.text)
	}
	return l.text
}

// float returns a number literal's value.
func (l literal) float() float64 {
	f, _ := strconv.ParseFloat(l.text, 64)
	return f
}

// threshold is how many failing rows a row check tolerates: a count, a
// fraction of the row count (< 1) or a percentage of it ("33%").
type threshold struct {
	text    string
	value   float64
	percent bool
}

var thresholdText = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(%?)\s*$`)

func parseThreshold(s string) (threshold, error) {
	m := thresholdText.FindStringSubmatch(s)
	if m == nil {
		return threshold{}, fmt.Errorf("threshold %q: want a count (1000), a fraction of the rows (0.25) or a percentage (33%%)", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(v, 0) {
		return threshold{}, fmt.Errorf("threshold %q is not a number", s)
	}
	if m[2] == "%" && v > 100 {
		return threshold{}, fmt.Errorf("threshold %q is over 100%%", s)
	}
	return threshold{text: strings.TrimSpace(s), value: v, percent: m[2] == "%"}, nil
}

// allowed returns how many failing rows of rowCount the threshold allows:
// the check fails when more do.
func (t threshold) allowed(rowCount int64) int64 {
	switch {
	case t.text == "":
		return 0
	case t.percent:
		return int64(math.Floor(t.value * float64(rowCount) / 100))
	case t.value < 1:
		return int64(math.Floor(t.value * float64(rowCount)))
	}
	return int64(math.Floor(t.value))
}

// check is a check ready to run on its table: its parameters substituted,
// typed and resolved against the table's columns.
type check struct {
	typ   string
	where string // names the table and check in errors
	label string // names the check in the report
	// params are the parameters as the report shows them.
	params CheckParams

	col       column   // the checked column
	cols      []column // uniqueCheck's columns
	threshold threshold
	minRows   int64
	value     literal // columnMaxCheck
	min, max  *literal
	inclusive bool
	minLen    *int64
	maxLen    *int64
	regex     string
}

// CheckParams are a check's parameters, as the report shows them (after
// variable substitution).
type CheckParams struct {
	Column     string   `json:"column,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	MinNumRows *int64   `json:"minNumRows,omitempty"`
	Value      any      `json:"value,omitempty"`
	MinValue   any      `json:"minValue,omitempty"`
	MaxValue   any      `json:"maxValue,omitempty"`
	Inclusive  *bool    `json:"inclusive,omitempty"`
	MinLength  *int64   `json:"minLength,omitempty"`
	MaxLength  *int64   `json:"maxLength,omitempty"`
	Regex      string   `json:"regex,omitempty"`
	Threshold  string   `json:"threshold,omitempty"`
}

// rowBased reports whether the check counts failing rows (and so has a
// threshold and example rows).
func (c *check) rowBased() bool {
	switch c.typ {
	case "nullCheck", "negativeCheck", "rangeCheck", "stringLengthCheck", "stringRegexCheck":
		return true
	}
	return false
}

// compileCheck substitutes the variables of c and types its parameters;
// table columns are resolved later (resolve).
func compileCheck(c Check, where string, vars map[string]string) (*check, error) {
	spec := checkSpecs[c.Type]
	text := map[string]string{}
	for k, p := range c.Params {
		if p.IsList {
			continue
		}
		s := p.Text
		if !spec.noVars {
			var err error
			if s, err = substitute(p.Text, vars); err != nil {
				return nil, configErrorf(where, "%s: %v", k, err)
			}
		} else if hasVars(s) {
			return nil, configErrorf(where, "%s: %s takes no variables", k, c.Type)
		}
		text[k] = s
	}
	ck := &check{typ: c.Type, where: where}
	fail := func(format string, args ...any) error { return configErrorf(where, format, args...) }
	if p, ok := c.Params["column"]; ok {
		if p.IsList {
			return nil, fail("column must be a single name; uniqueCheck takes columns")
		}
		if text["column"] == "" {
			return nil, fail("column is empty")
		}
		ck.col = column{Name: text["column"]}
		ck.params.Column = text["column"]
	}
	if s, ok := text["threshold"]; ok {
		t, err := parseThreshold(s)
		if err != nil {
			return nil, fail("%v", err)
		}
		ck.threshold = t
		ck.params.Threshold = t.text
	}
	if p, ok := c.Params["inclusive"]; ok {
		b, err := strconv.ParseBool(strings.ToLower(text["inclusive"]))
		if err != nil || p.IsList {
			return nil, fail("inclusive must be true or false, got %q", text["inclusive"])
		}
		ck.inclusive = b
		ck.params.Inclusive = &b
	}
	intParam := func(name string, min int64) (*int64, error) {
		p, ok := c.Params[name]
		if !ok {
			return nil, nil
		}
		n, err := strconv.ParseInt(text[name], 10, 64)
		if err != nil || p.IsList || (p.Tag != "!!int" && !hasVars(p.Text)) {
			return nil, fail("%s must be a whole number, got %q", name, text[name])
		}
		if n < min {
			return nil, fail("%s must be at least %d, got %d", name, min, n)
		}
		return &n, nil
	}
	bound := func(name string, allowColumn bool) (*literal, error) {
		p, ok := c.Params[name]
		if !ok {
			return nil, nil
		}
		l, err := newLiteral(p, text[name], allowColumn)
		if err != nil {
			return nil, fail("%s: %v", name, err)
		}
		return &l, nil
	}
	var err error
	switch c.Type {
	case "rowCount":
		n, err := intParam("minNumRows", 1)
		if err != nil {
			return nil, err
		}
		ck.minRows = *n
		ck.params.MinNumRows = n
		ck.label = fmt.Sprintf("rowCount: at least %d rows", *n)
	case "nullCheck":
		ck.label = fmt.Sprintf("nullCheck on column '%s'", ck.col.Name)
	case "negativeCheck":
		ck.label = fmt.Sprintf("negativeCheck on column '%s'", ck.col.Name)
	case "columnMaxCheck":
		v, err := bound("value", false)
		if err != nil {
			return nil, err
		}
		ck.value = *v
		ck.params.Value = v.json()
		ck.label = fmt.Sprintf("columnMaxCheck: max of column '%s' is %s", ck.col.Name, v)
	case "rangeCheck", "columnSumCheck":
		if ck.min, err = bound("minValue", c.Type == "rangeCheck"); err != nil {
			return nil, err
		}
		if ck.max, err = bound("maxValue", c.Type == "rangeCheck"); err != nil {
			return nil, err
		}
		if err := checkBounds(ck.min, ck.max, ck.inclusive); err != nil {
			return nil, fail("%v", err)
		}
		if ck.min != nil {
			ck.params.MinValue = ck.min.json()
		}
		if ck.max != nil {
			ck.params.MaxValue = ck.max.json()
		}
		what := "column '" + ck.col.Name + "'"
		if c.Type == "columnSumCheck" {
			what = "the sum of column '" + ck.col.Name + "'"
		}
		ck.label = fmt.Sprintf("%s: %s in %s", c.Type, what, rangeText(ck.min, ck.max, ck.inclusive))
	case "uniqueCheck":
		p := c.Params["columns"]
		if !p.IsList || len(p.List) == 0 {
			return nil, fail("columns must be a list of at least one column")
		}
		for _, name := range p.List {
			s, err := substitute(name, vars)
			if err != nil {
				return nil, fail("columns: %v", err)
			}
			ck.cols = append(ck.cols, column{Name: s})
			ck.params.Columns = append(ck.params.Columns, s)
		}
		ck.label = fmt.Sprintf("uniqueCheck on columns %s", strings.Join(ck.params.Columns, ", "))
	case "stringLengthCheck":
		if ck.minLen, err = intParam("minLength", 0); err != nil {
			return nil, err
		}
		if ck.maxLen, err = intParam("maxLength", 0); err != nil {
			return nil, err
		}
		if ck.minLen != nil && ck.maxLen != nil && *ck.minLen > *ck.maxLen {
			return nil, fail("minLength %d is greater than maxLength %d", *ck.minLen, *ck.maxLen)
		}
		ck.params.MinLength, ck.params.MaxLength = ck.minLen, ck.maxLen
		ck.label = fmt.Sprintf("stringLengthCheck on column '%s': length in [%s, %s]", ck.col.Name, optInt(ck.minLen, "0"), optInt(ck.maxLen, "∞"))
	case "stringRegexCheck":
		ck.regex = text["regex"]
		if c.Params["regex"].IsList || ck.regex == "" {
			return nil, fail("regex must be a non-empty pattern")
		}
		ck.params.Regex = ck.regex
		ck.label = fmt.Sprintf("stringRegexCheck on column '%s': matches %s", ck.col.Name, ck.regex)
	case "colstats":
		ck.label = fmt.Sprintf("colstats on column '%s'", ck.col.Name)
	}
	return ck, nil
}

func optInt(p *int64, none string) string {
	if p == nil {
		return none
	}
	return strconv.FormatInt(*p, 10)
}

// rangeText describes a range: [1, 5], (1, 5), >= 1 or < 5.
func rangeText(min, max *literal, inclusive bool) string {
	lo, hi := "(", ")"
	if inclusive {
		lo, hi = "[", "]"
	}
	switch {
	case min != nil && max != nil:
		return lo + min.String() + ", " + max.String() + hi
	case min != nil && inclusive:
		return "[" + min.String() + ", ∞)"
	case min != nil:
		return "(" + min.String() + ", ∞)"
	case inclusive:
		return "(-∞, " + max.String() + "]"
	}
	return "(-∞, " + max.String() + ")"
}

// checkBounds refuses a range that no value can fall in.
func checkBounds(min, max *literal, inclusive bool) error {
	if min == nil || max == nil {
		return nil
	}
	switch {
	case min.kind == numberLit && max.kind == numberLit:
		a, b := min.float(), max.float()
		if a > b || (a == b && !inclusive) {
			return fmt.Errorf("minValue %s must be less than maxValue %s", min, max)
		}
	case min.kind == stringLit && max.kind == stringLit:
		if min.text > max.text || (min.text == max.text && !inclusive) {
			return fmt.Errorf("minValue %s must be less than maxValue %s", min, max)
		}
	}
	return nil
}

// resolve checks the check against its table's columns and finds its
// column(s) there.
func (c *check) resolve(cols columns) error {
	fail := func(format string, args ...any) error { return configErrorf(c.where, format, args...) }
	find := func(name string) (column, error) {
		col, ok := cols.find(name)
		if !ok {
			return column{}, fail("column %q is not in the table (columns: %s)", name, cols.names())
		}
		return col, nil
	}
	var err error
	switch c.typ {
	case "rowCount":
		return nil
	case "uniqueCheck":
		for i, u := range c.cols {
			if c.cols[i], err = find(u.Name); err != nil {
				return err
			}
		}
		return nil
	}
	if c.col, err = find(c.col.Name); err != nil {
		return err
	}
	switch c.typ {
	case "negativeCheck", "columnSumCheck", "colstats":
		if !c.col.numeric() {
			return fail("column %s is %s, not a number", c.col.Name, c.col.Type)
		}
	case "stringLengthCheck", "stringRegexCheck":
		if !c.col.text() {
			return fail("column %s is %s, not a string", c.col.Name, c.col.Type)
		}
	}
	for _, l := range []*literal{&c.value, c.min, c.max} {
		if l == nil || (c.typ != "columnMaxCheck" && l == &c.value) {
			continue
		}
		switch {
		case l.kind == columnLit:
			other, err := find(l.text)
			if err != nil {
				return err
			}
			l.text = other.Name
		case c.col.numeric() && l.kind != numberLit:
			return fail("column %s is %s, a number, but the value %s is not", c.col.Name, c.col.Type, l)
		case c.col.text() && l.kind != stringLit:
			return fail("column %s is a string, but the value %s is not", c.col.Name, l)
		}
	}
	return nil
}

func (cs columns) names() string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// failPredicate returns the SQL condition of a row that fails a row check.
func (c *check) failPredicate() string {
	col := c.col.sql()
	switch c.typ {
	case "nullCheck":
		return col + " IS NULL"
	case "negativeCheck":
		return col + " < 0"
	case "rangeCheck":
		lt, gt := "<=", ">="
		if c.inclusive {
			lt, gt = "<", ">"
		}
		var parts []string
		if c.min != nil {
			parts = append(parts, fmt.Sprintf("%s %s %s", col, lt, c.min.sql()))
		}
		if c.max != nil {
			parts = append(parts, fmt.Sprintf("%s %s %s", col, gt, c.max.sql()))
		}
		return strings.Join(parts, " OR ")
	case "stringLengthCheck":
		var parts []string
		if c.minLen != nil {
			parts = append(parts, fmt.Sprintf("length(%s) < %d", col, *c.minLen))
		}
		if c.maxLen != nil {
			parts = append(parts, fmt.Sprintf("length(%s) > %d", col, *c.maxLen))
		}
		return strings.Join(parts, " OR ")
	case "stringRegexCheck":
		return fmt.Sprintf("%s IS NOT NULL AND NOT regexp_matches(%s, %s)", col, col, sqlengine.QuoteString(c.regex))
	}
	return "false"
}

// aggregates returns the SQL aggregates the check needs from the table's
// one pass: a row check's failing row count, columnMaxCheck's max and
// whether it equals the value, columnSumCheck's sum and whether it is in
// range, colstats' statistics.
func (c *check) aggregates() []string {
	col := c.col.sql()
	switch {
	case c.rowBased():
		return []string{fmt.Sprintf("count(*) FILTER (WHERE %s)", c.failPredicate())}
	case c.typ == "columnMaxCheck":
		return []string{"max(" + col + ")", fmt.Sprintf("coalesce(max(%s) = %s, false)", col, c.value.sql())}
	case c.typ == "columnSumCheck":
		sum := "coalesce(sum(" + col + "), 0)"
		lt, gt := "<=", ">="
		if c.inclusive {
			lt, gt = "<", ">"
		}
		var out []string
		if c.min != nil {
			out = append(out, fmt.Sprintf("%s %s %s", sum, lt, c.min.sql()))
		}
		if c.max != nil {
			out = append(out, fmt.Sprintf("%s %s %s", sum, gt, c.max.sql()))
		}
		return []string{sum, "coalesce(" + strings.Join(out, " OR ") + ", false)"}
	case c.typ == "colstats":
		return []string{"count(" + col + ")", "avg(" + col + ")", "min(" + col + ")::DOUBLE", "max(" + col + ")::DOUBLE", "stddev_samp(" + col + ")"}
	}
	return nil
}

// Package datavalidator is a standalone data validator in the style of
// target/data-validator: a YAML configuration names tables (Hoodie tables,
// Parquet files) and checks to run on each (row counts, nulls, ranges,
// uniqueness, string lengths and patterns, column maxima and sums), which
// run as DuckDB SQL (internal/sqlengine) over the same view of a Hoodie
// table that `hoodiectl query` reads. The result is a Report, which prints
// as text, JSON and HTML.
//
// Use goes in three steps, each of which stops at the first configuration
// error: Parse reads the configuration and checks its structure (unknown
// keys, unknown check types and missing parameters included); Run
// substitutes variables, types every parameter, loads each table and
// checks every column, type and expression against it before any check
// runs, then runs the checks. Package validate holds Hudi's pre-commit
// validators, which are a different thing.
package datavalidator

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ConfigError is an error in a validator configuration: its YAML, a key or
// value, a variable, or a column or type that the table does not have.
type ConfigError struct {
	// Where names the part of the configuration: "line 12", or a table
	// and check.
	Where string
	// Msg says what is wrong.
	Msg string
}

func (e *ConfigError) Error() string {
	if e.Where == "" {
		return "config: " + e.Msg
	}
	return "config: " + e.Where + ": " + e.Msg
}

func configErrorf(where, format string, args ...any) error {
	return &ConfigError{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// Config is a validator configuration as Parse reads it: its strings hold
// variables ($NAME, ${NAME}) that Run substitutes.
type Config struct {
	// NumKeyCols is how many of a Parquet file's first columns identify a
	// row when its table gives no keyColumns.
	NumKeyCols int
	// NumErrorsToReport is the most example rows reported for a failed
	// check.
	NumErrorsToReport int
	// DetailedErrors asks for example rows of failed checks.
	DetailedErrors bool
	// Vars are the variables of the configuration, in order.
	Vars []Var
	// Outputs are where the JSON report also goes.
	Outputs []Output
	// Tables are the tables to validate, in order.
	Tables []Table
	// Warnings are parts of the configuration that are accepted and
	// ignored (email).
	Warnings []string
}

// Var is a variable of the configuration: exactly one of Value, Env,
// Shell and SQL is set.
type Var struct {
	Name string
	// Value is the variable's value (variables in it are not substituted).
	Value *string
	// Env names an environment variable holding the value.
	Env string
	// Shell is a shell command (sh -c) whose first line of output is the
	// value.
	Shell string
	// SQL is a DuckDB query whose first column of its first row is the
	// value.
	SQL  string
	line int
}

// Output is a place the JSON report goes: a file or a program's standard
// input.
type Output struct {
	// Filename is a local file the report is written to, or appended to
	// with Append.
	Filename string
	Append   bool
	// Pipe is a program (and arguments, separated by spaces) that reads
	// the report on its standard input; its failure fails the run unless
	// IgnoreError.
	Pipe        string
	IgnoreError bool
	line        int
}

// Table is a table source and its checks.
type Table struct {
	// HoodieTable is the base folder of a Hoodie (Hudi) table.
	HoodieTable string
	// AsOf, for a Hoodie table, reads the snapshot as of an instant.
	AsOf string
	// ParquetFile is a Parquet file or a glob of them.
	ParquetFile string
	// Condition is a SQL filter (a WHERE clause's body): only rows it
	// holds for are validated.
	Condition  string
	KeyColumns []string
	Checks     []Check
	line       int
}

// Source returns the table's source as the report names it.
func (t *Table) Source() string {
	if t.HoodieTable != "" {
		return t.HoodieTable
	}
	return t.ParquetFile
}

// Check is one check of a table: its type and its parameters, as written.
type Check struct {
	Type   string
	Params map[string]Param
	line   int
}

// Param is the value of a check parameter: a scalar (Text, with its YAML
// Tag: !!str, !!int, !!float, !!bool or !!null) or a list of strings.
type Param struct {
	Text string
	Tag  string
	List []string
	// IsList tells a list from a scalar.
	IsList bool
}

// A checkSpec lists a check type's parameters.
type checkSpec struct {
	required []string
	optional []string
	// oneOf: at least one of these must be given.
	oneOf []string
	// noVars: variables are not substituted (rowCount, as in
	// data-validator).
	noVars bool
}

var checkSpecs = map[string]checkSpec{
	"rowCount":          {required: []string{"minNumRows"}, noVars: true},
	"nullCheck":         {required: []string{"column"}, optional: []string{"threshold"}},
	"negativeCheck":     {required: []string{"column"}, optional: []string{"threshold"}},
	"columnMaxCheck":    {required: []string{"column", "value"}},
	"rangeCheck":        {required: []string{"column"}, optional: []string{"minValue", "maxValue", "inclusive", "threshold"}, oneOf: []string{"minValue", "maxValue"}},
	"uniqueCheck":       {required: []string{"columns"}},
	"stringLengthCheck": {required: []string{"column"}, optional: []string{"minLength", "maxLength", "threshold"}, oneOf: []string{"minLength", "maxLength"}},
	"stringRegexCheck":  {required: []string{"column", "regex"}, optional: []string{"threshold"}},
	"columnSumCheck":    {required: []string{"column"}, optional: []string{"minValue", "maxValue", "inclusive"}, oneOf: []string{"minValue", "maxValue"}},
	"colstats":          {required: []string{"column"}},
}

// CheckTypes returns the check types Parse accepts, sorted.
func CheckTypes() []string {
	var types []string
	for t := range checkSpecs {
		types = append(types, t)
	}
	slices.Sort(types)
	return types
}

// Parse reads a validator configuration (YAML) and checks its structure:
// every key known, every required key and check parameter there, every
// value of the right shape. Values that hold variables are checked when
// Run substitutes them.
func Parse(data []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, configErrorf("", "not valid YAML: %v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, configErrorf("", "empty configuration: it needs at least tables")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, configErrorf(at(root), "the configuration is a %s, want a mapping of numKeyCols, numErrorsToReport, detailedErrors, vars, outputs, tables", kindName(root))
	}
	cfg := &Config{}
	fields, err := mapping(root, "numKeyCols", "numErrorsToReport", "detailedErrors", "vars", "outputs", "tables", "email")
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"numKeyCols", "numErrorsToReport", "detailedErrors", "tables"} {
		if fields[key] == nil {
			return nil, configErrorf(at(root), "%s is required", key)
		}
	}
	if cfg.NumKeyCols, err = intValue(fields["numKeyCols"], "numKeyCols"); err != nil {
		return nil, err
	}
	if cfg.NumErrorsToReport, err = intValue(fields["numErrorsToReport"], "numErrorsToReport"); err != nil {
		return nil, err
	}
	if cfg.DetailedErrors, err = boolValue(fields["detailedErrors"], "detailedErrors"); err != nil {
		return nil, err
	}
	if n := fields["email"]; n != nil {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: email is not supported: no email is sent", at(n)))
	}
	if n := fields["vars"]; n != nil {
		if cfg.Vars, err = parseVars(n); err != nil {
			return nil, err
		}
	}
	if n := fields["outputs"]; n != nil {
		if cfg.Outputs, err = parseOutputs(n); err != nil {
			return nil, err
		}
	}
	tables := fields["tables"]
	if tables.Kind != yaml.SequenceNode || len(tables.Content) == 0 {
		return nil, configErrorf(at(tables), "tables must be a list of at least one table")
	}
	for i, n := range tables.Content {
		t, err := parseTable(n, i+1)
		if err != nil {
			return nil, err
		}
		cfg.Tables = append(cfg.Tables, t)
	}
	return cfg, nil
}

// at names the line of n.
func at(n *yaml.Node) string { return fmt.Sprintf("line %d", n.Line) }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.ScalarNode:
		return "scalar"
	}
	return "document"
}

// mapping returns the values of a mapping node by key, refusing keys not
// in known and repeated keys.
func mapping(n *yaml.Node, known ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, configErrorf(at(n), "want a mapping, got a %s", kindName(n))
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, configErrorf(at(k), "a key must be a string")
		}
		if !slices.Contains(known, k.Value) {
			return nil, configErrorf(at(k), "unknown key %q (known here: %s)", k.Value, strings.Join(known, ", "))
		}
		if fields[k.Value] != nil {
			return nil, configErrorf(at(k), "key %q given twice", k.Value)
		}
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		fields[k.Value] = v
	}
	return fields, nil
}

func scalar(n *yaml.Node, name string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", configErrorf(at(n), "%s must be a single value, got a %s", name, kindName(n))
	}
	if strings.ContainsRune(n.Value, 0) {
		return "", configErrorf(at(n), "%s holds a NUL character", name)
	}
	return n.Value, nil
}

func stringValue(n *yaml.Node, name string) (string, error) {
	s, err := scalar(n, name)
	if err == nil && n.Tag == "!!null" {
		return "", configErrorf(at(n), "%s is empty", name)
	}
	return s, err
}

func intValue(n *yaml.Node, name string) (int, error) {
	s, err := scalar(n, name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || n.Tag != "!!int" {
		return 0, configErrorf(at(n), "%s must be a whole number >= 0, got %q", name, s)
	}
	return v, nil
}

func boolValue(n *yaml.Node, name string) (bool, error) {
	s, err := scalar(n, name)
	if err != nil {
		return false, err
	}
	if n.Tag != "!!bool" {
		return false, configErrorf(at(n), "%s must be true or false, got %q", name, s)
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, configErrorf(at(n), "%s must be true or false, got %q", name, s)
	}
	return b, nil
}

func stringList(n *yaml.Node, name string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, configErrorf(at(n), "%s must be a list, got a %s", name, kindName(n))
	}
	var list []string
	for _, item := range n.Content {
		s, err := stringValue(item, name+" item")
		if err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	return list, nil
}

func parseVars(n *yaml.Node) ([]Var, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, configErrorf(at(n), "vars must be a list of name and value, env, shell or sql")
	}
	var vars []Var
	for _, item := range n.Content {
		f, err := mapping(item, "name", "value", "env", "shell", "sql")
		if err != nil {
			return nil, err
		}
		if f["name"] == nil {
			return nil, configErrorf(at(item), "a variable needs a name")
		}
		v := Var{line: item.Line}
		if v.Name, err = stringValue(f["name"], "name"); err != nil {
			return nil, err
		}
		if !validVarName(v.Name) {
			return nil, configErrorf(at(item), "variable name %q: want a letter, then letters, digits or _", v.Name)
		}
		given := 0
		for _, k := range []string{"value", "env", "shell", "sql"} {
			if f[k] == nil {
				continue
			}
			given++
			var s string
			if k == "value" {
				s, err = scalar(f[k], k)
				if f[k].Tag == "!!null" {
					s = ""
				}
			} else {
				s, err = stringValue(f[k], k)
			}
			if err != nil {
				return nil, err
			}
			switch k {
			case "value":
				v.Value = &s
			case "env":
				v.Env = s
			case "shell":
				v.Shell = s
			case "sql":
				v.SQL = s
			}
		}
		if given != 1 {
			return nil, configErrorf(at(item), "variable %s needs exactly one of value, env, shell, sql", v.Name)
		}
		vars = append(vars, v)
	}
	return vars, nil
}

func parseOutputs(n *yaml.Node) ([]Output, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, configErrorf(at(n), "outputs must be a list of filename or pipe")
	}
	var outs []Output
	for _, item := range n.Content {
		f, err := mapping(item, "filename", "append", "pipe", "ignoreError")
		if err != nil {
			return nil, err
		}
		o := Output{line: item.Line}
		switch {
		case f["filename"] != nil && f["pipe"] == nil && f["ignoreError"] == nil:
			if o.Filename, err = stringValue(f["filename"], "filename"); err != nil {
				return nil, err
			}
			if f["append"] != nil {
				if o.Append, err = boolValue(f["append"], "append"); err != nil {
					return nil, err
				}
			}
		case f["pipe"] != nil && f["filename"] == nil && f["append"] == nil:
			if o.Pipe, err = stringValue(f["pipe"], "pipe"); err != nil {
				return nil, err
			}
			if f["ignoreError"] != nil {
				if o.IgnoreError, err = boolValue(f["ignoreError"], "ignoreError"); err != nil {
					return nil, err
				}
			}
		default:
			return nil, configErrorf(at(item), "an output is either filename [append] or pipe [ignoreError]")
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// unsupportedSources are data-validator's table sources that are not
// supported, and why.
var unsupportedSources = map[string]string{
	"db":       "Hive tables (db, table) are not supported: give hoodieTable or parquetFile",
	"table":    "Hive tables (db, table) are not supported: give hoodieTable or parquetFile",
	"orcFile":  "orcFile is not supported (DuckDB reads no ORC without an extension): give hoodieTable or parquetFile",
	"format":   "Spark format loaders (format, options, loadData) are not supported: give hoodieTable or parquetFile",
	"options":  "Spark format loaders (format, options, loadData) are not supported: give hoodieTable or parquetFile",
	"loadData": "Spark format loaders (format, options, loadData) are not supported: give hoodieTable or parquetFile",
}

func parseTable(n *yaml.Node, index int) (Table, error) {
	t := Table{line: n.Line}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if why, ok := unsupportedSources[n.Content[i].Value]; ok {
				return t, configErrorf(fmt.Sprintf("table %d (%s)", index, at(n.Content[i])), "%s", why)
			}
		}
	}
	f, err := mapping(n, "hoodieTable", "asOf", "parquetFile", "condition", "keyColumns", "checks")
	if err != nil {
		return t, err
	}
	where := fmt.Sprintf("table %d (%s)", index, at(n))
	switch {
	case f["hoodieTable"] != nil && f["parquetFile"] == nil:
		if t.HoodieTable, err = stringValue(f["hoodieTable"], "hoodieTable"); err != nil {
			return t, err
		}
		if f["asOf"] != nil {
			if t.AsOf, err = stringValue(f["asOf"], "asOf"); err != nil {
				return t, err
			}
		}
	case f["parquetFile"] != nil && f["hoodieTable"] == nil:
		if t.ParquetFile, err = stringValue(f["parquetFile"], "parquetFile"); err != nil {
			return t, err
		}
		if f["asOf"] != nil {
			return t, configErrorf(where, "asOf applies to hoodieTable only")
		}
	default:
		return t, configErrorf(where, "a table needs exactly one of hoodieTable and parquetFile")
	}
	where = fmt.Sprintf("table %s (%s)", t.Source(), at(n))
	if f["condition"] != nil {
		if t.Condition, err = stringValue(f["condition"], "condition"); err != nil {
			return t, err
		}
	}
	if f["keyColumns"] != nil {
		if t.KeyColumns, err = stringList(f["keyColumns"], "keyColumns"); err != nil {
			return t, err
		}
	}
	checks := f["checks"]
	if checks == nil || checks.Tag == "!!null" {
		return t, configErrorf(where, "checks are required: give at least one")
	}
	if checks.Kind != yaml.SequenceNode || len(checks.Content) == 0 {
		return t, configErrorf(where, "checks must be a list of at least one check")
	}
	for i, cn := range checks.Content {
		c, err := parseCheck(cn, fmt.Sprintf("table %s, check %d (%s)", t.Source(), i+1, at(cn)))
		if err != nil {
			return t, err
		}
		t.Checks = append(t.Checks, c)
	}
	return t, nil
}

func parseCheck(n *yaml.Node, where string) (Check, error) {
	c := Check{line: n.Line, Params: map[string]Param{}}
	if n.Kind != yaml.MappingNode {
		return c, configErrorf(where, "a check must be a mapping with a type, got a %s", kindName(n))
	}
	var typeNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			typeNode = n.Content[i+1]
		}
	}
	if typeNode == nil {
		return c, configErrorf(where, "a check needs a type (one of %s)", strings.Join(CheckTypes(), ", "))
	}
	var err error
	if c.Type, err = stringValue(typeNode, "type"); err != nil {
		return c, configErrorf(where, "%v", err)
	}
	spec, ok := checkSpecs[c.Type]
	if !ok {
		return c, configErrorf(where, "unknown check type %q (known: %s)", c.Type, strings.Join(CheckTypes(), ", "))
	}
	where = strings.Replace(where, "check ", c.Type+" check ", 1)
	known := append(append([]string{"type"}, spec.required...), spec.optional...)
	f, err := mapping(n, known...)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			return c, configErrorf(where, "%s", ce.Msg)
		}
		return c, err
	}
	for _, k := range spec.required {
		if f[k] == nil || f[k].Tag == "!!null" {
			return c, configErrorf(where, "parameter %s is required", k)
		}
	}
	if len(spec.oneOf) > 0 && !slices.ContainsFunc(spec.oneOf, func(k string) bool { return f[k] != nil && f[k].Tag != "!!null" }) {
		return c, configErrorf(where, "give %s, or both", strings.Join(spec.oneOf, " or "))
	}
	for k, v := range f {
		if k == "type" || v.Tag == "!!null" {
			continue
		}
		var p Param
		if v.Kind == yaml.SequenceNode {
			list, err := stringList(v, k)
			if err != nil {
				return c, configErrorf(where, "%s", strings.TrimPrefix(err.Error(), "config: "))
			}
			p = Param{List: list, IsList: true}
		} else {
			s, err := scalar(v, k)
			if err != nil {
				return c, configErrorf(where, "%s", strings.TrimPrefix(err.Error(), "config: "))
			}
			p = Param{Text: s, Tag: v.Tag}
			if v.Tag == "!!float" {
				var f float64
				if err := v.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
					return c, configErrorf(where, "%s: %q is not a finite number", k, s)
				}
			}
		}
		c.Params[k] = p
	}
	return c, nil
}

// validVarName reports whether name is a variable name: a letter, then
// letters, digits or underscores.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case i > 0 && (r >= '0' && r <= '9' || r == '_'):
		default:
			return false
		}
	}
	return true
}

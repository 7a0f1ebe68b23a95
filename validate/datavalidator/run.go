package datavalidator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Options are the settings of a run that do not come from the
// configuration.
type Options struct {
	// Vars are variables given on the command line (--vars); they win over
	// the configuration's.
	Vars map[string]string
	// LookupEnv reads environment variables; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Report is the result of a run.
type Report struct {
	NumKeyCols        int
	NumErrorsToReport int
	DetailedErrors    bool
	// Vars are the variables' values, in order: the command line's, then
	// the configuration's.
	Vars    []VarValue
	Outputs []Output
	Tables  []*TableResult
	// Failed is whether any check failed.
	Failed bool
}

// VarValue is a variable and the value it had.
type VarValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Status is DATA_VALIDATOR_STATUS: PASS or FAIL.
func (r *Report) Status() string {
	if r.Failed {
		return "FAIL"
	}
	return "PASS"
}

// TableResult is the result of one table's checks.
type TableResult struct {
	HoodieTable string
	AsOf        string
	ParquetFile string
	Condition   string
	KeyColumns  []string
	// RowCount is the number of rows validated (those the condition holds
	// for).
	RowCount int64
	Checks   []*CheckResult
	Failed   bool
}

// Source names the table: its folder or Parquet path.
func (t *TableResult) Source() string {
	if t.HoodieTable != "" {
		return t.HoodieTable
	}
	return t.ParquetFile
}

// CheckResult is the result of one check.
type CheckResult struct {
	Type   string
	Params CheckParams
	// Label describes the check.
	Label  string
	Failed bool
	// Message says what was found.
	Message string
	// RowCount is the number of rows checked.
	RowCount int64
	// ErrorCount is, for row checks, the number of failing rows; for
	// uniqueCheck, the number of values that more than one row has.
	ErrorCount int64
	// ErrorCountThreshold is how many failing rows the threshold allows.
	ErrorCountThreshold int64
	// Actual is what columnMaxCheck's max or columnSumCheck's sum was.
	Actual any
	// Stats are colstats' statistics.
	Stats *ColumnStats
	// Examples are up to NumErrorsToReport failing rows (or, for
	// uniqueCheck, repeated values), when DetailedErrors.
	Examples []Example
}

// Example is a failing row: its key columns' values, and the checked
// column's value.
type Example struct {
	Key   []NamedValue
	Value *NamedValue
	// Count is, for uniqueCheck, the number of rows with the key.
	Count int64
}

// NamedValue is a column's value in a failing row.
type NamedValue struct {
	Name  string
	Value any
}

// ColumnStats are colstats' statistics of a numeric column.
type ColumnStats struct {
	Count     int64
	Mean      *float64
	Min       *float64
	Max       *float64
	StdDev    *float64
	Histogram []Bin
}

// Bin is one of a histogram's ten equally wide buckets over [min, max].
type Bin struct {
	LowerBound float64 `json:"lowerBound"`
	UpperBound float64 `json:"upperBound"`
	Count      int64   `json:"count"`
}

// table is a table source ready to run: its view and resolved checks.
type table struct {
	spec   *Table
	result *TableResult
	view   string
	// recordKeys are a Hoodie table's record key columns.
	recordKeys []string
	cols       columns
	keys       []column
	checks     []*check
}

// Run runs the configuration's checks and returns their report. Before any
// check runs it substitutes variables, types every parameter, makes sure
// each output can be written, loads every table and checks every column,
// type and SQL expression against it; any problem there is an error (a
// *ConfigError for the configuration's), as is a table that cannot be read.
// A failed check is not an error: see Report.Failed.
func Run(ctx context.Context, cfg *Config, opts Options) (*Report, error) {
	lookupEnv := opts.LookupEnv
	if lookupEnv == nil {
		lookupEnv = defaultLookupEnv
	}
	vars, err := resolveVars(ctx, cfg.Vars, opts.Vars, lookupEnv)
	if err != nil {
		return nil, err
	}
	report := &Report{NumKeyCols: cfg.NumKeyCols, NumErrorsToReport: cfg.NumErrorsToReport, DetailedErrors: cfg.DetailedErrors}
	report.Vars = varValues(cfg.Vars, opts.Vars, vars)
	for _, o := range cfg.Outputs {
		where := fmt.Sprintf("output (line %d)", o.line)
		if o.Filename, err = substitute(o.Filename, vars); err != nil {
			return nil, configErrorf(where, "filename: %v", err)
		}
		if o.Pipe, err = substitute(o.Pipe, vars); err != nil {
			return nil, configErrorf(where, "pipe: %v", err)
		}
		if err := checkOutput(o); err != nil {
			return nil, configErrorf(where, "%v", err)
		}
		report.Outputs = append(report.Outputs, o)
	}

	var tables []*table
	for i := range cfg.Tables {
		t, err := compileTable(&cfg.Tables[i], i, vars)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	// The configuration's SQL (conditions, and checks' values and regexes)
	// runs locked down: it reads the files of the table sources and
	// nothing else. Every source's view comes first, as the lockdown fixes
	// the files it reads.
	engine, err := sqlengine.Open(ctx, sqlengine.LockedDown)
	if err != nil {
		return nil, err
	}
	defer engine.Close()
	for _, t := range tables {
		if err := loadSource(ctx, engine, t); err != nil {
			return nil, err
		}
	}
	for _, t := range tables {
		if err := loadTable(ctx, engine, t, cfg.NumKeyCols); err != nil {
			return nil, err
		}
	}
	for _, t := range tables {
		if err := runTable(ctx, engine, t, cfg); err != nil {
			return nil, err
		}
		report.Tables = append(report.Tables, t.result)
		report.Failed = report.Failed || t.result.Failed
	}
	return report, nil
}

// varValues lists the variables' values: the command line's, sorted, then
// the configuration's not set there.
func varValues(cfgVars []Var, given, vars map[string]string) []VarValue {
	var out []VarValue
	var names []string
	for k := range given {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		out = append(out, VarValue{k, given[k]})
	}
	for _, v := range cfgVars {
		if _, ok := given[v.Name]; !ok {
			out = append(out, VarValue{v.Name, vars[v.Name]})
		}
	}
	return out
}

// checkOutput makes sure an output can be written: its file created or
// appended to, its program found.
func checkOutput(o Output) error {
	if o.Filename != "" {
		if strings.Contains(o.Filename, "://") && !strings.HasPrefix(o.Filename, "local://") {
			return fmt.Errorf("filename %s: only local files are supported", o.Filename)
		}
		name := strings.TrimPrefix(o.Filename, "local://")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("filename: %w", err)
		}
		return f.Close()
	}
	args := strings.Fields(o.Pipe)
	if len(args) == 0 {
		return errors.New("pipe names no program")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return fmt.Errorf("pipe: %w", err)
	}
	return nil
}

// compileTable substitutes the variables of a table source and compiles
// its checks.
func compileTable(spec *Table, index int, vars map[string]string) (*table, error) {
	where := fmt.Sprintf("table %d (line %d)", index+1, spec.line)
	sub := func(name, s string) (string, error) {
		out, err := substitute(s, vars)
		if err != nil {
			return "", configErrorf(where, "%s: %v", name, err)
		}
		return out, nil
	}
	res := &TableResult{}
	var err error
	if res.HoodieTable, err = sub("hoodieTable", spec.HoodieTable); err != nil {
		return nil, err
	}
	if res.AsOf, err = sub("asOf", spec.AsOf); err != nil {
		return nil, err
	}
	if res.ParquetFile, err = sub("parquetFile", spec.ParquetFile); err != nil {
		return nil, err
	}
	if res.Condition, err = sub("condition", spec.Condition); err != nil {
		return nil, err
	}
	for _, k := range spec.KeyColumns {
		s, err := sub("keyColumns", k)
		if err != nil {
			return nil, err
		}
		res.KeyColumns = append(res.KeyColumns, s)
	}
	t := &table{spec: spec, result: res, view: fmt.Sprintf("dv_table_%d", index+1)}
	for i, c := range spec.Checks {
		ck, err := compileCheck(c, fmt.Sprintf("table %s, %s check %d (line %d)", res.Source(), c.Type, i+1, c.line), vars)
		if err != nil {
			return nil, err
		}
		t.checks = append(t.checks, ck)
	}
	return t, nil
}

// sourceView names the view of a table's source, all its rows.
func (t *table) sourceView() string { return t.view + "_source" }

// where names the table in errors.
func (t *table) where() string {
	return fmt.Sprintf("table %s (line %d)", t.result.Source(), t.spec.line)
}

// loadSource makes the view of the table's source: a Hoodie table's
// snapshot or the Parquet files a pattern matches.
func loadSource(ctx context.Context, engine *sqlengine.Engine, t *table) error {
	res := t.result
	where := t.where()
	if res.HoodieTable != "" {
		if i := strings.Index(res.HoodieTable, "://"); i > 0 && !strings.ContainsAny(res.HoodieTable[:i], "/\\") {
			return configErrorf(where, "%s:// paths are not supported yet; give a local folder", res.HoodieTable[:i])
		}
		instant := ""
		if res.AsOf != "" {
			var err error
			if instant, err = timeline.ParseInstantOrTime(res.AsOf); err != nil {
				return configErrorf(where, "asOf: %v", err)
			}
		}
		fsys, err := storage.NewLocalFS(res.HoodieTable)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		cfg, err := config.Load(ctx, fsys)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := engine.CreateSnapshotView(ctx, t.sourceView(), fsys, cfg, instant); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		t.recordKeys = cfg.RecordKeyFields
		return nil
	}
	if err := engine.CreateGlobView(ctx, t.sourceView(), res.ParquetFile); err != nil {
		return fmt.Errorf("%s: parquetFile %s: %w", where, res.ParquetFile, err)
	}
	return nil
}

// loadTable makes the table's view (its rows the condition holds for),
// finds its columns and key columns, and checks each check against it.
func loadTable(ctx context.Context, engine *sqlengine.Engine, t *table, numKeyCols int) error {
	res := t.result
	where := t.where()
	filter := ""
	if strings.TrimSpace(res.Condition) != "" {
		filter = " WHERE (" + res.Condition + "\n)"
	}
	query := fmt.Sprintf("SELECT * FROM %s%s", sqlengine.QuoteIdent(t.sourceView()), filter)
	if err := engine.CreateQueryView(ctx, t.view, query); err != nil {
		if filter != "" {
			return configErrorf(where, "condition %q: %v", res.Condition, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	cols, err := describe(ctx, engine, t.view)
	if err != nil {
		if filter != "" {
			return configErrorf(where, "condition %q: %v", res.Condition, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	t.cols = cols

	// Key columns: those given; a Hoodie table's record key columns;
	// otherwise the first numKeyCols columns.
	keys := res.KeyColumns
	if len(keys) == 0 {
		keys = t.recordKeys
		if res.HoodieTable == "" {
			for i := 0; i < numKeyCols && i < len(cols); i++ {
				keys = append(keys, cols[i].Name)
			}
		}
	}
	for _, k := range keys {
		c, ok := cols.find(k)
		if !ok {
			return configErrorf(where, "key column %q is not in the table (columns: %s)", k, cols.names())
		}
		t.keys = append(t.keys, c)
	}
	res.KeyColumns = nil
	for _, k := range t.keys {
		res.KeyColumns = append(res.KeyColumns, k.Name)
	}

	// Each check's columns and types, then its SQL, bound against the view
	// (an invalid regex, a value of the wrong type) before anything runs.
	for _, c := range t.checks {
		if err := c.resolve(cols); err != nil {
			return err
		}
		exprs := c.aggregates()
		if c.typ == "uniqueCheck" {
			exprs = []string{"count(*)"}
		}
		if len(exprs) == 0 {
			continue
		}
		probe := fmt.Sprintf("SELECT %s FROM %s WHERE false", strings.Join(exprs, ", "), sqlengine.QuoteIdent(t.view))
		if c.rowBased() {
			probe = fmt.Sprintf("SELECT %s FROM %s WHERE false AND (%s)", strings.Join(exprs, ", "), sqlengine.QuoteIdent(t.view), c.failPredicate())
		}
		if err := exec1(ctx, engine, probe); err != nil {
			return configErrorf(c.where, "%v", err)
		}
	}
	return nil
}

// exec1 runs one statement and discards its result.
func exec1(ctx context.Context, engine *sqlengine.Engine, query string) error {
	rows, err := engine.Query(ctx, query)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Err(), rows.Close())
}

// describe returns the columns of a view.
func describe(ctx context.Context, engine *sqlengine.Engine, view string) (columns, error) {
	rows, err := engine.Query(ctx, fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE %s)", sqlengine.QuoteIdent(view)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols columns
	for rows.Next() {
		v := rows.Values()
		name, _ := v[0].(string)
		typ, _ := v[1].(string)
		cols = append(cols, column{Name: name, Type: typ})
	}
	return cols, errors.Join(rows.Err(), rows.Close())
}

// runTable runs a table's checks: one pass for the row count and every
// check's aggregates, then uniqueCheck's and colstats' own queries and, for
// failed checks when detailedErrors, a query for example rows.
func runTable(ctx context.Context, engine *sqlengine.Engine, t *table, cfg *Config) error {
	res := t.result
	where := fmt.Sprintf("table %s", res.Source())
	view := sqlengine.QuoteIdent(t.view)
	exprs := []string{"count(*)"}
	offsets := make([]int, len(t.checks))
	for i, c := range t.checks {
		offsets[i] = len(exprs)
		exprs = append(exprs, c.aggregates()...)
	}
	values, err := queryRow(ctx, engine, fmt.Sprintf("SELECT %s FROM %s", strings.Join(exprs, ", "), view))
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	res.RowCount = asInt(values[0])
	for i, c := range t.checks {
		r := &CheckResult{Type: c.typ, Params: c.params, Label: c.label, RowCount: res.RowCount}
		v := values[offsets[i]:]
		switch {
		case c.typ == "rowCount":
			r.Failed = res.RowCount < c.minRows
			r.Message = fmt.Sprintf("%d rows, at least %d wanted", res.RowCount, c.minRows)
		case c.rowBased():
			r.ErrorCount = asInt(v[0])
			r.ErrorCountThreshold = c.threshold.allowed(res.RowCount)
			r.Failed = r.ErrorCount > r.ErrorCountThreshold
			r.Message = fmt.Sprintf("%d of %d rows fail", r.ErrorCount, res.RowCount)
			if r.ErrorCountThreshold > 0 {
				r.Message += fmt.Sprintf(" (threshold %s allows %d)", c.threshold.text, r.ErrorCountThreshold)
			}
		case c.typ == "columnMaxCheck":
			r.Actual = v[0]
			r.Failed = v[1] != true
			r.Message = fmt.Sprintf("max is %s, want %s", valueText(v[0]), c.value)
		case c.typ == "columnSumCheck":
			r.Actual = v[0]
			r.Failed = v[1] == true
			r.Message = fmt.Sprintf("sum is %s, want it in %s", valueText(v[0]), rangeText(c.min, c.max, c.inclusive))
		case c.typ == "uniqueCheck":
			if err := runUnique(ctx, engine, t, c, r, cfg); err != nil {
				return fmt.Errorf("%s: %w", c.where, err)
			}
		case c.typ == "colstats":
			if err := runColStats(ctx, engine, t, c, r, v); err != nil {
				return fmt.Errorf("%s: %w", c.where, err)
			}
		}
		if r.Failed && c.rowBased() && cfg.DetailedErrors && cfg.NumErrorsToReport > 0 {
			if err := rowExamples(ctx, engine, t, c, r, cfg.NumErrorsToReport); err != nil {
				return fmt.Errorf("%s: %w", c.where, err)
			}
		}
		res.Checks = append(res.Checks, r)
		res.Failed = res.Failed || r.Failed
	}
	return nil
}

// runUnique counts the values of a uniqueCheck's columns that more than one
// row has, and lists the most repeated ones when detailedErrors.
func runUnique(ctx context.Context, engine *sqlengine.Engine, t *table, c *check, r *CheckResult, cfg *Config) error {
	cols := make([]string, len(c.cols))
	for i, col := range c.cols {
		cols[i] = col.sql()
	}
	group := fmt.Sprintf("SELECT %s, count(*) AS dv_rows FROM %s GROUP BY ALL HAVING count(*) > 1", strings.Join(cols, ", "), sqlengine.QuoteIdent(t.view))
	v, err := queryRow(ctx, engine, fmt.Sprintf("SELECT count(*), coalesce(sum(dv_rows), 0) FROM (%s)", group))
	if err != nil {
		return err
	}
	r.ErrorCount = asInt(v[0])
	r.Failed = r.ErrorCount > 0
	r.Message = fmt.Sprintf("%d value(s) repeated, in %d of %d rows", r.ErrorCount, asInt(v[1]), r.RowCount)
	if !r.Failed || !cfg.DetailedErrors || cfg.NumErrorsToReport == 0 {
		return nil
	}
	rows, err := engine.Query(ctx, fmt.Sprintf("%s ORDER BY dv_rows DESC, %s LIMIT %d", group, positions(len(cols)), cfg.NumErrorsToReport))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals := rows.Values()
		ex := Example{Count: asInt(vals[len(cols)])}
		for i, col := range c.cols {
			ex.Key = append(ex.Key, NamedValue{col.Name, vals[i]})
		}
		r.Examples = append(r.Examples, ex)
	}
	return errors.Join(rows.Err(), rows.Close())
}

// rowExamples lists up to n failing rows of a row check: their key
// columns and the checked column.
func rowExamples(ctx context.Context, engine *sqlengine.Engine, t *table, c *check, r *CheckResult, n int) error {
	var sel []string
	for _, k := range t.keys {
		sel = append(sel, k.sql())
	}
	sel = append(sel, c.col.sql())
	query := fmt.Sprintf("SELECT %s FROM %s WHERE %s LIMIT %d", strings.Join(sel, ", "), sqlengine.QuoteIdent(t.view), c.failPredicate(), n)
	rows, err := engine.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals := rows.Values()
		var ex Example
		for i, k := range t.keys {
			ex.Key = append(ex.Key, NamedValue{k.Name, vals[i]})
		}
		ex.Value = &NamedValue{c.col.Name, vals[len(t.keys)]}
		r.Examples = append(r.Examples, ex)
	}
	return errors.Join(rows.Err(), rows.Close())
}

// runColStats fills colstats' statistics from the table's pass (v: count,
// mean, min, max, standard deviation) and a histogram query.
func runColStats(ctx context.Context, engine *sqlengine.Engine, t *table, c *check, r *CheckResult, v []any) error {
	s := &ColumnStats{Count: asInt(v[0]), Mean: asFloat(v[1]), Min: asFloat(v[2]), Max: asFloat(v[3]), StdDev: asFloat(v[4])}
	r.Stats = s
	r.Message = fmt.Sprintf("%d non-null values", s.Count)
	if s.Min == nil || s.Max == nil {
		return nil
	}
	lo, hi := *s.Min, *s.Max
	width := (hi - lo) / 10
	for i := range 10 {
		s.Histogram = append(s.Histogram, Bin{LowerBound: lo + float64(i)*width, UpperBound: lo + float64(i+1)*width})
	}
	s.Histogram[9].UpperBound = hi
	bucket := "0"
	if hi > lo {
		bucket = fmt.Sprintf("least(CAST(floor((CAST(%s AS DOUBLE) - %s) / %s) AS BIGINT), 9)", c.col.sql(),
			floatSQL(lo), floatSQL(width))
	}
	rows, err := engine.Query(ctx, fmt.Sprintf("SELECT %s AS b, count(*) FROM %s WHERE %s IS NOT NULL GROUP BY b", bucket, sqlengine.QuoteIdent(t.view), c.col.sql()))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals := rows.Values()
		if b := asInt(vals[0]); b >= 0 && b < 10 {
			s.Histogram[b].Count += asInt(vals[1])
		}
	}
	return errors.Join(rows.Err(), rows.Close())
}

// positions returns "1, 2, ..., n".
func positions(n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(p, ", ")
}

// floatSQL is a DuckDB DOUBLE literal of f.
func floatSQL(f float64) string {
	return "CAST('" + strconv.FormatFloat(f, 'g', -1, 64) + "' AS DOUBLE)"
}

// queryRow runs a query of one row and returns its values.
func queryRow(ctx context.Context, engine *sqlengine.Engine, query string) ([]any, error) {
	rows, err := engine.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("the query returned no row")
	}
	values := rows.Values()
	return values, errors.Join(rows.Err(), rows.Close())
}

func asInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case uint64:
		if v > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	case *big.Int:
		if !v.IsInt64() {
			return math.MaxInt64
		}
		return v.Int64()
	}
	return 0
}

func asFloat(v any) *float64 {
	switch v := v.(type) {
	case float64:
		if math.IsNaN(v) {
			return nil
		}
		return &v
	case float32:
		f := float64(v)
		return &f
	case int64:
		f := float64(v)
		return &f
	}
	return nil
}

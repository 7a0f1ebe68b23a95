package datavalidator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
)

// writeParquet writes the rows of query to a Parquet file in a temporary
// folder, with DuckDB, and returns its path.
func writeParquet(t *testing.T, query string) string {
	t.Helper()
	ctx := context.Background()
	e, err := sqlengine.Open(ctx, sqlengine.ExternalAccess)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(t.TempDir(), "people.parquet")
	if err := exec1(ctx, e, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, sqlengine.QuoteString(path))); err != nil {
		t.Fatal(err)
	}
	return path
}

// people has 5 rows: ids 1-5, one null name, one negative age, one
// repeated email.
const people = `SELECT * FROM (VALUES
	(1, 'ann', 34, 'a@x.org', 10.5, DATE '2024-01-01'),
	(2, 'bob', 41, 'b@x.org', 20.0, DATE '2024-01-02'),
	(3, NULL, 29, 'c@x.org', 30.0, DATE '2024-01-03'),
	(4, 'dora', -1, 'a@x.org', 0.5, DATE '2024-01-04'),
	(5, 'eve_long_name', 58, 'e@x.org', 40.0, DATE '2024-01-05')
) AS t(id, name, age, email, score, day)`

// runChecks runs one table of checks (YAML list items) over file and
// returns its checks' results.
func runChecks(t *testing.T, file, checks string, opts Options) (*Report, error) {
	t.Helper()
	cfg, err := Parse([]byte(fmt.Sprintf("numKeyCols: 1\nnumErrorsToReport: 2\ndetailedErrors: true\ntables:\n  - parquetFile: %q\n    checks:\n%s", file, checks)))
	if err != nil {
		return nil, err
	}
	return Run(context.Background(), cfg, opts)
}

func TestChecks(t *testing.T) {
	file := writeParquet(t, people)
	tests := []struct {
		name, check string
		failed      bool
		errorCount  int64
	}{
		{"rowCount pass", "type: rowCount\nminNumRows: 5", false, 0},
		{"rowCount fail", "type: rowCount\nminNumRows: 6", true, 0},
		{"nullCheck pass", "type: nullCheck\ncolumn: email", false, 0},
		{"nullCheck fail", "type: nullCheck\ncolumn: name", true, 1},
		{"nullCheck within threshold", "type: nullCheck\ncolumn: name\nthreshold: 1", false, 1},
		{"nullCheck within percent", "type: nullCheck\ncolumn: name\nthreshold: 20%", false, 1},
		{"nullCheck over fraction", "type: nullCheck\ncolumn: name\nthreshold: 0.1", true, 1},
		{"negativeCheck pass", "type: negativeCheck\ncolumn: score", false, 0},
		{"negativeCheck fail", "type: negativeCheck\ncolumn: age", true, 1},
		{"columnMaxCheck pass", "type: columnMaxCheck\ncolumn: age\nvalue: 58", false, 0},
		{"columnMaxCheck fail", "type: columnMaxCheck\ncolumn: age\nvalue: 57", true, 0},
		{"columnMaxCheck string", "type: columnMaxCheck\ncolumn: name\nvalue: eve_long_name", false, 0},
		{"columnMaxCheck date", "type: columnMaxCheck\ncolumn: day\nvalue: 2024-01-05", false, 0},
		{"columnMaxCheck double", "type: columnMaxCheck\ncolumn: score\nvalue: 40.0", false, 0},
		{"rangeCheck pass inclusive", "type: rangeCheck\ncolumn: score\nminValue: 0.5\nmaxValue: 40\ninclusive: true", false, 0},
		{"rangeCheck fail exclusive", "type: rangeCheck\ncolumn: score\nminValue: 0.5\nmaxValue: 40", true, 2},
		{"rangeCheck default exclusive", "type: rangeCheck\ncolumn: age\nminValue: 0", true, 1},
		{"rangeCheck max only", "type: rangeCheck\ncolumn: age\nmaxValue: 100", false, 0},
		{"rangeCheck other column", "type: rangeCheck\ncolumn: score\nmaxValue: \"`age\"", true, 2},
		{"rangeCheck strings", "type: rangeCheck\ncolumn: name\nminValue: a\nmaxValue: c\ninclusive: true", true, 2},
		{"rangeCheck threshold", "type: rangeCheck\ncolumn: score\nminValue: 0.5\nmaxValue: 40\nthreshold: \"40%\"", false, 2},
		{"uniqueCheck pass", "type: uniqueCheck\ncolumns: [id]", false, 0},
		{"uniqueCheck fail", "type: uniqueCheck\ncolumns: [email]", true, 1},
		{"uniqueCheck pair pass", "type: uniqueCheck\ncolumns: [email, name]", false, 0},
		{"stringLengthCheck pass", "type: stringLengthCheck\ncolumn: email\nminLength: 7\nmaxLength: 7", false, 0},
		{"stringLengthCheck fail", "type: stringLengthCheck\ncolumn: name\nmaxLength: 4", true, 1},
		{"stringLengthCheck min", "type: stringLengthCheck\ncolumn: name\nminLength: 4", true, 2},
		{"stringRegexCheck pass", "type: stringRegexCheck\ncolumn: email\nregex: ^[a-z]@x[.]org$", false, 0},
		{"stringRegexCheck fail", "type: stringRegexCheck\ncolumn: name\nregex: ^[a-z]{3,4}$", true, 1},
		{"stringRegexCheck partial match", "type: stringRegexCheck\ncolumn: name\nregex: \\w", false, 0},
		{"columnSumCheck pass", "type: columnSumCheck\ncolumn: score\nminValue: 101\nmaxValue: 101", true, 0},
		{"columnSumCheck inclusive", "type: columnSumCheck\ncolumn: score\nminValue: 101\nmaxValue: 101\ninclusive: true", false, 0},
		{"columnSumCheck fail", "type: columnSumCheck\ncolumn: age\nmaxValue: 100", true, 0},
		{"colstats", "type: colstats\ncolumn: age", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := "      - " + strings.ReplaceAll(tt.check, "\n", "\n        ") + "\n"
			r, err := runChecks(t, file, check, Options{})
			if strings.HasPrefix(tt.name, "columnSumCheck pass") {
				// min == max with exclusive bounds: no sum can be in range.
				var ce *ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), "minValue 101 must be less than maxValue 101") {
					t.Fatalf("got %v, want a ConfigError on the empty range", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := r.Tables[0].Checks[0]
			if c.Failed != tt.failed || c.ErrorCount != tt.errorCount || r.Failed != tt.failed {
				t.Errorf("failed %v, errorCount %d (%s); want %v, %d", c.Failed, c.ErrorCount, c.Message, tt.failed, tt.errorCount)
			}
			if c.Failed && c.ErrorCount > 0 && len(c.Examples) == 0 {
				t.Errorf("a failed check has no examples")
			}
		})
	}
}

func TestCheckDetails(t *testing.T) {
	file := writeParquet(t, people)
	r, err := runChecks(t, file, `      - type: stringLengthCheck
        column: name
        minLength: 4
      - type: uniqueCheck
        columns: [email]
      - type: columnMaxCheck
        column: score
        value: 39
      - type: colstats
        column: score
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if strings.Join(tb.KeyColumns, ",") != "id" || tb.RowCount != 5 {
		t.Errorf("keyColumns %v (numKeyCols 1 takes the first column), rowCount %d", tb.KeyColumns, tb.RowCount)
	}
	length := tb.Checks[0]
	if len(length.Examples) != 2 { // numErrorsToReport
		t.Fatalf("examples: %+v", length.Examples)
	}
	for _, ex := range length.Examples {
		if ex.Key[0].Name != "id" || ex.Value.Name != "name" || len(ex.Value.Value.(string)) >= 4 {
			t.Errorf("example %+v", ex)
		}
	}
	unique := tb.Checks[1]
	if len(unique.Examples) != 1 || unique.Examples[0].Key[0].Value != "a@x.org" || unique.Examples[0].Count != 2 {
		t.Errorf("uniqueCheck examples: %+v", unique.Examples)
	}
	max := tb.Checks[2]
	if !max.Failed || valueText(max.Actual) != "40.0" || !strings.Contains(max.Message, "max is 40.0, want 39") { // score is DECIMAL(3,1)
		t.Errorf("columnMaxCheck: %+v", max)
	}
	s := tb.Checks[3].Stats
	if s == nil || s.Count != 5 || *s.Min != 0.5 || *s.Max != 40 || *s.Mean != 20.2 || len(s.Histogram) != 10 {
		t.Fatalf("colstats: %+v", s)
	}
	var total int64
	for _, b := range s.Histogram {
		total += b.Count
	}
	if total != 5 || s.Histogram[9].Count != 1 || s.Histogram[0].Count != 1 || s.Histogram[9].UpperBound != 40 {
		t.Errorf("histogram: %+v", s.Histogram)
	}

	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, b)
	}
	if doc["status"] != "FAIL" || doc["failed"] != true {
		t.Errorf("JSON status: %v %v", doc["status"], doc["failed"])
	}
	stats := doc["tables"].([]any)[0].(map[string]any)["checks"].([]any)[3].(map[string]any)
	for _, k := range []string{"count", "mean", "min", "max", "stdDev", "histogram"} {
		if _, ok := stats[k]; !ok {
			t.Errorf("colstats JSON lacks %s: %v", k, stats)
		}
	}
}

func TestRunConfigErrors(t *testing.T) {
	file := writeParquet(t, people)
	tests := []struct{ name, checks, want string }{
		{"unknown column", "      - type: nullCheck\n        column: nope\n", `nullCheck check 1 (line 7): column "nope" is not in the table`},
		{"negative on string", "      - type: negativeCheck\n        column: name\n", "column name is VARCHAR, not a number"},
		{"regex on number", "      - type: stringRegexCheck\n        column: age\n        regex: x\n", "column age is INTEGER, not a string"},
		{"string max on number", "      - type: columnMaxCheck\n        column: age\n        value: old\n", `the value "old" is not`},
		{"number max on string", "      - type: columnMaxCheck\n        column: name\n        value: 5\n", "column name is a string, but the value 5 is not"},
		{"bad date", "      - type: columnMaxCheck\n        column: day\n        value: 2024-13-45\n", "columnMaxCheck check 1"},
		{"bad regex", "      - type: stringRegexCheck\n        column: name\n        regex: \"([a-z\"\n", "stringRegexCheck check 1"},
		{"bad threshold", "      - type: nullCheck\n        column: name\n        threshold: lots\n", `threshold "lots"`},
		{"min over max", "      - type: rangeCheck\n        column: age\n        minValue: 9\n        maxValue: 1\n", "minValue 9 must be less than maxValue 1"},
		{"zero rows", "      - type: rowCount\n        minNumRows: 0\n", "minNumRows must be at least 1"},
		{"undefined variable", "      - type: nullCheck\n        column: $COL\n", "no value for variable(s) COL"},
		{"rowCount takes no vars", "      - type: rowCount\n        minNumRows: $N\n", "rowCount takes no variables"},
		{"other column missing", "      - type: rangeCheck\n        column: age\n        minValue: \"`nope\"\n", `column "nope" is not in the table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runChecks(t, file, tt.checks, Options{Vars: map[string]string{"N": "3"}})
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a ConfigError with %q", err, tt.want)
			}
		})
	}
}

func TestVars(t *testing.T) {
	file := writeParquet(t, people)
	dir := filepath.Dir(file)
	cfg, err := Parse([]byte(`numKeyCols: 1
numErrorsToReport: 1
detailedErrors: false
vars:
  - name: DIR
    value: ` + dir + `
  - name: COL
    value: overridden
  - name: FROM_ENV
    env: DV_TEST_MIN
  - name: FROM_SHELL
    shell: echo 41; echo ignored
  - name: FROM_SQL
    sql: SELECT 'e' || '@x.org'
tables:
  - parquetFile: ${DIR}/*.parquet
    condition: email <> '$FROM_SQL'
    checks:
      - type: nullCheck
        column: $COL
      - type: rangeCheck
        column: age
        minValue: $FROM_ENV
        maxValue: ${FROM_SHELL}
        inclusive: true
`))
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		if k == "DV_TEST_MIN" {
			return "-1", true
		}
		return "", false
	}
	r, err := Run(context.Background(), cfg, Options{Vars: map[string]string{"COL": "email"}, LookupEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if tb.RowCount != 4 || tb.Condition != "email <> 'e@x.org'" {
		t.Errorf("condition %q kept %d rows, want 4", tb.Condition, tb.RowCount)
	}
	if tb.Checks[0].Params.Column != "email" || tb.Checks[0].Failed {
		t.Errorf("--vars COL did not win: %+v", tb.Checks[0])
	}
	rc := tb.Checks[1]
	if rc.Params.MinValue != json.Number("-1") || rc.Params.MaxValue != json.Number("41") || rc.Failed {
		t.Errorf("rangeCheck with variables: %+v", rc)
	}
	want := []VarValue{{"COL", "email"}, {"DIR", dir}, {"FROM_ENV", "-1"}, {"FROM_SHELL", "41"}, {"FROM_SQL", "e@x.org"}}
	if fmt.Sprint(r.Vars) != fmt.Sprint(want) {
		t.Errorf("vars %v, want %v", r.Vars, want)
	}

	cfg.Vars[2].Env = "DV_TEST_UNSET"
	_, err = Run(context.Background(), cfg, Options{LookupEnv: env})
	if err == nil || !strings.Contains(err.Error(), "environment variable DV_TEST_UNSET is not set") {
		t.Errorf("unset env: %v", err)
	}
}

func TestHTMLEscapes(t *testing.T) {
	file := writeParquet(t, `SELECT '<script>alert(1)</script>' AS "<b>k</b>", NULL::VARCHAR AS v`)
	r, err := runChecks(t, file, "      - type: nullCheck\n        column: v\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Contains(html, "<script>") || strings.Contains(html, "<b>k") {
		t.Errorf("HTML report does not escape values:\n%s", html)
	}
	if !strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(html, "&lt;b&gt;k&lt;/b&gt;") {
		t.Errorf("HTML report lacks the escaped key:\n%s", html)
	}
}

// TestSQLRunsLockedDown checks that the configuration's SQL (conditions,
// sql variables, values substituted into either) reads the table sources'
// files only and writes nothing.
func TestSQLRunsLockedDown(t *testing.T) {
	file := writeParquet(t, people)
	dir := filepath.Dir(file)
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cr3t"), 0o600); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, "written.csv")
	q := sqlengine.QuoteString
	config := func(vars, condition string) string {
		return "numKeyCols: 1\nnumErrorsToReport: 1\ndetailedErrors: false\n" + vars +
			"tables:\n  - parquetFile: " + file + "\n    condition: " + strconv.Quote(condition) +
			"\n    checks:\n      - type: rowCount\n        minNumRows: 1\n"
	}
	tests := []struct {
		name, yaml string
		vars       map[string]string
	}{
		{"condition reads a file", config("", "id IN (SELECT length(content) FROM read_text("+q(secret)+"))"), nil},
		{"condition writes a file", config("", "true); COPY (SELECT 1) TO "+q(written)+"; SELECT (1"), nil},
		{"value in a condition writes a file", config("", "id > $N"), map[string]string{"N": "0); COPY (SELECT 1) TO " + q(written) + "; SELECT (1"}},
		{"sql variable reads a file", config("vars:\n  - name: S\n    sql: SELECT content FROM read_text("+q(secret)+")\n", "true"), nil},
		{"sql variable reads the table source", config("vars:\n  - name: S\n    sql: SELECT count(*) FROM read_parquet("+q(file)+")\n", "true"), nil},
		{"value in a sql variable writes a file", config("vars:\n  - name: S\n    sql: SELECT $N\n", "true"), map[string]string{"N": "1; COPY (SELECT 1) TO " + q(written)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), cfg, Options{Vars: tt.vars})
			if err == nil || !strings.Contains(err.Error(), "DuckDB runs locked down") {
				t.Errorf("got %v, want an error of the lockdown", err)
			}
			if _, err := os.Stat(written); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written", written)
			}
		})
	}
}

// TestShellVariablesGetValuesAsEnvironment checks that values reach a shell
// variable's command as environment variables, never as shell code: what
// would run a command arrives verbatim and runs nothing.
func TestShellVariablesGetValuesAsEnvironment(t *testing.T) {
	file := writeParquet(t, people)
	dir := t.TempDir()
	touch := func(name string) string { return "touch " + filepath.Join(dir, name) }
	given := map[string]string{
		"SUBST":     "$(" + touch("subst") + ")",
		"SEMICOLON": "; " + touch("semicolon"),
		"BACKTICK":  "`" + touch("backtick") + "`",
		"QUOTES":    `"'"; ` + touch("quotes") + `; echo "'`,
	}
	env := func(k string) (string, bool) {
		if k == "DV_TEST_EVIL" {
			return "$(" + touch("env") + ")", true
		}
		return "", false
	}
	cfg, err := Parse([]byte(`numKeyCols: 1
numErrorsToReport: 1
detailedErrors: false
vars:
  - name: FROM_ENV
    env: DV_TEST_EVIL
  - name: OUT_SUBST
    shell: printf '%s' "$SUBST"
  - name: OUT_SEMICOLON
    shell: echo "${SEMICOLON}"
  - name: OUT_BACKTICK
    shell: echo "$BACKTICK"
  - name: OUT_QUOTES
    shell: echo "$QUOTES"
  - name: OUT_ENV
    shell: echo "$FROM_ENV"
  - name: OUT_OUT
    shell: echo "x${OUT_SUBST}y"
  - name: WORDS
    shell: echo $SEMICOLON | wc -w
tables:
  - parquetFile: ` + file + `
    checks:
      - type: rowCount
        minNumRows: 1
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cfg, Options{Vars: given, LookupEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range r.Vars {
		got[v.Name] = v.Value
	}
	want := map[string]string{
		"OUT_SUBST":     given["SUBST"],
		"OUT_SEMICOLON": given["SEMICOLON"],
		"OUT_BACKTICK":  given["BACKTICK"],
		"OUT_QUOTES":    given["QUOTES"],
		"OUT_ENV":       "$(" + touch("env") + ")",
		"OUT_OUT":       "x" + given["SUBST"] + "y",
		// Unquoted, a value is split into words as sh splits any
		// variable's value, and still not run.
		"WORDS": "3",
	}
	for k, v := range want {
		if strings.TrimSpace(got[k]) != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a value ran as shell code: %s was created", e.Name())
	}
	// A variable the command uses must have a value, as elsewhere.
	cfg.Vars[1].Shell = "echo $NOPE"
	if _, err := Run(context.Background(), cfg, Options{Vars: given, LookupEnv: env}); err == nil || !strings.Contains(err.Error(), "no value for variable(s) NOPE") {
		t.Errorf("shell with an undefined variable: %v", err)
	}
}

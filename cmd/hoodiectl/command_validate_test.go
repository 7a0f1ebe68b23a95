package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newValidateTable makes a trips table with two commits: a, b, c, then d,
// whose fare is negative and rider null. It returns the table's folder and
// the first commit's instant.
func newValidateTable(t *testing.T) (string, string) {
	t.Helper()
	dir := newTripsCLITable(t)
	first := hoodiectl(t, `{"uuid":"a","ts":1,"rider":"ann","fare":12.5,"region":"eu"}
{"uuid":"b","ts":1,"rider":"bob","fare":30.0,"region":"us"}
{"uuid":"c","ts":1,"rider":"cy","fare":7.25,"region":"us"}
`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"d","ts":2,"rider":null,"fare":-3.0,"region":"eu"}
`, "insert", dir).mustSucceed(t)
	return dir, lastLine(first.stdout)
}

// writeConfig writes a validator config whose one table is TABLE, with the
// given checks (YAML list items indented by 6), and returns its path.
func writeConfig(t *testing.T, table, checks string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf("numKeyCols: 2\nnumErrorsToReport: 5\ndetailedErrors: true\ntables:\n  - hoodieTable: %s\n    checks:\n%s", table, checks)
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// item makes one check a YAML list item of a table's checks.
func item(check string) string {
	return "      - " + strings.ReplaceAll(check, "\n", "\n        ") + "\n"
}

func TestValidateChecksOnHoodieTable(t *testing.T) {
	dir, _ := newValidateTable(t)
	tests := []struct {
		check string
		pass  bool
	}{
		{"type: rowCount\nminNumRows: 4", true},
		{"type: rowCount\nminNumRows: 5", false},
		{"type: nullCheck\ncolumn: _hoodie_commit_time", true},
		{"type: nullCheck\ncolumn: rider", false},
		{"type: nullCheck\ncolumn: rider\nthreshold: 25%", true},
		{"type: negativeCheck\ncolumn: ts", true},
		{"type: negativeCheck\ncolumn: fare", false},
		{"type: columnMaxCheck\ncolumn: fare\nvalue: 30", true},
		{"type: columnMaxCheck\ncolumn: uuid\nvalue: c", false},
		{"type: rangeCheck\ncolumn: fare\nminValue: 0\nmaxValue: 30\ninclusive: true", false},
		{"type: rangeCheck\ncolumn: fare\nminValue: -3\nmaxValue: 30\ninclusive: true", true},
		{"type: uniqueCheck\ncolumns: [_hoodie_record_key]", true},
		{"type: uniqueCheck\ncolumns: [region, ts]", false},
		{"type: stringLengthCheck\ncolumn: rider\nminLength: 2\nmaxLength: 3", true},
		{"type: stringLengthCheck\ncolumn: rider\nminLength: 3", false},
		{"type: stringRegexCheck\ncolumn: _hoodie_partition_path\nregex: ^(eu|us)$", true},
		{"type: stringRegexCheck\ncolumn: rider\nregex: ^b", false},
		{"type: columnSumCheck\ncolumn: fare\nminValue: 46.75\nmaxValue: 46.75\ninclusive: true", true},
		{"type: columnSumCheck\ncolumn: fare\nmaxValue: 40", false},
		{"type: colstats\ncolumn: fare", true},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.check, "\n", " "), func(t *testing.T) {
			cfg := writeConfig(t, dir, item(tt.check))
			r := hoodiectl(t, "", "validate", "--config", cfg)
			want, code := "DATA_VALIDATOR_STATUS=PASS\n", exitOK
			if !tt.pass {
				want, code = "DATA_VALIDATOR_STATUS=FAIL\n", exitRefused
			}
			if r.code != code || r.stdout != want {
				t.Fatalf("exit %d, stdout %q; want %d, %q\nstderr: %s", r.code, r.stdout, code, want, r.stderr)
			}
			status := "PASS"
			if !tt.pass {
				status = "FAIL"
			}
			if !strings.Contains(r.stderr, "  "+status+"  ") {
				t.Errorf("stderr does not show the check as %s:\n%s", status, r.stderr)
			}
		})
	}
}

func TestValidateExitStatuses(t *testing.T) {
	dir, _ := newValidateTable(t)
	failing := writeConfig(t, dir, item("type: nullCheck\ncolumn: rider"))
	passing := writeConfig(t, dir, item("type: rowCount\nminNumRows: 1"))

	r := hoodiectl(t, "", "validate", "--config", failing, "--exitErrorOnFail", "false")
	if r.code != exitOK || r.stdout != "DATA_VALIDATOR_STATUS=FAIL\n" {
		t.Errorf("--exitErrorOnFail false: exit %d, stdout %q", r.code, r.stdout)
	}
	r = hoodiectl(t, "", "validate", "--config", failing, "--exitErrorOnFail=true")
	if r.code != exitRefused || r.stdout != "DATA_VALIDATOR_STATUS=FAIL\n" || !strings.Contains(r.stderr, "uuid=d: rider = null") {
		t.Errorf("--exitErrorOnFail true: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	r = hoodiectl(t, "", "validate", "--config", passing, "--exitErrorOnFail", "false")
	if r.code != exitOK || r.stdout != "DATA_VALIDATOR_STATUS=PASS\n" {
		t.Errorf("pass: exit %d, stdout %q", r.code, r.stdout)
	}

	// Configuration and runtime errors: exit 3 and no status line.
	for _, tt := range []struct {
		name, config string
		want         []string
	}{
		{"unknown check", writeConfig(t, dir, item("type: rowCount\nminNumRows: 1")+item("type: maxCheck\ncolumn: fare")),
			[]string{"config.yaml", `check 2 (line 9): unknown check type "maxCheck"`}},
		{"missing parameter", writeConfig(t, dir, item("type: rangeCheck\ncolumn: fare")),
			[]string{"rangeCheck check 1", "give minValue or maxValue"}},
		{"unknown column", writeConfig(t, dir, item("type: nullCheck\ncolumn: color")),
			[]string{`column "color" is not in the table`}},
		{"bad condition", writeConfig(t, dir, item("type: nullCheck\ncolumn: fare")+"    condition: nope > 1\n"),
			[]string{`condition "nope > 1"`}},
		{"missing table", writeConfig(t, filepath.Join(t.TempDir(), "none"), item("type: rowCount\nminNumRows: 1")),
			[]string{"table ", "none"}},
		{"missing config", filepath.Join(t.TempDir(), "none.yaml"), []string{"none.yaml"}},
	} {
		r := hoodiectl(t, "", "validate", "--config", tt.config)
		r.mustFail(t, exitError, tt.want...)
		if r.stdout != "" {
			t.Errorf("%s: stdout %q, want none", tt.name, r.stdout)
		}
	}

	// Wrong command lines: exit 2.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "validate needs --config FILE"},
		{[]string{"validate", "--config", passing, "extra"}, "got 1 argument"},
		{[]string{"validate", "--config", passing, "--exitErrorOnFail", "maybe"}, `--exitErrorOnFail "maybe"`},
		{[]string{"validate", "--config", passing, "--vars", "A"}, `--vars: "A" is not NAME=VALUE`},
		{[]string{"validate", "--config", passing, "--email", "x"}, "unknown flag: --email"},
	} {
		hoodiectl(t, "", tt.args...).mustFail(t, exitUsage, tt.want)
	}
}

func TestValidateVarsAndTimeTravel(t *testing.T) {
	dir, first := newValidateTable(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := `numKeyCols: 1
numErrorsToReport: 5
detailedErrors: true
vars:
  - name: MIN
    value: 4
tables:
  - hoodieTable: ${TABLE}
    asOf: $AS_OF
    checks:
      - type: nullCheck
        column: $COL
      - type: rangeCheck
        column: fare
        minValue: 0
  - hoodieTable: ${TABLE}
    checks:
      - type: rangeCheck
        column: ts
        minValue: 1
        maxValue: $MAX
        inclusive: true
`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first commit alone has no null rider and no negative fare.
	r := hoodiectl(t, "", "validate", "--config", path, "--vars", "TABLE="+dir+",COL=rider", "--vars", "AS_OF="+first+",MAX=2").mustSucceed(t)
	if r.stdout != "DATA_VALIDATOR_STATUS=PASS\n" || !strings.Contains(r.stderr, "as of "+first+": 3 rows") {
		t.Errorf("stdout %q\nstderr %s", r.stdout, r.stderr)
	}
	// The latest snapshot's ts reach 2: MAX=1 fails it.
	r = hoodiectl(t, "", "validate", "--config", path, "--vars", "TABLE="+dir+",COL=rider,AS_OF="+first+",MAX=1")
	if r.code != exitRefused || !strings.Contains(r.stderr, "uuid=d: ts = 2") {
		t.Errorf("exit %d\nstderr %s", r.code, r.stderr)
	}
	// A variable without a value is a configuration error.
	hoodiectl(t, "", "validate", "--config", path, "--vars", "TABLE="+dir).mustFail(t, exitError, "no value for variable(s) AS_OF")
}

func TestValidateReports(t *testing.T) {
	dir, _ := newValidateTable(t)
	out := t.TempDir()
	jsonPath, htmlPath, appended := filepath.Join(out, "r.json"), filepath.Join(out, "r.html"), filepath.Join(out, "appended.json")
	if err := os.WriteFile(appended, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, dir, item("type: rowCount\nminNumRows: 1")+
		item("type: stringRegexCheck\ncolumn: rider\nregex: ^[ab]")+
		"    keyColumns: [uuid, region]\n    condition: fare < 100\n")
	config, _ := os.ReadFile(cfg)
	config = append(config, []byte("outputs:\n  - filename: "+appended+"\n    append: true\n  - pipe: cat\n")...)
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		t.Fatal(err)
	}
	r := hoodiectl(t, "", "validate", "--config", cfg, "--jsonReport", jsonPath, "--htmlReport", htmlPath)
	if r.code != exitRefused || r.stdout != "DATA_VALIDATOR_STATUS=FAIL\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		NumKeyCols int    `json:"numKeyCols"`
		Failed     bool   `json:"failed"`
		Status     string `json:"status"`
		Tables     []struct {
			HoodieTable string   `json:"hoodieTable"`
			Condition   string   `json:"condition"`
			Failed      bool     `json:"failed"`
			KeyColumns  []string `json:"keyColumns"`
			RowCount    int64    `json:"rowCount"`
			Checks      []struct {
				Type   string           `json:"type"`
				Column string           `json:"column"`
				Regex  string           `json:"regex"`
				Failed bool             `json:"failed"`
				Events []map[string]any `json:"events"`
			} `json:"checks"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	tb := report.Tables[0]
	if report.NumKeyCols != 2 || !report.Failed || report.Status != "FAIL" || tb.HoodieTable != dir || tb.Condition != "fare < 100" ||
		!tb.Failed || strings.Join(tb.KeyColumns, ",") != "uuid,region" || tb.RowCount != 4 || len(tb.Checks) != 2 {
		t.Fatalf("report:\n%s", b)
	}
	regex := tb.Checks[1]
	if regex.Type != "stringRegexCheck" || regex.Column != "rider" || regex.Regex != "^[ab]" || !regex.Failed {
		t.Errorf("check: %+v", regex)
	}
	var errorCount float64 = -1
	var examples []map[string]any
	for _, e := range regex.Events {
		switch {
		case e["type"] == "counter" && e["name"] == "errorCount":
			errorCount = e["value"].(float64)
		case e["type"] == "quickCheckError":
			examples = append(examples, e)
		}
	}
	if errorCount != 1 || len(examples) != 1 {
		t.Fatalf("events: %v", regex.Events)
	}
	if key := examples[0]["key"].(map[string]any); key["uuid"] != "c" || key["region"] != "us" || examples[0]["value"] != "cy" {
		t.Errorf("example: %v", examples[0])
	}

	html, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<!DOCTYPE html>") || !strings.Contains(string(html), "fare &lt; 100") || strings.Contains(string(html), "fare < 100") {
		t.Errorf("HTML report:\n%s", html)
	}
	got, _ := os.ReadFile(appended)
	if !strings.HasPrefix(string(got), "earlier\n{") || !strings.Contains(string(got), `"status": "FAIL"`) {
		t.Errorf("appended output:\n%s", got)
	}
}

// TestValidateKeepsValuesAndSQLInTheirLane checks that --vars and env
// values reach shell variables verbatim without running, and that the
// config's SQL reads the table's files only.
func TestValidateKeepsValuesAndSQLInTheirLane(t *testing.T) {
	dir, _ := newValidateTable(t)
	pwned := t.TempDir()
	x := "$(touch " + filepath.Join(pwned, "x") + ")"
	e := "`touch " + filepath.Join(pwned, "e") + "`; touch " + filepath.Join(pwned, "e2")
	t.Setenv("DV_TEST_VALUE", e)
	cfg := writeConfig(t, "$TABLE", item("type: rowCount\nminNumRows: 1"))
	config, _ := os.ReadFile(cfg)
	config = append([]byte("vars:\n  - name: E\n    env: DV_TEST_VALUE\n  - name: OUT\n    shell: echo \"$X|$E\"\n"), config...)
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	hoodiectl(t, "", "validate", "--config", cfg, "--vars", "TABLE="+dir+",X="+x, "--jsonReport", report).mustSucceed(t)
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Vars []struct{ Name, Value string } `json:"vars"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var out string
	for _, v := range got.Vars {
		if v.Name == "OUT" {
			out = v.Value
		}
	}
	if out != x+"|"+e {
		t.Errorf("OUT = %q, want %q", out, x+"|"+e)
	}
	if entries, _ := os.ReadDir(pwned); len(entries) > 0 {
		t.Errorf("a value ran as shell code: %d files created", len(entries))
	}

	// A condition that reads a file beside the table is a config error.
	cfg = writeConfig(t, dir, item("type: rowCount\nminNumRows: 1")+"    condition: uuid IN (SELECT content FROM read_text('/etc/passwd'))\n")
	hoodiectl(t, "", "validate", "--config", cfg).mustFail(t, exitError, "DuckDB runs locked down")
}

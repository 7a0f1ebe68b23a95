package datavalidator

import (
	"errors"
	"strings"
	"testing"
)

const header = "numKeyCols: 1\nnumErrorsToReport: 3\ndetailedErrors: true\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"not yaml", "tables: [", "not valid YAML"},
		{"empty", "", "empty configuration"},
		{"not a mapping", "- a\n", "want a mapping"},
		{"no tables", header, "tables is required"},
		{"no numKeyCols", "numErrorsToReport: 1\ndetailedErrors: true\ntables: []\n", "numKeyCols is required"},
		{"bad numKeyCols", "numKeyCols: two\nnumErrorsToReport: 1\ndetailedErrors: true\ntables: []\n", "numKeyCols must be a whole number"},
		{"bad detailedErrors", "numKeyCols: 1\nnumErrorsToReport: 1\ndetailedErrors: yes please\ntables: []\n", "detailedErrors must be true or false"},
		{"unknown key", header + "color: red\ntables: []\n", `line 4: unknown key "color"`},
		{"empty tables", header + "tables: []\n", "at least one table"},
		{"hive table", header + "tables:\n  - db: x\n    table: y\n    checks: []\n", "Hive tables (db, table) are not supported"},
		{"orc", header + "tables:\n  - orcFile: x.orc\n    checks: []\n", "orcFile is not supported"},
		{"no source", header + "tables:\n  - condition: a\n    checks: []\n", "table 1 (line 5): a table needs exactly one of hoodieTable and parquetFile"},
		{"two sources", header + "tables:\n  - hoodieTable: a\n    parquetFile: b\n    checks: []\n", "exactly one of hoodieTable and parquetFile"},
		{"asOf on parquet", header + "tables:\n  - parquetFile: b\n    asOf: 2024-01-01\n    checks: []\n", "asOf applies to hoodieTable only"},
		{"no checks", header + "tables:\n  - hoodieTable: /t\n", "table /t (line 5): checks are required"},
		{"empty checks", header + "tables:\n  - hoodieTable: /t\n    checks: []\n", "checks must be a list of at least one check"},
		{"no type", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - column: a\n", "table /t, check 1 (line 7): a check needs a type"},
		{"unknown type", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: rowCount\n        minNumRows: 1\n      - type: maxCheck\n        column: a\n",
			`table /t, check 2 (line 9): unknown check type "maxCheck"`},
		{"missing parameter", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: nullCheck\n", "table /t, nullCheck check 1 (line 7): parameter column is required"},
		{"null parameter", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: stringRegexCheck\n        column: a\n        regex:\n", "stringRegexCheck check 1 (line 7): parameter regex is required"},
		{"unknown parameter", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: nullCheck\n        column: a\n        max: 3\n", `nullCheck check 1 (line 7): unknown key "max"`},
		{"range without bounds", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: rangeCheck\n        column: a\n", "rangeCheck check 1 (line 7): give minValue or maxValue, or both"},
		{"length without bounds", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: stringLengthCheck\n        column: a\n", "give minLength or maxLength"},
		{"infinite value", header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: columnMaxCheck\n        column: a\n        value: .inf\n", "not a finite number"},
		{"var without value", header + "vars:\n  - name: A\ntables: []\n", "variable A needs exactly one of value, env, shell, sql"},
		{"var with two values", header + "vars:\n  - name: A\n    value: 1\n    env: HOME\ntables: []\n", "exactly one of"},
		{"bad var name", header + "vars:\n  - name: 1A\n    value: 1\ntables: []\n", `variable name "1A"`},
		{"bad output", header + "outputs:\n  - filename: a\n    pipe: b\ntables: []\n", "either filename [append] or pipe [ignoreError]"},
		{"repeated key", header + "numKeyCols: 2\ntables: []\n", `key "numKeyCols" given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Parse: got %v, want a ConfigError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseFullConfig(t *testing.T) {
	cfg, err := Parse([]byte(`
numKeyCols: 2
numErrorsToReport: 5
detailedErrors: false
email:
  smtpHost: smtp.example.com
vars:
  - name: ENV
    value: prod
  - name: HOME_DIR
    env: HOME
outputs:
  - filename: /tmp/x.json
    append: true
  - pipe: cat
    ignoreError: true
tables:
  - hoodieTable: /data/$ENV/trips
    asOf: "2024-01-01"
    condition: fare > 0
    keyColumns: [uuid]
    checks:
      - type: rangeCheck
        column: fare
        minValue: 0
        maxValue: "${MAX}"
        inclusive: true
        threshold: 10%
  - parquetFile: /data/*.parquet
    checks:
      - type: uniqueCheck
        columns:
          - a
          - b
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NumKeyCols != 2 || cfg.NumErrorsToReport != 5 || cfg.DetailedErrors {
		t.Errorf("globals: %+v", cfg)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "email is not supported") {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	if len(cfg.Vars) != 2 || *cfg.Vars[0].Value != "prod" || cfg.Vars[1].Env != "HOME" {
		t.Errorf("vars: %+v", cfg.Vars)
	}
	if len(cfg.Outputs) != 2 || !cfg.Outputs[0].Append || cfg.Outputs[1].Pipe != "cat" || !cfg.Outputs[1].IgnoreError {
		t.Errorf("outputs: %+v", cfg.Outputs)
	}
	tb := cfg.Tables[0]
	if tb.HoodieTable != "/data/$ENV/trips" || tb.AsOf != "2024-01-01" || tb.Condition != "fare > 0" || tb.KeyColumns[0] != "uuid" {
		t.Errorf("table: %+v", tb)
	}
	c := tb.Checks[0]
	if c.Type != "rangeCheck" || c.Params["maxValue"].Text != "${MAX}" || c.Params["minValue"].Tag != "!!int" || c.Params["threshold"].Text != "10%" {
		t.Errorf("check: %+v", c)
	}
	if u := cfg.Tables[1].Checks[0].Params["columns"]; !u.IsList || strings.Join(u.List, ",") != "a,b" {
		t.Errorf("uniqueCheck columns: %+v", u)
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"A": "1", "B_2": "two", "AB": "x"}
	tests := []struct{ in, want, err string }{
		{"$A", "1", ""},
		{"${A}B", "1B", ""},
		{"$AB", "x", ""},
		{"${B_2}-$B_2", "two-two", ""},
		{"^abc$", "^abc$", ""},
		{"cost $5 and $", "cost $5 and $", ""},
		{"$C and ${D} and $C", "", "no value for variable(s) C, D"},
	}
	for _, tt := range tests {
		got, err := substitute(tt.in, vars)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("substitute(%q): error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("substitute(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseVarsFlag(t *testing.T) {
	got := map[string]string{}
	if err := ParseVarsFlag("A=1,B=x=y,C=", got); err != nil {
		t.Fatal(err)
	}
	if got["A"] != "1" || got["B"] != "x=y" || got["C"] != "" || len(got) != 3 {
		t.Errorf("got %v", got)
	}
	for _, bad := range []string{"A", "1A=2", "A=1,,B=2"} {
		if err := ParseVarsFlag(bad, map[string]string{}); err == nil {
			t.Errorf("ParseVarsFlag(%q): no error", bad)
		}
	}
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		text     string
		rowCount int64
		want     int64
	}{
		{"", 1000, 0},
		{"0", 1000, 0},
		{"1000", 5, 1000},
		{"1", 5, 1},
		{"0.25", 1000, 250},
		{"0.25", 3, 0},
		{"33%", 1000, 330},
		{"33 %", 10, 3},
		{"100%", 7, 7},
		{"2.5", 10, 2},
	}
	for _, tt := range tests {
		var th threshold
		if tt.text != "" {
			var err error
			if th, err = parseThreshold(tt.text); err != nil {
				t.Fatalf("parseThreshold(%q): %v", tt.text, err)
			}
		}
		if got := th.allowed(tt.rowCount); got != tt.want {
			t.Errorf("threshold %q of %d rows allows %d, want %d", tt.text, tt.rowCount, got, tt.want)
		}
	}
	for _, bad := range []string{"-1", "ten", "10%%", "1e3", "101%", "%"} {
		if _, err := parseThreshold(bad); err == nil {
			t.Errorf("parseThreshold(%q): no error", bad)
		}
	}
}

// FuzzParse checks that Parse returns a configuration or a ConfigError for
// any input, and never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: rowCount\n        minNumRows: 1\n"))
	f.Add([]byte(header + "vars:\n  - name: A\n    value: 1\ntables:\n  - parquetFile: $A\n    checks:\n      - type: rangeCheck\n        column: a\n        minValue: \"`b\"\n"))
	f.Add([]byte(header + "tables:\n  - hoodieTable: &x /t\n    checks:\n      - type: uniqueCheck\n        columns: [*x, {a: 1}]\n"))
	f.Add([]byte("tables: !!binary aGVsbG8=\n"))
	f.Add([]byte("? [a]\n: b\n"))
	f.Add([]byte(header + "tables:\n  - hoodieTable: /t\n    checks:\n      - type: columnMaxCheck\n        column: a\n        value: 0x1F\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Parse: %v is not a ConfigError", err)
			}
			return
		}
		if len(cfg.Tables) == 0 {
			t.Fatal("Parse accepted a configuration without tables")
		}
		for _, tb := range cfg.Tables {
			if len(tb.Checks) == 0 || (tb.HoodieTable == "") == (tb.ParquetFile == "") {
				t.Fatalf("Parse accepted table %+v", tb)
			}
			for _, c := range tb.Checks {
				if _, ok := checkSpecs[c.Type]; !ok {
					t.Fatalf("Parse accepted check type %q", c.Type)
				}
			}
		}
	})
}

package datavalidator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// valueText returns a value of a query result as the text report prints
// it: null as null.
func valueText(v any) string {
	if v == nil {
		return "null"
	}
	return valuefmt.EscapeControl(valuefmt.Text(nil, v))
}

// jsonValue returns a value of a query result as the JSON report holds it:
// booleans and numbers as such (a non-finite float, a decimal as strings,
// the latter exact), everything else as its text.
func jsonValue(v any) any {
	switch v := v.(type) {
	case nil, bool, int64, uint64:
		return v
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return valuefmt.Text(nil, v)
		}
		return v
	case float32:
		return jsonValue(float64(v))
	case *big.Int:
		return json.Number(v.String())
	case basefile.Decimal, basefile.Date, time.Time, string, []byte:
		return valuefmt.Text(nil, v)
	}
	return fmt.Sprint(v)
}

// field is a key and value of an object.
type field struct {
	key   string
	value any
}

// object is a JSON object whose keys keep their order.
type object []field

// MarshalJSON writes the object's fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.key, "")
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.value, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal (json.MarshalIndent with indent) without
// escaping <, > and &, which the report shows as they are.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// paramFields lists a check's parameters in the order the README gives
// them.
func paramFields(p CheckParams) object {
	var o object
	add := func(k string, v any, ok bool) {
		if ok {
			o = append(o, field{k, v})
		}
	}
	add("column", p.Column, p.Column != "")
	add("columns", p.Columns, p.Columns != nil)
	add("minNumRows", p.MinNumRows, p.MinNumRows != nil)
	add("value", p.Value, p.Value != nil)
	add("minValue", p.MinValue, p.MinValue != nil)
	add("maxValue", p.MaxValue, p.MaxValue != nil)
	add("inclusive", p.Inclusive, p.Inclusive != nil)
	add("minLength", p.MinLength, p.MinLength != nil)
	add("maxLength", p.MaxLength, p.MaxLength != nil)
	add("regex", p.Regex, p.Regex != "")
	add("threshold", p.Threshold, p.Threshold != "")
	return o
}

// keyObject is an example's key columns as a JSON object.
func keyObject(key []NamedValue) object {
	o := object{}
	for _, k := range key {
		o = append(o, field{k.Name, jsonValue(k.Value)})
	}
	return o
}

// exampleMessage describes an example of a failed check.
func exampleMessage(r *CheckResult, ex Example) string {
	if r.Type == "uniqueCheck" {
		return fmt.Sprintf("%s failed! %d rows have %s", r.Type, ex.Count, keyText(ex.Key))
	}
	return fmt.Sprintf("%s failed! %s = %s", r.Type, ex.Value.Name, valueText(ex.Value.Value))
}

func keyText(key []NamedValue) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = k.Name + "=" + valueText(k.Value)
	}
	return strings.Join(parts, ", ")
}

// checkJSON is a check's object in the JSON report: its type and
// parameters, whether it failed, colstats' statistics, and its events as
// data-validator lists them (counters, the check event, one
// quickCheckError per example row).
func checkJSON(r *CheckResult) object {
	o := object{{"type", r.Type}}
	o = append(o, paramFields(r.Params)...)
	o = append(o, field{"failed", r.Failed})
	if s := r.Stats; s != nil {
		hist := s.Histogram
		if hist == nil {
			hist = []Bin{}
		}
		o = append(o, field{"count", s.Count}, field{"mean", s.Mean}, field{"min", s.Min}, field{"max", s.Max},
			field{"stdDev", s.StdDev}, field{"histogram", object{{"bins", hist}}})
	}
	events := []object{{{"type", "counter"}, {"name", "rowCount"}, {"value", r.RowCount}}}
	switch {
	case r.Type == "columnMaxCheck" || r.Type == "columnSumCheck":
		events = append(events, object{{"type", "columnBasedCheckEvent"}, {"failed", r.Failed},
			{"message", r.Label + ": " + r.Message}, {"data", object{{"actual", jsonValue(r.Actual)}}}})
	case r.Type == "rowCount" || r.Type == "colstats":
		events = append(events, object{{"type", "checkEvent"}, {"failed", r.Failed}, {"label", r.Label},
			{"count", r.RowCount}, {"errorCount", r.ErrorCount}})
	default:
		events = append(events, object{{"type", "counter"}, {"name", "errorCount"}, {"value", r.ErrorCount}})
		if r.ErrorCountThreshold > 0 {
			events = append(events, object{{"type", "counter"}, {"name", "errorCountThreshold"}, {"value", r.ErrorCountThreshold}})
		}
		events = append(events, object{{"type", "checkEvent"}, {"failed", r.Failed}, {"label", r.Label},
			{"count", r.RowCount}, {"errorCount", r.ErrorCount}})
	}
	for _, ex := range r.Examples {
		e := object{{"type", "quickCheckError"}, {"failed", true}, {"message", exampleMessage(r, ex)}, {"key", keyObject(ex.Key)}}
		if ex.Value != nil {
			e = append(e, field{"value", jsonValue(ex.Value.Value)})
		}
		if r.Type == "uniqueCheck" {
			e = append(e, field{"count", ex.Count})
		}
		events = append(events, e)
	}
	return append(o, field{"events", events})
}

// JSON returns the report as JSON: the configuration's global settings,
// variables and outputs, then each table (its source, keyColumns, row
// count, whether it failed) with each check (its type and parameters,
// failed, and its events), then whether the run failed and its status.
func (r *Report) JSON() ([]byte, error) {
	vars := r.Vars
	if vars == nil {
		vars = []VarValue{}
	}
	outputs := []object{}
	for _, o := range r.Outputs {
		if o.Filename != "" {
			outputs = append(outputs, object{{"filename", o.Filename}, {"append", o.Append}})
		} else {
			outputs = append(outputs, object{{"pipe", o.Pipe}, {"ignoreError", o.IgnoreError}})
		}
	}
	tables := []object{}
	for _, t := range r.Tables {
		var o object
		if t.HoodieTable != "" {
			o = append(o, field{"hoodieTable", t.HoodieTable})
			if t.AsOf != "" {
				o = append(o, field{"asOf", t.AsOf})
			}
		} else {
			o = append(o, field{"parquetFile", t.ParquetFile})
		}
		if t.Condition != "" {
			o = append(o, field{"condition", t.Condition})
		}
		keys := t.KeyColumns
		if keys == nil {
			keys = []string{}
		}
		checks := []object{}
		for _, c := range t.Checks {
			checks = append(checks, checkJSON(c))
		}
		o = append(o, field{"failed", t.Failed}, field{"keyColumns", keys}, field{"rowCount", t.RowCount}, field{"checks", checks})
		tables = append(tables, o)
	}
	doc := object{
		{"numKeyCols", r.NumKeyCols},
		{"numErrorsToReport", r.NumErrorsToReport},
		{"detailedErrors", r.DetailedErrors},
		{"vars", vars},
		{"outputs", outputs},
		{"tables", tables},
		{"failed", r.Failed},
		{"status", r.Status()},
	}
	b, err := marshal(doc, "  ")
	if err != nil {
		return nil, fmt.Errorf("JSON report: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteText prints the report for people: each table and check, PASS or
// FAIL, what was found, and the example rows of failed checks.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	checks, failed := 0, 0
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "table %s", t.Source())
		if t.AsOf != "" {
			fmt.Fprintf(&b, " as of %s", t.AsOf)
		}
		fmt.Fprintf(&b, ": %d rows", t.RowCount)
		if t.Condition != "" {
			fmt.Fprintf(&b, " where %s", valuefmt.EscapeControl(t.Condition))
		}
		b.WriteString("\n")
		for _, c := range t.Checks {
			checks++
			status := "PASS"
			if c.Failed {
				status = "FAIL"
				failed++
			}
			fmt.Fprintf(&b, "  %s  %s: %s\n", status, valuefmt.EscapeControl(c.Label), c.Message)
			if s := c.Stats; s != nil {
				fmt.Fprintf(&b, "        mean %s, min %s, max %s, stdDev %s\n", floatText(s.Mean), floatText(s.Min), floatText(s.Max), floatText(s.StdDev))
			}
			for _, ex := range c.Examples {
				switch {
				case c.Type == "uniqueCheck":
					fmt.Fprintf(&b, "        %s: %d rows\n", keyText(ex.Key), ex.Count)
				case len(ex.Key) > 0:
					fmt.Fprintf(&b, "        %s: %s = %s\n", keyText(ex.Key), ex.Value.Name, valueText(ex.Value.Value))
				default:
					fmt.Fprintf(&b, "        %s = %s\n", ex.Value.Name, valueText(ex.Value.Value))
				}
			}
		}
	}
	fmt.Fprintf(&b, "%d of %d checks failed\n", failed, checks)
	_, err := io.WriteString(w, b.String())
	return err
}

func floatText(f *float64) string {
	if f == nil {
		return "null"
	}
	return valuefmt.FormatFloat(*f, 64)
}

var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"value": valueText,
	"float": floatText,
	"keys":  keyText,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Data validator report: {{.Status}}</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
.PASS { color: #176f2c; font-weight: bold; }
.FAIL { color: #b00020; font-weight: bold; }
code { white-space: pre-wrap; }
</style>
</head>
<body>
<h1>Data validator: <span class="{{.Status}}">{{.Status}}</span></h1>
<p>{{.Failed}} of {{.Checks}} checks failed.</p>
{{range .Tables}}
<h2>{{if .HoodieTable}}Hoodie table {{.HoodieTable}}{{if .AsOf}} as of {{.AsOf}}{{end}}{{else}}Parquet {{.ParquetFile}}{{end}}</h2>
<p>{{.RowCount}} rows{{if .Condition}} where <code>{{.Condition}}</code>{{end}}{{if .KeyColumns}}; key columns {{range $i, $k := .KeyColumns}}{{if $i}}, {{end}}{{$k}}{{end}}{{end}}</p>
<table>
<tr><th>status</th><th>check</th><th>result</th><th>examples</th></tr>
{{range .Checks}}<tr>
<td class="{{if .Failed}}FAIL{{else}}PASS{{end}}">{{if .Failed}}FAIL{{else}}PASS{{end}}</td>
<td>{{.Label}}</td>
<td>{{.Message}}{{with .Stats}}<br>mean {{float .Mean}}, min {{float .Min}}, max {{float .Max}}, stdDev {{float .StdDev}}{{end}}</td>
<td>{{$c := .}}{{range .Examples}}{{if .Key}}{{keys .Key}}{{end}}{{if .Value}}{{if .Key}}: {{end}}{{.Value.Name}} = {{value .Value.Value}}{{end}}{{if eq $c.Type "uniqueCheck"}}: {{.Count}} rows{{end}}<br>
{{end}}</td>
</tr>
{{end}}</table>
{{end}}
</body>
</html>
`))

// WriteHTML writes the report as a self-contained HTML page, every value
// escaped.
func (r *Report) WriteHTML(w io.Writer) error {
	checks, failed := 0, 0
	for _, t := range r.Tables {
		for _, c := range t.Checks {
			checks++
			if c.Failed {
				failed++
			}
		}
	}
	return htmlReport.Execute(w, struct {
		*Report
		Status         string
		Checks, Failed int
	}{r, r.Status(), checks, failed})
}

// WriteOutputs sends the JSON report to the configuration's outputs: each
// file written (or appended to), each pipe program run with the report on
// its standard input. A program that fails is an error unless its output
// has ignoreError.
func (r *Report) WriteOutputs(ctx context.Context) error {
	if len(r.Outputs) == 0 {
		return nil
	}
	report, err := r.JSON()
	if err != nil {
		return err
	}
	for _, o := range r.Outputs {
		if o.Filename != "" {
			name := strings.TrimPrefix(o.Filename, "local://")
			flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			if o.Append {
				flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
			}
			f, err := os.OpenFile(name, flags, 0o644)
			if err != nil {
				return fmt.Errorf("output %s: %w", o.Filename, err)
			}
			_, err = f.Write(report)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("output %s: %w", o.Filename, err)
			}
			continue
		}
		args := strings.Fields(o.Pipe)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdin = bytes.NewReader(report)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil && !o.IgnoreError {
			msg := strings.TrimSpace(out.String())
			if msg != "" {
				return fmt.Errorf("output pipe %s: %w: %s", o.Pipe, err, msg)
			}
			return fmt.Errorf("output pipe %s: %w", o.Pipe, err)
		}
	}
	return nil
}

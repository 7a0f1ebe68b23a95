package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// loose parses JSON text into a loose value, keeping the order of members.
func loose(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := looseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the value")
	}
	return v, nil
}

func looseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &Object{}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := looseValue(dec)
			if err != nil {
				return nil, err
			}
			o.Names, o.Values = append(o.Names, name.(string)), append(o.Values, v)
		}
		_, err = dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := looseValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

func mustLoose(t testing.TB, text string) any {
	t.Helper()
	v, err := loose(text)
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", text, err)
	}
	return v
}

// typeString renders a type compactly for test expectations: a "?" suffix
// for nullable, name{fields} for records, [items] for arrays, map<values>.
func typeString(t *basefile.Type) string {
	var s string
	switch {
	case t.Kind == basefile.KindRecord:
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = f.Name + ":" + typeString(f.Type)
		}
		s = t.Name + "{" + strings.Join(fields, ",") + "}"
	case t.Kind == basefile.KindArray:
		s = "[" + typeString(t.Items) + "]"
	case t.Kind == basefile.KindMap:
		s = "map<" + typeString(t.Values) + ">"
	default:
		s = typeName(t)
	}
	if t.Nullable {
		s += "?"
	}
	return s
}

// recordTypeOf returns s as a record type, sharing its fields.
func recordTypeOf(s *basefile.Schema) *basefile.Type {
	return &basefile.Type{Kind: basefile.KindRecord, Name: s.Name, Namespace: s.Namespace, Doc: s.Doc, Fields: s.Fields}
}

func schemaString(s *basefile.Schema) string {
	return typeString(recordTypeOf(s))
}

// valuesEqual reports whether two values of the value model are equal, NaN
// being equal to itself.
func valuesEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok && math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
	case float32:
		if y, ok := b.(float32); ok && x != x && y != y {
			return true
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !valuesEqual(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// checkModelRows checks that rows are exactly values of schema s: they
// encode to Parquet and decode back unchanged. Rows with null array
// elements, which the types allow but Parquet's two-level lists cannot
// store, are skipped.
func checkModelRows(t testing.TB, s *basefile.Schema, rows [][]any) {
	t.Helper()
	for i, row := range rows {
		if hasNullElement(row, recordTypeOf(s)) {
			continue
		}
		pr, err := s.AppendRow(nil, row)
		if err != nil {
			t.Fatalf("row %d %v does not fit the schema: %v", i, row, err)
		}
		back, err := s.DecodeRow(pr)
		if err != nil {
			t.Fatalf("row %d: decode: %v", i, err)
		}
		if !valuesEqual(back, row) {
			t.Fatalf("row %d is not in the value model:\n got %#v\nback %#v", i, row, back)
		}
	}
}

// hasNullElement reports whether v, a value of type t, holds an array with a
// null element.
func hasNullElement(v any, t *basefile.Type) bool {
	switch t.Kind {
	case basefile.KindRecord:
		values, _ := v.([]any)
		for i, f := range t.Fields {
			if i < len(values) && hasNullElement(values[i], f.Type) {
				return true
			}
		}
	case basefile.KindArray:
		elems, _ := v.([]any)
		for _, e := range elems {
			if e == nil || hasNullElement(e, t.Items) {
				return true
			}
		}
	case basefile.KindMap:
		m, _ := v.(map[string]any)
		for _, e := range m {
			if hasNullElement(e, t.Values) {
				return true
			}
		}
	}
	return false
}

func utcTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// inferTable is a table schema exercising every kind of column.
const inferTable = `{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[
	{"name":"i","type":["null","int"],"default":null},
	{"name":"l","type":["null","long"],"default":null},
	{"name":"f","type":["null","float"],"default":null},
	{"name":"d","type":["null","double"],"default":null},
	{"name":"s","type":["null","string"],"default":null},
	{"name":"b","type":["null","boolean"],"default":null},
	{"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},
	{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
	{"name":"at","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
	{"name":"raw","type":["null","bytes"],"default":null},
	{"name":"kind","type":["null",{"type":"enum","name":"kind","symbols":["A","B"]}],"default":null},
	{"name":"m","type":["null",{"type":"map","values":"long"}],"default":null},
	{"name":"tags","type":["null",{"type":"array","items":"int"}],"default":null},
	{"name":"r","type":["null",{"type":"record","name":"r","fields":[
		{"name":"a","type":"int"},{"name":"b","type":"string"}]}],"default":null},
	{"name":"req","type":"int"}]}`

// inferRecords feeds JSON objects, one a line, to an Inferrer; a record's
// values end with the last column it has.
func inferRecords(in *Inferrer, lines ...string) error {
	for _, line := range lines {
		row, err := looseRow(in, line)
		if err == nil {
			err = in.Add(row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// looseRow parses a JSON object into the values of its columns in in, up to
// the last one it has, adding the columns it has that in lacks.
func looseRow(in *Inferrer, line string) ([]any, error) {
	v, err := loose(line)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, errors.New("not an object")
	}
	var row []any
	for i, name := range o.Names {
		col, err := in.Column(name)
		if err != nil {
			return nil, err
		}
		for len(row) <= col {
			row = append(row, nil)
		}
		row[col] = o.Values[i]
	}
	return row, nil
}

func TestInferrer(t *testing.T) {
	table := parseAvro(t, inferTable)
	tests := []struct {
		name    string
		table   *basefile.Schema
		text    bool
		records []string
		schema  string
		rows    [][]any
		wantErr string
	}{{
		name:    "primitives",
		records: []string{`{"uuid": "a", "ts": 1, "fare": 1.5, "ok": true, "n": null}`},
		schema:  "record{uuid:string?,ts:long?,fare:double?,ok:boolean?,n:string?}",
		rows:    [][]any{{"a", int64(1), 1.5, true, nil}},
	}, {
		name:    "long and double join to double",
		records: []string{`{"x": 1}`, `{"x": 2.5}`, `{"x": 1.2345678901234567e19}`},
		schema:  "record{x:double?}",
		rows:    [][]any{{1.0}, {2.5}, {1.2345678901234567e19}},
	}, {
		// Written in full, its digits are meant: as a double it would lose
		// them.
		name:    "a fraction beyond 2^53 that a double cannot hold is refused",
		records: []string{`{"x": 2.5}`, `{"x": 12345678901234567890.0}`},
		wantErr: `column "x": 12345678901234567890.0 does not fit double: a number the column's floating-point type cannot hold exactly`,
	}, {
		// As a double it would lose digits: two such keys could become one.
		name:    "a whole number beyond a long is refused",
		records: []string{`{"x": 1}`, `{"x": 12345678901234567890}`},
		wantErr: `column "x": 12345678901234567890 is a whole number out of the range of a long`,
	}, {
		name:    "first-seen order, absent fields null",
		records: []string{`{"b": 1, "a": "x"}`, `{"c": false, "a": "y"}`},
		schema:  "record{b:long?,a:string?,c:boolean?}",
		rows:    [][]any{{int64(1), "x", nil}, {nil, "y", false}},
	}, {
		name:    "nested records merge",
		records: []string{`{"r": {"x": 1}}`, `{"r": {"y": "s", "x": 2.5}}`, `{"r": null}`},
		schema:  "record{r:r{x:double?,y:string?}?}",
		rows:    [][]any{{[]any{1.0, nil}}, {[]any{2.5, "s"}}, {nil}},
	}, {
		name:    "arrays",
		records: []string{`{"a": [1, 2]}`, `{"a": []}`, `{"a": [null, 3.5]}`, `{"e": []}`},
		schema:  "record{a:[double?]?,e:[string?]?}",
		rows:    [][]any{{[]any{1.0, 2.0}, nil}, {[]any{}, nil}, {[]any{nil, 3.5}, nil}, {nil, []any{}}},
	}, {
		name:    "array of records",
		records: []string{`{"a": [{"x": 1}, {"y": true}]}`},
		schema:  "record{a:[a{x:long?,y:boolean?}?]?}",
		rows:    [][]any{{[]any{[]any{int64(1), nil}, []any{nil, true}}}},
	}, {
		name:    "conflict",
		records: []string{`{"a": 1}`, `{"a": "x"}`},
		wantErr: `column "a": string here, but long in earlier records`,
	}, {
		name:    "nested conflict",
		records: []string{`{"r": {"x": [1]}}`, `{"r": {"x": [true]}}`},
		wantErr: `column "r.x[]": boolean here, but long in earlier records`,
	}, {
		name:    "conflict in an array",
		records: []string{`{"a": [1, "x"]}`},
		wantErr: `column "a[1]": string here, but long in earlier elements`,
	}, {
		name:    "bad nested name",
		records: []string{`{"r": {"a-b": 1}}`},
		wantErr: `column "r.a-b": not a valid field name`,
	}, {
		name:    "bad number",
		records: []string{`{"x": 1e999}`},
		wantErr: `column "x": 1e999 is out of the range of a double`,
	}, {
		name:    "empty record",
		records: []string{`{"r": {}}`},
		wantErr: `record "r" has no fields`,
	}, {
		name:    "table types where values fit",
		table:   table,
		records: []string{`{"i": 1, "l": 2, "f": 1.5, "d": 3, "s": 4, "b": "true", "price": "9.99", "day": "2024-01-02", "at": "2024-01-02T03:04:05Z", "raw": "AQI=", "kind": "B", "m": {"k": 5}, "tags": [1], "r": {"a": 1, "b": "x"}, "req": 7}`},
		schema:  `trips_record{i:int?,l:long?,f:float?,d:double?,s:string?,b:boolean?,price:decimal(10,2)?,day:date?,at:timestamp-micros?,raw:bytes?,kind:enum "kind"?,m:map<long>?,tags:[int]?,r:r{a:int,b:string}?,req:int?}`,
		rows: [][]any{{int32(1), int64(2), float32(1.5), 3.0, "4", true, basefile.NewDecimalInt64(999, 2), basefile.Date(19724), utcTime("2024-01-02T03:04:05Z"),
			[]byte{1, 2}, "B", map[string]any{"k": int64(5)}, []any{int32(1)}, []any{int32(1), "x"}, int32(7)}},
	}, {
		name:    "table column only null keeps its type",
		table:   table,
		records: []string{`{"i": null, "new": null}`},
		schema:  `trips_record{i:int?,new:string?}`,
		rows:    [][]any{{nil, nil}},
	}, {
		name:    "3.5 in an int column infers double",
		table:   table,
		records: []string{`{"i": 3}`, `{"i": 3.5}`, `{"i": 4}`},
		schema:  `trips_record{i:double?}`,
		rows:    [][]any{{3.0}, {3.5}, {4.0}},
	}, {
		name:    "a large number in an int column infers long",
		table:   table,
		records: []string{`{"i": 3}`, `{"i": 3000000000}`},
		schema:  `trips_record{i:long?}`,
		rows:    [][]any{{int64(3)}, {int64(3000000000)}},
	}, {
		name:    "1e20 in a long column infers double",
		table:   table,
		records: []string{`{"l": 1e20}`},
		schema:  `trips_record{l:double?}`,
		rows:    [][]any{{1e20}},
	}, {
		name:    "a word in an int column does not fit",
		table:   table,
		records: []string{`{"i": "abc"}`},
		wantErr: `column "i": "abc" does not fit int: not a number`,
	}, {
		name:    "a word after numbers in an int column does not fit",
		table:   table,
		records: []string{`{"i": 1}`, `{"i": "abc"}`},
		wantErr: `column "i": "abc" does not fit int: not a number`,
	}, {
		name:    "a fraction in an int column widens it",
		table:   table,
		records: []string{`{"i": 1}`, `{"i": 2.5}`},
		schema:  `trips_record{i:double?}`,
		rows:    [][]any{{1.0}, {2.5}},
	}, {
		name:    "too many decimal places do not fit",
		table:   table,
		records: []string{`{"price": 1.5}`, `{"price": 1.255}`},
		wantErr: `column "price": 1.255 does not fit decimal(10,2): more than 2 digits after the point`,
	}, {
		name:    "a map value that does not fit",
		table:   table,
		records: []string{`{"m": {"a": 1, "b": 2.5}}`},
		schema:  `trips_record{m:map<double>?}`,
		rows:    [][]any{{map[string]any{"a": 1.0, "b": 2.5}}},
	}, {
		name:    "an array element that does not fit",
		table:   table,
		records: []string{`{"tags": [1, null, 2.5]}`},
		schema:  `trips_record{tags:[double?]?}`,
		rows:    [][]any{{[]any{1.0, nil, 2.5}}},
	}, {
		name:    "a nested field that does not fit, and a new one",
		table:   table,
		records: []string{`{"r": {"a": 1.5, "b": "x", "c": true}}`, `{"r": {"a": 2, "b": "y"}}`},
		schema:  `trips_record{r:r{a:double,b:string,c:boolean?}?}`,
		rows:    [][]any{{[]any{1.5, "x", true}}, {[]any{2.0, "y", nil}}},
	}, {
		name:    "a missing non-null nested field",
		table:   table,
		records: []string{`{"r": {"a": 1}}`},
		schema:  `trips_record{r:r{a:int,b:string?}?}`,
		rows:    [][]any{{[]any{int32(1), nil}}},
	}, {
		name:    "nested records are named in the table's namespace",
		table:   table,
		records: []string{`{"n": {"x": {"y": 1}}}`},
		schema:  `trips_record{n:n{x:x{y:long?}?}?}`,
		rows:    [][]any{{[]any{[]any{int64(1)}}}},
	}, {
		name:    "text",
		text:    true,
		records: []string{`{"a": "1", "b": "2.5", "c": "true", "d": "x", "e": "007", "f": "1e999"}`, `{"a": "-2", "b": "3", "c": "FALSE", "d": "5"}`},
		schema:  `record{a:long?,b:double?,c:boolean?,d:string?,e:string?,f:string?}`,
		rows:    [][]any{{int64(1), 2.5, true, "x", "007", "1e999"}, {int64(-2), 3.0, false, "5", nil, nil}},
	}, {
		name:    "text that conflicts is a string",
		text:    true,
		records: []string{`{"a": "1.50"}`, `{"a": "x"}`, `{"a": "true"}`},
		schema:  `record{a:string?}`,
		rows:    [][]any{{"1.50"}, {"x"}, {"true"}},
	}, {
		// Digits beyond a long, an identifier perhaps, keep every digit.
		name:    "text of a whole number beyond a long is a string",
		text:    true,
		records: []string{`{"a": "1"}`, `{"a": "12345678901234567890"}`},
		schema:  `record{a:string?}`,
		rows:    [][]any{{"1"}, {"12345678901234567890"}},
	}, {
		name:    "text in table columns",
		table:   table,
		text:    true,
		records: []string{`{"i": "5", "price": "1.5", "s": "007", "day": "2024-01-02"}`},
		schema:  `trips_record{i:int?,price:decimal(10,2)?,s:string?,day:date?}`,
		rows:    [][]any{{int32(5), basefile.NewDecimalInt64(150, 2), "007", basefile.Date(19724)}},
	}, {
		name:    "a word in an int column of text does not fit",
		table:   table,
		text:    true,
		records: []string{`{"i": "5"}`, `{"i": "abc"}`},
		wantErr: `column "i": "abc" does not fit int: not a number`,
	}, {
		name:    "whole numbers a double cannot hold exactly",
		records: []string{`{"id": 9007199254740993}`, `{"id": 0.5}`},
		wantErr: `9007199254740993 does not fit double: a number the column's floating-point type cannot hold exactly`,
	}, {
		name:    "whole numbers a double holds exactly",
		records: []string{`{"id": 9007199254740992}`, `{"id": 0.5}`, `{"id": 9007199254740994}`},
		schema:  `record{id:double?}`,
		rows:    [][]any{{9007199254740992.0}, {0.5}, {9007199254740994.0}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInferrer(InferOptions{Table: tt.table, Text: tt.text})
			err := inferRecords(in, tt.records...)
			var s *basefile.Schema
			var rows [][]any
			if err == nil {
				s, rows, err = in.Finish()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInferred(t, s, rows, tt.schema, tt.rows)
			checkModelRows(t, s, rows)
		})
	}
}

func rowsAsValues(rows [][]any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

func TestInferrerNames(t *testing.T) {
	in := NewInferrer(InferOptions{Table: parseAvro(t, inferTable)})
	if err := inferRecords(in, `{"n": {"x": {"y": 1}}}`); err != nil {
		t.Fatal(err)
	}
	s, _, err := in.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if s.FullName() != "hoodie.trips.trips_record" {
		t.Errorf("schema named %q", s.FullName())
	}
	n := s.Fields[0].Type
	x := n.Fields[0].Type
	if got := basefile.FullName(n.Name, n.Namespace, ""); got != "hoodie.trips.trips_record.n" {
		t.Errorf("record n named %q", got)
	}
	if got := basefile.FullName(x.Name, x.Namespace, ""); got != "hoodie.trips.trips_record.n.x" {
		t.Errorf("record x named %q", got)
	}
	if _, err := NewInferrer(InferOptions{}).Column("a b"); err == nil || !strings.Contains(err.Error(), `column "a b": not a valid column name`) {
		t.Errorf("Column(\"a b\") error %v", err)
	}
}

func TestInferrerAddErrorLeavesItUnchanged(t *testing.T) {
	in := NewInferrer(InferOptions{})
	if err := inferRecords(in, `{"a": 1, "b": "x"}`); err != nil {
		t.Fatal(err)
	}
	if err := inferRecords(in, `{"a": 2.5, "b": 3}`); err == nil {
		t.Fatal("no conflict")
	}
	s, rows, err := in.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaString(s); got != "record{a:long?,b:string?}" || len(rows) != 1 {
		t.Errorf("after a failed Add: schema %s, %d rows", got, len(rows))
	}
}

func FuzzInferrer(f *testing.F) {
	for _, s := range []string{
		`{"i": 1, "l": 2, "f": 1.5, "price": "9.99", "day": "2024-01-02", "at": 5, "m": {"k": 5}, "tags": [1], "r": {"a": 1, "b": "x"}, "req": 1}`,
		"{\"i\": 3.5, \"x\": [1, 2.5]}\n{\"i\": 1, \"x\": []}",
		"{\"r\": {\"a\": 1.5, \"c\": {\"d\": null}}}\n{\"r\": null, \"n\": {\"a\": [{\"b\": 1}]}}",
		"{\"a\": \"1\", \"b\": \"x\"}\n{\"a\": \"2.5\", \"b\": \"true\"}",
		`{"kind": "C", "raw": "!", "at": "2024-01-01 00:00:00"}`,
	} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	table := parseAvro(f, inferTable)
	f.Fuzz(func(t *testing.T, data string, withTable, text bool) {
		opts := InferOptions{Text: text}
		if withTable {
			opts.Table = table
		}
		in := NewInferrer(opts)
		for line := range strings.SplitSeq(data, "\n") {
			// Errors are fine: the records are then left out.
			inferRecords(in, line)
		}
		s, rows, err := in.Finish()
		if err != nil {
			return
		}
		if len(rows) != in.Len() {
			t.Fatalf("%d rows for %d records", len(rows), in.Len())
		}
		for _, f := range s.Fields {
			if !f.Type.Nullable {
				t.Fatalf("column %s is not nullable", f.Name)
			}
		}
		checkModelRows(t, s, rows)
		if _, err := s.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestInferrerFinishFirstError checks that Finish, converting the rows of
// many records in parts on all cores, reports the first record that does
// not convert.
func TestInferrerFinishFirstError(t *testing.T) {
	in := NewInferrer(InferOptions{})
	if _, err := in.Column("n"); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, 4*rowChunk)
	for i := range rows {
		rows[i] = []any{json.Number(strconv.Itoa(i))}
		if err := in.Add(rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	// The Inferrer keeps the rows Add takes: values changed afterwards
	// need not fit the types inferred.
	rows[3*rowChunk+5][0] = "x"
	rows[rowChunk+7][0] = "y"
	_, _, err := in.Finish()
	if want := fmt.Sprintf(`ingest: record %d: column "n": "y" does not fit long: not a number`, rowChunk+8); err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestValuePath(t *testing.T) {
	tests := []struct {
		innermostFirst []string
		want           string
	}{
		{nil, ""},
		{[]string{"r"}, "r"},
		{[]string{"x", "[1]", "n", "r"}, "r.n[1].x"},
		{[]string{`["k"]`, "{}", "m"}, `m{}["k"]`},
		{[]string{"[0]", ""}, "[0]"},
		{[]string{"a", ""}, "a"},
	}
	for _, tt := range tests {
		if got := valuePath(tt.innermostFirst); got != tt.want {
			t.Errorf("valuePath(%q) = %q, want %q", tt.innermostFirst, got, tt.want)
		}
	}
}

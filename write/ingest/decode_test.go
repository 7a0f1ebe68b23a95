package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// decodeTempFile writes content to a file named name in a temporary folder
// and decodes the open file.
func decodeTempFile(t *testing.T, name, format string, content []byte, table *basefile.Schema) (*write.Input, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Decode(context.Background(), f, name, Format(format), table)
}

// nullOr returns a nullable primitive type.
func nullOr(kind basefile.Kind) *basefile.Type { return basefile.Nullable(basefile.Primitive(kind)) }

// recordSchema returns the schema of an input named "record", as without a
// table.
func recordSchema(fields ...basefile.Field) *basefile.Schema {
	return &basefile.Schema{Name: "record", Fields: fields}
}

// parseAvro parses a schema in Avro JSON.
func parseAvro(t testing.TB, avroJSON string) *basefile.Schema {
	t.Helper()
	s, err := basefile.ParseSchema([]byte(avroJSON))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkDecodedInput compares an input's schema, rows and lines with the
// wanted ones.
func checkDecodedInput(t *testing.T, in *write.Input, schema *basefile.Schema, rows [][]any, lines []int) {
	t.Helper()
	if !in.Schema.Equal(schema) {
		got, _ := in.Schema.MarshalJSON()
		want, _ := schema.MarshalJSON()
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	if !reflect.DeepEqual(in.Rows, rows) {
		t.Errorf("rows\n got %#v\nwant %#v", in.Rows, rows)
	}
	if !reflect.DeepEqual(in.Lines, lines) {
		t.Errorf("lines %v, want %v", in.Lines, lines)
	}
}

// inputTestTable is a table schema with columns of many types.
const inputTestTable = `{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[
	{"name":"id","type":["null","int"],"default":null},
	{"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},
	{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
	{"name":"at","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
	{"name":"raw","type":["null","bytes"],"default":null},
	{"name":"attrs","type":["null",{"type":"map","values":"string"}],"default":null},
	{"name":"ok","type":["null","boolean"],"default":null}]}`

func TestDecodeJSONL(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	inTable := func(fields ...basefile.Field) *basefile.Schema {
		return &basefile.Schema{Name: "trips_record", Namespace: "hoodie.trips", Fields: fields}
	}
	tableField := func(name string) basefile.Field {
		f, _ := table.Field(name)
		return basefile.Field{Name: name, Type: f.Type}
	}
	at := time.Date(2023, 4, 1, 17, 1, 0, 123456000, time.UTC)
	longText := strings.Repeat("x", 3<<20)
	tests := []struct {
		name    string
		content string
		table   *basefile.Schema
		schema  *basefile.Schema
		rows    [][]any
		lines   []int
	}{{
		name:    "columns in first-seen order",
		content: "\uFEFF{\"b\": 1, \"a\": \"x\"}\r\n\r\n   \n{\"c\": true, \"a\": \"y\", \"b\": 2}",
		schema:  recordSchema(basefile.Field{Name: "b", Type: nullOr(basefile.KindLong)}, basefile.Field{Name: "a", Type: nullOr(basefile.KindString)}, basefile.Field{Name: "c", Type: nullOr(basefile.KindBoolean)}),
		rows:    [][]any{{int64(1), "x", nil}, {int64(2), "y", true}},
		lines:   []int{1, 4},
	}, {
		name:    "numbers join",
		content: "{\"x\": 1}\n{\"x\": 2.5}\n{\"x\": null}\n",
		schema:  recordSchema(basefile.Field{Name: "x", Type: nullOr(basefile.KindDouble)}),
		rows:    [][]any{{1.0}, {2.5}, {nil}},
		lines:   []int{1, 2, 3},
	}, {
		name:    "nested objects and arrays",
		content: `{"r": {"z": 1, "a": [1, 2]}, "m": {"k": "v"}}` + "\n" + `{"r": {"a": [], "y": {"q": false}}}`,
		schema: recordSchema(
			basefile.Field{Name: "r", Type: basefile.Nullable(&basefile.Type{Kind: basefile.KindRecord, Name: "r", Namespace: "record", Fields: []basefile.Field{
				{Name: "z", Type: nullOr(basefile.KindLong)},
				{Name: "a", Type: basefile.Nullable(basefile.ArrayType(nullOr(basefile.KindLong)))},
				{Name: "y", Type: basefile.Nullable(&basefile.Type{Kind: basefile.KindRecord, Name: "y", Namespace: "record.r", Fields: []basefile.Field{
					{Name: "q", Type: nullOr(basefile.KindBoolean)}}})},
			}})},
			basefile.Field{Name: "m", Type: basefile.Nullable(&basefile.Type{Kind: basefile.KindRecord, Name: "m", Namespace: "record", Fields: []basefile.Field{
				{Name: "k", Type: nullOr(basefile.KindString)}}})}),
		rows:  [][]any{{[]any{int64(1), []any{int64(1), int64(2)}, nil}, []any{"v"}}, {[]any{nil, []any{}, []any{false}}, nil}},
		lines: []int{1, 2},
	}, {
		name:    "table types",
		content: `{"id": 7, "price": 9.5, "day": "2024-01-02", "at": "2023-04-01T17:01:00.123456Z", "raw": "AQI=", "attrs": {"b": "x", "a": "y"}, "ok": "true"}`,
		table:   table,
		schema:  inTable(tableField("id"), tableField("price"), tableField("day"), tableField("at"), tableField("raw"), tableField("attrs"), tableField("ok")),
		rows: [][]any{{int32(7), basefile.NewDecimalInt64(950, 2), basefile.Date(19724), at, []byte{1, 2},
			map[string]any{"a": "y", "b": "x"}, true}},
		lines: []int{1},
	}, {
		name:    "numbers wider than the table's widen its columns",
		content: `{"id": 3.5, "new": 1}`,
		table:   table,
		schema:  inTable(basefile.Field{Name: "id", Type: nullOr(basefile.KindDouble)}, basefile.Field{Name: "new", Type: nullOr(basefile.KindLong)}),
		rows:    [][]any{{3.5, int64(1)}},
		lines:   []int{1},
	}, {
		name:    "meta columns are dropped",
		content: `{"_hoodie_commit_time": "20240101000000000", "_hoodie_commit_seqno": "x", "_hoodie_record_key": "1", "_hoodie_partition_path": "", "_hoodie_file_name": "f", "id": 1}`,
		schema:  recordSchema(basefile.Field{Name: "id", Type: nullOr(basefile.KindLong)}),
		rows:    [][]any{{int64(1)}},
		lines:   []int{1},
	}, {
		name:    "escapes and surrogate pairs",
		content: `{"s": "a\"b\\\u00e9\n\ud83d\ude00\uD83D\uDE01\/\b\f\r\t\u0000", "t": "é😀", "\u0074u": "\uffff\ud7ff\ue000\udbff\udfff"}`,
		schema: recordSchema(basefile.Field{Name: "s", Type: nullOr(basefile.KindString)}, basefile.Field{Name: "t", Type: nullOr(basefile.KindString)},
			basefile.Field{Name: "tu", Type: nullOr(basefile.KindString)}),
		rows:  [][]any{{"a\"b\\é\n😀😁/\b\f\r\t\x00", "é😀", "\uffff\ud7ff\ue000\U0010FFFF"}},
		lines: []int{1},
	}, {
		name:    "escaped map keys",
		content: `{"attrs": {"\u00e9\ud83d\ude00": "v", "\"": "w"}}`,
		table:   table,
		schema:  inTable(tableField("attrs")),
		rows:    [][]any{{map[string]any{"é😀": "v", `"`: "w"}}},
		lines:   []int{1},
	}, {
		name:    "a line longer than the buffer",
		content: `{"s": "` + longText + `"}` + "\n" + `{"s": "short"}`,
		schema:  recordSchema(basefile.Field{Name: "s", Type: nullOr(basefile.KindString)}),
		rows:    [][]any{{longText}, {"short"}},
		lines:   []int{1, 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := decodeTempFile(t, "in.jsonl", "jsonl", []byte(tt.content), tt.table)
			if err != nil {
				t.Fatal(err)
			}
			if in.Name != "in.jsonl" {
				t.Errorf("name %q", in.Name)
			}
			checkDecodedInput(t, in, tt.schema, tt.rows, tt.lines)
		})
	}
}

func TestDecodeCSV(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	tests := []struct {
		name    string
		content string
		table   *basefile.Schema
		schema  *basefile.Schema
		rows    [][]any
		lines   []int
	}{{
		name:    "types inferred from text",
		content: "\uFEFFid,name,fare,ok,zip\n1,Ann,1.5,true,007\n2,,2,FALSE,10001\n",
		schema: recordSchema(basefile.Field{Name: "id", Type: nullOr(basefile.KindLong)}, basefile.Field{Name: "name", Type: nullOr(basefile.KindString)},
			basefile.Field{Name: "fare", Type: nullOr(basefile.KindDouble)}, basefile.Field{Name: "ok", Type: nullOr(basefile.KindBoolean)},
			basefile.Field{Name: "zip", Type: nullOr(basefile.KindString)}),
		rows:  [][]any{{int64(1), "Ann", 1.5, true, "007"}, {int64(2), nil, 2.0, false, "10001"}},
		lines: []int{2, 3},
	}, {
		name:    "quoted fields over several lines keep their line ends",
		content: "id,note\r\n1,\"a\r\nb, \"\"c\"\"\"\r\n2,d\r\n\r\n3,\"x\ny\r\r\n\"\n4,\"\r\"\r\n5,\"\"\r",
		schema:  recordSchema(basefile.Field{Name: "id", Type: nullOr(basefile.KindLong)}, basefile.Field{Name: "note", Type: nullOr(basefile.KindString)}),
		rows:    [][]any{{int64(1), "a\r\nb, \"c\""}, {int64(2), "d"}, {int64(3), "x\ny\r\r\n"}, {int64(4), "\r"}, {int64(5), nil}},
		lines:   []int{2, 4, 6, 9, 10},
	}, {
		name:    "line ends outside quotes end records",
		content: "a,b\r\n\"x\",y\r\nz\r,\"\"\"\"\r\n\n\r\nu,v\r",
		schema:  recordSchema(basefile.Field{Name: "a", Type: nullOr(basefile.KindString)}, basefile.Field{Name: "b", Type: nullOr(basefile.KindString)}),
		rows:    [][]any{{"x", "y"}, {"z\r", "\""}, {"u", "v"}},
		lines:   []int{2, 3, 6},
	}, {
		name:    "mixed text is a string",
		content: "v\n1\nx\n2.5\n",
		schema:  recordSchema(basefile.Field{Name: "v", Type: nullOr(basefile.KindString)}),
		rows:    [][]any{{"1"}, {"x"}, {"2.5"}},
		lines:   []int{2, 3, 4},
	}, {
		name:    "table types",
		content: "ok,id,day,price,_hoodie_record_key\ntrue,5,2024-01-02,1.5,k\n",
		table:   table,
		schema: &basefile.Schema{Name: "trips_record", Namespace: "hoodie.trips", Fields: []basefile.Field{
			{Name: "ok", Type: nullOr(basefile.KindBoolean)}, {Name: "id", Type: nullOr(basefile.KindInt)},
			{Name: "day", Type: basefile.Nullable(basefile.DateType())}, {Name: "price", Type: basefile.Nullable(basefile.DecimalType(10, 2))}}},
		rows:  [][]any{{true, int32(5), basefile.Date(19724), basefile.NewDecimalInt64(150, 2)}},
		lines: []int{2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := decodeTempFile(t, "in.csv", "csv", []byte(tt.content), tt.table)
			if err != nil {
				t.Fatal(err)
			}
			checkDecodedInput(t, in, tt.schema, tt.rows, tt.lines)
		})
	}
}

// parquetTestRow is a row of a Parquet file that parquet-go writes, without an
// Avro schema.
type parquetTestRow struct {
	ID   int64   `parquet:"id"`
	Name *string `parquet:"name,optional"`
	Fare float64 `parquet:"fare"`
	Tags []int32 `parquet:"tags,list"`
}

func writeTestParquet(t *testing.T, rows ...parquetTestRow) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[parquetTestRow](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// baseFileTestTable is the schema of the Hudi base files the tests write.
const baseFileTestTable = `{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[
	{"name":"uuid","type":"string"},
	{"name":"fare","type":["null","double"],"default":null},
	{"name":"driver","type":["null",{"type":"record","name":"driver","fields":[
		{"name":"name","type":["null","string"],"default":null},
		{"name":"since","type":["null",{"type":"int","logicalType":"date"}],"default":null}]}],"default":null}]}`

// writeTestBaseFile writes a Hudi base file of baseFileTestTable holding
// rows (data columns only) and returns its content.
func writeTestBaseFile(t *testing.T, rows ...[]any) []byte {
	t.Helper()
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := basefile.NewWriter(ctx, fsys, "f.parquet", parseAvro(t, baseFileTestTable), basefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		meta := []any{"20240101000000000", "20240101000000000_0_1", row[0], "", "f.parquet"}
		if err := w.WriteRow(append(meta, row...)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := fsys.ReadFile(ctx, "f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeParquet(t *testing.T) {
	ann := "Ann"
	plain := writeTestParquet(t, parquetTestRow{ID: 1, Name: &ann, Fare: 1.5, Tags: []int32{1, 2}}, parquetTestRow{ID: 2, Fare: 2})
	plainSchema := recordSchema(
		basefile.Field{Name: "id", Type: nullOr(basefile.KindLong)},
		basefile.Field{Name: "name", Type: nullOr(basefile.KindString)},
		basefile.Field{Name: "fare", Type: nullOr(basefile.KindDouble)},
		basefile.Field{Name: "tags", Type: basefile.Nullable(basefile.ArrayType(basefile.Primitive(basefile.KindInt)))})
	plainRows := [][]any{{int64(1), "Ann", 1.5, []any{int32(1), int32(2)}}, {int64(2), nil, 2.0, []any{}}}

	base := writeTestBaseFile(t, []any{"a", 1.5, []any{"Bo", basefile.Date(19000)}}, []any{"b", nil, nil})
	table := parseAvro(t, baseFileTestTable)
	baseSchema := &basefile.Schema{Name: "trips_record", Namespace: "hoodie.trips", Fields: []basefile.Field{
		{Name: "uuid", Type: nullOr(basefile.KindString)}, table.Fields[1], table.Fields[2]}}
	baseRows := [][]any{{"a", 1.5, []any{"Bo", basefile.Date(19000)}}, {"b", nil, nil}}

	t.Run("plain file", func(t *testing.T) {
		in, err := decodeTempFile(t, "in.parquet", "parquet", plain, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodedInput(t, in, plainSchema, plainRows, nil)
	})
	t.Run("plain standard input", func(t *testing.T) {
		in, err := Decode(context.Background(), bytes.NewReader(plain), "standard input", "parquet", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodedInput(t, in, plainSchema, plainRows, nil)
	})
	t.Run("corrupt standard input", func(t *testing.T) {
		_, err := Decode(context.Background(), bytes.NewReader(plain[4:]), "standard input", "parquet", nil)
		if want := `standard input: storage: open base file "input.parquet": not a readable Parquet file`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %s", err, want)
		}
	})
	t.Run("Hudi base file loses its meta columns", func(t *testing.T) {
		in, err := decodeTempFile(t, "base.parquet", "parquet", base, table)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodedInput(t, in, baseSchema, baseRows, nil)
	})
}

func TestDecodeInputErrors(t *testing.T) {
	plain := writeTestParquet(t, parquetTestRow{ID: 1})
	tests := []struct {
		format  string
		content []byte
		want    string
	}{
		{"jsonl", []byte("{\"a\": 1}\n{\"a\": }\n"), `in.jsonl: line 2: invalid JSON at column 7: '}' where a value should be`},
		{"jsonl", []byte("{\"a\": 1}\n\n{\"a\": 2,"), `in.jsonl: line 3: invalid JSON: the line ends where a member name should be`},
		{"jsonl", []byte(`{"a": "x`), `in.jsonl: line 1: invalid JSON: the line ends where '"' should be`},
		{"jsonl", []byte(`{"a": tru}`), `line 1: invalid JSON at column 7: 't' where a value should be`},
		{"jsonl", []byte(`{"a": 01}`), `line 1: invalid JSON at column 8: '1' where ',' or '}' should be`},
		{"jsonl", []byte(`{"a": "é"} x`), `line 1: invalid JSON at column 12: 'x' where the end of the line should be`},
		{"jsonl", []byte(`{"a": "\x"}`), `line 1: invalid JSON at column 7: bad escape in string`},
		{"jsonl", []byte(strings.Repeat("[", 2000)), `line 1: the line is not a JSON object`},
		{"jsonl", []byte(`{"a": ` + strings.Repeat("[", 2000)), `line 1: invalid JSON: nested deeper than 1000`},
		{"jsonl", []byte(`[1, 2]`), `in.jsonl: line 1: the line is not a JSON object`},
		{"jsonl", []byte(`{"a": 1, "a": 2}`), `line 1: member "a" appears twice`},
		{"jsonl", []byte("{\"a\": 1}\n{\"a\": \"x\"}"), `in.jsonl: line 2: column "a": string here, but long in earlier records`},
		{"jsonl", []byte(`{"a b": 1}`), `line 1: column "a b": not a valid column name`},
		{"jsonl", []byte(`{"r": {}}`), `in.jsonl: storage: schema "record": field "r": record "r" has no fields`},
		{"jsonl", []byte(`{}`), `in.jsonl: ingest: the records have no columns`},
		{"jsonl", nil, `in.jsonl: no records`},
		{"jsonl", []byte("\n \n"), `in.jsonl: no records`},
		{"csv", []byte("a,b\n1,2\n3\n"), `in.csv: line 3: the header has 2 fields, this record 1`},
		{"csv", []byte("a,b\n\"1\n\",2,3\n"), `in.csv: line 2: the header has 2 fields, this record 3`},
		{"csv", []byte("1,2\n3,4\n"), `in.csv: line 1: column "1": not a valid column name (letters, digits and _, not starting with a digit); is the header line missing?`},
		{"csv", []byte("a,,c\n1,2,3\n"), `in.csv: line 1: header field 2 is empty; is the header line missing?`},
		{"csv", []byte("a,a\n1,2\n"), `in.csv: line 1: the header names column "a" twice`},
		{"csv", []byte("a\nx\"y\n"), `in.csv: line 2: invalid CSV at column 2: bare " in non-quoted-field`},
		{"csv", nil, `in.csv: no records`},
		{"csv", []byte("a,b\n"), `in.csv: no records`},
		{"parquet", []byte("this is not Parquet"), `in.parquet: storage: open base file "in.parquet": not a readable Parquet file: invalid magic header`},
		{"parquet", plain[:len(plain)-20], `in.parquet: storage: open base file "in.parquet": not a readable Parquet file`},
		{"parquet", nil, `in.parquet: storage: open base file "in.parquet": not a readable Parquet file`},
		{"parquet", writeTestParquet(t), `in.parquet: no records`},
		{"xml", nil, `in.xml: unknown format "xml": want jsonl, csv or parquet`},
	}
	for _, tt := range tests {
		_, err := decodeTempFile(t, "in."+tt.format, tt.format, tt.content, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %.40q: error %v\nwant %s", tt.format, tt.content, err, tt.want)
		}
	}
}

// TestDecodeInputTableMisfits checks that a value that does not fit its
// table column, other than a number that widens it, is refused with its
// line and why it does not fit.
func TestDecodeInputTableMisfits(t *testing.T) {
	table, err := basefile.ParseSchema([]byte(inputTestTable))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format  string
		content string
		want    string
	}{
		{"jsonl", `{"day": 19724.5}`, `in.jsonl: line 1: column "day": 19724.5 does not fit date: a number is not a date: write it "YYYY-MM-DD" (a count of days, or yyyyMMdd digits, would be a guess)`},
		{"jsonl", "{\"id\": 1}\n{\"price\": 1.234}", `in.jsonl: line 2: column "price": 1.234 does not fit decimal(10,2): more than 2 digits after the point`},
		{"jsonl", `{"id": "abc"}`, `in.jsonl: line 1: column "id": "abc" does not fit int: not a number`},
		{"csv", "id\n5\nfive\n", `in.csv: line 3: column "id": "five" does not fit int: not a number`},
	}
	for _, tt := range tests {
		_, err := decodeTempFile(t, "in."+tt.format, tt.format, []byte(tt.content), table)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s %q: error %v\nwant %s", tt.format, tt.content, err, tt.want)
		}
	}
}

func TestDecodeInputCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, format := range []string{"jsonl", "csv", "parquet"} {
		_, err := Decode(ctx, strings.NewReader("a\n1\n"), "in", Format(format), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", format, err)
		}
	}
}

// checkFuzzedInput checks what a fuzzed input decoded to: rows of the input
// schema, one line number each, in increasing order.
func checkFuzzedInput(t *testing.T, in *write.Input) {
	if err := in.Schema.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(in.Lines) != len(in.Rows) {
		t.Fatalf("%d lines for %d rows", len(in.Lines), len(in.Rows))
	}
	for i, row := range in.Rows {
		if i > 0 && in.Lines[i] <= in.Lines[i-1] {
			t.Fatalf("lines out of order: %v", in.Lines)
		}
		if len(row) != len(in.Schema.Fields) {
			t.Fatalf("row %d has %d values for %d columns", i, len(row), len(in.Schema.Fields))
		}
		// Parquet's two-level lists cannot hold null elements, which the
		// types allow; the writer refuses them.
		if _, err := in.Schema.AppendRow(nil, row); err != nil && !strings.Contains(err.Error(), `[]": null value`) {
			t.Fatalf("row %d %#v does not fit the schema: %v", i, row, err)
		}
	}
}

func FuzzDecodeJSONL(f *testing.F) {
	fuzzDecode(f, "in.jsonl", "jsonl", decodeJSONLBlocks,
		"{\"b\": 1, \"a\": \"x\"}\n\n{\"c\": [true], \"a\": null, \"b\": 2.5}",
		`{"id": 7, "price": 9.5, "day": "2024-01-02", "at": 1, "raw": "AQI=", "attrs": {"b": "x"}, "ok": "true", "n": {"x": [{"y": null}]}}`,
		`{"id": "x", "price": 1e3, "attrs": {"a": 1}}`,
		`{"s": "\u00e9\ud83d\ude00\n", "e": -0.5E+3}`,
	)
}

func FuzzDecodeCSV(f *testing.F) {
	fuzzDecode(f, "in.csv", "csv", decodeCSVBlocks,
		"id,name,fare\n1,Ann,1.5\n2,,x\n",
		"ok,id,day,price,at,raw,attrs\ntrue,5,2024-01-02,1.5,2024-01-01T00:00:00Z,AQI=,x\n",
		"a,\"b\nc\"\n\"1\n2\",3\n",
	)
}

// fuzzDecode fuzzes Decode of format from the seeds, with and without the
// table's schema: what decodes must pass checkFuzzedInput, and decoding in
// small blocks, in parallel, must decode the same.
func fuzzDecode(f *testing.F, name string, format Format, blocks func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s, false, uint8(0))
		f.Add(s, true, uint8(5))
	}
	table := parseAvro(f, inputTestTable)
	f.Fuzz(func(t *testing.T, data string, withTable bool, blockSize uint8) {
		var tab *basefile.Schema
		if withTable {
			tab = table
		}
		in, err := Decode(context.Background(), strings.NewReader(data), name, format, tab)
		got, gotErr := blocks(context.Background(), strings.NewReader(data), name, tab, 1+int(blockSize%32))
		checkSameDecoding(t, got, gotErr, in, err)
		if err != nil {
			return
		}
		checkFuzzedInput(t, in)
	})
}

// looseToJSON converts a loose value to what encoding/json decodes the same
// JSON to (with UseNumber): objects become maps, the last of equal names
// winning.
func looseToJSON(v any) any {
	switch x := v.(type) {
	case *Object:
		m := make(map[string]any, len(x.Names))
		for i, name := range x.Names {
			m[name] = looseToJSON(x.Values[i])
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = looseToJSON(e)
		}
		return out
	}
	return v
}

// FuzzJSONParser checks the JSON parser against encoding/json: both accept
// the same texts and read the same values, except that the parser refuses
// strings that are not valid text, which encoding/json changes.
func FuzzJSONParser(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e3, "x\u00e9", true, false, null, {}]}`, `"\ud800"`, `01`, `[1,]`, "\"\xff\"", `{"a":1,"a":2}`, ` 1 `, "0 \x00",
		`"\ud83d\ude00\ud83d"`, `{"\udc00": 1}`, "[\"\xe2\x82\", 1]", `"\uD83D\uDE00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.ContainsAny(text, "\n") {
			return // the parser reads one line at a time
		}
		p := jsonParser{data: []byte(text), keys: map[string]string{}}
		got, err := p.value(0)
		if p.skipSpace(); err == nil && p.pos < len(p.data) {
			err = p.unexpected("the end")
		}
		if err != nil && strings.Contains(err.Error(), "nested deeper") {
			return
		}
		valid := json.Valid([]byte(text))
		if valid && checkTextError(t, text, err) {
			return
		}
		if valid != (err == nil) {
			t.Fatalf("parser error %v, encoding/json valid %v", err, valid)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(looseToJSON(got), want) {
			t.Fatalf("parsed %#v, encoding/json %#v", looseToJSON(got), want)
		}
	})
}

// checkSameDecoding fails unless got and want, inputs and errors, are the
// same.
func checkSameDecoding(t *testing.T, got *write.Input, gotErr error, want *write.Input, wantErr error) {
	t.Helper()
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
	}
	if wantErr == nil {
		checkDecodedInput(t, got, want.Schema, want.Rows, want.Lines)
	}
}

// jsonlTestValues are JSON values by kind: a column takes values of one.
var jsonlTestValues = [][]string{
	{`1`, `-7`, `12345678901`, `null`},
	{`1`, `2.5`, `-1e3`, `null`},
	{`"x"`, `"2024-01-02"`, `"AQI="`, `"true"`, `"\u00e9\n"`, `"` + strings.Repeat("long ", 40) + `"`, `null`},
	{`true`, `false`, `null`},
	{`{"x": 1, "y": "a"}`, `{"y": "b", "z": [1, 2.5]}`, `{"n": {"m": null}}`, `{}`, `null`},
	{`[1, 2]`, `[2.5, null]`, `[]`, `null`},
	{`[{"a": 1}]`, `[{"b": "x"}, null]`, `[]`},
	{`{"k": "v"}`, `{"k": "w", "j": "x"}`},
}

// jsonlTestBadLines are lines that do not decode.
var jsonlTestBadLines = []string{`{"a": }`, `[1]`, `{"id": 1, "id": 2}`, `{"a": 1} x`, `{"a b": 1}`, `{"a": "\x"}`}

// randomJSONL returns JSON lines with random members: columns that appear
// late, nulls, numbers that join, nested objects and arrays, long lines,
// blank lines and meta columns. Now and then a value is of another kind
// than its column's, which may conflict, or a line is bad.
func randomJSONL(rng *rand.Rand) []byte {
	names := []string{"id", "price", "day", "at", "raw", "attrs", "ok", "a", "b", "c", "n", "_hoodie_record_key"}
	kinds := make([]int, len(names))
	from := make([]int, len(names)) // the first line a column may appear on
	lines := 1 + rng.IntN(80)
	for c := range names {
		kinds[c], from[c] = rng.IntN(len(jsonlTestValues)), rng.IntN(lines)
	}
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\uFEFF")
	}
	for line := range lines {
		switch r := rng.IntN(100); {
		case r < 8:
			b.WriteString([]string{"", " ", "\t\r"}[r%3])
		case r == 8 && rng.IntN(4) == 0:
			b.WriteString(jsonlTestBadLines[rng.IntN(len(jsonlTestBadLines))])
		default:
			b.WriteByte('{')
			first := true
			for _, c := range rng.Perm(len(names)) {
				if line < from[c] || rng.IntN(3) == 0 {
					continue
				}
				if !first {
					b.WriteString(", ")
				}
				first = false
				values := jsonlTestValues[kinds[c]]
				if rng.IntN(300) == 0 {
					values = jsonlTestValues[rng.IntN(len(jsonlTestValues))]
				}
				fmt.Fprintf(&b, "%q: %s", names[c], values[rng.IntN(len(values))])
			}
			b.WriteByte('}')
		}
		if line < lines-1 || rng.IntN(2) == 0 {
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
	}
	return b.Bytes()
}

// TestDecodeJSONLBlocks checks that decoding random JSON lines in small
// blocks, many of them decoded in parallel, gives the schema, rows and
// lines, or the error, of decoding them whole.
func TestDecodeJSONLBlocks(t *testing.T) {
	testDecodeBlocks(t, rand.New(rand.NewPCG(3, 4)), randomJSONL, "in.jsonl", decodeJSONLBlocks)
}

// testDecodeBlocks checks that decode, in blocks of random small sizes and
// through readers that read less than asked, gives the schema, rows and
// lines, or the error, that it gives in one block, on 1,500 inputs that
// random draws, about half of them bad; with and without a table schema.
func testDecodeBlocks(t *testing.T, rng *rand.Rand, random func(*rand.Rand) []byte, name string,
	decode func(ctx context.Context, r io.Reader, name string, table *basefile.Schema, blockSize int) (*write.Input, error)) {
	table := parseAvro(t, inputTestTable)
	const trials = 1500
	decoded, failed := 0, 0
	for trial := range trials {
		data := random(rng)
		var tab *basefile.Schema
		if rng.IntN(3) == 0 {
			tab = table
		}
		blockSize := 1 + rng.IntN(300)
		var r io.Reader = bytes.NewReader(data)
		if rng.IntN(2) == 0 {
			r = iotest.HalfReader(r) // reads less than asked, as a pipe does
		}
		want, wantErr := decode(context.Background(), bytes.NewReader(data), name, tab, len(data)+1)
		got, gotErr := decode(context.Background(), r, name, tab, blockSize)
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("blocks of %d bytes, table %v:\n%s", blockSize, tab != nil, data)
				}
			}()
			checkSameDecoding(t, got, gotErr, want, wantErr)
		})
		if wantErr == nil {
			decoded++
		} else {
			failed++
		}
	}
	// The inputs are meant to decode about half of the time.
	if decoded < trials/4 || failed < trials/4 {
		t.Errorf("%d inputs decoded, %d failed", decoded, failed)
	}
}

// numberedLines returns lines 1 to n: those given by number, and line for
// the others.
func numberedLines(n int, line string, given map[int]string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		if g, ok := given[i]; ok {
			b.WriteString(g + "\n")
		} else {
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
}

// TestDecodeJSONLBlocksErrors checks that decoding in blocks reports the
// first bad record in input order, as decoding line by line does, even when
// a later block fails first or the block fails only with the types of the
// blocks before.
func TestDecodeJSONLBlocksErrors(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	lines := func(n int, given map[int]string) []byte { return numberedLines(n, `{"b": 1}`, given) }
	tests := []blockErrorCase{{
		name:    "the first bad line wins",
		content: lines(3000, map[int]string{2900: `{"b": }`, 1500: `[1]`, 2000: `{"b": "x"}`}),
		want:    `in: line 1500: the line is not a JSON object`,
	}, {
		name:    "a conflict with an early block",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 1900: `{"a": "x"}`}),
		want:    `in: line 1900: column "a": string here, but long in earlier records`,
	}, {
		name:    "a conflict before a bad line",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 1000: `{"a": "x"}`, 1900: `{"b": 1, "b": 2}`}),
		want:    `in: line 1000: column "a": string here, but long in earlier records`,
	}, {
		name:    "the conflict names the type of all the records before",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 900: `{"a": 2.5}`, 1900: `{"a": 1}`, 1950: `{"a": "x"}`}),
		want:    `in: line 1950: column "a": string here, but double in earlier records`,
	}, {
		name:    "a nested conflict",
		content: lines(2000, map[int]string{3: `{"r": {"x": [1]}}`, 1900: `{"r": {"x": 1}}`}),
		want:    `in: line 1900: column "r.x": long here, but array of long in earlier records`,
	}, {
		name:    "a null in a table column has the column's type",
		content: lines(2000, map[int]string{3: `{"raw": true}`}),
		table:   table,
		want:    `in: line 3: column "raw": true does not fit bytes: not base64 text`,
	}, {
		name:    "a value that fits no column type, in the last records",
		content: lines(2000, map[int]string{2000: `{"r": {}}`}),
		want:    `in: storage: schema "record": field "r": record "r" has no fields, which Parquet cannot store`,
	}, {
		name:    "a read error after the lines",
		content: append(lines(2000, nil), `{"b": 2`...),
		readErr: true,
		want:    `in: read line 2001: boom`,
	}, {
		name:    "a bad line before a read error",
		content: append(lines(2000, map[int]string{1999: `{`}), `{"b": 2`...),
		readErr: true,
		want:    `in: line 1999: invalid JSON: the line ends where a member name should be`,
	}}
	checkBlockErrors(t, decodeJSONLBlocks, tests)
}

// blockErrorCase is an input that decoding must refuse, whole or in blocks.
type blockErrorCase struct {
	name    string
	content []byte
	table   *basefile.Schema
	readErr bool   // reading fails after content
	want    string // the error
}

// checkBlockErrors checks that decode, decodeJSONLBlocks or decodeCSVBlocks,
// fails on the content of each case (followed by a read error if readErr)
// with the error wanted, whole and in blocks of many sizes.
func checkBlockErrors(t *testing.T, decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error), tests []blockErrorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decodeIn := func(blockSize int) (*write.Input, error) {
				var r io.Reader = bytes.NewReader(tt.content)
				if tt.readErr {
					r = io.MultiReader(r, iotest.ErrReader(errors.New("boom")))
				}
				return decode(context.Background(), r, "in", tt.table, blockSize)
			}
			whole, wholeErr := decodeIn(len(tt.content) + 1)
			if wholeErr == nil || wholeErr.Error() != tt.want {
				t.Fatalf("decoded whole: error %v, want %s", wholeErr, tt.want)
			}
			for _, blockSize := range []int{1, 100, 1000} {
				got, gotErr := decodeIn(blockSize)
				checkSameDecoding(t, got, gotErr, whole, wholeErr)
			}
		})
	}
}

// cancelingReader reads from r, and cancels a context after n reads.
type cancelingReader struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelingReader) Read(p []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.r.Read(p)
}

func TestDecodeBlocksCanceled(t *testing.T) {
	for _, tt := range []struct {
		decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error)
		data   []byte
	}{
		{decodeJSONLBlocks, benchTripLines(1000)},
		{decodeCSVBlocks, numberedLines(20000, "1,x,2.5", map[int]string{1: "a,b,c"})},
	} {
		for _, reads := range []int{1, 2, 5, 50} {
			ctx, cancel := context.WithCancel(context.Background())
			r := &cancelingReader{r: iotest.HalfReader(bytes.NewReader(tt.data)), n: reads, cancel: cancel}
			_, err := tt.decode(ctx, r, "in", nil, 1000)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%.10q canceled after %d reads: error %v, want context.Canceled", tt.data, reads, err)
			}
		}
	}
}

// stallingReader reads r, then blocks until stall is closed, as a pipe
// does whose writer neither writes nor closes.
type stallingReader struct {
	r     io.Reader
	stall chan struct{}
}

func (s *stallingReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		<-s.stall
	}
	return n, err
}

// TestDecodeBlocksErrorStalledInput checks that a bad record is reported
// once its block is read even when the input, a pipe say, has more to come
// but stalls: the error must not wait for the read of a later block.
func TestDecodeBlocksErrorStalledInput(t *testing.T) {
	for _, tt := range []struct {
		decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error)
		data   string
		want   string
	}{
		{decodeJSONLBlocks, "{\"a\": }\n" + strings.Repeat("{\"a\": 1}\n", 10), "in: line 1: "},
		{decodeCSVBlocks, "a,b\n1\n" + strings.Repeat("1,2\n", 20), "in: line 2: "},
	} {
		r := &stallingReader{r: strings.NewReader(tt.data), stall: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := tt.decode(context.Background(), r, "in", nil, 64)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%.10q: error %v, want %s...", tt.data, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%.10q: no error 10s after a bad record while the input stalls", tt.data)
		}
		close(r.stall)
	}
}

// csvTestFields are CSV fields by kind: a column takes fields of one.
var csvTestFields = [][]string{
	{`1`, `-7`, `12345678901`, ``},
	{`1`, `2.5`, `-1e3`, `""`},
	{`x`, `2024-01-02`, `"a, b"`, `"say ""hi"""`, `"two` + "\n" + `lines"`, `"crlf` + "\r\n" + `too"`, `é`, strings.Repeat("long", 40), ``},
	{`true`, `FALSE`, ``},
	{`2024-01-02`, `2024-01-03`, ``},
}

// csvTestBadLines are lines that do not decode as records of two columns or
// more.
var csvTestBadLines = []string{`1`, `a"b,c`, `"a"b,c`}

// randomCSV returns CSV with random columns, fields of many kinds (quoted,
// over several lines, empty, long), blank lines (before the header too) and
// meta columns. Now and
// then a field is of another kind than its column's, or a line is bad.
func randomCSV(rng *rand.Rand) []byte {
	names := []string{"id", "price", "day", "at", "raw", "attrs", "ok", "a", "b", "c", "_hoodie_record_key"}
	names = names[:2+rng.IntN(len(names)-1)]
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	kinds := make([]int, len(names))
	for c := range names {
		kinds[c] = rng.IntN(len(csvTestFields))
	}
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\uFEFF")
	}
	if rng.IntN(8) == 0 {
		b.WriteString(strings.Repeat("\n", 1+rng.IntN(200))) // blank lines before the header
	}
	b.WriteString(strings.Join(names, ","))
	lines := rng.IntN(80)
	for range lines {
		b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		switch r := rng.IntN(100); {
		case r < 4:
			// a blank line
		case r == 4 && rng.IntN(2) == 0:
			b.WriteString(csvTestBadLines[rng.IntN(len(csvTestBadLines))])
		default:
			for c := range names {
				if c > 0 {
					b.WriteByte(',')
				}
				fields := csvTestFields[kinds[c]]
				if rng.IntN(300) == 0 {
					fields = csvTestFields[rng.IntN(len(csvTestFields))]
				}
				b.WriteString(fields[rng.IntN(len(fields))])
			}
		}
	}
	if rng.IntN(2) == 0 {
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestDecodeCSVBlocks checks that decoding random CSV in small blocks, many
// of them decoded in parallel, gives the schema, rows and lines, or the
// error, of decoding it whole.
func TestDecodeCSVBlocks(t *testing.T) {
	testDecodeBlocks(t, rand.New(rand.NewPCG(5, 6)), randomCSV, "in.csv", decodeCSVBlocks)
}

// TestDecodeCSVBlocksErrors checks that decoding CSV in blocks reports the
// first bad record in input order, as decoding record by record does.
func TestDecodeCSVBlocksErrors(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	lines := func(n int, given map[int]string) []byte {
		given[1] = "a,attrs"
		return numberedLines(n, "1,", given)
	}
	tests := []blockErrorCase{{
		name:    "the first bad line wins",
		content: lines(3000, map[int]string{2900: `1,"x`, 1500: `1`, 2000: `1,a"b`}),
		want:    `in: line 1500: the header has 2 fields, this record 1`,
	}, {
		name:    "a quoted field over lines and blocks", // 300 lines: 1500 is line 1800
		content: lines(3000, map[int]string{1000: `1,"a` + strings.Repeat("\n,\"\",", 300) + `b"`, 1500: `x,a"b`}),
		want:    `in: line 1800: invalid CSV at column 4: bare " in non-quoted-field`,
	}, {
		name:    "a quote left open to the end",
		content: lines(3000, map[int]string{1000: `1,"a`}),
		want:    `in: line 3000: invalid CSV at column 4: extraneous or missing " in quoted-field`,
	}, {
		name:    "a conflict with an early block",
		content: lines(3000, map[int]string{2: `1,x`}),
		table:   table,
		want:    `in: line 3: column "attrs": map of string here, but string in earlier records`,
	}, {
		name:    "a read error after the records",
		content: lines(3000, map[int]string{}),
		readErr: true,
		want:    `in: read: boom`,
	}, {
		name:    "a bad record before a read error",
		content: lines(3000, map[int]string{2999: `1,2,3`}),
		readErr: true,
		want:    `in: line 2999: the header has 2 fields, this record 3`,
	}}
	checkBlockErrors(t, decodeCSVBlocks, tests)
}

func TestRepeatedStrings(t *testing.T) {
	tests := []struct {
		name     string
		value    func(i int) string
		wantOff  bool
		wantKept int
	}{
		{"few values", func(i int) string { return fmt.Sprint("city-", i%3) }, false, 3},
		{"many values, repeated", func(i int) string { return fmt.Sprint("rider-", i%1000) }, false, 1000},
		{"more values than kept, most strings repeats", func(i int) string {
			if i%3 != 0 {
				return "same"
			}
			return fmt.Sprint("v", i/3%(2*maxRepeated))
		}, false, maxRepeated},
		{"more values than kept, few repeats", func(i int) string { return fmt.Sprint("v", i%(2*maxRepeated)) }, true, 0},
		{"all different", func(i int) string { return fmt.Sprint("key-", i) }, true, 0},
		{"repeats, then all different", func(i int) string {
			if i < 2*repeatProbe {
				return "same"
			}
			return fmt.Sprint("key-", i)
		}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c repeatedStrings
			for i := range 20_000 {
				// JSON lines give bytes, CSV strings.
				want := tt.value(i)
				var got any
				if i%2 == 0 {
					got = repeatedValue(&c, []byte(want))
				} else {
					got = repeatedValue(&c, want)
				}
				if got != want {
					t.Fatalf("value %d: %q, want %q", i, got, want)
				}
			}
			if c.off != tt.wantOff || len(c.values) != tt.wantKept {
				t.Errorf("off %v with %d values kept, want off %v with %d", c.off, len(c.values), tt.wantOff, tt.wantKept)
			}
		})
	}
	// A repeated string costs nothing once seen.
	var c repeatedStrings
	b := []byte("asia/india/chennai")
	repeatedValue(&c, b)
	if n := testing.AllocsPerRun(100, func() { repeatedValue(&c, b) }); n != 0 {
		t.Errorf("a repeated string took %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { repeatedValue(&c, "asia/india/chennai") }); n != 0 {
		t.Errorf("a repeated string of CSV took %v allocations", n)
	}
}

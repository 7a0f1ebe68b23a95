package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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

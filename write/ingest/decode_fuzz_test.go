package ingest

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

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

package ingest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// addRecords adds JSON objects, one a line, to an Inferrer by Add, each
// with values for all the columns so far as a decoder gives them, and
// returns the number added before an error.
func addRecords(in *Inferrer, lines []string) (int, error) {
	for i, line := range lines {
		row, err := looseRow(in, line)
		if err == nil {
			row = append(row, make([]any, in.NumColumns()-len(row))...)
			err = in.Add(row)
		}
		if err != nil {
			return i, err
		}
	}
	return len(lines), nil
}

func TestInferrerMerge(t *testing.T) {
	tests := []struct {
		name   string
		text   bool
		parts  [][]string
		schema string
		rows   [][]any
	}{{
		name:   "columns renumbered",
		parts:  [][]string{{`{"a": 1, "b": "x"}`}, {`{"c": true, "b": "y"}`, `{"a": 2.5}`}, {}, {`{"b": null, "d": [1]}`}},
		schema: "record{a:double?,b:string?,c:boolean?,d:[long?]?}",
		rows:   [][]any{{1.0, "x", nil, nil}, {nil, "y", true, nil}, {2.5, nil, nil, nil}, {nil, nil, nil, []any{int64(1)}}},
	}, {
		name:   "records joined",
		parts:  [][]string{{`{"r": {"x": 1}}`}, {`{"r": {"y": "a", "x": 2.5}}`}},
		schema: "record{r:r{x:double?,y:string?}?}",
		rows:   [][]any{{[]any{1.0, nil}}, {[]any{2.5, "a"}}},
	}, {
		name:   "text joins to string",
		text:   true,
		parts:  [][]string{{`{"v": "1"}`}, {`{"v": "x"}`}},
		schema: "record{v:string?}",
		rows:   [][]any{{"1"}, {"x"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInferrer(InferOptions{Text: tt.text})
			for _, part := range tt.parts {
				other := NewInferrer(InferOptions{Text: tt.text})
				if _, err := addRecords(other, part); err != nil {
					t.Fatal(err)
				}
				if err := in.Merge(other); err != nil {
					t.Fatal(err)
				}
			}
			if in.Len() != len(tt.rows) {
				t.Errorf("Len %d, want %d", in.Len(), len(tt.rows))
			}
			s, rows, err := in.Finish()
			if err != nil {
				t.Fatal(err)
			}
			checkInferred(t, s, rows, tt.schema, tt.rows)
		})
	}
}

// checkInferred fails t unless the schema and rows an Inferrer finished with
// are those wanted.
func checkInferred(t *testing.T, s *basefile.Schema, rows [][]any, schema string, want [][]any) {
	t.Helper()
	if got := schemaString(s); got != schema {
		t.Errorf("schema\n got %s\nwant %s", got, schema)
	}
	if !valuesEqual(rowsAsValues(rows), rowsAsValues(want)) {
		t.Errorf("rows\n got %#v\nwant %#v", rows, want)
	}
}

func TestInferrerMergeErrors(t *testing.T) {
	in := NewInferrer(InferOptions{})
	if _, err := addRecords(in, []string{`{"a": 1, "b": "x"}`}); err != nil {
		t.Fatal(err)
	}
	other := NewInferrer(InferOptions{})
	if _, err := addRecords(other, []string{`{"c": 1}`, `{"b": 3}`}); err != nil {
		t.Fatal(err)
	}
	if err := in.Merge(other); err == nil || err.Error() != `column "b": long here, but string in earlier records` {
		t.Errorf("conflict: error %v", err)
	}
	if err := in.Merge(NewInferrer(InferOptions{Text: true})); err == nil || !strings.Contains(err.Error(), "different options") {
		t.Errorf("other options: error %v", err)
	}
	s, rows, err := in.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaString(s); got != "record{a:long?,b:string?}" || len(rows) != 1 {
		t.Errorf("after a failed Merge: schema %s, %d rows", got, len(rows))
	}
}

// randomRecords returns n JSON objects with random members of the columns
// of inferTable and others. Each column takes values of one of
// mergeTestValues, so that its types mostly join, and now and then of
// another.
func randomRecords(rng *rand.Rand, n int) []string {
	names := []string{"i", "l", "f", "d", "s", "b", "price", "day", "at", "raw", "kind", "m", "tags", "r", "x", "y", "z"}
	kinds := make([]int, len(names))
	for c := range kinds {
		kinds[c] = rng.IntN(len(mergeTestValues))
	}
	lines := make([]string, n)
	for k := range lines {
		var b strings.Builder
		b.WriteByte('{')
		for _, c := range rng.Perm(len(names))[:rng.IntN(len(names)+1)] {
			if b.Len() > 1 {
				b.WriteString(", ")
			}
			values := mergeTestValues[kinds[c]]
			if rng.IntN(500) == 0 {
				values = mergeTestValues[rng.IntN(len(mergeTestValues))]
			}
			fmt.Fprintf(&b, "%q: %s", names[c], values[rng.IntN(len(values))])
		}
		b.WriteByte('}')
		lines[k] = b.String()
	}
	return lines
}

// mergeTestValues are JSON values of many types, by kind.
var mergeTestValues = [][]string{
	{`1`, `-7`, `2.5`, `1e3`, `null`},
	{`1`, `-7`, `null`},
	{`"x"`, `"12"`, `"2.5"`, `"2024-01-02"`, `"AQI="`, `"A"`, `"C"`, `"true"`, `null`},
	{`true`, `false`, `null`},
	{`{"a": 1, "b": "x"}`, `{"a": 2.5}`, `{"c": [1, null]}`, `{"b": "y", "d": {"e": 1}}`, `{"k": 1}`, `{"k": 1.5}`, `{}`, `null`},
	{`[1, 2]`, `[1.5]`, `[]`, `[null]`, `null`},
	{`[{"a": 1}]`, `[{"b": "x"}, null]`, `[]`},
}

// TestInferrerMergeAsAdd checks that inferring random records in parts and
// merging them, adding a part by Add when its records or its merge
// conflict, gives the schema, rows and first error of adding them all by
// Add.
func TestInferrerMergeAsAdd(t *testing.T) {
	table := parseAvro(t, inferTable)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		opts := InferOptions{Text: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			opts.Table = table
		}
		lines := randomRecords(rng, 1+rng.IntN(40))
		want := NewInferrer(opts)
		wantN, wantErr := addRecords(want, lines)

		got := NewInferrer(opts)
		gotN, gotErr := 0, error(nil)
		for rest := lines; len(rest) > 0 && gotErr == nil; {
			part := rest[:1+rng.IntN(len(rest))]
			rest = rest[len(part):]
			other := NewInferrer(opts)
			if n, err := addRecords(other, part); err == nil && got.Merge(other) == nil {
				gotN += n
				continue
			}
			n, err := addRecords(got, part)
			gotN, gotErr = gotN+n, err
			if err == nil {
				t.Fatalf("trial %d: records %q conflict in a part or its merge, but not one by one", trial, part)
			}
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gotN != wantN {
			t.Fatalf("trial %d: error %v after %d records, want %v after %d\n%s", trial, gotErr, gotN, wantErr, wantN, strings.Join(lines, "\n"))
		}
		if wantErr != nil {
			continue
		}
		wantSchema, wantRows, wantErr := want.Finish()
		gotSchema, gotRows, gotErr := got.Finish()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("trial %d: Finish error %v, want %v", trial, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if !gotSchema.Equal(wantSchema) {
			t.Fatalf("trial %d: schema\n got %s\nwant %s", trial, schemaString(gotSchema), schemaString(wantSchema))
		}
		if !valuesEqual(rowsAsValues(gotRows), rowsAsValues(wantRows)) {
			t.Fatalf("trial %d: rows\n got %#v\nwant %#v", trial, gotRows, wantRows)
		}
	}
}

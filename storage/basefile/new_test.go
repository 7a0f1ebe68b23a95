package basefile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// newRecordsOf splits rows with meta fields, as tripsRows makes them, into
// the keys and data rows WriteNew takes.
func newRecordsOf(rows [][]any) (keys []string, data [][]any) {
	for _, row := range rows {
		keys = append(keys, row[MetaRecordKeyPos].(string))
		data = append(data, row[NumMetaFields:])
	}
	return keys, data
}

// manyTripsRows returns n rows of tripsSchemaJSON with meta fields, cycling
// through the values of tripsRows, keyed and numbered as WriteNew would
// write them with tripsMeta and first sequence number 0.
func manyTripsRows(t *testing.T, n int) [][]any {
	base := tripsRows(t)
	rows := make([][]any, n)
	for i := range rows {
		row := append([]any(nil), base[i%len(base)]...)
		key := fmt.Sprintf("key-%06d", i)
		row[MetaSeqNoPos], row[MetaRecordKeyPos] = tripsMeta.SeqNoPrefix+strconv.Itoa(i), key
		rows[i] = row
	}
	return rows
}

// tripsMeta is the meta fields of the rows of tripsRows.
var tripsMeta = &NewRecordMeta{
	CommitTime:    "20240418173550988",
	SeqNoPrefix:   "20240418173550988_0_",
	PartitionPath: "2024/04/18",
	FileName:      "f-0_0-1-1_20240418173550988.parquet",
}

// TestBaseFileWriteNew checks that WriteNew writes what WriteRow writes for
// the same records: every type, nulls, nested values, several chunks and
// row groups, with and without meta fields, and mixed with WriteRow.
func TestBaseFileWriteNew(t *testing.T) {
	schema := mustParseSchema(t, tripsSchemaJSON)
	small := Options{BlockSize: 4 << 10, PageSize: 8 << 10}
	cases := []struct {
		name string
		rows [][]any
		opts Options
		// split writes the rows in calls of this many records, the first
		// of them with WriteRow when mixed.
		split int
		mixed bool
		// firstSeqNo is the sequence number of the first row.
		firstSeqNo int64
	}{
		{name: "every type", rows: tripsRows(t), split: 3, firstSeqNo: 1},
		{name: "one record per call", rows: tripsRows(t), split: 1, firstSeqNo: 1},
		{name: "chunks and row groups", rows: manyTripsRows(t, 5000), opts: small, split: 2100},
		{name: "mixed with WriteRow", rows: manyTripsRows(t, 3000), opts: small, split: 700, mixed: true},
		{name: "no meta fields", rows: manyTripsRows(t, 2500), opts: Options{NoMetaFields: true}, split: 1100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, _ := newTestFS(t)
			meta := tripsMeta
			rows := tc.rows
			if tc.opts.NoMetaFields {
				meta = nil
				rows = make([][]any, len(tc.rows))
				for i, row := range tc.rows {
					rows[i] = row[NumMetaFields:]
				}
			}
			want := writeBaseFile(t, fsys, "want.parquet", schema, tc.opts, rows)

			w, err := NewWriter(t.Context(), fsys, "got.parquet", schema, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for start := 0; start < len(rows); start += tc.split {
				part := tc.rows[start:min(start+tc.split, len(rows))]
				if tc.mixed && start/tc.split%2 == 0 {
					for _, row := range part {
						if err := w.WriteRow(row); err != nil {
							t.Fatal(err)
						}
					}
					continue
				}
				keys, data := newRecordsOf(part)
				if tc.opts.NoMetaFields {
					keys = nil
				}
				if err := w.WriteNew(meta, tc.firstSeqNo+int64(start), keys, data); err != nil {
					t.Fatal(err)
				}
			}
			got, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got.NumRows != want.NumRows || got.MinRecordKey != want.MinRecordKey || got.MaxRecordKey != want.MaxRecordKey {
				t.Errorf("stats %+v, want %+v", got, want)
			}
			gotFile, wantFile := mustOpenBaseFile(t, fsys, "got.parquet"), mustOpenBaseFile(t, fsys, "want.parquet")
			assertRowsEqual(t, readAllValues(t, gotFile), readAllValues(t, wantFile))
			// Row groups end at other rows than WriteRow's (the size is
			// checked a chunk at a time), but as many must begin.
			if g, w := len(gotFile.RowGroups()), len(wantFile.RowGroups()); (g > 1) != (w > 1) {
				t.Errorf("%d row groups, WriteRow wrote %d", g, w)
			}
			if gm, wm := gotFile.Metadata()[FooterBloomFilter], wantFile.Metadata()[FooterBloomFilter]; gm != wm {
				t.Errorf("bloom filter differs from WriteRow's: %.40s..., want %.40s...", gm, wm)
			}
		})
	}
}

func TestBaseFileWriteNewErrors(t *testing.T) {
	schema := mustParseSchema(t, tripsSchemaJSON)
	keys, rows := newRecordsOf(tripsRows(t))
	badValue := append([]any(nil), rows[1]...)
	badValue[1] = int64(7) // rider is a string
	many := manyTripsRows(t, 2*newRecordsChunk)
	manyKeys, manyRows := newRecordsOf(many)
	manyRows[newRecordsChunk+5] = badValue
	cases := []newRecordErrorCase{
		{name: "a value of the wrong type", keys: keys, rows: [][]any{rows[0], badValue, rows[2]},
			want: []string{`new record 1 (key "2")`, `field "rider"`, "int64"}, index: 1},
		{name: "a bad value in the second chunk", keys: manyKeys, rows: manyRows,
			want: []string{fmt.Sprintf("new record %d (key %q)", newRecordsChunk+5, manyKeys[newRecordsChunk+5]), `field "rider"`}, index: newRecordsChunk + 5},
		{name: "a null in a non-null field", keys: keys[:1], rows: [][]any{append([]any{nil}, rows[0][1:]...)},
			want: []string{`new record 0 (key "1")`, `field "id"`, "null"}},
		{name: "too few values", keys: keys[:1], rows: [][]any{rows[0][:3]},
			want: []string{`new record 0 (key "1")`, "3 values"}},
		{name: "an empty key", keys: []string{"1", ""}, rows: rows[:2],
			want: []string{`new record 1:`, MetaRecordKey}, index: 1},
		{name: "no meta fields given", keys: keys, rows: rows, nilMeta: true,
			want: []string{"no meta fields given"}, index: -1},
		{name: "a bad value in a file without meta fields", keys: keys[:2], rows: [][]any{rows[0], badValue}, nilMeta: true, noMeta: true,
			want: []string{`new record 1 (key "2")`, `field "rider"`}, index: 1},
		{name: "keys and rows differ in number", keys: keys[:2], rows: rows,
			want: []string{"2 keys for 3 rows"}, index: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, _ := newTestFS(t)
			w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{NoMetaFields: tc.noMeta})
			if err != nil {
				t.Fatal(err)
			}
			meta := tripsMeta
			if tc.nilMeta {
				meta = nil
			}
			err = w.WriteNew(meta, 0, tc.keys, tc.rows)
			if err == nil {
				t.Fatal("WriteNew succeeded")
			}
			checkNewRecordError(t, err, tc.want, tc.index)
			// The error is final: the file cannot be completed and is gone.
			if _, err := w.Close(); err == nil {
				t.Error("Close succeeded after a failed WriteNew")
			}
			if _, err := fsys.Stat(t.Context(), "f.parquet"); err == nil {
				t.Error("the partial file is still there")
			}
		})
	}
}

// TestColumnarWriteNewErrors runs WriteNew's error cases on a flat schema
// with the columnar writer and with parquet-go's: both must fail alike,
// with the same error naming the same record, and then refuse to complete
// the file and remove it.
func TestColumnarWriteNewErrors(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	keys, rows := newRecordsOf(flatTripsRows(t, 3, keep))
	// with returns a copy of row whose field name holds v.
	with := func(row []any, name string, v any) []any {
		row = append([]any(nil), row...)
		row[schema.FieldIndex(name)] = v
		return row
	}
	badValue := with(rows[1], "rider", int64(7))
	manyKeys, manyRows := newRecordsOf(flatTripsRows(t, 2*newRecordsChunk+10, keep))
	nullID := slices.Clone(manyRows)
	nullID[2*newRecordsChunk+3] = with(manyRows[3], "id", nil)
	manyRows[newRecordsChunk+5] = badValue
	cases := []newRecordErrorCase{
		{name: "a value of the wrong type", keys: keys, rows: [][]any{rows[0], badValue, rows[2]},
			want: []string{`new record 1 (key "key-000001")`, `field "rider"`, "int64"}, index: 1},
		{name: "a bad value in the second chunk", keys: manyKeys, rows: manyRows,
			want: []string{fmt.Sprintf("new record %d (key %q)", newRecordsChunk+5, manyKeys[newRecordsChunk+5]), `field "rider"`}, index: newRecordsChunk + 5},
		{name: "a null in a non-null long, third chunk", keys: manyKeys, rows: nullID,
			want: []string{fmt.Sprintf("new record %d", 2*newRecordsChunk+3), `field "id"`, "null"}, index: 2*newRecordsChunk + 3},
		{name: "an int for a long", keys: keys, rows: [][]any{rows[0], rows[1], with(rows[2], "id", int32(3))},
			want: []string{"new record 2", `field "id"`}, index: 2},
		{name: "an unknown enum symbol", keys: keys[:1], rows: [][]any{with(rows[0], "kind", "NOPE")},
			want: []string{"new record 0", `"NOPE"`}, index: 0},
		{name: "a fixed of the wrong size", keys: keys[:2], rows: [][]any{rows[0], with(rows[1], "hash", []byte{1})},
			want: []string{"new record 1", `field "hash"`, "1 bytes"}, index: 1},
		{name: "a decimal beyond its precision", keys: keys[:1], rows: [][]any{with(rows[0], "tip", NewDecimalInt64(1, -300))},
			want: []string{"new record 0", `field "tip"`}, index: 0},
		{name: "a string for a double", keys: keys[:1], rows: [][]any{with(rows[0], "fare", "1.5")},
			want: []string{"new record 0", `field "fare"`}, index: 0},
		{name: "too few values", keys: keys[:1], rows: [][]any{rows[0][:3]},
			want: []string{`new record 0 (key "key-000000")`, "3 values"}, index: 0},
		{name: "an empty key", keys: []string{"1", ""}, rows: rows[:2],
			want: []string{`new record 1:`, MetaRecordKey}, index: 1},
		{name: "no meta fields given", keys: keys, rows: rows, nilMeta: true,
			want: []string{"no meta fields given"}, index: -1},
		{name: "a bad value in a file without meta fields", keys: keys[:2], rows: [][]any{rows[0], badValue}, nilMeta: true, noMeta: true,
			want: []string{`new record 1 (key "key-000001")`, `field "rider"`}, index: 1},
		{name: "a bad value, no keys, no meta fields", rows: [][]any{rows[0], badValue}, nilMeta: true, noMeta: true,
			want: []string{`new record 1: `, `field "rider"`}, index: 1},
		{name: "keys and rows differ in number", keys: keys[:2], rows: rows,
			want: []string{"2 keys for 3 rows"}, index: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// fail returns the error of WriteNew on a new writer, checking
			// that the writer stays failed and leaves no file.
			fail := func(newOnly bool) error {
				fsys, _ := newTestFS(t)
				w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{NoMetaFields: tc.noMeta, NewRecordsOnly: newOnly})
				if err != nil {
					t.Fatal(err)
				}
				if (w.columnar != nil) != newOnly {
					t.Fatalf("NewRecordsOnly %v: columnar writer %v", newOnly, w.columnar != nil)
				}
				meta := tripsMeta
				if tc.nilMeta {
					meta = nil
				}
				err = w.WriteNew(meta, 0, tc.keys, tc.rows)
				if err == nil {
					t.Fatalf("NewRecordsOnly %v: WriteNew succeeded", newOnly)
				}
				if again := w.WriteNew(meta, 0, keys[:1], rows[:1]); again == nil || again.Error() != err.Error() {
					t.Errorf("NewRecordsOnly %v: WriteNew after the error: %v, want %v", newOnly, again, err)
				}
				if _, cerr := w.Close(); cerr == nil {
					t.Errorf("NewRecordsOnly %v: Close succeeded after a failed WriteNew", newOnly)
				}
				if _, serr := fsys.Stat(t.Context(), "f.parquet"); serr == nil {
					t.Errorf("NewRecordsOnly %v: the partial file is still there", newOnly)
				}
				return err
			}
			got, want := fail(true), fail(false)
			if got.Error() != want.Error() {
				t.Errorf("columnar writer's error:\n%v\nparquet-go's:\n%v", got, want)
			}
			checkNewRecordError(t, got, tc.want, tc.index)
		})
	}
}

// TestColumnarWriterRefusesRows checks that a columnar writer, which takes
// new records only, refuses each other way of writing rows with
// errNewRecordsOnly even after good WriteNew calls, is then unusable, and
// that Close fails and removes the file.
func TestColumnarWriterRefusesRows(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	all := flatTripsRows(t, 20, keep)
	keys, rows := newRecordsOf(all)
	// A base file of the same schema to carry rows from.
	src, _ := newTestFS(t)
	writeBaseFile(t, src, "src.parquet", schema, Options{}, all)
	srcFile := mustOpenBaseFile(t, src, "src.parquet")
	rowGroup := srcFile.RowGroups()[0]
	parquetRows := make([]parquet.Row, 5)
	rr := rowGroup.Rows()
	n, err := rr.ReadRows(parquetRows)
	rr.Close()
	if n != len(parquetRows) {
		t.Fatalf("read %d rows of the source file: %v", n, err)
	}
	cases := []struct {
		name  string
		write func(w *Writer) error
	}{
		{"WriteRow", func(w *Writer) error { return w.WriteRow(all[0]) }},
		{"WriteRows", func(w *Writer) error { _, err := w.WriteRows(parquetRows); return err }},
		{"CarryRows", func(w *Writer) error { _, err := w.CarryRows(parquetRows); return err }},
		{"CarryRowGroup", func(w *Writer) error {
			_, err := w.CarryRowGroup(rowGroup, "src.parquet", func([]byte) bool { return true })
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, _ := newTestFS(t)
			w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{NewRecordsOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if w.columnar == nil {
				t.Fatal("not the columnar writer")
			}
			if err := w.WriteNew(tripsMeta, 0, keys[:10], rows[:10]); err != nil {
				t.Fatal(err)
			}
			err = tc.write(w)
			if !errors.Is(err, errNewRecordsOnly) || !strings.Contains(err.Error(), "f.parquet") {
				t.Fatalf("%s: error %v, want %v naming the file", tc.name, err, errNewRecordsOnly)
			}
			if err := w.WriteNew(tripsMeta, 10, keys[10:], rows[10:]); !errors.Is(err, errNewRecordsOnly) {
				t.Errorf("WriteNew after %s: %v, want the writer's error", tc.name, err)
			}
			if err := tc.write(w); !errors.Is(err, errNewRecordsOnly) {
				t.Errorf("%s again: %v, want the writer's error", tc.name, err)
			}
			if _, err := w.Close(); !errors.Is(err, errNewRecordsOnly) {
				t.Errorf("Close: %v, want the writer's error", err)
			}
			if _, err := fsys.Stat(t.Context(), "f.parquet"); err == nil {
				t.Error("the refused writer's file is still there")
			}
			if _, err := w.Close(); err == nil {
				t.Error("a second Close succeeded")
			}
			if err := w.Abort(); err != nil {
				t.Errorf("Abort after Close: %v", err)
			}
		})
	}
}

// TestColumnarWriterCancelled cancels the context of a columnar writer and
// of parquet-go's, before a WriteNew or before Close: the call must fail
// with the context's error, and the file must be gone.
func TestColumnarWriterCancelled(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	keys, rows := newRecordsOf(flatTripsRows(t, 3000, keep))
	for _, newOnly := range []bool{true, false} {
		for _, at := range []string{"WriteNew", "Close"} {
			t.Run(fmt.Sprintf("NewRecordsOnly=%v/%s", newOnly, at), func(t *testing.T) {
				fsys, _ := newTestFS(t)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				w, err := NewWriter(ctx, fsys, "f.parquet", schema, Options{NewRecordsOnly: newOnly, BlockSize: 16 << 10})
				if err != nil {
					t.Fatal(err)
				}
				if (w.columnar != nil) != newOnly {
					t.Fatalf("columnar writer %v", w.columnar != nil)
				}
				if err := w.WriteNew(tripsMeta, 0, keys[:1500], rows[:1500]); err != nil {
					t.Fatal(err)
				}
				cancel()
				if at == "WriteNew" {
					if err := w.WriteNew(tripsMeta, 1500, keys[1500:], rows[1500:]); !errors.Is(err, context.Canceled) {
						t.Errorf("WriteNew: %v, want the context's error", err)
					}
				}
				if _, err := w.Close(); !errors.Is(err, context.Canceled) {
					t.Errorf("Close: %v, want the context's error", err)
				}
				if _, err := fsys.Stat(t.Context(), "f.parquet"); err == nil {
					t.Error("the cancelled writer's file is still there")
				}
			})
		}
	}
}

// newRecordErrorCase is records WriteNew must refuse, and the error it
// must give.
type newRecordErrorCase struct {
	name    string
	keys    []string
	rows    [][]any
	nilMeta bool
	noMeta  bool // a writer without meta fields: keys only name records
	want    []string
	index   int // the NewRecordError's index; -1 when there is none
}

// checkNewRecordError checks that err says every string of want, and is a
// *NewRecordError about record index, or none when index is -1.
func checkNewRecordError(t *testing.T, err error, want []string, index int) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	var re *NewRecordError
	if ok := errors.As(err, &re); ok != (index >= 0) || ok && re.Index != index {
		t.Errorf("error %q: a NewRecordError %v (%+v), want one at index %d", err, ok, re, index)
	}
}

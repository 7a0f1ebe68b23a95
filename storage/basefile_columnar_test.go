package storage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// flatTripsSchema is tripsSchemaJSON without its nested fields: every
// field a leaf column, as the columnar writer takes them.
func flatTripsSchema(t testing.TB) (*Schema, []int) {
	t.Helper()
	full := mustParseSchema(t, tripsSchemaJSON)
	flat := &Schema{Name: full.Name, Namespace: full.Namespace}
	var keep []int
	for i, f := range full.Fields {
		switch f.Type.Kind {
		case KindArray, KindMap, KindRecord:
			continue
		}
		flat.Fields = append(flat.Fields, f)
		keep = append(keep, i)
	}
	return flat, keep
}

// flatTripsRows returns n rows of flatTripsSchema with meta fields, drawn
// from tripsRows with their nested values left out and keyed key-000000 on.
func flatTripsRows(t testing.TB, n int, keep []int) [][]any {
	base := tripsRows(t)
	rows := make([][]any, n)
	for i := range rows {
		src := base[i%len(base)]
		row := append([]any(nil), src[:NumMetaFields]...)
		for _, f := range keep {
			row = append(row, src[NumMetaFields+f])
		}
		row[MetaRecordKeyPos] = fmt.Sprintf("key-%06d", i)
		rows[i] = row
	}
	return rows
}

// TestColumnarWriterMatchesParquetGo writes the same new records with the
// columnar writer and with parquet-go's, and checks that the files hold
// the same rows and describe them alike: schema, statistics, page indexes
// and footer metadata.
func TestColumnarWriterMatchesParquetGo(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	cases := []struct {
		name string
		n    int
		opts BaseFileOptions
	}{
		{name: "three records", n: 3},
		{name: "pages and row groups", n: 20000, opts: BaseFileOptions{BlockSize: 64 << 10, PageSize: 8 << 10}},
		{name: "plain strings, snappy", n: 5000, opts: BaseFileOptions{StringEncoding: "PLAIN", Compression: "snappy", PageSize: 4 << 10}},
		{name: "uncompressed", n: 2000, opts: BaseFileOptions{Compression: "uncompressed"}},
		{name: "no meta fields", n: 3000, opts: BaseFileOptions{NoMetaFields: true, PageSize: 16 << 10}},
		{name: "empty", n: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, dir := newTestFS(t)
			rows := flatTripsRows(t, tc.n, keep)
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			keys, data := newRecordsOf(rows)
			meta := tripsMeta
			if tc.opts.NoMetaFields {
				keys, meta = nil, nil
			}
			write := func(path string, newOnly bool) BaseFileStats {
				opts := tc.opts
				opts.NewRecordsOnly = newOnly
				w, err := NewBaseFileWriter(t.Context(), fsys, path, schema, opts)
				if err != nil {
					t.Fatal(err)
				}
				if (w.columnar != nil) != newOnly {
					t.Fatalf("NewRecordsOnly %v: columnar writer %v", newOnly, w.columnar != nil)
				}
				for start := 0; start < len(data); start += 1500 {
					end := min(start+1500, len(data))
					var part []string
					if keys != nil {
						part = keys[start:end]
					}
					if err := w.WriteNew(meta, int64(start), part, data[start:end]); err != nil {
						t.Fatal(err)
					}
				}
				stats, err := w.Close()
				if err != nil {
					t.Fatal(err)
				}
				return stats
			}
			got, want := write("got.parquet", true), write("want.parquet", false)
			if got.NumRows != want.NumRows || got.MinRecordKey != want.MinRecordKey || got.MaxRecordKey != want.MaxRecordKey {
				t.Errorf("stats %+v, want %+v", got, want)
			}
			gotFile, wantFile := mustOpenBaseFile(t, fsys, "got.parquet"), mustOpenBaseFile(t, fsys, "want.parquet")
			assertRowsEqual(t, readAllValues(t, gotFile), readAllValues(t, wantFile))
			if !reflect.DeepEqual(gotFile.Metadata(), wantFile.Metadata()) {
				t.Errorf("footer metadata differs")
			}
			gm, wm := gotFile.Parquet().Metadata(), wantFile.Parquet().Metadata()
			if !reflect.DeepEqual(gm.Schema, wm.Schema) || gm.CreatedBy != wm.CreatedBy || !reflect.DeepEqual(gm.ColumnOrders, wm.ColumnOrders) {
				t.Errorf("schema or writer differ:\n%+v\n%+v", gm.Schema, wm.Schema)
			}
			if gm.NumRows != wm.NumRows {
				t.Errorf("%d rows in the footer, want %d", gm.NumRows, wm.NumRows)
			}
			if len(wm.RowGroups) == 1 && len(gm.RowGroups) == 1 {
				compareChunks(t, gm.RowGroups[0].Columns, wm.RowGroups[0].Columns)
			}
			// Where both writers ended the row groups and the pages of a
			// column at the same rows, its column index must be the same.
			gi, go_ := pageIndexes(t, filepath.Join(dir, "got.parquet"))
			wi, wo := pageIndexes(t, filepath.Join(dir, "want.parquet"))
			compared := 0
			sameGroups := slices.EqualFunc(gm.RowGroups, wm.RowGroups, func(a, b format.RowGroup) bool { return a.NumRows == b.NumRows })
			for i := range min(len(gi), len(wi)) {
				if !sameGroups || !slices.EqualFunc(go_[i].PageLocations, wo[i].PageLocations, func(a, b format.PageLocation) bool { return a.FirstRowIndex == b.FirstRowIndex }) {
					continue
				}
				compared++
				if !reflect.DeepEqual(gi[i], wi[i]) {
					t.Errorf("column index %d:\ngot  %+v\nwant %+v", i, gi[i], wi[i])
				}
			}
			t.Logf("%d and %d row groups; %d of %d column indexes compared", len(gm.RowGroups), len(wm.RowGroups), compared, len(wi))
		})
	}
}

// pageIndexes returns the column and offset indexes of the Parquet file at
// path.
func pageIndexes(t *testing.T, path string) ([]format.ColumnIndex, []format.OffsetIndex) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), parquet.SkipPageIndex(false))
	if err != nil {
		t.Fatal(err)
	}
	return pf.ColumnIndexes(), pf.OffsetIndexes()
}

// compareChunks checks that column chunks describe the same values:
// encodings, statistics, value counts. The columnar writer may give a byte
// array column a dictionary where parquet-go's writer does not.
func compareChunks(t *testing.T, got, want []format.ColumnChunk) {
	t.Helper()
	for i := range want {
		g, w := got[i].MetaData, want[i].MetaData
		gotDict, wantDict := slices.Contains(g.Encoding, format.RLEDictionary), slices.Contains(w.Encoding, format.RLEDictionary)
		sameEncodings := reflect.DeepEqual(g.Encoding, w.Encoding) || gotDict && !wantDict && g.Type == format.ByteArray
		// parquet-go counts no unencoded bytes in dictionary pages.
		sameUnencoded := gotDict || wantDict || g.SizeStatistics.UnencodedByteArrayDataBytes == w.SizeStatistics.UnencodedByteArrayDataBytes
		if !sameEncodings || !sameUnencoded || g.Type != w.Type || g.Codec != w.Codec ||
			g.NumValues != w.NumValues || !reflect.DeepEqual(g.Statistics, w.Statistics) ||
			!reflect.DeepEqual(g.SizeStatistics.DefinitionLevelHistogram, w.SizeStatistics.DefinitionLevelHistogram) {
			t.Errorf("column %d (%v):\ngot  %+v\nwant %+v", i, w.PathInSchema, g, w)
		}
	}
}

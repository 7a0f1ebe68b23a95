package read

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// pageEdges returns the file rows that start or end a page of column col
// of the table's one base file, by its offset index.
func pageEdges(t *testing.T, tbl *rawTable, col string) []int {
	t.Helper()
	s, err := scanDir(t, tbl.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	slices := s.View().LatestSlices()
	s.Close()
	if len(slices) != 1 {
		t.Fatalf("%d file slices, want 1", len(slices))
	}
	bf, err := basefile.Open(context.Background(), tbl.fsys, slices[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	leaf, ok := bf.Parquet().Schema().Lookup(col)
	if !ok {
		t.Fatalf("no column %s", col)
	}
	var edges []int
	base := 0
	for _, rg := range bf.RowGroups() {
		oi, err := rg.ColumnChunks()[leaf.ColumnIndex].OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		for i := range oi.NumPages() {
			first := base + int(oi.FirstRowIndex(i))
			edges = append(edges, first, first-1)
		}
		base += int(rg.NumRows())
	}
	if len(bf.RowGroups()) < 2 {
		t.Fatalf("%d row groups: the test wants several", len(bf.RowGroups()))
	}
	return append(edges, base-1)
}

// TestLateMaterialization checks that selective filters, which decode the
// columns outside the filter only for the rows they select and skip their
// other pages, return exactly the rows they select, columns of every type
// (nested and repeated ones, nulls) included, with pages and row groups
// small enough that the rows at the edges of pages are tested.
func TestLateMaterialization(t *testing.T) {
	// Row groups of 256 rows, pages of 64 (the rows the writer buffers).
	schema, rows, tbl := allTypesTable(t, 3, basefile.Options{BlockSize: 40 << 10, PageSize: 256, Compression: "snappy"})

	edges := pageEdges(t, tbl, "l")
	var ids []string
	for _, id := range edges {
		if id >= 0 && id < len(rows) {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	if len(ids) < 10 {
		t.Fatalf("only %d page edges: the test wants many pages", len(ids))
	}
	inEdges := map[int32]bool{}
	for _, id := range edges {
		inEdges[int32(id)] = true
	}
	col := func(name string) int { return schema.FieldIndex(name) }
	recA := func(row []any) any {
		if rec, ok := row[col("rec")].([]any); ok {
			return rec[0]
		}
		return nil
	}
	tests := []struct {
		where     string
		keep      func(row []any) bool
		skipPages bool // the filter must let pages be skipped (every page of the first holds a row it selects)
	}{
		{"id IN (" + strings.Join(ids, ", ") + ")", func(row []any) bool { return inEdges[row[0].(int32)] }, false},
		{"id = 0", func(row []any) bool { return row[0] == int32(0) }, true},
		{"id = 500", func(row []any) bool { return row[0] == int32(500) }, true},
		{"id >= 300 AND id < 340", func(row []any) bool { x := row[0].(int32); return x >= 300 && x < 340 }, true},
		{"id IN (5, 200, 600)", func(row []any) bool { x := row[0].(int32); return x == 5 || x == 200 || x == 600 }, true},
		{"rec.a IS NULL AND id < 100", func(row []any) bool { return recA(row) == nil && row[0].(int32) < 100 }, true},
		{"i IS NULL", func(row []any) bool { return row[col("i")] == nil }, false},
		{"s = 'a' OR id = 5", func(row []any) bool { return row[col("s")] == "a" || row[0] == int32(5) }, false},
		{"id >= 0", func([]any) bool { return true }, false},
		{"id < 0", func([]any) bool { return false }, false},
	}
	// The meta columns are dictionary-encoded: skipping their first pages
	// must still load the dictionary.
	meta := Options{Columns: []string{"id", basefile.MetaCommitTime, basefile.MetaRecordKey}}
	all, _ := tbl.scan(meta)
	meta.Where = "id IN (5, 200, 600)"
	got, _ := tbl.scan(meta)
	if want := [][]any{all[5], all[200], all[600]}; !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %v, want %v", meta.Where, got, want)
	}
	var names []string
	for _, f := range schema.Fields {
		names = append(names, f.Name)
	}
	for _, tt := range tests {
		var want [][]any
		for _, row := range rows {
			if tt.keep(row) {
				want = append(want, row)
			}
		}
		for _, batch := range []int{1, 7, 64, 1000} {
			got, stats := tbl.scan(Options{Columns: names, Where: tt.where, BatchSize: batch})
			if len(got) != len(want) {
				t.Fatalf("%s, batch %d: %d rows, want %d", tt.where, batch, len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s, batch %d: row %d\n got %#v\nwant %#v", tt.where, batch, i, got[i], want[i])
				}
			}
			if tt.skipPages && stats.PagesSkipped == 0 {
				t.Errorf("%s, batch %d: no pages skipped", tt.where, batch)
			}
			if stats.RowsReturned != int64(len(want)) {
				t.Errorf("%s, batch %d: %d rows returned, want %d", tt.where, batch, stats.RowsReturned, len(want))
			}
		}
	}
}

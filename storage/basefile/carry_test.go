package basefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
)

// carryRows returns n rows of tripsWithMeta, keyed "k0000" and up: the rows
// of tripsRows in turn, whose lists and maps make rows of several values in
// the repeated columns.
func carryRows(t *testing.T, n int) [][]any {
	t.Helper()
	templates := tripsRows(t)
	rows := make([][]any, n)
	for i := range rows {
		row := slices.Clone(templates[i%len(templates)])
		row[2] = fmt.Sprintf("k%04d", i)
		rows[i] = row
	}
	return rows
}

func TestBaseFileCarryRowGroup(t *testing.T) {
	fsys, _ := newTestFS(t)
	schema := tripsWithMeta(t)
	// Row groups of thousands of rows in large pages: batches of values
	// read end inside rows of the repeated columns.
	rows := carryRows(t, 6000)
	writeBaseFile(t, fsys, "a.parquet", schema, Options{BlockSize: 1 << 20}, rows)
	src := mustOpenBaseFile(t, fsys, "a.parquet")
	if len(src.RowGroups()) < 2 {
		t.Fatalf("%d row groups, want several", len(src.RowGroups()))
	}
	bloom, err := src.BloomFilter()
	if err != nil {
		t.Fatal(err)
	}

	// The copy has small pages, which end often: always with a row.
	const name = "b.parquet"
	w, err := NewWriter(t.Context(), fsys, name, schema, Options{SeedBloom: bloom, PageSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	// A row written before goes first.
	first := slices.Clone(rows[0])
	first[2] = "new"
	if err := w.WriteRow(first); err != nil {
		t.Fatal(err)
	}
	taken := func(key []byte) bool {
		i, _ := strconv.Atoi(string(key[1:]))
		return i%97 == 3 || i%500 == 499
	}
	want := [][]any{first}
	var wantTaken [][]any
	for _, values := range rows {
		values = slices.Clone(values)
		values[4] = name
		if taken([]byte(values[2].(string))) {
			wantTaken = append(wantTaken, values)
		} else {
			want = append(want, values)
		}
	}
	var gotTaken [][]any
	for _, rg := range src.RowGroups() {
		out, err := w.CarryRowGroup(rg, name, taken)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range out {
			values, err := src.DecodeRow(row)
			if err != nil {
				t.Fatal(err)
			}
			gotTaken = append(gotTaken, values)
		}
	}
	assertRowsEqual(t, gotTaken, wantTaken)
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stats.NumRows != int64(len(want)) || stats.MinRecordKey != "k0000" || stats.MaxRecordKey != "new" {
		t.Errorf("stats %+v", stats)
	}
	dst := mustOpenBaseFile(t, fsys, name)
	assertRowsEqual(t, readAllValues(t, dst), want)
	assertPagesStartRows(t, dst.Parquet())
	if dst.Metadata()[FooterBloomFilter] == src.Metadata()[FooterBloomFilter] {
		t.Error("the new row's key is not in the bloom filter")
	}
}

func TestBaseFileCarryRowGroupErrors(t *testing.T) {
	fsys, _ := newTestFS(t)
	writeBaseFile(t, fsys, "a.parquet", tripsWithMeta(t), Options{}, carryRows(t, 10))
	src := mustOpenBaseFile(t, fsys, "a.parquet")
	rg := src.RowGroups()[0]
	none := func([]byte) bool { return false }

	// Another schema.
	w, err := NewWriter(t.Context(), fsys, "b.parquet", benchSchema(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CarryRowGroup(rg, "b.parquet", none); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("CarryRowGroup of another schema: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}

	// A cancelled write.
	ctx, cancel := context.WithCancel(t.Context())
	w, err = NewWriter(ctx, fsys, "c.parquet", tripsWithMeta(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w.CarryRowGroup(rg, "c.parquet", none); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("CarryRowGroup after cancel: %v", err)
	}
	if _, err := w.Close(); err == nil {
		t.Error("Close after a failed CarryRowGroup succeeded")
	}
	if ok, _ := storage.Exists(t.Context(), fsys, "c.parquet"); ok {
		t.Error("the failed file was left")
	}
}

// assertPagesStartRows checks that every page starts with a row, as readers
// skipping to a page with the page index assume.
func assertPagesStartRows(t *testing.T, pf *parquet.File) {
	t.Helper()
	for _, rg := range pf.RowGroups() {
		for i, col := range rg.ColumnChunks() {
			pages := col.Pages()
			for n := 0; ; n++ {
				page, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if levels := page.RepetitionLevels(); len(levels) > 0 && levels[0] != 0 {
					t.Errorf("column %d: page %d starts inside a row", i, n)
				}
				parquet.Release(page)
			}
			pages.Close()
		}
	}
}

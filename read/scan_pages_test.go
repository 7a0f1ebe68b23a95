package read

import (
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// TestPagePruning checks that a filter on a column whose pages hold
// narrow ranges (ids in order) decodes only the pages that may hold what
// it selects, and still returns exactly the rows it selects.
func TestPagePruning(t *testing.T) {
	// Row groups of about 256 rows, pages of 64.
	schema, rows, tbl := allTypesTable(t, 5, basefile.Options{BlockSize: 40 << 10, PageSize: 256, Compression: "snappy"})
	var names []string
	for _, f := range schema.Fields {
		names = append(names, f.Name)
	}
	for _, tt := range []struct {
		where   string
		keep    func(id int32) bool
		maxRead int64 // the rows decoded at most
	}{
		{"id = 300", func(id int32) bool { return id == 300 }, 64},
		{"id >= 300 AND id < 340", func(id int32) bool { return id >= 300 && id < 340 }, 128},
		{"id = 5 OR id = 250", func(id int32) bool { return id == 5 || id == 250 }, 128},
		{"id IN (3, 699)", func(id int32) bool { return id == 3 || id == 699 }, 128},
		{"NOT id = 5", func(id int32) bool { return id != 5 }, int64(len(rows))},
	} {
		var want [][]any
		for _, row := range rows {
			if tt.keep(row[0].(int32)) {
				want = append(want, row)
			}
		}
		for _, batch := range []int{1, 13, 1000} {
			got, stats := tbl.scan(Options{Columns: names, Where: tt.where, BatchSize: batch})
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, batch %d: %d rows, want %d", tt.where, batch, len(got), len(want))
			}
			if stats.RowsRead > tt.maxRead {
				t.Errorf("%s, batch %d: decoded %d rows, want at most %d", tt.where, batch, stats.RowsRead, tt.maxRead)
			}
		}
	}
}

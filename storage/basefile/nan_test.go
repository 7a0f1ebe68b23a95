package basefile

import (
	"math"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestFloatChunksWithNaNHaveNoBounds checks that a float or double column
// chunk holding a NaN is written without bounds and without a column
// index, by the columnar writer, by parquet-go's, and when its rows are
// carried into a new version of the file, while a chunk without NaN keeps
// both: readers order NaN above every number (DuckDB, Spark) or below, and
// bounds that leave it out would have them skip its rows.
func TestFloatChunksWithNaNHaveNoBounds(t *testing.T) {
	schema := &Schema{Name: "r", Fields: []Field{
		{Name: "d", Type: Primitive(KindDouble)},
		{Name: "f", Type: Primitive(KindFloat)},
		{Name: "plain", Type: Primitive(KindDouble)},
	}}
	var rows [][]any
	for i := range 3000 {
		d, f := float64(i), float32(i)
		if i == 1500 {
			d, f = math.NaN(), float32(math.NaN())
		}
		rows = append(rows, []any{d, f, float64(i)})
	}
	check := func(t *testing.T, bf *File) {
		t.Helper()
		for _, rg := range bf.Parquet().Metadata().RowGroups {
			for j, c := range rg.Columns {
				nan := j < 2
				st := c.MetaData.Statistics
				if hasBounds := st.MinValue != nil || st.MaxValue != nil || st.Min != nil || st.Max != nil; hasBounds == nan {
					t.Errorf("column %v: bounds %v, holds NaN %v", c.MetaData.PathInSchema, hasBounds, nan)
				}
				if hasIndex := c.ColumnIndexOffset != 0; hasIndex == nan {
					t.Errorf("column %v: column index %v, holds NaN %v", c.MetaData.PathInSchema, hasIndex, nan)
				}
				if c.OffsetIndexOffset == 0 {
					t.Errorf("column %v: no offset index", c.MetaData.PathInSchema)
				}
			}
		}
		if got := len(readAllValues(t, bf)); got != len(rows) {
			t.Errorf("%d rows read back, want %d", got, len(rows))
		}
	}
	for _, columnar := range []bool{true, false} {
		name := "parquet-go"
		if columnar {
			name = "columnar"
		}
		t.Run(name, func(t *testing.T) {
			fsys, _ := newTestFS(t)
			w, err := NewWriter(t.Context(), fsys, "a.parquet", schema, Options{NoMetaFields: true, NewRecordsOnly: columnar, PageSize: 4 << 10})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteNew(nil, 0, nil, rows); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			check(t, mustOpenBaseFile(t, fsys, "a.parquet"))
		})
	}
	t.Run("carried", func(t *testing.T) {
		fsys, _ := newTestFS(t)
		keyed := schema.WithMetaFields()
		var withMeta [][]any
		for i, r := range rows {
			key := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
			withMeta = append(withMeta, append([]any{"20240101000000000", "s", key, "", "a.parquet"}, r...))
		}
		writeBaseFile(t, fsys, "a.parquet", keyed, Options{}, withMeta)
		src := mustOpenBaseFile(t, fsys, "a.parquet")
		w, err := NewWriter(t.Context(), fsys, "b.parquet", keyed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range src.RowGroups() {
			if _, err := w.CarryRowGroup(rg, "b.parquet", func([]byte) bool { return false }); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		dst := mustOpenBaseFile(t, fsys, "b.parquet")
		for _, rg := range dst.Parquet().Metadata().RowGroups {
			for _, c := range rg.Columns {
				path := c.MetaData.PathInSchema[0]
				nan := path == "d" || path == "f"
				if hasIndex := c.ColumnIndexOffset != 0; hasIndex == nan && c.MetaData.Type != format.ByteArray {
					t.Errorf("carried column %s: column index %v, holds NaN %v", path, hasIndex, nan)
				}
				if hasBounds := c.MetaData.Statistics.MaxValue != nil; hasBounds == nan && c.MetaData.Type != format.ByteArray {
					t.Errorf("carried column %s: bounds %v, holds NaN %v", path, hasBounds, nan)
				}
			}
		}
	})
}

package sqlengine

import (
	"context"
	"math"
	"path"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestLiteral(t *testing.T) {
	e := openEngine(t)
	opt := basefile.Nullable
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	tests := []struct {
		name string
		typ  *basefile.Type
		v    any
		want any
	}{
		{"null", opt(basefile.Primitive(basefile.KindInt)), nil, nil},
		{"boolean", basefile.Primitive(basefile.KindBoolean), true, true},
		{"int", basefile.Primitive(basefile.KindInt), int32(-7), int64(-7)},
		{"long", basefile.Primitive(basefile.KindLong), int64(1) << 40, int64(1) << 40},
		{"float", basefile.Primitive(basefile.KindFloat), float32(0.1), float32(0.1)},
		{"float infinity", basefile.Primitive(basefile.KindFloat), float32(math.Inf(-1)), float32(math.Inf(-1))},
		{"double", basefile.Primitive(basefile.KindDouble), 1e-300, 1e-300},
		{"double infinity", basefile.Primitive(basefile.KindDouble), math.Inf(1), math.Inf(1)},
		{"string with a quote", basefile.Primitive(basefile.KindString), "it's", "it's"},
		{"enum", basefile.EnumType("color", "red"), "red", "red"},
		{"uuid", basefile.UUIDType(), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"bytes", basefile.Primitive(basefile.KindBytes), []byte{0, 0xff, '\''}, []byte{0, 0xff, '\''}},
		{"fixed", basefile.FixedType("fx", 2), []byte{1, 2}, []byte{1, 2}},
		{"decimal", basefile.DecimalType(10, 2), basefile.NewDecimalInt64(-5, 2), basefile.NewDecimalInt64(-5, 2)},
		{"decimal wider than DuckDB's", basefile.DecimalType(40, 2), basefile.NewDecimalInt64(125, 2), 1.25},
		{"date", basefile.DateType(), mustDate(t, "1969-12-31"), mustDate(t, "1969-12-31")},
		{"timestamp", basefile.TimestampMicrosType(), ts, ts},
		{"timestamp millis", basefile.TimestampMillisType(), ts.Truncate(time.Millisecond), ts.Truncate(time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lit, err := literal(tt.v, tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			typ, err := duckDBType(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			cols, rows := queryAll(t, e, "SELECT "+lit+" AS v, CAST(NULL AS "+typ+") AS want")
			if cols[0].Type != cols[1].Type {
				t.Errorf("%s: type %s, want %s", lit, cols[0].Type, cols[1].Type)
			}
			if !reflect.DeepEqual(rows[0][0], tt.want) {
				t.Errorf("%s: %#v, want %#v", lit, rows[0][0], tt.want)
			}
		})
	}
}

// rawFile is a base file written for a view test, and its file slice.
type rawFile struct {
	partition []string // the partition columns' values as folder text
	withMeta  bool     // the file stores meta fields
	rows      [][]any  // the values of fileSchema's columns
}

func TestViewComputesWhatAScanComputes(t *testing.T) {
	opt := basefile.Nullable
	str := opt(basefile.Primitive(basefile.KindString))
	partFields := []basefile.Field{
		{Name: "bucket", Type: opt(basefile.Primitive(basefile.KindInt))},
		{Name: "day", Type: opt(basefile.DateType())},
		{Name: "amount", Type: opt(basefile.DecimalType(10, 2))},
		{Name: "flag", Type: opt(basefile.Primitive(basefile.KindBoolean))},
		{Name: "ts", Type: opt(basefile.TimestampMicrosType())},
		{Name: "label", Type: str},
	}
	// The table's schema: the partition columns among the others.
	schema := &basefile.Schema{Name: "t_record", Fields: []basefile.Field{{Name: "id", Type: str}, partFields[0], {Name: "v", Type: opt(basefile.Primitive(basefile.KindLong))}}}
	schema.Fields = append(schema.Fields, partFields[1:]...)
	// The files' schema: the partition columns left out.
	fileSchema := &basefile.Schema{Name: "t_record", Fields: []basefile.Field{schema.Fields[0], schema.Fields[2]}}
	var partNames []string
	for _, f := range partFields {
		partNames = append(partNames, f.Name)
	}
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	const instant = "20240101000000000"
	files := []rawFile{
		{partition: []string{"1", "2024-01-02", "12.50", "true", ts.Format(time.RFC3339Nano), "it's [x]*?"}, rows: [][]any{{"a", int64(1)}, {"b", nil}}},
		{partition: []string{config.DefaultPartitionValue, "2024-02-29", "-0.05", "false", ts.Format(time.RFC3339Nano), config.DefaultPartitionValue}, rows: [][]any{{"c", int64(3)}}},
		{partition: []string{"2", "2024-01-03", "0.00", "true", ts.Format(time.RFC3339Nano), "x"}, withMeta: true, rows: [][]any{{"d", int64(4)}}},
	}
	tests := []struct {
		name      string
		meta      bool // hoodie.populate.meta.fields
		drop      bool // hoodie.datasource.write.drop.partition.columns
		computed  bool // the view computes columns
		wantMeta  func(f rawFile, slice read.FileSlice, row int) []any
		wantParts func(t testing.TB, f rawFile) []any
	}{
		{
			name: "no meta fields, partition columns dropped", meta: false, drop: true, computed: true,
			wantMeta: func(f rawFile, s read.FileSlice, row int) []any {
				if f.withMeta { // the stored key and sequence number stay
					return []any{s.Instant, instant + "_0_" + f.rows[row][0].(string), f.rows[row][0], s.Partition, path.Base(s.Path)}
				}
				return []any{s.Instant, nil, nil, s.Partition, path.Base(s.Path)}
			},
			wantParts: partitionValues,
		},
		{
			name: "meta fields, partition columns dropped", meta: true, drop: true, computed: true,
			wantMeta: func(f rawFile, s read.FileSlice, row int) []any {
				if f.withMeta {
					return []any{instant, instant + "_0_" + f.rows[row][0].(string), f.rows[row][0], s.Partition, path.Base(s.Path)}
				}
				return []any{nil, nil, nil, nil, nil}
			},
			wantParts: partitionValues,
		},
		{
			name: "no meta fields", meta: false, drop: false, computed: true,
			wantMeta: func(f rawFile, s read.FileSlice, row int) []any {
				if f.withMeta {
					return []any{s.Instant, instant + "_0_" + f.rows[row][0].(string), f.rows[row][0], s.Partition, path.Base(s.Path)}
				}
				return []any{s.Instant, nil, nil, s.Partition, path.Base(s.Path)}
			},
			wantParts: func(testing.TB, rawFile) []any { return make([]any, len(partFields)) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := openEngine(t)
			root := t.TempDir()
			fsys, err := storage.NewLocalFS(root)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.NewTable("t", []string{"id"}, "", partNames, false, "")
			if err != nil {
				t.Fatal(err)
			}
			cfg.PopulateMetaFields, cfg.DropPartitionColumns, cfg.URLEncodePartitioning = tt.meta, tt.drop, true
			var slices []read.FileSlice
			want := map[string][]any{}
			for i, f := range files {
				s := read.FileSlice{Partition: config.PartitionPath(partNames, f.partition, false, true), FileID: string(rune('a' + i))}
				s.Instant = "2024010100000000" + string(rune('1'+i))
				s.Path = path.Join(s.Partition, basefile.Name{FileID: s.FileID, WriteToken: "0-1-1", InstantTime: s.Instant}.String())
				slices = append(slices, s)
				w, err := basefile.NewWriter(ctx, fsys, s.Path, fileSchema, basefile.Options{NoMetaFields: !f.withMeta})
				if err != nil {
					t.Fatal(err)
				}
				for r, row := range f.rows {
					values := row
					if f.withMeta {
						values = append([]any{instant, instant + "_0_" + row[0].(string), row[0], s.Partition, path.Base(s.Path)}, row...)
					}
					if err := w.WriteRow(values); err != nil {
						t.Fatal(err)
					}
					parts := tt.wantParts(t, f)
					want[row[0].(string)] = append(append(tt.wantMeta(f, s, r), row[0], parts[0], row[1]), parts[1:]...)
				}
				if _, err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			viewFiles := TableFiles(root, cfg, schema, slices)
			computed := false
			for i, f := range viewFiles {
				computed = computed || f.computed()
				if wantPath := filepath.Join(root, filepath.FromSlash(slices[i].Path)); f.Path != wantPath {
					t.Errorf("path %s, want %s", f.Path, wantPath)
				}
			}
			if computed != tt.computed {
				t.Errorf("the view computes columns: %v, want %v", computed, tt.computed)
			}
			if err := e.CreateView(ctx, "t", viewFiles, schema); err != nil {
				t.Fatal(err)
			}
			cols, rows := queryAll(t, e, "SELECT * FROM t")
			var names []string
			for _, c := range cols {
				names = append(names, c.Name)
			}
			wantNames := append(basefile.MetaFieldNames[:], "id", "bucket", "v", "day", "amount", "flag", "ts", "label")
			if !reflect.DeepEqual(names, wantNames) {
				t.Errorf("columns %v, want %v", names, wantNames)
			}
			if len(rows) != len(want) {
				t.Errorf("%d rows, want %d", len(rows), len(want))
			}
			for _, row := range rows {
				id, _ := row[basefile.NumMetaFields].(string)
				if !reflect.DeepEqual(row, want[id]) {
					t.Errorf("row %s:\n got %#v\nwant %#v", id, row, want[id])
				}
			}
		})
	}
}

// partitionValues returns the values a view gives the partition columns
// of TestViewComputesWhatAScanComputes in the rows of f: those of its
// folders, but null for the default partition.
func partitionValues(t testing.TB, f rawFile) []any {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	switch f.partition[0] {
	case "1":
		return []any{int64(1), mustDate(t, "2024-01-02"), basefile.NewDecimalInt64(1250, 2), true, ts, "it's [x]*?"}
	case "2":
		return []any{int64(2), mustDate(t, "2024-01-03"), basefile.NewDecimalInt64(0, 2), true, ts, "x"}
	}
	return []any{nil, mustDate(t, "2024-02-29"), basefile.NewDecimalInt64(-5, 2), false, ts, nil}
}

func TestTableFilesOfATableWithMetaFieldsComputeNothing(t *testing.T) {
	cfg, err := config.NewTable("t", []string{"id"}, "", []string{"p"}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	schema := &basefile.Schema{Name: "t", Fields: []basefile.Field{{Name: "id", Type: basefile.Primitive(basefile.KindString)}, {Name: "p", Type: basefile.Primitive(basefile.KindString)}}}
	files := TableFiles("/root", cfg, schema, []read.FileSlice{{Partition: "a", FileID: "f", Instant: "20240101000000000", Path: "a/f_0-1-1_20240101000000000.parquet"}})
	want := []File{{Path: filepath.Join("/root", "a", "f_0-1-1_20240101000000000.parquet")}}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files %+v, want %+v", files, want)
	}
}

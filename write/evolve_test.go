package write

import (
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
)

func TestEvolveSchema(t *testing.T) {
	nullable := func(k storage.Kind) *storage.Type { return storage.Nullable(storage.Primitive(k)) }
	table := &storage.Schema{Name: "t", Fields: []storage.Field{
		{Name: "id", Type: storage.Primitive(storage.KindString)},
		{Name: "n", Type: nullable(storage.KindInt)},
		{Name: "s", Type: nullable(storage.KindString)},
		{Name: "k", Type: nullable(storage.KindInt)},
	}}
	tests := []struct {
		name    string
		in      []storage.Field
		want    map[string]storage.Kind
		changed bool
		wantErr string
	}{
		{"same", []storage.Field{{Name: "id", Type: nullable(storage.KindString)}, {Name: "n", Type: nullable(storage.KindInt)}}, map[string]storage.Kind{"n": storage.KindInt}, false, ""},
		{"widen int to long", []storage.Field{{Name: "n", Type: nullable(storage.KindLong)}}, map[string]storage.Kind{"n": storage.KindLong}, true, ""},
		{"widen int to double", []storage.Field{{Name: "n", Type: nullable(storage.KindDouble)}}, map[string]storage.Kind{"n": storage.KindDouble}, true, ""},
		{"new column", []storage.Field{{Name: "extra", Type: storage.Primitive(storage.KindBoolean)}}, map[string]storage.Kind{"extra": storage.KindBoolean}, true, ""},
		{"string to int refused", []storage.Field{{Name: "s", Type: nullable(storage.KindInt)}}, nil, false, `column "s"`},
		{"meta column refused", []storage.Field{{Name: storage.MetaRecordKey, Type: nullable(storage.KindString)}}, nil, false, "meta column"},
		{"key column widened to long", []storage.Field{{Name: "k", Type: nullable(storage.KindLong)}}, map[string]storage.Kind{"k": storage.KindLong}, true, ""},
		{"key column widened to double refused", []storage.Field{{Name: "k", Type: nullable(storage.KindDouble)}}, nil, false, `column "k"`},
		{"key column widened to float refused", []storage.Field{{Name: "k", Type: nullable(storage.KindFloat)}}, nil, false, "only int -> long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := EvolveSchema(table, &storage.Schema{Name: "in", Fields: tt.in}, []string{"k"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed {
				t.Errorf("changed %v, want %v", changed, tt.changed)
			}
			for name, kind := range tt.want {
				f, ok := got.Field(name)
				if !ok || f.Type.Kind != kind || !f.Type.Nullable {
					t.Errorf("column %s: %+v, want a nullable %s", name, f.Type, kind)
				}
			}
			if f, _ := got.Field("id"); f.Type.Nullable {
				t.Error("a required column became nullable")
			}
		})
	}
}

func TestRowConverterWidensAndChecksRequired(t *testing.T) {
	table := &storage.Schema{Name: "t", Fields: []storage.Field{
		{Name: "id", Type: storage.Primitive(storage.KindString)},
		{Name: "n", Type: storage.Nullable(storage.Primitive(storage.KindDouble))},
	}}
	in := &storage.Schema{Name: "in", Fields: []storage.Field{
		{Name: "n", Type: storage.Nullable(storage.Primitive(storage.KindInt))},
		{Name: "id", Type: storage.Nullable(storage.Primitive(storage.KindString))},
	}}
	c, err := newRowConverter(table, in)
	if err != nil {
		t.Fatal(err)
	}
	row, err := c.convertRow([]any{int32(3), "a"})
	if err != nil || row[0] != "a" || row[1] != 3.0 {
		t.Fatalf("converted %v, %v", row, err)
	}
	if _, err := c.convertRow([]any{int32(3), nil}); err == nil || !strings.Contains(err.Error(), `"id" is required`) {
		t.Fatalf("null in a required column: %v", err)
	}
	// Rows of a nullable-only table's own layout need neither conversion
	// nor checks: they are used as they are.
	same, err := newRowConverter(in, in)
	if err != nil {
		t.Fatal(err)
	}
	orig := []any{int32(1), "a"}
	if out, _ := same.convertRow(orig); &out[0] != &orig[0] {
		t.Error("rows already laid out as the table were copied")
	}
}

package write

import (
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

func TestEvolveSchema(t *testing.T) {
	nullable := func(k basefile.Kind) *basefile.Type { return basefile.Nullable(basefile.Primitive(k)) }
	table := &basefile.Schema{Name: "t", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Primitive(basefile.KindString)},
		{Name: "n", Type: nullable(basefile.KindInt)},
		{Name: "s", Type: nullable(basefile.KindString)},
		{Name: "k", Type: nullable(basefile.KindInt)},
	}}
	tests := []struct {
		name    string
		in      []basefile.Field
		want    map[string]basefile.Kind
		changed bool
		wantErr string
	}{
		{"same", []basefile.Field{{Name: "id", Type: nullable(basefile.KindString)}, {Name: "n", Type: nullable(basefile.KindInt)}}, map[string]basefile.Kind{"n": basefile.KindInt}, false, ""},
		{"widen int to long", []basefile.Field{{Name: "n", Type: nullable(basefile.KindLong)}}, map[string]basefile.Kind{"n": basefile.KindLong}, true, ""},
		{"widen int to double", []basefile.Field{{Name: "n", Type: nullable(basefile.KindDouble)}}, map[string]basefile.Kind{"n": basefile.KindDouble}, true, ""},
		{"new column", []basefile.Field{{Name: "extra", Type: basefile.Primitive(basefile.KindBoolean)}}, map[string]basefile.Kind{"extra": basefile.KindBoolean}, true, ""},
		{"string to int refused", []basefile.Field{{Name: "s", Type: nullable(basefile.KindInt)}}, nil, false, `column "s"`},
		{"meta column refused", []basefile.Field{{Name: basefile.MetaRecordKey, Type: nullable(basefile.KindString)}}, nil, false, "meta column"},
		{"key column widened to long", []basefile.Field{{Name: "k", Type: nullable(basefile.KindLong)}}, map[string]basefile.Kind{"k": basefile.KindLong}, true, ""},
		{"key column widened to double refused", []basefile.Field{{Name: "k", Type: nullable(basefile.KindDouble)}}, nil, false, `column "k"`},
		{"key column widened to float refused", []basefile.Field{{Name: "k", Type: nullable(basefile.KindFloat)}}, nil, false, "only int -> long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := EvolveSchema(table, &basefile.Schema{Name: "in", Fields: tt.in}, []string{"k"})
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
	table := &basefile.Schema{Name: "t", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Primitive(basefile.KindString)},
		{Name: "n", Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))},
	}}
	in := &basefile.Schema{Name: "in", Fields: []basefile.Field{
		{Name: "n", Type: basefile.Nullable(basefile.Primitive(basefile.KindInt))},
		{Name: "id", Type: basefile.Nullable(basefile.Primitive(basefile.KindString))},
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

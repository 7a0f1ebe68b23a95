package basefile

import (
	"strings"
	"testing"
)

// tripsSchemaJSON is a table schema written as Hudi writes schemas: nullable
// fields as ["null", T] with default null, every type this package supports.
const tripsSchemaJSON = `{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[` +
	`{"name":"id","type":"long"},` +
	`{"name":"rider","type":["null","string"],"default":null},` +
	`{"name":"active","type":["null","boolean"],"default":null},` +
	`{"name":"seats","type":["null","int"],"default":null},` +
	`{"name":"weight","type":["null","float"],"default":null},` +
	`{"name":"fare","type":["null","double"],"default":null},` +
	`{"name":"price","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.trips.trips_record.price","size":5,"logicalType":"decimal","precision":10,"scale":2}],"default":null},` +
	`{"name":"tip","type":["null",{"type":"bytes","logicalType":"decimal","precision":20,"scale":4}],"default":null},` +
	`{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},` +
	`{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},` +
	`{"name":"ts_ms","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},` +
	`{"name":"trip_id","type":["null",{"type":"string","logicalType":"uuid"}],"default":null},` +
	`{"name":"blob","type":["null","bytes"],"default":null},` +
	`{"name":"hash","type":["null",{"type":"fixed","name":"md5","size":16}],"default":null},` +
	`{"name":"kind","type":{"type":"enum","name":"kind","symbols":["CAR","BIKE"]},"doc":"vehicle","default":"CAR"},` +
	`{"name":"stops","type":["null",{"type":"array","items":{"type":"record","name":"stops","namespace":"hoodie.trips.trips_record","fields":[{"name":"lat","type":["null","double"],"default":null},{"name":"lon","type":["null","double"],"default":null}]}}],"default":null},` +
	`{"name":"tags","type":["null",{"type":"array","items":["null","string"]}],"default":null},` +
	`{"name":"scores","type":["null",{"type":"map","values":["null","long"]}],"default":null},` +
	`{"name":"matrix","type":{"type":"array","items":{"type":"array","items":"int"}},"default":[]},` +
	`{"name":"driver","type":["null",{"type":"record","name":"driver","namespace":"hoodie.trips.trips_record","fields":[{"name":"name","type":"string"},{"name":"car","type":["null",{"type":"record","name":"car","namespace":"hoodie.trips.trips_record.driver","fields":[{"name":"plate","type":["null","string"],"default":null}]}],"default":null}]}],"default":null},` +
	`{"name":"backup_hash","type":["null","md5"],"default":null}]}`

func mustParseSchema(t testing.TB, avroJSON string) *Schema {
	t.Helper()
	s, err := ParseSchema([]byte(avroJSON))
	if err != nil {
		t.Fatalf("ParseSchema: %v", err)
	}
	return s
}

func mustMarshal(t testing.TB, s *Schema) string {
	t.Helper()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	return string(b)
}

func TestParseSchemaRoundTripsHudiForm(t *testing.T) {
	s := mustParseSchema(t, tripsSchemaJSON)
	if got := mustMarshal(t, s); got != tripsSchemaJSON {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", got, tripsSchemaJSON)
	}
	if !mustParseSchema(t, mustMarshal(t, s)).Equal(s) {
		t.Error("the emitted JSON parses to a different schema")
	}
}

func TestParseSchemaModel(t *testing.T) {
	s := mustParseSchema(t, tripsSchemaJSON)
	if s.Name != "trips_record" || s.Namespace != "hoodie.trips" || s.FullName() != "hoodie.trips.trips_record" {
		t.Errorf("name %q namespace %q full %q", s.Name, s.Namespace, s.FullName())
	}
	field := func(name string) Field {
		f, ok := s.Field(name)
		if !ok {
			t.Fatalf("no field %q", name)
		}
		return f
	}
	tests := []struct {
		field string
		want  *Type
	}{
		{"id", Primitive(KindLong)},
		{"rider", Nullable(Primitive(KindString))},
		{"price", Nullable(&Type{Kind: KindFixed, Logical: LogicalDecimal, Name: "fixed", Namespace: "hoodie.trips.trips_record.price", Size: 5, Precision: 10, Scale: 2})},
		{"tip", Nullable(DecimalType(20, 4))},
		{"day", Nullable(DateType())},
		{"ts", Nullable(TimestampMicrosType())},
		{"ts_ms", Nullable(TimestampMillisType())},
		{"trip_id", Nullable(UUIDType())},
		{"hash", Nullable(FixedType("md5", 16))},
		{"kind", EnumType("kind", "CAR", "BIKE")},
		{"tags", Nullable(ArrayType(Nullable(Primitive(KindString))))},
		{"scores", Nullable(MapType(Nullable(Primitive(KindLong))))},
		{"matrix", ArrayType(ArrayType(Primitive(KindInt)))},
		// A reference to a named type is a copy of its definition.
		{"backup_hash", Nullable(FixedType("md5", 16))},
	}
	for _, tt := range tests {
		if got := field(tt.field).Type; !got.Equal(tt.want) {
			t.Errorf("field %s: type %+v, want %+v", tt.field, got, tt.want)
		}
	}
	kind := field("kind")
	if kind.Doc == nil || *kind.Doc != "vehicle" || string(kind.Default) != `"CAR"` {
		t.Errorf("kind: doc %v default %s", kind.Doc, kind.Default)
	}
	if f := field("rider"); f.Doc != nil || f.Default != nil {
		t.Errorf("rider: doc %v default %s, want none (nullable fields default to null)", f.Doc, f.Default)
	}
	car := field("driver").Type.Fields[1].Type
	if car.Kind != KindRecord || car.Name != "car" || !car.Nullable || car.Fields[0].Name != "plate" {
		t.Errorf("driver.car = %+v", car)
	}
}

func TestParseSchemaNormalizesToHudiForm(t *testing.T) {
	// Spark's form, as in hoodie.table.create.schema: [T, "null"] unions
	// without defaults, an unknown logical type, a wrapped type, aliases.
	in := `{"type":"record","name":"t_record","namespace":"hoodie.t","aliases":["x"],"fields":[
		{"name":"id","type":["int","null"]},
		{"name":"d","type":[{"type":"int","logicalType":"date"},"null"],"default":5},
		{"name":"tm","type":{"type":"long","logicalType":"time-micros"}},
		{"name":"w","type":{"type":["null","double"]},"order":"ignore"},
		{"name":"n","type":{"type":"null"}, "doc":"bad"}]}`
	if _, err := ParseSchema([]byte(in)); err == nil || !strings.Contains(err.Error(), `field "n"`) {
		t.Fatalf("a lone null type: error %v, want one naming field n", err)
	}
	in = strings.Replace(in, `,
		{"name":"n","type":{"type":"null"}, "doc":"bad"}`, "", 1)
	want := `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[` +
		`{"name":"id","type":["null","int"],"default":null},` +
		`{"name":"d","type":["null",{"type":"int","logicalType":"date"}],"default":null},` +
		`{"name":"tm","type":"long"},` +
		`{"name":"w","type":["null","double"],"default":null}]}`
	if got := mustMarshal(t, mustParseSchema(t, in)); got != want {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", got, want)
	}
}

func TestParseSchemaNamedTypes(t *testing.T) {
	// Names resolve against the enclosing namespace; a second use of a named
	// type is emitted as a reference to it, qualified only when its namespace
	// is not the enclosing one.
	in := `{"type":"record","name":"r","namespace":"a.b","fields":[
		{"name":"x","type":{"type":"fixed","name":"f4","size":4}},
		{"name":"y","type":"f4"},
		{"name":"z","type":["null","a.b.f4"],"default":null},
		{"name":"e","type":{"type":"enum","name":"e","namespace":"c","symbols":["A"]}},
		{"name":"e2","type":"c.e"}]}`
	s := mustParseSchema(t, in)
	if _, err := ParseSchema([]byte(strings.Replace(in, `"name":"f4"`, `"name":"long"`, 1))); err == nil {
		t.Error("a fixed named like a primitive type was accepted")
	}
	want := `{"type":"record","name":"r","namespace":"a.b","fields":[` +
		`{"name":"x","type":{"type":"fixed","name":"f4","size":4}},` +
		`{"name":"y","type":"f4"},` +
		`{"name":"z","type":["null","f4"],"default":null},` +
		`{"name":"e","type":{"type":"enum","name":"e","namespace":"c","symbols":["A"]}},` +
		`{"name":"e2","type":"c.e"}]}`
	if got := mustMarshal(t, s); got != want {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", got, want)
	}
	if y := s.Fields[1].Type; y.Kind != KindFixed || y.Size != 4 || y.Nullable {
		t.Errorf("y = %+v", y)
	}
	if z := s.Fields[2].Type; !z.Nullable || s.Fields[0].Type.Nullable {
		t.Error("making a reference nullable changed the definition")
	}
}

func TestParseSchemaErrors(t *testing.T) {
	rec := func(fields string) string {
		return `{"type":"record","name":"r","fields":[` + fields + `]}`
	}
	tests := []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"not json", `{"type":`, []string{"not valid JSON"}},
		{"not a record", `"string"`, []string{"must be a record", "string"}},
		{"nullable record", `["null",` + rec(`{"name":"a","type":"int"}`) + `]`, []string{"must be a record"}},
		{"unknown type", rec(`{"name":"a","type":{"type":"record","name":"s","fields":[{"name":"b","type":"dobule"}]}}`), []string{`field "a.b"`, `unknown type "dobule"`}},
		{"wide union", rec(`{"name":"a","type":["null","int","string"]}`), []string{`field "a"`, "unsupported union"}},
		{"union of two", rec(`{"name":"a","type":["int","string"]}`), []string{"unsupported union"}},
		{"only null", rec(`{"name":"a","type":["null"]}`), []string{"unsupported union"}},
		{"union in union", rec(`{"name":"a","type":["null",["int"]]}`), []string{"may not hold another union"}},
		{"lone null", rec(`{"name":"a","type":"null"}`), []string{`field "a"`, "only allowed in a union"}},
		{"no type", rec(`{"name":"a"}`), []string{`field "a"`, `without "type"`}},
		{"no name", rec(`{"type":"int"}`), []string{`missing "name"`}},
		{"no fields", `{"type":"record","name":"r"}`, []string{`missing "fields"`}},
		{"empty record", rec(``), []string{"no fields"}},
		{"array without items", rec(`{"name":"a","type":{"type":"array"}}`), []string{`field "a[]"`, `without "items"`}},
		{"bad item", rec(`{"name":"a","type":{"type":"map","values":"nope"}}`), []string{`field "a{}"`, `unknown type "nope"`}},
		{"decimal without precision", rec(`{"name":"a","type":{"type":"bytes","logicalType":"decimal"}}`), []string{`field "a"`, `missing "precision"`}},
		{"decimal scale", rec(`{"name":"a","type":{"type":"bytes","logicalType":"decimal","precision":3,"scale":4}}`), []string{`field "a"`, "scale 4"}},
		{"decimal too wide for fixed", rec(`{"name":"a","type":{"type":"fixed","name":"f","size":2,"logicalType":"decimal","precision":10}}`), []string{"needs 5 bytes"}},
		{"decimal on int", rec(`{"name":"a","type":{"type":"int","logicalType":"decimal","precision":3}}`), []string{"does not apply to int"}},
		{"date on long", rec(`{"name":"a","type":{"type":"long","logicalType":"date"}}`), []string{"date does not apply to long"}},
		{"bad precision", rec(`{"name":"a","type":{"type":"bytes","logicalType":"decimal","precision":"x"}}`), []string{`bad "precision"`}},
		{"duplicate field", rec(`{"name":"a","type":"int"},{"name":"a","type":"long"}`), []string{`duplicate field "a"`}},
		{"bad field name", rec(`{"name":"a-b","type":"int"}`), []string{`invalid field name "a-b"`}},
		{"bad type name", rec(`{"name":"a","type":{"type":"fixed","name":"1f","size":1}}`), []string{`invalid name "1f"`}},
		{"recursive", rec(`{"name":"a","type":["null","r"]}`), []string{`field "a"`, "recursive"}},
		{"defined twice", rec(`{"name":"a","type":{"type":"fixed","name":"f","size":1}},{"name":"b","type":{"type":"fixed","name":"f","size":2}}`), []string{`field "b"`, "defined twice"}},
		{"fixed size", rec(`{"name":"a","type":{"type":"fixed","name":"f","size":0}}`), []string{"size 0"}},
		{"enum symbols", rec(`{"name":"a","type":{"type":"enum","name":"e","symbols":["A","A"]}}`), []string{`duplicate symbol "A"`}},
		{"bad default", rec(`{"name":"a","type":"int","default":}`), []string{"not valid JSON"}},
		{"number as type", rec(`{"name":"a","type":5}`), []string{`field "a"`, "must be a name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSchema([]byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func FuzzParseSchema(f *testing.F) {
	f.Add(tripsSchemaJSON)
	f.Add(`{"type":"record","name":"r","fields":[{"name":"a","type":["int","null"]}]}`)
	f.Add(`{"type":"record","name":"r","namespace":"n","fields":[{"name":"a","type":{"type":"fixed","name":"f","size":3,"logicalType":"decimal","precision":5,"scale":1}},{"name":"b","type":"f"}]}`)
	f.Add(`{"type":"record","name":"r","fields":[{"name":"m","type":{"type":"map","values":{"type":"array","items":{"type":"enum","name":"e","symbols":["X"]}}},"default":{}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSchema([]byte(in))
		if err != nil {
			return
		}
		out := mustMarshal(t, s)
		s2, err := ParseSchema([]byte(out))
		if err != nil {
			t.Fatalf("emitted schema does not parse: %v\n%s", err, out)
		}
		if !s2.Equal(s) {
			t.Fatalf("parse(emit(parse(x))) != parse(x)\n%s", out)
		}
		if out2 := mustMarshal(t, s2); out2 != out {
			t.Fatalf("emission is not stable:\n%s\n%s", out, out2)
		}
	})
}

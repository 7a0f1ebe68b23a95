package basefile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/hoodie-dev/hoodie/storage"
)

func fieldNames(s *Schema) []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

func TestMetaFields(t *testing.T) {
	s := &Schema{Name: "t_record", Namespace: "hoodie.t", Fields: []Field{
		{Name: "id", Type: Primitive(KindLong)},
		{Name: MetaRecordKey, Type: Primitive(KindString)}, // misplaced: moved to the front
		{Name: "name", Type: Nullable(Primitive(KindString))},
	}}
	if s.HasMetaFields() {
		t.Error("HasMetaFields on a schema without them")
	}
	with := s.WithMetaFields()
	want := append(slices.Clone(MetaFieldNames[:]), "id", "name")
	if got := fieldNames(with); !slices.Equal(got, want) {
		t.Fatalf("WithMetaFields fields %v, want %v", got, want)
	}
	if !with.HasMetaFields() {
		t.Error("HasMetaFields is false after WithMetaFields")
	}
	for _, f := range with.Fields[:NumMetaFields] {
		if !f.Type.Equal(Nullable(Primitive(KindString))) || f.Doc == nil || *f.Doc != "" {
			t.Errorf("meta field %s: %+v", f.Name, f)
		}
	}
	if !with.WithMetaFields().Equal(with) {
		t.Error("WithMetaFields is not idempotent")
	}
	without := with.WithoutMetaFields()
	if got := fieldNames(without); !slices.Equal(got, []string{"id", "name"}) {
		t.Errorf("WithoutMetaFields fields %v", got)
	}
	if len(s.Fields) != 3 || s.Fields[1].Name != MetaRecordKey {
		t.Error("WithMetaFields changed its receiver")
	}
	// The meta fields as Hudi writes them in parquet.avro.schema.
	wantJSON := `{"name":"_hoodie_commit_time","type":["null","string"],"doc":"","default":null}`
	if got := mustMarshal(t, with); !strings.Contains(got, wantJSON) {
		t.Errorf("MarshalJSON = %s, missing %s", got, wantJSON)
	}
	for _, name := range MetaFieldNames {
		if !IsMetaField(name) {
			t.Errorf("IsMetaField(%q) = false", name)
		}
	}
	if IsMetaField("id") {
		t.Error(`IsMetaField("id") = true`)
	}
}

func TestFieldLookup(t *testing.T) {
	s := mustParseSchema(t, tripsSchemaJSON)
	if i := s.FieldIndex("fare"); i != 5 {
		t.Errorf("FieldIndex(fare) = %d", i)
	}
	if i := s.FieldIndex("nope"); i != -1 {
		t.Errorf("FieldIndex(nope) = %d", i)
	}
	if f, ok := s.Field("ts"); !ok || f.Type.Logical != LogicalTimestampMicros {
		t.Errorf("Field(ts) = %+v, %v", f, ok)
	}
	if _, ok := s.Field("nope"); ok {
		t.Error("Field(nope) found")
	}
}

func TestSchemaBuiltInGo(t *testing.T) {
	s := &Schema{Name: "t_record", Namespace: "hoodie.t", Fields: []Field{
		{Name: "id", Type: Primitive(KindLong)},
		{Name: "price", Type: Nullable(FixedDecimalType("fixed", 5, 10, 2))},
		{Name: "tags", Type: Nullable(ArrayType(Primitive(KindString)))},
		{Name: "attrs", Type: MapType(Nullable(DateType()))},
		{Name: "kind", Type: EnumType("kind", "A", "B"), Default: []byte(`"A"`)},
		{Name: "loc", Type: Nullable(RecordType("loc", Field{Name: "lat", Type: Primitive(KindDouble)}))},
	}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[` +
		`{"name":"id","type":"long"},` +
		`{"name":"price","type":["null",{"type":"fixed","name":"fixed","size":5,"logicalType":"decimal","precision":10,"scale":2}],"default":null},` +
		`{"name":"tags","type":["null",{"type":"array","items":"string"}],"default":null},` +
		`{"name":"attrs","type":{"type":"map","values":["null",{"type":"int","logicalType":"date"}]}},` +
		`{"name":"kind","type":{"type":"enum","name":"kind","symbols":["A","B"]},"default":"A"},` +
		`{"name":"loc","type":["null",{"type":"record","name":"loc","fields":[{"name":"lat","type":"double"}]}],"default":null}]}`
	got := mustMarshal(t, s)
	if got != want {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", got, want)
	}
	if !mustParseSchema(t, got).Equal(s) {
		t.Error("the emitted JSON parses to a different schema")
	}
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name string
		f    Field
		want string
	}{
		{"missing type", Field{Name: "a"}, `field "a": missing type`},
		{"missing items", Field{Name: "a", Type: &Type{Kind: KindArray}}, `field "a[]": missing type`},
		{"bad kind", Field{Name: "a", Type: &Type{Kind: 99}}, "unknown kind 99"},
		{"bad logical", Field{Name: "a", Type: &Type{Kind: KindLong, Logical: LogicalDate}}, "date does not apply to long"},
		{"decimal precision", Field{Name: "a", Type: DecimalType(0, 0)}, "precision 0"},
		{"nested name", Field{Name: "a", Type: RecordType("inner", Field{Name: "b c", Type: Primitive(KindInt)})}, `invalid field name "b c"`},
		{"primitive name", Field{Name: "a", Type: FixedType("string", 3)}, `invalid name "string"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Schema{Name: "r", Fields: []Field{tt.f}}
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.want)
			}
			if _, err := s.MarshalJSON(); err == nil {
				t.Error("MarshalJSON of an invalid schema succeeded")
			}
			if _, err := s.AppendRow(nil, []any{nil}); err == nil {
				t.Error("AppendRow with an invalid schema succeeded")
			}
		})
	}
	deep := Nullable(Primitive(KindInt))
	for range 300 {
		deep = Nullable(ArrayType(deep))
	}
	if err := (&Schema{Name: "r", Fields: []Field{{Name: "a", Type: deep}}}).Validate(); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("Validate() of a deep schema = %v", err)
	}
	recursive := &Type{Kind: KindRecord, Name: "node"}
	recursive.Fields = []Field{{Name: "next", Type: recursive}}
	s := &Schema{Name: "r", Fields: []Field{{Name: "head", Type: recursive}}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Errorf("Validate() of a recursive type = %v", err)
	}
}

// tripsParquetSchema is the Parquet schema parquet-avro gives tripsSchemaJSON
// with meta fields.
const tripsParquetSchema = `message hoodie.trips.trips_record {
	optional binary _hoodie_commit_time (STRING);
	optional binary _hoodie_commit_seqno (STRING);
	optional binary _hoodie_record_key (STRING);
	optional binary _hoodie_partition_path (STRING);
	optional binary _hoodie_file_name (STRING);
	required int64 id (INT(64,true));
	optional binary rider (STRING);
	optional boolean active;
	optional int32 seats (INT(32,true));
	optional float weight;
	optional double fare;
	optional fixed_len_byte_array(5) price (DECIMAL(10,2));
	optional binary tip (DECIMAL(20,4));
	optional int32 day (DATE);
	optional int64 ts (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));
	optional int64 ts_ms (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));
	optional binary trip_id (STRING);
	optional binary blob;
	optional fixed_len_byte_array(16) hash;
	required binary kind (ENUM);
	optional group stops (LIST) {
		repeated group array {
			optional double lat;
			optional double lon;
		}
	}
	optional group tags (LIST) {
		repeated binary array (STRING);
	}
	optional group scores (MAP) {
		repeated group key_value {
			required binary key (STRING);
			optional int64 value (INT(64,true));
		}
	}
	required group matrix (LIST) {
		repeated group array (LIST) {
			repeated int32 array (INT(32,true));
		}
	}
	optional group driver {
		required binary name (STRING);
		optional group car {
			optional binary plate (STRING);
		}
	}
	optional fixed_len_byte_array(16) backup_hash;
}`

func TestParquetSchema(t *testing.T) {
	ps, err := mustParseSchema(t, tripsSchemaJSON).WithMetaFields().ParquetSchema()
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.String(); got != tripsParquetSchema {
		t.Errorf("ParquetSchema() =\n%s\nwant\n%s", got, tripsParquetSchema)
	}
}

func TestSchemaFromParquetOfParquetSchema(t *testing.T) {
	// Deriving a schema back from the Parquet form gives the same types, with
	// records and fixed types named as Spark names them.
	in := `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[
		{"name":"id","type":"long"},
		{"name":"price","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.t.t_record.price","size":5,"logicalType":"decimal","precision":10,"scale":2}],"default":null},
		{"name":"tip","type":["null",{"type":"bytes","logicalType":"decimal","precision":20,"scale":4}],"default":null},
		{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"raw","type":{"type":"fixed","name":"fixed","namespace":"hoodie.t.t_record.raw","size":3}},
		{"name":"stops","type":["null",{"type":"array","items":{"type":"record","name":"stops","namespace":"hoodie.t.t_record","fields":[{"name":"lat","type":["null","double"],"default":null}]}}],"default":null},
		{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"scores","type":["null",{"type":"map","values":["null",{"type":"array","items":"int"}]}],"default":null},
		{"name":"driver","type":["null",{"type":"record","name":"driver","namespace":"hoodie.t.t_record","fields":[{"name":"name","type":"string"},{"name":"car","type":["null",{"type":"record","name":"car","namespace":"hoodie.t.t_record.driver","fields":[{"name":"plate","type":["null","boolean"],"default":null}]}],"default":null}]}],"default":null}]}`
	s := mustParseSchema(t, in)
	ps, err := s.ParquetSchema()
	if err != nil {
		t.Fatal(err)
	}
	got, err := SchemaFromParquet(ps)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(s) {
		t.Errorf("SchemaFromParquet =\n%s\nwant\n%s", mustMarshal(t, got), mustMarshal(t, s))
	}
}

// sparkRow is a row as parquet-go writes a Go struct: three-level lists,
// INT(8)/INT(16) columns, decimals in INT32/INT64, a UUID, INT96 and
// millisecond timestamps. It stands for files written without parquet-avro.
type sparkRow struct {
	ID     int64             `parquet:"id"`
	Name   *string           `parquet:"name,optional"`
	Small  int8              `parquet:"small"`
	Short  int16             `parquet:"short"`
	Tags   []string          `parquet:"tags,list"`
	Nums   []*int32          `parquet:"nums,optional,list"`
	Attrs  map[string]string `parquet:"attrs"`
	Day    int32             `parquet:"day,date"`
	TsMs   time.Time         `parquet:"ts_ms,timestamp(millisecond)"`
	Legacy deprecated.Int96  `parquet:"legacy"`
	Dec32  int32             `parquet:"dec32,decimal(2:7)"`
	Dec64  int64             `parquet:"dec64,decimal(3:15)"`
	UUID   [16]byte          `parquet:"uuid,uuid"`
	Sub    *struct {
		A float32 `parquet:"a"`
	} `parquet:"sub,optional"`
}

func TestSchemaFromParquetFile(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "spark.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	name := "Bob"
	seven := int32(7)
	rows := []sparkRow{{
		ID: 1, Name: &name, Small: -3, Short: 300, Tags: []string{"a", "b"}, Nums: []*int32{&seven, nil},
		Attrs: map[string]string{"k": "v"}, Day: 19448, TsMs: time.UnixMilli(1680368460123), Legacy: deprecated.Int96{1e9 + 1500, 0, julianUnixEpoch + 1},
		Dec32: 12345, Dec64: -5, UUID: [16]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00},
		Sub: &struct {
			A float32 `parquet:"a"`
		}{A: 1.5},
	}, {ID: 2}}
	w := parquet.NewGenericWriter[sparkRow](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := Open(t.Context(), fsys, "spark.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	want := `{"type":"record","name":"sparkRow","fields":[` +
		`{"name":"id","type":"long"},` +
		`{"name":"name","type":["null","string"],"default":null},` +
		`{"name":"small","type":"int"},` +
		`{"name":"short","type":"int"},` +
		`{"name":"tags","type":{"type":"array","items":"string"}},` +
		`{"name":"nums","type":["null",{"type":"array","items":["null","int"]}],"default":null},` +
		`{"name":"attrs","type":{"type":"map","values":"string"}},` +
		`{"name":"day","type":{"type":"int","logicalType":"date"}},` +
		`{"name":"ts_ms","type":{"type":"long","logicalType":"timestamp-millis"}},` +
		`{"name":"legacy","type":{"type":"long","logicalType":"timestamp-micros"}},` +
		`{"name":"dec32","type":{"type":"fixed","name":"fixed","namespace":"sparkRow.dec32","size":4,"logicalType":"decimal","precision":7,"scale":2}},` +
		`{"name":"dec64","type":{"type":"fixed","name":"fixed","namespace":"sparkRow.dec64","size":7,"logicalType":"decimal","precision":15,"scale":3}},` +
		`{"name":"uuid","type":{"type":"string","logicalType":"uuid"}},` +
		`{"name":"sub","type":["null",{"type":"record","name":"sub","namespace":"sparkRow","fields":[{"name":"a","type":"float"}]}],"default":null}]}`
	if got := mustMarshal(t, bf.Schema()); got != want {
		t.Fatalf("schema =\n%s\nwant\n%s", got, want)
	}
	got := readAllValues(t, bf)
	wantRows := [][]any{
		{int64(1), "Bob", int32(-3), int32(300), []any{"a", "b"}, []any{int32(7), nil}, map[string]any{"k": "v"},
			Date(19448), time.UnixMilli(1680368460123).UTC(), time.Unix(secondsPerDay+1, 1500).UTC(), // INT96 keeps its nanoseconds
			NewDecimalInt64(12345, 2), NewDecimalInt64(-5, 3), "123e4567-e89b-12d3-a456-426614174000", []any{float32(1.5)}},
		{int64(2), nil, int32(0), int32(0), []any{}, nil, map[string]any{},
			Date(0), time.Time{}, time.Unix(-julianUnixEpoch*secondsPerDay, 0).UTC(),
			NewDecimalInt64(0, 2), NewDecimalInt64(0, 3), "00000000-0000-0000-0000-000000000000", nil},
	}
	assertRowsEqual(t, got, wantRows)
}

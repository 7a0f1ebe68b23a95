package basefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// The five Hudi meta fields, in the order Hudi writes them at the front of
// every base file's schema.
const (
	MetaCommitTime    = "_hoodie_commit_time"
	MetaCommitSeqNo   = "_hoodie_commit_seqno"
	MetaRecordKey     = "_hoodie_record_key"
	MetaPartitionPath = "_hoodie_partition_path"
	MetaFileName      = "_hoodie_file_name"
)

// MetaFieldNames lists the meta fields in order. Index i of a row written
// with a schema from WithMetaFields holds the value of MetaFieldNames[i].
var MetaFieldNames = [...]string{MetaCommitTime, MetaCommitSeqNo, MetaRecordKey, MetaPartitionPath, MetaFileName}

// NumMetaFields is the number of Hudi meta fields.
const NumMetaFields = len(MetaFieldNames)

// Positions of the meta fields in a row with meta fields (see
// MetaFieldNames). Being first and flat, the meta fields' positions are also
// their leaf columns in Parquet rows.
const (
	MetaCommitTimePos = iota
	MetaSeqNoPos
	MetaRecordKeyPos
	MetaPartitionPathPos
	MetaFileNamePos
)

// IsDeletedField is the column Hudi deletes records by: an upsert of a
// record in which it is true deletes the record's key. It is a boolean; a
// column of it that holds only nulls is inferred as one.
const IsDeletedField = "_hoodie_is_deleted"

// IsMetaField reports whether name is one of the five Hudi meta fields.
func IsMetaField(name string) bool {
	return slices.Contains(MetaFieldNames[:], name)
}

// Kind is the Avro type of a schema node, without its logical type.
type Kind uint8

// The Avro kinds a table schema may use. A lone "null" is not a kind: null
// only appears in a nullable union, which sets Type.Nullable.
const (
	KindBoolean Kind = iota + 1
	KindInt
	KindLong
	KindFloat
	KindDouble
	KindString
	KindBytes
	KindFixed
	KindEnum
	KindRecord
	KindArray
	KindMap
)

var kindNames = [...]string{
	KindBoolean: "boolean",
	KindInt:     "int",
	KindLong:    "long",
	KindFloat:   "float",
	KindDouble:  "double",
	KindString:  "string",
	KindBytes:   "bytes",
	KindFixed:   "fixed",
	KindEnum:    "enum",
	KindRecord:  "record",
	KindArray:   "array",
	KindMap:     "map",
}

// String returns the Avro name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Logical is an Avro logical type annotating a Kind.
type Logical uint8

// The logical types a table schema may use. Avro logical types not listed
// here are ignored when parsing, as the Avro specification asks.
const (
	LogicalNone Logical = iota
	// LogicalDecimal annotates bytes or fixed with Precision and Scale.
	LogicalDecimal
	// LogicalDate annotates int: days since 1970-01-01.
	LogicalDate
	// LogicalTimestampMicros annotates long: microseconds since the Unix epoch, UTC.
	LogicalTimestampMicros
	// LogicalTimestampMillis annotates long: milliseconds since the Unix epoch, UTC.
	LogicalTimestampMillis
	// LogicalUUID annotates string.
	LogicalUUID
)

var logicalNames = [...]string{
	LogicalNone:            "",
	LogicalDecimal:         "decimal",
	LogicalDate:            "date",
	LogicalTimestampMicros: "timestamp-micros",
	LogicalTimestampMillis: "timestamp-millis",
	LogicalUUID:            "uuid",
}

// String returns the Avro name of the logical type ("" for LogicalNone).
func (l Logical) String() string {
	if int(l) < len(logicalNames) {
		return logicalNames[l]
	}
	return fmt.Sprintf("Logical(%d)", l)
}

// Type is an Avro type. Which fields matter depends on Kind and Logical;
// the others stay zero. Types are values to build and read; a Type reachable
// from a Schema must not change once the Schema is in use.
type Type struct {
	Kind    Kind
	Logical Logical
	// Nullable marks the union of null and this type (["null", T]).
	Nullable bool

	// Name, Namespace and Doc describe named types (record, enum, fixed).
	// Name may be a full name holding dots; Namespace is then ignored.
	Name      string
	Namespace string
	Doc       string

	// Size is the length of a fixed type in bytes.
	Size int
	// Precision and Scale describe a decimal.
	Precision int
	Scale     int
	// Symbols are the values of an enum.
	Symbols []string
	// Fields are the fields of a record.
	Fields []Field
	// Items is the element type of an array.
	Items *Type
	// Values is the value type of a map (keys are strings).
	Values *Type
}

// Field is a field of a record.
type Field struct {
	Name string
	Type *Type
	// Doc is the field's documentation; nil means none, which differs from
	// an empty doc in the emitted JSON (Hudi gives its meta fields "doc": "").
	Doc *string
	// Default is the field's default value as compact JSON, nil for none.
	// Nullable fields ignore it: they always default to null.
	Default json.RawMessage
}

// Primitive returns a non-null type of a kind that needs no other
// attributes: boolean, int, long, float, double, string or bytes.
func Primitive(kind Kind) *Type { return &Type{Kind: kind} }

// DecimalType returns a decimal stored as bytes.
func DecimalType(precision, scale int) *Type {
	return &Type{Kind: KindBytes, Logical: LogicalDecimal, Precision: precision, Scale: scale}
}

// FixedDecimalType returns a decimal stored as a fixed of size bytes, the
// form Spark gives decimals; name is the fixed type's name.
func FixedDecimalType(name string, size, precision, scale int) *Type {
	return &Type{Kind: KindFixed, Logical: LogicalDecimal, Name: name, Size: size, Precision: precision, Scale: scale}
}

// DateType returns the date type (int days since 1970-01-01).
func DateType() *Type { return &Type{Kind: KindInt, Logical: LogicalDate} }

// TimestampMicrosType returns the timestamp-micros type.
func TimestampMicrosType() *Type { return &Type{Kind: KindLong, Logical: LogicalTimestampMicros} }

// TimestampMillisType returns the timestamp-millis type.
func TimestampMillisType() *Type { return &Type{Kind: KindLong, Logical: LogicalTimestampMillis} }

// UUIDType returns the uuid type (a string).
func UUIDType() *Type { return &Type{Kind: KindString, Logical: LogicalUUID} }

// FixedType returns a fixed type of size bytes.
func FixedType(name string, size int) *Type { return &Type{Kind: KindFixed, Name: name, Size: size} }

// EnumType returns an enum type.
func EnumType(name string, symbols ...string) *Type {
	return &Type{Kind: KindEnum, Name: name, Symbols: symbols}
}

// ArrayType returns an array of items.
func ArrayType(items *Type) *Type { return &Type{Kind: KindArray, Items: items} }

// MapType returns a map from strings to values.
func MapType(values *Type) *Type { return &Type{Kind: KindMap, Values: values} }

// RecordType returns a record type.
func RecordType(name string, fields ...Field) *Type {
	return &Type{Kind: KindRecord, Name: name, Fields: fields}
}

// Nullable returns a copy of t that also admits null.
func Nullable(t *Type) *Type {
	c := *t
	c.Nullable = true
	return &c
}

// Equal reports whether t and u describe the same type, names and docs
// included.
func (t *Type) Equal(u *Type) bool {
	if t == nil || u == nil {
		return t == u
	}
	if t.Kind != u.Kind || t.Logical != u.Logical || t.Nullable != u.Nullable ||
		t.Name != u.Name || t.Namespace != u.Namespace || t.Doc != u.Doc ||
		t.Size != u.Size || t.Precision != u.Precision || t.Scale != u.Scale ||
		!slices.Equal(t.Symbols, u.Symbols) || !t.Items.Equal(u.Items) || !t.Values.Equal(u.Values) {
		return false
	}
	return fieldsEqual(t.Fields, u.Fields)
}

func fieldsEqual(a, b []Field) bool {
	return slices.EqualFunc(a, b, func(f, g Field) bool {
		return f.Name == g.Name && f.Type.Equal(g.Type) &&
			(f.Doc == nil) == (g.Doc == nil) && (f.Doc == nil || *f.Doc == *g.Doc) &&
			bytes.Equal(f.Default, g.Default)
	})
}

// Schema is a table schema: an Avro record. Build one with ParseSchema,
// SchemaFromParquet or a struct literal; once in use (converted, written,
// compared) it must not change. Compare schemas with Equal.
type Schema struct {
	// Name and Namespace make the record's full name; Hudi uses
	// "<table>_record" and "hoodie.<table>".
	Name      string
	Namespace string
	Doc       string
	Fields    []Field

	compileOnce sync.Once
	compiled    *compiledSchema
	compileErr  error
}

// compiledSchema is what a Schema derives once: its Parquet form and the plan
// converting rows to and from it.
type compiledSchema struct {
	parquet *parquet.Schema
	plan    *rowPlan

	columnarOnce sync.Once
	columnar     *columnarLayout // see columnarLayoutOf
	columnarErr  error
}

// compile checks the schema and derives its Parquet form once.
func (s *Schema) compile() (*compiledSchema, error) {
	s.compileOnce.Do(func() {
		s.compiled, s.compileErr = compileSchema(s)
	})
	return s.compiled, s.compileErr
}

// Validate reports the first problem that makes s unusable: a bad name, a
// missing type, a decimal that does not fit, a union Parquet cannot hold...
func (s *Schema) Validate() error {
	_, err := s.compile()
	return err
}

// FullName returns the record's full name, "namespace.name".
func (s *Schema) FullName() string {
	return FullName(s.Name, s.Namespace, "")
}

// recordType returns s as a record Type (sharing its fields).
func (s *Schema) recordType() *Type {
	return &Type{Kind: KindRecord, Name: s.Name, Namespace: s.Namespace, Doc: s.Doc, Fields: s.Fields}
}

// FieldIndex returns the position of the top-level field name, or -1.
func (s *Schema) FieldIndex(name string) int {
	return slices.IndexFunc(s.Fields, func(f Field) bool { return f.Name == name })
}

// Field returns the top-level field name.
func (s *Schema) Field(name string) (Field, bool) {
	if i := s.FieldIndex(name); i >= 0 {
		return s.Fields[i], true
	}
	return Field{}, false
}

// Equal reports whether s and o describe the same record, names, docs and
// field order included.
func (s *Schema) Equal(o *Schema) bool {
	if s == nil || o == nil {
		return s == o
	}
	return s.Name == o.Name && s.Namespace == o.Namespace && s.Doc == o.Doc && fieldsEqual(s.Fields, o.Fields)
}

// HasMetaFields reports whether the schema starts with the five Hudi meta
// fields in order.
func (s *Schema) HasMetaFields() bool {
	if len(s.Fields) < NumMetaFields {
		return false
	}
	for i, name := range MetaFieldNames {
		if s.Fields[i].Name != name {
			return false
		}
	}
	return true
}

// WithMetaFields returns a schema with the five Hudi meta fields first, each
// a nullable string with default null and an empty doc as Hudi writes them,
// followed by the fields of s other than meta fields.
func (s *Schema) WithMetaFields() *Schema {
	fields := make([]Field, 0, NumMetaFields+len(s.Fields))
	for _, name := range MetaFieldNames {
		fields = append(fields, Field{Name: name, Type: Nullable(Primitive(KindString)), Doc: new(string)})
	}
	return s.withFields(append(fields, s.dataFields()...))
}

// WithoutMetaFields returns a schema holding the fields of s other than the
// Hudi meta fields.
func (s *Schema) WithoutMetaFields() *Schema {
	return s.withFields(s.dataFields())
}

// Select returns a schema holding the fields of s named in names, in the
// order of s; names it lacks are ignored.
func (s *Schema) Select(names []string) *Schema {
	fields := make([]Field, 0, len(names))
	for _, f := range s.Fields {
		if slices.Contains(names, f.Name) {
			fields = append(fields, f)
		}
	}
	return s.withFields(fields)
}

func (s *Schema) dataFields() []Field {
	fields := make([]Field, 0, len(s.Fields))
	for _, f := range s.Fields {
		if !IsMetaField(f.Name) {
			fields = append(fields, f)
		}
	}
	return fields
}

func (s *Schema) withFields(fields []Field) *Schema {
	return &Schema{Name: s.Name, Namespace: s.Namespace, Doc: s.Doc, Fields: fields}
}

// FullName resolves an Avro name against its namespace attribute and the
// enclosing namespace, as the Avro specification does: a name holding a dot
// is full already; otherwise namespace, or else enclosing, comes before it.
func FullName(name, namespace, enclosing string) string {
	switch {
	case strings.Contains(name, "."):
		return name
	case namespace != "":
		return namespace + "." + name
	case enclosing != "":
		return enclosing + "." + name
	default:
		return name
	}
}

// NamespaceOf returns the namespace part of a full name: what comes before
// its last dot, or "" if it has none.
func NamespaceOf(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i]
	}
	return ""
}

// ValidName reports whether s is an Avro name: a letter or underscore, then
// letters, digits and underscores.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// validFullName reports whether s is a dot-separated sequence of Avro names.
func validFullName(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !ValidName(part) {
			return false
		}
	}
	return true
}

// WideningRank is t's place on the chain schema evolution widens numbers
// along, int -> long -> float -> double, from 1; 0 for any other type, a
// decimal included.
func WideningRank(t *Type) int {
	if t.Logical != LogicalNone {
		return 0
	}
	switch t.Kind {
	case KindInt:
		return 1
	case KindLong:
		return 2
	case KindFloat:
		return 3
	case KindDouble:
		return 4
	}
	return 0
}

// Widens reports whether a column of type from widens to type to along
// that chain.
func Widens(from, to *Type) bool {
	rf := WideningRank(from)
	return rf > 0 && rf < WideningRank(to)
}

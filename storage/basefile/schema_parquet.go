package basefile

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// ParquetSchema returns the Parquet schema parquet-avro (and so Spark's Hudi
// writer) gives s: nullable fields optional, the others required, fields in
// Avro order, arrays as two-level lists, and the message named after the
// record's full name.
func (s *Schema) ParquetSchema() (*parquet.Schema, error) {
	c, err := s.compile()
	if err != nil {
		return nil, err
	}
	return c.parquet, nil
}

func compileSchema(s *Schema) (*compiledSchema, error) {
	root := s.recordType()
	v := schemaValidator{named: map[string]*Type{}, active: map[string]bool{}}
	if err := v.check(root, "", ""); err != nil {
		return nil, fmt.Errorf("storage: schema %q: %w", s.FullName(), err)
	}
	group := parquetGroup(root)
	plan, err := compilePlan(root, group)
	if err != nil {
		return nil, fmt.Errorf("storage: schema %q: %w", s.FullName(), err)
	}
	return &compiledSchema{parquet: parquet.NewSchema(s.FullName(), group), plan: plan}, nil
}

// maxDecimalPrecision bounds decimal precision; Spark's limit is 38.
const maxDecimalPrecision = 1000

// maxCompactDecimalPrecision is the largest precision Spark stores in an
// INT32 or INT64 and whose BINARY form its vectorized reader refuses.
const maxCompactDecimalPrecision = 18

// schemaValidator checks a type tree. named holds named types by full name;
// active the records being checked, to find recursion.
type schemaValidator struct {
	named  map[string]*Type
	active map[string]bool
}

func (v *schemaValidator) check(t *Type, enclosing, path string) error {
	if t == nil {
		return pathError(path, errors.New("missing type"))
	}
	switch t.Kind {
	case KindRecord, KindEnum, KindFixed:
		full := FullName(t.Name, t.Namespace, enclosing)
		_, primitive := primitiveKinds[lastName(full)]
		if !validFullName(t.Name) || t.Namespace != "" && !validFullName(t.Namespace) || primitive || lastName(full) == "null" {
			return pathError(path, fmt.Errorf("%s has an invalid name %q", t.Kind, full))
		}
		if v.active[full] {
			return pathError(path, fmt.Errorf("recursive type %q cannot be stored in Parquet", full))
		}
		if prev, ok := v.named[full]; ok {
			if !SameDefinition(prev, t) {
				return pathError(path, fmt.Errorf("type %q is defined twice, differently", full))
			}
			return nil
		}
		v.named[full] = t
		enclosing = NamespaceOf(full)
	}
	if err := v.checkKind(t, enclosing, path); err != nil {
		return err
	}
	return checkLogical(t, path)
}

// SameDefinition reports whether a and b describe the same type but for
// their nullability.
func SameDefinition(a, b *Type) bool {
	x, y := *a, *b
	x.Nullable, y.Nullable = false, false
	return x.Equal(&y)
}

func (v *schemaValidator) checkKind(t *Type, enclosing, path string) error {
	switch t.Kind {
	case KindBoolean, KindInt, KindLong, KindFloat, KindDouble, KindString, KindBytes:
	case KindFixed:
		if t.Size < 1 {
			return pathError(path, fmt.Errorf("fixed %q has size %d", t.Name, t.Size))
		}
	case KindEnum:
		if len(t.Symbols) == 0 {
			return pathError(path, fmt.Errorf("enum %q has no symbols", t.Name))
		}
		if err := checkNames(t.Symbols, "symbol"); err != nil {
			return pathError(path, fmt.Errorf("enum %q: %w", t.Name, err))
		}
	case KindRecord:
		if len(t.Fields) == 0 {
			return pathError(path, fmt.Errorf("record %q has no fields, which Parquet cannot store", t.Name))
		}
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			names[i] = f.Name
		}
		if err := checkNames(names, "field"); err != nil {
			return pathError(path, fmt.Errorf("record %q: %w", t.Name, err))
		}
		full := FullName(t.Name, t.Namespace, enclosing)
		v.active[full] = true
		for _, f := range t.Fields {
			if err := v.check(f.Type, enclosing, joinPath(path, f.Name)); err != nil {
				return err
			}
		}
		delete(v.active, full)
	case KindArray:
		return v.check(t.Items, enclosing, path+"[]")
	case KindMap:
		return v.check(t.Values, enclosing, path+"{}")
	default:
		return pathError(path, fmt.Errorf("unknown kind %d", t.Kind))
	}
	return nil
}

// checkNames checks that names are valid Avro names, each used once.
func checkNames(names []string, what string) error {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if !ValidName(n) {
			return fmt.Errorf("invalid %s name %q", what, n)
		}
		if seen[n] {
			return fmt.Errorf("duplicate %s %q", what, n)
		}
		seen[n] = true
	}
	return nil
}

func checkLogical(t *Type, path string) error {
	var want Kind
	switch t.Logical {
	case LogicalNone:
		return nil
	case LogicalDecimal:
		return checkDecimal(t, path)
	case LogicalDate:
		want = KindInt
	case LogicalTimestampMicros, LogicalTimestampMillis:
		want = KindLong
	case LogicalUUID:
		want = KindString
	default:
		return pathError(path, fmt.Errorf("unknown logical type %d", t.Logical))
	}
	if t.Kind != want {
		return pathError(path, fmt.Errorf("logical type %s does not apply to %s", t.Logical, t.Kind))
	}
	return nil
}

func checkDecimal(t *Type, path string) error {
	switch {
	case t.Kind != KindBytes && t.Kind != KindFixed:
		return pathError(path, fmt.Errorf("logical type decimal does not apply to %s", t.Kind))
	case t.Precision < 1 || t.Precision > maxDecimalPrecision:
		return pathError(path, fmt.Errorf("decimal precision %d is not in [1, %d]", t.Precision, maxDecimalPrecision))
	case t.Scale < 0 || t.Scale > t.Precision:
		return pathError(path, fmt.Errorf("decimal scale %d is not in [0, precision %d]", t.Scale, t.Precision))
	case t.Kind == KindFixed && decimalBytes(t.Precision) > t.Size:
		return pathError(path, fmt.Errorf("decimal(%d,%d) needs %d bytes, more than fixed size %d", t.Precision, t.Scale, decimalBytes(t.Precision), t.Size))
	}
	return nil
}

// decimalBytes returns the fewest bytes holding every unscaled value of a
// decimal of the given precision in two's complement, as Spark sizes fixed
// decimals.
func decimalBytes(precision int) int {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	// The largest unscaled value is limit-1; it needs BitLen bits plus a sign.
	return (limit.Sub(limit, big.NewInt(1)).BitLen() + 1 + 7) / 8
}

// The logical types of Parquet groups, borrowed from parquet-go's own nodes.
var (
	parquetGroupType = parquet.Group{}.Type()
	parquetListType  = parquet.List(parquet.Leaf(parquet.BooleanType)).Type()
	parquetMapType   = parquet.Map(parquet.String(), parquet.String()).Type()
)

// parquetGroup returns the Parquet group of a record.
func parquetGroup(t *Type) *groupNode {
	fields := make([]parquet.Field, len(t.Fields))
	for i, f := range t.Fields {
		node := parquetField(f.Type)
		if dictionaryMetaFields[f.Name] && f.Type.Kind == KindString {
			node = parquet.Encoded(node, &parquet.RLEDictionary)
		}
		fields[i] = &fieldNode{Node: node, name: f.Name}
	}
	return &groupNode{typ: parquetGroupType, fields: fields}
}

// dictionaryMetaFields are the meta fields that hold a handful of distinct
// values per file (one file name, one partition, a few commit times):
// dictionary encoding shrinks them to almost nothing, and spares the
// compressor the work of squeezing the same string a million times.
var dictionaryMetaFields = map[string]bool{
	MetaCommitTime:    true,
	MetaPartitionPath: true,
	MetaFileName:      true,
}

// parquetField returns the Parquet node of a field or map value of type t:
// optional when nullable, required otherwise.
func parquetField(t *Type) parquet.Node {
	if t.Nullable {
		return parquet.Optional(parquetNode(t))
	}
	return parquet.Required(parquetNode(t))
}

// parquetNode returns the Parquet node of t, before repetition, as
// parquet-avro's AvroSchemaConverter builds it.
func parquetNode(t *Type) parquet.Node {
	switch t.Kind {
	case KindBoolean:
		return parquet.Leaf(parquet.BooleanType)
	case KindInt:
		if t.Logical == LogicalDate {
			return parquet.Date()
		}
		return parquet.Leaf(parquet.Int32Type)
	case KindLong:
		switch t.Logical {
		case LogicalTimestampMicros:
			return parquet.Timestamp(parquet.Microsecond)
		case LogicalTimestampMillis:
			return parquet.Timestamp(parquet.Millisecond)
		}
		return parquet.Leaf(parquet.Int64Type)
	case KindFloat:
		return parquet.Leaf(parquet.FloatType)
	case KindDouble:
		return parquet.Leaf(parquet.DoubleType)
	case KindString:
		return parquet.String()
	case KindEnum:
		return parquet.Enum()
	case KindBytes:
		if t.Logical == LogicalDecimal {
			if t.Precision <= maxCompactDecimalPrecision {
				// Spark's vectorized reader refuses BINARY decimals of at
				// most 18 digits (it wants INT32, INT64 or a fixed), and
				// Hudi's writers never make them: Spark's schema turns
				// every decimal into an Avro fixed. A fixed of Spark's
				// size is what Hudi writes and every reader takes.
				return parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(decimalBytes(t.Precision)))
			}
			// PLAIN whatever the string encoding: DuckDB, for one, reads
			// DELTA_LENGTH_BYTE_ARRAY strings and blobs only.
			return parquet.Encoded(parquet.Decimal(t.Scale, t.Precision, parquet.ByteArrayType), &parquet.Plain)
		}
		return parquet.Leaf(parquet.ByteArrayType)
	case KindFixed:
		if t.Logical == LogicalDecimal {
			return parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(t.Size))
		}
		return parquet.Leaf(parquet.FixedLenByteArrayType(t.Size))
	case KindRecord:
		return parquetGroup(t)
	case KindArray:
		// parquet-avro's two-level list: the repeated field is the element,
		// named "array", and cannot hold nulls.
		return &groupNode{typ: parquetListType, fields: []parquet.Field{
			&fieldNode{Node: parquet.Repeated(parquetNode(t.Items)), name: "array"},
		}}
	default: // KindMap, as checked by the validator
		keyValue := &groupNode{typ: parquetGroupType, fields: []parquet.Field{
			&fieldNode{Node: parquet.Required(parquet.String()), name: "key"},
			&fieldNode{Node: parquetField(t.Values), name: "value"},
		}}
		return &groupNode{typ: parquetMapType, fields: []parquet.Field{
			&fieldNode{Node: parquet.Repeated(keyValue), name: "key_value"},
		}}
	}
}

// groupNode is a Parquet group that keeps its fields in the given order
// (parquet.Group sorts them by name), with the logical type of a plain group,
// a LIST or a MAP.
type groupNode struct {
	typ    parquet.Type
	fields []parquet.Field
}

func (g *groupNode) ID() int                     { return 0 }
func (g *groupNode) Type() parquet.Type          { return g.typ }
func (g *groupNode) Optional() bool              { return false }
func (g *groupNode) Repeated() bool              { return false }
func (g *groupNode) Required() bool              { return true }
func (g *groupNode) Leaf() bool                  { return false }
func (g *groupNode) Fields() []parquet.Field     { return g.fields }
func (g *groupNode) Encoding() encoding.Encoding { return nil }
func (g *groupNode) Compression() compress.Codec { return nil }

func (g *groupNode) String() string {
	var b strings.Builder
	_ = parquet.PrintSchema(&b, "", g) // a strings.Builder does not fail
	return b.String()
}

// GoType returns the struct type parquet-go would map the group to. Rows of
// these schemas are built as parquet.Row, never through reflection.
func (g *groupNode) GoType() reflect.Type {
	m := make(parquet.Group, len(g.fields))
	for _, f := range g.fields {
		m[f.Name()] = f
	}
	return m.GoType()
}

// fieldNode names a node within its parent group.
type fieldNode struct {
	parquet.Node
	name string
}

func (f *fieldNode) Name() string { return f.name }

// Value implements parquet.Field. Hoodie never maps Go structs onto these
// schemas, so there is no Go value to return.
func (f *fieldNode) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// SchemaFromParquet derives a table schema from a Parquet schema, for files
// whose footer has no Avro schema. It reads what parquet-avro and Spark
// write: optional fields become nullable; two- and three-level lists become
// arrays; MAP groups with string keys become maps; INT(8), INT(16) and INT(32)
// become int; DATE, TIMESTAMP(MILLIS|MICROS), INT96 timestamps and DECIMAL
// map to their Avro logical types. Records and fixed types are named as
// Spark's Avro converter names them.
func SchemaFromParquet(ps *parquet.Schema) (*Schema, error) {
	full := ps.Name()
	namespace := NamespaceOf(full)
	name := strings.TrimPrefix(full[len(namespace):], ".")
	if !ValidName(name) || namespace != "" && !validFullName(namespace) {
		return nil, fmt.Errorf("storage: derive schema from Parquet: message name %q is not a valid Avro name", full)
	}
	fields, err := fieldsFromParquet(ps.Fields(), full, "")
	if err != nil {
		return nil, fmt.Errorf("storage: derive schema from Parquet message %q: %w", full, err)
	}
	s := &Schema{Name: name, Namespace: namespace, Fields: fields}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func fieldsFromParquet(nodes []parquet.Field, record, path string) ([]Field, error) {
	fields := make([]Field, len(nodes))
	for i, n := range nodes {
		name := n.Name()
		p := joinPath(path, name)
		if !ValidName(name) {
			return nil, pathError(p, errors.New("not a valid Avro field name"))
		}
		t, err := typeFromParquet(n, name, record, p)
		if err != nil {
			return nil, err
		}
		if n.Repeated() {
			// A repeated field outside a LIST group is a list of required elements.
			t = ArrayType(t)
		} else {
			t.Nullable = n.Optional()
		}
		fields[i] = Field{Name: name, Type: t}
	}
	return fields, nil
}

// typeFromParquet returns the Avro type of node, ignoring its repetition.
// field is the name of the field holding it and record the full name of the
// record holding that field: nested records and fixed types are named after
// them.
func typeFromParquet(node parquet.Node, field, record, path string) (*Type, error) {
	if node.Leaf() {
		return leafTypeFromParquet(node.Type(), field, record, path)
	}
	switch logicalTypeOf(node.Type()).(type) {
	case *format.ListType:
		elem, _, err := listElement(node, field)
		if err != nil {
			return nil, pathError(path, err)
		}
		items, err := typeFromParquet(elem, field, record, path+"[]")
		if err != nil {
			return nil, err
		}
		items.Nullable = elem.Optional()
		return ArrayType(items), nil
	case *format.MapType:
		key, value, err := mapEntry(node)
		if err != nil {
			return nil, pathError(path, err)
		}
		if !key.Leaf() || key.Type().Kind() != parquet.ByteArray {
			return nil, pathError(path, errors.New("map keys must be strings"))
		}
		values, err := typeFromParquet(value, field, record, path+"{}")
		if err != nil {
			return nil, err
		}
		values.Nullable = value.Optional()
		return MapType(values), nil
	}
	fields, err := fieldsFromParquet(node.Fields(), record+"."+field, path)
	if err != nil {
		return nil, err
	}
	return &Type{Kind: KindRecord, Name: field, Namespace: record, Fields: fields}, nil
}

// listElement returns the element node of a LIST group, following the
// backward-compatibility rules of the Parquet format: the repeated field is
// itself the element when it is a primitive, a group of several fields, or a
// group named "array" or "<list>_tuple"; otherwise its only field is.
// twoLevel reports the former case.
func listElement(list parquet.Node, name string) (elem parquet.Node, twoLevel bool, err error) {
	fields := list.Fields()
	if len(fields) != 1 || !fields[0].Repeated() {
		return nil, false, errors.New("a LIST group must hold exactly one repeated field")
	}
	rep := fields[0]
	if rep.Leaf() || len(rep.Fields()) != 1 || rep.Name() == "array" || rep.Name() == name+"_tuple" {
		return rep, true, nil
	}
	return rep.Fields()[0], false, nil
}

// mapEntry returns the key and value nodes of a MAP group.
func mapEntry(m parquet.Node) (key, value parquet.Node, err error) {
	fields := m.Fields()
	if len(fields) != 1 || !fields[0].Repeated() || fields[0].Leaf() {
		return nil, nil, errors.New("a MAP group must hold exactly one repeated group")
	}
	for _, f := range fields[0].Fields() {
		switch f.Name() {
		case "key":
			key = f
		case "value":
			value = f
		}
	}
	if key == nil || value == nil || len(fields[0].Fields()) != 2 {
		return nil, nil, errors.New(`a MAP entry must hold exactly the fields "key" and "value"`)
	}
	return key, value, nil
}

func leafTypeFromParquet(pt parquet.Type, field, record, path string) (*Type, error) {
	ltv := logicalTypeOf(pt)
	if d, ok := ltv.(*format.DecimalType); ok {
		t := &Type{Kind: KindBytes, Logical: LogicalDecimal, Precision: int(d.Precision), Scale: int(d.Scale)}
		switch pt.Kind() {
		case parquet.FixedLenByteArray:
			t.Kind, t.Name, t.Namespace, t.Size = KindFixed, "fixed", record+"."+field, pt.Length()
		case parquet.Int32, parquet.Int64:
			// Spark's Avro form of a decimal: a fixed named "fixed" in the
			// field's namespace, sized for the precision.
			t.Kind, t.Name, t.Namespace, t.Size = KindFixed, "fixed", record+"."+field, decimalBytes(t.Precision)
		}
		return t, nil
	}
	switch pt.Kind() {
	case parquet.Boolean:
		if ltv == nil {
			return Primitive(KindBoolean), nil
		}
	case parquet.Int32:
		switch l := ltv.(type) {
		case nil:
			return Primitive(KindInt), nil
		case *format.IntType:
			if l.IsSigned || l.BitWidth < 32 {
				return Primitive(KindInt), nil
			}
		case *format.DateType:
			return DateType(), nil
		}
	case parquet.Int64:
		switch l := ltv.(type) {
		case nil:
			return Primitive(KindLong), nil
		case *format.IntType:
			if l.IsSigned {
				return Primitive(KindLong), nil
			}
		case *format.TimestampType:
			switch l.Unit.Value.(type) {
			case *format.MicroSeconds:
				return TimestampMicrosType(), nil
			case *format.MilliSeconds:
				return TimestampMillisType(), nil
			}
		}
	case parquet.Int96:
		// Spark's legacy timestamps.
		return TimestampMicrosType(), nil
	case parquet.Float:
		return Primitive(KindFloat), nil
	case parquet.Double:
		return Primitive(KindDouble), nil
	case parquet.ByteArray:
		switch ltv.(type) {
		case nil, *format.BsonType:
			return Primitive(KindBytes), nil
		case *format.StringType, *format.EnumType, *format.JsonType:
			return Primitive(KindString), nil
		}
	case parquet.FixedLenByteArray:
		switch ltv.(type) {
		case nil:
			return &Type{Kind: KindFixed, Name: "fixed", Namespace: record + "." + field, Size: pt.Length()}, nil
		case *format.UUIDType:
			return UUIDType(), nil
		}
	}
	return nil, pathError(path, fmt.Errorf("unsupported Parquet type %s", pt))
}

// logicalTypeOf returns the logical type annotating a Parquet type, or nil.
func logicalTypeOf(t parquet.Type) format.LogicalTypeValue {
	if lt := t.LogicalType(); lt != nil {
		return lt.Value
	}
	return nil
}

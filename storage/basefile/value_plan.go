package basefile

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// rowPlan converts rows between the value model and one Parquet schema. It
// is a tree of valueNodes mirroring the Avro schema, each knowing the
// Parquet levels and leaf columns of its place in the Parquet schema.
type rowPlan struct {
	fields    []*valueNode
	numLeaves int
	cursors   sync.Pool // of *rowCursor
}

type nodeKind uint8

const (
	leafValue nodeKind = iota
	recordValue
	listValue
	mapValue
)

// valueNode is one place of the schema.
type valueNode struct {
	kind     nodeKind
	path     string // field path, for errors
	optional bool   // the Parquet node is optional: null is def-1
	// twoLevelElement marks the element of a two-level list whose Avro type
	// is nullable: a null fits the schema, but the repeated field that is
	// the element has no way to hold one.
	twoLevelElement bool
	// def is the definition level of a present value; a list or map present
	// but empty has def, its entries have def+1 and more.
	def int
	// rep is the repetition level of a list's or map's entries.
	rep int
	// first and end delimit the leaf columns below the node.
	first, end int

	fields    []*valueNode // record fields
	elem, key *valueNode   // list element or map value; map key
	leaf      *leafCodec
}

// codec names a conversion between a Go value and a Parquet value.
type codec uint8

const (
	codecBoolean codec = iota
	codecInt32
	codecInt64
	codecFloat
	codecDouble
	codecString
	codecEnum
	codecBytes
	codecFixed
	codecDecimal      // in a byte array, or a fixed of size bytes
	codecDecimalInt32 // read only: Spark's compact decimals
	codecDecimalInt64 // read only
	codecDate
	codecTimestampMicros
	codecTimestampMillis
	codecTimestampInt96 // read only: Spark's legacy timestamps
	codecUUIDFixed      // read only: a Parquet UUID read as a string
)

// leafCodec converts one leaf column's values.
type leafCodec struct {
	codec     codec
	typ       *Type
	size      int                 // fixed length in bytes, 0 for byte arrays
	symbols   map[string]struct{} // enum symbols
	scale     int                 // decimal scale
	precision int                 // decimal precision
}

// compilePlan builds the plan converting rows of the record root to and from
// the Parquet schema group, which must have the shape parquet-avro gives the
// record (lists may have two or three levels).
func compilePlan(root *Type, group parquet.Node) (*rowPlan, error) {
	var c planCompiler
	fields, err := c.fields(root.Fields, group.Fields(), 0, 0, "")
	if err != nil {
		return nil, err
	}
	return &rowPlan{fields: fields, numLeaves: c.leaves}, nil
}

type planCompiler struct {
	leaves int // leaf columns numbered so far
	depth  int // nesting of the node being compiled
}

func (c *planCompiler) fields(fields []Field, nodes []parquet.Field, def, rep int, path string) ([]*valueNode, error) {
	if len(fields) != len(nodes) {
		return nil, pathError(path, fmt.Errorf("the Avro schema has %d fields, the Parquet schema %d", len(fields), len(nodes)))
	}
	out := make([]*valueNode, len(fields))
	for i, f := range fields {
		p := joinPath(path, f.Name)
		if nodes[i].Name() != f.Name {
			return nil, pathError(p, fmt.Errorf("the Parquet schema has field %q here", nodes[i].Name()))
		}
		var err error
		if out[i], err = c.node(f.Type, nodes[i], def, rep, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// node compiles the place of Avro type t held by Parquet node n, below
// definition level def and repetition level rep.
func (c *planCompiler) node(t *Type, n parquet.Node, def, rep int, path string) (*valueNode, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > parquet.MaxColumnDepth || def >= parquet.MaxDefinitionLevel || rep >= parquet.MaxRepetitionLevel {
		return nil, pathError(path, errors.New("nested too deeply for Parquet"))
	}
	vn := &valueNode{path: path, first: c.leaves}
	var err error
	switch {
	case n.Repeated():
		// A repeated field outside a LIST group: a list that cannot be null.
		if t.Kind != KindArray {
			return nil, c.mismatch(t, n, path)
		}
		vn.kind, vn.def, vn.rep = listValue, def, rep+1
		vn.elem, err = c.node(t.Items, parquet.Required(n), def+1, rep+1, path+"[]")
	default:
		vn.optional = n.Optional()
		if vn.optional {
			def++
		}
		vn.def = def
		err = c.complete(vn, t, n, rep)
	}
	if err != nil {
		return nil, err
	}
	vn.end = c.leaves
	return vn, nil
}

// complete fills in vn by the kind of t.
func (c *planCompiler) complete(vn *valueNode, t *Type, n parquet.Node, rep int) error {
	isList, isMap := false, false
	if !n.Leaf() {
		switch logicalTypeOf(n.Type()).(type) {
		case *format.ListType:
			isList = true
		case *format.MapType:
			isMap = true
		}
	}
	var err error
	switch {
	case t.Kind == KindRecord && !n.Leaf() && !isList && !isMap:
		vn.kind = recordValue
		vn.fields, err = c.fields(t.Fields, n.Fields(), vn.def, rep, vn.path)
	case t.Kind == KindArray && isList:
		elem, twoLevel, lerr := listElement(n, lastName(vn.path))
		if lerr != nil {
			return pathError(vn.path, lerr)
		}
		if twoLevel {
			elem = parquet.Required(elem) // the repeated field is the element
		}
		vn.kind, vn.rep = listValue, rep+1
		vn.elem, err = c.node(t.Items, elem, vn.def+1, rep+1, vn.path+"[]")
		if err == nil {
			vn.elem.twoLevelElement = twoLevel && t.Items.Nullable
		}
	case t.Kind == KindMap && isMap:
		key, value, merr := mapEntry(n)
		if merr != nil {
			return pathError(vn.path, merr)
		}
		vn.kind, vn.rep = mapValue, rep+1
		if vn.key, err = c.node(Primitive(KindString), key, vn.def+1, rep+1, vn.path+"{key}"); err != nil {
			return err
		}
		vn.elem, err = c.node(t.Values, value, vn.def+1, rep+1, vn.path+"{}")
	case n.Leaf():
		vn.kind = leafValue
		vn.leaf, err = leafCodecOf(t, n.Type())
		if err != nil {
			return pathError(vn.path, err)
		}
		if c.leaves++; c.leaves > parquet.MaxColumnIndex {
			return pathError(vn.path, fmt.Errorf("more than %d columns", parquet.MaxColumnIndex))
		}
	default:
		return c.mismatch(t, n, vn.path)
	}
	return err
}

func (c *planCompiler) mismatch(t *Type, n parquet.Node, path string) error {
	what := "group"
	if n.Leaf() {
		what = n.Type().String()
	}
	return pathError(path, fmt.Errorf("the Avro type %s does not match Parquet %s", describeType(t), what))
}

// lastName returns the last field name of a path.
func lastName(path string) string {
	return path[strings.LastIndexByte(path, '.')+1:]
}

// leafCodecOf picks the conversion between Avro type t and Parquet type pt.
func leafCodecOf(t *Type, pt parquet.Type) (*leafCodec, error) {
	lc := &leafCodec{typ: t}
	kind := pt.Kind()
	ok := false
	switch t.Logical {
	case LogicalDecimal:
		lc.scale, lc.precision = t.Scale, t.Precision
		if d, isDec := logicalTypeOf(pt).(*format.DecimalType); isDec && int(d.Scale) != t.Scale {
			return nil, fmt.Errorf("the Avro decimal scale %d does not match Parquet %s", t.Scale, pt)
		}
		switch kind {
		case parquet.ByteArray:
			lc.codec, ok = codecDecimal, true
		case parquet.FixedLenByteArray:
			lc.codec, lc.size, ok = codecDecimal, pt.Length(), true
		case parquet.Int32:
			lc.codec, ok = codecDecimalInt32, true
		case parquet.Int64:
			lc.codec, ok = codecDecimalInt64, true
		}
	case LogicalTimestampMicros, LogicalTimestampMillis:
		lc.codec = codecTimestampMicros
		if t.Logical == LogicalTimestampMillis {
			lc.codec = codecTimestampMillis
		}
		if ts, isTS := logicalTypeOf(pt).(*format.TimestampType); isTS {
			// The file's unit wins over the Avro schema's.
			switch ts.Unit.Value.(type) {
			case *format.MilliSeconds:
				lc.codec = codecTimestampMillis
			case *format.MicroSeconds:
				lc.codec = codecTimestampMicros
			default:
				return nil, fmt.Errorf("unsupported Parquet timestamp %s", pt)
			}
		}
		switch kind {
		case parquet.Int64:
			ok = true
		case parquet.Int96:
			lc.codec, ok = codecTimestampInt96, true
		}
	case LogicalDate:
		lc.codec, ok = codecDate, kind == parquet.Int32
	case LogicalUUID:
		lc.codec, ok = codecString, kind == parquet.ByteArray
		if kind == parquet.FixedLenByteArray && pt.Length() == 16 {
			lc.codec, ok = codecUUIDFixed, true
		}
	default:
		var want parquet.Kind
		lc.codec, want, ok = plainCodec(t.Kind)
		ok = ok && want == kind
		if t.Kind == KindFixed {
			lc.size = t.Size
			ok = ok && pt.Length() == t.Size
		}
		if t.Kind == KindEnum {
			lc.symbols = make(map[string]struct{}, len(t.Symbols))
			for _, s := range t.Symbols {
				lc.symbols[s] = struct{}{}
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("the Avro type %s does not match Parquet %s", describeType(t), pt)
	}
	return lc, nil
}

// plainCodec returns the codec of an Avro primitive without logical type and
// the Parquet physical type holding it.
func plainCodec(k Kind) (codec, parquet.Kind, bool) {
	switch k {
	case KindBoolean:
		return codecBoolean, parquet.Boolean, true
	case KindInt:
		return codecInt32, parquet.Int32, true
	case KindLong:
		return codecInt64, parquet.Int64, true
	case KindFloat:
		return codecFloat, parquet.Float, true
	case KindDouble:
		return codecDouble, parquet.Double, true
	case KindString:
		return codecString, parquet.ByteArray, true
	case KindEnum:
		return codecEnum, parquet.ByteArray, true
	case KindBytes:
		return codecBytes, parquet.ByteArray, true
	case KindFixed:
		return codecFixed, parquet.FixedLenByteArray, true
	}
	return 0, 0, false
}

// fieldError reports a problem with the value at a node.
func (n *valueNode) fieldError(format string, args ...any) error {
	return fmt.Errorf("storage: field %q: %s", n.path, fmt.Sprintf(format, args...))
}

// nullError reports a null for a field that cannot hold one.
func (n *valueNode) nullError() error {
	return n.fieldError("null value for a non-null field")
}

// typeError reports a Go value of the wrong type for a leaf.
func (n *valueNode) typeError(v any) error {
	return n.fieldError("%T does not match Avro type %s", v, describeType(n.leaf.typ))
}

package write

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// EvolveSchema returns the table schema after a write whose input has the
// schema in: columns of in that the table lacks are added (nullable, at the
// end), and a numeric column whose input type is wider than the table's is
// widened along int -> long -> float -> double. table may be nil for a table
// without a schema yet; the input's schema then becomes the table's, every
// column made nullable. Any other difference is refused with an error naming
// the column, and so is a new column whose name equals a table column's but
// for case.
//
// keyColumns are the columns whose values make record keys and partition
// paths: widening them would change their text (5 becomes "5.0"), and the
// keys of stored records would no longer match those of incoming ones, so
// of the widenings only int -> long is allowed for them.
//
// Whether a widening would round values the table holds is not looked at
// here: Writer.Write checks the table's files (see Settings.LossyWidening).
//
// changed reports whether the result differs from table.
func EvolveSchema(table, in *basefile.Schema, keyColumns []string) (evolved *basefile.Schema, changed bool, err error) {
	if table == nil {
		fields := make([]basefile.Field, len(in.Fields))
		for i, f := range in.Fields {
			if basefile.IsMetaField(f.Name) {
				return nil, false, fmt.Errorf("input column %q is a Hudi meta column; leave it out", f.Name)
			}
			fields[i] = basefile.Field{Name: f.Name, Type: basefile.Nullable(f.Type), Doc: f.Doc}
		}
		s := &basefile.Schema{Name: in.Name, Namespace: in.Namespace, Fields: fields}
		return s, true, s.Validate()
	}
	fields := append([]basefile.Field(nil), table.Fields...)
	for _, f := range in.Fields {
		if basefile.IsMetaField(f.Name) {
			return nil, false, fmt.Errorf("input column %q is a Hudi meta column; leave it out", f.Name)
		}
		i := table.FieldIndex(f.Name)
		if i < 0 {
			if j := foldedIndex(table.Fields, f.Name); j >= 0 {
				return nil, false, fmt.Errorf("input column %q differs from the table's column %q only in case, which Spark, DuckDB and SQL do not tell apart; name it as the table does",
					f.Name, table.Fields[j].Name)
			}
			fields = append(fields, basefile.Field{Name: f.Name, Type: basefile.Nullable(f.Type), Doc: f.Doc})
			changed = true
			continue
		}
		wider, err := widen(fields[i].Type, f.Type)
		if err != nil {
			return nil, false, fmt.Errorf("column %q: %w", f.Name, err)
		}
		if wider != fields[i].Type && slices.Contains(keyColumns, f.Name) && !intToLong(fields[i].Type, wider) {
			return nil, false, fmt.Errorf("column %q: the input's type %s would widen the table's type %s, but the column makes record keys or partition paths, whose text must not change (only int -> long is allowed)",
				f.Name, typeName(f.Type), typeName(fields[i].Type))
		}
		if wider != fields[i].Type {
			fields[i].Type = wider
			changed = true
		}
	}
	if !changed {
		return table, false, nil
	}
	s := &basefile.Schema{Name: table.Name, Namespace: table.Namespace, Doc: table.Doc, Fields: fields}
	if err := s.Validate(); err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// foldedIndex returns the index of the field whose name equals name but
// for case (Unicode simple folding), or -1.
func foldedIndex(fields []basefile.Field, name string) int {
	return slices.IndexFunc(fields, func(f basefile.Field) bool { return strings.EqualFold(f.Name, name) })
}

// checkColumnNames fails if two of the columns, or two fields of a record
// inside one, differ only in case (see caseTwins), or a column differs
// from a Hudi meta column only in case.
func checkColumnNames(fields []basefile.Field) error {
	const why = "which Spark, DuckDB and SQL do not tell apart"
	if a, b, twins := caseTwins(fields); twins {
		return fmt.Errorf("columns %q and %q differ only in case, %s; rename one", a, b, why)
	}
	for _, f := range fields {
		for _, m := range basefile.MetaFieldNames {
			if f.Name != m && strings.EqualFold(f.Name, m) {
				return fmt.Errorf("column %q differs from Hudi's meta column %q only in case, %s; rename it", f.Name, m, why)
			}
		}
	}
	return nil
}

// caseTwins returns two fields of fields, or of the records inside their
// types (in records, arrays and maps), whose names differ only in case, as
// a path each ("r.v" and "r.V"); ok is false when there are none. Spark,
// DuckDB and SQL take names in any case: such columns cannot be told apart.
func caseTwins(fields []basefile.Field) (a, b string, ok bool) {
	for i, f := range fields {
		for _, g := range fields[:i] {
			if strings.EqualFold(f.Name, g.Name) {
				return g.Name, f.Name, true
			}
		}
		if a, b, ok := typeCaseTwins(f.Type); ok {
			return f.Name + "." + a, f.Name + "." + b, true
		}
	}
	return "", "", false
}

func typeCaseTwins(t *basefile.Type) (a, b string, ok bool) {
	switch t.Kind {
	case basefile.KindRecord:
		return caseTwins(t.Fields)
	case basefile.KindArray:
		return typeCaseTwins(t.Items)
	case basefile.KindMap:
		return typeCaseTwins(t.Values)
	}
	return "", "", false
}

// intToLong reports whether widening from to to is int -> long, the one
// widening that renders values as before.
func intToLong(from, to *basefile.Type) bool {
	plain := func(t *basefile.Type, k basefile.Kind) bool { return t.Kind == k && t.Logical == basefile.LogicalNone }
	return plain(from, basefile.KindInt) && plain(to, basefile.KindLong)
}

// widen returns the table column type that holds both the table's values
// and the input's: table itself when the input type is the same or narrower,
// a wider numeric type, or an error.
func widen(table, in *basefile.Type) (*basefile.Type, error) {
	if sameShape(table, in) {
		return table, nil
	}
	rt, ri := basefile.WideningRank(table), basefile.WideningRank(in)
	switch {
	case rt > 0 && ri > 0 && ri <= rt:
		return table, nil
	case rt > 0 && ri > rt:
		w := *in
		w.Nullable = table.Nullable
		return &w, nil
	}
	return nil, fmt.Errorf("the input's type %s does not fit the table's type %s (only int -> long -> float -> double widening and new nullable columns are allowed)",
		typeName(in), typeName(table))
}

// sameShape reports types equal but for nullability and names of named
// types.
func sameShape(a, b *basefile.Type) bool {
	if a.Kind != b.Kind || a.Logical != b.Logical || a.Precision != b.Precision || a.Scale != b.Scale {
		return false
	}
	switch a.Kind {
	case basefile.KindFixed:
		return a.Size == b.Size
	case basefile.KindArray:
		return sameShape(a.Items, b.Items) || canConvert(a.Items, b.Items)
	case basefile.KindMap:
		return sameShape(a.Values, b.Values) || canConvert(a.Values, b.Values)
	case basefile.KindRecord:
		for _, f := range b.Fields {
			i := fieldIndex(a.Fields, f.Name)
			if i < 0 || !(sameShape(a.Fields[i].Type, f.Type) || canConvert(a.Fields[i].Type, f.Type)) {
				return false
			}
		}
		for _, f := range a.Fields {
			if fieldIndex(b.Fields, f.Name) < 0 && !f.Type.Nullable {
				return false
			}
		}
		return true
	case basefile.KindEnum:
		return true
	}
	return true
}

// canConvert reports whether values of type in convert to type to without
// loss: the same shape, or a narrower number.
func canConvert(to, in *basefile.Type) bool {
	if sameShape(to, in) {
		return true
	}
	rt, ri := basefile.WideningRank(to), basefile.WideningRank(in)
	return rt > 0 && ri > 0 && ri <= rt
}

func fieldIndex(fields []basefile.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func typeName(t *basefile.Type) string {
	if t.Logical != basefile.LogicalNone {
		return t.Logical.String()
	}
	return t.Kind.String()
}

// rowConverter maps rows of an input schema onto a table schema.
type rowConverter struct {
	table    *basefile.Schema
	sources  []int // input position of each table column, -1 when absent
	convert  []func(any) (any, error)
	required []bool
	// lenient lets required columns be missing or null: deletes need only
	// the key columns.
	lenient bool
	// identity reports input rows already laid out as table rows, needing
	// no conversion: they are used as they are.
	identity bool
	width    int // the number of columns of the input's rows
}

func newRowConverter(table, in *basefile.Schema) (*rowConverter, error) {
	return newColumnsConverter(table, in, nil, false)
}

// newStoredConverter returns the converter of stored rows of a file's
// schema to the table's; round makes it round whole numbers that a
// widened floating-point column cannot hold exactly (the user allowed it:
// Settings.LossyWidening) rather than fail.
func newStoredConverter(table, file *basefile.Schema, round bool) (*rowConverter, error) {
	return newColumnsConverter(table, file, nil, round)
}

// newKeysConverter returns a converter for the rows of a delete: only the
// table's columns named by keys are taken from the input, which may lack
// the others or hold them with any type, and rows convert with the other
// columns null (lenient).
func newKeysConverter(table, in *basefile.Schema, keys []string) (*rowConverter, error) {
	c, err := newColumnsConverter(table, in, keys, false)
	if c != nil {
		c.lenient = true
	}
	return c, err
}

// newColumnsConverter returns the converter of rows of in to rows of table
// that takes from the input the table columns named in columns, or every
// column for nil columns; round is as for newStoredConverter.
func newColumnsConverter(table, in *basefile.Schema, columns []string, round bool) (*rowConverter, error) {
	c := &rowConverter{
		table:    table,
		sources:  make([]int, len(table.Fields)),
		convert:  make([]func(any) (any, error), len(table.Fields)),
		required: make([]bool, len(table.Fields)),
		width:    len(in.Fields),
	}
	for i, f := range table.Fields {
		c.required[i] = !f.Type.Nullable
		j := in.FieldIndex(f.Name)
		if columns != nil && !slices.Contains(columns, f.Name) {
			j = -1
		}
		c.sources[i] = j
		if j < 0 {
			continue
		}
		conv, err := converter(f.Type, in.Fields[j].Type, round)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		c.convert[i] = conv
	}
	c.identity = len(table.Fields) == len(in.Fields)
	for i, j := range c.sources {
		if j != i || c.convert[i] != nil || c.required[i] {
			c.identity = false
		}
	}
	return c, nil
}

// convertRow returns row (under the input schema) under the table schema.
func (c *rowConverter) convertRow(row []any) ([]any, error) {
	if len(row) != c.width {
		return nil, fmt.Errorf("the record has %d values, the input's schema %d columns", len(row), c.width)
	}
	if c.identity {
		return row, nil
	}
	out := make([]any, len(c.sources))
	for i, j := range c.sources {
		if j < 0 {
			if c.required[i] && !c.lenient {
				return nil, fmt.Errorf("column %q is required by the table but missing from the input", c.table.Fields[i].Name)
			}
			continue
		}
		v := row[j]
		if v == nil {
			if c.required[i] && !c.lenient {
				return nil, fmt.Errorf("column %q is required by the table but null", c.table.Fields[i].Name)
			}
			continue
		}
		if conv := c.convert[i]; conv != nil {
			var err error
			if v, err = conv(v); err != nil {
				return nil, fmt.Errorf("column %q: %w", c.table.Fields[i].Name, err)
			}
		}
		out[i] = v
	}
	return out, nil
}

// converter returns the function turning values of type in into values of
// type to, or nil when they need no change; round is as for
// newStoredConverter.
func converter(to, in *basefile.Type, round bool) (func(any) (any, error), error) {
	rt, ri := basefile.WideningRank(to), basefile.WideningRank(in)
	if rt > 0 && ri > 0 {
		if rt == ri {
			return nil, nil
		}
		if ri > rt {
			return nil, fmt.Errorf("the input's type %s is wider than the table's %s", typeName(in), typeName(to))
		}
		return func(v any) (any, error) { return widenNumber(v, to.Kind, round) }, nil
	}
	switch to.Kind {
	case basefile.KindRecord:
		if in.Kind != basefile.KindRecord {
			break
		}
		sub, err := newColumnsConverter(&basefile.Schema{Fields: to.Fields}, &basefile.Schema{Fields: in.Fields}, nil, round)
		if err != nil {
			return nil, err
		}
		return func(v any) (any, error) {
			rec, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("want a record, got %T", v)
			}
			return sub.convertRow(rec)
		}, nil
	case basefile.KindArray:
		if in.Kind != basefile.KindArray {
			break
		}
		elem, err := converter(to.Items, in.Items, round)
		if err != nil || elem == nil {
			return nil, err
		}
		return func(v any) (any, error) {
			items, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("want an array, got %T", v)
			}
			out := make([]any, len(items))
			for i, it := range items {
				if it == nil {
					continue
				}
				var err error
				if out[i], err = elem(it); err != nil {
					return nil, err
				}
			}
			return out, nil
		}, nil
	case basefile.KindMap:
		if in.Kind != basefile.KindMap {
			break
		}
		elem, err := converter(to.Values, in.Values, round)
		if err != nil || elem == nil {
			return nil, err
		}
		return func(v any) (any, error) {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("want a map, got %T", v)
			}
			out := make(map[string]any, len(m))
			for k, it := range m {
				if it == nil {
					out[k] = nil
					continue
				}
				var err error
				if out[k], err = elem(it); err != nil {
					return nil, err
				}
			}
			return out, nil
		}, nil
	}
	if sameShape(to, in) {
		return nil, nil
	}
	return nil, fmt.Errorf("the input's type %s does not fit the table's type %s", typeName(in), typeName(to))
}

// widenNumber converts a number to a wider numeric kind. A whole number
// that the floating-point kind cannot hold exactly (beyond 2^24 for a
// float, 2^53 for a double) is an error naming it, unless round.
func widenNumber(v any, to basefile.Kind, round bool) (any, error) {
	var f float64
	var i int64
	isInt := true
	switch n := v.(type) {
	case int32:
		i = int64(n)
	case int64:
		i = n
	case float32:
		f, isInt = float64(n), false
	case float64:
		f, isInt = n, false
	default:
		return nil, fmt.Errorf("want a number, got %T", v)
	}
	switch to {
	case basefile.KindLong:
		return i, nil
	case basefile.KindFloat:
		if !isInt {
			return float32(f), nil
		}
		if !round && !exactInFloat(i, basefile.KindFloat) {
			return nil, fmt.Errorf("%d does not fit a float column exactly (it would become %.0f); write it to a long or decimal column", i, float32(i))
		}
		return float32(i), nil
	case basefile.KindDouble:
		if !isInt {
			return f, nil
		}
		if !round && !exactInFloat(i, basefile.KindDouble) {
			return nil, fmt.Errorf("%d does not fit a double column exactly (it would become %.0f); write it to a long or decimal column", i, float64(i))
		}
		return float64(i), nil
	}
	return nil, fmt.Errorf("cannot widen to %s", to)
}

// exactInFloat reports whether the whole number n converts to a value of
// the floating-point kind (basefile.KindFloat or basefile.KindDouble) and
// back unchanged. Every number within ±2^24 (float) or ±2^53 (double)
// does; beyond, only some.
func exactInFloat(n int64, kind basefile.Kind) bool {
	if kind == basefile.KindFloat {
		if n >= -1<<24 && n <= 1<<24 {
			return true
		}
		f := float32(n)
		return f >= -(1<<63) && f < 1<<63 && int64(f) == n
	}
	if n >= -1<<53 && n <= 1<<53 {
		return true
	}
	f := float64(n)
	return f >= -(1<<63) && f < 1<<63 && int64(f) == n
}

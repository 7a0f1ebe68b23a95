package basefile

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// AppendRow appends the Parquet form of a row to dst and returns the
// extended row. values holds the top-level fields in schema order, as the
// value model in value.go describes. The row's byte arrays may point into
// the strings and byte slices of values, which must not change while the
// row is in use. On error dst is returned unchanged in length.
func (s *Schema) AppendRow(dst parquet.Row, values []any) (parquet.Row, error) {
	c, err := s.compile()
	if err != nil {
		return dst, err
	}
	return c.plan.appendRow(dst, values, nil)
}

// DecodeRow converts a Parquet row of the schema's Parquet form back to
// values, as the value model describes. Strings and byte slices are copied:
// the result does not share memory with row.
func (s *Schema) DecodeRow(row parquet.Row) ([]any, error) {
	c, err := s.compile()
	if err != nil {
		return nil, err
	}
	return c.plan.decodeRow(row)
}

// appendRow appends the Parquet form of values to dst. If arena is not nil,
// byte slices of values are copied into it rather than aliased by the row.
func (p *rowPlan) appendRow(dst parquet.Row, values []any, arena *[]byte) (parquet.Row, error) {
	if len(values) != len(p.fields) {
		return dst, fmt.Errorf("storage: row has %d values, the schema %d fields", len(values), len(p.fields))
	}
	s := shredder{row: dst, arena: arena}
	for i, n := range p.fields {
		if err := s.shred(n, values[i], 0, -1); err != nil {
			return dst, err
		}
	}
	return s.row, nil
}

// shredder builds a Parquet row from values.
type shredder struct {
	row   parquet.Row
	arena *[]byte // where byte slices are copied to, or nil
}

// shred appends the Parquet values of v at node n, starting at repetition
// level rep. Parquet rows list values column by column, so below a list or
// map holding several leaf columns shred walks the value once per column:
// target is the only leaf column to emit, or -1 for all.
func (s *shredder) shred(n *valueNode, v any, rep, target int) error {
	if v == nil {
		switch {
		case n.twoLevelElement:
			// parquet-avro refuses them too, unless told to write
			// three-level lists, which Hudi's writers do not.
			return n.fieldError("null element: an array is written as Hudi's two-level Parquet list, whose elements cannot be null; leave the nulls out of the array")
		case !n.optional:
			return n.nullError()
		}
		s.appendNulls(n, rep, n.def-1, target)
		return nil
	}
	switch n.kind {
	case leafValue:
		pv, err := n.encode(v, s.arena)
		if err != nil {
			return err
		}
		s.row = append(s.row, pv.Level(rep, n.def, n.first))
		return nil
	case recordValue:
		rec, ok := v.([]any)
		if !ok || len(rec) != len(n.fields) {
			return n.fieldError("%T of length %d does not match a record of %d fields", v, len(rec), len(n.fields))
		}
		for i, f := range n.fields {
			if target >= 0 && (target < f.first || target >= f.end) {
				continue
			}
			if err := s.shred(f, rec[i], rep, target); err != nil {
				return err
			}
		}
		return nil
	}
	if target < 0 && n.end-n.first > 1 {
		for col := n.first; col < n.end; col++ {
			if err := s.shred(n, v, rep, col); err != nil {
				return err
			}
		}
		return nil
	}
	if n.kind == listValue {
		return s.shredList(n, v, rep, target)
	}
	return s.shredMap(n, v, rep, target)
}

func (s *shredder) shredList(n *valueNode, v any, rep, target int) error {
	elems, ok := v.([]any)
	if !ok {
		return n.fieldError("%T does not match an array", v)
	}
	if len(elems) == 0 {
		s.appendNulls(n, rep, n.def, target)
		return nil
	}
	for i, e := range elems {
		if i > 0 {
			rep = n.rep
		}
		if err := s.shred(n.elem, e, rep, target); err != nil {
			return err
		}
	}
	return nil
}

func (s *shredder) shredMap(n *valueNode, v any, rep, target int) error {
	m, ok := v.(map[string]any)
	if !ok {
		return n.fieldError("%T does not match a map", v)
	}
	if len(m) == 0 {
		s.appendNulls(n, rep, n.def, target)
		return nil
	}
	// Keys in order, so that a map always gives the same file.
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			rep = n.rep
		}
		var err error
		if target == n.key.first {
			err = s.shred(n.key, k, rep, target)
		} else {
			err = s.shred(n.elem, m[k], rep, target)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// appendNulls appends a null at levels rep and def for the target leaf
// column, or for every leaf column below n when target is -1.
func (s *shredder) appendNulls(n *valueNode, rep, def, target int) {
	if target >= 0 {
		s.row = append(s.row, parquet.Value{}.Level(rep, def, target))
		return
	}
	for col := n.first; col < n.end; col++ {
		s.row = append(s.row, parquet.Value{}.Level(rep, def, col))
	}
}

// rowCursor walks the values of one row column by column: pos and end
// delimit, per leaf column, the values not yet consumed.
type rowCursor struct {
	row      parquet.Row
	pos, end []int
}

func (p *rowPlan) decodeRow(row parquet.Row) ([]any, error) {
	c, _ := p.cursors.Get().(*rowCursor)
	if c == nil {
		c = &rowCursor{pos: make([]int, p.numLeaves), end: make([]int, p.numLeaves)}
	}
	defer func() {
		c.row = nil
		p.cursors.Put(c)
	}()
	if err := c.reset(row); err != nil {
		return nil, err
	}
	out := make([]any, len(p.fields))
	var err error
	for i, n := range p.fields {
		if out[i], err = c.assemble(n); err != nil {
			return nil, err
		}
	}
	for col := range c.pos {
		if c.pos[col] != c.end[col] {
			return nil, fmt.Errorf("storage: decode row: column %d has %d values too many", col, c.end[col]-c.pos[col])
		}
	}
	return out, nil
}

// reset points the cursor at row, whose values must come column by column.
func (c *rowCursor) reset(row parquet.Row) error {
	c.row = row
	i := 0
	for col := range c.pos {
		c.pos[col] = i
		for i < len(row) && row[i].Column() == col {
			i++
		}
		c.end[col] = i
		if c.end[col] == c.pos[col] {
			return fmt.Errorf("storage: decode row: no value for column %d", col)
		}
	}
	if i != len(row) {
		return fmt.Errorf("storage: decode row: value %d is of column %d, out of order or unknown", i, row[i].Column())
	}
	return nil
}

var errShortRow = errors.New("storage: decode row: a column ran out of values")

func (c *rowCursor) peek(col int) (parquet.Value, error) {
	if c.pos[col] >= c.end[col] {
		return parquet.Value{}, errShortRow
	}
	return c.row[c.pos[col]], nil
}

// skip consumes the one value each leaf column below n has for a null or
// empty value.
func (c *rowCursor) skip(n *valueNode) error {
	for col := n.first; col < n.end; col++ {
		if c.pos[col] >= c.end[col] {
			return errShortRow
		}
		c.pos[col]++
	}
	return nil
}

// assemble rebuilds the value at node n from the row's values.
func (c *rowCursor) assemble(n *valueNode) (any, error) {
	if n.optional || n.kind == listValue || n.kind == mapValue {
		v, err := c.peek(n.first)
		if err != nil {
			return nil, err
		}
		switch def := v.DefinitionLevel(); {
		case def < n.def:
			return nil, c.skip(n)
		case def == n.def && n.kind == listValue:
			return []any{}, c.skip(n)
		case def == n.def && n.kind == mapValue:
			return map[string]any{}, c.skip(n)
		}
	}
	switch n.kind {
	case leafValue:
		v, err := c.peek(n.first)
		if err != nil {
			return nil, err
		}
		c.pos[n.first]++
		return n.decode(v)
	case recordValue:
		rec := make([]any, len(n.fields))
		var err error
		for i, f := range n.fields {
			if rec[i], err = c.assemble(f); err != nil {
				return nil, err
			}
		}
		return rec, nil
	case listValue:
		var list []any
		for {
			e, err := c.assemble(n.elem)
			if err != nil {
				return nil, err
			}
			list = append(list, e)
			if !c.continues(n) {
				return list, nil
			}
		}
	default:
		m := make(map[string]any)
		for {
			k, err := c.assemble(n.key)
			if err != nil {
				return nil, err
			}
			key, _ := k.(string) // map keys are required strings
			if m[key], err = c.assemble(n.elem); err != nil {
				return nil, err
			}
			if !c.continues(n) {
				return m, nil
			}
		}
	}
}

// continues reports whether the next value of list or map n's first column
// starts another entry of the same list or map.
func (c *rowCursor) continues(n *valueNode) bool {
	v, err := c.peek(n.first)
	return err == nil && v.RepetitionLevel() == n.rep
}

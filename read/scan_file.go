package read

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// nodeKind is the shape of a colNode.
type nodeKind uint8

const (
	nodeLeaf nodeKind = iota
	nodeRecord
	nodeList
	nodeMap
	nodeMissing // a field the file does not have: always null
)

// colNode maps one place of a column's type onto the file's Parquet
// schema, with the definition and repetition levels of Dremel's record
// assembly.
type colNode struct {
	kind     nodeKind
	optional bool
	// def is the definition level of a present value. A list or map is
	// empty at def, and its entries have higher levels.
	def int
	// rep is the repetition level of a list's or map's entries.
	rep int
	// leaf is the leaf's index in colPlan.leaves (nodeLeaf); first and end
	// delimit the leaves below the node; probe is one of them whose levels
	// tell the node's, or -1 if the node has none.
	leaf, first, end, probe int

	fields    []*colNode // record fields, in the reader's order
	elem, key *colNode   // list element, map value; map key
}

// colPlan reads one column of a scan from one file.
type colPlan struct {
	// constant, if not nil, is the column's one value in the whole file: a
	// missing column, a partition column not stored in the file, a meta
	// column computed for a file without meta fields.
	constant *Vector
	root     *colNode
	leaves   []*leafReader
}

// flat reports whether the column is a single leaf outside any list or
// map, read straight into the batch.
func (p *colPlan) flat() bool {
	return p.constant == nil && p.root.kind == nodeLeaf && p.leaves[0].maxRep == 0
}

// planBuilder maps a column onto a file's Parquet schema.
type planBuilder struct {
	schema *parquet.Schema
	leaves []*leafReader
}

// planColumn maps column c onto the file's schema. A missing field gives a
// null constant.
func planColumn(schema *parquet.Schema, c readCol) (*colPlan, error) {
	b := &planBuilder{schema: schema}
	var n parquet.Node = schema
	def := 0
	for i, name := range c.path {
		f := childField(n, name)
		if f == nil {
			return &colPlan{constant: nullVector(c.typ)}, nil
		}
		if i == len(c.path)-1 {
			root, err := b.node(c.typ, f, def, 0, c.path)
			if err != nil {
				return nil, err
			}
			return &colPlan{root: root, leaves: b.leaves}, nil
		}
		if f.Leaf() || f.Repeated() || groupLogical(f) != nil {
			return nil, fmt.Errorf("field %s is not a record in the file", strings.Join(c.path[:i+1], "."))
		}
		if f.Optional() {
			def++
		}
		n = f
	}
	return nil, errors.New("empty column path")
}

// nullVector returns a one-value vector holding null.
func nullVector(t *basefile.Type) *Vector {
	v := newVector(t)
	v.appendNulls(1)
	return v
}

// childField returns the field name of group n, or nil.
func childField(n parquet.Node, name string) parquet.Field {
	if n.Leaf() {
		return nil
	}
	for _, f := range n.Fields() {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// groupLogical returns the LIST or MAP annotation of a group, or nil.
func groupLogical(n parquet.Node) format.LogicalTypeValue {
	if n.Leaf() {
		return nil
	}
	if lt := n.Type().LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.ListType, *format.MapType:
			return v
		}
	}
	return nil
}

// node maps type t onto Parquet node n, found at the Parquet path ppath
// below definition level def and repetition level rep.
func (b *planBuilder) node(t *basefile.Type, n parquet.Node, def, rep int, ppath []string) (*colNode, error) {
	cn := &colNode{first: len(b.leaves), probe: -1}
	var err error
	if n.Repeated() {
		// A repeated field outside a LIST group: a list that cannot be null.
		if t.Kind != basefile.KindArray {
			return nil, b.mismatch(t, n, ppath)
		}
		cn.kind, cn.def, cn.rep = nodeList, def, rep+1
		cn.elem, err = b.node(t.Items, parquet.Required(n), def+1, rep+1, ppath)
	} else {
		cn.optional = n.Optional()
		if cn.optional {
			def++
		}
		cn.def = def
		err = b.complete(cn, t, n, rep, ppath)
	}
	if err != nil {
		return nil, err
	}
	cn.end = len(b.leaves)
	return cn, nil
}

// complete fills in cn by the kind of t.
func (b *planBuilder) complete(cn *colNode, t *basefile.Type, n parquet.Node, rep int, ppath []string) error {
	logical := groupLogical(n)
	_, isList := logical.(*format.ListType)
	_, isMap := logical.(*format.MapType)
	switch {
	case t.Kind == basefile.KindRecord && !n.Leaf() && logical == nil:
		cn.kind = nodeRecord
		for _, f := range t.Fields {
			child := childField(n, f.Name)
			if child == nil {
				cn.fields = append(cn.fields, &colNode{kind: nodeMissing, probe: -1})
				continue
			}
			fn, err := b.node(f.Type, child, cn.def, rep, append(ppath[:len(ppath):len(ppath)], f.Name))
			if err != nil {
				return err
			}
			cn.fields = append(cn.fields, fn)
			if cn.probe < 0 {
				cn.probe = fn.probe
			}
		}
		return nil
	case t.Kind == basefile.KindArray && isList:
		fields := n.Fields()
		if len(fields) != 1 || !fields[0].Repeated() {
			return fmt.Errorf("column %s: a LIST group must hold one repeated field", strings.Join(ppath, "."))
		}
		r := fields[0]
		p := append(ppath[:len(ppath):len(ppath)], r.Name())
		cn.kind, cn.rep = nodeList, rep+1
		var err error
		// The backward-compatibility rules of the Parquet LIST type: the
		// repeated field is the element unless it is a group of one field
		// named other than "array" and "<list>_tuple".
		if r.Leaf() || len(r.Fields()) != 1 || r.Name() == "array" || r.Name() == ppath[len(ppath)-1]+"_tuple" {
			cn.elem, err = b.node(t.Items, parquet.Required(r), cn.def+1, rep+1, p)
		} else {
			e := r.Fields()[0]
			cn.elem, err = b.node(t.Items, e, cn.def+1, rep+1, append(p, e.Name()))
		}
		if err != nil {
			return err
		}
		cn.probe = cn.elem.probe
		return nil
	case t.Kind == basefile.KindMap && isMap:
		fields := n.Fields()
		if len(fields) != 1 || !fields[0].Repeated() || fields[0].Leaf() {
			return fmt.Errorf("column %s: a MAP group must hold one repeated group", strings.Join(ppath, "."))
		}
		kv := fields[0]
		key, value := childField(kv, "key"), childField(kv, "value")
		if key == nil || value == nil {
			return fmt.Errorf("column %s: a MAP entry must have the fields key and value", strings.Join(ppath, "."))
		}
		p := append(ppath[:len(ppath):len(ppath)], kv.Name())
		cn.kind, cn.rep = nodeMap, rep+1
		var err error
		if cn.key, err = b.node(basefile.Primitive(basefile.KindString), key, cn.def+1, rep+1, append(p[:len(p):len(p)], "key")); err != nil {
			return err
		}
		if cn.elem, err = b.node(t.Values, value, cn.def+1, rep+1, append(p[:len(p):len(p)], "value")); err != nil {
			return err
		}
		cn.probe = cn.key.probe
		return nil
	case n.Leaf():
		return b.leaf(cn, t, n, ppath)
	}
	return b.mismatch(t, n, ppath)
}

// leaf adds the leaf column at ppath.
func (b *planBuilder) leaf(cn *colNode, t *basefile.Type, n parquet.Node, ppath []string) error {
	name := strings.Join(ppath, ".")
	lc, ok := b.schema.Lookup(ppath...)
	if !ok {
		return fmt.Errorf("column %s: not found in the Parquet schema", name)
	}
	if lc.MaxDefinitionLevel != cn.def {
		return fmt.Errorf("column %s: definition level %d, expected %d", name, lc.MaxDefinitionLevel, cn.def)
	}
	conv, err := newLeafConv(t, n.Type())
	if err != nil {
		return fmt.Errorf("column %s: %w", name, err)
	}
	cn.kind, cn.leaf, cn.probe = nodeLeaf, len(b.leaves), len(b.leaves)
	b.leaves = append(b.leaves, &leafReader{
		column: name,
		col:    lc.ColumnIndex,
		maxDef: byte(lc.MaxDefinitionLevel),
		maxRep: byte(lc.MaxRepetitionLevel),
		conv:   conv,
		typ:    t,
	})
	return nil
}

func (b *planBuilder) mismatch(t *basefile.Type, n parquet.Node, ppath []string) error {
	what := "a group"
	if n.Leaf() {
		what = n.Type().String()
	}
	return fmt.Errorf("column %s: the file holds %s where the table has %s", strings.Join(ppath, "."), what, typeName(t))
}

// setNested marks the leaves of a column that is not flat, which keep
// their levels for assembly.
func (p *colPlan) setNested() {
	if p.constant != nil || p.flat() {
		return
	}
	for _, l := range p.leaves {
		l.nested = true
		l.vals = newVector(l.typ)
	}
}

// read reads the next rows rows of the column into out.
func (p *colPlan) read(rows int, out *Vector) error {
	switch {
	case p.constant != nil:
		out.fill(p.constant, rows)
		return nil
	case p.flat():
		if err := p.leaves[0].read(rows, out); err != nil {
			return fmt.Errorf("column %s: %w", p.leaves[0].column, err)
		}
		return nil
	}
	for _, l := range p.leaves {
		if err := l.read(rows, nil); err != nil {
			return fmt.Errorf("column %s: %w", l.column, err)
		}
	}
	for range rows {
		v, err := p.assemble(p.root)
		if err != nil {
			return err
		}
		if err := out.appendValue(v); err != nil {
			return err
		}
	}
	for _, l := range p.leaves {
		if l.pos != l.vals.n {
			return fmt.Errorf("column %s: %d values left over after assembling the rows", l.column, l.vals.n-l.pos)
		}
	}
	return nil
}

// errLevels reports levels that do not fit the schema.
var errLevels = errors.New("the column's levels do not fit its schema")

// peekDef returns the definition level of leaf i's next entry.
func (p *colPlan) peekDef(i int) (int, error) {
	l := p.leaves[i]
	if l.pos >= l.vals.n {
		return 0, errLevels
	}
	if l.maxDef == 0 {
		return 0, nil
	}
	return int(l.bdefs[l.pos]), nil
}

// skip consumes the one entry of every leaf below n that stands for a
// null or empty value.
func (p *colPlan) skip(n *colNode) {
	for _, l := range p.leaves[n.first:n.end] {
		l.pos++
	}
}

// continues reports whether the next entry of list or map n starts another
// element of the same list or map.
func (p *colPlan) continues(n *colNode) bool {
	l := p.leaves[n.probe]
	return l.pos < len(l.breps) && int(l.breps[l.pos]) == n.rep
}

// assemble rebuilds the next value of node n from the leaves' entries.
func (p *colPlan) assemble(n *colNode) (any, error) {
	if n.kind == nodeMissing || n.probe < 0 {
		return nil, nil
	}
	if n.optional || n.kind == nodeList || n.kind == nodeMap {
		d, err := p.peekDef(n.probe)
		if err != nil {
			return nil, err
		}
		switch {
		case d < n.def:
			p.skip(n)
			return nil, nil
		case d == n.def && n.kind == nodeList:
			p.skip(n)
			return []any{}, nil
		case d == n.def && n.kind == nodeMap:
			p.skip(n)
			return map[string]any{}, nil
		}
	}
	switch n.kind {
	case nodeLeaf:
		l := p.leaves[n.leaf]
		if l.pos >= l.vals.n {
			return nil, errLevels
		}
		v := l.vals.Value(l.pos)
		l.pos++
		return v, nil
	case nodeRecord:
		rec := make([]any, len(n.fields))
		for i, f := range n.fields {
			v, err := p.assemble(f)
			if err != nil {
				return nil, err
			}
			rec[i] = v
		}
		return rec, nil
	case nodeList:
		list := []any{}
		for {
			v, err := p.assemble(n.elem)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if !p.continues(n) {
				return list, nil
			}
		}
	}
	m := map[string]any{}
	for {
		k, err := p.assemble(n.key)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, errors.New("a map key is null")
		}
		if m[key], err = p.assemble(n.elem); err != nil {
			return nil, err
		}
		if !p.continues(n) {
			return m, nil
		}
	}
}

// skipRows skips the next rows rows of the column. The leaves skip
// lazily, on their next read, so that rows skipped up to the end of a row
// group cost nothing.
func (p *colPlan) skipRows(rows int) {
	for _, l := range p.leaves {
		l.skip += rows
	}
}

// readRows reads the rows at the ascending indexes sel of the next rows
// rows of the column into out, reading runs of consecutive rows at once
// and skipping the others.
func (p *colPlan) readRows(sel []int32, rows int, out *Vector) error {
	next := 0 // the first row not yet read or skipped
	for i := 0; i < len(sel); {
		j := i + 1
		for j < len(sel) && sel[j] == sel[j-1]+1 {
			j++
		}
		p.skipRows(int(sel[i]) - next)
		if err := p.read(j-i, out); err != nil {
			return err
		}
		next = int(sel[j-1]) + 1
		i = j
	}
	p.skipRows(rows - next)
	return nil
}

// start begins reading row group rg.
func (p *colPlan) start(rg parquet.RowGroup) {
	for _, l := range p.leaves {
		l.start(rg)
	}
}

// close releases the plan's page readers.
func (p *colPlan) close() error {
	var errs []error
	for _, l := range p.leaves {
		errs = append(errs, l.close())
	}
	return errors.Join(errs...)
}

// fileReader reads the row groups of one base file that the filter may
// need, batch by batch.
type fileReader struct {
	slice  FileSlice
	bf     *basefile.File
	plans  []*colPlan // by read column
	groups []int      // the row groups to read
	left   int64      // rows left in the current row group
	// filter, if not nil, selects the rows returned; filterCols are the
	// read columns it reads, by read column.
	filter     pred
	filterCols []bool
	truths     []truth // the filter's value for each row of the batch
	sel        []int32 // the rows of the batch for which it is true
	// keys, if not nil, tells record keys certainly not in the file.
	keys func(string) bool
	// groupSource describes the columns over a row group, for pageRanges.
	groupSource func(parquet.RowGroup) rangeSource
	// ranges, if not nil, are the runs of rows of the current row group
	// left to read (with a filter, by page statistics); rowsInGroup is
	// the row group's size.
	ranges      []rowRange
	rowsInGroup int64
}

// computedMeta returns the value of a meta column that a file without meta
// fields still determines: the commit time is the file's instant (the
// latest time its records could have been written), the partition path
// and file name are the file's. ok is false for the record key and
// sequence number, which cannot be known.
func computedMeta(name string, slice FileSlice) (string, bool) {
	switch name {
	case basefile.MetaCommitTime:
		return slice.Instant, true
	case basefile.MetaPartitionPath:
		return slice.Partition, true
	case basefile.MetaFileName:
		return path.Base(slice.Path), true
	}
	return "", false
}

// ComputedMeta returns the values that a scan gives the meta columns of the
// rows of slice's file when the table does not populate meta fields, by
// column name: the commit time, partition path and file name (see
// computedMeta). The record key and sequence number are not among them: a
// scan reads them from the file, null where it does not store them.
func ComputedMeta(slice FileSlice) map[string]string {
	meta := make(map[string]string, 3)
	for _, name := range basefile.MetaFieldNames {
		if v, ok := computedMeta(name, slice); ok {
			meta[name] = v
		}
	}
	return meta
}

// textVector returns a one-value string vector.
func textVector(s string) *Vector {
	v := newVector(basefile.Nullable(basefile.Primitive(basefile.KindString)))
	v.appendBytes([]byte(s))
	return v
}

// readBatch reads the next rows of the file, at most maxRows, and puts
// those the filter selects (all without a filter) into b, whose columns are
// the scan's read columns. It returns the number of rows read, and
// errEndOfFile after the last row group.
//
// With a filter, it materializes late: it decodes the filter's columns,
// evaluates the filter, and then decodes only the selected rows of the
// other columns, skipping the rest, whole pages by the offset index.
func (f *fileReader) readBatch(b *Batch, maxRows int) (n int, err error) {
	defer func() {
		if r := recover(); r != nil { // parquet-go panics on some corrupt pages
			err = fmt.Errorf("corrupt data: %v", r)
		}
	}()
	for {
		for f.left == 0 {
			if len(f.groups) == 0 {
				return 0, errEndOfFile
			}
			rg := f.bf.RowGroups()[f.groups[0]]
			f.groups = f.groups[1:]
			f.left, f.rowsInGroup, f.ranges = rg.NumRows(), rg.NumRows(), nil
			for _, p := range f.plans {
				p.start(rg)
			}
			if f.filter != nil {
				f.ranges = f.pageRanges(rg, f.groupSource(rg))
			}
		}
		if skip := f.skipToRange(); skip == 0 {
			break
		}
	}
	n = int(min(int64(maxRows), f.left))
	if f.ranges != nil {
		n = int(min(int64(n), f.ranges[0].end-(f.rowsInGroup-f.left)))
	}
	for i, p := range f.plans {
		if f.filter == nil || f.filterCols[i] {
			b.cols[i].reset()
			if err := p.read(n, b.cols[i]); err != nil {
				return 0, err
			}
		}
	}
	f.left -= int64(n)
	b.n = n
	if f.filter == nil {
		return n, nil
	}
	f.selectRows(b)
	for i, p := range f.plans {
		if f.filterCols[i] {
			if len(f.sel) < n {
				b.cols[i].keep(f.sel)
			}
			continue
		}
		b.cols[i].reset()
		if err := p.readRows(f.sel, n, b.cols[i]); err != nil {
			return 0, err
		}
	}
	b.n = len(f.sel)
	return n, nil
}

// skipToRange skips the rows of the current row group before the next run
// of f.ranges, or all that are left when no run is, and returns how many
// it skipped.
func (f *fileReader) skipToRange() int64 {
	if f.ranges == nil {
		return 0
	}
	row := f.rowsInGroup - f.left
	for len(f.ranges) > 0 && f.ranges[0].end <= row {
		f.ranges = f.ranges[1:]
	}
	skip := f.left
	if len(f.ranges) > 0 {
		skip = max(f.ranges[0].start-row, 0)
	}
	if skip > 0 {
		for _, p := range f.plans {
			p.skipRows(int(skip))
		}
		f.left -= skip
	}
	return skip
}

// selectRows sets f.sel to the rows of b, whose filter columns are read,
// for which the filter is true.
func (f *fileReader) selectRows(b *Batch) {
	if cap(f.truths) < b.n {
		f.truths = make([]truth, b.n)
	}
	truths := f.truths[:b.n]
	f.filter.eval(b, truths)
	f.sel = f.sel[:0]
	for i, t := range truths {
		if t == tTrue {
			f.sel = append(f.sel, int32(i))
		}
	}
}

// takePagesSkipped returns the pages the file's leaves skipped since the
// last call.
func (f *fileReader) takePagesSkipped() int64 {
	var n int64
	for _, p := range f.plans {
		for _, l := range p.leaves {
			n += int64(l.pagesSkipped)
			l.pagesSkipped = 0
		}
	}
	return n
}

// errEndOfFile ends a file's rows.
var errEndOfFile = errors.New("end of file")

// close releases the file.
func (f *fileReader) close() error {
	var errs []error
	for _, p := range f.plans {
		errs = append(errs, p.close())
	}
	return errors.Join(append(errs, f.bf.Close())...)
}

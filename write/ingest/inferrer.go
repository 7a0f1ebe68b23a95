package ingest

// The Inferrer: the schema of whole records, inferred as they come, in
// parts merged in order, and the records converted to rows of it.

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// InferOptions configures an Inferrer.
type InferOptions struct {
	// Table is the schema of the table the records are written to, without
	// meta fields, or nil for a table without a schema yet. Its name and
	// namespace name the inferred schema (which is "record" otherwise), and
	// the types of its columns are preferred (see Inferrer).
	Table *basefile.Schema
	// Text tells that strings are untyped text, as CSV fields are: text
	// that reads as a JSON number infers long or double, "true" or "false"
	// (in any case) boolean, and two primitive types that conflict join to
	// string rather than fail.
	Text bool
}

// An Inferrer turns loosely typed records into rows of one schema, inferring
// the schema as the records come.
//
// A column of the table whose values all fit the table's type (see
// CoerceValue) keeps that type. A number that does not fit but widens the
// column along int -> long -> float -> double (3.5 in an int column) has
// its type inferred instead, so that a writer can widen the column; any
// other value that does not fit ("abc" in a long column) is an error naming
// the column, the value and why. Inside records, arrays and maps only the
// parts that do not fit are inferred.
// Other columns are inferred as Spark infers JSON: a whole number is a long,
// another number a double, a bool a boolean, a string a string, an object a
// record (fields in first-seen order, named after the field holding it in
// the namespace of the enclosing record's full name), an array an array of
// its elements' type; a column only ever null is a string, but for
// IsDeletedField, a boolean. Types are joined
// across records and elements: int and long give long, other mixes of
// numbers double, and a field missing from some records is nullable; other
// mixes (string and long, say) are an error naming the column and both
// types. Columns are in first-seen order, and all nullable.
type Inferrer struct {
	ty        typer
	name      string // of the inferred record
	namespace string
	full      string // the record's full name
	table     *basefile.Schema
	cols      []inferColumn
	index     map[string]int // column index by name
	// chunks hold the rows, up to rowChunk to a chunk: growing one slice
	// of millions of rows would copy it over and over. Merge moves the
	// chunks of another Inferrer over, so that chunks but the last may be
	// short too.
	chunks [][][]any
	n      int              // the number of rows
	next   []*basefile.Type // the column types once the record being added is in
}

// rowChunk is the number of rows a chunk of Inferrer.chunks holds when Add
// starts it.
const rowChunk = 4096

type inferColumn struct {
	name string
	pref *basefile.Type // the table column's type made nullable, or nil
	typ  *basefile.Type // the join of the types of the values so far
	rows int            // the number of records whose values reach the column
}

// NewInferrer returns an Inferrer holding no records.
func NewInferrer(opts InferOptions) *Inferrer {
	in := &Inferrer{ty: typer{text: opts.Text}, name: "record", table: opts.Table, index: map[string]int{}}
	if opts.Table != nil {
		in.name, in.namespace = opts.Table.Name, opts.Table.Namespace
	}
	in.full = basefile.FullName(in.name, in.namespace, "")
	return in
}

// Column returns the index of the column name in the values Add takes,
// adding the column if it is new. A name that is not a valid Avro name is an
// error.
func (in *Inferrer) Column(name string) (int, error) {
	if i, ok := in.index[name]; ok {
		return i, nil
	}
	if !basefile.ValidName(name) {
		return 0, fmt.Errorf("column %q: not a valid column name (letters, digits and _, not starting with a digit)", name)
	}
	c := inferColumn{name: name}
	if in.table != nil {
		if f, ok := in.table.Field(name); ok {
			c.pref = nullable(f.Type)
		}
	}
	in.index[name] = len(in.cols)
	in.cols = append(in.cols, c)
	return len(in.cols) - 1, nil
}

// Add adds a record: values[i] is the loose value of column i (see Column),
// and columns past the end of values are null. The Inferrer keeps values as
// the record's row and converts it in place in Finish. An error names the
// column and the problem, and leaves the Inferrer as it was.
func (in *Inferrer) Add(values []any) error {
	if len(values) > len(in.cols) {
		return fmt.Errorf("ingest: %d values for %d columns", len(values), len(in.cols))
	}
	in.next = in.next[:0]
	for i, v := range values {
		c := &in.cols[i]
		t, err := in.ty.typeOf(v, c.pref, c.name, in.full)
		if err == nil {
			t, err = join(c.typ, t, in.ty.text, "records")
		}
		if err != nil {
			err.column = c.name
			return err
		}
		in.next = append(in.next, t)
	}
	for i, t := range in.next {
		in.cols[i].typ, in.cols[i].rows = t, in.cols[i].rows+1
	}
	if k := len(in.chunks); k == 0 || len(in.chunks[k-1]) == cap(in.chunks[k-1]) {
		in.chunks = append(in.chunks, make([][]any, 0, rowChunk))
	}
	last := &in.chunks[len(in.chunks)-1]
	*last = append(*last, values)
	in.n++
	return nil
}

// Merge adds the records of other after those of in, as if Add had added
// them to in one by one, each with null for the columns of in it lacks
// (which matters for a column of the table: null has the column's type).
// Records can so be inferred in parts, each by an Inferrer of its own, and
// merged in order. The columns of other that in lacks are added after in's,
// in other's order.
//
// Joining the types part by part gives the types that joining them record
// by record does, and a conflict in one as in the other. An error names a
// column whose types conflict, not a record; it leaves in as it was, so that
// the caller can add other's records again by Add to learn which record
// conflicts. other must have been made with the options in was made with,
// and must not be used afterwards.
func (in *Inferrer) Merge(other *Inferrer) error {
	if other.ty != in.ty || other.table != in.table {
		return fmt.Errorf("ingest: merge of Inferrers made with different options")
	}
	// in.next holds the types of the columns once merged, in's then the
	// new ones, and at the index in in of each column of other.
	in.next = in.next[:0]
	for j, c := range in.cols {
		in.next = append(in.next, c.typ)
		// The records of other that lack the column hold null there,
		// which has the table's type.
		if k, ok := other.index[c.name]; c.pref != nil && other.n > 0 && (!ok || other.cols[k].rows < other.n) {
			var err *valueError
			if in.next[j], err = join(in.next[j], c.pref, in.ty.text, "records"); err != nil {
				err.column = c.name
				return err
			}
		}
	}
	at := make([]int, len(other.cols))
	for i, c := range other.cols {
		j, ok := in.index[c.name]
		if !ok {
			at[i] = len(in.next)
			in.next = append(in.next, c.typ)
			continue
		}
		at[i] = j
		var err *valueError
		if in.next[j], err = join(in.next[j], c.typ, in.ty.text, "records"); err != nil {
			err.column = c.name
			return err
		}
	}
	for j := range in.cols {
		in.cols[j].typ, in.cols[j].rows = in.next[j], in.cols[j].rows+other.n
	}
	moved := false
	for i, c := range other.cols {
		if at[i] >= len(in.cols) {
			c.typ = in.next[at[i]]
			in.index[c.name] = len(in.cols)
			in.cols = append(in.cols, c)
		}
		moved = moved || at[i] != i
	}
	for _, chunk := range other.chunks {
		if moved {
			renumber(chunk, at)
		}
		in.chunks = append(in.chunks, chunk)
	}
	in.n += other.n
	other.chunks, other.n = nil, 0
	return nil
}

// renumber replaces each row of rows, values by column, by one with value i
// at column at[i].
func renumber(rows [][]any, at []int) {
	widths := make([]int, len(rows))
	total := 0
	for r, row := range rows {
		for i := range row {
			widths[r] = max(widths[r], at[i]+1)
		}
		total += widths[r]
	}
	slab := make([]any, total)
	for r, row := range rows {
		out := slab[:widths[r]:widths[r]]
		slab = slab[widths[r]:]
		for i, v := range row {
			out[at[i]] = v
		}
		rows[r] = out
	}
}

// NumColumns returns the number of columns.
func (in *Inferrer) NumColumns() int { return len(in.cols) }

// Len returns the number of records added.
func (in *Inferrer) Len() int { return in.n }

// Finish returns the inferred schema, its columns in first-seen order, and
// the records as its rows, in the order added and in the value model. The
// Inferrer must not be used afterwards.
func (in *Inferrer) Finish() (*basefile.Schema, [][]any, error) {
	if len(in.cols) == 0 {
		return nil, nil, fmt.Errorf("ingest: the records have no columns")
	}
	fields := make([]basefile.Field, len(in.cols))
	for i, c := range in.cols {
		t := resolved(c.typ)
		if c.typ == nil && c.name == basefile.IsDeletedField {
			t = basefile.Primitive(basefile.KindBoolean)
		}
		t.Nullable = true
		fields[i] = basefile.Field{Name: c.name, Type: t}
	}
	s := &basefile.Schema{Name: in.name, Namespace: in.namespace, Fields: fields}
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	rows := make([][]any, 0, in.n)
	for _, chunk := range in.chunks {
		rows = append(rows, chunk...)
	}
	in.chunks = nil
	// The rows are converted in parts, rowChunk rows at least, one a
	// core; the error is the first part's that has one.
	parts := max(1, min(runtime.GOMAXPROCS(0), len(rows)/rowChunk))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		convert := func() { errs[p] = convertRows(rows, p*len(rows)/parts, (p+1)*len(rows)/parts, fields) }
		if p == parts-1 {
			convert()
		} else {
			wg.Go(convert)
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return s, rows, nil
}

// RowError is an error of Inferrer.Finish about one of the records added:
// a value that does not take the type its column ended with.
type RowError struct {
	Row int // the record's index, from 0, in the order added
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("ingest: record %d: %v", e.Row+1, e.Err) }

func (e *RowError) Unwrap() error { return e.Err }

// convertRows converts rows[from:to] in place to values of the types of
// fields. An error is about the first row that does not convert.
func convertRows(rows [][]any, from, to int, fields []basefile.Field) error {
	for r := from; r < to; r++ {
		row := rows[r]
		if len(row) < len(fields) {
			row = append(row, make([]any, len(fields)-len(row))...)
		}
		for i, v := range row {
			cv, err := coerce(v, fields[i].Type)
			if err != nil {
				err.column = fields[i].Name
				return &RowError{Row: r, Err: err}
			}
			row[i] = cv
		}
		rows[r] = row
	}
	return nil
}

package basefile

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// NewRecordMeta is what WriteNew puts in the meta fields of new records.
type NewRecordMeta struct {
	// CommitTime is the _hoodie_commit_time of every record: the instant.
	CommitTime string
	// SeqNoPrefix starts every _hoodie_commit_seqno: a record's is the
	// prefix followed by its sequence number in decimal, as Hudi numbers
	// records (instant_task_n).
	SeqNoPrefix string
	// PartitionPath and FileName are the _hoodie_partition_path and the
	// _hoodie_file_name of every record.
	PartitionPath string
	FileName      string
}

// NewRecordError is the error WriteNew returns about one of its records.
// The writer has failed with it.
type NewRecordError struct {
	// Index is the record's index in the rows given to WriteNew.
	Index int
	// Key is the record's key, "" when WriteNew was given no keys.
	Key string
	Err error
}

func (e *NewRecordError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("new record %d (key %q): %v", e.Index, e.Key, e.Err)
	}
	return fmt.Sprintf("new record %d: %v", e.Index, e.Err)
}

// Unwrap returns the cause.
func (e *NewRecordError) Unwrap() error { return e.Err }

// newRecordsChunk is how many records WriteNew turns into column values at
// once. A chunk goes into each column in one call, so a page may exceed the
// page size by a chunk's values: 1,024 keys of 36 bytes are 37 KB.
const newRecordsChunk = 1024

// newColumns is the scratch memory of WriteNew, kept between calls (and
// so holding on to the last chunk's values until the writer is done).
type newColumns struct {
	values    [][]parquet.Value // per leaf column, the chunk's values
	seqNos    []byte            // the chunk's sequence numbers, back to back
	seqNoEnds []int             // where each of them ends in seqNos
	flat      []any             // the chunk's data values, row by row
	scratch   parquet.Row       // one nested field of one record, shredded
}

// WriteNew writes new records column by column: rows[i] holds the values
// of the data fields (the schema without meta fields, in the value model)
// and keys[i] the record key of record i, which gets the meta fields of
// meta and the sequence number firstSeqNo+i. A writer without meta fields
// (Options.NoMetaFields) writes the rows as they are and ignores
// meta; keys may then be nil, and name the records in errors if not.
//
// It does what WriteRow does for each record, at a fraction of the cost:
// the values go into each column's buffer a chunk at a time, without being
// assembled into Parquet rows and taken apart again. An error names the
// record (a *NewRecordError) and the field; any error is final: call Abort.
func (w *Writer) WriteNew(meta *NewRecordMeta, firstSeqNo int64, keys []string, rows [][]any) error {
	if err := w.usable(); err != nil {
		return err
	}
	switch {
	case w.keyed && meta == nil:
		return w.fail(errors.New("write new records: no meta fields given"))
	case (w.keyed || keys != nil) && len(keys) != len(rows):
		return w.fail(fmt.Errorf("write new records: %d keys for %d rows", len(keys), len(rows)))
	}
	// Rows of WriteRow go first: every column must hold whole rows.
	if err := w.writeBatch(); err != nil {
		return err
	}
	for start := 0; start < len(rows); start += newRecordsChunk {
		if err := w.ctx.Err(); err != nil {
			return w.fail(err)
		}
		end := min(start+newRecordsChunk, len(rows))
		var chunkKeys []string
		if keys != nil {
			chunkKeys = keys[start:end]
		}
		if w.keyed {
			for r, key := range chunkKeys {
				if key == "" {
					return w.fail(newRecordError(start, chunkKeys, r, fmt.Errorf("field %s must be a non-empty string", MetaRecordKey)))
				}
			}
		}
		var err error
		if w.columnar != nil {
			err = w.newColumnarChunk(meta, firstSeqNo, start, chunkKeys, rows[start:end])
		} else {
			err = w.newChunk(meta, firstSeqNo, start, chunkKeys, rows[start:end])
		}
		if err != nil {
			return w.fail(err)
		}
		if err := w.checkRowGroup(); err != nil {
			return err
		}
	}
	return nil
}

// newChunk writes the records of WriteNew from index first on, keys (all
// non-empty in a file with meta fields) and rows, through parquet-go's
// column writers.
func (w *Writer) newChunk(meta *NewRecordMeta, firstSeqNo int64, first int, keys []string, rows [][]any) error {
	if w.newCols == nil {
		w.newCols = &newColumns{values: make([][]parquet.Value, len(w.pw.ColumnWriters()))}
	}
	c := w.newCols
	for i := range c.values {
		c.values[i] = c.values[i][:0]
	}
	fields := w.plan.fields
	if w.keyed {
		c.addMeta(w.plan, meta, firstSeqNo+int64(first), keys)
		fields = fields[NumMetaFields:]
	}
	// The values are first copied out of the rows, then taken a field at a
	// time: the rows and the values they point to lie anywhere in memory
	// (records come in key order, not input order), and loads that do not
	// wait on each other overlap their cache misses.
	c.flat = c.flat[:0]
	for r, row := range rows {
		if len(row) != len(fields) {
			return newRecordError(first, keys, r, fmt.Errorf("storage: row has %d values, the schema %d data fields", len(row), len(fields)))
		}
		c.flat = append(c.flat, row...)
	}
	for i, n := range fields {
		if r, err := c.addField(n, i, len(fields), len(rows)); err != nil {
			return newRecordError(first, keys, r, err)
		}
	}
	for i, col := range w.pw.ColumnWriters() {
		w.noteNaNs(c.values[i])
		if _, err := col.WriteRowValues(c.values[i]); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	w.addNewKeys(keys, len(rows))
	return nil
}

// newColumnarChunk is newChunk for a writer of its own columns.
func (w *Writer) newColumnarChunk(meta *NewRecordMeta, firstSeqNo int64, first int, keys []string, rows [][]any) error {
	if !w.keyed {
		meta = nil
	}
	if r, err := w.columnar.writeNew(w.plan, meta, firstSeqNo+int64(first), keys, rows); err != nil {
		return newRecordError(first, keys, r, err)
	}
	w.addNewKeys(keys, len(rows))
	return w.columnar.endPages()
}

// addNewKeys counts n new records written, and records their keys when the
// file has meta fields.
func (w *Writer) addNewKeys(keys []string, n int) {
	if !w.keyed {
		w.numRows += int64(n)
		return
	}
	for _, key := range keys {
		w.addKey(key, true)
	}
}

// newRecordError is err about record r of the chunk of keys whose first
// record is WriteNew's record first.
func newRecordError(first int, keys []string, r int, err error) error {
	e := &NewRecordError{Index: first + r, Err: err}
	if keys != nil {
		e.Key = keys[r]
	}
	return e
}

// addMeta appends the meta fields of a chunk of new records with keys, all
// non-empty, to their columns: the meta fields are the first five, flat.
func (c *newColumns) addMeta(plan *rowPlan, meta *NewRecordMeta, firstSeqNo int64, keys []string) {
	c.seqNos, c.seqNoEnds = c.seqNos[:0], c.seqNoEnds[:0]
	for i := range keys {
		c.seqNos = append(c.seqNos, meta.SeqNoPrefix...)
		c.seqNos = strconv.AppendInt(c.seqNos, firstSeqNo+int64(i), 10)
		c.seqNoEnds = append(c.seqNoEnds, len(c.seqNos))
	}
	ends := c.seqNoEnds
	constant := func(field int, s string) parquet.Value {
		n := plan.fields[field]
		return parquet.ByteArrayValue(stringBytes(s)).Level(0, n.def, n.first)
	}
	commitTime := constant(MetaCommitTimePos, meta.CommitTime)
	partition := constant(MetaPartitionPathPos, meta.PartitionPath)
	fileName := constant(MetaFileNamePos, meta.FileName)
	seqNode, keyNode := plan.fields[MetaSeqNoPos], plan.fields[MetaRecordKeyPos]
	start := 0
	for i, key := range keys {
		seqNo := parquet.ByteArrayValue(c.seqNos[start:ends[i]:ends[i]]).Level(0, seqNode.def, seqNode.first)
		start = ends[i]
		c.values[MetaCommitTimePos] = append(c.values[MetaCommitTimePos], commitTime)
		c.values[MetaSeqNoPos] = append(c.values[MetaSeqNoPos], seqNo)
		c.values[MetaRecordKeyPos] = append(c.values[MetaRecordKeyPos], parquet.ByteArrayValue(stringBytes(key)).Level(0, keyNode.def, keyNode.first))
		c.values[MetaPartitionPathPos] = append(c.values[MetaPartitionPathPos], partition)
		c.values[MetaFileNamePos] = append(c.values[MetaFileNamePos], fileName)
	}
}

// addField appends the values of field n, at index i of each of the
// chunk's rows of stride values in c.flat, to their columns, and on error
// returns the row that failed. Strings, longs and doubles are converted in
// a loop of their own; anything else goes through add.
func (c *newColumns) addField(n *valueNode, i, stride, rows int) (int, error) {
	if n.kind != leafValue {
		for r := range rows {
			if err := c.add(n, c.flat[r*stride+i]); err != nil {
				return r, err
			}
		}
		return 0, nil
	}
	col := c.values[n.first]
	for r := range rows {
		v := c.flat[r*stride+i]
		pv, ok := plainValue(n.leaf.codec, v)
		if !ok {
			c.values[n.first] = col
			if err := c.add(n, v); err != nil {
				return r, err
			}
			col = c.values[n.first]
			continue
		}
		col = append(col, pv.Level(0, n.def, n.first))
	}
	c.values[n.first] = col
	return 0, nil
}

// plainValue returns the Parquet value of v for a leaf column of codec when
// v is a string, long or double that codec takes as it is, and false for
// anything else (which encode handles, checks and reports).
func plainValue(codec codec, v any) (parquet.Value, bool) {
	switch v := v.(type) {
	case string:
		return parquet.ByteArrayValue(stringBytes(v)), codec == codecString
	case int64:
		return parquet.Int64Value(v), codec == codecInt64
	case float64:
		return parquet.DoubleValue(v), codec == codecDouble
	}
	return parquet.Value{}, false
}

// add appends the Parquet values of v, a value of the field n, to their
// columns.
func (c *newColumns) add(n *valueNode, v any) error {
	if n.kind != leafValue {
		// A nested field: shredded as a row would be, its values come
		// column by column.
		s := shredder{row: c.scratch[:0]}
		if err := s.shred(n, v, 0, -1); err != nil {
			return err
		}
		c.scratch = s.row
		for _, pv := range s.row {
			c.values[pv.Column()] = append(c.values[pv.Column()], pv)
		}
		return nil
	}
	if v == nil {
		if !n.optional {
			return n.nullError()
		}
		c.values[n.first] = append(c.values[n.first], parquet.Value{}.Level(0, n.def-1, n.first))
		return nil
	}
	pv, err := n.encode(v, nil)
	if err != nil {
		return err
	}
	c.values[n.first] = append(c.values[n.first], pv.Level(0, n.def, n.first))
	return nil
}

package basefile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// carryBatch is how many values CarryRowGroup reads at once.
const carryBatch = 1024

// CarryRowGroup writes the rows of rowGroup, a row group of a base file with
// the writer's Parquet schema (the previous version of the file group),
// column by column: values go from the old column chunks to the new ones
// without being assembled into rows and taken apart again, which costs far
// less than reading and writing rows. Rows whose record key take returns
// true for are not written but returned, whole, for the caller to merge;
// take must not keep the key. Every row, written or returned, gets fileName
// as its _hoodie_file_name. The keys of the rows written are left out of the
// bloom filter, as with CarryRows. Any error is final: call Abort.
func (w *Writer) CarryRowGroup(rowGroup parquet.RowGroup, fileName string, take func(key []byte) bool) ([]parquet.Row, error) {
	if err := w.usable(); err != nil {
		return nil, err
	}
	if w.columnar != nil {
		return nil, w.fail(errNewRecordsOnly)
	}
	if !parquet.EqualNodes(rowGroup.Schema(), w.pw.Schema()) {
		return nil, w.fail(errors.New("carry a row group: its Parquet schema is not the file's"))
	}
	// Rows of WriteRow go first: every column must hold whole rows.
	if err := w.writeBatch(); err != nil {
		return nil, err
	}
	c := rowGroupCarry{noteNaNs: w.noteNaNs}
	err := catchPanic(func() error {
		schema, columns := w.pw.Schema(), w.pw.ColumnWriters()
		// The keys decide which rows are taken, so their column goes first.
		if err := w.copyKeys(&c, columns[MetaRecordKeyPos], rowGroup, take); err != nil {
			return fmt.Errorf("column %d: %w", MetaRecordKeyPos, err)
		}
		for i, path := range schema.Columns() {
			if err := w.ctx.Err(); err != nil {
				return err
			}
			dst, src := columns[i], rowGroup.ColumnChunks()[i]
			var err error
			switch leaf, _ := schema.Lookup(path...); {
			case i == MetaRecordKeyPos:
				for j, key := range c.takenKeys {
					c.taken[j] = append(c.taken[j], key)
				}
			case i == MetaFileNamePos:
				err = c.fill(dst, parquet.ByteArrayValue([]byte(fileName)).Level(0, leaf.MaxDefinitionLevel, i))
			case leaf.MaxRepetitionLevel == 0:
				err = c.copyFlat(dst, src)
			default:
				err = c.copyRepeated(dst, src)
			}
			if err != nil {
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, w.fail(fmt.Errorf("carry a row group: %w", err))
	}
	return c.taken, w.checkRowGroup()
}

// rowGroupCarry is the state of one CarryRowGroup.
type rowGroupCarry struct {
	numRows   int64
	takenRows []int64         // positions of the rows taken, in order
	takenKeys []parquet.Value // their record keys, copied
	taken     []parquet.Row   // their values, column by column as they are read
	buf       []parquet.Value
	noteNaNs  func([]parquet.Value) // told of every batch of values read
}

// copyKeys copies the record keys of rowGroup to dst like copyFlat, but
// decides as it goes which rows are taken, asking take. The keys of the
// rows written are recorded as written.
func (w *Writer) copyKeys(c *rowGroupCarry, dst *parquet.ColumnWriter, rowGroup parquet.RowGroup, take func(key []byte) bool) error {
	c.numRows = rowGroup.NumRows()
	c.buf = make([]parquet.Value, carryBatch)
	write := rowWriter(dst)
	var row int64
	err := c.eachBatch(rowGroup.ColumnChunks()[MetaRecordKeyPos], func(batch []parquet.Value) error {
		run := 0 // start of the values not written yet
		for i, v := range batch {
			key := v.ByteArray()
			switch {
			case len(key) == 0:
				return fmt.Errorf("row %d: no %s value, or an empty one", row, MetaRecordKey)
			case take(key):
				if err := write(batch[run:i]); err != nil {
					return err
				}
				c.takenRows = append(c.takenRows, row)
				c.takenKeys = append(c.takenKeys, v.Clone())
				run = i + 1
			default:
				w.addKey(unsafeString(key), !w.seeded)
			}
			row++
		}
		return write(batch[run:])
	})
	if err == nil && row != c.numRows {
		err = fmt.Errorf("%d record keys for %d rows", row, c.numRows)
	}
	c.taken = make([]parquet.Row, len(c.takenRows))
	return err
}

// fill writes v as the value of a column of every row not taken, and
// appends it to the taken rows.
func (c *rowGroupCarry) fill(dst *parquet.ColumnWriter, v parquet.Value) error {
	for i := range c.buf {
		c.buf[i] = v
	}
	for left := c.numRows - int64(len(c.takenRows)); left > 0; {
		n := min(left, int64(len(c.buf)))
		if _, err := dst.WriteRowValues(c.buf[:n]); err != nil {
			return err
		}
		left -= n
	}
	for i := range c.taken {
		c.taken[i] = append(c.taken[i], v)
	}
	return nil
}

// copyFlat writes the values of src, a column chunk of a column that is not
// repeated, to dst, except those of the taken rows, which are appended,
// copied, to them. Each value is a row.
func (c *rowGroupCarry) copyFlat(dst *parquet.ColumnWriter, src parquet.ColumnChunk) error {
	write := rowWriter(dst)
	var (
		row  int64 // the row of the batch's first value
		next int   // index in takenRows of the next row to take
	)
	err := c.eachBatch(src, func(batch []parquet.Value) error {
		run := 0 // start of the values not written yet
		for ; next < len(c.takenRows) && c.takenRows[next] < row+int64(len(batch)); next++ {
			i := int(c.takenRows[next] - row)
			if err := write(batch[run:i]); err != nil {
				return err
			}
			c.taken[next] = append(c.taken[next], batch[i].Clone())
			run = i + 1
		}
		row += int64(len(batch))
		return write(batch[run:])
	})
	if err == nil && row != c.numRows {
		err = fmt.Errorf("%d rows, %d expected", row, c.numRows)
	}
	return err
}

// copyRepeated is copyFlat for a repeated column, whose rows may hold any
// number of values.
//
// dst takes whole rows only (it may end a page after any call), while a
// batch of values read may end inside a row: the values of the row a batch
// ends with are copied aside, and written once the row is complete.
func (c *rowGroupCarry) copyRepeated(dst *parquet.ColumnWriter, src parquet.ColumnChunk) error {
	write := rowWriter(dst)
	var (
		row     int64 = -1 // the row of the last value read
		next    int        // index in takenRows of the next row to take
		current = -1       // index in taken of the current row; -1 if it is written
		partial []parquet.Value
	)
	err := c.eachBatch(src, func(batch []parquet.Value) error {
		run := 0 // start of the values to write not written yet
		for i, v := range batch {
			if v.RepetitionLevel() == 0 {
				// A row starts: the previous one is complete.
				if len(partial) > 0 {
					if err := write(appendClones(partial, batch[run:i])); err != nil {
						return err
					}
					partial, run = partial[:0], i
				}
				row++
				switch {
				case next < len(c.takenRows) && c.takenRows[next] == row:
					if err := write(batch[run:i]); err != nil {
						return err
					}
					current = next
					next++
				case current >= 0:
					current, run = -1, i
				}
			}
			if current >= 0 {
				c.taken[current] = append(c.taken[current], v.Clone())
				run = i + 1
			}
		}
		if current >= 0 {
			return nil
		}
		// Write the complete rows; set the last one aside, as it may go on
		// in the next batch.
		last := run
		for i := len(batch) - 1; i > run; i-- {
			if batch[i].RepetitionLevel() == 0 {
				last = i
				break
			}
		}
		partial = appendClones(partial, batch[last:])
		return write(batch[run:last])
	})
	if err != nil {
		return err
	}
	if row+1 != c.numRows || next != len(c.takenRows) {
		return fmt.Errorf("%d rows, %d expected", row+1, c.numRows)
	}
	return write(partial)
}

// eachBatch reads the values of src, calling fn with each batch read. The
// values of a batch are valid until fn returns.
func (c *rowGroupCarry) eachBatch(src parquet.ColumnChunk, fn func(batch []parquet.Value) error) error {
	values := parquet.NewColumnChunkValueReader(src)
	defer values.Close()
	for {
		n, err := values.ReadValues(c.buf)
		if n > 0 {
			c.noteNaNs(c.buf[:n])
			if err := fn(c.buf[:n]); err != nil {
				return err
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
	}
}

// rowWriter returns a function writing whole rows of values to dst.
func rowWriter(dst *parquet.ColumnWriter) func([]parquet.Value) error {
	return func(values []parquet.Value) error {
		if len(values) == 0 {
			return nil
		}
		_, err := dst.WriteRowValues(values)
		return err
	}
}

// appendClones appends copies of values, which own their bytes, to dst.
func appendClones(dst, values []parquet.Value) []parquet.Value {
	for _, v := range values {
		dst = append(dst, v.Clone())
	}
	return dst
}

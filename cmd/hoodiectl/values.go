package main

import (
	"bufio"
	"encoding/csv"
	"io"

	"github.com/hoodie-dev/hoodie/internal/valuefmt"
)

// How `hoodiectl read` and `hoodiectl query` print rows (--format): jsonl,
// one JSON object per row whose keys are the column names; csv, a header
// then a record per row; table, aligned columns for people (see writeTable).
// The values are in the forms of the hoodiectl contract, "Output" (see
// internal/valuefmt).

// rowValues gives a rowWriter the values of the row being printed, which
// is the caller's.
type rowValues struct {
	// appendJSON appends the value of column c as JSON.
	appendJSON func(dst []byte, c int) []byte
	// cell returns the text of column c as a csv or table cell, null for
	// null.
	cell func(c int, null string) string
	// escape escapes the control characters of a table cell.
	escape func(s string) string
}

// rowWriter prints rows in a --format of `read` and `query`.
type rowWriter struct {
	rowValues
	format string
	w      io.Writer
	header []string

	bw    *bufio.Writer // jsonl
	keys  [][]byte      // jsonl: `{"name":` and `,"name":`
	line  []byte        // jsonl
	cw    *csv.Writer   // csv
	cells [][]string    // table
}

// newRowWriter returns a rowWriter printing to w in format ("jsonl", "csv"
// or anything else for "table") rows of the columns named header, whose
// values come from values. For csv it writes the header at once, and
// returns the error of doing so.
func newRowWriter(w io.Writer, format string, header []string, values rowValues) (*rowWriter, error) {
	rw := &rowWriter{rowValues: values, format: format, w: w, header: header}
	switch format {
	case "jsonl":
		rw.bw = bufio.NewWriterSize(w, 64<<10)
		rw.keys = make([][]byte, len(header))
		for i, name := range header {
			sep := byte(',')
			if i == 0 {
				sep = '{'
			}
			rw.keys[i] = append(valuefmt.AppendString([]byte{sep}, name), ':')
		}
	case "csv":
		rw.cw = csv.NewWriter(w)
		if err := rw.cw.Write(header); err != nil {
			return nil, err
		}
	}
	return rw, nil
}

// writeRow prints the current row.
func (rw *rowWriter) writeRow() error {
	switch rw.format {
	case "jsonl":
		line := rw.line[:0]
		for c, key := range rw.keys {
			line = rw.appendJSON(append(line, key...), c)
		}
		if len(rw.keys) == 0 {
			line = append(line, '{')
		}
		rw.line = append(line, '}', '\n')
		_, err := rw.bw.Write(rw.line)
		return err
	case "csv":
		return rw.cw.Write(rw.rowCells(""))
	}
	row := rw.rowCells("NULL")
	for i, s := range row {
		row[i] = rw.escape(s)
	}
	rw.cells = append(rw.cells, row)
	return nil
}

// rowCells returns the cells of the current row.
func (rw *rowWriter) rowCells(null string) []string {
	cells := make([]string, len(rw.header))
	for c := range cells {
		cells[c] = rw.cell(c, null)
	}
	return cells
}

// flush prints what is left: for a table, the whole of it.
func (rw *rowWriter) flush() error {
	switch rw.format {
	case "jsonl":
		return rw.bw.Flush()
	case "csv":
		rw.cw.Flush()
		return rw.cw.Error()
	}
	return writeTable(rw.w, rw.header, rw.cells)
}

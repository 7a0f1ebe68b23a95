package ingest

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// DecodeCSV reads CSV (RFC 4180): a header line naming the columns, then one
// record per row, each with as many fields as the header. Fields are untyped
// text, an empty field is null. A quoted field keeps its bytes exactly, line
// ends ("\r\n" too) included (see csvReader). name and table are as for
// Decode; the records are decoded in blocks as by DecodeJSONL.
func DecodeCSV(ctx context.Context, r io.Reader, name string, table *basefile.Schema) (*write.Input, error) {
	return decodeCSVBlocks(ctx, r, name, table, csvBlockSize)
}

// csvBlockSize is the size of the blocks of records that DecodeCSV decodes
// in parallel.
const csvBlockSize = 4 << 20

// decodeCSVBlocks is DecodeCSV cutting the records after the header into
// blocks of blockSize bytes or so, decoded each on its own and merged in
// input order.
func decodeCSVBlocks(ctx context.Context, r io.Reader, name string, table *basefile.Schema, blockSize int) (*write.Input, error) {
	blocks := &blockReader{r: newTextReader(ctx, r, 4096), size: blockSize, line: 1, quotes: true}
	first := blocks.next(nil)
	cr := newCSVReader(first.data)
	header, perr := cr.read()
	for header == nil && perr == nil && first.err == nil { // a block of blank lines before the header
		first = blocks.next(first.data)
		cr = newCSVReader(first.data)
		header, perr = cr.read()
	}
	switch {
	case perr != nil:
		return nil, csvError(name, perr, first.line)
	case header == nil && first.err != io.EOF:
		return nil, fmt.Errorf("%s: read: %w", name, first.err)
	case header == nil:
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	all := &blockRecords{inf: newCSVInferrer(table)}
	if _, _, err := csvColumns(all.inf, header); err != nil {
		return nil, recordError(name, first.line-1+cr.start, err)
	}
	// The records start after the header.
	first.line += cr.line - 1
	first.data = first.data[cr.pos:]
	decodeInto := func(recs *blockRecords, b lineBlock) error {
		d, err := newCSVDecoder(recs, header)
		if err == nil {
			err = d.decode(name, b)
		}
		return err
	}
	decode := func(b lineBlock) *blockRecords {
		recs := &blockRecords{inf: newCSVInferrer(table)}
		if decodeInto(recs, b) != nil {
			return nil
		}
		return recs
	}
	merge := func(b lineBlock, recs *blockRecords) error {
		err := all.merge(recs, func() error { return decodeInto(all, b) })
		if err == nil && b.err != io.EOF && b.err != nil {
			err = fmt.Errorf("%s: read: %w", name, b.err)
		}
		return err
	}
	if err := decodeBlocks(ctx, name, blocks, first, decode, merge); err != nil {
		return nil, err
	}
	return finishInput(name, all.inf, all.lines)
}

// newCSVInferrer returns an Inferrer for the records of a CSV input written
// to a table of schema table.
func newCSVInferrer(table *basefile.Schema) *Inferrer {
	return NewInferrer(InferOptions{Table: table, Text: true})
}

// csvDecoder turns the records of a CSV input into records of an Inferrer.
type csvDecoder struct {
	*blockRecords       // the records decoded
	cols          []int // the column index of each header field, -1 for meta columns
	numCols       int
	width         int // the number of header fields
	// repeated holds, by column, the values of the strings it repeats.
	repeated []repeatedStrings
}

// newCSVDecoder returns a decoder adding records to recs, whose columns are
// (or become) those of header.
func newCSVDecoder(recs *blockRecords, header []string) (*csvDecoder, error) {
	cols, numCols, err := csvColumns(recs.inf, header)
	if err != nil {
		return nil, err
	}
	return &csvDecoder{blockRecords: recs, cols: cols, numCols: numCols, width: len(header)}, nil
}

// decode adds the records of block b to d.blockRecords. An error names the
// input name and the line.
func (d *csvDecoder) decode(name string, b lineBlock) error {
	d.lines = slices.Grow(d.lines, b.lines+1) // a record a line at most
	cr := newCSVReader(b.data)
	for {
		fields, perr := cr.read()
		if perr != nil {
			return csvError(name, perr, b.line)
		}
		if fields == nil {
			return nil
		}
		line := b.line - 1 + cr.start
		if len(fields) != d.width {
			return recordError(name, line, fmt.Errorf("the header has %d fields, this record %d", d.width, len(fields)))
		}
		row := make([]any, d.numCols)
		for i, f := range fields {
			if col := d.cols[i]; col >= 0 && f != "" {
				row[col] = repeatedValue(repeatedOf(&d.repeated, col), f)
			}
		}
		if err := d.inf.Add(row); err != nil {
			return recordError(name, line, err)
		}
		d.lines = append(d.lines, line)
	}
}

// csvColumns adds the columns of a header line to inf. It returns the column
// index of each header field, -1 for meta columns, and the number of columns.
func csvColumns(inf *Inferrer, header []string) (cols []int, n int, err error) {
	cols = make([]int, len(header))
	for i, h := range header {
		switch {
		case h == "":
			return nil, 0, fmt.Errorf("header field %d is empty; is the header line missing?", i+1)
		case slices.Contains(header[:i], h):
			return nil, 0, fmt.Errorf("the header names column %q twice", h)
		case basefile.IsMetaField(h):
			cols[i] = -1
			continue
		}
		if cols[i], err = inf.Column(h); err != nil {
			return nil, 0, fmt.Errorf("%w; is the header line missing?", err)
		}
		n++
	}
	return cols, n, nil
}

// csvError reports pe, the error of a csvReader reading text of input name
// that starts on line first.
func csvError(name string, pe *csv.ParseError, first int) error {
	return recordError(name, first-1+pe.Line, fmt.Errorf("invalid CSV at column %d: %w", pe.Column, pe.Err))
}

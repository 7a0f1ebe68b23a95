package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// decodeCSV reads CSV (RFC 4180): a header line naming the columns, then one
// record per row, each with as many fields as the header. Fields are untyped
// text, an empty field is null.
func decodeCSV(ctx context.Context, r io.Reader, name string, table *storage.Schema) (*write.Input, error) {
	cr := csv.NewReader(newTextReader(ctx, r, 1<<16))
	cr.ReuseRecord = true
	header, err := cr.Read()
	switch {
	case err == io.EOF:
		return nil, fmt.Errorf("%s: no records", name)
	case err != nil:
		return nil, csvError(name, err, 0, 0)
	}
	inf := storage.NewInferrer(storage.InferOptions{Table: table, Text: true})
	cols, numCols, err := csvColumns(inf, header)
	if err != nil {
		line, _ := cr.FieldPos(0)
		return nil, recordError(name, line, err)
	}
	width := len(header)
	var lines []int
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			return finishInput(name, inf, lines)
		}
		if err != nil {
			return nil, csvError(name, err, len(fields), width)
		}
		line, _ := cr.FieldPos(0)
		row := make([]any, numCols)
		for i, f := range fields {
			if cols[i] >= 0 && f != "" {
				row[cols[i]] = f
			}
		}
		if err := inf.Add(row); err != nil {
			return nil, recordError(name, line, err)
		}
		lines = append(lines, line)
	}
}

// csvColumns adds the columns of a header line to inf. It returns the column
// index of each header field, -1 for meta columns, and the number of columns.
func csvColumns(inf *storage.Inferrer, header []string) (cols []int, n int, err error) {
	cols = make([]int, len(header))
	for i, h := range header {
		switch {
		case h == "":
			return nil, 0, fmt.Errorf("header field %d is empty; is the header line missing?", i+1)
		case slices.Contains(header[:i], h):
			return nil, 0, fmt.Errorf("the header names column %q twice", h)
		case storage.IsMetaField(h):
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

// csvError describes an error reading a CSV record of n fields; width is
// the header's field count.
func csvError(name string, err error, n, width int) error {
	var pe *csv.ParseError
	switch {
	case !errors.As(err, &pe):
		return fmt.Errorf("%s: read: %w", name, err)
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return recordError(name, pe.StartLine, fmt.Errorf("the header has %d fields, this record %d", width, n))
	}
	return recordError(name, pe.Line, fmt.Errorf("invalid CSV at column %d: %w", pe.Column, pe.Err))
}

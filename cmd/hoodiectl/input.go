package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// decodeInput reads the records of a write command's input, in format
// "jsonl", "csv" or "parquet", into a write.Input named name.
//
// table is the table's schema without meta fields, or nil for a table with
// no schema yet. JSON and CSV values take the types of the table's columns
// where they fit them, and have their types inferred otherwise (see
// storage.Inferrer); Parquet values keep the file's types. The input schema
// is named after the table ("record" without one), lists its columns in
// input order and makes each nullable. The five Hudi meta columns, which
// `hoodiectl read` prints, are dropped. An input without records is an
// error.
func decodeInput(ctx context.Context, r io.Reader, name, format string, table *storage.Schema) (*write.Input, error) {
	if err := checkFormat(format, "jsonl", "csv", "parquet"); err != nil {
		return nil, err
	}
	switch format {
	case "csv":
		return decodeCSV(ctx, r, name, table)
	case "parquet":
		return decodeParquet(ctx, r, name, table)
	}
	return decodeJSONL(ctx, r, name, table)
}

// contextReader reads from r until ctx is done.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// newTextReader returns a buffered reader of the text r holds, past any
// UTF-8 byte order mark, that stops when ctx is done.
func newTextReader(ctx context.Context, r io.Reader, size int) *bufio.Reader {
	br := bufio.NewReaderSize(contextReader{ctx, r}, size)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\uFEFF")) {
		br.Discard(len(bom))
	}
	return br
}

// recordError reports a problem with the record on line of input name.
func recordError(name string, line int, err error) error {
	return &write.RecordError{Input: name, Line: line, Err: err}
}

// finishInput returns the records inf holds as the input name; lines are
// their line numbers.
func finishInput(name string, inf *storage.Inferrer, lines []int) (*write.Input, error) {
	if inf.Len() == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	schema, rows, err := inf.Finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &write.Input{Name: name, Schema: schema, Rows: rows, Lines: lines}, nil
}

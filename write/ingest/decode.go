package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/hoodie-dev/hoodie/internal/grow"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// ErrNoRecords is the error of an input without records.
var ErrNoRecords = errors.New("no records")

// Format is the format of an input: how Decode reads its records.
type Format string

// The formats Decode reads.
const (
	JSONL   Format = "jsonl"   // JSON lines (see DecodeJSONL)
	CSV     Format = "csv"     // CSV with a header line (see DecodeCSV)
	Parquet Format = "parquet" // a Parquet file (see DecodeParquet)
)

// Decode reads the records of an input in format into a write.Input named
// name, which errors name too.
//
// table is the table's schema without meta fields, or nil for a table with
// no schema yet. JSON and CSV values take the types of the table's columns
// where they fit them, and have their types inferred otherwise (see
// Inferrer); Parquet values keep the file's types. The input schema is
// named after the table ("record" without one), lists its columns in input
// order and makes each nullable. The five Hudi meta columns, which a read
// of a table prints, are dropped. An input without records is an error, and
// so is a format Decode does not know.
//
// A bad record is one *write.RecordError naming the input, the line (the
// position for Parquet) and the cause. Decode stops when ctx is done.
func Decode(ctx context.Context, r io.Reader, name string, format Format, table *basefile.Schema) (*write.Input, error) {
	switch format {
	case JSONL:
		return DecodeJSONL(ctx, r, name, table)
	case CSV:
		return DecodeCSV(ctx, r, name, table)
	case Parquet:
		return DecodeParquet(ctx, r, name, table)
	}
	return nil, fmt.Errorf("%s: unknown format %q: want %s, %s or %s", name, format, JSONL, CSV, Parquet)
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

// lineBlock is a block of whole lines of a text input.
type lineBlock struct {
	data  []byte // the lines; the last lacks its end of line at the end of the input
	line  int    // the number of the first line
	lines int    // the number of ends of line in data
	err   error  // the error reading on after data; io.EOF at the end of the input
}

// blockReader cuts a text input into blocks of whole lines.
type blockReader struct {
	r    io.Reader
	size int // the size of a block, or so: a block has a line at least
	// quotes tells to cut blocks only where an even number of double
	// quotes comes before, outside the quoted fields of CSV.
	quotes bool
	line   int    // the number of the next block's first line
	rest   []byte // what was read after the last block's end
}

// next reads the next block into buf's memory. After a block with an error
// there are none.
func (br *blockReader) next(buf []byte) lineBlock {
	buf = append(buf[:0], br.rest...)
	// want is the size to read; buf grows as needed, so that a small input
	// takes little memory.
	for want := max(br.size, 1); ; want = 2 * len(buf) {
		var err error
		for len(buf) < want && err == nil {
			if len(buf) == cap(buf) {
				buf = slices.Grow(buf, max(len(buf), 64<<10))
			}
			var n int
			n, err = br.r.Read(buf[len(buf):min(want, cap(buf))])
			buf = buf[:len(buf)+n]
		}
		end := len(buf)
		if err != io.EOF {
			if end = br.cut(buf); end == 0 && err == nil {
				continue // a line longer than want
			}
		}
		br.rest = append(br.rest[:0], buf[end:]...)
		b := lineBlock{data: buf[:end], line: br.line, lines: bytes.Count(buf[:end], []byte{'\n'}), err: err}
		br.line += b.lines
		return b
	}
}

// cut returns the length of the block of lines buf starts with: up to its
// last end of line, or the last outside quotes; 0 if there is none.
func (br *blockReader) cut(buf []byte) int {
	if !br.quotes {
		return bytes.LastIndexByte(buf, '\n') + 1
	}
	// The blocks start outside quotes.
	end, quoted := 0, false
	for i := 0; ; {
		n := bytes.IndexByte(buf[i:], '\n')
		if n < 0 {
			return end
		}
		if bytes.Count(buf[i:i+n], []byte{'"'})%2 == 1 {
			quoted = !quoted
		}
		if i += n + 1; !quoted {
			end = i
		}
	}
}

// maxBlocksAhead is the most blocks decodeBlocks reads ahead of the merge.
const maxBlocksAhead = 16

// decodeBlocks decodes the blocks of lines of input name that blocks reads,
// starting with first: decode decodes a block on its own, on all cores,
// and merge merges it in input order, on the calling goroutine. An input of
// one block is decoded without goroutines. It returns merge's first error,
// or ctx's if it is done before the end of the input. An error of merge is
// returned at once: a read of blocks under way then ends in the background,
// and the reading stops there.
func decodeBlocks[T any](ctx context.Context, name string, blocks *blockReader, first lineBlock, decode func(lineBlock) T, merge func(lineBlock, T) error) error {
	if first.err != nil {
		return merge(first, decode(first))
	}
	// The reader hands each block to a worker, then to the merger, in
	// input order, with the channel the worker answers on. The blocks
	// read and not yet merged are bounded by order's capacity.
	type pending struct {
		block lineBlock
		done  chan T
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan pending)
	// At most maxBlocksAhead blocks wait to be merged, whatever the cores:
	// 64 MiB of input beyond the records decoded.
	order := make(chan pending, min(2*workers, maxBlocksAhead))
	free := make(chan []byte, cap(order)) // block buffers to reuse
	// Canceling stops the reader at its next read, and so the workers.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		defer close(order)
		for b := first; ; {
			p := pending{b, make(chan T, 1)}
			for _, ch := range []chan pending{jobs, order} {
				select {
				case ch <- p:
				case <-ctx.Done():
					return
				}
			}
			if b.err != nil {
				return
			}
			var buf []byte
			select {
			case buf = <-free:
			default:
			}
			b = blocks.next(buf)
		}
	})
	for range workers {
		wg.Go(func() {
			for p := range jobs {
				p.done <- decode(p.block)
			}
		})
	}
	for p := range order {
		if err := merge(p.block, <-p.done); err != nil {
			// Not waiting for the reader: it may be blocked reading an
			// input that stalls, a pipe whose writer neither writes nor
			// closes. It stops at its next read.
			return err
		}
		if p.block.err != nil { // io.EOF: merge reports the others
			wg.Wait()
			return nil
		}
		select {
		case free <- p.block.data:
		default:
		}
	}
	// The reader stopped before the end of the input.
	wg.Wait()
	return fmt.Errorf("%s: %w", name, ctx.Err())
}

// repeatedStrings shares the boxed value of each string that a column of a
// block repeats: a column of few distinct values (a partition path, a
// status, a city) then takes no memory a row, where each string value
// takes an allocation for the box of its interface, and in JSON lines one
// for its bytes. A column whose strings mostly differ (keys, UUIDs, free
// text) stops looking once its first repeatProbe strings show it. Values
// are never changed once made, so rows may share them.
type repeatedStrings struct {
	values      map[string]any
	looked, hit int
	off         bool
}

const (
	// repeatProbe is how many strings a column looks up before it keeps
	// looking only if at least half of them were repeats.
	repeatProbe = 1024
	// maxRepeated is the most strings a column remembers.
	maxRepeated = 4096
)

// repeatedOf returns the repeatedStrings of column col of cs, adding those
// of the columns before it.
func repeatedOf(cs *[]repeatedStrings, col int) *repeatedStrings {
	for col >= len(*cs) {
		*cs = append(*cs, repeatedStrings{})
	}
	return &(*cs)[col]
}

// repeatedValue returns the string s, boxed: the box c made for an earlier
// s if there was one. JSON lines give their strings as bytes, CSV as
// strings; looking either up takes no allocation.
func repeatedValue[T string | []byte](c *repeatedStrings, s T) any {
	if c.off {
		return string(s)
	}
	if v, ok := c.values[string(s)]; ok {
		c.looked++
		c.hit++
		return v
	}
	return c.add(string(s))
}

// add boxes s, a string not seen before, and remembers the box unless the
// column turns out not to repeat its strings.
func (c *repeatedStrings) add(s string) any {
	var v any = s
	if c.looked++; c.looked >= repeatProbe && 2*c.hit < c.looked {
		c.off, c.values = true, nil
		return v
	}
	if c.values == nil {
		c.values = map[string]any{}
	}
	if len(c.values) < maxRepeated {
		c.values[s] = v
	}
	return v
}

// blockRecords are the records of blocks of lines of an input.
type blockRecords struct {
	inf   *Inferrer
	lines []int // the records' line numbers
}

// merge adds other, the records of a block decoded on its own (nil if one
// of them is bad), to r. A block that has a bad record, or whose types
// conflict with those of the blocks before, is decoded again by decode,
// record by record into r: that finds the record to report, as decoding the
// whole input record by record does.
func (r *blockRecords) merge(other *blockRecords, decode func() error) error {
	if other == nil || r.inf.Merge(other.inf) != nil {
		return decode()
	}
	// The lines of a large input's records take 8 MB a million.
	r.lines = append(grow.Reserve(r.lines, len(other.lines)), other.lines...)
	return nil
}

// recordError reports a problem with the record on line of input name.
func recordError(name string, line int, err error) error {
	return &write.RecordError{Input: name, Line: line, Err: err}
}

// finishInput returns the records inf holds as the input name; lines are
// their line numbers.
func finishInput(name string, inf *Inferrer, lines []int) (*write.Input, error) {
	if inf.Len() == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	schema, rows, err := inf.Finish()
	var rowErr *RowError
	if errors.As(err, &rowErr) && rowErr.Row < len(lines) {
		return nil, recordError(name, lines[rowErr.Row], rowErr.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &write.Input{Name: name, Schema: schema, Rows: rows, Lines: lines}, nil
}

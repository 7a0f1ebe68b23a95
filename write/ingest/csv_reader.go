package ingest

import (
	"bytes"
	"encoding/csv"
)

// csvReader reads the records of CSV text held in memory, as RFC 4180 has
// them: fields separated by commas; a field in double quotes may hold
// commas, line ends and doubled quotes, each standing for one quote.
//
// Unlike encoding/csv's Reader, it keeps the bytes of a quoted field
// exactly: a "\r\n" in one stays "\r\n" (encoding/csv makes it "\n"). Outside
// quotes, as with encoding/csv, "\r\n" ends a record as "\n" does, a "\r"
// ending the text is dropped, and empty lines are skipped. Its errors are
// those of encoding/csv, at the same lines and columns on text without "\r".
type csvReader struct {
	text      []byte
	pos       int // the offset in text of what is not read yet
	line      int // the number of the line at pos, from 1
	lineStart int // the offset in text of the start of that line
	start     int // the line the record last read starts on
	// buf holds the content of the fields of the record being read, one
	// after another; ends holds the end of each in buf.
	buf    []byte
	ends   []int
	fields []string // the record last read
}

// newCSVReader returns a reader of the records of text.
func newCSVReader(text []byte) *csvReader {
	return &csvReader{text: text, line: 1}
}

// read returns the fields of the next record, nil after the last. The next
// read reuses the slice. A record that is not valid CSV is a
// *csv.ParseError: the line numbers count from the text's first line, and
// the column, counted in bytes from 1, is that of the bad quote, or the end
// of the text for a quoted field left open.
func (r *csvReader) read() ([]string, *csv.ParseError) {
	if !r.skipEmptyLines() {
		return nil, nil
	}
	r.start = r.line
	r.buf, r.ends = r.buf[:0], r.ends[:0]
	for end := false; !end; {
		var err *csv.ParseError
		if r.pos < len(r.text) && r.text[r.pos] == '"' {
			end, err = r.quoted()
		} else {
			end, err = r.plain()
		}
		if err != nil {
			return nil, err
		}
		r.ends = append(r.ends, len(r.buf))
	}
	// One string for all the fields: one allocation a record.
	s := string(r.buf)
	r.fields = r.fields[:0]
	from := 0
	for _, to := range r.ends {
		r.fields = append(r.fields, s[from:to])
		from = to
	}
	return r.fields, nil
}

// skipEmptyLines skips the empty lines at pos and reports whether a record
// follows.
func (r *csvReader) skipEmptyLines() bool {
	for {
		rest := r.text[r.pos:]
		switch {
		case len(rest) == 0:
			return false
		case rest[0] == '\n':
			r.newLine(r.pos + 1)
		case rest[0] == '\r' && len(rest) == 1:
			r.pos++
		case rest[0] == '\r' && rest[1] == '\n':
			r.newLine(r.pos + 2)
		default:
			return true
		}
	}
}

// newLine moves pos to next, the start of a new line.
func (r *csvReader) newLine(next int) {
	r.pos, r.line, r.lineStart = next, r.line+1, next
}

// plain reads a field that is not quoted, up to its end: a comma, or the
// end of the record (end).
func (r *csvReader) plain() (end bool, err *csv.ParseError) {
	rest := r.text[r.pos:]
	for i, c := range rest {
		switch c {
		case ',':
			r.buf = append(r.buf, rest[:i]...)
			r.pos += i + 1
			return false, nil
		case '\n':
			r.buf = append(r.buf, dropCR(rest[:i])...)
			r.newLine(r.pos + i + 1)
			return true, nil
		case '"':
			return false, r.errorAt(r.pos+i, csv.ErrBareQuote)
		}
	}
	r.buf = append(r.buf, dropCR(rest)...)
	r.pos = len(r.text)
	return true, nil
}

// dropCR returns field without a "\r" that ends it.
func dropCR(field []byte) []byte {
	if n := len(field); n > 0 && field[n-1] == '\r' {
		return field[:n-1]
	}
	return field
}

// quoted reads a quoted field, from its opening quote up to its end: a
// comma, or the end of the record (end).
func (r *csvReader) quoted() (end bool, err *csv.ParseError) {
	r.pos++
	for {
		rest := r.text[r.pos:]
		i := bytes.IndexByte(rest, '"')
		if i < 0 {
			return false, r.openAtEnd()
		}
		content := rest[:i]
		r.buf = append(r.buf, content...)
		if n := bytes.Count(content, []byte{'\n'}); n > 0 {
			r.line += n
			r.lineStart = r.pos + bytes.LastIndexByte(content, '\n') + 1
		}
		r.pos += i + 1 // past the quote
		rest = r.text[r.pos:]
		switch {
		case len(rest) == 0:
			return true, nil
		case rest[0] == '"':
			r.buf = append(r.buf, '"')
			r.pos++
		case rest[0] == ',':
			r.pos++
			return false, nil
		case rest[0] == '\n':
			r.newLine(r.pos + 1)
			return true, nil
		case rest[0] == '\r' && len(rest) == 1:
			r.pos++
			return true, nil
		case rest[0] == '\r' && rest[1] == '\n':
			r.newLine(r.pos + 2)
			return true, nil
		default:
			return false, r.errorAt(r.pos-1, csv.ErrQuote)
		}
	}
}

// openAtEnd returns the error of a quoted field that the end of the text
// leaves open, at pos: encoding/csv reports it on the line of the text's
// last byte, at the column after it.
func (r *csvReader) openAtEnd() *csv.ParseError {
	end := len(r.text)
	line := r.line + bytes.Count(r.text[r.pos:max(r.pos, end-1)], []byte{'\n'})
	lineStart := bytes.LastIndexByte(r.text[:end-1], '\n') + 1
	return &csv.ParseError{StartLine: r.start, Line: line, Column: end - lineStart + 1, Err: csv.ErrQuote}
}

// errorAt returns the error err about the byte at offset i, on the current
// line.
func (r *csvReader) errorAt(i int, err error) *csv.ParseError {
	return &csv.ParseError{StartLine: r.start, Line: r.line, Column: i - r.lineStart + 1, Err: err}
}

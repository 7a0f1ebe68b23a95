package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// DecodeJSONL reads JSON lines: one JSON object per line, blank lines
// skipped. Members keep their order, which gives the order of the columns.
// Strings must be valid text: invalid UTF-8 and lone surrogate escapes are
// refused, not replaced (see jsonParser.str). name and table are as for
// Decode.
//
// The input is cut into blocks of lines of 4 MiB or so, decoded on all
// cores and merged in input order; at most 16 blocks wait to be merged. A
// block with a bad record is decoded again line by line, so that the error
// names the line a sequential decoding would.
func DecodeJSONL(ctx context.Context, r io.Reader, name string, table *basefile.Schema) (*write.Input, error) {
	return decodeJSONLBlocks(ctx, r, name, table, jsonlBlockSize)
}

// jsonSpace is the whitespace JSON allows around a value within a line.
const jsonSpace = " \t\r"

// jsonlBlockSize is the size of the blocks of lines that DecodeJSONL decodes
// in parallel.
const jsonlBlockSize = 4 << 20

// decodeJSONLBlocks is DecodeJSONL cutting the input into blocks of lines of
// blockSize bytes or so, decoded each on its own and merged in input order.
func decodeJSONLBlocks(ctx context.Context, r io.Reader, name string, table *basefile.Schema, blockSize int) (*write.Input, error) {
	blocks := &blockReader{r: newTextReader(ctx, r, 4096), size: blockSize, line: 1}
	newRecords := func() *blockRecords {
		return &blockRecords{inf: NewInferrer(InferOptions{Table: table})}
	}
	decode := func(b lineBlock) *blockRecords {
		recs := newRecords()
		if newJSONLDecoder(recs).decode("", b) != nil {
			return nil
		}
		return recs
	}
	all := newRecords()
	merge := func(b lineBlock, recs *blockRecords) error {
		err := all.merge(recs, func() error { return newJSONLDecoder(all).decode(name, b) })
		if err == nil && b.err != io.EOF && b.err != nil {
			err = fmt.Errorf("%s: read line %d: %w", name, b.line+bytes.Count(b.data, []byte{'\n'}), b.err)
		}
		return err
	}
	if err := decodeBlocks(ctx, name, blocks, blocks.next(nil), decode, merge); err != nil {
		return nil, err
	}
	return finishInput(name, all.inf, all.lines)
}

// jsonlDecoder turns the lines of a JSON lines input into records.
type jsonlDecoder struct {
	*blockRecords // the records decoded
	// cols maps member names to column indexes, -1 for meta columns.
	cols map[string]int
	// setOn holds the line each column of inf was last set on, to find
	// members given twice.
	setOn []int
	// prev holds the columns of the members of the line before, by
	// position: lines tend to list the same members in the same order.
	prev []memberColumn
	// keys interns the member names of nested objects.
	keys map[string]string
	// slab is free memory for rows, which are allocated many at a time.
	slab []any
	// repeated holds, by column, the values of the strings it repeats.
	repeated []repeatedStrings
}

// columnValue reads the value of a member of column col (-1 for a meta
// column), sharing the strings the column repeats.
func (d *jsonlDecoder) columnValue(p *jsonParser, col int) (any, error) {
	if col < 0 || p.skipSpace() != '"' {
		return p.value(1)
	}
	b, err := p.str()
	if err != nil {
		return nil, err
	}
	return repeatedValue(repeatedOf(&d.repeated, col), b), nil
}

// newJSONLDecoder returns a decoder adding records to recs. Their rows have
// values for all the columns of recs.inf, as Inferrer.Merge takes records
// to.
func newJSONLDecoder(recs *blockRecords) *jsonlDecoder {
	return &jsonlDecoder{blockRecords: recs, cols: map[string]int{}, setOn: make([]int, recs.inf.NumColumns()), keys: map[string]string{}}
}

// decode adds the records of the lines of block b to d.blockRecords. An
// error names the input name and the line.
func (d *jsonlDecoder) decode(name string, b lineBlock) error {
	d.lines = slices.Grow(d.lines, b.lines+1) // a record a line at most
	data := b.data
	for lineNo := b.line; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		// JSON's whitespace only: bytes.TrimSpace would also take Unicode
		// spaces (U+00A0, U+0085) and \v, \f, which are not JSON.
		if line = bytes.Trim(line, jsonSpace); len(line) == 0 {
			continue
		}
		row, err := d.record(line, lineNo)
		if err == nil {
			err = d.inf.Add(row)
		}
		if err != nil {
			return recordError(name, lineNo, err)
		}
		d.lines = append(d.lines, lineNo)
	}
	return nil
}

// rowsPerSlab is the number of rows of jsonlDecoder.slab.
const rowsPerSlab = 1024

// record parses line, a JSON object, into the loose values of its columns.
func (d *jsonlDecoder) record(line []byte, lineNo int) ([]any, error) {
	p := jsonParser{data: line, keys: d.keys}
	if line[0] != '{' {
		return nil, errors.New("the line is not a JSON object")
	}
	p.pos++
	n := len(d.setOn)
	if len(d.slab) < n {
		d.slab = make([]any, n*rowsPerSlab)
	}
	row := d.slab[:n:n]
	d.slab = d.slab[n:]
	if p.skipSpace() == '}' {
		p.pos++
	} else {
		for i := 0; ; i++ {
			key, err := p.member()
			if err != nil {
				return nil, err
			}
			col, err := d.column(i, key)
			if err != nil {
				return nil, err
			}
			v, err := d.columnValue(&p, col)
			if err != nil {
				return nil, inside(err, string(key))
			}
			if col >= 0 {
				if d.setOn[col] == lineNo {
					return nil, fmt.Errorf("member %q appears twice", key)
				}
				d.setOn[col] = lineNo
				for col >= len(row) {
					row = append(row, nil)
				}
				row[col] = v
			}
			done, err := p.next('}')
			if err != nil {
				return nil, err
			}
			if done {
				break
			}
		}
	}
	if p.skipSpace(); p.pos < len(p.data) {
		return nil, p.unexpected("the end of the line")
	}
	return row, nil
}

// memberColumn is the column of a member name.
type memberColumn struct {
	name string
	col  int
}

// column returns the column index of member i of a line, named key; -1 for a
// meta column.
func (d *jsonlDecoder) column(i int, key []byte) (int, error) {
	if i < len(d.prev) && d.prev[i].name == string(key) {
		return d.prev[i].col, nil
	}
	col, err := d.lookup(key)
	if err != nil {
		return 0, err
	}
	if i < len(d.prev) {
		d.prev[i] = memberColumn{string(key), col}
	} else if i == len(d.prev) {
		d.prev = append(d.prev, memberColumn{string(key), col})
	}
	return col, nil
}

// lookup returns the column index of a member name, adding the column if it
// is new.
func (d *jsonlDecoder) lookup(key []byte) (int, error) {
	if col, ok := d.cols[string(key)]; ok {
		return col, nil
	}
	name := string(key)
	col := -1
	if !basefile.IsMetaField(name) {
		var err error
		if col, err = d.inf.Column(name); err != nil {
			return 0, err
		}
		if col == len(d.setOn) { // a new column of inf
			d.setOn = append(d.setOn, 0)
		}
	}
	d.cols[name] = col
	return col, nil
}

// maxJSONDepth bounds the nesting of arrays and objects.
const maxJSONDepth = 1000

// maxInternedKeys bounds the member names a jsonParser interns.
const maxInternedKeys = 10000

// jsonParser parses JSON text into loose values (see CoerceValue):
// objects keep their members' order, numbers are json.Number, and strings
// are valid UTF-8 text, as in the input.
type jsonParser struct {
	data []byte
	pos  int
	keys map[string]string // interned member names
}

// skipSpace skips white space and returns the next byte, 0 at the end.
func (p *jsonParser) skipSpace() byte {
	for ; p.pos < len(p.data); p.pos++ {
		switch c := p.data[p.pos]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// unexpected reports the byte at p.pos, or the end of the line, where want
// should be.
func (p *jsonParser) unexpected(want string) error {
	if p.pos >= len(p.data) {
		return fmt.Errorf("invalid JSON: the line ends where %s should be", want)
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return fmt.Errorf("invalid JSON at column %d: %s where %s should be",
		p.column(p.pos), strconv.QuoteRune(r), want)
}

// next reads the ',' or the end byte after a member or an element: done
// reports the end.
func (p *jsonParser) next(end byte) (done bool, err error) {
	switch p.skipSpace() {
	case ',':
		p.pos++
		return false, nil
	case end:
		p.pos++
		return true, nil
	}
	return false, p.unexpected(fmt.Sprintf("',' or '%c'", end))
}

// member reads a member name and its colon.
func (p *jsonParser) member() ([]byte, error) {
	if p.skipSpace() != '"' {
		return nil, p.unexpected("a member name")
	}
	key, err := p.str()
	if te, ok := err.(*textError); ok {
		te.name = true
	}
	if err != nil {
		return nil, err
	}
	if p.skipSpace() != ':' {
		return nil, p.unexpected("':'")
	}
	p.pos++
	return key, nil
}

// value reads a value at nesting depth.
func (p *jsonParser) value(depth int) (any, error) {
	switch c := p.skipSpace(); {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return string(s), err
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	}
	return nil, p.unexpected("a value")
}

// literal reads the literal text, whose value is v.
func (p *jsonParser) literal(text string, v any) (any, error) {
	rest := p.data[p.pos:]
	if len(rest) < len(text) || string(rest[:len(text)]) != text {
		return nil, p.unexpected("a value")
	}
	p.pos += len(text)
	return v, nil
}

func (p *jsonParser) object(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("invalid JSON: nested deeper than %d", maxJSONDepth)
	}
	p.pos++
	o := &Object{}
	if p.skipSpace() == '}' {
		p.pos++
		return o, nil
	}
	for {
		key, err := p.member()
		if err != nil {
			return nil, err
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, inside(err, string(key))
		}
		o.Names = append(o.Names, p.intern(key))
		o.Values = append(o.Values, v)
		if done, err := p.next('}'); done || err != nil {
			return o, err
		}
	}
}

// intern returns key as a string, shared by the objects that use it.
func (p *jsonParser) intern(key []byte) string {
	if s, ok := p.keys[string(key)]; ok {
		return s
	}
	s := string(key)
	if len(p.keys) < maxInternedKeys {
		p.keys[s] = s
	}
	return s
}

func (p *jsonParser) array(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("invalid JSON: nested deeper than %d", maxJSONDepth)
	}
	p.pos++
	a := []any{}
	if p.skipSpace() == ']' {
		p.pos++
		return a, nil
	}
	for i := 0; ; i++ {
		v, err := p.value(depth)
		if err != nil {
			return nil, inside(err, "["+strconv.Itoa(i)+"]")
		}
		a = append(a, v)
		if done, err := p.next(']'); done || err != nil {
			return a, err
		}
	}
}

// strSpecial marks the bytes that end the plain run of a string's content:
// the quote, the backslash, control characters and non-ASCII bytes.
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// str reads a string and returns its content. The content aliases p.data
// unless the string holds escapes. A string that is not valid text, with
// invalid UTF-8 or an escaped UTF-16 surrogate that is not half of a pair,
// is a *textError: encoding/json would silently make it U+FFFD.
func (p *jsonParser) str() ([]byte, error) {
	start := p.pos
	escaped, ascii := false, true
	for i := start + 1; i < len(p.data); i++ {
		for i < len(p.data) && !strSpecial[p.data[i]] {
			i++
		}
		if i == len(p.data) {
			break
		}
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			content := p.data[start+1 : i]
			if !ascii && !utf8.Valid(content) {
				return nil, p.invalidUTF8(start + 1)
			}
			if !escaped {
				return content, nil
			}
			return p.unescape(start)
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			p.pos = i
			return nil, p.unexpected(`'"' or another string character`)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	p.pos = len(p.data)
	return nil, p.unexpected(`'"'`)
}

// invalidUTF8 returns the *textError of the first byte that is not UTF-8
// in p.data from offset from, which has one.
func (p *jsonParser) invalidUTF8(from int) error {
	i := from
	for {
		r, size := utf8.DecodeRune(p.data[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return &textError{column: p.column(i), cause: fmt.Sprintf("invalid UTF-8 (byte %#02x)", p.data[i])}
}

// column returns the column of offset i of the line, counted in runes from
// 1, as the errors of p name it.
func (p *jsonParser) column(i int) int { return utf8.RuneCount(p.data[:i]) + 1 }

// unescape returns the content of the string at offset start up to p.pos,
// whose escapes it decodes. Its bytes are valid UTF-8 (str checked them).
func (p *jsonParser) unescape(start int) ([]byte, error) {
	content := p.data[start+1 : p.pos-1]
	out := make([]byte, 0, len(content))
	for len(content) > 0 {
		i := bytes.IndexByte(content, '\\')
		if i < 0 {
			return append(out, content...), nil
		}
		out, content = append(out, content[:i]...), content[i:]
		if len(content) < 2 {
			return nil, p.badEscape(start)
		}
		c := content[1]
		if c != 'u' {
			e := jsonEscapes[c]
			if e == 0 {
				return nil, p.badEscape(start)
			}
			out, content = append(out, e), content[2:]
			continue
		}
		r, ok := hex4(content[2:])
		if !ok {
			return nil, p.badEscape(start)
		}
		n := 6 // the length of the escape
		if utf16.IsSurrogate(r) {
			// A high surrogate, then an escaped low one, make a pair.
			if r, n = pairedSurrogate(r, content[n:]); n == 0 {
				at := p.pos - 1 - len(content)
				return nil, &textError{column: p.column(at), cause: "lone UTF-16 surrogate " + string(content[:6])}
			}
		}
		out, content = utf8.AppendRune(out, r), content[n:]
	}
	return out, nil
}

// pairedSurrogate returns the rune of the surrogate pair whose first half
// is r, an escaped surrogate, and whose second half is the escape that rest
// starts with, and the length of the two escapes; 0 if r is not a high
// surrogate or rest does not start with an escaped low one.
func pairedSurrogate(r rune, rest []byte) (rune, int) {
	if r >= 0xdc00 || len(rest) < 6 || rest[0] != '\\' || rest[1] != 'u' {
		return 0, 0
	}
	low, ok := hex4(rest[2:])
	if !ok || low < 0xdc00 || low > 0xdfff {
		return 0, 0
	}
	return utf16.DecodeRune(r, low), 12
}

// hex4 returns the value of the 4 hexadecimal digits b starts with, and
// whether it starts with 4.
func hex4(b []byte) (rune, bool) {
	var v [2]byte
	if len(b) < 4 {
		return 0, false
	}
	if _, err := hex.Decode(v[:], b[:4]); err != nil {
		return 0, false
	}
	return rune(v[0])<<8 | rune(v[1]), true
}

// jsonEscapes maps the byte after a backslash to the byte it stands for, 0
// for those that start no escape ('u' is decoded apart).
var jsonEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// badEscape returns the error of the string at offset start, which holds an
// escape that JSON does not have.
func (p *jsonParser) badEscape(start int) error {
	p.pos = start
	return fmt.Errorf("invalid JSON at column %d: bad escape in string", p.column(start))
}

// textError is a JSON string, a value or a member name, that is not valid
// text. The path of members and elements to it is collected, innermost
// first, as the error travels up.
type textError struct {
	column int      // the column of the problem in the line (see jsonParser.column)
	cause  string   // the problem
	name   bool     // the string is a member name
	path   []string // member names and array indexes "[i]", innermost first (see valuePath)
}

func (e *textError) Error() string {
	what := "string"
	if e.name {
		what = "member name"
	}
	msg := fmt.Sprintf("%s in a %s at column %d", e.cause, what, e.column)
	if len(e.path) == 0 {
		return msg
	}
	return fmt.Sprintf("member %q: %s", valuePath(e.path), msg)
}

// inside adds elem, a member name or an array index "[i]", to the path of
// err if it is a *textError, and returns err.
func inside(err error, elem string) error {
	if te, ok := err.(*textError); ok {
		te.path = append(te.path, elem)
	}
	return err
}

// number reads a number in JSON syntax.
func (p *jsonParser) number() (any, error) {
	start := p.pos
	digits := func() int {
		from := p.pos
		for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - from
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.unexpected("a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.unexpected("a digit")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.unexpected("a digit")
		}
	}
	return json.Number(p.data[start:p.pos]), nil
}

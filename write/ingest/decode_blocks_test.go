package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// checkSameDecoding fails unless got and want, inputs and errors, are the
// same.
func checkSameDecoding(t *testing.T, got *write.Input, gotErr error, want *write.Input, wantErr error) {
	t.Helper()
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
	}
	if wantErr == nil {
		checkDecodedInput(t, got, want.Schema, want.Rows, want.Lines)
	}
}

// jsonlTestValues are JSON values by kind: a column takes values of one.
var jsonlTestValues = [][]string{
	{`1`, `-7`, `12345678901`, `null`},
	{`1`, `2.5`, `-1e3`, `null`},
	{`"x"`, `"2024-01-02"`, `"AQI="`, `"true"`, `"\u00e9\n"`, `"` + strings.Repeat("long ", 40) + `"`, `null`},
	{`true`, `false`, `null`},
	{`{"x": 1, "y": "a"}`, `{"y": "b", "z": [1, 2.5]}`, `{"n": {"m": null}}`, `{}`, `null`},
	{`[1, 2]`, `[2.5, null]`, `[]`, `null`},
	{`[{"a": 1}]`, `[{"b": "x"}, null]`, `[]`},
	{`{"k": "v"}`, `{"k": "w", "j": "x"}`},
}

// jsonlTestBadLines are lines that do not decode.
var jsonlTestBadLines = []string{`{"a": }`, `[1]`, `{"id": 1, "id": 2}`, `{"a": 1} x`, `{"a b": 1}`, `{"a": "\x"}`}

// randomJSONL returns JSON lines with random members: columns that appear
// late, nulls, numbers that join, nested objects and arrays, long lines,
// blank lines and meta columns. Now and then a value is of another kind
// than its column's, which may conflict, or a line is bad.
func randomJSONL(rng *rand.Rand) []byte {
	names := []string{"id", "price", "day", "at", "raw", "attrs", "ok", "a", "b", "c", "n", "_hoodie_record_key"}
	kinds := make([]int, len(names))
	from := make([]int, len(names)) // the first line a column may appear on
	lines := 1 + rng.IntN(80)
	for c := range names {
		kinds[c], from[c] = rng.IntN(len(jsonlTestValues)), rng.IntN(lines)
	}
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\uFEFF")
	}
	for line := range lines {
		switch r := rng.IntN(100); {
		case r < 8:
			b.WriteString([]string{"", " ", "\t\r"}[r%3])
		case r == 8 && rng.IntN(4) == 0:
			b.WriteString(jsonlTestBadLines[rng.IntN(len(jsonlTestBadLines))])
		default:
			b.WriteByte('{')
			first := true
			for _, c := range rng.Perm(len(names)) {
				if line < from[c] || rng.IntN(3) == 0 {
					continue
				}
				if !first {
					b.WriteString(", ")
				}
				first = false
				values := jsonlTestValues[kinds[c]]
				if rng.IntN(300) == 0 {
					values = jsonlTestValues[rng.IntN(len(jsonlTestValues))]
				}
				fmt.Fprintf(&b, "%q: %s", names[c], values[rng.IntN(len(values))])
			}
			b.WriteByte('}')
		}
		if line < lines-1 || rng.IntN(2) == 0 {
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
	}
	return b.Bytes()
}

// TestDecodeJSONLBlocks checks that decoding random JSON lines in small
// blocks, many of them decoded in parallel, gives the schema, rows and
// lines, or the error, of decoding them whole.
func TestDecodeJSONLBlocks(t *testing.T) {
	testDecodeBlocks(t, rand.New(rand.NewPCG(3, 4)), randomJSONL, "in.jsonl", decodeJSONLBlocks)
}

// testDecodeBlocks checks that decode, in blocks of random small sizes and
// through readers that read less than asked, gives the schema, rows and
// lines, or the error, that it gives in one block, on 1,500 inputs that
// random draws, about half of them bad; with and without a table schema.
func testDecodeBlocks(t *testing.T, rng *rand.Rand, random func(*rand.Rand) []byte, name string,
	decode func(ctx context.Context, r io.Reader, name string, table *basefile.Schema, blockSize int) (*write.Input, error)) {
	table := parseAvro(t, inputTestTable)
	const trials = 1500
	decoded, failed := 0, 0
	for trial := range trials {
		data := random(rng)
		var tab *basefile.Schema
		if rng.IntN(3) == 0 {
			tab = table
		}
		blockSize := 1 + rng.IntN(300)
		var r io.Reader = bytes.NewReader(data)
		if rng.IntN(2) == 0 {
			r = iotest.HalfReader(r) // reads less than asked, as a pipe does
		}
		want, wantErr := decode(context.Background(), bytes.NewReader(data), name, tab, len(data)+1)
		got, gotErr := decode(context.Background(), r, name, tab, blockSize)
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("blocks of %d bytes, table %v:\n%s", blockSize, tab != nil, data)
				}
			}()
			checkSameDecoding(t, got, gotErr, want, wantErr)
		})
		if wantErr == nil {
			decoded++
		} else {
			failed++
		}
	}
	// The inputs are meant to decode about half of the time.
	if decoded < trials/4 || failed < trials/4 {
		t.Errorf("%d inputs decoded, %d failed", decoded, failed)
	}
}

// numberedLines returns lines 1 to n: those given by number, and line for
// the others.
func numberedLines(n int, line string, given map[int]string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		if g, ok := given[i]; ok {
			b.WriteString(g + "\n")
		} else {
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
}

// TestDecodeJSONLBlocksErrors checks that decoding in blocks reports the
// first bad record in input order, as decoding line by line does, even when
// a later block fails first or the block fails only with the types of the
// blocks before.
func TestDecodeJSONLBlocksErrors(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	lines := func(n int, given map[int]string) []byte { return numberedLines(n, `{"b": 1}`, given) }
	tests := []blockErrorCase{{
		name:    "the first bad line wins",
		content: lines(3000, map[int]string{2900: `{"b": }`, 1500: `[1]`, 2000: `{"b": "x"}`}),
		want:    `in: line 1500: the line is not a JSON object`,
	}, {
		name:    "a conflict with an early block",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 1900: `{"a": "x"}`}),
		want:    `in: line 1900: column "a": string here, but long in earlier records`,
	}, {
		name:    "a conflict before a bad line",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 1000: `{"a": "x"}`, 1900: `{"b": 1, "b": 2}`}),
		want:    `in: line 1000: column "a": string here, but long in earlier records`,
	}, {
		name:    "the conflict names the type of all the records before",
		content: lines(2000, map[int]string{3: `{"a": 1}`, 900: `{"a": 2.5}`, 1900: `{"a": 1}`, 1950: `{"a": "x"}`}),
		want:    `in: line 1950: column "a": string here, but double in earlier records`,
	}, {
		name:    "a nested conflict",
		content: lines(2000, map[int]string{3: `{"r": {"x": [1]}}`, 1900: `{"r": {"x": 1}}`}),
		want:    `in: line 1900: column "r.x": long here, but array of long in earlier records`,
	}, {
		name:    "a null in a table column has the column's type",
		content: lines(2000, map[int]string{3: `{"raw": true}`}),
		table:   table,
		want:    `in: line 3: column "raw": true does not fit bytes: not base64 text`,
	}, {
		name:    "a value that fits no column type, in the last records",
		content: lines(2000, map[int]string{2000: `{"r": {}}`}),
		want:    `in: storage: schema "record": field "r": record "r" has no fields, which Parquet cannot store`,
	}, {
		name:    "a read error after the lines",
		content: append(lines(2000, nil), `{"b": 2`...),
		readErr: true,
		want:    `in: read line 2001: boom`,
	}, {
		name:    "a bad line before a read error",
		content: append(lines(2000, map[int]string{1999: `{`}), `{"b": 2`...),
		readErr: true,
		want:    `in: line 1999: invalid JSON: the line ends where a member name should be`,
	}}
	checkBlockErrors(t, decodeJSONLBlocks, tests)
}

// blockErrorCase is an input that decoding must refuse, whole or in blocks.
type blockErrorCase struct {
	name    string
	content []byte
	table   *basefile.Schema
	readErr bool   // reading fails after content
	want    string // the error
}

// checkBlockErrors checks that decode, decodeJSONLBlocks or decodeCSVBlocks,
// fails on the content of each case (followed by a read error if readErr)
// with the error wanted, whole and in blocks of many sizes.
func checkBlockErrors(t *testing.T, decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error), tests []blockErrorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decodeIn := func(blockSize int) (*write.Input, error) {
				var r io.Reader = bytes.NewReader(tt.content)
				if tt.readErr {
					r = io.MultiReader(r, iotest.ErrReader(errors.New("boom")))
				}
				return decode(context.Background(), r, "in", tt.table, blockSize)
			}
			whole, wholeErr := decodeIn(len(tt.content) + 1)
			if wholeErr == nil || wholeErr.Error() != tt.want {
				t.Fatalf("decoded whole: error %v, want %s", wholeErr, tt.want)
			}
			for _, blockSize := range []int{1, 100, 1000} {
				got, gotErr := decodeIn(blockSize)
				checkSameDecoding(t, got, gotErr, whole, wholeErr)
			}
		})
	}
}

// cancelingReader reads from r, and cancels a context after n reads.
type cancelingReader struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelingReader) Read(p []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.r.Read(p)
}

func TestDecodeBlocksCanceled(t *testing.T) {
	for _, tt := range []struct {
		decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error)
		data   []byte
	}{
		{decodeJSONLBlocks, benchTripLines(1000)},
		{decodeCSVBlocks, numberedLines(20000, "1,x,2.5", map[int]string{1: "a,b,c"})},
	} {
		for _, reads := range []int{1, 2, 5, 50} {
			ctx, cancel := context.WithCancel(context.Background())
			r := &cancelingReader{r: iotest.HalfReader(bytes.NewReader(tt.data)), n: reads, cancel: cancel}
			_, err := tt.decode(ctx, r, "in", nil, 1000)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%.10q canceled after %d reads: error %v, want context.Canceled", tt.data, reads, err)
			}
		}
	}
}

// stallingReader reads r, then blocks until stall is closed, as a pipe
// does whose writer neither writes nor closes.
type stallingReader struct {
	r     io.Reader
	stall chan struct{}
}

func (s *stallingReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		<-s.stall
	}
	return n, err
}

// TestDecodeBlocksErrorStalledInput checks that a bad record is reported
// once its block is read even when the input, a pipe say, has more to come
// but stalls: the error must not wait for the read of a later block.
func TestDecodeBlocksErrorStalledInput(t *testing.T) {
	for _, tt := range []struct {
		decode func(context.Context, io.Reader, string, *basefile.Schema, int) (*write.Input, error)
		data   string
		want   string
	}{
		{decodeJSONLBlocks, "{\"a\": }\n" + strings.Repeat("{\"a\": 1}\n", 10), "in: line 1: "},
		{decodeCSVBlocks, "a,b\n1\n" + strings.Repeat("1,2\n", 20), "in: line 2: "},
	} {
		r := &stallingReader{r: strings.NewReader(tt.data), stall: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := tt.decode(context.Background(), r, "in", nil, 64)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%.10q: error %v, want %s...", tt.data, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%.10q: no error 10s after a bad record while the input stalls", tt.data)
		}
		close(r.stall)
	}
}

// csvTestFields are CSV fields by kind: a column takes fields of one.
var csvTestFields = [][]string{
	{`1`, `-7`, `12345678901`, ``},
	{`1`, `2.5`, `-1e3`, `""`},
	{`x`, `2024-01-02`, `"a, b"`, `"say ""hi"""`, `"two` + "\n" + `lines"`, `"crlf` + "\r\n" + `too"`, `é`, strings.Repeat("long", 40), ``},
	{`true`, `FALSE`, ``},
	{`2024-01-02`, `2024-01-03`, ``},
}

// csvTestBadLines are lines that do not decode as records of two columns or
// more.
var csvTestBadLines = []string{`1`, `a"b,c`, `"a"b,c`}

// randomCSV returns CSV with random columns, fields of many kinds (quoted,
// over several lines, empty, long), blank lines (before the header too) and
// meta columns. Now and
// then a field is of another kind than its column's, or a line is bad.
func randomCSV(rng *rand.Rand) []byte {
	names := []string{"id", "price", "day", "at", "raw", "attrs", "ok", "a", "b", "c", "_hoodie_record_key"}
	names = names[:2+rng.IntN(len(names)-1)]
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	kinds := make([]int, len(names))
	for c := range names {
		kinds[c] = rng.IntN(len(csvTestFields))
	}
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\uFEFF")
	}
	if rng.IntN(8) == 0 {
		b.WriteString(strings.Repeat("\n", 1+rng.IntN(200))) // blank lines before the header
	}
	b.WriteString(strings.Join(names, ","))
	lines := rng.IntN(80)
	for range lines {
		b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		switch r := rng.IntN(100); {
		case r < 4:
			// a blank line
		case r == 4 && rng.IntN(2) == 0:
			b.WriteString(csvTestBadLines[rng.IntN(len(csvTestBadLines))])
		default:
			for c := range names {
				if c > 0 {
					b.WriteByte(',')
				}
				fields := csvTestFields[kinds[c]]
				if rng.IntN(300) == 0 {
					fields = csvTestFields[rng.IntN(len(csvTestFields))]
				}
				b.WriteString(fields[rng.IntN(len(fields))])
			}
		}
	}
	if rng.IntN(2) == 0 {
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestDecodeCSVBlocks checks that decoding random CSV in small blocks, many
// of them decoded in parallel, gives the schema, rows and lines, or the
// error, of decoding it whole.
func TestDecodeCSVBlocks(t *testing.T) {
	testDecodeBlocks(t, rand.New(rand.NewPCG(5, 6)), randomCSV, "in.csv", decodeCSVBlocks)
}

// TestDecodeCSVBlocksErrors checks that decoding CSV in blocks reports the
// first bad record in input order, as decoding record by record does.
func TestDecodeCSVBlocksErrors(t *testing.T) {
	table := parseAvro(t, inputTestTable)
	lines := func(n int, given map[int]string) []byte {
		given[1] = "a,attrs"
		return numberedLines(n, "1,", given)
	}
	tests := []blockErrorCase{{
		name:    "the first bad line wins",
		content: lines(3000, map[int]string{2900: `1,"x`, 1500: `1`, 2000: `1,a"b`}),
		want:    `in: line 1500: the header has 2 fields, this record 1`,
	}, {
		name:    "a quoted field over lines and blocks", // 300 lines: 1500 is line 1800
		content: lines(3000, map[int]string{1000: `1,"a` + strings.Repeat("\n,\"\",", 300) + `b"`, 1500: `x,a"b`}),
		want:    `in: line 1800: invalid CSV at column 4: bare " in non-quoted-field`,
	}, {
		name:    "a quote left open to the end",
		content: lines(3000, map[int]string{1000: `1,"a`}),
		want:    `in: line 3000: invalid CSV at column 4: extraneous or missing " in quoted-field`,
	}, {
		name:    "a conflict with an early block",
		content: lines(3000, map[int]string{2: `1,x`}),
		table:   table,
		want:    `in: line 3: column "attrs": map of string here, but string in earlier records`,
	}, {
		name:    "a read error after the records",
		content: lines(3000, map[int]string{}),
		readErr: true,
		want:    `in: read: boom`,
	}, {
		name:    "a bad record before a read error",
		content: lines(3000, map[int]string{2999: `1,2,3`}),
		readErr: true,
		want:    `in: line 2999: the header has 2 fields, this record 3`,
	}}
	checkBlockErrors(t, decodeCSVBlocks, tests)
}

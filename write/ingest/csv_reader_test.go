package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// csvTestRecord is a record a CSV reader read: the line it starts on, its
// fields, and the offset of the text after it.
type csvTestRecord struct {
	line   int
	fields []string
	end    int
}

// readCSVRecords reads all the records of text with a csvReader, up to the
// first error.
func readCSVRecords(text []byte) ([]csvTestRecord, error) {
	r := newCSVReader(text)
	var recs []csvTestRecord
	for {
		fields, perr := r.read()
		if perr != nil {
			return recs, perr
		}
		if fields == nil {
			return recs, nil
		}
		recs = append(recs, csvTestRecord{r.start, append([]string(nil), fields...), r.pos})
	}
}

// readStdCSV reads all the records of text with encoding/csv, up to the
// first error.
func readStdCSV(text []byte) ([]csvTestRecord, error) {
	r := csv.NewReader(bytes.NewReader(text))
	r.FieldsPerRecord = -1
	var recs []csvTestRecord
	for {
		fields, err := r.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		line, _ := r.FieldPos(0)
		recs = append(recs, csvTestRecord{line, fields, int(r.InputOffset())})
	}
}

func TestCSVReader(t *testing.T) {
	rec := func(line int, end int, fields ...string) csvTestRecord { return csvTestRecord{line, fields, end} }
	tests := []struct {
		name string
		text string
		recs []csvTestRecord
	}{
		{"plain fields", "a,b\n1,2\n", []csvTestRecord{rec(1, 4, "a", "b"), rec(2, 8, "1", "2")}},
		{"empty lines are skipped", "\n\r\na\n\n\r\nb", []csvTestRecord{rec(3, 5, "a"), rec(6, 9, "b")}},
		{"empty fields", ",\na,\n\"\"\n", []csvTestRecord{rec(1, 2, "", ""), rec(2, 5, "a", ""), rec(3, 8, "")}},
		{"doubled quotes", `"a""b",""""`, []csvTestRecord{rec(1, 11, `a"b`, `"`)}},
		{"a quoted field keeps its line ends", "\"x\r\ny\n\r\",z\r\nw", []csvTestRecord{rec(1, 12, "x\r\ny\n\r", "z"), rec(4, 13, "w")}},
		{"quoted commas", "\"a,b\",\"\n,\"\n", []csvTestRecord{rec(1, 11, "a,b", "\n,")}},
		{"a carriage return inside a plain field", "a\rb,c\r\n", []csvTestRecord{rec(1, 7, "a\rb", "c")}},
		{"a carriage return ends the text", "a,\"b\"\r\nc\r", []csvTestRecord{rec(1, 7, "a", "b"), rec(2, 9, "c")}},
		{"a quoted field ends the text after a carriage return", "\"b\"\r", []csvTestRecord{rec(1, 4, "b")}},
		{"spaces are kept", " a , b \n", []csvTestRecord{rec(1, 8, " a ", " b ")}},
		{"no records", "\n\r\n\r", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := readCSVRecords([]byte(tt.text))
			if err != nil || !reflect.DeepEqual(recs, tt.recs) {
				t.Errorf("read %#v, %v\nwant %#v", recs, err, tt.recs)
			}
		})
	}
}

func TestCSVReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		recs int // the records read before the error
		want csv.ParseError
	}{
		{"a bare quote", "a,b\"c\n", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 4, Err: csv.ErrBareQuote}},
		{"a quote after a space", "a, \"b\"\n", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 4, Err: csv.ErrBareQuote}},
		{"a bare quote on a later line of a record", "x\n\"a\nb\",c\"\n", 1, csv.ParseError{StartLine: 2, Line: 3, Column: 5, Err: csv.ErrBareQuote}},
		{"a quote inside a quoted field", "x\n\"a\nb\"c", 1, csv.ParseError{StartLine: 2, Line: 3, Column: 2, Err: csv.ErrQuote}},
		{"a quote then a carriage return", "\"a\"\rb", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 3, Err: csv.ErrQuote}},
		{"a quoted field left open", "x\n\"a\nbc", 1, csv.ParseError{StartLine: 2, Line: 3, Column: 3, Err: csv.ErrQuote}},
		{"left open before a line end", "\"a\n", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 4, Err: csv.ErrQuote}},
		{"left open after its quote", "a,\"", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 4, Err: csv.ErrQuote}},
		{"left open after a doubled quote", "a,\"\"\"", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 6, Err: csv.ErrQuote}},
		// encoding/csv says column 4: it counts "\r\n" as one byte.
		{"left open before a carriage return and a line end", "\"a\r\n", 0, csv.ParseError{StartLine: 1, Line: 1, Column: 5, Err: csv.ErrQuote}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := readCSVRecords([]byte(tt.text))
			var pe *csv.ParseError
			if !errors.As(err, &pe) || *pe != tt.want || len(recs) != tt.recs {
				t.Errorf("%d records, error %#v\nwant %d, %#v", len(recs), err, tt.recs, tt.want)
			}
		})
	}
}

// leftOpen reports whether pe is the error of a quoted field that the end
// of text leaves open: on the line of its last byte, at the column after it.
func leftOpen(text string, pe *csv.ParseError) bool {
	last := strings.LastIndexByte(text[:len(text)-1], '\n') + 1
	return pe.Err == csv.ErrQuote && pe.Line == 1+strings.Count(text[:last], "\n") && pe.Column == len(text)-last+1
}

// FuzzCSVReader checks csvReader against encoding/csv: on text without
// "\r" both read the same records, lines and offsets, or fail with the same
// error at the same place. With "\r", they differ only where encoding/csv
// turns the "\r\n" of a quoted field into "\n", and in the line and column
// of a quoted field left open.
func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "\n\na,\"b\nc\"\n\"\"\"\",d", "a\"b", "\"a\"b", "\"a", "\"a\n", "a,\"", ",,\n,",
		"\"x\r\ny\"\r\nz\r", "a\rb\r\r\n", "\"a\"\r", "\"a\r\n", "\r\n\r", "\"\n\"\n\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, gotErr := readCSVRecords([]byte(text))
		want, wantErr := readStdCSV([]byte(text))
		hasCR := strings.Contains(text, "\r")
		if hasCR {
			for _, r := range got {
				for i, field := range r.fields {
					r.fields[i] = strings.ReplaceAll(field, "\r\n", "\n")
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: records\n got %+v\nwant %+v", text, got, want)
		}
		var gotPE, wantPE *csv.ParseError
		if errors.As(gotErr, &gotPE) != errors.As(wantErr, &wantPE) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, encoding/csv %v", text, gotErr, wantErr)
		}
		if gotErr == nil {
			return
		}
		if hasCR && leftOpen(text, gotPE) {
			gotPE.Line, gotPE.Column, wantPE.Line, wantPE.Column = 0, 0, 0, 0
		}
		if *gotPE != *wantPE {
			t.Fatalf("%q: error %#v, encoding/csv %#v", text, gotPE, wantPE)
		}
	})
}

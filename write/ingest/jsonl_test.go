package ingest

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestDecodeJSONLRefusesInvalidText checks that a string, value or member
// name, holding bytes that are not UTF-8 or an escaped UTF-16 surrogate
// that is not half of a pair is refused with the line, the member and the
// column, instead of becoming U+FFFD as encoding/json makes it.
func TestDecodeJSONLRefusesInvalidText(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"a byte that starts no character", "{\"id\": 1}\n{\"id\": 2, \"rider\": \"caf\xe9\"}",
			`in.jsonl: line 2: member "rider": invalid UTF-8 (byte 0xe9) in a string at column 24`},
		{"after other characters", "{\"rider\": \"é€😀\xff\"}",
			`in.jsonl: line 1: member "rider": invalid UTF-8 (byte 0xff) in a string at column 15`},
		{"a character cut short", "{\"rider\": \"\xe2\x82\"}",
			`in.jsonl: line 1: member "rider": invalid UTF-8 (byte 0xe2) in a string at column 12`},
		{"an overlong encoding", "{\"rider\": \"\xc0\x80\"}",
			`in.jsonl: line 1: member "rider": invalid UTF-8 (byte 0xc0) in a string at column 12`},
		{"a surrogate encoded in UTF-8", "{\"rider\": \"\xed\xa0\x80\"}",
			`in.jsonl: line 1: member "rider": invalid UTF-8 (byte 0xed) in a string at column 12`},
		{"with escapes", "{\"rider\": \"\\n\\u00e9\xff\"}",
			`in.jsonl: line 1: member "rider": invalid UTF-8 (byte 0xff) in a string at column 20`},
		{"nested", "{\"r\": {\"n\": [\"ok\", {\"x\": \"\xff\"}]}}",
			`in.jsonl: line 1: member "r.n[1].x": invalid UTF-8 (byte 0xff) in a string at column 27`},
		{"in a meta column", "{\"_hoodie_record_key\": \"\xff\", \"id\": 1}",
			`in.jsonl: line 1: member "_hoodie_record_key": invalid UTF-8 (byte 0xff) in a string at column 25`},
		{"in a member name", "{\"id\": 1, \"\xffa\": 1}",
			`in.jsonl: line 1: invalid UTF-8 (byte 0xff) in a member name at column 12`},
		{"in a nested member name", "{\"attrs\": {\"a\": 1, \"b\xff\": 2}}",
			`in.jsonl: line 1: member "attrs": invalid UTF-8 (byte 0xff) in a member name at column 22`},
		{"a high surrogate at the end", `{"rider": "x\ud800"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ud800 in a string at column 13`},
		{"a high surrogate, then another escape", `{"rider": "\ud800\u0041"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ud800 in a string at column 12`},
		{"a high surrogate, then a pair", `{"rider": "\uD83D\ud83d\ude00"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \uD83D in a string at column 12`},
		{"a high surrogate, then a character", `{"rider": "\ud83dx"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ud83d in a string at column 12`},
		{"a high surrogate, then an escaped character", `{"rider": "\ud83d\n"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ud83d in a string at column 12`},
		{"a low surrogate alone", `{"rider": "é\ude00"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ude00 in a string at column 13`},
		{"a pair the wrong way round", `{"rider": "\ude00\ud83d"}`,
			`in.jsonl: line 1: member "rider": lone UTF-16 surrogate \ude00 in a string at column 12`},
		{"in an array", `{"tags": ["a", "\udbff"]}`,
			`in.jsonl: line 1: member "tags[1]": lone UTF-16 surrogate \udbff in a string at column 17`},
		{"in a member name, escaped", `{"\ud800": 1}`,
			`in.jsonl: line 1: lone UTF-16 surrogate \ud800 in a member name at column 3`},
		{"in a nested member name, escaped", `{"attrs": {"\udc00": "v"}}`,
			`in.jsonl: line 1: member "attrs": lone UTF-16 surrogate \udc00 in a member name at column 13`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeTempFile(t, "in.jsonl", "jsonl", []byte(tt.content), nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant  %s", err, tt.want)
			}
		})
	}
}

// TestDecodeJSONLTrimsJSONSpaceOnly checks that a line may have JSON's
// whitespace around its object, and that other spaces are refused as JSON
// refuses them.
func TestDecodeJSONLTrimsJSONSpaceOnly(t *testing.T) {
	in, err := decodeTempFile(t, "in.jsonl", "jsonl", []byte(" \t{\"a\": 1}\t \r\n\r\n \t\n{\"a\": 2}"), nil)
	if err != nil {
		t.Fatalf("JSON whitespace around objects: %v", err)
	}
	if len(in.Rows) != 2 {
		t.Fatalf("%d records, want 2", len(in.Rows))
	}
	for _, content := range []string{"\u00a0{\"a\": 1}", "{\"a\": 1}\u0085", "\v{\"a\": 1}", "{\"a\": 1}\f"} {
		_, err := decodeTempFile(t, "in.jsonl", "jsonl", []byte(content), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "in.jsonl: line 1: ") {
			t.Errorf("%q: error %v, want one about line 1", content, err)
		}
	}
}

// TestDecodeJSONLBlocksInvalidText checks that invalid text is reported on
// its line when the input is decoded in blocks, before a later bad line.
func TestDecodeJSONLBlocksInvalidText(t *testing.T) {
	lines := func(given map[int]string) []byte { return numberedLines(3000, `{"b": "x"}`, given) }
	checkBlockErrors(t, decodeJSONLBlocks, []blockErrorCase{{
		name:    "invalid UTF-8",
		content: lines(map[int]string{1700: "{\"b\": \"\xff\"}", 2500: `{"b": }`}),
		want:    `in: line 1700: member "b": invalid UTF-8 (byte 0xff) in a string at column 8`,
	}, {
		name:    "a lone surrogate",
		content: lines(map[int]string{1700: `{"b": "\ud800"}`, 2500: `{"b": }`}),
		want:    `in: line 1700: member "b": lone UTF-16 surrogate \ud800 in a string at column 8`,
	}})
}

// jsonTextProblem reports whether a string of text, valid JSON, holds bytes
// that are not UTF-8 or an escaped surrogate that is not half of a pair.
// It checks the UTF-16 code units of each string, independently of the
// parser.
func jsonTextProblem(text string) bool {
	var units []uint16 // of the string being read
	inString := false
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case !inString:
			inString, units = c == '"', units[:0]
			i++
		case c == '"':
			if lonesurrogate(units) {
				return true
			}
			inString = false
			i++
		case c == '\\' && text[i+1] == 'u':
			u, _ := strconv.ParseUint(text[i+2:i+6], 16, 16)
			units = append(units, uint16(u))
			i += 6
		case c == '\\':
			units = append(units, uint16(text[i+1]))
			i += 2
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 {
				return true
			}
			units = utf16.AppendRune(units, r)
			i += size
		}
	}
	return false
}

// lonesurrogate reports whether units, UTF-16 code units, hold a surrogate
// that is not half of a pair.
func lonesurrogate(units []uint16) bool {
	for i := 0; i < len(units); i++ {
		if u := units[i]; utf16.IsSurrogate(rune(u)) {
			if u >= 0xdc00 || i+1 == len(units) || units[i+1] < 0xdc00 || units[i+1] > 0xdfff {
				return true
			}
			i++
		}
	}
	return false
}

// checkTextError checks the error of the JSON parser on text that
// encoding/json accepts: a *textError if jsonTextProblem finds one, none
// otherwise. It reports whether the text had such a problem.
func checkTextError(t *testing.T, text string, err error) bool {
	t.Helper()
	var te *textError
	isText := errors.As(err, &te)
	if problem := jsonTextProblem(text); problem != isText {
		t.Fatalf("%q: parser error %v; a string that is not valid text: %v", text, err, problem)
	}
	return isText
}

// TestJSONTextProblem checks the test's own oracle on a few texts.
func TestJSONTextProblem(t *testing.T) {
	for text, want := range map[string]bool{
		`"a\u00e9\ud83d\ude00\n"`:  false,
		`["\udbff\udfff", "é"]`:    false,
		`{"\"\\": "\\ud800"}`:      false,
		`"\ud800"`:                 true,
		`"\ud800\ud800\udc00"`:     true,
		`"\udc00"`:                 true,
		`{"a": "x", "b\udc00": 1}`: true,
		"\"\xff\"":                 true,
		"\"\xed\xa0\x80\"":         true,
	} {
		if got := jsonTextProblem(text); got != want {
			t.Errorf("jsonTextProblem(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestJSONStringsAlias checks that a string without escapes is not copied:
// its content aliases the line, which the decoder's speed relies on.
func TestJSONStringsAlias(t *testing.T) {
	for _, text := range []string{`"plain"`, `"é😀"`} {
		p := jsonParser{data: []byte(text)}
		s, err := p.str()
		if err != nil || string(s) != strings.Trim(text, `"`) {
			t.Fatalf("%s: %q, %v", text, s, err)
		}
		if &s[0] != &p.data[1] {
			t.Errorf("%s: the content was copied", text)
		}
	}
}

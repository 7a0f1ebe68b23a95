package main

import (
	"testing"
)

// TestWriteRefusesInvalidJSONText checks, through the command line, that a
// JSON line whose text is not valid (bytes that are not UTF-8, a lone
// surrogate escape) is bad input: one error naming the input, the line, the
// member and the cause, exit status 3, and the table as it was. A
// surrogate pair is written as its character.
func TestWriteRefusesInvalidJSONText(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"region":"eu","rider":"Ann"}`, "insert", dir).mustSucceed(t)
	before := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	good := `{"uuid":"b","ts":1,"region":"eu","rider":"Bo"}` + "\n"
	tests := []struct {
		name  string
		line  string
		wants []string
	}{
		{"invalid UTF-8", "{\"uuid\":\"c\",\"ts\":1,\"region\":\"eu\",\"rider\":\"caf\xe9\"}",
			[]string{`standard input: line 2: member "rider": invalid UTF-8 (byte 0xe9) in a string at column 46`}},
		{"a lone surrogate in the key", `{"uuid":"c\ud800","ts":1,"region":"eu"}`,
			[]string{`standard input: line 2: member "uuid": lone UTF-16 surrogate \ud800 in a string at column 11`}},
		{"a lone surrogate in a member name", `{"uuid":"c","ts":1,"region":"eu","\udc00":1}`,
			[]string{`standard input: line 2: lone UTF-16 surrogate \udc00 in a member name at column 35`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := hoodiectl(t, good+tt.line+"\n", "upsert", dir)
			r.mustFail(t, exitError, tt.wants...)
			if r.stdout != "" {
				t.Errorf("a refused write printed %q", r.stdout)
			}
		})
	}
	if after := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; after != before {
		t.Fatalf("refused writes changed the timeline:\n%s\nwas\n%s", after, before)
	}
	hoodiectl(t, `{"uuid":"d","ts":1,"region":"eu","rider":"\ud83d\ude00 \u00e9"}`, "upsert", dir).mustSucceed(t)
	recs := readKeys(t, dir)
	if len(recs) != 2 || recs["d"]["rider"] != "😀 é" {
		t.Errorf("after a write of a surrogate pair: %v", recs)
	}
}

// TestWriteKeepsCSVLineEnds checks, through the command line, that a quoted
// CSV field keeps its "\r\n" line ends while "\r\n" outside quotes ends a
// record.
func TestWriteKeepsCSVLineEnds(t *testing.T) {
	dir := newTripsCLITable(t)
	in := "uuid,ts,region,note\r\na,1,eu,\"line one\r\nline two\nline three\"\r\nb,1,eu,plain\r\n"
	hoodiectl(t, in, "insert", dir, "--format", "csv").mustSucceed(t)
	recs := readKeys(t, dir)
	if len(recs) != 2 || recs["a"]["note"] != "line one\r\nline two\nline three" || recs["b"]["note"] != "plain" {
		t.Errorf("records %q", recs)
	}
}

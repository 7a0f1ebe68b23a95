package main

import (
	"testing"
)

// TestWriteKeepsEscapedText checks, through the command line, that a JSON
// surrogate pair is written as its character (TestWriteBadInput has the
// text that is refused).
func TestWriteKeepsEscapedText(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"d","ts":1,"region":"eu","rider":"\ud83d\ude00 \u00e9"}`, "upsert", dir).mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 1 || recs["d"]["rider"] != "😀 é" {
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

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// result is what one hoodiectl run printed and returned.
type result struct {
	code     int
	stdout   string
	stderr   string
	commandL string
}

// hoodiectl runs one command line in-process with the given standard input.
func hoodiectl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String(), commandL: strings.Join(args, " ")}
}

// mustSucceed fails the test unless r exited 0.
func (r result) mustSucceed(t *testing.T) result {
	t.Helper()
	if r.code != exitOK {
		t.Fatalf("hoodiectl %s: exit %d\nstdout: %s\nstderr: %s", r.commandL, r.code, r.stdout, r.stderr)
	}
	return r
}

// mustFail fails the test unless r exited with code and its error output
// contains every one of wants.
func (r result) mustFail(t *testing.T, code int, wants ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("hoodiectl %s: exit %d, want %d\nstdout: %s\nstderr: %s", r.commandL, r.code, code, r.stdout, r.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("hoodiectl %s: stderr lacks %q:\n%s", r.commandL, w, r.stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"timeline"}, "expected TABLE"},
		{[]string{"timeline", "a", "b"}, "expected TABLE"},
		{[]string{"timeline", "x", "--bad"}, "unknown flag: --bad"},
		{[]string{"timeline", "x", "--format", "xml"}, `--format "xml"`},
		{[]string{"init", "x", "--record-key", "id"}, "needs --name"},
		{[]string{"init", "x", "--name", "t"}, "needs --record-key"},
		{[]string{"init", "x", "--name", "t", "--record-key", "id", "--merge-mode", "newest"}, `--merge-mode "newest"`},
		{[]string{"init", "x", "--name", "t", "--record-key", "id", "--merge-mode", "event-time"}, "needs a precombine column"},
		// An empty instant (an unset shell variable) is not "latest".
		{[]string{"read", "x", "--as-of", ""}, "--as-of is empty"},
		{[]string{"read", "x", "--as-of", " "}, "--as-of is empty"},
		{[]string{"read", "x", "--begin", ""}, "--begin is empty"},
		{[]string{"read", "x", "--begin", "000", "--end", ""}, "--end is empty"},
		{[]string{"query", "x", "select 1", "--as-of", ""}, "--as-of is empty"},
		{[]string{"export", "x", "y", "--format", "parquet", "--as-of="}, "--as-of is empty"},
	}
	for _, tt := range tests {
		hoodiectl(t, "", tt.args...).mustFail(t, exitUsage, tt.want)
	}
}

func TestHelpExplainsEveryCommand(t *testing.T) {
	root := hoodiectl(t, "", "--help").mustSucceed(t)
	for _, cmd := range newRootCommand(streams{}).Commands() {
		name := cmd.Name()
		if name == "help" || name == "completion" {
			continue
		}
		if !strings.Contains(root.stdout, name) {
			t.Errorf("hoodiectl --help does not list %s", name)
		}
		help := hoodiectl(t, "", name, "--help").mustSucceed(t)
		if !strings.Contains(help.stdout, "Examples:") || !strings.Contains(help.stdout, "hoodiectl "+name) {
			t.Errorf("hoodiectl %s --help has no example:\n%s", name, help.stdout)
		}
	}
}

// TestErrorsAreOneShortLine runs hoodiectl over bad command lines and bad
// inputs: each error is one line on standard error, with the hoodiectl:
// prefix, and short.
func TestErrorsAreOneShortLine(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu","r":{"a":{"b":[1,2]}}}`, "upsert", dir).mustSucceed(t)
	notParquet := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(notParquet, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 5000)
	tests := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"bogus"}},
		{"", []string{"read"}},
		{"", []string{"read", dir, "--bad"}},
		{"", []string{"read", dir, "--as-of", ""}},
		{"", []string{"read", dir, "--columns", "nosuch"}},
		{"", []string{"read", dir, "--where", "r = 1"}},
		{"", []string{"read", dir, "--where", "fare = = 1"}},
		{"", []string{"read", dir, "--as-of", "2024-13-45"}},
		{"", []string{"read", filepath.Join(dir, "nosuch")}},
		{"", []string{"timeline", "/"}},
		{"", []string{"query", dir, "select nosuch from trips"}},
		{"", []string{"query", dir, "selec 1"}},
		{"", []string{"index"}},
		{"", []string{"index", "bogus", dir}},
		{"", []string{"validate"}},
		{"", []string{"validate", "--config", filepath.Join(dir, "nosuch.yaml")}},
		{"", []string{"init", dir, "--name", "t", "--record-key", "id"}},
		{"", []string{"init", filepath.Join(dir, "inner"), "--name", "t", "--record-key", "id"}},
		{"", []string{"upsert", dir, "--lock-timeout", "soon"}},
		{"", []string{"upsert", dir, "--set", "hoodie.parquet.max.file.size=1"}},
		{"", []string{"upsert", dir, "--set", "hoodie.cleaner.commits.retained=5", "--set", "hoodie.metadata.enable=true"}},
		{"", []string{"upsert", dir, notParquet, "--format", "parquet"}},
		{`{"uuid":"b","ts":"` + long + `"}`, []string{"upsert", dir}},
		{`{"uuid":"b","ts":1,"r":"` + long + `"}`, []string{"upsert", dir}},
		{`{"uuid":"b","ts":1,"r":{"a":{"b":["` + long + `"]}}}`, []string{"upsert", dir}},
		{`{"uuid":"b","ts":1,"r":{"a":{"b":{"c":[{"d":1}]}}}}`, []string{"upsert", dir}},
		{"not json", []string{"upsert", dir}},
		{`{"uuid":"b","ts":null}`, []string{"upsert", dir}},
		{"uuid,ts\n\"b,1\n", []string{"upsert", dir, "--format", "csv"}},
	}
	for _, tt := range tests {
		r := hoodiectl(t, tt.stdin, tt.args...)
		if r.code == exitOK {
			t.Errorf("hoodiectl %s: exit 0, want an error", r.commandL)
			continue
		}
		line := strings.TrimSuffix(r.stderr, "\n")
		if strings.Contains(line, "\n") || !strings.HasPrefix(line, "hoodiectl: ") || len(line) > 600 {
			t.Errorf("hoodiectl %.80s: want one line with the prefix, under 600 bytes; got %d bytes:\n%s", r.commandL, len(line), r.stderr)
		}
	}
}

// TestErrorLine checks how an error is made one short line: a multi-line
// message joined, a long nested part summarized, a long rest cut.
func TestErrorLine(t *testing.T) {
	nested := "record{" + strings.Repeat("field{a:[1,2,3] b:{c:d}} ", 40) + "}"
	for _, tt := range []struct {
		msg, want string
	}{
		{"query: Parser Error: syntax error\n\nLINE 1: selec 1\n        ^", "hoodiectl: query: Parser Error: syntax error LINE 1: selec 1"},
		{"column r: " + nested + " does not fit (long)", "hoodiectl: column r: record{…} does not fit (long)"},
		{strings.Repeat("y", 2000), "hoodiectl: " + strings.Repeat("y", 360) + " … (1520 bytes left out) … " + strings.Repeat("y", 120)},
		{"short (with) [brackets]", "hoodiectl: short (with) [brackets]"},
	} {
		if got := errorLine(errors.New(tt.msg)); got != tt.want {
			t.Errorf("errorLine(%.40q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// TestPanicIsOneLine checks that a command's panic is reported as one
// line naming where it happened, exit 3, not a stack trace.
func TestPanicIsOneLine(t *testing.T) {
	root := &cobra.Command{Use: "hoodiectl", SilenceErrors: true, SilenceUsage: true,
		RunE: func(*cobra.Command, []string) error { panic("boom") }}
	root.SetArgs(nil)
	var stderr bytes.Buffer
	if code := execute(context.Background(), root, &stderr); code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "hoodiectl: internal error: boom (at main_test.go:") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q", got)
	}
}

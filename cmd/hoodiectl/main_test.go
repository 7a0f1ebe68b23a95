package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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

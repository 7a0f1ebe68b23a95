// Command hoodiectl creates, writes, reads and inspects Hoodie tables: Apache
// Hudi (table version 6) copy-on-write tables on a local folder.
//
// The commands, their output and exit statuses follow the hoodiectl contract
// (docs/cli.md): 0 done, 1 a write refused with nothing committed, 2 a wrong
// command line, 3 any other error; validate follows data-validator's
// convention (0 pass, 1 fail, 3 a config or runtime error).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Exit statuses of the contract.
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
	exitError   = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a wrong command line: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// refusedError is a write refused with nothing committed, or a check that
// failed (index verify, validate): exit status 1.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// streams are a command's standard input and outputs.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run executes one hoodiectl command line and returns its exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io := streams{in: stdin, out: stdout, err: stderr}
	root := newRootCommand(io)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return execute(ctx, root, stderr)
}

// execute runs the command line root was given and returns its exit
// status. An error, a panic included, is one line on stderr (see
// errorLine).
func execute(ctx context.Context, root *cobra.Command, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintln(stderr, errorLine(fmt.Errorf("internal error: %v (at %s); please report it", p, panicSite())))
			code = exitError
		}
	}()
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var usage *usageError
	var refused *refusedError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, errorLine(fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())))
		return exitUsage
	case errors.As(err, &refused):
		fmt.Fprintln(stderr, errorLine(err))
		return exitRefused
	default:
		fmt.Fprintln(stderr, errorLine(err))
		return exitError
	}
}

// maxErrorLen bounds the length in bytes of the message of an error line.
const maxErrorLen = 480

// errorLine renders err as hoodiectl prints an error: "hoodiectl: ", then
// its message on one line (a multi-line message, such as DuckDB's with its
// caret under the query, is joined). A message longer than maxErrorLen has
// its long bracketed parts, such as a nested type or value printed whole,
// summarized as "{…}", then, if still too long, its middle cut.
func errorLine(err error) string {
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); strings.Trim(line, "^~ ") != "" {
			parts = append(parts, line)
		}
	}
	msg := strings.Join(parts, " ")
	if len(msg) > maxErrorLen {
		msg = summarizeBrackets(msg, 40)
	}
	if len(msg) > maxErrorLen {
		head, tail := maxErrorLen*3/4, maxErrorLen/4
		for !utf8.RuneStart(msg[head]) {
			head--
		}
		for !utf8.RuneStart(msg[len(msg)-tail]) {
			tail--
		}
		msg = fmt.Sprintf("%s … (%d bytes left out) … %s", msg[:head], len(msg)-head-tail, msg[len(msg)-tail:])
	}
	return "hoodiectl: " + msg
}

// summarizeBrackets replaces the inside of every outermost (), [] or {}
// longer than limit bytes with "…". Unbalanced brackets are left alone.
func summarizeBrackets(msg string, limit int) string {
	var b strings.Builder
	var stack []byte
	open := -1 // where the outermost open bracket is
	last := 0  // msg[:last] is in b
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; c {
		case '(', '[', '{':
			if len(stack) == 0 {
				open = i
			}
			stack = append(stack, map[byte]byte{'(': ')', '[': ']', '{': '}'}[c])
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return msg
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && i-open-1 > limit {
				b.WriteString(msg[last : open+1])
				b.WriteString("…")
				last = i
			}
		}
	}
	if len(stack) > 0 {
		return msg
	}
	b.WriteString(msg[last:])
	return b.String()
}

// panicSite is where the panic being recovered was raised: file:line of
// the first function below runtime.gopanic that is not the runtime's.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		if panicking && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		panicking = panicking || f.Function == "runtime.gopanic"
		if !more {
			return "an unknown place"
		}
	}
}

func newRootCommand(io streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "hoodiectl",
		Short: "Create, write, read and inspect Hoodie (Apache Hudi) tables",
		Long: `hoodiectl drives Hoodie, a copy-on-write lakehouse table engine whose tables are
Apache Hudi tables (table version 6): Spark, Trino and hudi-rs read what it writes.

A TABLE is the table's base folder. Exit status: 0 done, 1 a write refused with
nothing committed, 2 a wrong command line, 3 any other error.`,
		Example: `  hoodiectl quickstart /tmp/hoodie-tour
  hoodiectl init /tmp/trips --name trips --record-key uuid --precombine ts --partition-by partitionpath
  hoodiectl timeline /tmp/trips`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			cmd.SetOut(io.err)
			cmd.Help()
			return usagef("no command given")
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return checkInstantFlags(cmd) }
	root.AddCommand(
		newInitCommand(io),
		newTimelineCommand(io),
		newArchiveCommand(io),
		newQuickstartCommand(io),
		newReadCommand(io),
		newQueryCommand(io),
		newExportCommand(io),
		newIndexCommand(io),
		newBenchCommand(io),
		newValidateCommand(io),
		newCleanCommand(io), newSavepointCommand(io), newSavepointsCommand(io),
		newRollbackCommand(io), newRestoreCommand(io),
	)
	root.AddCommand(newWriteCommands(io)...)
	root.AddCommand(newReplaceCommands(io)...)
	root.AddCommand(newClusterCommand(io))
	var silence func(*cobra.Command)
	silence = func(c *cobra.Command) {
		c.SilenceErrors, c.SilenceUsage = true, true
		for _, sub := range c.Commands() {
			silence(sub)
		}
	}
	silence(root)
	return root
}

// instantFlags are the flags of every command that take an instant.
var instantFlags = []string{"as-of", "begin", "end"}

// checkInstantFlags refuses an instant flag given empty: an unset shell
// variable ($T in --as-of "$T") must not read the latest snapshot or the
// whole table instead of the one asked for.
func checkInstantFlags(cmd *cobra.Command) error {
	for _, name := range instantFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == "" {
			return usagef("--%s is empty: give an instant (yyyyMMddHHmmssSSS, \"yyyy-MM-dd HH:mm:ss\", yyyy-MM-dd) or leave the flag out", name)
		}
	}
	return nil
}

// exactArgs is cobra.ExactArgs returning a usage error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s, got %d argument(s)", names, len(args))
		}
		return nil
	}
}

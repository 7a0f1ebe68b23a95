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
	"strings"
	"syscall"

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
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "hoodiectl: %v\n", err)
	var usage *usageError
	var refused *refusedError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "Run 'hoodiectl --help' for usage.\n")
		return exitUsage
	case errors.As(err, &refused):
		return exitRefused
	default:
		return exitError
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
		newQuickstartCommand(io),
		newReadCommand(io),
		newQueryCommand(io),
		newExportCommand(io),
		newIndexCommand(io),
		newBenchCommand(io),
		newValidateCommand(io),
	)
	root.AddCommand(newWriteCommands(io)...)
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

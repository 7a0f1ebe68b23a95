package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/write"
)

func newRollbackCommand(io streams) *cobra.Command {
	return newUndoCommand(io, "rollback", "Undo the table's latest write",
		`rollback undoes the table's latest completed write (a commit or replacecommit),
given by its instant time, as Hudi's rollback does: a rollback instant records
the write undone and the files deleted, the write's files and instant go, and
the record index follows. Spark and hudi-rs read the table as it was before the
write.

Only the latest write is rolled back: any other is refused (exit status 1) with
nothing changed, and the error names the latest. A write a savepoint keeps is
refused too. To go further back, restore to a savepoint.

A rollback that stopped half way (a crash, a full disk) is completed by the next
rollback, restore or write. The instant time of the rollback instant is the last
line printed.`,
		"  hoodiectl rollback /tmp/trips 20240418172802262",
		func(ctx context.Context, t *hoodie.Table, instant string, opts hoodie.ServiceOptions) (*undone, error) {
			res, err := t.Rollback(ctx, instant, opts)
			if err != nil {
				return nil, err
			}
			return &undone{res.Instant, fmt.Sprintf("rollback: rolled back %s %s with rollback %s: %d file(s) deleted",
				res.RolledBack.Action, res.RolledBack.Time, res.Instant, res.Deleted), res.Warnings}, nil
		})
}

func newRestoreCommand(io streams) *cobra.Command {
	return newUndoCommand(io, "restore", "Take the table back to a savepoint",
		`restore takes the table back to a savepoint, given by its instant time, as Hudi's
restore does: every write after it is rolled back, newest first, and a restore
instant records them. The record index follows.

An instant that is not a savepoint is refused (exit status 1) with nothing
changed, and so is a restore that would roll back a write another savepoint
keeps.

A restore that stopped half way is completed by the next restore, rollback or
write. The instant time of the restore instant is the last line printed.`,
		"  hoodiectl restore /tmp/trips 20240418172802262",
		func(ctx context.Context, t *hoodie.Table, instant string, opts hoodie.ServiceOptions) (*undone, error) {
			res, err := t.Restore(ctx, instant, opts)
			if err != nil {
				return nil, err
			}
			var times []string
			for _, in := range res.RolledBack {
				times = append(times, in.Time)
			}
			summary := fmt.Sprintf("restore: restored to savepoint %s with restore %s: %d write(s) rolled back", res.Savepoint, res.Instant, len(times))
			if len(times) > 0 {
				summary += " (" + strings.Join(times, ", ") + ")"
			}
			return &undone{res.Instant, summary, res.Warnings}, nil
		})
}

// undone is what a rollback or restore did: the instant it made, a line
// for people, and the warnings of what it left for the next write to
// repair.
type undone struct {
	instant, summary string
	warnings         []error
}

// newUndoCommand returns the command name, "NAME TABLE INSTANT", which runs
// run on the table, prints its warnings and summary on standard error, and
// the instant it made as the last line of standard output.
func newUndoCommand(io streams, name, short, long, example string, run func(ctx context.Context, t *hoodie.Table, instant string, opts hoodie.ServiceOptions) (*undone, error)) *cobra.Command {
	return &cobra.Command{
		Use:     name + " TABLE INSTANT",
		Short:   short,
		Long:    long,
		Example: example,
		Args:    exactArgs(2, "TABLE INSTANT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			table, instant := args[0], strings.TrimSpace(args[1])
			if instant == "" {
				return usagef("INSTANT is empty: give an instant time (yyyyMMddHHmmssSSS)")
			}
			if _, err := openFS(table); err != nil {
				return err
			}
			t, err := hoodie.Open(cmd.Context(), table)
			if err != nil {
				return err
			}
			done, err := run(cmd.Context(), t, instant, hoodie.ServiceOptions{LockWaiting: lockWaitingNotice(io)})
			if err != nil {
				if errors.Is(err, write.ErrRefused) {
					return &refusedError{fmt.Errorf("%s %s: %w; nothing was changed", name, table, err)}
				}
				return fmt.Errorf("%s %s: %w", name, table, err)
			}
			for _, w := range done.warnings {
				fmt.Fprintln(io.err, errorLine(fmt.Errorf("warning: %w", w)))
			}
			fmt.Fprintln(io.err, done.summary)
			fmt.Fprintln(io.out, done.instant)
			return nil
		},
	}
}

package main

import (
	"errors"
	"fmt"
	"path"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline/archive"
	"github.com/hoodie-dev/hoodie/write"
)

func newArchiveCommand(io streams) *cobra.Command {
	var f writeFlags
	cmd := &cobra.Command{
		Use:   "archive TABLE [--set KEY=VALUE]... [--props FILE]",
		Short: "Move old instants from the active timeline to the archived timeline, as Hudi's archiver does",
		Long: `archive runs timeline archival now, as every write does after its commit
by default (hoodie.archive.automatic). When the active timeline holds more
than hoodie.keep.max.commits (30) completed commits, the oldest go to
.hoodie/archived, in Hudi's archived-timeline format, down to
hoodie.keep.min.commits (20). Cleans and rollbacks are archived by the same
bounds, each action apart.

Archival never archives a commit at or after the oldest savepoint, the
latest commit before a pending write, the earliest commit the latest clean
retains, nor a replacecommit whose replaced files are not cleaned yet.

Archive completes no instant and prints none; it says on standard error
what it archived. --props and --set take the archival settings
(hoodie.keep.min.commits, hoodie.keep.max.commits,
hoodie.commits.archival.batch), checked as a write checks its settings.`,
		Example: `  hoodiectl archive /tmp/trips
  hoodiectl archive /tmp/trips --set hoodie.keep.min.commits=5 --set hoodie.keep.max.commits=8 --set hoodie.cleaner.commits.retained=4`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			settings, err := f.settings()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if _, err := openFS(args[0]); err != nil {
				return err
			}
			t, err := hoodie.Open(ctx, args[0])
			if err != nil {
				return err
			}
			res, err := t.Archive(ctx, hoodie.ArchiveOptions{Settings: settings, LockWaiting: func(holder *storage.LockHolder) {
				who := "another writer"
				if holder != nil {
					who = holder.String()
				}
				fmt.Fprintf(io.err, "hoodiectl: waiting for the table's lock, held by %s\n", who)
			}})
			if err != nil {
				if errors.Is(err, write.ErrRefused) {
					return &refusedError{fmt.Errorf("archive: %w", err)}
				}
				return fmt.Errorf("archive: %w", err)
			}
			switch {
			case len(res.Archived) == 0:
				fmt.Fprintln(io.err, "archive: nothing to archive")
			case res.File == "":
				fmt.Fprintf(io.err, "archive: removed %d instant(s) an earlier archival had archived from the active timeline\n", len(res.Archived))
			default:
				fmt.Fprintf(io.err, "archive: archived %d instant(s), %s to %s, to %s\n", len(res.Archived), res.Archived[0].Time, res.Archived[len(res.Archived)-1].Time, path.Join(archive.Folder, res.File))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.props, "props", "", "a Java properties file of hoodie.* settings")
	fl.StringArrayVar(&f.sets, "set", nil, "a hoodie.* setting KEY=VALUE (repeatable; wins over --props)")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", 0, "give up (exit 1) when another writer holds the table's lock this long (default: wait)")
	return cmd
}

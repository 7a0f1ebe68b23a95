package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/write"
)

func newCleanCommand(io streams) *cobra.Command {
	var flags writeFlags
	cmd := &cobra.Command{
		Use:   "clean TABLE [--set KEY=VALUE]... [--props FILE]",
		Short: "Delete the file versions no retained instant reads, as Hudi's cleaner",
		Long: `clean runs the cleaner now, as Hudi's does after each commit (hoodiectl's
writes run it too, unless hoodie.clean.automatic=false).

It first completes any clean a crash left pending. Then, when at least
hoodie.clean.max.commits commits completed since the last clean, it deletes
what hoodie.cleaner.policy lets go: KEEP_LATEST_COMMITS (the default) keeps
every file the last hoodie.cleaner.commits.retained (10) commits read;
KEEP_LATEST_FILE_VERSIONS keeps hoodie.cleaner.fileversions.retained versions
of each file group; KEEP_LATEST_BY_HOURS keeps what the commits of the last
hoodie.cleaner.hours.retained hours read. File groups that replacecommits
replaced go once no retained instant reads them. A savepoint's files stay.

The clean instant's time is printed as the last line of standard output;
when there is nothing to clean, none is printed and standard error says so.
Time travel to an instant whose files were cleaned fails, naming the oldest
instant still readable.`,
		Example: `  hoodiectl clean /tmp/trips
  hoodiectl clean /tmp/trips --set hoodie.cleaner.commits.retained=3`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, opts, err := openService(cmd.Context(), io, args[0], &flags)
			if err != nil {
				return err
			}
			res, err := t.Clean(cmd.Context(), opts)
			if err != nil {
				return serviceError("clean", err)
			}
			for _, in := range res.Resumed {
				fmt.Fprintf(io.err, "clean: completed clean %s, which an earlier run left pending\n", in)
			}
			last := res.Instant
			if last == "" && len(res.Resumed) > 0 {
				last = res.Resumed[len(res.Resumed)-1]
			}
			if last == "" {
				fmt.Fprintln(io.err, "clean: nothing to clean")
				return nil
			}
			fmt.Fprintf(io.err, "clean: %d file(s) deleted\n", res.Deleted)
			fmt.Fprintln(io.out, last)
			return nil
		},
	}
	flags.registerSettings(cmd)
	return cmd
}

func newSavepointCommand(io streams) *cobra.Command {
	var flags writeFlags
	var del bool
	var comment string
	cmd := &cobra.Command{
		Use:   "savepoint TABLE INSTANT [--delete] [--comment TEXT]",
		Short: "Keep a commit's snapshot from the cleaner (or stop keeping it, with --delete)",
		Long: `savepoint saves the completed commit INSTANT as Hudi does (a .savepoint instant
holding Hudi's Avro HoodieSavepointMetadata): the cleaner keeps every file its
snapshot reads, and a restore can take the table back to it. Only a completed
commit of the active timeline can be savepointed, and not one whose files a
clean may have removed. The savepoint's instant time, the commit's, is printed
as the last line of standard output.

--delete removes the savepoint INSTANT; the next clean may then delete the
files only it kept. It prints no instant.`,
		Example: `  hoodiectl savepoint /tmp/trips 20240418172802262
  hoodiectl savepoint /tmp/trips 20240418172802262 --delete`,
		Args: exactArgs(2, "TABLE INSTANT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, opts, err := openService(cmd.Context(), io, args[0], &flags)
			if err != nil {
				return err
			}
			if del {
				if err := t.DeleteSavepoint(cmd.Context(), args[1], opts); err != nil {
					return serviceError("savepoint --delete", err)
				}
				fmt.Fprintf(io.err, "savepoint: deleted savepoint %s\n", args[1])
				return nil
			}
			in, err := t.Savepoint(cmd.Context(), args[1], comment, opts)
			if err != nil {
				return serviceError("savepoint", err)
			}
			fmt.Fprintln(io.out, in)
			return nil
		},
	}
	cmd.Flags().BoolVar(&del, "delete", false, "remove the savepoint instead of making it")
	cmd.Flags().StringVar(&comment, "comment", "", "a comment kept in the savepoint's metadata")
	flags.registerSettings(cmd)
	return cmd
}

// savepointRow is one line of `hoodiectl savepoints`.
type savepointRow struct {
	Instant       string `json:"instant"`
	SavepointedAt string `json:"savepointed_at"`
	SavepointedBy string `json:"savepointed_by"`
	Comment       string `json:"comment"`
	Files         int    `json:"files"`
}

func newSavepointsCommand(io streams) *cobra.Command {
	return &cobra.Command{
		Use:   "savepoints TABLE",
		Short: "List the table's savepoints",
		Long: `savepoints lists the completed savepoints of the table, oldest first, one JSON
object a line: instant, savepointed_at (RFC 3339, UTC), savepointed_by,
comment and files (the base files it keeps).`,
		Example: `  hoodiectl savepoints /tmp/trips`,
		Args:    exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, _, err := openService(cmd.Context(), io, args[0], nil)
			if err != nil {
				return err
			}
			sps, err := t.Savepoints(cmd.Context())
			if err != nil {
				return err
			}
			out := newJSONLines(io.out)
			for _, sp := range sps {
				row := savepointRow{Instant: sp.Instant, SavepointedAt: sp.Meta.At.UTC().Format(time.RFC3339Nano),
					SavepointedBy: sp.Meta.By, Comment: sp.Meta.Comment, Files: len(sp.Meta.FileNames())}
				if err := out.write(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// openService opens the table a service command names, with the options
// of its settings flags (none when flags is nil).
func openService(ctx context.Context, io streams, path string, flags *writeFlags) (*hoodie.Table, hoodie.ServiceOptions, error) {
	var opts hoodie.ServiceOptions
	if flags != nil {
		settings, err := flags.settings()
		if err != nil {
			return nil, opts, err
		}
		opts = hoodie.ServiceOptions{Settings: settings, LockWaiting: lockWaitingNotice(io)}
	}
	if _, err := openFS(path); err != nil {
		return nil, opts, err
	}
	t, err := hoodie.Open(ctx, path)
	return t, opts, err
}

// serviceError wraps a service's failure, refused (exit 1) when it waited
// too long for the lock or the table refuses writes.
func serviceError(what string, err error) error {
	if errors.Is(err, write.ErrRefused) {
		return &refusedError{fmt.Errorf("%s: %w", what, err)}
	}
	return fmt.Errorf("%s: %w", what, err)
}

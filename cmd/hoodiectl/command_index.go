package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/write"
)

func newIndexCommand(io streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index verify|rebuild TABLE",
		Short: "Check or rebuild the table's record index",
		Long: `The record index (Pebble, under .hoodie/.index) maps every record key to its
file group so that upserts and deletes find their records. The timeline is the
truth and the index a cache of it: writes keep it up to date and catch it up on
commits other writers (Spark included) made.

verify catches the index up, then compares it with the keys of the latest
snapshot and prints a JSON report; it exits 1 when they differ.
rebuild builds a new index from the latest snapshot beside the old one and puts
it in its place, whatever state the old one is in.

The index is never a reason to stop: a damaged index (a file of it that does
not read back) makes verify fail with one line naming it (exit status 3),
reads fall back to the files' footers, and the next write rebuilds it and
says so on standard error.`,
		Example: `  hoodiectl index verify /tmp/trips
  hoodiectl index rebuild /tmp/trips`,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("index needs a subcommand: verify or rebuild")
			}
			return usagef("unknown index subcommand %q: want verify or rebuild", args[0])
		},
	}
	verify := newIndexSubcommand("verify", "Compare the record index with the latest snapshot",
		func(ctx context.Context, t *hoodie.Table, path string) error {
			report, err := t.VerifyIndex(ctx)
			if errors.Is(err, index.ErrBroken) && !errors.Is(err, syscall.ENOSPC) {
				return fmt.Errorf("verify the index of %s: %w; run hoodiectl index rebuild %s", path, err, path)
			}
			if err != nil {
				return fmt.Errorf("verify the index of %s: %w", path, err)
			}
			enc := json.NewEncoder(io.out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(report); err != nil {
				return err
			}
			if !report.OK() {
				return &refusedError{fmt.Errorf("the index of %s differs from the table: %d missing, %d extra, %d misplaced key(s); run hoodiectl index rebuild %s",
					path, report.Missing, report.Extra, report.Wrong, path)}
			}
			fmt.Fprintf(io.err, "index of %s is consistent: %d record(s) as of %s\n", path, report.Indexed, report.Watermark)
			return nil
		})
	rebuild := newIndexSubcommand("rebuild", "Rebuild the record index from the latest snapshot",
		func(ctx context.Context, t *hoodie.Table, path string) error {
			if err := t.RebuildIndex(ctx); err != nil {
				return fmt.Errorf("rebuild the index of %s: %w", path, err)
			}
			fmt.Fprintf(io.err, "rebuilt the index of %s\n", path)
			return nil
		})
	cmd.AddCommand(verify, rebuild)
	return cmd
}

// newIndexSubcommand returns the index subcommand name, "NAME TABLE", which
// opens the table at TABLE and runs run on it (path being TABLE).
func newIndexSubcommand(name, short string, run func(ctx context.Context, t *hoodie.Table, path string) error) *cobra.Command {
	return &cobra.Command{
		Use:     name + " TABLE",
		Short:   short,
		Example: "  hoodiectl index " + name + " /tmp/trips",
		Args:    exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := openFS(args[0]); err != nil {
				return err
			}
			t, err := hoodie.Open(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			err = run(cmd.Context(), t, args[0])
			if errors.Is(err, write.ErrRefused) {
				return &refusedError{err}
			}
			return err
		},
	}
}

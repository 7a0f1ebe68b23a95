package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
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
rebuild drops the index and reloads it from the latest snapshot.`,
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
	verify := &cobra.Command{
		Use:     "verify TABLE",
		Short:   "Compare the record index with the latest snapshot",
		Example: `  hoodiectl index verify /tmp/trips`,
		Args:    exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := openFS(args[0]); err != nil {
				return err
			}
			t, err := hoodie.Open(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			report, err := t.VerifyIndex(cmd.Context())
			if err != nil {
				return fmt.Errorf("verify the index of %s: %w", args[0], err)
			}
			enc := json.NewEncoder(io.out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(report); err != nil {
				return err
			}
			if !report.OK() {
				return &refusedError{fmt.Errorf("the index of %s differs from the table: %d missing, %d extra, %d misplaced key(s); run hoodiectl index rebuild %s",
					args[0], report.Missing, report.Extra, report.Wrong, args[0])}
			}
			fmt.Fprintf(io.err, "index of %s is consistent: %d record(s) as of %s\n", args[0], report.Indexed, report.Watermark)
			return nil
		},
	}
	rebuild := &cobra.Command{
		Use:     "rebuild TABLE",
		Short:   "Rebuild the record index from the latest snapshot",
		Example: `  hoodiectl index rebuild /tmp/trips`,
		Args:    exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := openFS(args[0]); err != nil {
				return err
			}
			t, err := hoodie.Open(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := t.RebuildIndex(cmd.Context()); err != nil {
				return fmt.Errorf("rebuild the index of %s: %w", args[0], err)
			}
			fmt.Fprintf(io.err, "rebuilt the index of %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(verify, rebuild)
	return cmd
}

package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/read/export"
	"github.com/hoodie-dev/hoodie/storage"
)

func newExportCommand(io streams) *cobra.Command {
	var format, asOf, partitionBy string
	cmd := &cobra.Command{
		Use:   "export TABLE TARGET --format parquet|json|hudi [--as-of INSTANT] [--partition-by COL]",
		Short: "Export a snapshot of the table as Parquet, JSON lines or a copy of the table",
		Long: `export writes the latest snapshot of the table, or with --as-of the snapshot
after the last commit at or before INSTANT, to the new folder TARGET, as Hudi's
HoodieSnapshotExporter does:

  parquet  the records as Parquet files, without the five Hudi meta columns
  json     the records as JSON lines files, without the meta columns, each
           value as 'hoodiectl read' prints it
  hudi     a copy of the table: the snapshot's base files, their partition
           metadata, hoodie.properties and the instants completed up to the
           snapshot; its latest snapshot is the exported one

Every parquet and json file has the table's columns as of the snapshot, in
its order and types, whatever schema its base file was written with: a column
added since is null, a narrower value (int for long, float for double) is
widened, as 'hoodiectl read' shows them.

With --partition-by COL (parquet and json), records go to hive-style folders
COL=value/ (values escaped as partition paths are, null or empty as
__HIVE_DEFAULT_PARTITION__), and COL is left out of the files, as Spark does.

TARGET must not exist. An empty _SUCCESS file, written last, marks a complete
export: a TARGET without it holds an export that failed or was interrupted.
Progress goes to standard error when it is a terminal.

An INSTANT is yyyyMMddHHmmssSSS, yyyyMMddHHmmss, "yyyy-MM-dd HH:mm:ss[.SSS]"
or yyyy-MM-dd: a wall-clock time in the zone of the table's instant times
(hoodie.table.timeline.timezone), which is UTC for tables hoodiectl created
and the writers' local time for tables without the property, as Spark
creates them.

Exit status: 2 for a wrong command line, 3 for a missing table, an existing
TARGET, an unknown partition column, a bad instant or an I/O error.`,
		Example: `  hoodiectl export /tmp/trips /tmp/trips-parquet --format parquet
  hoodiectl export /tmp/trips /tmp/trips-by-rider --format json --partition-by rider
  hoodiectl export /tmp/trips /tmp/trips-copy --format hudi --as-of "2024-04-18 17:35:51"`,
		Args: exactArgs(2, "TABLE and TARGET"),
		RunE: func(cmd *cobra.Command, args []string) error {
			table, target := args[0], args[1]
			if format == "" {
				return usagef("export needs --format parquet, json or hudi")
			}
			if err := checkFormat(format, "parquet", "json", "hudi"); err != nil {
				return err
			}
			if partitionBy != "" && format == string(export.FormatHudi) {
				return usagef("--partition-by does not apply to --format hudi, which keeps the table's partitioning")
			}
			instant, err := parseAsOf(asOf)
			if err != nil {
				return fmt.Errorf("export %s: %w", table, err)
			}
			opts := export.Options{Format: export.Format(format), AsOf: instant, PartitionBy: partitionBy}
			return runExport(cmd.Context(), io, table, target, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "parquet, json or hudi (required)")
	f.StringVar(&asOf, "as-of", "", "export the snapshot as of this instant (time travel)")
	f.StringVar(&partitionBy, "partition-by", "", "parquet and json: write records into COL=value/ folders by this column")
	return cmd
}

// runExport exports the table at path table to the new folder target.
func runExport(ctx context.Context, io streams, table, target string, opts export.Options) error {
	src, _, err := openTable(ctx, table)
	if err != nil {
		return err
	}
	dst, err := openFS(target)
	if err != nil {
		return err
	}
	if err := checkOutside(src, dst); err != nil {
		return fmt.Errorf("export %s to %s: %w", table, target, err)
	}
	progressLine := false // a progress line is on the terminal, unfinished
	if isTerminal(io.err) {
		opts.Progress = func(p export.Progress) {
			fmt.Fprintf(io.err, "\rexported %d of %d base files (%d bytes)", p.Done, p.Total, p.Bytes)
			progressLine = true
		}
	}
	res, err := export.Export(ctx, src, dst, opts)
	if progressLine {
		fmt.Fprintln(io.err)
	}
	if errors.Is(err, export.ErrTargetExists) {
		return fmt.Errorf("export %s: %s already exists: give a new folder (nothing was written)", table, target)
	}
	if err != nil {
		if started, _ := storage.Exists(context.WithoutCancel(ctx), dst, "."); started {
			return fmt.Errorf("export %s to %s: %w; %s holds an incomplete export (no %s): remove it before trying again",
				table, target, err, target, export.SuccessFile)
		}
		return fmt.Errorf("export %s to %s: %w", table, target, err)
	}
	fmt.Fprintln(io.out, exportSummary(res, opts.Format, target))
	return nil
}

// checkOutside refuses a target inside the table's folder, where a copy
// would become part of the table.
func checkOutside(table, target storage.FS) error {
	t, ok1 := table.(*storage.LocalFS)
	d, ok2 := target.(*storage.LocalFS)
	if !ok1 || !ok2 {
		return nil
	}
	rel, err := filepath.Rel(t.Root(), d.Root())
	if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return errors.New("the target is inside the table's folder")
	}
	return nil
}

// exportSummary describes a complete export in one line.
func exportSummary(res *export.Result, format export.Format, target string) string {
	snapshot := "the empty snapshot"
	if res.Instant != "" {
		snapshot = "snapshot " + res.Instant
	}
	if format == export.FormatHudi {
		return fmt.Sprintf("copied %s (%d base files, %d bytes) to %s", snapshot, res.Files, res.Bytes, target)
	}
	return fmt.Sprintf("exported %d records of %s (%d base files) to %d %s files (%d bytes) in %s",
		res.Records, snapshot, res.BaseFiles, res.Files, format, res.Bytes, target)
}

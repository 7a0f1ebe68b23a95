package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// instantRow is one line of `hoodiectl timeline`.
type instantRow struct {
	Instant   string `json:"instant"`
	Action    string `json:"action"`
	State     string `json:"state"`
	Operation string `json:"operation,omitempty"`
	// Counts of completed writes, from the commit metadata.
	Writes  *int64 `json:"writes,omitempty"`
	Inserts *int64 `json:"inserts,omitempty"`
	Updates *int64 `json:"updates,omitempty"`
	Deletes *int64 `json:"deletes,omitempty"`
	Files   *int   `json:"files,omitempty"`
	Bytes   *int64 `json:"bytes,omitempty"`
}

func newTimelineCommand(io streams) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "timeline TABLE [--format jsonl|table]",
		Short: "List the table's instants, with each completed write's operation and counts",
		Long: `timeline lists every instant of the table's active timeline in time order:
its time (yyyyMMddHHmmssSSS), action (commit, replacecommit, clean, rollback...)
and state (requested, inflight, completed). For completed writes it adds the
operation (insert, upsert, bulk_insert, delete...) and the counts of records
written, inserted, updated and deleted, files written and bytes.

An instant time is a wall-clock time in the table's timeline zone
(hoodie.table.timeline.timezone): UTC for tables hoodiectl created, the local
time of the machine that wrote it for tables without the property (Hudi's
default, LOCAL, as Spark creates them).`,
		Example: `  hoodiectl timeline /tmp/trips
  hoodiectl timeline /tmp/trips --format table`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "jsonl", "table"); err != nil {
				return err
			}
			rows, err := timelineRows(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if format == "table" {
				return writeTimelineTable(io, rows)
			}
			out := newJSONLines(io.out)
			for _, r := range rows {
				if err := out.write(r); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl or table")
	return cmd
}

// openTable checks that path holds a table and returns its file system and
// configuration.
func openTable(ctx context.Context, path string) (storage.FS, *config.Table, error) {
	fsys, err := openFS(path)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", path, err)
	}
	return fsys, cfg, nil
}

func timelineRows(ctx context.Context, path string) ([]instantRow, error) {
	fsys, _, err := openTable(ctx, path)
	if err != nil {
		return nil, err
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", path, err)
	}
	rows := make([]instantRow, 0, tl.Len())
	for _, in := range tl.Instants() {
		row := instantRow{Instant: in.Time, Action: string(in.Action), State: in.State.String()}
		if in.State == timeline.StateCompleted && isWriteAction(in.Action) {
			meta, err := tl.ReadCommitMetadata(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", path, err)
			}
			totals := meta.Totals()
			files := len(meta.WrittenPaths())
			row.Operation = meta.OperationType.Value()
			row.Writes, row.Inserts, row.Updates, row.Deletes = &totals.Written, &totals.Inserted, &totals.Updated, &totals.Deleted
			row.Files, row.Bytes = &files, &totals.Bytes
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func isWriteAction(a timeline.Action) bool {
	return a == timeline.ActionCommit || a == timeline.ActionReplaceCommit || a == timeline.ActionDeltaCommit
}

func writeTimelineTable(io streams, rows []instantRow) error {
	cells := make([][]string, len(rows))
	num := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	for i, r := range rows {
		files := ""
		if r.Files != nil {
			files = strconv.Itoa(*r.Files)
		}
		cells[i] = []string{r.Instant, r.Action, r.State, r.Operation, num(r.Writes), num(r.Inserts), num(r.Updates), num(r.Deletes), files, num(r.Bytes)}
	}
	return writeTable(io.out, []string{"INSTANT", "ACTION", "STATE", "OPERATION", "WRITES", "INSERTS", "UPDATES", "DELETES", "FILES", "BYTES"}, cells)
}

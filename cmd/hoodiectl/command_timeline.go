package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/timeline/archive"
)

// instantRow is one line of `hoodiectl timeline`.
type instantRow struct {
	Instant string `json:"instant"`
	Action  string `json:"action"`
	State   string `json:"state"`
	// Completion is a completed instant's completion time, where the
	// timeline records one (table version 8).
	Completion string `json:"completion,omitempty"`
	Operation  string `json:"operation,omitempty"`
	// Counts of completed writes, from the commit metadata.
	Writes  *int64 `json:"writes,omitempty"`
	Inserts *int64 `json:"inserts,omitempty"`
	Updates *int64 `json:"updates,omitempty"`
	Deletes *int64 `json:"deletes,omitempty"`
	Files   *int   `json:"files,omitempty"`
	Bytes   *int64 `json:"bytes,omitempty"`
	// Archived marks, with --archived, an instant of the archived
	// timeline; the others are active.
	Archived *bool `json:"archived,omitempty"`
}

func newTimelineCommand(io streams) *cobra.Command {
	var format string
	var archived bool
	cmd := &cobra.Command{
		Use:   "timeline TABLE [--archived] [--format jsonl|table]",
		Short: "List the table's instants, with each completed write's operation and counts",
		Long: `timeline lists every instant of the table's active timeline in time order:
its time (yyyyMMddHHmmssSSS), action (commit, replacecommit, clean, rollback...)
and state (requested, inflight, completed). For completed writes it adds the
operation (insert, upsert, bulk_insert, delete...) and the counts of records
written, inserted, updated and deleted, files written and bytes. In a table of
version 8 (Hudi 1.x) a completed instant also shows its completion time.

An instant time is a wall-clock time in the table's timeline zone
(hoodie.table.timeline.timezone): UTC for tables hoodiectl created, the local
time of the machine that wrote it for tables without the property (Hudi's
default, LOCAL, as Spark creates them).

With --archived it lists the instants archival moved to .hoodie/archived
too, with the active ones, in time order, each once: every line then says
"archived": true or false (an ARCHIVED column in the table format). The
counts of an archived write come from the metadata the archive keeps.`,
		Example: `  hoodiectl timeline /tmp/trips
  hoodiectl timeline /tmp/trips --format table
  hoodiectl timeline /tmp/trips --archived`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "jsonl", "table"); err != nil {
				return err
			}
			rows, err := timelineRows(cmd.Context(), args[0], archived)
			if err != nil {
				return err
			}
			if format == "table" {
				return writeTimelineTable(io, rows, archived)
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
	cmd.Flags().BoolVar(&archived, "archived", false, "list the archived instants too, each marked archived or not")
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

// timelineRows lists the active timeline's instants, and with archived
// the archived timeline's too.
func timelineRows(ctx context.Context, path string, archived bool) ([]instantRow, error) {
	fsys, _, err := openTable(ctx, path)
	if err != nil {
		return nil, err
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", path, err)
	}
	listed := make([]archive.Listed, 0, tl.Len())
	arch := &archive.Timeline{}
	if archived {
		if arch, err = archive.Load(ctx, fsys); err != nil {
			return nil, fmt.Errorf("table %s: %w", path, err)
		}
		listed = archive.Merged(tl, arch)
	} else {
		for _, in := range tl.Instants() {
			listed = append(listed, archive.Listed{Instant: in})
		}
	}
	rows := make([]instantRow, 0, len(listed))
	for _, l := range listed {
		in := l.Instant
		row := instantRow{Instant: in.Time, Action: string(in.Action), State: in.State.String()}
		if archived {
			row.Archived = &l.Archived
		}
		if tl.Layout().Version >= 2 {
			row.Completion = tl.CompletionTime(in)
		}
		if in.State == timeline.StateCompleted && isWriteAction(in.Action) {
			var meta *timeline.CommitMetadata
			if l.Archived {
				m, err := arch.CommitMetadata(in.Time, in.Action)
				if err != nil {
					return nil, fmt.Errorf("table %s: %w", path, err)
				}
				meta = &m.CommitMetadata
			} else if meta, err = tl.ReadCommitMetadata(ctx, in); err != nil {
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

func writeTimelineTable(io streams, rows []instantRow, archived bool) error {
	cells := make([][]string, len(rows))
	num := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	withCompletion := false
	for _, r := range rows {
		withCompletion = withCompletion || r.Completion != ""
	}
	for i, r := range rows {
		files := ""
		if r.Files != nil {
			files = strconv.Itoa(*r.Files)
		}
		cells[i] = []string{r.Instant, r.Action, r.State, r.Operation, num(r.Writes), num(r.Inserts), num(r.Updates), num(r.Deletes), files, num(r.Bytes)}
		if withCompletion {
			cells[i] = append(cells[i][:3], append([]string{r.Completion}, cells[i][3:]...)...)
		}
		if archived {
			cells[i] = append(cells[i], strconv.FormatBool(r.Archived != nil && *r.Archived))
		}
	}
	header := []string{"INSTANT", "ACTION", "STATE", "OPERATION", "WRITES", "INSERTS", "UPDATES", "DELETES", "FILES", "BYTES"}
	if withCompletion {
		// Table version 8 records when each instant completed.
		header = append(header[:3], append([]string{"COMPLETION"}, header[3:]...)...)
	}
	if archived {
		header = append(header, "ARCHIVED")
	}
	return writeTable(io.out, header, cells)
}

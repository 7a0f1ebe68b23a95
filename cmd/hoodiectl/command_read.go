package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/read"
)

func newReadCommand(io streams) *cobra.Command {
	var (
		opts            hoodie.ScanOptions
		columns, format string
	)
	cmd := &cobra.Command{
		Use:   "read TABLE [--as-of INSTANT] [--begin INSTANT [--end INSTANT]] [--columns C1,C2] [--where EXPR] [--format jsonl|csv|table]",
		Short: "Print records: the latest snapshot, as of an instant, or changed since one",
		Long: `read prints the records of the table, one per line: the latest snapshot, or
with --as-of the snapshot after the last commit at or before INSTANT (time
travel; an instant before the first commit prints nothing), or with --begin
the records of the snapshot as of --end (default: the latest commit) whose
_hoodie_commit_time lies in (begin, end] (incremental). In a table of version 8
(Hudi 1.x) --begin and --end are completion times, as in Hudi 1.x: the records
of the commits that completed in [begin, end], as those commits wrote them.

An INSTANT is yyyyMMddHHmmssSSS, yyyyMMddHHmmss, "yyyy-MM-dd HH:mm:ss[.SSS]"
or yyyy-MM-dd: a wall-clock time in the zone of the table's instant times
(hoodie.table.timeline.timezone), which is UTC for tables hoodiectl created
and the writers' local time for tables without the property, as Spark
creates them. --begin 000 starts before the first commit.

--columns picks columns by name, in order; a field of a record column is named
with dots (structField.field2). By default the five Hudi meta columns come
first, then every column of the table.

--where keeps the records an expression is true for:
  comparisons of a column with a literal: = != <> < <= > >=
  col [NOT] IN (lit, ...), col IS [NOT] NULL, AND, OR, NOT, parentheses
  literals: numbers, 'strings' ('' for a quote), TRUE, FALSE; dates and
  timestamps as strings ('2023-04-01', '2023-04-01 17:01:00')
Partitions, files and row groups the expression rules out are not read.

Output (--format): jsonl, one JSON object per record (the default): integers
and floats as numbers, decimals as strings holding the exact decimal, dates
"YYYY-MM-DD", timestamps RFC 3339 in UTC with the fraction of their unit
unless a whole second, binary as base64, records and maps as objects, arrays
as arrays. csv: a header, then the same values unquoted, records, maps and
arrays as JSON text, null as an empty cell. table: aligned columns for people.

Exit status: 2 for a wrong command line, 3 for a missing table, an unknown
column, a filter that does not parse, a bad instant or an unreadable file.`,
		Example: `  hoodiectl read /tmp/trips
  hoodiectl read /tmp/trips --as-of "2024-04-18 17:35:51" --format table
  hoodiectl read /tmp/trips --begin 20240418173550988 --columns uuid,fare
  hoodiectl read /tmp/trips --where "partitionpath = 'asia/india/chennai' AND fare > 50" --format csv`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "jsonl", "csv", "table"); err != nil {
				return err
			}
			switch {
			case opts.End != "" && opts.Begin == "":
				return usagef("--end needs --begin")
			case opts.AsOf != "" && opts.Begin != "":
				return usagef("--as-of cannot be combined with --begin: an incremental read is as of its --end")
			}
			opts.Columns = splitColumns(columns)
			scan, err := openScan(cmd.Context(), args[0], opts)
			if err != nil {
				return err
			}
			defer scan.Close()
			if err := writeRecords(io.out, scan, format); err != nil {
				return fmt.Errorf("read %s: %w", args[0], err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.AsOf, "as-of", "", "read the snapshot as of this instant (time travel)")
	f.StringVar(&opts.Begin, "begin", "", "read the records committed after this instant (incremental)")
	f.StringVar(&opts.End, "end", "", "with --begin: up to and including this instant (default: the latest commit)")
	f.StringVar(&columns, "columns", "", "comma-separated columns to print (default: all, meta columns first)")
	f.StringVar(&opts.Where, "where", "", "print only the records this expression is true for")
	f.StringVar(&format, "format", "jsonl", "output format: jsonl, csv or table")
	return cmd
}

// openScan opens a scan of the table at path; lookups by record key use
// the table's record index when it is idle (see hoodie.Table.Scan).
func openScan(ctx context.Context, path string, opts hoodie.ScanOptions) (*hoodie.Scan, error) {
	if _, _, err := openTable(ctx, path); err != nil {
		return nil, err
	}
	t, err := hoodie.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	scan, err := t.Scan(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return scan, nil
}

// writeRecords prints the scan's records in format.
func writeRecords(w io.Writer, scan *hoodie.Scan, format string) error {
	fields := scan.Schema().Fields
	header := make([]string, len(fields))
	for i, f := range fields {
		header[i] = f.Name
	}
	var (
		b *read.Batch // the record printed is record i of b
		i int
	)
	out, err := newRowWriter(w, format, header, rowValues{
		appendJSON: func(dst []byte, c int) []byte { return valuefmt.AppendJSON(dst, fields[c].Type, b.Column(c).Value(i)) },
		cell:       func(c int, null string) string { return valuefmt.Cell(fields[c].Type, b.Column(c).Value(i), null) },
		escape:     valuefmt.EscapeControl,
	})
	if err != nil {
		return err
	}
	for b, err = range scan.Batches() {
		if err != nil {
			return err
		}
		for i = range b.Len() {
			if err := out.writeRow(); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
		}
	}
	if err := out.flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

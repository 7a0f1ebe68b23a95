package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

func newQueryCommand(io streams) *cobra.Command {
	var asOf, format string
	var unsafeExternalAccess bool
	cmd := &cobra.Command{
		Use:   "query TABLE SQL [--as-of INSTANT] [--format table|jsonl|csv] [--unsafe-external-access]",
		Short: "Run SQL (DuckDB's dialect) over the table's snapshot",
		Long: `query runs SQL, in DuckDB's dialect, over the latest snapshot of the table, or
with --as-of over the snapshot after the last commit at or before INSTANT (an
instant before the first commit gives a table with no rows). In the SQL,
<TABLE_NAME> stands for the table: a view over the snapshot's base files, with
the five Hudi meta columns first and the columns and values that read gives
(in a table without meta fields, the commit time, partition path and file name
computed from each record's file). The SQL may hold several statements; the
last one's result is printed.

DuckDB runs locked down: the SQL reads the snapshot's base files and no other
file, runs queries (SELECT) only, so writes no file (no COPY, EXPORT or
ATTACH), installs and loads no extension and changes no setting (no SET).
What it refuses exits 3 with a message saying so. --unsafe-external-access
lifts all of that: the SQL may then read and write any file you may, attach
databases, install extensions from the network and load them, as DuckDB
does by default. Use it only with SQL you trust.

An INSTANT is yyyyMMddHHmmssSSS, yyyyMMddHHmmss, "yyyy-MM-dd HH:mm:ss[.SSS]"
or yyyy-MM-dd: a wall-clock time in the zone of the table's instant times
(hoodie.table.timeline.timezone), which is UTC for tables hoodiectl created
and the writers' local time for tables without the property, as Spark
creates them.

Output (--format): table, aligned columns for people (the default on a
terminal); jsonl, one JSON object per result row (the default when the output
is piped): integers and floats as numbers, decimals as strings holding the
exact decimal, dates "YYYY-MM-DD", timestamps RFC 3339 in UTC, binary as
base64, structs and maps as objects, lists as arrays; csv: a header, then the
same values unquoted, structs, maps and lists as JSON text, null as an empty
cell.

Exit status: 2 for a wrong command line, 3 for a missing table, a bad instant
or SQL that DuckDB refuses (its message is quoted).`,
		Example: `  hoodiectl query /tmp/trips "select count(*), sum(fare) from <TABLE_NAME>"
  hoodiectl query /tmp/trips "select rider, avg(fare) from <TABLE_NAME> group by rider order by 2 desc limit 5" --format table
  hoodiectl query /tmp/trips "select * from <TABLE_NAME> where fare > 50" --as-of "2024-04-18 17:35:51" --format csv`,
		Args: exactArgs(2, "TABLE and SQL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "" {
				format = "jsonl"
				if isTerminal(io.out) {
					format = "table"
				}
			}
			if err := checkFormat(format, "table", "jsonl", "csv"); err != nil {
				return err
			}
			instant, err := parseAsOf(asOf)
			if err != nil {
				return fmt.Errorf("query %s: %w", args[0], err)
			}
			access := sqlengine.LockedDown
			if unsafeExternalAccess {
				access = sqlengine.ExternalAccess
			}
			if err := runQuery(cmd.Context(), io.out, args[0], args[1], instant, format, access); err != nil {
				if errors.Is(err, sqlengine.ErrLockedDown) {
					return fmt.Errorf("query %s: %w (--unsafe-external-access lifts the lockdown)", args[0], err)
				}
				return fmt.Errorf("query %s: %w", args[0], err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&asOf, "as-of", "", "query the snapshot as of this instant (time travel)")
	f.StringVar(&format, "format", "", "output format: table (default on a terminal), jsonl (default when piped) or csv")
	f.BoolVar(&unsafeExternalAccess, "unsafe-external-access", false, "let the SQL read and write any file, attach databases, install and load extensions and change settings")
	return cmd
}

// parseAsOf normalizes an --as-of value to an instant time; "" stays "".
func parseAsOf(asOf string) (string, error) {
	if asOf == "" {
		return "", nil
	}
	instant, err := timeline.ParseInstantOrTime(asOf)
	if err != nil {
		return "", fmt.Errorf("--as-of: %w", err)
	}
	return instant, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// runQuery runs query over the snapshot of the table at path as of instant,
// on an engine of the given access, and prints the result in format.
func runQuery(ctx context.Context, w io.Writer, path, query, instant, format string, access sqlengine.Access) error {
	fsys, cfg, err := openTable(ctx, path)
	if err != nil {
		return err
	}
	local, ok := fsys.(*storage.LocalFS)
	if !ok {
		return errors.New("DuckDB reads local tables only")
	}
	engine, err := sqlengine.Open(ctx, access)
	if err != nil {
		return err
	}
	defer engine.Close()
	if err := engine.CreateSnapshotView(ctx, cfg.Name, local, cfg, instant); err != nil {
		return err
	}
	rows, err := engine.Query(ctx, sqlengine.ExpandTableName(query, cfg.Name))
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := writeQueryRows(w, rows, format); err != nil {
		return err
	}
	return rows.Close()
}

// writeQueryRows prints the rows of a query result in format.
func writeQueryRows(w io.Writer, rows *sqlengine.Rows, format string) error {
	cols := rows.Columns()
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Name
	}
	var values []any // the row printed
	out, err := newRowWriter(w, format, header, rowValues{
		appendJSON: func(dst []byte, c int) []byte { return appendQueryJSON(dst, values[c]) },
		cell:       func(c int, null string) string { return queryCell(values[c], null) },
		escape:     escapeControl,
	})
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	for rows.Next() {
		values = rows.Values()
		if err := out.writeRow(); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := out.flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// The values of a query result (see sqlengine) are printed as those of
// `read` are (see valuefmt), each self-describing: timestamps with
// microseconds, the precision of DuckDB's TIMESTAMP; UUID, TIME and
// INTERVAL values as strings; HUGEINT as a number; DuckDB's JSON as it is.

// appendQueryJSON appends a value of a query result as JSON.
func appendQueryJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQueryJSON(b, item)
		}
		return append(b, ']')
	case sqlengine.Struct:
		return appendQueryObject(b, len(v), func(i int) (string, any) { return v[i].Name, v[i].Value })
	case sqlengine.Map:
		return appendQueryObject(b, len(v), func(i int) (string, any) { return queryCell(v[i].Key, ""), v[i].Value })
	case json.RawMessage:
		return append(b, v...)
	case float32:
		return valuefmt.AppendFloat(b, float64(v), 32)
	case float64:
		return valuefmt.AppendFloat(b, v, 64)
	case bool, int64, uint64, *big.Int:
		return append(b, valuefmt.Text(nil, v)...)
	}
	return valuefmt.AppendString(b, valuefmt.Text(nil, v))
}

// appendQueryObject appends a JSON object of n entries, entry returning the
// key and value of entry i.
func appendQueryObject(b []byte, n int, entry func(i int) (string, any)) []byte {
	b = append(b, '{')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		key, value := entry(i)
		b = append(valuefmt.AppendString(b, key), ':')
		b = appendQueryJSON(b, value)
	}
	return append(b, '}')
}

// queryCell returns the text of a value of a query result: lists, structs,
// maps and JSON as JSON text, null as null, other values as valuefmt.Text
// (of no storage type: timestamps with microseconds) gives them.
func queryCell(v any, null string) string {
	switch v.(type) {
	case nil:
		return null
	case []any, sqlengine.Struct, sqlengine.Map, json.RawMessage:
		return string(appendQueryJSON(nil, v))
	}
	return valuefmt.Text(nil, v)
}

// escapeControl escapes the control characters of a table cell, so that
// each row stays on one line. A cell with some is written as strconv.Quote
// writes it, less the quotes: its quotes and backslashes are escaped too,
// \a, \b, \f and \v as such. `read` escapes differently (see
// valuefmt.EscapeControl: \x07, quotes and backslashes as they are); the two
// are kept apart so that `query --format table` prints as it did.
func escapeControl(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

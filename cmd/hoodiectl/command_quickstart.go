package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

func newQuickstartCommand(io streams) *cobra.Command {
	return &cobra.Command{
		Use:   "quickstart DIR",
		Short: "Walk through Hudi's Spark CRUD tour on a new trips table in DIR",
		Long: `quickstart creates a trips table in DIR (a new or empty folder) as Hudi's
Spark quickstart does (record key uuid, precombine ts, partitions by
partitionpath, hive-style folders), then runs the tour Hudi's users know:
insert 10 trips, insert 5 more, update 4, hard-delete 2 and soft-delete 2.
After each step it prints the table and the number of records per commit and
batch, so you can watch copy-on-write at work. The table stays in DIR for you
to explore with hoodiectl read, timeline and query.`,
		Example: `  hoodiectl quickstart /tmp/hoodie-tour
  hoodiectl read /tmp/hoodie-tour --format table`,
		Args: exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runQuickstart(cmd.Context(), io.out, args[0])
		},
	}
}

// quickstartColumns are the columns the tour prints, as Spark's tour selects
// them.
var quickstartColumns = []string{"partitionpath", "uuid", "batch_id", "rider", "ts", "fare"}

// tour runs the quickstart steps against one table.
type tour struct {
	ctx   context.Context
	out   io.Writer
	table *hoodie.Table
	gen   *trips.Generator
	live  []trips.Trip // records in the table, for picking updates and deletes
}

func runQuickstart(ctx context.Context, out io.Writer, dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("quickstart %s: the folder is not empty; give a new or empty folder", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("quickstart %s: %w", dir, err)
	}
	t, err := hoodie.Create(ctx, dir, hoodie.TableSpec{
		Name:        "hudi_trips",
		RecordKey:   []string{"uuid"},
		Precombine:  "ts",
		PartitionBy: []string{"partitionpath"},
		HiveStyle:   true,
		MergeMode:   config.MergeEventTime,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Created table hudi_trips at %s: record key uuid, precombine ts, partitioned by partitionpath (hive-style).\n", dir)
	tr := &tour{ctx: ctx, out: out, table: t, gen: trips.NewGenerator(20231129)}

	inserts := tr.gen.Inserts(10)
	if err := tr.step("Insert 10 trips (batch1)", write.OpInsert, inserts, "batch1"); err != nil {
		return err
	}
	more := tr.gen.Inserts(5)
	if err := tr.step("Insert 5 more trips (batch2)", write.OpInsert, more, "batch2"); err != nil {
		return err
	}
	updates := tr.gen.Updates(tr.live, 4)
	if err := tr.step("Update 4 trips (batch3): new riders and fares, later ts", write.OpUpsert, updates, "batch3"); err != nil {
		return err
	}
	deletes := tr.gen.Updates(tr.live, 2)
	if err := tr.step("Hard-delete 2 trips", write.OpDelete, deletes, "batch4"); err != nil {
		return err
	}
	soft := tr.gen.Updates(tr.live, 2)
	if err := tr.step("Soft-delete 2 trips: every column but uuid, partitionpath and ts becomes null", write.OpSoftDelete, soft, "batch5"); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nDone. The table is in %s. Try:\n", dir)
	fmt.Fprintf(out, "  hoodiectl timeline %s --format table\n", dir)
	fmt.Fprintf(out, "  hoodiectl read %s --format table --columns uuid,rider,fare,_hoodie_commit_time\n", dir)
	fmt.Fprintf(out, "  hoodiectl query %s 'select batch_id, count(*) from <TABLE_NAME> group by 1'\n", dir)
	return nil
}

// step writes records with a batch_id column as one commit and prints the
// table after it.
func (tr *tour) step(title string, op write.Operation, records []trips.Trip, batch string) error {
	fmt.Fprintf(tr.out, "\n== %s\n", title)
	in := tripsInput(records, batch)
	res, err := tr.table.Write(tr.ctx, op, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
	if err != nil {
		return fmt.Errorf("quickstart: %s: %w", title, err)
	}
	printWriteSummary(tr.out, res)
	switch op {
	case write.OpInsert:
		tr.live = append(tr.live, records...)
	case write.OpDelete:
		gone := map[string]bool{}
		for _, r := range records {
			gone[r.UUID] = true
		}
		kept := tr.live[:0]
		for _, r := range tr.live {
			if !gone[r.UUID] {
				kept = append(kept, r)
			}
		}
		tr.live = kept
	}
	return tr.show()
}

// show prints the table's records sorted by batch and key, and the count of
// records per commit and batch.
func (tr *tour) show() error {
	scan, err := tr.table.Scan(tr.ctx, hoodie.ScanOptions{Columns: append([]string{"_hoodie_commit_time"}, quickstartColumns...)})
	if err != nil {
		return err
	}
	defer scan.Close()
	var rows [][]string
	counts := map[[2]string]int{}
	for rec, err := range scan.Rows() {
		if err != nil {
			return err
		}
		cells := make([]string, len(quickstartColumns))
		for i, v := range rec[1:] {
			cells[i] = tourCell(v)
		}
		rows = append(rows, cells)
		counts[[2]string{tourCell(rec[0]), cells[2]}]++
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i][2] != rows[j][2] {
			return rows[i][2] < rows[j][2]
		}
		return rows[i][1] < rows[j][1]
	})
	fmt.Fprintf(tr.out, "%d record(s):\n", len(rows))
	if err := writeTable(tr.out, quickstartColumns, rows); err != nil {
		return err
	}
	var per [][]string
	for k, n := range counts {
		per = append(per, []string{k[0], k[1], strconv.Itoa(n)})
	}
	sort.Slice(per, func(i, j int) bool { return per[i][0]+per[i][1] < per[j][0]+per[j][1] })
	fmt.Fprintln(tr.out, "Records per commit and batch:")
	return writeTable(tr.out, []string{"_hoodie_commit_time", "batch_id", "count"}, per)
}

// tourCell renders a value for the tour's tables.
func tourCell(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return fmt.Sprint(v)
	}
}

// tripsInput makes a write input of trips, each with a batch_id column.
func tripsInput(records []trips.Trip, batch string) *write.Input {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	schema := &basefile.Schema{Name: "hudi_trips_record", Namespace: "hoodie.hudi_trips", Fields: []basefile.Field{
		{Name: "uuid", Type: str},
		{Name: "ts", Type: basefile.Nullable(basefile.Primitive(basefile.KindLong))},
		{Name: "rider", Type: str},
		{Name: "driver", Type: str},
		{Name: "fare", Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))},
		{Name: "partitionpath", Type: str},
		{Name: "batch_id", Type: str},
	}}
	in := &write.Input{Name: batch, Schema: schema}
	for _, r := range records {
		in.Rows = append(in.Rows, append(r.Values(), batch))
	}
	return in
}

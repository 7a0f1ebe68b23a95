package hoodie_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/hudi1test"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// v8Table makes the table of the interop suite's cow_v8 (interop/
// hudi1_tables.py) with Hoodie, insert ids 0 to 7, upsert 1 and 2 and
// insert 10, delete 3, and lays it out as Hudi 1.0.2 would have written it
// (table version 8). Its commits r[0], r[1], r[2] complete at r[1], r[2]
// and lastCompletion: each completes when the next one is requested.
func v8Table(t *testing.T) (table *hoodie.Table, dir string, r []string) {
	t.Helper()
	ctx := context.Background()
	dir = filepath.Join(t.TempDir(), "cow_v8")
	tbl, err := hoodie.Create(ctx, dir, hoodie.TableSpec{Name: "hudi1", RecordKey: []string{"id"}, Precombine: "ts", PartitionBy: []string{"part"}})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := basefile.ParseSchema([]byte(`{"type": "record", "name": "hudi1_record", "fields": [
		{"name": "id", "type": "long"}, {"name": "ts", "type": "long"},
		{"name": "name", "type": "string"}, {"name": "part", "type": "string"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(n, ts int64, tag string) []any {
		return []any{n, ts, fmt.Sprintf("%s-%d-%d", tag, n, ts), fmt.Sprintf("p%d", n%2)}
	}
	var inserts [][]any
	for n := range int64(8) {
		inserts = append(inserts, rec(n, 1, "i"))
	}
	for _, w := range []struct {
		op   write.Operation
		rows [][]any
	}{
		{write.OpInsert, inserts},
		{write.OpUpsert, [][]any{rec(1, 2, "u"), rec(2, 2, "u"), rec(10, 2, "i")}},
		{write.OpDelete, [][]any{rec(3, 3, "d")}},
	} {
		res, err := tbl.Write(ctx, w.op, &write.Input{Name: "rows", Schema: schema, Rows: w.rows}, hoodie.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r = append(r, res.Instant)
	}
	if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(hoodie.DefaultIndexFolder))); err != nil {
		t.Fatal(err)
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	completion := map[string]string{r[0]: r[1], r[1]: r[2], r[2]: lastCompletion}
	if err := hudi1test.Upgrade(ctx, fsys, func(req string) string { return completion[req] }); err != nil {
		t.Fatal(err)
	}
	if table, err = hoodie.Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	return table, dir, r
}

// lastCompletion is when v8Table's last commit completes.
const lastCompletion = "20991231235959999"

// v8Rows scans the table with opts and returns each record as
// "id@commit time:name", sorted.
func v8Rows(t *testing.T, table *hoodie.Table, opts hoodie.ScanOptions) []string {
	t.Helper()
	opts.Columns = []string{"id", basefile.MetaCommitTime, "name"}
	scan, err := table.Scan(context.Background(), opts)
	if err != nil {
		t.Fatalf("scan %+v: %v", opts, err)
	}
	defer scan.Close()
	var out []string
	for row, err := range scan.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%v@%v:%v", row[0], row[1], row[2]))
	}
	slices.Sort(out)
	return out
}

// TestReadVersion8 reads a table of version 8 as Spark with Hudi 1.0.2 does
// (the answers the interop suite's cow_v8 got from Spark): snapshot, time
// travel by requested times, and incremental by completion times, both ends
// included.
func TestReadVersion8(t *testing.T) {
	table, dir, r := v8Table(t)
	at := func(c string, ids ...int) []string {
		names := map[int]string{1: "u-1-2", 2: "u-2-2", 10: "i-10-2"}
		var out []string
		for _, id := range ids {
			name := names[id]
			if c == r[0] {
				name = fmt.Sprintf("i-%d-1", id)
			}
			out = append(out, fmt.Sprintf("%d@%s:%s", id, c, name))
		}
		return out
	}
	sorted := func(parts ...[]string) []string {
		out := slices.Concat(parts...)
		slices.Sort(out)
		return out
	}
	first := at(r[0], 0, 1, 2, 3, 4, 5, 6, 7)
	second := sorted(at(r[0], 0, 3, 4, 5, 6, 7), at(r[1], 1, 2, 10))
	latest := sorted(at(r[0], 0, 4, 5, 6, 7), at(r[1], 1, 2, 10))
	for _, tt := range []struct {
		name string
		opts hoodie.ScanOptions
		want []string
	}{
		{"snapshot", hoodie.ScanOptions{}, latest},
		{"as of the first", hoodie.ScanOptions{AsOf: r[0]}, first},
		{"as of the second", hoodie.ScanOptions{AsOf: r[1]}, second},
		{"as of the third", hoodie.ScanOptions{AsOf: r[2]}, latest},
		// The first commit completed at r[1], the second at r[2]: [r[0],
		// r[1]] holds the first alone, its records as its own files hold
		// them, though the second rewrote 1 and 2.
		{"completed in [r0, r1]", hoodie.ScanOptions{Begin: r[0], End: r[1]}, first},
		// A commit completed at the range's begin is in the range.
		{"completed in [r1, r2]", hoodie.ScanOptions{Begin: r[1], End: r[2]}, second},
		{"completed from r2 on", hoodie.ScanOptions{Begin: r[2]}, at(r[1], 1, 10, 2)},
		{"completed by r0", hoodie.ScanOptions{Begin: "000", End: r[0]}, nil},
		{"completed at the end", hoodie.ScanOptions{Begin: lastCompletion}, nil},
	} {
		if got := v8Rows(t, table, tt.opts); !slices.Equal(got, sorted(tt.want)) {
			t.Errorf("%s: got %v, want %v", tt.name, got, sorted(tt.want))
		}
	}

	// Once Hudi's archival has written its LSM history, which Hoodie does
	// not read, a range reaching before the first active completion time
	// is refused; later ranges, snapshots and time travel still read.
	if err := os.WriteFile(filepath.Join(dir, ".hoodie", "timeline", "history", "_version_"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := table.Scan(context.Background(), hoodie.ScanOptions{Begin: "000"}); !errors.Is(err, read.ErrBadRange) || !strings.Contains(err.Error(), "archived timeline") {
		t.Errorf("incremental from the start with a history: %v, want a refusal naming the archived timeline", err)
	}
	if got := v8Rows(t, table, hoodie.ScanOptions{Begin: r[1], End: r[2]}); !slices.Equal(got, second) {
		t.Errorf("with a history, [r1, r2]: got %v, want %v", got, second)
	}
	if got := v8Rows(t, table, hoodie.ScanOptions{AsOf: r[0]}); !slices.Equal(got, first) {
		t.Errorf("with a history, as of the first: got %v, want %v", got, first)
	}
}

// TestWriteVersion8Refused: Hoodie reads version 8 but does not write it;
// writes and the record index's commands are refused before any file of the
// table is written, the writer lock's included.
func TestWriteVersion8Refused(t *testing.T) {
	ctx := context.Background()
	table, dir, _ := v8Table(t)
	before := treeOf(t, dir)
	schema, err := table.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = table.Write(ctx, write.OpUpsert, &write.Input{Name: "rows", Schema: schema, Rows: [][]any{{int64(1), int64(9), "x", "p1"}}}, hoodie.WriteOptions{})
	if !errors.Is(err, write.ErrRefused) || !errors.Is(err, config.ErrVersionReadOnly) {
		t.Errorf("write: %v, want a refusal for the table version", err)
	}
	if err := table.RebuildIndex(ctx); !errors.Is(err, config.ErrVersionReadOnly) {
		t.Errorf("rebuild the index: %v, want a refusal for the table version", err)
	}
	if _, err := table.VerifyIndex(ctx); !errors.Is(err, config.ErrVersionReadOnly) {
		t.Errorf("verify the index: %v, want a refusal for the table version", err)
	}
	if after := treeOf(t, dir); !slices.Equal(after, before) {
		t.Errorf("the refused commands changed the table's files:\n got %v\nwant %v", after, before)
	}
}

// treeOf lists the files under dir with their sizes and modification times.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %s", p, info.Size(), info.ModTime().Format(time.RFC3339Nano)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

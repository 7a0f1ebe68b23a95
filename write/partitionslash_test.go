package write

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// newSlashTable is a trips table with hoodie.datasource.write.partitionpath.urlencode
// set to urlEncode, as Spark makes it (false is Hudi's default).
func newSlashTable(t *testing.T, urlEncode bool) *testTable {
	t.Helper()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	setURLEncode(t, tt, urlEncode)
	return tt
}

func setURLEncode(t *testing.T, tt *testTable, urlEncode bool) {
	t.Helper()
	editConfig(t, tt, func(cfg *config.Table) { cfg.URLEncodePartitioning = urlEncode })
}

// editConfig changes the table's hoodie.properties with edit, and gives tt
// a new writer, which reads them.
func editConfig(t *testing.T, tt *testTable, edit func(*config.Table)) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	if err := config.Update(ctx, tt.fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	tt.w = newTestWriter(tt.fsys, tt.dir, DefaultSettings())
}

// TestSlashValueIsNestedFolders checks that without urlencode a partition
// value with slashes is nested folders, as Hudi writes it, so that Spark's
// per-partition index finds Hoodie's records there; and that the partition
// metadata says how deep the partition is.
func TestSlashValueIsNestedFolders(t *testing.T) {
	tt := newSlashTable(t, false)
	gen := trips.NewGenerator(3)
	ins := gen.Inserts(30)
	tt.write(OpInsert, tripsInput(ins))
	tt.write(OpUpsert, tripsInput(gen.Updates(ins, 10)))
	snap := snapshot(t, tt.fsys, "")
	if len(snap) != 30 {
		t.Fatalf("%d records, want 30", len(snap))
	}
	for _, tr := range ins {
		if got := snap[tr.UUID][3]; got != tr.PartitionPath {
			t.Errorf("record %s: _hoodie_partition_path %v, want %q", tr.UUID, got, tr.PartitionPath)
		}
	}
	meta, err := config.ReadPartitionMetadata(context.Background(), tt.fsys, trips.SaoPaulo)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Depth != 3 {
		t.Errorf("partition %q: depth %d, want 3", trips.SaoPaulo, meta.Depth)
	}
	if _, err := os.Stat(filepath.Join(tt.dir, "americas%2Fbrazil%2Fsao_paulo")); !os.IsNotExist(err) {
		t.Errorf("escaped folder exists: %v", err)
	}
}

// TestEscapedSlashPartitionMovesOnUpsert checks a table Hoodie wrote before
// it wrote slashes raw: its records live in "americas%2Fbrazil%2Fsao_paulo".
// An upsert of them now computes "americas/brazil/sao_paulo", and the index
// must move each record there, not keep a second copy.
func TestEscapedSlashPartitionMovesOnUpsert(t *testing.T) {
	tt := newSlashTable(t, true)
	gen := trips.NewGenerator(4)
	ins := gen.Inserts(30)
	tt.write(OpInsert, tripsInput(ins))
	setURLEncode(t, tt, false)
	ups := gen.Updates(ins, 30)
	tt.write(OpUpsert, tripsInput(ups))
	snap := snapshot(t, tt.fsys, "") // fails on a key seen twice
	if len(snap) != 30 {
		t.Fatalf("%d records, want 30", len(snap))
	}
	for _, u := range ups {
		if got := snap[u.UUID][3]; got != u.PartitionPath {
			t.Errorf("record %s: _hoodie_partition_path %v, want %q", u.UUID, got, u.PartitionPath)
		}
		if got := snap[u.UUID][9]; got != u.Fare {
			t.Errorf("record %s: fare %v, want %v", u.UUID, got, u.Fare)
		}
	}
}

package read_test

import (
	"context"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/basefiletest"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// TestDroppedPartitionColumnFromFolders checks a table with
// hoodie.datasource.write.drop.partition.columns=true: a scan takes the
// partition column from the folders even where a file holds it null, as
// in a file Hoodie rewrote from one of Spark's, which leave it out.
func TestDroppedPartitionColumnFromFolders(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTableWith(t, t.TempDir(), func(cfg *config.Table) { cfg.DropPartitionColumns = true })
	want := trips.NewGenerator(8).Inserts(12)
	tt.write(write.OpInsert, want)
	// Null the partition column in every file, as such a rewrite leaves it.
	s, err := tt.scan(read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := s.View().LatestSlices()
	s.Close()
	for _, sl := range files {
		bf, err := basefile.Open(ctx, tt.fsys, sl.Path)
		if err != nil {
			t.Fatal(err)
		}
		schema := bf.Schema()
		bf.Close()
		rows := basefiletest.Rows(t, tt.fsys, sl.Path)
		col := schema.FieldIndex(trips.ColPartitionPath)
		if err := tt.fsys.Remove(ctx, sl.Path); err != nil {
			t.Fatal(err)
		}
		w, err := basefile.NewWriter(ctx, tt.fsys, sl.Path, schema, basefile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			r[col] = nil
			if err := w.WriteRow(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err = tt.scan(read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, s)
	col := s.Schema().FieldIndex(trips.ColPartitionPath)
	got := byKey(rows, s.Schema().FieldIndex(trips.ColUUID))
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for _, tr := range want {
		if v := got[tr.UUID][col]; v != tr.PartitionPath {
			t.Errorf("record %s: %s %v, want %q from its folder", tr.UUID, trips.ColPartitionPath, v, tr.PartitionPath)
		}
	}
}

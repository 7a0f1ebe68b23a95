package write

import (
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// TestWriteRebuildsIndexNamingNoFileGroup damages the record index so that
// each of its records names a file group it does not hold, as a flipped
// bit that Pebble's checksums do not catch can: the index reports itself
// stale while tagging, and the upsert rebuilds it from the table and
// updates every key it names, as with a whole index.
func TestWriteRebuildsIndexNamingNoFileGroup(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, DefaultSettings())
	gen := trips.NewGenerator(41)
	all := gen.Inserts(30)
	tt.write(OpInsert, tripsInput(all))

	db, err := pebble.Open(tt.w.opts.IndexDir, &pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{'r'}, UpperBound: []byte{'u' + 1}})
	if err != nil {
		t.Fatal(err)
	}
	damaged := 0
	for valid := it.First(); valid; valid = it.Next() {
		if err := db.Set(append([]byte(nil), it.Key()...), []byte{0x7f}, pebble.Sync); err != nil {
			t.Fatal(err)
		}
		damaged++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if damaged != len(all) {
		t.Fatalf("damaged %d records of the index, want %d", damaged, len(all))
	}

	res := tt.write(OpUpsert, tripsInput(gen.Updates(all, 10)))
	if res.Updated != 10 || res.Inserted != 0 {
		t.Fatalf("upsert over the damaged index: %d updated, %d inserted; want 10 and 0", res.Updated, res.Inserted)
	}
	if got := snapshot(t, tt.fsys, ""); len(got) != len(all) {
		t.Fatalf("%d records, want %d", len(got), len(all))
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
}

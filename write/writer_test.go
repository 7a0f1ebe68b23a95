package write

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestWriteTour(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	gen := trips.NewGenerator(1)
	first := gen.Inserts(10)
	r1 := tt.write(OpInsert, tripsInput(first))
	if r1.Inserted != 10 || r1.Instant == "" {
		t.Fatalf("insert: %+v", r1)
	}
	more := gen.Inserts(5)
	r2 := tt.write(OpInsert, tripsInput(more))
	all := append(append([]trips.Trip{}, first...), more...)
	snap := snapshot(t, tt.fsys, "")
	if len(snap) != 15 {
		t.Fatalf("after two inserts: %d records", len(snap))
	}
	updates := gen.Updates(all, 4)
	r3 := tt.write(OpUpsert, tripsInput(updates))
	if r3.Updated != 4 {
		t.Errorf("upsert updated %d, want 4", r3.Updated)
	}
	snap = snapshot(t, tt.fsys, "")
	for _, u := range updates {
		rec := snap[u.UUID]
		if rec[0] != r3.Instant || rec[5+4] != u.Fare {
			t.Errorf("updated record %s: commit %v fare %v, want %s %v", u.UUID, rec[0], rec[9], r3.Instant, u.Fare)
		}
	}
	// Untouched records keep their commit time.
	carried := 0
	for _, rec := range snap {
		if rec[0] == r1.Instant || rec[0] == r2.Instant {
			carried++
		}
	}
	if carried != 11 {
		t.Errorf("%d records kept their commit time, want 11", carried)
	}
	// Hard delete two.
	r4 := tt.write(OpDelete, tripsInput(all[:2]))
	if r4.Deleted != 2 {
		t.Errorf("delete removed %d, want 2", r4.Deleted)
	}
	snap = snapshot(t, tt.fsys, "")
	if len(snap) != 13 {
		t.Fatalf("after delete: %d records", len(snap))
	}
	// Soft delete two.
	tt.write(OpSoftDelete, tripsInput(all[2:4]))
	snap = snapshot(t, tt.fsys, "")
	for _, tr := range all[2:4] {
		rec := snap[tr.UUID]
		if rec[5] != tr.UUID || rec[6] == nil || rec[7] != nil || rec[9] != nil || rec[10] != tr.PartitionPath {
			t.Errorf("soft-deleted record %v", rec)
		}
	}
	// Time travel to the second commit.
	if old := snapshot(t, tt.fsys, r2.Instant); len(old) != 15 {
		t.Errorf("as of %s: %d records, want 15", r2.Instant, len(old))
	}
	if old := snapshot(t, tt.fsys, r1.Instant); len(old) != 10 {
		t.Errorf("as of %s: %d records, want 10", r1.Instant, len(old))
	}
}

// TestConcurrentWriters has several writers, each with its own Writer as
// separate processes would have, upsert into one table at once: the lock
// makes them take turns, and every write lands.
func TestConcurrentWriters(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	const writers, each = 4, 3
	errs := make(chan error, writers*each)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newTestWriter(tt.fsys, tt.dir, Settings{})
			gen := trips.NewGenerator(int64(100 + i))
			for range each {
				_, err := w.Write(context.Background(), OpUpsert, tripsInput(gen.Inserts(50)))
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(snapshot(t, tt.fsys, "")); n != writers*each*50 {
		t.Fatalf("%d records, want %d", n, writers*each*50)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

func TestProgressReportsEveryFile(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	var calls []int
	total := 0
	w := NewWriter(tt.fsys, Options{Settings: DefaultSettings(), IndexDir: filepath.Join(tt.dir, ".hoodie", ".index"), TableID: tt.dir,
		Progress: func(done, n int) { calls = append(calls, done); total = n }})
	res, err := w.Write(context.Background(), OpInsert, tripsInput(trips.NewGenerator(5).Inserts(300)))
	if err != nil {
		t.Fatal(err)
	}
	if total != len(res.Files) || len(calls) != total || calls[len(calls)-1] != total {
		t.Fatalf("progress calls %v of %d for %d files", calls, total, len(res.Files))
	}
}

// TestBloomFiltersHoldEveryKey checks that after inserts, updates and deletes
// the bloom filter of every latest base file answers yes for each of its
// keys: a file group rewrite starts from its previous filter and must not
// lose the keys it carries or adds.
func TestBloomFiltersHoldEveryKey(t *testing.T) {
	ctx := context.Background()
	settings := DefaultSettings()
	settings.MaxFileSize = 16 << 10
	settings.SmallFileLimit = 12 << 10
	tt := newTripsTable(t, config.MergeEventTime, settings)
	gen := trips.NewGenerator(11)
	all := gen.Inserts(400)
	tt.write(OpInsert, tripsInput(all))
	tt.write(OpUpsert, tripsInput(append(gen.Updates(all, 100), gen.Inserts(100)...)))
	tt.write(OpDelete, tripsInput(all[:50]))
	_, view := tt.latest()
	checked := 0
	for _, s := range view.LatestSlices() {
		bf, err := basefile.Open(ctx, tt.fsys, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		bloom, err := bf.BloomFilter()
		if err != nil {
			t.Fatal(err)
		}
		keys, err := readRecordKeys(ctx, tt.fsys, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !bloom.MightContain(k) {
				t.Fatalf("%s: bloom filter lacks key %q", s.Path, k)
			}
			checked++
		}
		bf.Close()
	}
	if checked != 450 {
		t.Fatalf("checked %d keys, want 450", checked)
	}
}

// TestTableWithoutMetaFields writes a table with
// hoodie.populate.meta.fields=false: its files hold the data columns alone
// and no record-key footer, as Spark writes them, and upserts, deletes, the
// index's catch-up and its rebuild find keys from the uuid column.
func TestTableWithoutMetaFields(t *testing.T) {
	ctx := context.Background()
	settings := DefaultSettings()
	settings.MaxFileSize, settings.SmallFileLimit = 16<<10, 12<<10
	tt := newTripsTableWith(t, config.MergeEventTime, settings, false)
	gen := trips.NewGenerator(5)
	all := gen.Inserts(300)
	tt.write(OpBulkInsert, tripsInput(all[:200]))
	tt.write(OpInsert, tripsInput(all[200:]))
	if _, err := tt.w.Write(ctx, OpInsert, tripsInput(all[:1])); !errors.Is(err, ErrRefused) {
		t.Fatalf("inserting an existing key: got %v, want a refusal", err)
	}
	updates := gen.Updates(all, 60)
	res := tt.write(OpUpsert, tripsInput(updates))
	if res.Updated != 60 || res.Inserted != 0 {
		t.Fatalf("upsert: %d updated, %d inserted; want 60 and 0", res.Updated, res.Inserted)
	}
	if res = tt.write(OpDelete, tripsInput(all[:25])); res.Deleted != 25 {
		t.Fatalf("delete: %d deleted, want 25", res.Deleted)
	}

	want := map[string]trips.Trip{}
	for _, tr := range all[25:] {
		want[tr.UUID] = tr
	}
	for _, tr := range updates {
		if _, ok := want[tr.UUID]; ok {
			want[tr.UUID] = tr
		}
	}
	got := snapshot(t, tt.fsys, "")
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for k, tr := range want {
		g := got[k]
		if g == nil || g[6] != tr.TS || g[9] != tr.Fare || g[10] != tr.PartitionPath {
			t.Fatalf("record %s is %v, want %+v", k, g, tr)
		}
	}

	tl, view := tt.latest()
	for _, s := range view.LatestSlices() {
		bf, err := basefile.Open(ctx, tt.fsys, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		meta := bf.Metadata()
		if bf.Schema().HasMetaFields() || meta[basefile.FooterBloomFilter] != "" || meta[basefile.FooterMinRecordKey] != "" {
			t.Errorf("%s: meta fields %v, footer keys %v; want neither", s.Path, bf.Schema().HasMetaFields(), meta)
		}
		bf.Close()
	}

	// The index, caught up by each write, agrees with the files; so does
	// one rebuilt from them.
	idx, err := tt.w.openIndex(ctx, tl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, rebuild := range []bool{false, true} {
		if rebuild {
			if err := RebuildIndex(ctx, tt.fsys, tl, idx); err != nil {
				t.Fatal(err)
			}
		}
		report, err := VerifyIndex(ctx, tt.fsys, tl, idx)
		if err != nil {
			t.Fatal(err)
		}
		if !report.OK() || report.Scanned != int64(len(want)) {
			t.Errorf("rebuilt %v: verify %+v, want %d records and no difference", rebuild, report, len(want))
		}
	}
}

// TestNewFilesAreSortedByKey checks that the records of new file groups
// are written in record-key order, which lets the key column's page
// statistics narrow lookups.
func TestNewFilesAreSortedByKey(t *testing.T) {
	ctx := context.Background()
	settings := DefaultSettings()
	settings.MaxFileSize, settings.SmallFileLimit = 16<<10, 0
	tt := newTripsTable(t, config.MergeEventTime, settings)
	tt.write(OpBulkInsert, tripsInput(trips.NewGenerator(3).Inserts(500)))
	_, view := tt.latest()
	if len(view.LatestSlices()) < 3 {
		t.Fatalf("%d files, want several", len(view.LatestSlices()))
	}
	for _, s := range view.LatestSlices() {
		keys, err := readRecordKeys(ctx, tt.fsys, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(keys) || len(keys) == 0 {
			t.Errorf("%s: %d keys, not in order", s.Path, len(keys))
		}
	}
}

// TestMistypedValueNamesInputRecord checks that a value the table's column
// cannot take, passed through the Go API without conversion, fails the
// write with the input's error about that record (its position in the
// input, its key, the field), commits nothing, and leaves the table
// writable: as a new record of a bulk insert and as an update of an upsert.
func TestMistypedValueNamesInputRecord(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	base := trips.NewGenerator(3).Inserts(20)
	tt.write(OpBulkInsert, tripsInput(base))
	for _, tc := range []struct {
		op Operation
		ts []trips.Trip
	}{
		{OpBulkInsert, trips.NewGenerator(4).Inserts(10)},
		{OpUpsert, base[:10]},
	} {
		t.Run(tc.op.String(), func(t *testing.T) {
			in := tripsInput(tc.ts)
			in.Rows[6][2] = int64(7) // rider is a string
			tl, _ := tt.latest()
			_, err := tt.w.Write(t.Context(), tc.op, in)
			var re *RecordError
			if !errors.As(err, &re) || re.Line != 7 || re.Key != tc.ts[6].UUID {
				t.Fatalf("error %v, want the input's error about record 7 (key %s)", err, tc.ts[6].UUID)
			}
			if msg := err.Error(); !strings.Contains(msg, "trips: record 7") || !strings.Contains(msg, `field "rider"`) {
				t.Errorf("error %q does not name the input, the record and the field", msg)
			}
			after, _ := tt.latest()
			if got, want := len(after.CompletedCommits().Instants()), len(tl.CompletedCommits().Instants()); got != want {
				t.Errorf("%d completed commits after the failed write, want %d", got, want)
			}
			tt.write(tc.op, tripsInput(tc.ts))
		})
	}
}

// TestWriteWithWrongIndexTagFails points the index at the wrong file group
// for a key and checks that an upsert, a delete or a soft delete of the key
// fails, telling the user to rebuild the index, and writes nothing, instead
// of committing without the record.
func TestWriteWithWrongIndexTagFails(t *testing.T) {
	ctx := context.Background()
	for _, op := range []Operation{OpUpsert, OpDelete, OpSoftDelete} {
		t.Run(op.String(), func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			initial := trips.NewGenerator(21).Inserts(30)
			r1 := tt.write(OpInsert, tripsInput(initial))
			victim := initial[0]
			home := groupOf(t, tt, victim.UUID)
			var wrong read.FileSlice
			for _, f := range r1.Files {
				if f.FileID != home.FileID {
					wrong = f
				}
			}
			if wrong.FileID == "" {
				t.Fatal("the insert wrote one file group only")
			}
			// Move the key to the wrong group in the index, at the same
			// watermark (as a replay that missed a change would leave it).
			idx, err := index.Open(ctx, filepath.Join(tt.dir, ".hoodie", ".index"), index.Options{TableName: "trips", TableID: tt.dir})
			if err != nil {
				t.Fatal(err)
			}
			wm, digest := idx.Watermark(), idx.ViewDigest()
			if err := idx.RebuildDigest(ctx, wm, digest, func(yield func(string, index.Location) error) error {
				for _, f := range r1.Files {
					keys, err := readRecordKeys(ctx, tt.fsys, f.Path)
					if err != nil {
						return err
					}
					for _, k := range keys {
						loc := index.Location{PartitionPath: f.Partition, FileID: f.FileID}
						if k == victim.UUID {
							loc = index.Location{PartitionPath: wrong.Partition, FileID: wrong.FileID}
						}
						if err := yield(k, loc); err != nil {
							return err
						}
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			idx.Close()
			before := dataOf(snapshot(t, tt.fsys, ""))

			in := []trips.Trip{victim}
			if op == OpUpsert {
				in = trips.NewGenerator(22).Updates(in, 1)
			}
			res, err := tt.w.Write(ctx, op, tripsInput(in))
			if err == nil || !strings.Contains(err.Error(), "hoodiectl index rebuild") {
				t.Fatalf("%s of a key the index misplaces: %+v, %v; want an error that says to rebuild the index", op, res, err)
			}
			if got := dataOf(snapshot(t, tt.fsys, "")); !equalData(got, before) {
				t.Error("the failed write changed the table")
			}
		})
	}
}

// TestWriteWithPendingReplaceCommit checks that while a replacecommit is
// pending, a write changes none of the file groups it may replace, which it
// would hide once complete: all of them for an insert overwrite of a live
// Spark writer (whose requested file names none), those of its plan for a
// clustering. An
// upsert of a key in such a group is refused and leaves the table as it
// was; new records do not go into such small groups; other groups take
// changes as usual.
func TestWriteWithPendingReplaceCommit(t *testing.T) {
	ctx := context.Background()
	for _, clustering := range []bool{false, true} {
		t.Run(fmt.Sprint("clustering plan: ", clustering), func(t *testing.T) {
			tt, gen, initial := tableOf30Trips(t, 21)
			before := snapshot(t, tt.fsys, "")
			_, view := tt.latest()
			locked := view.FileGroups()[0]
			var plan []byte
			if clustering {
				plan = avrofiletest.ContainerFile(t, avrofiletest.HudiRequestedReplaceSchema, "null",
					avrofiletest.RequestedReplace([][]avrofiletest.Slice{{{Partition: locked.Partition, FileID: locked.FileID}}}))
			}
			const instant = "20200101000000000"
			if err := tt.fsys.WriteFile(ctx, storage.MetaFolder+"/"+instant+".replacecommit.requested", plan); err != nil {
				t.Fatal(err)
			}
			if !clustering {
				// A live Spark writer's: a dead one's is rolled back.
				if err := tt.fsys.WriteFile(ctx, heartbeatPath(instant), nil); err != nil {
					t.Fatal(err)
				}
			}
			var inLocked, elsewhere []trips.Trip
			for _, tr := range initial {
				if v := before[tr.UUID]; v[3] == locked.Partition && strings.HasPrefix(v[4].(string), locked.FileID) {
					inLocked = append(inLocked, tr)
				} else {
					elsewhere = append(elsewhere, tr)
				}
			}
			_, err := tt.w.Write(ctx, OpUpsert, tripsInput(gen.Updates(inLocked, 1)))
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), instant) || !strings.Contains(err.Error(), locked.FileID) {
				t.Fatalf("upsert of a key in a group under the replacecommit: %v, want a refusal naming both", err)
			}
			if got := snapshot(t, tt.fsys, ""); !reflect.DeepEqual(got, before) {
				t.Fatal("the refused upsert changed the table")
			}
			res := tt.write(OpInsert, tripsInput(gen.Inserts(5)))
			for _, s := range res.Files {
				if s.FileID == locked.FileID {
					t.Errorf("the insert wrote a new version of file group %s, under the replacecommit", s.FileID)
				}
			}
			_, err = tt.w.Write(ctx, OpUpsert, tripsInput(gen.Updates(elsewhere, 1)))
			if clustering && err != nil {
				t.Errorf("upsert of a key outside the clustering plan: %v", err)
			}
			if !clustering && !errors.Is(err, ErrRefused) {
				t.Errorf("upsert of another key while an insert overwrite is pending: %v, want a refusal", err)
			}
		})
	}
}

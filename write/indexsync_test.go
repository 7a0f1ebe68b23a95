package write

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// otherWriter is a writer with a record index of its own, standing in for
// another engine (Spark) writing the same table: its commits are plain Hudi
// commits that the test table's index must catch up on.
func otherWriter(t *testing.T, tt *testTable, settings Settings) *Writer {
	t.Helper()
	if settings.MaxFileSize == 0 {
		settings = DefaultSettings()
	}
	d := t.TempDir()
	return NewWriter(tt.fsys, Options{Settings: settings, IndexDir: d, TableID: tt.dir})
}

// completeClean puts a completed clean instant on the timeline, one that
// deleted nothing, as Hudi writes it: the automatic cleaner reads it.
func completeClean(t *testing.T, fsys storage.FS) {
	t.Helper()
	ctx := context.Background()
	plan, err := timeline.MarshalCleanerPlan(&timeline.CleanerPlan{Policy: CleanKeepLatestCommits}, "")
	if err != nil {
		t.Fatal(err)
	}
	req, err := timeline.CreateRequested(ctx, fsys, nil, timeline.ActionClean, plan)
	if err != nil {
		t.Fatal(err)
	}
	inf, err := timeline.TransitionToInflight(ctx, fsys, req, plan)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := timeline.MarshalCleanMetadata(&timeline.CleanMetadata{StartCleanTime: req.Time})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Complete(ctx, fsys, inf, meta); err != nil {
		t.Fatal(err)
	}
}

// groupOf returns the latest view's file group that holds key.
func groupOf(t *testing.T, tt *testTable, key string) *read.FileGroup {
	t.Helper()
	_, view := tt.latest()
	for _, g := range view.FileGroups() {
		keys, err := readRecordKeys(context.Background(), tt.fsys, g.Latest().Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k == key {
				return g
			}
		}
	}
	t.Fatalf("no file group holds %s", key)
	return nil
}

// checkIndex checks that the test table's index, as the last write left it,
// matches the latest snapshot.
func checkIndex(t *testing.T, tt *testTable) {
	t.Helper()
	ctx := context.Background()
	idx, err := index.Open(ctx, filepath.Join(tt.dir, ".hoodie", ".index"), index.Options{TableName: "trips", TableID: tt.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	tl, _ := tt.latest()
	report, err := VerifyIndex(ctx, tt.fsys, tl, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() {
		t.Errorf("the index differs from the table: %+v", report)
	}
}

// TestSyncIndexAfterFilesRemoved has another writer delete a key after the
// index's watermark and then has file slices removed, as Hudi's cleaner does,
// with or without the clean instant still on the active timeline. The
// catch-up must not replay from a view that lacks the removed slices: an
// upsert of the deleted key must bring it back, and the index must match the
// table.
func TestSyncIndexAfterFilesRemoved(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// remove takes files away after the other writer deleted the
		// first of initial from g, rewriting it.
		remove func(t *testing.T, tt *testTable, other *Writer, g *read.FileGroup, initial []trips.Trip)
	}{
		{"slice at watermark cleaned, clean instant active", func(t *testing.T, tt *testTable, _ *Writer, g *read.FileGroup, _ []trips.Trip) {
			if err := tt.fsys.Remove(ctx, g.Slices[0].Path); err != nil {
				t.Fatal(err)
			}
			completeClean(t, tt.fsys)
		}},
		{"slice at watermark cleaned, clean instant archived", func(t *testing.T, tt *testTable, _ *Writer, g *read.FileGroup, _ []trips.Trip) {
			if err := tt.fsys.Remove(ctx, g.Slices[0].Path); err != nil {
				t.Fatal(err)
			}
		}},
		{"slice after watermark cleaned, clean instant archived", func(t *testing.T, tt *testTable, other *Writer, g *read.FileGroup, initial []trips.Trip) {
			// Another rewrite of the group supersedes the slice of the delete,
			// which is then removed.
			keys, err := readRecordKeys(ctx, tt.fsys, g.Latest().Path)
			if err != nil {
				t.Fatal(err)
			}
			var kept []trips.Trip
			for _, tr := range initial {
				if tr.UUID == keys[0] {
					kept = append(kept, tr)
				}
			}
			if _, err := other.Write(ctx, OpUpsert, tripsInput(trips.NewGenerator(99).Updates(kept, 1))); err != nil {
				t.Fatal(err)
			}
			if err := tt.fsys.Remove(ctx, g.Latest().Path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			initial := trips.NewGenerator(11).Inserts(30)
			tt.write(OpInsert, tripsInput(initial)) // the index's watermark
			victim := initial[0]
			other := otherWriter(t, tt, Settings{})
			if r, err := other.Write(ctx, OpDelete, tripsInput([]trips.Trip{victim})); err != nil || r.Deleted != 1 {
				t.Fatalf("delete: %+v %v", r, err)
			}
			var g *read.FileGroup
			_, view := tt.latest()
			for _, fg := range view.FileGroups() {
				if len(fg.Slices) == 2 {
					g = fg
				}
			}
			if g == nil {
				t.Fatal("no rewritten file group")
			}
			tc.remove(t, tt, other, g, initial)

			res := tt.write(OpUpsert, tripsInput([]trips.Trip{victim}))
			if res.Inserted != 1 {
				t.Errorf("upsert of the deleted key: inserted %d, updated %d", res.Inserted, res.Updated)
			}
			if _, ok := snapshot(t, tt.fsys, "")[victim.UUID]; !ok {
				t.Errorf("the upsert of %s committed, but the record is not in the table", victim.UUID)
			}
			checkIndex(t, tt)
		})
	}
}

// openCountFS counts the opens of each file.
type openCountFS struct {
	storage.FS
	mu     sync.Mutex
	opened map[string]int
}

func (f *openCountFS) Open(ctx context.Context, name string) (storage.File, error) {
	f.mu.Lock()
	f.opened[name]++
	f.mu.Unlock()
	return f.FS.Open(ctx, name)
}

// syncCountingOpens catches the table's index up with SyncIndex and returns
// how many times it opened each file, and the index, closed at the test's
// end.
func syncCountingOpens(t *testing.T, tt *testTable) (map[string]int, *index.Index) {
	t.Helper()
	ctx := context.Background()
	counting := &openCountFS{FS: tt.fsys, opened: map[string]int{}}
	tl, err := timeline.Load(ctx, counting)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Open(ctx, filepath.Join(tt.dir, ".hoodie", ".index"), index.Options{TableName: "trips", TableID: tt.dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if err := SyncIndex(ctx, counting, tl, idx); err != nil {
		t.Fatal(err)
	}
	return counting.opened, idx
}

// archive moves the files of a completed commit to the archive folder, as
// Hudi's archiver takes instants off the active timeline.
func archive(t *testing.T, fsys storage.FS, instant string) {
	t.Helper()
	for _, name := range []string{instant + ".commit.requested", instant + ".inflight", instant + ".commit"} {
		if err := fsys.Rename(context.Background(), ".hoodie/"+name, ".hoodie/archived/"+name); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSyncIndexCommitBeforeWatermark has another writer, whose clock is
// hours behind (Spark writing local instant times west of Greenwich),
// complete a commit whose instant time is earlier than the index's
// watermark. The catch-up must notice it, with or without commits archived
// meanwhile, so that an upsert of its key updates it; and archiving alone
// must not make the catch-up rebuild the index.
func TestSyncIndexCommitBeforeWatermark(t *testing.T) {
	ctx := context.Background()
	for _, archived := range []bool{false, true} {
		t.Run(fmt.Sprintf("archived=%v", archived), func(t *testing.T) {
			tt, gen, behind, s1, h1 := tableWithLateWriter(t)

			// The other writer picks its time without looking at the
			// timeline, as Spark does: hide h1 from its generator.
			hidden := []string{h1.Instant + ".commit.requested", h1.Instant + ".inflight", h1.Instant + ".commit"}
			for _, n := range hidden {
				if err := tt.fsys.Rename(ctx, ".hoodie/"+n, ".hoodie/hidden/"+n); err != nil {
					t.Fatal(err)
				}
			}
			x := gen.Inserts(1)
			s2, err := behind.Write(ctx, OpInsert, tripsInput(x))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range hidden {
				if err := tt.fsys.Rename(ctx, ".hoodie/hidden/"+n, ".hoodie/"+n); err != nil {
					t.Fatal(err)
				}
			}
			if s2.Instant >= h1.Instant {
				t.Fatalf("instant %s is not before the watermark %s", s2.Instant, h1.Instant)
			}
			if archived {
				archive(t, tt.fsys, s1.Instant)
			}

			res := tt.write(OpUpsert, tripsInput(gen.Updates(x, 1)))
			if res.Updated != 1 {
				t.Errorf("upsert of an existing key: inserted %d, updated %d", res.Inserted, res.Updated)
			}
			checkIndex(t, tt)

			// Archiving the oldest commits, then catching up on a new one,
			// replays it: the files of the table are not all read again.
			_, view := tt.latest()
			untouched := view.LatestSlices()[0].Path
			if !archived {
				archive(t, tt.fsys, s1.Instant)
			}
			archive(t, tt.fsys, s2.Instant)
			if _, err := behind.Write(ctx, OpInsert, tripsInput(gen.Inserts(1))); err != nil {
				t.Fatal(err)
			}
			opened, _ := syncCountingOpens(t, tt)
			if n := opened[untouched]; n != 0 {
				t.Errorf("the catch-up after archiving read %s, which no new commit wrote: it rebuilt the index", untouched)
			}
		})
	}
}

// writeUnseen writes rows with w while every instant file of the active
// timeline is out of the way: a writer that picks its instant time without
// looking at the timeline, as Spark does, can then pick one earlier than the
// last completed commit.
func writeUnseen(t *testing.T, tt *testTable, w *Writer, rows []trips.Trip) *Result {
	t.Helper()
	ctx := context.Background()
	entries, err := tt.fsys.ReadDir(ctx, ".hoodie")
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, e := range entries {
		if !e.IsDir && e.Name[0] >= '0' && e.Name[0] <= '9' {
			if err := tt.fsys.Rename(ctx, ".hoodie/"+e.Name, ".hoodie/hidden/"+e.Name); err != nil {
				t.Fatal(err)
			}
			hidden = append(hidden, e.Name)
		}
	}
	res, err := w.Write(ctx, OpInsert, tripsInput(rows))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range hidden {
		if err := tt.fsys.Rename(ctx, ".hoodie/hidden/"+n, ".hoodie/"+n); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// emptyCommit completes a commit that wrote no file at instant, as Hudi
// does for an empty batch.
func emptyCommit(t *testing.T, fsys storage.FS, instant string) {
	t.Helper()
	ctx := context.Background()
	meta, err := (&timeline.CommitMetadata{OperationType: timeline.Operation("upsert")}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{".commit.requested": {}, ".inflight": meta, ".commit": meta} {
		if err := fsys.CreateIfAbsent(ctx, ".hoodie/"+instant+name, data); err != nil {
			t.Fatal(err)
		}
	}
}

// countKey returns how many records of the latest snapshot have key.
func countKey(t *testing.T, tt *testTable, key string) int {
	t.Helper()
	n := 0
	_, view := tt.latest()
	for _, s := range view.LatestSlices() {
		keys, err := readRecordKeys(context.Background(), tt.fsys, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k == key {
				n++
			}
		}
	}
	return n
}

// TestSyncIndexLateCommitArchived has a writer whose clock is hours behind
// complete a commit earlier than the index's watermark, which the archiver
// takes off the active timeline before the next write (Spark archives in
// that very commit's post-commit step, and a late commit is among the
// oldest). Nothing on the timeline tells of it any more, but its files are
// in the snapshot: the catch-up must find them, so that an upsert of its key
// updates the record instead of inserting a second copy.
func TestSyncIndexLateCommitArchived(t *testing.T) {
	tt, gen, behind, s1, h1 := tableWithLateWriter(t)
	x := gen.Inserts(1)
	s2 := writeUnseen(t, tt, behind, x)
	if s2.Instant >= h1.Instant {
		t.Fatalf("instant %s is not before the watermark %s", s2.Instant, h1.Instant)
	}
	// The archiver takes the oldest commits, s1 and s2, off the active
	// timeline; h1 stays.
	archive(t, tt.fsys, s1.Instant)
	archive(t, tt.fsys, s2.Instant)

	res := tt.write(OpUpsert, tripsInput(gen.Updates(x, 1)))
	if res.Updated != 1 {
		t.Errorf("upsert of key %s, written by the archived late commit %s: inserted %d, updated %d", x[0].UUID, s2.Instant, res.Inserted, res.Updated)
	}
	if n := countKey(t, tt, x[0].UUID); n != 1 {
		t.Errorf("key %s is %d times in the latest snapshot", x[0].UUID, n)
	}
	checkIndex(t, tt)
}

// tableWithLateWriter makes a trips table whose inserts always make new
// file groups, and another writer of it whose clock is five hours behind;
// it commits once through that writer (first), then once through the
// table's own (watermark, the index's watermark).
func tableWithLateWriter(t *testing.T) (tt *testTable, gen *trips.Generator, behind *Writer, first, watermark *Result) {
	t.Helper()
	settings := DefaultSettings()
	settings.SmallFileLimit = 0
	tt = newTripsTable(t, config.MergeEventTime, settings)
	gen = trips.NewGenerator(14)
	behind = NewWriter(tt.fsys, Options{Settings: settings, IndexDir: t.TempDir(), TableID: tt.dir,
		Clock: func() time.Time { return time.Now().Add(-5 * time.Hour) }})
	first, err := behind.Write(context.Background(), OpInsert, tripsInput(gen.Inserts(10)))
	if err != nil {
		t.Fatal(err)
	}
	return tt, gen, behind, first, tt.write(OpInsert, tripsInput(gen.Inserts(10)))
}

// TestSyncIndexLateCommitOlderThanMany has a late commit complete with an
// instant time older than the index's watermark and than the more than 128
// commits before it, while the archiver takes the oldest commit off the
// timeline: the number of completed commits at or before the watermark is
// unchanged, but the files are not, and the catch-up must see it.
func TestSyncIndexLateCommitOlderThanMany(t *testing.T) {
	tt, settings := tableWithoutSmallFiles(t)
	gen := trips.NewGenerator(15)
	h0 := tt.write(OpInsert, tripsInput(gen.Inserts(10)))
	start, err := timeline.ParseInstantTime(h0.Instant)
	if err != nil {
		t.Fatal(err)
	}
	empties := make([]string, 130)
	for i := range empties {
		empties[i] = timeline.FormatInstantTime(start.Add(-time.Hour + time.Duration(i)*time.Millisecond))
		emptyCommit(t, tt.fsys, empties[i])
	}
	h1 := tt.write(OpInsert, tripsInput(gen.Inserts(10))) // the watermark

	behind := NewWriter(tt.fsys, Options{Settings: settings, IndexDir: t.TempDir(), TableID: tt.dir,
		Clock: func() time.Time { return time.Now().Add(-10 * time.Hour) }})
	x := gen.Inserts(1)
	late := writeUnseen(t, tt, behind, x)
	if late.Instant >= empties[0] {
		t.Fatalf("instant %s is not before the oldest commit %s", late.Instant, empties[0])
	}
	archive(t, tt.fsys, empties[0])

	res := tt.write(OpUpsert, tripsInput(gen.Updates(x, 1)))
	if res.Updated != 1 {
		t.Errorf("upsert of key %s, written by the late commit %s (watermark %s): inserted %d, updated %d", x[0].UUID, late.Instant, h1.Instant, res.Inserted, res.Updated)
	}
	if n := countKey(t, tt, x[0].UUID); n != 1 {
		t.Errorf("key %s is %d times in the latest snapshot", x[0].UUID, n)
	}
	checkIndex(t, tt)
}

// A clean after the watermark that removed only a slice older than the
// group's slice as of the watermark takes nothing the catch-up needs: it
// replays the commits after the watermark instead of rebuilding the index
// (reading every file of the table), as Spark cleaning after most commits
// would otherwise make every catch-up do.
func TestSyncIndexReplaysAfterACleanOfOldSlices(t *testing.T) {
	ctx := context.Background()
	tt, settings := tableWithoutSmallFiles(t)
	gen := trips.NewGenerator(16)
	initial := gen.Inserts(30)
	first := tt.write(OpInsert, tripsInput(initial))
	tt.write(OpUpsert, tripsInput(gen.Updates(initial, 30))) // every group rewritten: the watermark
	// The cleaner removes the first slices, and completes after the
	// watermark; another writer then commits.
	for _, f := range first.Files {
		if err := tt.fsys.Remove(ctx, f.Path); err != nil {
			t.Fatal(err)
		}
	}
	completeClean(t, tt.fsys)
	_, before := tt.latest()
	untouched := before.LatestSlices()[0].Path
	added, err := otherWriter(t, tt, settings).Write(ctx, OpInsert, tripsInput(gen.Inserts(5)))
	if err != nil {
		t.Fatal(err)
	}
	opened, idx := syncCountingOpens(t, tt)
	if n := opened[untouched]; n != 0 {
		t.Errorf("the catch-up read %s, which no commit after the watermark wrote: it rebuilt the index", untouched)
	}
	if n := opened[added.Files[0].Path]; n == 0 {
		t.Errorf("the catch-up did not read %s, the new commit's file", added.Files[0].Path)
	}
	if idx.Watermark() != added.Instant {
		t.Errorf("watermark %s, want %s", idx.Watermark(), added.Instant)
	}
}

// TestFirstIndexOfTableWithArchivedCommits checks the first Hoodie write
// to a table another writer made and whose first commit is archived: the
// new index must hold that commit's keys (it is built from the latest
// snapshot, not by replaying the active timeline from nothing), so that an
// upsert of them updates rather than inserts second copies.
func TestFirstIndexOfTableWithArchivedCommits(t *testing.T) {
	ctx := context.Background()
	tt, settings := tableWithoutSmallFiles(t)
	gen := trips.NewGenerator(21)
	other := otherWriter(t, tt, settings)
	first := gen.Inserts(10)
	s1, err := other.Write(ctx, OpInsert, tripsInput(first))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Write(ctx, OpInsert, tripsInput(gen.Inserts(10))); err != nil {
		t.Fatal(err)
	}
	archive(t, tt.fsys, s1.Instant)

	checkUpsertUpdates(t, tt, gen.Updates(first, 10))
}

// TestCatchUpRebuildsOnAKeyTwoGroupsHold checks a table another writer gave
// two copies of a key (as Spark's default, non-global index does when a
// record changes partition) and then deleted one of them: the index holds
// one location per key, so the catch-up rebuilds from the latest snapshot,
// where the key's remaining copy is, and an upsert of the key updates it
// rather than inserting another.
func TestCatchUpRebuildsOnAKeyTwoGroupsHold(t *testing.T) {
	ctx := context.Background()
	tt, settings := tableWithoutSmallFiles(t)
	gen := trips.NewGenerator(22)
	a := gen.Inserts(5)
	for i := range a {
		a[i].PartitionPath = trips.SanFrancisco
	}
	tt.write(OpInsert, tripsInput(a))
	key := a[0]
	// Another writer, unaware of the first copy, writes the key into
	// another partition, and yet another deletes that copy.
	b := gen.Inserts(3)
	b[0].UUID = key.UUID
	for i := range b {
		b[i].PartitionPath = trips.Chennai
	}
	writeUnseen(t, tt, otherWriter(t, tt, settings), b)
	if r, err := otherWriter(t, tt, settings).Write(ctx, OpDelete, tripsInput(b[:1])); err != nil || r.Deleted != 1 {
		t.Fatalf("delete: %+v, %v", r, err)
	}
	if n := countKey(t, tt, key.UUID); n != 1 {
		t.Fatalf("key is %d times in the snapshot, want 1", n)
	}
	checkUpsertUpdates(t, tt, gen.Updates(a[:1], 1))
}

// tableWithoutSmallFiles returns a trips table, and the settings of its
// writer, that puts new records in new file groups only.
func tableWithoutSmallFiles(t *testing.T) (*testTable, Settings) {
	t.Helper()
	settings := DefaultSettings()
	settings.SmallFileLimit = 0
	// The tests archive by hand (archive), what and when they need.
	settings.Archive.Automatic = false
	return newTripsTable(t, config.MergeEventTime, settings), settings
}

// checkUpsertUpdates upserts updates, new versions of stored records, and
// checks that every one updates its record, each key is once in the
// latest snapshot, and the index matches the table.
func checkUpsertUpdates(t *testing.T, tt *testTable, updates []trips.Trip) {
	t.Helper()
	res := tt.write(OpUpsert, tripsInput(updates))
	if res.Updated != int64(len(updates)) || res.Inserted != 0 {
		t.Errorf("upsert of %d stored keys: %d inserted, %d updated", len(updates), res.Inserted, res.Updated)
	}
	for _, u := range updates {
		if n := countKey(t, tt, u.UUID); n != 1 {
			t.Errorf("key %s is %d times in the latest snapshot", u.UUID, n)
		}
	}
	checkIndex(t, tt)
}

// TestWriteRebuildsADamagedIndex damages every table of the record index
// (a bulk insert's, ingested), or its manifest, so that tagging with it or
// opening it fails, and checks that an upsert
// still updates its records, rebuilding the index and saying so once
// through Options.Notify, and that the index then matches the table.
func TestWriteRebuildsADamagedIndex(t *testing.T) {
	for _, what := range []string{"tables", "manifest"} {
		t.Run(what, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			gen := trips.NewGenerator(9)
			base := gen.Inserts(70_000) // enough to be ingested as tables
			tt.write(OpBulkInsert, tripsInput(base))
			indexDir := filepath.Join(tt.dir, ".hoodie", ".index")
			pattern := "*.sst"
			if what == "manifest" {
				pattern = "MANIFEST-*"
			}
			files, _ := filepath.Glob(filepath.Join(indexDir, pattern))
			if len(files) == 0 {
				t.Fatalf("no %s in the index", pattern)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for i := len(data) / 3; i < len(data); i += 97 {
					data[i] ^= 0x20
				}
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var notices []error
			w := NewWriter(tt.fsys, Options{Settings: DefaultSettings(), IndexDir: indexDir, TableID: tt.dir, Notify: func(err error) { notices = append(notices, err) }})
			res, err := w.Write(context.Background(), OpUpsert, tripsInput(gen.Updates(base, 100)))
			if err != nil {
				t.Fatalf("upsert with a damaged index: %v", err)
			}
			if res.Updated != 100 || res.Inserted != 0 {
				t.Errorf("upsert: %d updated, %d inserted; want 100 updated", res.Updated, res.Inserted)
			}
			// Damaged tables always make the write rebuild the index. A
			// damaged manifest may instead be read up to its first bad
			// record, as Pebble reads a torn tail: the index opens older
			// and catches up, with nothing to say. Which one happens
			// depends on where Pebble's flushes left the records.
			wantNotices := []int{1}
			if what == "manifest" {
				wantNotices = []int{0, 1}
			}
			if !slices.Contains(wantNotices, len(notices)) || len(notices) == 1 && (!strings.Contains(notices[0].Error(), "rebuilding it from the table's files") || strings.Contains(notices[0].Error(), "\n")) {
				t.Errorf("notices %q, want %v one-line notices saying the index is rebuilt", notices, wantNotices)
			}
			checkIndex(t, tt)
		})
	}
}

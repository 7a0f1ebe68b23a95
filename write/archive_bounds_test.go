package write

import (
	"context"
	"errors"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// pendingClustering runs clusterings of the table on fsys that die at
// later and later steps until one leaves its replacecommit inflight, and
// returns its instant time.
func pendingClustering(t *testing.T, fsys storage.FS, opts Options) string {
	t.Helper()
	ctx := context.Background()
	for failAt := 1; failAt < 200; failAt++ {
		_, err := NewWriter(faultfs.New(fsys, failAt), opts).Cluster(ctx)
		if err == nil {
			t.Fatal("the clustering completed before it left an inflight replacecommit")
		}
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Fatal(err)
		}
		tl, err := timeline.Load(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		if in, ok := tl.Filter(func(in timeline.Instant) bool {
			return in.Action == timeline.ActionReplaceCommit && in.State == timeline.StateInflight
		}).First(); ok {
			return in.Time
		}
	}
	t.Fatal("no inflight clustering")
	return ""
}

// TestArchiveKeepsReplaceWithReplacedFiles: a clustering dies pending
// (instant T1); a KEEP_LATEST_FILE_VERSIONS clean runs at T2 > T1 and keeps
// the groups under clustering, not replaced yet; the clustering then
// completes as T1. Archival, whether asked for or run after the
// clustering's commit, must keep T1 on the active timeline while the
// groups it replaced have base files: the latest snapshot must read each
// record once, as before archival.
func TestArchiveKeepsReplaceWithReplacedFiles(t *testing.T) {
	serviceModes(t, func(t *testing.T, auto bool) {
		ctx := context.Background()
		gen := trips.NewGenerator(32)
		settings := smallGroupsSettings()
		settings.Cleaner = CleanerSettings{Policy: CleanKeepLatestFileVersions, FileVersionsRetained: 1, MaxCommits: 1}
		settings.Archive = ArchiveSettings{MinCommits: 2, MaxCommits: 3}
		mem := newMemTripsTable(t)
		dir := t.TempDir()
		opts := Options{Settings: settings, IndexDir: dir, TableID: dir}
		w := NewWriter(mem, opts)
		for range 3 {
			if _, err := w.Write(ctx, OpInsert, tripsInput(gen.Inserts(10))); err != nil {
				t.Fatal(err)
			}
		}
		pending := pendingClustering(t, mem, opts)
		// New groups, a second version of them, and a clean by file
		// versions after the pending clustering.
		extra := gen.Inserts(4)
		if _, err := w.Write(ctx, OpInsert, tripsInput(extra)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(ctx, OpUpsert, tripsInput(gen.Updates(extra, len(extra)))); err != nil {
			t.Fatal(err)
		}
		if cr, err := w.Clean(ctx); err != nil || cr.Instant == "" {
			t.Fatalf("clean: %+v, %v", cr, err)
		}
		want := dataOf(snapshot(t, mem, ""))
		if auto {
			w.settings.Cleaner.Automatic, w.settings.Archive.Automatic, w.settings.TableServices = true, true, true
		}
		res, err := w.Cluster(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Instant != pending {
			t.Fatalf("clustering %s, want the pending %s completed", res.Instant, pending)
		}
		if !auto {
			if _, err := w.Archive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got, err := pastSnapshot(t, mem, "")
		if err != nil {
			t.Fatalf("latest snapshot after archival: %v", err)
		}
		if !equalData(dataOf(got), want) {
			t.Fatalf("latest snapshot has %d records after archival, %d before", len(got), len(want))
		}
		tl, err := timeline.Load(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		if !tl.CompletedCommits().Contains(pending) {
			t.Fatalf("replacecommit %s archived while the groups it replaced have base files", pending)
		}
	})
}

// TestArchiveKeepsClusteringBeforeItsGroupsAreCleaned is the scenario of
// TestArchiveKeepsReplaceWithReplacedFiles on a table on disk, with more
// writes between the crashed clustering and the clean, the cleaner and
// archival run by hand or after every commit: every record must be read
// once after each archival, and the record index must agree with the
// table.
func TestArchiveKeepsClusteringBeforeItsGroupsAreCleaned(t *testing.T) {
	serviceModes(t, func(t *testing.T, auto bool) {
		ctx := context.Background()
		s := smallGroupsSettings()
		s.Cleaner = CleanerSettings{Policy: CleanKeepLatestFileVersions, FileVersionsRetained: 1, CommitsRetained: 1, MaxCommits: 1}
		s.Archive = ArchiveSettings{MinCommits: 2, MaxCommits: 3, Batch: 10}
		if auto {
			s.TableServices, s.Cleaner.Automatic, s.Archive.Automatic = true, true, true
		}
		tt := newTripsTable(t, config.MergeEventTime, s)
		gen := trips.NewGenerator(95)
		all := insertBatches(tt, gen, 3, 10)
		pending := pendingClustering(t, tt.fsys, tt.w.opts)
		later := insertBatches(tt, gen, 4, 3)
		// New versions of the groups not under clustering: old ones to clean.
		tt.write(OpUpsert, tripsInput(gen.Updates(later, len(later))))
		all = append(all, later...)
		if !auto {
			if _, err := tt.w.Clean(ctx); err != nil {
				t.Fatal(err)
			}
		}
		res, err := tt.w.Cluster(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Instant != pending {
			t.Fatalf("clustering %s, want the pending %s completed", res.Instant, pending)
		}
		if !auto {
			if _, err := tt.w.Archive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := pastSnapshot(t, tt.fsys, ""); err != nil || len(got) != len(all) {
			t.Fatalf("latest snapshot after archival: %d records, want %d (%v)", len(got), len(all), err)
		}
		verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
		// One more write: with automatic services, they run again.
		tt.write(OpInsert, tripsInput(gen.Inserts(2)))
		if got, err := pastSnapshot(t, tt.fsys, ""); err != nil || len(got) != len(all)+2 {
			t.Fatalf("latest snapshot after one more write: %d records, want %d (%v)", len(got), len(all)+2, err)
		}
	})
}

// TestArchiveSavepointAfterCrashedArchival: an archival dies right after
// it wrote its archive file; a savepoint is then made of a commit it
// archived, still on the active timeline. The next archival must keep the
// savepointed commit active, and a restore to the savepoint must bring the
// table back to the savepointed data.
func TestArchiveSavepointAfterCrashedArchival(t *testing.T) {
	ctx := context.Background()
	at := newArchiveTable(t, ArchiveSettings{MinCommits: 2, MaxCommits: 4, Batch: 2})
	at.writeCommits(t, 6)
	ffs := faultfs.New(at.mem, 2) // the archive file is written, nothing removed
	if _, err := at.writer(ffs).Archive(ctx); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("the crashed archival: %v, want the injected failure", err)
	}
	saved := at.instants[1]
	w := at.writer(at.mem)
	if _, err := w.Savepoint(ctx, saved, "keep"); err != nil {
		t.Fatalf("savepoint of %s: %v", saved, err)
	}
	res, err := w.Archive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, at.mem)
	if err != nil {
		t.Fatal(err)
	}
	if !tl.CompletedCommits().Contains(saved) {
		t.Fatalf("archival removed savepointed commit %s from the active timeline (archived %v)", saved, res.Archived)
	}
	if _, err := w.Restore(ctx, saved); err != nil {
		t.Fatalf("restore to savepoint %s: %v", saved, err)
	}
	if !equalData(dataOf(snapshot(t, at.mem, "")), at.history[saved]) {
		t.Fatal("the restored table is not the savepointed data")
	}
}

// TestArchiveTwoCrashedArchivals: two archivals die after writing their
// archive files, with commits between them, the second choosing fewer
// commits than the first wrote. The next archival must remove only the
// oldest commits from the active timeline (no archived commit after an
// active one), so that the latest snapshot stays the same, and must write
// no instant to the archive a second time.
func TestArchiveTwoCrashedArchivals(t *testing.T) {
	ctx := context.Background()
	at := newArchiveTable(t, ArchiveSettings{MinCommits: 2, MaxCommits: 4, Batch: 2})
	at.writeCommits(t, 6)
	for range 2 {
		ffs := faultfs.New(at.mem, 2) // after the archive file, before any removal
		if _, err := at.writer(ffs).Archive(ctx); !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("the crashed archival: %v, want the injected failure", err)
		}
		for range 3 {
			at.writeCommits(t, 1)
		}
	}
	before := dataOf(snapshot(t, at.mem, ""))
	if _, err := at.writer(at.mem).Archive(ctx); err != nil {
		t.Fatal(err)
	}
	at.wholeTimeline(t, "after two crashed archivals and a whole one")
	after, err := pastSnapshot(t, at.mem, "")
	if err != nil {
		t.Fatalf("latest snapshot after archival: %v", err)
	}
	if !equalData(dataOf(after), before) {
		t.Fatalf("the latest snapshot changed with archival: %d records before, %d after", len(before), len(after))
	}
	checkArchivedOnce(t, at.mem, "after two crashed archivals and a whole one")
}

// serviceModes runs f twice, as the subtests "manual" (the cleaner and
// archival run when asked) and "automatic" (they run after every commit).
func serviceModes(t *testing.T, f func(t *testing.T, auto bool)) {
	for _, auto := range []bool{false, true} {
		name := "manual"
		if auto {
			name = "automatic"
		}
		t.Run(name, func(t *testing.T) { f(t, auto) })
	}
}

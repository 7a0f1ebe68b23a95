package write

import (
	"context"
	"errors"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// leavePendingClean runs a clean of ct that dies right after it wrote its
// requested instant, before it deleted anything, and checks that the clean
// is pending.
func leavePendingClean(t *testing.T, ct *cleanerTable) {
	t.Helper()
	ctx := context.Background()
	for failAt := 1; failAt < 10; failAt++ {
		ffs := faultfs.New(ct.fsys, failAt)
		_, err := NewWriter(ffs, ct.w.opts).Clean(ctx)
		if err != nil && !errors.Is(err, faultfs.ErrInjected) {
			t.Fatal(err)
		}
		tl, err := timeline.Load(ctx, ct.fsys)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Filter(func(in timeline.Instant) bool {
			return in.Action == timeline.ActionClean && in.State != timeline.StateCompleted
		}).Len() > 0 {
			return
		}
	}
	t.Fatal("no clean was left pending")
}

// TestSavepointFinishesPendingClean savepoints a commit that a pending
// clean's plan, made before the savepoint, would clean: the savepoint runs
// the pending clean first, and so refuses, as it refuses after a completed
// clean; the retained snapshots read whole.
func TestSavepointFinishesPendingClean(t *testing.T) {
	ctx := context.Background()
	ct := newCleanerTable(t, newMemTripsTable(t), 5, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}, nil)
	leavePendingClean(t, ct)
	saved := ct.instants[1]
	if _, err := ct.w.Savepoint(ctx, saved, "keep"); err == nil {
		t.Fatalf("savepoint of %s, which the pending clean removes files of, was accepted", saved)
	}
	if _, err := ct.w.Clean(ctx); err != nil {
		t.Fatal(err)
	}
	ct.checkPast(ct.instants[3:]...)
	tl, err := timeline.Load(ctx, ct.fsys)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Pending().Len() != 0 || tl.Savepoints().Len() != 0 {
		t.Errorf("pending %v, savepoints %v: want none", tl.Pending().Instants(), tl.Savepoints().Instants())
	}
}

// TestRollbackFinishesPendingClean rolls back the latest write while a
// clean that deletes the versions before it is pending: the rollback runs
// the clean first, finds the versions it would bring back gone, and
// refuses with nothing changed; the table reads as of the latest write,
// before and after the next clean.
func TestRollbackFinishesPendingClean(t *testing.T) {
	ctx := context.Background()
	ct := newCleanerTable(t, newMemTripsTable(t), 3, CleanerSettings{Policy: CleanKeepLatestFileVersions, FileVersionsRetained: 1, MaxCommits: 1}, nil)
	leavePendingClean(t, ct)
	latest := ct.instants[len(ct.instants)-1]
	_, err := ct.w.Rollback(ctx, latest)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("rollback of %s while a clean of the versions before it is pending: %v, want it refused", latest, err)
	}
	for range 2 {
		if !equalData(dataOf(snapshot(t, ct.fsys, "")), ct.history[latest]) {
			t.Fatal("the table does not read as of the latest write")
		}
		if _, err := ct.w.Clean(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResumedCleanKeepsRefilledPartition leaves pending a clean that
// removes a deleted partition, then writes that partition's trips again:
// the resumed clean deletes the files its plan names but keeps the
// partition, which holds the new commit's file, and says so in its
// metadata; the latest snapshot holds the new trips.
func TestResumedCleanKeepsRefilledPartition(t *testing.T) {
	ctx := context.Background()
	ct, victim := newDeletedPartitionTable(t)
	leavePendingClean(t, ct)
	var back []trips.Trip
	for _, tr := range trips.NewGenerator(21).Inserts(30) {
		if config.EscapePartitionValue(tr.PartitionPath) == victim {
			back = append(back, tr)
		}
	}
	// A write does not finish pending cleans: Hudi's writers do not either.
	ct.w.settings.Cleaner.Automatic = false
	ct.write(OpUpsert, tripsInput(back))
	want := dataOf(snapshot(t, ct.fsys, ""))
	cr, err := ct.w.Clean(ctx)
	if err != nil || len(cr.Resumed) != 1 {
		t.Fatalf("clean: %+v, %v: want the pending clean resumed", cr, err)
	}
	got, err := pastSnapshot(t, ct.fsys, "")
	if err != nil {
		t.Fatalf("the latest snapshot after the resumed clean: %v", err)
	}
	if !equalData(dataOf(got), want) {
		t.Fatalf("the latest snapshot after the resumed clean: %d records, want %d", len(got), len(want))
	}
	tl, err := timeline.Load(ctx, ct.fsys)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := tl.ReadCleanMetadata(ctx, timeline.Instant{Time: cr.Resumed[0], Action: timeline.ActionClean, State: timeline.StateCompleted})
	if err != nil {
		t.Fatal(err)
	}
	if pm := meta.Partitions[victim]; pm.PartitionDeleted || len(pm.Deleted) == 0 {
		t.Errorf("clean metadata of %s: %+v, want its old files deleted and the partition kept", victim, pm)
	}
}

// TestRollbackRefusesLastActiveWrite rolls back, one by one, the writes
// archival left on the active timeline: the last of them is refused, as
// the table without it would read empty while the archived writes' files
// are still there, and the table reads whole.
func TestRollbackRefusesLastActiveWrite(t *testing.T) {
	ctx := context.Background()
	s := DefaultSettings()
	s.Cleaner.Automatic = false
	s.Cleaner.CommitsRetained = 1
	s.Archive = ArchiveSettings{MinCommits: 2, MaxCommits: 3, Batch: 10}
	tt := newTripsTable(t, config.MergeEventTime, s)
	gen := trips.NewGenerator(97)
	var instants []string
	history := map[string]map[string]string{}
	for range 5 {
		res := tt.write(OpInsert, tripsInput(gen.Inserts(6)))
		instants = append(instants, res.Instant)
		history[res.Instant] = dataOf(snapshot(t, tt.fsys, ""))
	}
	if ar, err := tt.w.Archive(ctx); err != nil || len(ar.Archived) != 3 {
		t.Fatalf("archive: %+v, %v: want the 3 oldest commits archived", ar, err)
	}
	if _, err := tt.w.Rollback(ctx, instants[4]); err != nil {
		t.Fatalf("rollback of %s: %v", instants[4], err)
	}
	_, err := tt.w.Rollback(ctx, instants[3])
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("rollback of the last active write %s: %v, want it refused", instants[3], err)
	}
	if !equalData(dataOf(snapshot(t, tt.fsys, "")), history[instants[3]]) {
		t.Fatal("the table does not read as of the last active write")
	}
}

package write

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// leavePendingClustering runs clusterings of tt that die at ever later
// file-system steps (every mutating step fails from there on, as if the
// process died) until one leaves its replacecommit inflight with its plan,
// and returns that instant's time.
func leavePendingClustering(t *testing.T, tt *testTable) string {
	t.Helper()
	ctx := context.Background()
	for failAt := 1; failAt < 200; failAt++ {
		ffs := faultfs.New(tt.fsys, failAt)
		if _, err := NewWriter(ffs, tt.w.opts).Cluster(ctx); err == nil {
			t.Fatal("a clustering completed before one was left pending")
		} else if !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("clustering failing at step %d: %v", failAt, err)
		}
		tl, _ := tt.latest()
		for _, in := range tl.Pending().Instants() {
			if in.Action == timeline.ActionReplaceCommit && in.State == timeline.StateInflight {
				return in.Time
			}
		}
	}
	t.Fatal("no clustering was left pending")
	return ""
}

// TestClusterCompletedLate leaves a clustering pending, then commits
// writes after it (which must leave its file groups alone), and checks that
// the next clustering, which completes the pending one at an instant older
// than the record index's watermark, returns no warning and leaves the
// index matching the table without the next write's catch-up; and that an
// upsert after it finds every key.
func TestClusterCompletedLate(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, smallGroupsSettings())
	gen := trips.NewGenerator(91)
	all := insertBatches(tt, gen, 3, 10)
	pending := leavePendingClustering(t, tt)
	// Writes to the file groups under the clustering are refused, and
	// leave the table alone.
	if err := tt.writeErr(OpUpsert, tripsInput(gen.Updates(all, 5))); err == nil {
		t.Fatal("an upsert of keys under the pending clustering was accepted")
	}
	if err := tt.writeErr(OpDelete, tripsInput(all[:3])); err == nil {
		t.Fatal("a delete of keys under the pending clustering was accepted")
	}
	news := gen.Inserts(5)
	if later := tt.write(OpUpsert, tripsInput(news)); later.Instant <= pending {
		t.Fatalf("the upsert's instant %s is not after the pending clustering's %s", later.Instant, pending)
	}
	res, err := tt.w.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant != pending {
		t.Fatalf("the clustering completed %q, want the pending %s", res.Instant, pending)
	}
	for _, w := range res.Warnings {
		t.Errorf("clustering warning: %v", w)
	}
	if n := len(snapshot(t, tt.fsys, "")); n != len(all)+len(news) {
		t.Fatalf("%d records, want %d", n, len(all)+len(news))
	}
	verifyIndexUnsynced(t, tt)
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
	up := tt.write(OpUpsert, tripsInput(gen.Updates(append(all, news...), 35)))
	if up.Updated != 35 || up.Inserted != 0 {
		t.Fatalf("upsert after the clustering: %d updated, %d inserted; want 35, 0", up.Updated, up.Inserted)
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
}

// verifyIndexUnsynced checks that tt's record index, as its writers left
// it and not caught up, is at the table's latest view (its watermark and
// view digest) and matches the latest snapshot.
func verifyIndexUnsynced(t *testing.T, tt *testTable) {
	t.Helper()
	ctx := context.Background()
	tl, view := tt.latest()
	idx, err := index.Open(ctx, tt.w.opts.IndexDir, tt.w.indexOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Stale(); err != nil {
		t.Fatalf("the index is stale: %v", err)
	}
	if wm := idx.Watermark(); wm != view.AsOf() {
		t.Fatalf("the index's watermark is %s, want the latest commit %s", wm, view.AsOf())
	}
	if !bytes.Equal(idx.ViewDigest(), view.Digest()) {
		t.Fatal("the index's view digest is not that of the latest view: the next write would rebuild it")
	}
	report, err := VerifyIndex(ctx, tt.fsys, tl, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() {
		t.Fatalf("the index differs from the table: %+v", report)
	}
}

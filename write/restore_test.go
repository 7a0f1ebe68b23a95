package write

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// writeSavepoint saves the completed commit at instant, as hoodiectl
// savepoint does.
func writeSavepoint(t testing.TB, fsys storage.FS, instant string) {
	t.Helper()
	if _, err := NewWriter(fsys, Options{}).Savepoint(context.Background(), instant, "test"); err != nil {
		t.Fatalf("savepoint %s: %v", instant, err)
	}
}

func TestRestoreToSavepoint(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 21)
	up := tt.write(OpUpsert, tripsInput(append(gen.Updates(initial[:10], 10), gen.Inserts(4)...)))
	saved := snapshot(t, tt.fsys, "")
	writeSavepoint(t, tt.fsys, up.Instant)
	timelineAtSavepoint := instantsOf(t, tt.fsys)
	second := tt.write(OpUpsert, tripsInput(gen.Inserts(9)))
	third := tt.write(OpDelete, tripsInput(initial[15:20]))

	res, err := tt.w.Restore(ctx, up.Instant)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %v", w)
	}
	var rolled []string
	for _, in := range res.RolledBack {
		rolled = append(rolled, in.Time)
	}
	if want := []string{third.Instant, second.Instant}; !slices.Equal(rolled, want) {
		t.Fatalf("rolled back %v, want %v (newest first)", rolled, want)
	}
	if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), dataOf(saved)) {
		t.Fatal("the table is not as of the savepoint")
	}
	// The timeline is as at the savepoint, plus the completed restore: its
	// rollbacks are gone.
	rs := timeline.Instant{Time: res.Instant, Action: timeline.ActionRestore, State: timeline.StateCompleted}
	if got, want := instantsOf(t, tt.fsys), append(timelineAtSavepoint, rs.String()); !slices.Equal(got, want) {
		t.Fatalf("timeline %v, want %v", got, want)
	}
	tl, _ := tt.latest()
	data, err := tl.ReadDetails(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := timeline.ParseRestoreMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.InstantsToRollback, rolled) || len(meta.HoodieRestoreMetadata[third.Instant]) != 1 ||
		int(meta.HoodieRestoreMetadata[second.Instant][0].TotalFilesDeleted) != len(second.Files) {
		t.Fatalf("restore metadata %+v", meta)
	}
	planData, err := tl.ReadDetails(ctx, timeline.Instant{Time: res.Instant, Action: timeline.ActionRestore, State: timeline.StateRequested})
	if err != nil {
		t.Fatal(err)
	}
	if plan, err := timeline.ParseRestorePlan(planData); err != nil || plan.Savepoint() != up.Instant || len(plan.InstantsToRollback) != 2 {
		t.Fatalf("restore plan %+v, %v", plan, err)
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
	checkUpsertAfterUndo(t, tt, gen, tripsOf(t, tt))
}

// tripsOf returns the table's trips, read back from its snapshot, for
// updates of every key.
func tripsOf(t *testing.T, tt *testTable) []trips.Trip {
	t.Helper()
	var out []trips.Trip
	for _, v := range snapshot(t, tt.fsys, "") {
		out = append(out, trips.Trip{UUID: v[2].(string), PartitionPath: v[3].(string)})
	}
	return out
}

func TestRestoreRefused(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 22)
	first := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 3)))
	writeSavepoint(t, tt.fsys, first.Instant)
	second := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 3)))
	writeSavepoint(t, tt.fsys, second.Instant)
	tt.write(OpUpsert, tripsInput(gen.Updates(initial, 3)))
	before := instantsOf(t, tt.fsys)
	snap := dataOf(snapshot(t, tt.fsys, ""))
	for _, c := range []struct {
		name, instant, want string
	}{
		{"not a savepoint", "20000101000000000", "is not a savepoint of the table (its savepoints are " + first.Instant + ", " + second.Instant + ")"},
		{"past another savepoint", first.Instant, "write " + second.Instant + " has a savepoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tt.w.Restore(ctx, c.instant)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want a refusal saying %q", err, c.want)
			}
			if got := instantsOf(t, tt.fsys); !slices.Equal(got, before) {
				t.Fatalf("the timeline changed: %v, was %v", got, before)
			}
			if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), snap) {
				t.Fatal("the table changed")
			}
		})
	}
	// A savepointed write is not rolled back either.
	res, err := tt.w.Restore(ctx, second.Instant)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tt.w.Rollback(ctx, second.Instant); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "has a savepoint") {
		t.Fatalf("rolling back a savepointed write after restore %s gave %v", res.Instant, err)
	}
}

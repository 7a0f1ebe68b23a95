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

// instantsOf lists a table's instants as "time action state".
func instantsOf(t testing.TB, fsys storage.FS) []string {
	t.Helper()
	tl, err := timeline.Load(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range tl.Instants() {
		out = append(out, in.String())
	}
	return out
}

// checkUpsertAfterUndo upserts updates of every key of live and
// new keys, and checks that the table then holds exactly live's keys and
// the new ones, each once (snapshot fails on a key twice), and that the
// index agrees.
func checkUpsertAfterUndo(t *testing.T, tt *testTable, gen *trips.Generator, live []trips.Trip) {
	t.Helper()
	news := gen.Inserts(7)
	batch := append(gen.Updates(live, len(live)), news...)
	tt.write(OpUpsert, tripsInput(batch))
	got := snapshot(t, tt.fsys, "")
	want := map[string]bool{}
	for _, tr := range append(slices.Clone(live), news...) {
		want[tr.UUID] = true
	}
	if len(got) != len(want) {
		t.Fatalf("after the upsert the table holds %d keys, want %d", len(got), len(want))
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Fatalf("key %s lost", k)
		}
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
}

func TestRollbackLatestWrite(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 11)
	upsert := append(gen.Updates(initial[:10], 10), gen.Inserts(5)...)
	tt.write(OpUpsert, tripsInput(upsert))
	beforeDelete := snapshot(t, tt.fsys, "")
	timelineBefore := instantsOf(t, tt.fsys)
	del := tt.write(OpDelete, tripsInput(initial[20:25]))

	res, err := tt.w.Rollback(ctx, del.Instant)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %v", w)
	}
	if res.RolledBack.Time != del.Instant || res.Deleted != len(del.Files) {
		t.Fatalf("rolled back %v deleting %d files; want %s and %d", res.RolledBack, res.Deleted, del.Instant, len(del.Files))
	}
	if got := snapshot(t, tt.fsys, ""); !maps.EqualFunc(dataOf(got), dataOf(beforeDelete), func(a, b string) bool { return a == b }) {
		t.Fatal("after the rollback the table is not as before the delete")
	}
	for _, f := range del.Files {
		if ok, _ := storage.Exists(ctx, tt.fsys, f.Path); ok {
			t.Errorf("file %s of the rolled back write is still there", f.Path)
		}
	}
	// The timeline is as before, plus the completed rollback, which names
	// the write and its files as Hudi's metadata does.
	rb := timeline.Instant{Time: res.Instant, Action: timeline.ActionRollback, State: timeline.StateCompleted}
	if got, want := instantsOf(t, tt.fsys), append(timelineBefore, rb.String()); !slices.Equal(got, want) {
		t.Fatalf("timeline %v, want %v", got, want)
	}
	tl, _ := tt.latest()
	data, err := tl.ReadDetails(ctx, rb)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := timeline.ParseRollbackMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.CommitsRollback, []string{del.Instant}) || meta.InstantsRollback[0].Action != "commit" || int(meta.TotalFilesDeleted) != len(del.Files) {
		t.Fatalf("rollback metadata %+v", meta)
	}
	for _, f := range del.Files {
		pm := meta.PartitionMetadata[f.Partition]
		if !slices.ContainsFunc(pm.SuccessDeleteFiles, func(s string) bool { return strings.HasSuffix(s, "/"+f.Path) && strings.HasPrefix(s, "file:/") }) {
			t.Errorf("the metadata of partition %q does not name %s as deleted: %v", f.Partition, f.Path, pm.SuccessDeleteFiles)
		}
	}
	// Its plan stays in the requested file, as Hudi's does.
	reqData, err := tl.ReadDetails(ctx, timeline.Instant{Time: res.Instant, Action: timeline.ActionRollback, State: timeline.StateRequested})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := timeline.ParseRollbackPlan(reqData)
	if err != nil {
		t.Fatal(err)
	}
	if plan.InstantToRollback.CommitTime != del.Instant || len(plan.Requests()) != len(del.Files) {
		t.Fatalf("rollback plan %+v", plan)
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)

	// Asked again, the rollback is done: the same instant, nothing more.
	again, err := tt.w.Rollback(ctx, del.Instant)
	if err != nil || again.Instant != res.Instant {
		t.Fatalf("rolling back again gave %+v, %v; want rollback %s", again, err, res.Instant)
	}

	// The deleted keys are back, in their file groups: an upsert of every
	// key updates them, duplicating none.
	live := slices.Clone(initial)
	for i := range upsert[:10] {
		live[i] = upsert[i]
	}
	live = append(live, upsert[10:]...)
	checkUpsertAfterUndo(t, tt, gen, live)
}

// TestRollbackInsertGoesAway rolls back an insert that made new file
// groups and a new partition: the keys it inserted are gone from the table
// and from the index, and so is the partition.
func TestRollbackInsertGoesAway(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 12)
	inserts := gen.Inserts(8)
	for i := range inserts {
		inserts[i].PartitionPath = "new/partition"
	}
	ins := tt.write(OpInsert, tripsInput(inserts))
	if _, err := tt.w.Rollback(ctx, ins.Instant); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, tt.fsys, ""); len(got) != len(initial) {
		t.Fatalf("the table holds %d keys after the rollback, want %d", len(got), len(initial))
	}
	if ok, _ := storage.Exists(ctx, tt.fsys, "new"); ok {
		t.Error("the partition the rolled back insert created is still there")
	}
	// The rolled back keys are new again: inserting them works.
	tt.write(OpInsert, tripsInput(inserts))
	checkUpsertAfterUndo(t, tt, gen, append(slices.Clone(initial), inserts...))
}

func TestRollbackRefused(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 13)
	first := instantsOf(t, tt.fsys)[0]
	up := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 5)))
	before := instantsOf(t, tt.fsys)
	snap := dataOf(snapshot(t, tt.fsys, ""))
	firstTime := strings.TrimPrefix(strings.Split(first, "__")[0], "[")

	cases := []struct {
		name, instant string
		refused       bool
		want          string
	}{
		{"not the latest", firstTime, true, up.Instant},
		{"not on the timeline", "20000101000000000", false, "not on the table's timeline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tt.w.Rollback(ctx, c.instant)
			if err == nil || errors.Is(err, ErrRefused) != c.refused || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want an error (refused %v) naming %q", err, c.refused, c.want)
			}
			if got := instantsOf(t, tt.fsys); !slices.Equal(got, before) {
				t.Fatalf("the timeline changed: %v, was %v", got, before)
			}
			if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), snap) {
				t.Fatal("the table changed")
			}
		})
	}
	// A rollback is not a write to roll back.
	res, err := tt.w.Rollback(ctx, up.Instant)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tt.w.Rollback(ctx, res.Instant); err == nil || !strings.Contains(err.Error(), "is a rollback, not a write") {
		t.Fatalf("rolling back a rollback gave %v", err)
	}
}

// TestRollbackDropsSparkMetadataTable: Spark's metadata table lists the
// files of the write a rollback removes; the rollback drops it first, as a
// write does.
func TestRollbackDropsSparkMetadataTable(t *testing.T) {
	tt, gen, initial := tableOf30Trips(t, 14)
	up := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 4)))
	withSparkMetadataTable(t, tt.fsys)
	if _, err := tt.w.Rollback(context.Background(), up.Instant); err != nil {
		t.Fatal(err)
	}
	if declared, folder := metadataTableState(t, tt.fsys); declared || folder {
		t.Fatalf("after the rollback the metadata table is declared %v, its folder there %v", declared, folder)
	}
}

// TestWriteCompletesSparkPendingRollback: a rollback Spark started for its
// failed write, and did not finish, is completed from its plan by the next
// Hoodie write, whatever base path the plan's full paths name.
func TestWriteCompletesSparkPendingRollback(t *testing.T) {
	ctx := context.Background()
	tt, _, _ := tableOf30Trips(t, 15)
	before := dataOf(snapshot(t, tt.fsys, ""))
	failed, rb := "20991231000000000", "20991231000000100"
	for _, name := range []string{failed + ".commit.requested", failed + ".inflight", rb + ".rollback.inflight"} {
		if err := tt.fsys.CreateIfAbsent(ctx, storage.MetaFolder+"/"+name, nil); err != nil {
			t.Fatal(err)
		}
	}
	part, id := "americas/brazil/sao_paulo", "0a1b2c3d-0000-0000-0000-000000000000-0"
	rel := part + "/" + id + "_0-7-7_" + failed + ".parquet"
	if err := tt.fsys.WriteFile(ctx, rel, []byte("half a parquet file")); err != nil {
		t.Fatal(err)
	}
	req := timeline.RollbackRequest{PartitionPath: part, FileID: &id, LatestBaseInstant: &failed,
		FilesToBeDeleted: []string{"file:/elsewhere/spark/trips/" + rel}, LogBlocksToBeDeleted: &map[string]int64{}}
	plan, err := timeline.NewRollbackPlan(timeline.Instant{Time: failed, Action: timeline.ActionCommit}, []timeline.RollbackRequest{req}).MarshalAvro()
	if err != nil {
		t.Fatal(err)
	}
	if err := tt.fsys.CreateIfAbsent(ctx, storage.MetaFolder+"/"+rb+".rollback.requested", plan); err != nil {
		t.Fatal(err)
	}

	res, err := tt.w.Write(ctx, OpDelete, tripsInput(trips.NewGenerator(99).Inserts(1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant != "" {
		t.Fatalf("a delete of an absent key committed %s", res.Instant)
	}
	if ok, _ := storage.Exists(ctx, tt.fsys, rel); ok {
		t.Errorf("the file the plan names, %s, is still there", rel)
	}
	tl, _ := tt.latest()
	if tl.Contains(failed) || tl.Pending().Len() != 0 {
		t.Fatalf("timeline after the write: %v", tl.Instants())
	}
	data, err := tl.ReadDetails(ctx, timeline.Instant{Time: rb, Action: timeline.ActionRollback, State: timeline.StateCompleted})
	if err != nil {
		t.Fatalf("the rollback was not completed: %v", err)
	}
	meta, err := timeline.ParseRollbackMetadata(data)
	if err != nil || !slices.Equal(meta.CommitsRollback, []string{failed}) || meta.PartitionMetadata[part].SuccessDeleteFiles[0] != req.FilesToBeDeleted[0] {
		t.Fatalf("rollback metadata %+v, %v", meta, err)
	}
	if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), before) {
		t.Fatal("the table changed")
	}
}

// TestRollbackRefusesWhatWasCleaned: once the cleaner removed the version
// of a file group that the latest write rewrote, rolling the write back
// would leave the file group without a file; it is refused, nothing
// changed.
func TestRollbackRefusesWhatWasCleaned(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 16)
	_, view := tt.latest()
	up := tt.write(OpUpsert, tripsInput(gen.Updates(initial[:1], 1)))
	var cleaned string
	for _, s := range view.LatestSlices() {
		if g := up.Files[0]; s.Partition == g.Partition && s.FileID == g.FileID {
			cleaned = s.Path
		}
	}
	if cleaned == "" {
		t.Fatal("the upsert made a new file group; the test needs a rewrite")
	}
	if err := tt.fsys.Remove(ctx, cleaned); err != nil { // as a cleaner would
		t.Fatal(err)
	}
	before := instantsOf(t, tt.fsys)
	_, err := tt.w.Rollback(ctx, up.Instant)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "was cleaned since") {
		t.Fatalf("got %v; want a refusal saying the file was cleaned", err)
	}
	if got := instantsOf(t, tt.fsys); !slices.Equal(got, before) {
		t.Fatalf("the timeline changed: %v, was %v", got, before)
	}
}

// TestRollbackReplacecommit rolls back a replacecommit that deleted a
// partition, as Spark's delete_partition writes it: the file groups it
// replaced are live again, for readers and for the index.
func TestRollbackReplacecommit(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 17)
	before := dataOf(snapshot(t, tt.fsys, ""))
	_, view := tt.latest()
	gone := view.Partitions()[0]
	replaced := map[string][]string{}
	for _, s := range view.LatestSlices() {
		if s.Partition == gone {
			replaced[gone] = append(replaced[gone], s.FileID)
		}
	}
	req, err := timeline.CreateRequested(ctx, tt.fsys, tt.w.gen, timeline.ActionReplaceCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := timeline.ReplaceCommitMetadata{
		CommitMetadata:            timeline.CommitMetadata{PartitionToWriteStats: map[string][]timeline.WriteStat{}, OperationType: timeline.OperationDeletePartition},
		PartitionToReplaceFileIDs: replaced,
	}
	data, err := meta.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	inflight, err := timeline.TransitionToInflight(ctx, tt.fsys, req, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Complete(ctx, tt.fsys, inflight, data); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, tt.fsys, ""); len(got) >= len(before) {
		t.Fatalf("the delete_partition left %d of %d records", len(got), len(before))
	}
	res, err := tt.w.Rollback(ctx, req.Time)
	if err != nil {
		t.Fatal(err)
	}
	if res.RolledBack.Action != timeline.ActionReplaceCommit || res.Deleted != 0 {
		t.Fatalf("rollback %+v; want the replacecommit, no file deleted", res)
	}
	if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), before) {
		t.Fatal("after the rollback the partition's records are not back")
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
	checkUpsertAfterUndo(t, tt, gen, initial)
}

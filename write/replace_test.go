package write

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TestInsertOverwrite checks an insert overwrite end to end: its instant
// files as Hudi 0.15 writes them, the partitions it replaces and those it
// leaves, and an upsert after it that neither duplicates nor loses a key.
func TestInsertOverwrite(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 11)
	target := initial[0].PartitionPath
	var in []trips.Trip
	kept := map[string]bool{}
	for _, tr := range initial {
		if tr.PartitionPath != target {
			kept[tr.UUID] = true
		}
	}
	for _, tr := range gen.Updates(initial, 30) {
		if tr.PartitionPath == target && len(in) < 2 {
			in = append(in, tr)
		}
	}
	fresh := gen.Inserts(3)
	for i := range fresh {
		fresh[i].PartitionPath = target
	}
	in = append(in, fresh...)
	res := tt.write(OpInsertOverwrite, tripsInput(in))

	tl, view := tt.latest()
	last, _ := tl.Last()
	if last.Action != timeline.ActionReplaceCommit || last.Time != res.Instant {
		t.Fatalf("last instant %v, want the replacecommit %s", last, res.Instant)
	}
	requested, err := tt.fsys.ReadFile(ctx, filepath.Join(storage.MetaFolder, res.Instant+".replacecommit.requested"))
	if err != nil {
		t.Fatal(err)
	}
	objects, err := avrofile.Read(requested)
	if err != nil || len(objects) != 1 {
		t.Fatalf("requested file: %v, %v", objects, err)
	}
	if m := objects[0].(map[string]any); m["operationType"] != nil || m["clusteringPlan"] != nil {
		t.Errorf("requested metadata %v: want every field null, as Hudi's insert overwrite writes it", m)
	}
	meta, err := tl.ReadReplaceCommitMetadata(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if meta.OperationType != timeline.OperationInsertOverwrite || len(meta.PartitionToReplaceFileIDs) != 1 || len(meta.PartitionToReplaceFileIDs[config.EscapePartitionValue(target)]) == 0 {
		t.Errorf("replace metadata: operation %s, replaced %v; want INSERT_OVERWRITE replacing the groups of %s", meta.OperationType, meta.PartitionToReplaceFileIDs, target)
	}
	for _, g := range view.FileGroups() {
		for _, id := range meta.PartitionToReplaceFileIDs[g.Partition] {
			if id == g.FileID {
				t.Errorf("replaced file group %s is still in the view", id)
			}
		}
	}
	snap := snapshot(t, tt.fsys, "")
	if len(snap) != len(kept)+len(in) {
		t.Fatalf("%d records, want the %d of other partitions and the %d written", len(snap), len(kept), len(in))
	}
	for _, tr := range in {
		if got := snap[tr.UUID]; got == nil || got[6] != tr.TS {
			t.Errorf("record %s is %v, want ts %d", tr.UUID, got, tr.TS)
		}
	}
	// Before the overwrite, as it was.
	if got := snapshot(t, tt.fsys, tl.CompletedCommits().Instants()[0].Time); len(got) != len(initial) {
		t.Errorf("time travel before the overwrite: %d records, want %d", len(got), len(initial))
	}
	// An upsert of every key, replaced or not, written or not, leaves one
	// record per key.
	up := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
	wantKeys := len(kept) + len(in) + (len(initial) - len(kept) - 2) // replaced keys not written again come back as new
	if got := snapshot(t, tt.fsys, ""); len(got) != wantKeys || up.Inserted != int64(len(initial)-len(kept)-2) {
		t.Errorf("after the upsert: %d records, %d inserted; want %d records, %d inserted", len(got), up.Inserted, wantKeys, len(initial)-len(kept)-2)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// TestReplaceRefusals checks the replace operations' bad inputs: each is
// refused, and the table is as it was.
func TestReplaceRefusals(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 12)
	before := snapshot(t, tt.fsys, "")
	moved := gen.Updates(initial[:1], 1)
	for _, p := range trips.Partitions() {
		if p != initial[0].PartitionPath {
			moved[0].PartitionPath = p
		}
	}
	cases := map[string]func() error{
		"an empty overwrite": func() error {
			_, err := tt.w.Write(ctx, OpInsertOverwriteTable, &Input{Name: "empty", Schema: tripsInput(nil).Schema})
			return err
		},
		"an overwrite of a key held in a partition not replaced": func() error {
			_, err := tt.w.Write(ctx, OpInsertOverwrite, tripsInput(moved))
			return err
		},
		"a delete of a partition the table does not hold": func() error {
			_, err := tt.w.DeletePartitions(ctx, []string{config.EscapePartitionValue(initial[0].PartitionPath), "no/such/partition"})
			return err
		},
	}
	for what, run := range cases {
		if err := run(); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: got %v, want it refused", what, err)
		}
		if got := snapshot(t, tt.fsys, ""); !reflect.DeepEqual(got, before) {
			t.Errorf("%s changed the table", what)
		}
	}
	tl, _ := tt.latest()
	if n := tl.Instants(); len(n) != 1 {
		t.Errorf("instants after refused writes: %v", n)
	}
}

// TestPendingOverwriteRolledBack checks that an insert overwrite left
// pending (its writer died) is rolled back by the next write, as Hudi
// rolls back a failed write, where a pending clustering is left alone.
func TestPendingOverwriteRolledBack(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 13)
	plan, err := (&commit{op: OpInsertOverwrite}).requested()
	if err != nil {
		t.Fatal(err)
	}
	pending, err := timeline.CreateRequested(ctx, tt.fsys, nil, timeline.ActionReplaceCommit, plan)
	if err != nil {
		t.Fatal(err)
	}
	// A pending insert overwrite may replace any file group: until it is
	// gone, an update would be refused. The next write rolls it back.
	tt.write(OpUpsert, tripsInput(gen.Updates(initial, 5)))
	tl, _ := tt.latest()
	if tl.Contains(pending.Time) {
		t.Errorf("the pending insert overwrite %s is still on the timeline", pending.Time)
	}
}

// TestDeletePartitionFiles checks a partition delete's instant files as
// Hudi 0.15 writes them: the requested metadata names DELETE_PARTITION, and
// the completed metadata has an empty, not null, partitionToWriteStats,
// which Spark's incremental query needs.
func TestDeletePartitionFiles(t *testing.T) {
	ctx := context.Background()
	tt, _, initial := tableOf30Trips(t, 14)
	partition := config.EscapePartitionValue(initial[0].PartitionPath)
	res, err := tt.w.DeletePartitions(ctx, []string{partition})
	if err != nil {
		t.Fatal(err)
	}
	requested, err := tt.fsys.ReadFile(ctx, filepath.Join(storage.MetaFolder, res.Instant+".replacecommit.requested"))
	if err != nil {
		t.Fatal(err)
	}
	objects, err := avrofile.Read(requested)
	if err != nil || len(objects) != 1 || objects[0].(map[string]any)["operationType"] != "DELETE_PARTITION" {
		t.Errorf("requested metadata %v, %v: want operationType DELETE_PARTITION", objects, err)
	}
	data, err := tt.fsys.ReadFile(ctx, filepath.Join(storage.MetaFolder, res.Instant+".replacecommit"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if stats, ok := meta["partitionToWriteStats"].(map[string]any); !ok || len(stats) != 0 {
		t.Errorf("partitionToWriteStats %v: want an empty object", meta["partitionToWriteStats"])
	}
	replaced, _ := meta["partitionToReplaceFileIds"].(map[string]any)
	if ids, _ := replaced[partition].([]any); len(ids) == 0 || len(replaced) != 1 {
		t.Errorf("partitionToReplaceFileIds %v: want the file groups of %s", replaced, partition)
	}
	for k, r := range snapshot(t, tt.fsys, "") {
		if r[3] == partition {
			t.Errorf("record %s of the deleted partition is still there", k)
		}
	}
}

package write

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// completeOtherCommit completes a commit as another writer (Spark, which
// does not take Hoodie's lock) would while a Hoodie write runs: it writes
// file group fileID of partition (an empty file).
func completeOtherCommit(t *testing.T, ctx context.Context, fsys storage.FS, partition, fileID string) string {
	t.Helper()
	in, err := timeline.CreateRequested(ctx, fsys, nil, timeline.ActionCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	profile, _ := timeline.NewWorkloadProfile(timeline.OperationUpsert, nil, nil).MarshalJSON()
	if in, err = timeline.TransitionToInflight(ctx, fsys, in, profile); err != nil {
		t.Fatal(err)
	}
	// The file is there, as another writer's commit leaves it, though its
	// content is not read: readers check that a commit's files exist.
	file := partition + "/" + fileID + "_0-0-0_" + in.Time + ".parquet"
	if err := fsys.WriteFile(ctx, file, nil); err != nil {
		t.Fatal(err)
	}
	m := &timeline.CommitMetadata{}
	m.AddWriteStat(partition, timeline.WriteStat{FileID: fileID, PartitionPath: partition, Path: file})
	data, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Complete(ctx, fsys, in, data); err != nil {
		t.Fatal(err)
	}
	return in.Time
}

// A write refuses to complete when another writer's commit completed
// meanwhile in a file group the write changes, as Hudi's optimistic
// concurrency control refuses the later commit; a commit of another file
// group does not stop it.
func TestWriteRefusesConcurrentCommitOfItsFileGroup(t *testing.T) {
	ctx := context.Background()
	for _, sameGroup := range []bool{true, false} {
		name := "other file group"
		if sameGroup {
			name = "same file group"
		}
		t.Run(name, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			gen := trips.NewGenerator(3)
			first := gen.Inserts(10)
			tt.write(OpInsert, tripsInput(first))
			update := gen.Updates(first[:1], 1)
			var other string
			hook := hookFunc(func(ctx context.Context, c *PendingCommit) error {
				var changed timeline.FileGroupID
				for _, s := range c.After {
					for _, b := range c.Before {
						if s.FileID == b.FileID && s.Instant != b.Instant {
							changed = timeline.FileGroupID{Partition: s.Partition, FileID: s.FileID}
						}
					}
				}
				if changed.FileID == "" {
					t.Fatal("the update changes no file group")
				}
				if !sameGroup {
					changed.FileID = "00000000-0000-0000-0000-000000000000-0"
				}
				other = completeOtherCommit(t, ctx, tt.fsys, changed.Partition, changed.FileID)
				return nil
			})
			w := NewWriter(tt.fsys, Options{Settings: DefaultSettings(), IndexDir: t.TempDir(), TableID: tt.dir, Hook: hook})
			res, err := w.Write(ctx, OpUpsert, tripsInput(update))
			tl, _ := tt.latest()
			if !sameGroup {
				if err != nil {
					t.Fatalf("a commit of another file group stopped the write: %v", err)
				}
				if !tl.Completed().Contains(res.Instant) {
					t.Fatal("the write did not complete")
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "commit "+other+" of another writer completed while this write ran") {
				t.Fatalf("got %v, want it refused naming commit %s", err, other)
			}
			if tl.Pending().Len() != 0 || tl.CompletedCommits().Len() != 2 {
				t.Fatalf("timeline after the refusal: %v", tl.Instants())
			}
		})
	}
}

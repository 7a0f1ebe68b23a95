package write

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/timeline"
)

// checkConcurrentCommits refuses the write if a commit that completed
// since the write began (a Spark writer's, which does not take Hoodie's
// lock: Spark's optimistic concurrency control) wrote or replaced a file
// group the write writes. Completing would hide that commit's version of
// the group under this write's, made from the version before it. Hudi's
// optimistic concurrency control refuses the later of two such commits
// (SimpleConcurrentFileWritesConflictResolutionStrategy) in the same way;
// commits of other file groups stand side by side.
func (c *commit) checkConcurrentCommits(ctx context.Context) error {
	tl, err := timeline.Load(ctx, c.w.fsys)
	if err != nil {
		return err
	}
	mine := make(map[timeline.FileGroupID]bool, len(c.results))
	for _, r := range c.results {
		mine[timeline.FileGroupID{Partition: r.stat.PartitionPath, FileID: r.stat.FileID}] = true
	}
	before := c.tl.Completed()
	for _, in := range tl.CompletedCommits().Instants() {
		if before.Contains(in.Time) {
			continue
		}
		m, err := tl.ReadReplaceCommitMetadata(ctx, in)
		if err != nil {
			return err
		}
		groups := m.FileIDsByPartition()
		for p, ids := range m.PartitionToReplaceFileIDs {
			groups[p] = append(groups[p], ids...)
		}
		for p, ids := range groups {
			for _, id := range ids {
				if g := (timeline.FileGroupID{Partition: p, FileID: id}); mine[g] {
					return &RefusedError{fmt.Errorf("commit %s: %s %s of another writer completed while this write ran and changed file group %s, which this write changes too: as Hudi's optimistic concurrency control, the later commit is refused; write again",
						c.instant.Time, in.Action, in.Time, groupKey(p, id))}
				}
			}
		}
	}
	return nil
}

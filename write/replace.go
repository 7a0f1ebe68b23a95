package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// replacement is the file groups a replacecommit replaces: every file group
// of its partitions.
type replacement struct {
	// groups are the file ids replaced, by partition; a partition without
	// file groups (one an insert overwrite creates) has an empty list, as
	// Hudi's partitionToReplaceFileIds gives it.
	groups map[string][]string
	set    map[string]bool // by groupKey
}

// replaceAll returns the replacement of every file group of view in the
// partitions.
func replaceAll(view *read.View, partitions map[string]bool) *replacement {
	r := &replacement{groups: map[string][]string{}, set: map[string]bool{}}
	for p := range partitions {
		r.groups[p] = []string{}
	}
	for _, g := range view.FileGroups() {
		if partitions[g.Partition] {
			r.groups[g.Partition] = append(r.groups[g.Partition], g.FileID)
			r.set[groupKey(g.Partition, g.FileID)] = true
		}
	}
	return r
}

// overwriteTargets returns what an insert overwrite of records replaces:
// the partitions the records go to, or for an insert overwrite of the
// table every partition it has. It is nil for other operations.
func overwriteTargets(op Operation, records []*record, view *read.View) *replacement {
	partitions := map[string]bool{}
	switch op {
	case OpInsertOverwrite:
		for _, r := range records {
			partitions[r.partition] = true
		}
	case OpInsertOverwriteTable:
		for _, g := range view.FileGroups() {
			partitions[g.Partition] = true
		}
	default:
		return nil
	}
	return replaceAll(view, partitions)
}

// covers reports whether the file group is replaced.
func (r *replacement) covers(partition, fileID string) bool {
	return r != nil && r.set[groupKey(partition, fileID)]
}

// partitions returns the partitions replaced, sorted.
func (r *replacement) partitions() []string {
	return slices.Sorted(maps.Keys(r.groups))
}

// Overwrites reports whether o is an insert overwrite.
func (o Operation) Overwrites() bool {
	return o == OpInsertOverwrite || o == OpInsertOverwriteTable
}

// requested returns the content of the .replacecommit.requested file of a
// replace operation, as Hudi 0.15 writes it: an insert overwrite's holds a
// HoodieRequestedReplaceMetadata whose fields are all null, a partition
// delete's names its operation, a clustering's holds its plan too.
func (c *commit) requested() ([]byte, error) {
	var r timeline.RequestedReplace
	switch c.op {
	case OpDeletePartition:
		r = timeline.RequestedReplace{Operation: c.op.hudi(), ExtraMetadata: map[string]string{}}
	case OpCluster:
		r = timeline.RequestedReplace{Operation: c.op.hudi(), Plan: c.plan, ExtraMetadata: map[string]string{}}
	}
	return timeline.MarshalRequestedReplace(r)
}

// checkReplace refuses a replacement of a file group that a pending
// replacecommit may replace too: the two would both replace it, which
// Hudi's readers refuse.
func (l *replaceLocks) checkReplace(r *replacement) error {
	if r == nil {
		return nil
	}
	for _, p := range r.partitions() {
		for _, id := range r.groups[p] {
			if instant, locked := l.locked(p, id); locked {
				return fmt.Errorf("file group %s of partition %q is under replacecommit %s (a clustering or an insert overwrite), still pending: write again once it completes or is rolled back", id, p, instant)
			}
		}
	}
	return nil
}

// readClusteringPlan returns the clustering plan of a pending replacecommit,
// or nil if it is not a clustering.
func readClusteringPlan(ctx context.Context, fsys storage.FS, in timeline.Instant) (*timeline.ClusteringPlan, error) {
	path, err := timeline.Instant{Time: in.Time, Action: in.Action, State: timeline.StateRequested}.Path()
	if err != nil {
		return nil, err
	}
	data, err := fsys.ReadFile(ctx, path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the plan of replacecommit %s: %w", in.Time, err)
	}
	plan, _, err := timeline.ReadClusteringPlan(data)
	return plan, err
}

// replacedKeys returns the record keys of the latest slices of the file
// groups r replaces.
func replacedKeys(ctx context.Context, c *commit) ([]string, error) {
	var keys []string
	for _, s := range c.view.LatestSlices() {
		if !c.repl.covers(s.Partition, s.FileID) {
			continue
		}
		k, err := readRecordKeys(ctx, c.w.fsys, s.Path)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

// DeletePartitions removes the partitions, given as partition paths, as one
// replacecommit that replaces every file group they hold with nothing
// (Hudi's delete_partition). A partition the table does not hold, or whose
// file groups a pending replacecommit may replace, refuses the whole
// delete with nothing committed. The partitions' folders stay, as Hudi
// leaves them: the cleaner removes their files, then the folders, once no
// reader needs them.
func (w *Writer) DeletePartitions(ctx context.Context, partitions []string) (*Result, error) {
	if len(partitions) == 0 {
		return nil, errors.New("no partitions given")
	}
	unlock, tl, view, err := w.beginOnView(ctx, OpDeletePartition)
	if err != nil {
		return nil, err
	}
	defer unlock()
	held := map[string]bool{}
	for _, g := range view.FileGroups() {
		held[g.Partition] = true
	}
	want := map[string]bool{}
	for _, p := range partitions {
		if !held[p] {
			return nil, &RefusedError{fmt.Errorf("table %s has no partition %q (%s)", w.cfg.Name, p, partitionList(held))}
		}
		want[p] = true
	}
	repl := replaceAll(view, want)
	locks, err := pendingReplaces(ctx, w.fsys, tl)
	if err != nil {
		return nil, err
	}
	if err := locks.checkReplace(repl); err != nil {
		return nil, &RefusedError{err}
	}
	schema, err := read.TableSchema(ctx, w.cfg, tl)
	if err != nil {
		return nil, err
	}
	idx, err := w.openIndex(ctx, tl, view)
	if err != nil {
		return nil, err
	}
	defer func() { idx.Close() }()
	in := &Input{Name: "delete-partition " + strings.Join(repl.partitions(), " ")}
	c := &commit{w: w, op: OpDeletePartition, in: in, tl: tl, view: view, schema: schema, idx: idx, repl: repl}
	if err := c.run(ctx, nil, nil); err != nil {
		return nil, err
	}
	res := &Result{Operation: OpDeletePartition}
	c.finish(ctx, res)
	res.Deleted = int64(len(c.replacedKeys))
	return res, nil
}

// partitionList names the partitions a table holds, for an error message.
func partitionList(held map[string]bool) string {
	if len(held) == 0 {
		return "it has none"
	}
	names := slices.Sorted(maps.Keys(held))
	const most = 10
	quoted := make([]string, 0, most)
	for _, p := range names[:min(len(names), most)] {
		quoted = append(quoted, fmt.Sprintf("%q", p))
	}
	more := ""
	if len(names) > most {
		more = fmt.Sprintf(" and %d more", len(names)-most)
	}
	return "its partitions: " + strings.Join(quoted, ", ") + more
}

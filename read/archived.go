package read

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/timeline/archive"
)

// archivedWrites is what the archived timeline says of the completed
// writes at or before a time-travel instant older than the active
// timeline: the files each wrote and the file groups replaced.
type archivedWrites struct {
	paths    map[string]map[string]bool // instant -> paths its metadata lists
	replaced map[string]bool            // partition + "/" + file id
}

// loadArchivedWrites reads the archived writes at or before asOf. It
// returns nil when the archive holds none (a table copied without its
// archive, or archived by a tool that left no metadata): the view then
// admits files older than the active timeline by name, as Hudi's does.
func loadArchivedWrites(ctx context.Context, fsys storage.FS, asOf string) (*archivedWrites, error) {
	arch, err := archive.Load(ctx, fsys)
	if err != nil {
		return nil, err
	}
	a := &archivedWrites{paths: map[string]map[string]bool{}, replaced: map[string]bool{}}
	for _, in := range arch.Instants() {
		if in.Time > asOf || in.State != timeline.StateCompleted ||
			in.Action != timeline.ActionCommit && in.Action != timeline.ActionReplaceCommit && in.Action != timeline.ActionDeltaCommit {
			continue
		}
		meta, err := arch.CommitMetadata(in.Time, in.Action)
		if err != nil {
			return nil, fmt.Errorf("time travel to %s: %w", asOf, err)
		}
		paths := map[string]bool{}
		for _, p := range meta.WrittenPaths() {
			paths[p] = true
		}
		a.paths[in.Time] = paths
		for part, ids := range meta.PartitionToReplaceFileIDs {
			for _, id := range ids {
				a.replaced[part+"/"+id] = true
			}
		}
	}
	if len(a.paths) == 0 {
		return nil, nil
	}
	return a, nil
}

// admits reports whether the base file at rel, of the given instant and
// file group, is in the view: a file of an archived write whose metadata
// lists it, of a group no archived replacecommit replaced. A nil
// archivedWrites, or an instant the archive does not know, admits it.
func (a *archivedWrites) admits(instant, rel, group string) bool {
	if a == nil {
		return true
	}
	if a.replaced[group] {
		return false
	}
	paths, known := a.paths[instant]
	return !known || paths[rel]
}

package read

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/timeline/archive"
)

// archivedHistory returns what the archived timeline says of the completed
// writes it holds and tl, the active timeline, does not: the files each
// wrote and the file groups it replaced, oldest first. An instant on both
// timelines (an archival that stopped before it removed what it archived)
// counts as active.
func archivedHistory(ctx context.Context, fsys storage.FS, tl *timeline.Timeline) ([]instantFiles, error) {
	arch, err := archive.Load(ctx, fsys)
	if err != nil {
		return nil, err
	}
	var out []instantFiles
	for _, in := range arch.Instants() {
		if in.State != timeline.StateCompleted || tl.Contains(in.Time) ||
			in.Action != timeline.ActionCommit && in.Action != timeline.ActionReplaceCommit && in.Action != timeline.ActionDeltaCommit {
			continue
		}
		meta, err := arch.CommitMetadata(in.Time, in.Action)
		if err != nil {
			return nil, fmt.Errorf("archived %s: %w", in, err)
		}
		files := instantFiles{time: in.Time, written: meta.WrittenPaths()}
		for part, ids := range meta.PartitionToReplaceFileIDs {
			for _, id := range ids {
				files.replaced = append(files.replaced, part+"/"+id)
			}
		}
		out = append(out, files)
	}
	return out, nil
}

// archivedWrites is what the archived timeline says of the completed
// writes at or before a time-travel instant older than the active
// timeline: the files each wrote and the file groups replaced.
type archivedWrites struct {
	paths    map[string]map[string]bool // instant -> paths its metadata lists
	replaced map[string]bool            // partition + "/" + file id
}

// newArchivedWrites gathers the archived writes of history at or before
// asOf. It returns nil when there are none (a table copied without its
// archive, or archived by a tool that left no metadata): the view then
// admits files older than the active timeline by name, as Hudi's does.
func newArchivedWrites(history []instantFiles, asOf string) *archivedWrites {
	a := &archivedWrites{paths: map[string]map[string]bool{}, replaced: map[string]bool{}}
	for _, f := range history {
		if f.time > asOf {
			continue
		}
		paths := map[string]bool{}
		for _, p := range f.written {
			paths[p] = true
		}
		a.paths[f.time] = paths
		for _, g := range f.replaced {
			a.replaced[g] = true
		}
	}
	if len(a.paths) == 0 {
		return nil
	}
	return a
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

package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Marker file suffixes, as Hudi's direct markers name them: a marker for a
// base file a write creates, and one for a base file that merges a file
// group's previous version.
const (
	markerCreate = ".marker.CREATE"
	markerMerge  = ".marker.MERGE"
)

// markerFolder is where an instant's markers live.
func markerFolder(instant string) string {
	return storage.TempFolder + "/" + instant
}

// createMarker records, before a data file is written, that instant is
// about to create it, so that a rollback can find and delete the file.
func createMarker(ctx context.Context, fsys storage.FS, instant, dataPath, suffix string) error {
	name := markerFolder(instant) + "/" + dataPath + suffix
	if err := fsys.CreateIfAbsent(ctx, name, nil); err != nil {
		return fmt.Errorf("create marker %s: %w", name, err)
	}
	return nil
}

// markedFiles lists the data files the markers of instant name.
func markedFiles(ctx context.Context, fsys storage.FS, instant string) ([]string, error) {
	var out []string
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		entries, err := fsys.ReadDir(ctx, dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list markers %s: %w", dir, err)
		}
		for _, e := range entries {
			childRel := path.Join(rel, e.Name)
			if e.IsDir {
				if err := walk(dir+"/"+e.Name, childRel); err != nil {
					return err
				}
				continue
			}
			for _, suffix := range []string{markerCreate, markerMerge, ".marker.APPEND"} {
				if data, ok := strings.CutSuffix(childRel, suffix); ok {
					out = append(out, data)
				}
			}
		}
		return nil
	}
	return out, walk(markerFolder(instant), "")
}

// rollbackPending undoes a write that never completed: it deletes the data
// files its markers name, then its markers, then its instant files (inflight
// before requested). Each step is idempotent and the instant stays pending
// until its last file goes, so a rollback that dies half way is finished by
// the next one. An instant whose completed file exists is not pending: its
// files are the table's, and rollbackPending deletes nothing and fails with
// timeline.ErrInstantCompleted.
func rollbackPending(ctx context.Context, fsys storage.FS, in timeline.Instant) error {
	donePath, err := timeline.Instant{Time: in.Time, Action: in.Action, State: timeline.StateCompleted}.Path()
	if err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	done, err := storage.Exists(ctx, fsys, donePath)
	if err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	if done {
		return fmt.Errorf("roll back %s: %s exists, so its files are committed and are kept: %w", in, donePath, timeline.ErrInstantCompleted)
	}
	files, err := markedFiles(ctx, fsys, in.Time)
	if err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	for _, f := range files {
		if err := fsys.Remove(ctx, f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("roll back %s: remove %s: %w", in, f, err)
		}
	}
	if err := fsys.RemoveAll(ctx, markerFolder(in.Time)); err != nil {
		return fmt.Errorf("roll back %s: remove markers: %w", in, err)
	}
	if err := timeline.DeletePending(ctx, fsys, in); err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	return nil
}

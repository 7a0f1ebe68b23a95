package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Marker file suffixes, as Hudi's direct markers name them: a marker for a
// base file a write creates, and one for a base file that merges a file
// group's previous version.
const (
	markerCreate = ".marker.CREATE"
	markerMerge  = ".marker.MERGE"
)

// markerSuffixes are the suffixes of every marker name, a log file's
// (APPEND) included.
var markerSuffixes = []string{markerCreate, markerMerge, ".marker.APPEND"}

// Timeline-server-based markers, Hudi's default marker type (MarkerUtils):
// the marker folder holds MARKERS.type and files MARKERS0, MARKERS1...,
// each listing marker names ("partition/file.marker.MERGE") one a line.
const (
	markersFilePrefix = "MARKERS"
	markersTypeFile   = "MARKERS.type"
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

// markedFiles lists the data files the markers of instant name: direct
// markers, one file each, and the marker names listed in the MARKERS<n>
// files of timeline-server-based markers.
func markedFiles(ctx context.Context, fsys storage.FS, instant string) ([]string, error) {
	var out []string
	addMarker := func(name string) {
		for _, suffix := range markerSuffixes {
			if data, ok := strings.CutSuffix(name, suffix); ok {
				out = append(out, data)
			}
		}
	}
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
			if rel == "" && strings.HasPrefix(e.Name, markersFilePrefix) && e.Name != markersTypeFile {
				data, err := fsys.ReadFile(ctx, dir+"/"+e.Name)
				if err != nil {
					return fmt.Errorf("read markers %s/%s: %w", dir, e.Name, err)
				}
				for _, line := range strings.Split(string(data), "\n") {
					addMarker(strings.TrimSpace(line))
				}
				continue
			}
			addMarker(childRel)
		}
		return nil
	}
	return out, walk(markerFolder(instant), "")
}

// filesOfInstant lists the base files, in every partition, whose names carry
// instant's time: what a write at instant can have made. Hudi's listing-based
// rollback deletes these when a failed write left no markers.
func filesOfInstant(ctx context.Context, fsys storage.FS, instant string) ([]string, error) {
	partitions, err := read.ListAllPartitions(ctx, fsys)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, part := range partitions {
		dir := part
		if dir == "" {
			dir = "."
		}
		entries, err := fsys.ReadDir(ctx, dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list partition %q: %w", part, err)
		}
		for _, e := range entries {
			if e.IsDir {
				continue
			}
			if name, err := basefile.ParseName(e.Name); err == nil && name.InstantTime == instant {
				out = append(out, path.Join(part, e.Name))
			}
		}
	}
	return out, nil
}

// pendingFiles lists the data files a pending write at instant may have
// made: those its markers name or, when it has no markers (a writer that
// keeps them elsewhere, or died before its first), the base files that
// carry its instant time, as Hudi's listing-based rollback then finds them.
func pendingFiles(ctx context.Context, fsys storage.FS, instant string) ([]string, error) {
	files, err := markedFiles(ctx, fsys, instant)
	if err != nil || len(files) > 0 {
		return files, err
	}
	return filesOfInstant(ctx, fsys, instant)
}

// rollbackPending undoes a write that never completed: it deletes its
// inflight file first, then the data files its markers name (or, when it
// has no markers, the base files whose names carry its instant time, in
// every partition), the partitions it created and left empty, its markers,
// and its requested file last. Each step is idempotent and the instant
// stays pending until its last file goes, so a rollback that dies half way
// is finished by the next one.
//
// An instant whose completed file exists is not pending: its files are the
// table's, and rollbackPending deletes nothing and fails with
// timeline.ErrInstantCompleted. Stopping the instant first (see
// timeline.StopPending) closes the race with a writer that was completing
// it meanwhile.
func rollbackPending(ctx context.Context, fsys storage.FS, in timeline.Instant) error {
	if err := timeline.StopPending(ctx, fsys, in); err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	if err := removeWrittenFiles(ctx, fsys, in); err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	if err := timeline.DeletePending(ctx, fsys, in); err != nil {
		return fmt.Errorf("roll back %s: %w", in, err)
	}
	return nil
}

// removeWrittenFiles removes the data files the pending instant wrote (see
// pendingFiles), the partitions it created and left empty, and its
// markers.
func removeWrittenFiles(ctx context.Context, fsys storage.FS, in timeline.Instant) error {
	files, err := pendingFiles(ctx, fsys, in.Time)
	if err != nil {
		return err
	}
	for i, err := range removeFiles(ctx, fsys, files) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", files[i], err)
		}
	}
	if err := removeCreatedPartitions(ctx, fsys, in.Time, files); err != nil {
		return err
	}
	if err := fsys.RemoveAll(ctx, markerFolder(in.Time)); err != nil {
		return fmt.Errorf("remove markers: %w", err)
	}
	return nil
}

// removeCreatedPartitions removes the partitions that the write of instant
// created and left empty once its files, removed, are gone: their folders
// hold nothing but the partition metadata file, which names instant as the
// commit that created the partition; and the folders of removed files that
// hold nothing at all, since a write creates a partition's folder with its
// first file, which may come before the partition's metadata file (the two
// are written at once), or without it if the write stopped first. Emptied
// parent folders go too, so the table's folders are as they were before
// the write. A partition that holds anything else (a file another writer
// put there) stays.
func removeCreatedPartitions(ctx context.Context, fsys storage.FS, instant string, removed []string) error {
	partitions, err := read.ListAllPartitions(ctx, fsys)
	if err != nil {
		return err
	}
	// The deepest first: a partition inside another's folder is emptied
	// before the outer one is looked at.
	slices.Reverse(partitions)
	for _, part := range partitions {
		if part == "" {
			continue // the base path of a non-partitioned table stays
		}
		entries, err := fsys.ReadDir(ctx, part)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("list partition %q: %w", part, err)
		}
		if len(entries) != 1 || entries[0].Name != config.PartitionMetadataFile {
			continue
		}
		meta, err := config.ReadPartitionMetadata(ctx, fsys, part)
		if err != nil || meta.CommitTime != instant {
			continue // another writer's partition, or one unreadable: not ours to remove
		}
		if err := fsys.RemoveAll(ctx, part); err != nil {
			return fmt.Errorf("remove partition %q: %w", part, err)
		}
		if err := removeEmptyFolders(ctx, fsys, path.Dir(part)); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, f := range removed {
		if dir := path.Dir(f); !seen[dir] {
			seen[dir] = true
			if err := removeEmptyFolders(ctx, fsys, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeEmptyFolders removes dir if it holds nothing, then each parent
// folder that holds nothing once its child is gone, up to the base path,
// which stays. Folders that do not exist (on a file system without empty
// folders) are passed over.
func removeEmptyFolders(ctx context.Context, fsys storage.FS, dir string) error {
	for ; dir != "."; dir = path.Dir(dir) {
		entries, err := fsys.ReadDir(ctx, dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("list folder %q: %w", dir, err)
		}
		if len(entries) > 0 {
			return nil
		}
		if err := fsys.RemoveAll(ctx, dir); err != nil {
			return fmt.Errorf("remove folder %q: %w", dir, err)
		}
	}
	return nil
}

package read

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// FileSlice is one version of a file group: the base file a completed
// instant wrote.
type FileSlice struct {
	// Partition is the partition path ("" for a non-partitioned table).
	Partition string
	// FileID names the file group.
	FileID string
	// Instant is the instant that wrote the base file.
	Instant string
	// Path is the base file's path relative to the table's base path.
	Path string
	// Size is the base file's length in bytes.
	Size int64
}

// FileGroup is every visible version of one file group, oldest first.
type FileGroup struct {
	Partition string
	FileID    string
	Slices    []FileSlice
	// ReplacedBy is the completed replacecommit that replaced the group;
	// "" for a live group.
	ReplacedBy string
}

// Latest returns the group's newest slice.
func (g *FileGroup) Latest() FileSlice { return g.Slices[len(g.Slices)-1] }

// View is the table's file-system view as of an instant: the file groups
// and their slices written by completed instants at or before it, without
// the groups that completed replacecommits replaced. Files of inflight,
// requested or failed instants are never in it.
type View struct {
	asOf     string
	timeline *timeline.Timeline
	groups   []*FileGroup // sorted by partition, then file id
	replaced []*FileGroup // hidden by replacecommits, in the same order
}

// AsOf is the instant the view was taken at; "" when the table had no
// completed commit then.
func (v *View) AsOf() string { return v.asOf }

// Timeline is the completed write timeline up to and including AsOf.
func (v *View) Timeline() *timeline.Timeline { return v.timeline }

// FileGroups returns the live file groups, sorted by partition and file id.
func (v *View) FileGroups() []*FileGroup { return v.groups }

// ReplacedFileGroups returns the file groups that completed replacecommits
// at or before AsOf replaced and whose files are still there, sorted by
// partition and file id: the cleaner deletes them once no retained
// instant reads them.
func (v *View) ReplacedFileGroups() []*FileGroup { return v.replaced }

// LatestSlices returns the newest slice of every live file group.
func (v *View) LatestSlices() []FileSlice {
	out := make([]FileSlice, len(v.groups))
	for i, g := range v.groups {
		out[i] = g.Latest()
	}
	return out
}

// Partitions lists the partitions that hold live file groups, sorted.
func (v *View) Partitions() []string {
	var out []string
	for _, g := range v.groups {
		if len(out) == 0 || out[len(out)-1] != g.Partition {
			out = append(out, g.Partition)
		}
	}
	return out
}

// FileGroup returns a live file group.
func (v *View) FileGroup(partition, fileID string) (*FileGroup, bool) {
	i := sort.Search(len(v.groups), func(i int) bool {
		g := v.groups[i]
		return g.Partition > partition || (g.Partition == partition && g.FileID >= fileID)
	})
	if i < len(v.groups) && v.groups[i].Partition == partition && v.groups[i].FileID == fileID {
		return v.groups[i], true
	}
	return nil, false
}

// LoadView builds the view of the table on fsys as of asOf, a 17-digit
// instant time, or the latest completed instant when asOf is "". tl is the
// table's active timeline.
//
// A base file belongs to the view when the instant in its name is a
// completed commit or replacecommit at or before asOf whose metadata lists
// the file (so leftovers of failed task attempts are ignored), or when the
// instant is older than the first completed write of the active timeline
// (its commit was archived) and not pending. Time travel to an instant
// older than the active timeline also reads the archived timeline: a file
// of an archived commit must then be one its archived metadata lists, and
// the file groups archived replacecommits replaced are left out.
func LoadView(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, asOf string) (*View, error) {
	writes := tl.CompletedCommits()
	if asOf != "" {
		writes = writes.AtOrBefore(asOf)
	}
	v := &View{timeline: writes}
	if last, ok := writes.Last(); ok {
		v.asOf = last.Time
	}
	committed := map[string]map[string]bool{} // instant -> paths its metadata lists
	replaced := map[string]string{}           // partition + "/" + file id -> replacing instant
	var history []instantFiles
	for _, in := range writes.Instants() {
		files, err := readInstantFiles(ctx, tl, in)
		if err != nil {
			return nil, err
		}
		for _, g := range files.replaced {
			replaced[g] = in.Time
		}
		paths := make(map[string]bool, len(files.written))
		for _, p := range files.written {
			paths[p] = true
		}
		committed[in.Time] = paths
		history = append(history, files)
	}
	// The timeline starts at its first completed write, as Hudi's view
	// decides (isBeforeTimelineStarts): cleans and rollbacks are archived
	// apart from the commits, so an old one may stay active long after the
	// commits around it were archived.
	firstActive := ""
	if first, ok := tl.CompletedCommits().First(); ok {
		firstActive = first.Time
	}
	pending := tl.Pending()
	archivedVisible := func(instant string) bool {
		return firstActive != "" && instant < firstActive && (asOf == "" || instant <= asOf) && !pending.Contains(instant)
	}
	// Time travel takes the archived writes' metadata too: before the
	// active timeline, to know the files of the archived writes (see
	// archivedWrites); and anywhere, to check that every file the
	// snapshot reads is there, those of archived writes included.
	var archivedFiles []instantFiles
	var archived *archivedWrites
	if asOf != "" {
		var err error
		if archivedFiles, err = archivedHistory(ctx, fsys, tl); err != nil {
			return nil, fmt.Errorf("time travel to %s: %w", asOf, err)
		}
		if asOf < firstActive {
			archived = newArchivedWrites(archivedFiles, asOf)
		}
	}

	partitions, err := ListPartitions(ctx, fsys)
	if err != nil {
		return nil, err
	}
	byGroup := map[string]*FileGroup{}
	present := map[string]bool{}
	for _, part := range partitions {
		entries, err := fsys.ReadDir(ctx, part)
		if errors.Is(err, fs.ErrNotExist) {
			// Gone since it was listed: a rollback removes the partitions a
			// dead write created, which hold no committed file, and a clean
			// the partitions a delete-partition emptied before its earliest
			// commit to retain, which no retained snapshot reads.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list partition %q: %w", part, err)
		}
		for _, e := range entries {
			if e.IsDir || !strings.HasSuffix(e.Name, ".parquet") || strings.HasPrefix(e.Name, ".") {
				continue
			}
			name, err := basefile.ParseName(e.Name)
			if err != nil {
				continue // not a base file: ignore, as Hudi does
			}
			rel := path.Join(part, e.Name)
			present[rel] = true
			if paths, ok := committed[name.InstantTime]; ok {
				if !paths[rel] {
					continue
				}
			} else if !archivedVisible(name.InstantTime) || !archived.admits(name.InstantTime, rel, part+"/"+name.FileID) {
				continue
			}
			key := part + "/" + name.FileID
			g := byGroup[key]
			if g == nil {
				g = &FileGroup{Partition: part, FileID: name.FileID, ReplacedBy: replaced[key]}
				byGroup[key] = g
			}
			g.Slices = append(g.Slices, FileSlice{Partition: part, FileID: name.FileID, Instant: name.InstantTime, Path: rel, Size: e.Size})
		}
	}
	if err := checkComplete(ctx, tl, asOf, archivedFiles, history, present); err != nil {
		return nil, err
	}
	for _, g := range byGroup {
		sort.Slice(g.Slices, func(i, j int) bool { return g.Slices[i].Instant < g.Slices[j].Instant })
		if g.ReplacedBy != "" {
			v.replaced = append(v.replaced, g)
		} else {
			v.groups = append(v.groups, g)
		}
	}
	for _, groups := range [][]*FileGroup{v.groups, v.replaced} {
		sort.Slice(groups, func(i, j int) bool {
			a, b := groups[i], groups[j]
			return a.Partition < b.Partition || (a.Partition == b.Partition && a.FileID < b.FileID)
		})
	}
	return v, nil
}

// ListPartitions finds the table's partitions, sorted: the folders holding a
// partition metadata file (in any of Hudi's formats), searched from the base
// path without descending into a partition or the metadata folder, as Hudi
// lists them: a partition value may start with a dot. A table whose base
// path holds the metadata file is non-partitioned: its one partition is "".
func ListPartitions(ctx context.Context, fsys storage.FS) ([]string, error) {
	return listPartitions(ctx, fsys, false)
}

// ListAllPartitions is ListPartitions looking inside partitions too: a
// table of raw partition values may hold partition a/b inside partition a,
// which Hudi 0.15's listing, and so ListPartitions, does not see, but whose
// files a rollback must still find.
func ListAllPartitions(ctx context.Context, fsys storage.FS) ([]string, error) {
	return listPartitions(ctx, fsys, true)
}

func listPartitions(ctx context.Context, fsys storage.FS, nested bool) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := fsys.ReadDir(ctx, dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && dir != "." {
				return nil // removed while listing
			}
			return fmt.Errorf("list %q: %w", dir, err)
		}
		for _, e := range entries {
			if !e.IsDir && config.IsPartitionMetadataFile(e.Name) {
				if dir == "." {
					out = append(out, "")
				} else {
					out = append(out, dir)
				}
				if !nested {
					return nil
				}
				break
			}
		}
		for _, e := range entries {
			if !e.IsDir || dir == "." && e.Name == storage.MetaFolder {
				continue
			}
			child := e.Name
			if dir != "." {
				child = dir + "/" + e.Name
			}
			if err := walk(child); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

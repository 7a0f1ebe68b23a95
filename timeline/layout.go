package timeline

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// ActionClustering is a clustering of timeline layout 2 (Hudi 1.x
// CLUSTERING_ACTION): pending, its files are <t>.clustering.requested and
// <t>.clustering.inflight; it completes as a replacecommit. In layout 1 a
// clustering is a replacecommit throughout.
const ActionClustering Action = "clustering"

// KeyTimelinePath is the hoodie.properties key of a layout 2 table's
// timeline folder, relative to storage.MetaFolder (HoodieTableConfig.TIMELINE_PATH).
const KeyTimelinePath = "hoodie.timeline.path"

// DefaultTimelinePath is KeyTimelinePath's default: Hudi 1.x keeps the
// active timeline in .hoodie/timeline.
const DefaultTimelinePath = "timeline"

// KeyHistoryPath is the hoodie.properties key of a layout 2 table's
// archived timeline (the LSM timeline), relative to its timeline folder
// (HoodieTableConfig.TIMELINE_HISTORY_PATH). Hoodie does not read the
// archived timeline; see Timeline.HasHistory.
const KeyHistoryPath = "hoodie.timeline.history.path"

// DefaultHistoryPath is KeyHistoryPath's default.
const DefaultHistoryPath = "history"

// Layout is where and how a table keeps its active timeline: Hudi's
// timeline layout version, and the folder of the instant files.
//
// Layout 1 (table version 6, Hudi 0.x) keeps instant files directly in
// .hoodie, named <time><suffix> (see the package documentation). Layout 2
// (table version 8, Hudi 1.x) keeps them in .hoodie/timeline
// (hoodie.timeline.path) and names a completed instant's file
// <requested time>_<completion time>.<action>; requested and inflight files
// are named as in layout 1, and a clustering has an action of its own
// (ActionClustering) until it completes as a replacecommit. Layout 2 commit
// metadata, and the workload profile of inflight files, are Avro container
// files instead of JSON (see ReadCommitMetadata).
type Layout struct {
	// Version is hoodie.timeline.layout.version: 1 or 2.
	Version int
	// Folder is the folder of the active instant files, relative to the
	// base path.
	Folder string
	// History is the folder of the archived timeline of layout 2 (the LSM
	// timeline), relative to the base path; "" in layout 1.
	History string
}

// LayoutV1 is the layout of table version 6, which Hoodie writes.
var LayoutV1 = Layout{Version: 1, Folder: storage.MetaFolder}

// LayoutOf returns the timeline layout that cfg declares: layout 1 for
// hoodie.timeline.layout.version 0 or 1, layout 2 for version 2, in the
// folder that hoodie.timeline.path names in .hoodie (default
// DefaultTimelinePath) with its history in the folder that
// hoodie.timeline.history.path names in that one (default
// DefaultHistoryPath). A path that leaves its parent is an error.
func LayoutOf(cfg *config.Table) (Layout, error) {
	switch cfg.TimelineLayoutVersion {
	case 0, 1:
		return LayoutV1, nil
	case 2:
		folder, err := subfolder(cfg, KeyTimelinePath, DefaultTimelinePath, storage.MetaFolder)
		if err != nil {
			return Layout{}, err
		}
		history, err := subfolder(cfg, KeyHistoryPath, DefaultHistoryPath, folder)
		if err != nil {
			return Layout{}, err
		}
		return Layout{Version: 2, Folder: folder, History: history}, nil
	}
	return Layout{}, fmt.Errorf("%s %d: Hoodie reads timeline layouts 1 and 2", config.KeyTimelineLayoutVersion, cfg.TimelineLayoutVersion)
}

// subfolder returns the folder that cfg's property key (default def) names
// inside parent. A path that leaves parent is an error.
func subfolder(cfg *config.Table, key, def, parent string) (string, error) {
	dir := def
	if cfg.Extra != nil {
		dir = cfg.Extra.GetOr(key, def)
	}
	clean := path.Clean(dir)
	if dir == "" || path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s %q: not a folder inside %s", key, dir, parent)
	}
	return path.Join(parent, clean), nil
}

// tableLayout reads the layout of the table on fsys from its
// hoodie.properties. A folder without one (no table yet) is read in layout
// 1.
func tableLayout(ctx context.Context, fsys storage.FS) (Layout, error) {
	cfg, err := config.Load(ctx, fsys)
	if errors.Is(err, config.ErrNotATable) {
		return LayoutV1, nil
	}
	if err != nil {
		return Layout{}, err
	}
	return LayoutOf(cfg)
}

// v2Suffixes are the file name suffixes of layout 2, after the requested
// time (and, for completed files, "_<completion time>"), as Hudi 1.x's
// InstantFileNameGeneratorV2 makes them: those of layout 1, and
// clustering's.
var v2Suffixes = func() map[Action]suffixes {
	m := make(map[Action]suffixes, len(actionSuffixes)+1)
	for a, s := range actionSuffixes {
		m[a] = s
	}
	m[ActionClustering] = suffixes{".clustering.requested", ".clustering.inflight", ".replacecommit"}
	return m
}()

// v2SuffixIndex maps each layout 2 suffix back to the action and state it
// stands for.
var v2SuffixIndex = indexSuffixes(v2Suffixes)

// ParseFileName reads the instant that a file in the layout's Folder stands
// for, as ParseInstantFileName does for layout 1. In layout 2 a completed
// instant's file is <requested>_<completion>.<action>, which gives the
// completion time too, or, kept from before an upgrade,
// <requested>.<action>, which gives none ("").
func (l Layout) ParseFileName(name string) (in Instant, completion string, ok bool, err error) {
	if l.Version < 2 || name == "" || name[0] < '0' || name[0] > '9' {
		in, ok, err = ParseInstantFileName(name)
		return in, "", ok, err
	}
	head, sfx, dotted := strings.Cut(name, ".")
	requested, completion, timed := strings.Cut(head, "_")
	if !dotted || !timed {
		in, ok, err = parseInstantFileName(name, v2SuffixIndex)
		return in, "", ok, err
	}
	if in, _, err = parseInstantParts(name, requested, "."+sfx, v2SuffixIndex); err != nil {
		return Instant{}, "", false, err
	}
	if in.State != StateCompleted {
		return Instant{}, "", false, fmt.Errorf("instant file %q: %w: only a completed instant's file has a completion time", name, ErrInvalidInstant)
	}
	if err := CheckInstantTime(completion); err != nil {
		return Instant{}, "", false, fmt.Errorf("instant file %q: %w: completion time: %w", name, ErrInvalidInstant, err)
	}
	return in, completion, true, nil
}

// FileName returns the name of the instant's file in the layout's Folder:
// Instant.FileName in layout 1; in layout 2 a completed instant with a
// completion time is <Time>_<completion><suffix>.
func (l Layout) FileName(in Instant, completion string) (string, error) {
	if l.Version < 2 {
		return in.FileName()
	}
	if err := CheckInstantTime(in.Time); err != nil {
		return "", fmt.Errorf("instant %s: %w: %w", in, ErrInvalidInstant, err)
	}
	sfx, err := in.suffixIn(v2Suffixes)
	if err != nil {
		return "", err
	}
	if in.State != StateCompleted || completion == "" {
		return in.Time + sfx, nil
	}
	if err := CheckInstantTime(completion); err != nil {
		return "", fmt.Errorf("instant %s: %w: completion time: %w", in, ErrInvalidInstant, err)
	}
	return in.Time + "_" + completion + sfx, nil
}

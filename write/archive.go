package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"time"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/timeline"
	archivetl "github.com/hoodie-dev/hoodie/timeline/archive"
)

// The archival settings, Hudi's HoodieArchivalConfig.
const (
	KeyArchiveAutomatic = "hoodie.archive.automatic"
	KeyKeepMinCommits   = "hoodie.keep.min.commits"
	KeyKeepMaxCommits   = "hoodie.keep.max.commits"
	KeyArchivalBatch    = "hoodie.commits.archival.batch"
)

// Hudi's defaults of the archival settings.
const (
	defaultKeepMin       = 20
	defaultKeepMax       = 30
	defaultArchivalBatch = 10
)

// ArchiveSettings say when and how much of the active timeline archival
// moves to the archived timeline. The zero value archives nothing after a
// write, and archives with Hudi's defaults when asked to (Writer.Archive).
type ArchiveSettings struct {
	// Automatic archives after every commit (hoodie.archive.automatic).
	Automatic bool
	// MinCommits and MaxCommits bound the completed commits of the active
	// timeline (hoodie.keep.min.commits, hoodie.keep.max.commits): once
	// there are more than MaxCommits, the oldest are archived down to
	// MinCommits, unless something keeps them (see Writer.Archive). The
	// same bounds apply to the completed cleans and, apart, to the
	// completed rollbacks.
	MinCommits, MaxCommits int
	// Batch is the number of instant records per block of the archive
	// file (hoodie.commits.archival.batch).
	Batch int
}

// withDefaults fills the zero fields with Hudi's defaults.
func (a ArchiveSettings) withDefaults() ArchiveSettings {
	if a.MinCommits == 0 {
		a.MinCommits = defaultKeepMin
	}
	if a.MaxCommits == 0 {
		a.MaxCommits = defaultKeepMax
	}
	if a.Batch == 0 {
		a.Batch = defaultArchivalBatch
	}
	return a
}

// check reports bounds Hudi refuses: it needs more commits kept at most
// than at least.
func (a ArchiveSettings) check() error {
	a = a.withDefaults()
	if a.MaxCommits <= a.MinCommits {
		return fmt.Errorf("%s=%d must be greater than %s=%d", KeyKeepMaxCommits, a.MaxCommits, KeyKeepMinCommits, a.MinCommits)
	}
	return nil
}

// ArchiveResult says what an archival did.
type ArchiveResult struct {
	// Archived are the instants archived, each in the latest state its
	// files showed, in timeline order.
	Archived []timeline.Instant
	// File is the archive file written, in archivetl.Folder; "" when
	// nothing was archived or every entry was in the archive already.
	File string
}

// Archive moves the instants that Hudi's archiver would archive from the
// table's active timeline to its archived timeline (.hoodie/archived), as
// hoodie.keep.min.commits and hoodie.keep.max.commits say. It takes the
// table's writer lock.
//
// As Hudi's HoodieTimelineArchiver, it archives the oldest completed
// commits (commit, deltacommit, replacecommit) once there are more than
// MaxCommits, down to MinCommits, but never a commit at or after the
// oldest savepoint, at or after the latest completed commit before the
// oldest pending write (nor the pending write itself), at or after the
// earliest commit the latest clean retains, nor a replacecommit whose
// replaced files the cleaner has not removed (Hudi's
// ClusteringUtils.getOldestInstantToRetainForClustering). Beyond Hudi, it
// never archives a replacecommit, nor what follows it, while a base file
// of a file group it replaced is still in its partition folder: the view
// would take that file, older than the first active commit, for a live
// one, and readers would see its records twice. Completed cleans and
// completed rollbacks are archived apart, by the same bounds.
//
// Every file of an archived instant (requested, inflight, completed) is
// written to a new archive file, which appears whole, before any is
// deleted from the active timeline; then the pending files are deleted,
// then the completed ones in instant order, so that a crash at any point
// leaves the instants on one timeline or the other and never an orphaned
// inflight file that a later write would roll back. An instant a crashed
// run left on both timelines stays active until the bounds let it go, as
// any other (a savepoint taken on it since keeps it); a later run then
// removes it from the active timeline without writing it to the archive
// again, and finishes the crashed run's work as far as the bounds allow
// even when fewer than MaxCommits commits are active. What it removes is
// always the oldest of the active timeline.
func (w *Writer) Archive(ctx context.Context) (*ArchiveResult, error) {
	unlock, err := w.lockTable(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.archive(ctx)
}

// archiveAfterCommit archives when the settings ask for it after every
// commit. The commit stands whatever happens: a failure is a warning,
// and the next write's archival does what this one could not.
func (w *Writer) archiveAfterCommit(ctx context.Context, res *Result) {
	if !w.settings.Archive.Automatic || !w.settings.TableServices {
		return
	}
	if _, err := w.archive(ctx); err != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("commit %s is complete, but archiving the timeline failed (the next write archives): %w", res.Instant, err))
	}
}

// archive archives (see Archive); the caller holds the writer lock and
// has loaded w.cfg.
func (w *Writer) archive(ctx context.Context) (*ArchiveResult, error) {
	settings := w.settings.Archive.withDefaults()
	if err := settings.check(); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return nil, err
	}
	chosen, err := instantsToArchive(ctx, w.fsys, tl, settings, nil)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	var archived map[timeline.Instant]bool
	if len(chosen) == 0 {
		// Nothing is due, but an archival that died after writing its file
		// may have left what it archived on the active timeline too: finish
		// its work as far as the bounds allow now. Only the latest archive
		// file is read to tell (as cheap as an archival after a commit must
		// stay); what an earlier crashed run left goes with the next due
		// archival.
		leftover, err := activeInLastArchive(ctx, w.fsys, tl)
		if err != nil {
			return nil, err
		}
		if !leftover {
			return &ArchiveResult{}, nil
		}
		if archived, err = allArchived(ctx, w.fsys); err != nil {
			return nil, err
		}
		chosen, err = instantsToArchive(ctx, w.fsys, tl, settings, archived)
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
	}
	res := &ArchiveResult{Archived: chosen}
	if len(chosen) == 0 {
		return res, nil
	}
	if archived == nil {
		if archived, err = allArchived(ctx, w.fsys); err != nil {
			return nil, err
		}
	}
	files, err := w.instantFiles(ctx, chosen)
	if err != nil {
		return nil, err
	}
	entries := make([]archivetl.Entry, 0, len(files))
	loc := w.cfg.TimelineZone().Location(w.opts.Local)
	for _, f := range files {
		details, err := w.fsys.ReadFile(ctx, f.path)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", f.instant, err)
		}
		e, err := archivetl.NewEntry(f.instant, details)
		if err != nil {
			return nil, err
		}
		e.StateTransitionTime = timeline.FormatInstantTimeIn(f.modTime, loc)
		entries = append(entries, e)
	}
	// What a crashed archival wrote is not written twice.
	entries = slices.DeleteFunc(entries, func(e archivetl.Entry) bool { return archived[e.Instant] })
	if len(entries) > 0 {
		if res.File, err = archivetl.Append(ctx, w.fsys, entries, settings.Batch); err != nil {
			return nil, err
		}
	}
	// Hudi drops the markers a writer may have left of an archived
	// instant: nothing can roll it back any more.
	for _, in := range chosen {
		if err := w.fsys.RemoveAll(ctx, markerFolder(in.Time)); err != nil {
			return nil, fmt.Errorf("archive: remove the markers of %s: %w", in, err)
		}
	}
	// Pending files first, as Hudi's deleteArchivedInstants: a completed
	// file deleted first would leave an instant that looks pending.
	// Then the completed files in instant order, so that the active
	// timeline never has a hole.
	sort.SliceStable(files, func(i, j int) bool {
		a, b := files[i].instant, files[j].instant
		if pa, pb := a.State != timeline.StateCompleted, b.State != timeline.StateCompleted; pa != pb {
			return pa
		}
		return timeline.Less(a, b)
	})
	for _, f := range files {
		if err := w.fsys.Remove(ctx, f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("archive: remove %s from the active timeline: %w", f.path, err)
		}
	}
	return res, nil
}

// instantFile is one file of an instant on the active timeline.
type instantFile struct {
	instant timeline.Instant // its state is the file's
	path    string
	modTime time.Time
}

// instantFiles lists the files of the given instants, every state each
// has on the active timeline, in Hudi's order: cleans and rollbacks, then
// commits, each instant's files from requested to completed.
func (w *Writer) instantFiles(ctx context.Context, instants []timeline.Instant) ([]instantFile, error) {
	entries, err := w.fsys.ReadDir(ctx, storage.MetaFolder)
	if err != nil {
		return nil, fmt.Errorf("archive: list %s: %w", storage.MetaFolder, err)
	}
	type key struct {
		time   string
		action timeline.Action
	}
	byInstant := map[key][]instantFile{}
	for _, e := range entries {
		in, ok, err := timeline.ParseInstantFileName(e.Name)
		if err != nil || !ok || e.IsDir {
			continue
		}
		k := key{in.Time, timeline.CompletedAction(in.Action)}
		byInstant[k] = append(byInstant[k], instantFile{instant: in, path: path.Join(storage.MetaFolder, e.Name), modTime: e.ModTime})
	}
	var out []instantFile
	for _, service := range []bool{true, false} {
		for _, in := range instants {
			if isService := in.Action == timeline.ActionClean || in.Action == timeline.ActionRollback; isService != service {
				continue
			}
			group := byInstant[key{in.Time, timeline.CompletedAction(in.Action)}]
			sort.Slice(group, func(i, j int) bool { return group[i].instant.State < group[j].instant.State })
			out = append(out, group...)
		}
	}
	return out, nil
}

// activeInLastArchive reports whether the latest archive file holds an
// instant still completed on the active timeline: an archival died after
// it wrote the file and before it removed all it archived. It reads one
// archive file, as every archival does.
func activeInLastArchive(ctx context.Context, fsys storage.FS, tl *timeline.Timeline) (bool, error) {
	files, err := archivetl.ListFiles(ctx, fsys)
	if err != nil || len(files) == 0 {
		return false, err
	}
	last := path.Join(archivetl.Folder, files[len(files)-1].Name)
	data, err := fsys.ReadFile(ctx, last)
	if err != nil {
		return false, fmt.Errorf("archive: read %s: %w", last, err)
	}
	entries, _, err := archivetl.Decode(data)
	if err != nil {
		return false, fmt.Errorf("archive: %s: %w", last, err)
	}
	completed := tl.Completed()
	for _, e := range entries {
		if e.Instant.State == timeline.StateCompleted && completed.Contains(e.Instant.Time) {
			return true, nil
		}
	}
	return false, nil
}

// allArchived returns every instant, in each state, that the table's
// archive files hold.
func allArchived(ctx context.Context, fsys storage.FS) (map[timeline.Instant]bool, error) {
	arch, err := archivetl.Load(ctx, fsys)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	entries := arch.Entries()
	have := make(map[timeline.Instant]bool, len(entries))
	for _, e := range entries {
		have[e.Instant] = true
	}
	return have, nil
}

// instantsToArchive chooses the instants to archive (see Writer.Archive),
// in timeline order. With archived nil, it chooses what is due: the
// oldest of an action once there are more than s.MaxCommits of it, as
// far as the bounds allow. Otherwise it finishes a crashed archival: of
// the instants the bounds allow, whether due or not, it chooses the
// oldest of each action as long as archived holds them completed, so
// that what it removes from the active timeline is always its oldest.
func instantsToArchive(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, s ArchiveSettings, archived map[timeline.Instant]bool) ([]timeline.Instant, error) {
	var out []timeline.Instant
	due := func(n int) bool { return archived != nil && n > s.MinCommits || n > s.MaxCommits }
	// take appends the instants of allowed that go.
	take := func(allowed []timeline.Instant) {
		for _, in := range allowed {
			if archived != nil && !archived[in] {
				return
			}
			out = append(out, in)
		}
	}
	// Cleans and rollbacks, each action apart.
	for _, action := range []timeline.Action{timeline.ActionClean, timeline.ActionRollback} {
		done := tl.Completed().Filter(func(in timeline.Instant) bool { return in.Action == action }).Instants()
		if due(len(done)) {
			take(done[:len(done)-s.MinCommits])
		}
	}
	commits := tl.CompletedCommits().Instants()
	if !due(len(commits)) {
		sort.Slice(out, func(i, j int) bool { return timeline.Less(out[i], out[j]) })
		return out, nil
	}
	bound, err := commitRetainBound(ctx, tl)
	if err != nil {
		return nil, err
	}
	allowed := before(commits[:len(commits)-s.MinCommits], bound)
	// A replacecommit whose replaced files are still there stays, with
	// what follows it.
	if bound, err = replacedFilesBound(ctx, fsys, tl, allowed); err != nil {
		return nil, err
	}
	take(before(allowed, bound))
	sort.Slice(out, func(i, j int) bool { return timeline.Less(out[i], out[j]) })
	return out, nil
}

// before returns the instants of ins, in timeline order, whose time is
// before bound: all of them when bound is "".
func before(ins []timeline.Instant, bound string) []timeline.Instant {
	if bound == "" {
		return ins
	}
	n := 0
	for n < len(ins) && ins[n].Time < bound {
		n++
	}
	return ins[:n]
}

// replacedFilesBound returns the time of the first completed replacecommit
// of candidates (in timeline order) that a base file of a file group it
// replaced is still in its partition folder; "" when none. Archived, such
// a replacecommit would let readers take the replaced file groups, older
// than the active timeline, for live ones. Each partition is listed once.
func replacedFilesBound(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, candidates []timeline.Instant) (string, error) {
	listed := map[string]map[string]bool{} // partition -> file ids with a base file
	for _, in := range candidates {
		if in.Action != timeline.ActionReplaceCommit {
			continue
		}
		meta, err := tl.ReadReplaceCommitMetadata(ctx, in)
		if err != nil {
			return "", err
		}
		for part, ids := range meta.PartitionToReplaceFileIDs {
			have, ok := listed[part]
			if !ok {
				if have, err = baseFileIDs(ctx, fsys, part); err != nil {
					return "", err
				}
				listed[part] = have
			}
			for _, id := range ids {
				if have[id] {
					return in.Time, nil
				}
			}
		}
	}
	return "", nil
}

// baseFileIDs returns the file ids that have a base file in the partition
// folder; none when the folder is gone.
func baseFileIDs(ctx context.Context, fsys storage.FS, partition string) (map[string]bool, error) {
	dir := partition
	if dir == "" {
		dir = "."
	}
	entries, err := fsys.ReadDir(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list partition %q: %w", partition, err)
	}
	ids := map[string]bool{}
	for _, e := range entries {
		if name, err := basefile.ParseName(e.Name); err == nil && !e.IsDir {
			ids[name.FileID] = true
		}
	}
	return ids, nil
}

// commitRetainBound is the earliest instant time from which every commit
// stays on the active timeline; "" when nothing bounds archival.
func commitRetainBound(ctx context.Context, tl *timeline.Timeline) (string, error) {
	bound := ""
	keep := func(ts string) {
		if ts != "" && (bound == "" || ts < bound) {
			bound = ts
		}
	}
	completed := tl.CompletedCommits()
	// The oldest savepoint.
	if sp, ok := tl.Completed().Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionSavepoint }).First(); ok {
		keep(sp.Time)
	}
	// The latest completed commit before the oldest pending write, or
	// the pending write itself when no commit precedes it.
	pending, hasPending := tl.Pending().Filter(func(in timeline.Instant) bool {
		return timeline.CompletedAction(in.Action) == timeline.ActionCommit || timeline.CompletedAction(in.Action) == timeline.ActionDeltaCommit || in.Action == timeline.ActionReplaceCommit
	}).First()
	if hasPending {
		if before, ok := completed.Before(pending.Time).Last(); ok {
			keep(before.Time)
		} else {
			keep(pending.Time)
		}
	}
	// The earliest commit the latest completed clean retains: the next
	// clean reads the commits since then to find what to clean.
	if clean, ok := tl.Completed().Filter(isClean).Last(); ok {
		retained, err := cleanRetains(ctx, tl, clean)
		if err != nil {
			return "", err
		}
		keep(retained)
	}
	// Replacecommits whose replaced files may not be cleaned yet.
	replaceBound, err := replaceRetainBound(ctx, tl)
	if err != nil {
		return "", err
	}
	keep(replaceBound)
	return bound, nil
}

func isClean(in timeline.Instant) bool { return in.Action == timeline.ActionClean }

// replaceRetainBound is Hudi's ClusteringUtils
// .getOldestInstantToRetainForClustering: the first replacecommit at or
// after the earliest instant the latest clean (inflight or completed)
// retains, or after the clean itself when its policy retains by file
// versions, or the first replacecommit when no clean ran; moved back to
// the latest completed commit before the oldest inflight replacecommit.
func replaceRetainBound(ctx context.Context, tl *timeline.Timeline) (string, error) {
	replaces := tl.Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionReplaceCommit })
	if replaces.Len() == 0 {
		return "", nil
	}
	bound := ""
	clean, ok := tl.Filter(func(in timeline.Instant) bool { return isClean(in) && in.State != timeline.StateRequested }).Last()
	if ok {
		lower, err := cleanRetains(ctx, tl, clean)
		if err != nil {
			return "", err
		}
		if lower == "" {
			lower = clean.Time
		}
		if first, ok := replaces.Filter(func(in timeline.Instant) bool { return in.Time >= lower }).First(); ok {
			bound = first.Time
		}
	} else if first, ok := replaces.First(); ok {
		bound = first.Time
	}
	if inflight, ok := replaces.Filter(func(in timeline.Instant) bool { return in.State == timeline.StateInflight }).First(); ok {
		if before, ok := tl.CompletedCommits().Before(inflight.Time).Last(); ok && (bound == "" || before.Time <= bound) {
			bound = before.Time
		}
	}
	return bound, nil
}

// cleanRetains reads the earliest commit a clean retains: the
// earliestCommitToRetain of its HoodieCleanMetadata once completed, the
// earliestInstantToRetain of its HoodieCleanerPlan before; "" for a clean
// by file versions, which names none.
func cleanRetains(ctx context.Context, tl *timeline.Timeline, clean timeline.Instant) (string, error) {
	data, err := tl.ReadDetails(ctx, clean)
	if err != nil || len(data) == 0 {
		return "", err // an inflight clean of old Hudi versions is empty
	}
	objects, err := avrofile.Read(data)
	if err != nil {
		return "", fmt.Errorf("clean %s: %w", clean, err)
	}
	if len(objects) != 1 {
		return "", fmt.Errorf("clean %s: %d Avro objects, want 1", clean, len(objects))
	}
	m, _ := objects[0].(map[string]any)
	if clean.State == timeline.StateCompleted {
		ts, _ := m["earliestCommitToRetain"].(string)
		return ts, nil
	}
	// A plan names an instant: {timestamp, action, state}.
	instant, _ := m["earliestInstantToRetain"].(map[string]any)
	ts, _ := instant["timestamp"].(string)
	return ts, nil
}

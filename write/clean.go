package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// The cleaner policies of hoodie.cleaner.policy (Hudi's
// HoodieCleaningPolicy).
const (
	// CleanKeepLatestCommits keeps every file version that the last
	// CleanerSettings.CommitsRetained commits read, and the version before
	// them (Hudi's default).
	CleanKeepLatestCommits = "KEEP_LATEST_COMMITS"
	// CleanKeepLatestFileVersions keeps the newest
	// CleanerSettings.FileVersionsRetained versions of each file group.
	CleanKeepLatestFileVersions = "KEEP_LATEST_FILE_VERSIONS"
	// CleanKeepLatestByHours keeps every file version that the commits of
	// the last CleanerSettings.HoursRetained hours read.
	CleanKeepLatestByHours = "KEEP_LATEST_BY_HOURS"
)

// CleanerSettings say when the cleaner runs and what it keeps, as Hudi's
// HoodieCleanConfig.
type CleanerSettings struct {
	// Automatic runs the cleaner after each commit (hoodie.clean.automatic;
	// Settings.TableServices must be on too).
	Automatic bool
	// Policy is one of CleanKeepLatestCommits, CleanKeepLatestFileVersions
	// and CleanKeepLatestByHours.
	Policy string
	// CommitsRetained, FileVersionsRetained and HoursRetained are what the
	// policies keep.
	CommitsRetained, FileVersionsRetained, HoursRetained int
	// MaxCommits is how many commits since the last clean make the
	// cleaner plan a new clean (hoodie.clean.max.commits, with the trigger
	// strategy NUM_COMMITS).
	MaxCommits int
}

// CleanResult describes what a run of the cleaner did.
type CleanResult struct {
	// Instant is the clean instant the run planned and completed; "" when
	// there was nothing to clean.
	Instant string
	// Resumed are the clean instants that earlier runs left pending (a
	// crash) and this run completed first, as Hudi does.
	Resumed []string
	// Deleted counts the files deleted, resumed cleans included.
	Deleted int
}

// Clean runs the cleaner now: it completes the cleans earlier runs left
// pending, then plans and runs a new one if the trigger
// (hoodie.clean.max.commits) says so and the policy finds files to delete.
// It holds the table's writer lock.
func (w *Writer) Clean(ctx context.Context) (*CleanResult, error) {
	unlock, err := w.lockForService(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.clean(ctx)
}

// lockForService takes the writer lock, loads the table's configuration
// and checks the settings and that the table is writable, as a write does
// before it changes anything.
func (w *Writer) lockForService(ctx context.Context) (unlock func() error, err error) {
	unlock, err = w.lockTable(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = unlock()
		}
	}()
	if err := w.cfg.CheckWritable(); err != nil {
		return nil, &RefusedError{fmt.Errorf("table %s: %w", w.cfg.Name, err)}
	}
	if w.settings.Props != nil {
		scratch := DefaultSettings()
		scratch.Props = w.settings.Props
		if err := scratch.checkProps(); err != nil {
			return nil, err
		}
	}
	w.gen.SetLocation(w.location())
	return unlock, nil
}

// location is the zone of the table's instant times.
func (w *Writer) location() *time.Location {
	return w.cfg.TimelineZone().Location(w.opts.Local)
}

// cleanAfterCommit runs the automatic cleaner after a commit, as Hudi's
// postCommit does. The commit stands whatever the cleaner does: a failure
// is a warning, and the next run completes a clean it left pending.
func (w *Writer) cleanAfterCommit(ctx context.Context, res *Result) {
	if !w.settings.Cleaner.Automatic || !w.settings.TableServices {
		return
	}
	cr, err := w.clean(ctx)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("commit %s is complete, but the cleaner failed (the next clean completes it): %w", res.Instant, err))
		return
	}
	res.Clean = cr.Instant
}

// clean is Clean under the writer lock, with w.cfg loaded.
func (w *Writer) clean(ctx context.Context) (*CleanResult, error) {
	res := &CleanResult{}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return nil, err
	}
	if tl, err = w.finishPendingCleans(ctx, tl, res); err != nil {
		return nil, err
	}
	due, err := w.cleanDue(ctx, tl)
	if err != nil || !due {
		return res, err
	}
	plan, err := planClean(ctx, w.fsys, tl, w.cfg, w.settings.Cleaner, w.opts.Clock(), w.location())
	if err != nil {
		return nil, err
	}
	if plan.FileCount() == 0 && len(plan.PartitionsToDelete) == 0 {
		// A clean that deletes nothing is made only to move the earliest
		// commit to retain on: archival keeps every commit from the last
		// clean's, which Hudi's incremental cleaning reads.
		retained, err := lastCleanRetained(ctx, tl)
		if err != nil {
			return nil, err
		}
		if ecr := plan.EarliestInstantToRetain.Time; ecr == "" || ecr <= retained {
			return res, nil
		}
	}
	data, err := timeline.MarshalCleanerPlan(plan, basePathURI(w.fsys))
	if err != nil {
		return nil, err
	}
	requested, err := timeline.CreateRequested(ctx, w.fsys, w.gen, timeline.ActionClean, data)
	if err != nil {
		return nil, err
	}
	n, err := w.runClean(ctx, requested, plan, data)
	if err != nil {
		return nil, err
	}
	res.Instant = requested.Time
	res.Deleted += n
	return res, nil
}

// finishPendingCleans completes the cleans of tl that earlier runs left
// pending, recording them in res, and returns the timeline after them.
// The services that decide from the files on disk which files a table
// still needs (rollback, restore, savepoint) call it first: a pending
// plan was made before them, and run after them it would delete files
// they made needed again.
func (w *Writer) finishPendingCleans(ctx context.Context, tl *timeline.Timeline, res *CleanResult) (*timeline.Timeline, error) {
	pending := tl.Filter(func(in timeline.Instant) bool {
		return in.Action == timeline.ActionClean && in.State != timeline.StateCompleted
	})
	if pending.Len() == 0 {
		return tl, nil
	}
	for _, in := range pending.Instants() {
		done, n, err := w.resumeClean(ctx, tl, in)
		if err != nil {
			return nil, err
		}
		if done {
			res.Resumed = append(res.Resumed, in.Time)
			res.Deleted += n
		}
	}
	return timeline.Load(ctx, w.fsys)
}

// resumeClean completes a clean an earlier run left pending, re-running
// its plan as Hudi does; a clean whose requested file is empty (Hudi's
// isEmpty) is deleted instead, and done is false.
func (w *Writer) resumeClean(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (done bool, deleted int, err error) {
	requested := timeline.Instant{Time: in.Time, Action: in.Action, State: timeline.StateRequested}
	data, err := tl.ReadDetails(ctx, requested)
	if errors.Is(err, fs.ErrNotExist) && in.State == timeline.StateInflight {
		data, err = tl.ReadDetails(ctx, in) // Hudi copies the plan into the inflight file
	}
	if err != nil {
		return false, 0, fmt.Errorf("resume pending clean %s: %w", in.Time, err)
	}
	if len(data) == 0 {
		if err := timeline.DeletePending(ctx, w.fsys, in); err != nil {
			return false, 0, err
		}
		return false, 0, nil
	}
	plan, err := timeline.ParseCleanerPlan(data)
	if err != nil {
		return false, 0, fmt.Errorf("resume pending clean %s: %w", in.Time, err)
	}
	n, err := w.runClean(ctx, in, plan, data)
	if err != nil {
		return false, 0, fmt.Errorf("resume pending clean %s: %w", in.Time, err)
	}
	return true, n, nil
}

// runClean executes a clean instant's plan, as Hudi's CleanActionExecutor:
// the requested instant moves to inflight (its file holding the plan
// again), the files are deleted, then the partitions the plan empties
// (of a partitioned table), and the instant completes with
// HoodieCleanMetadata. A file already gone counts as a failed delete, as
// Hudi counts it; any other failure to delete stops the clean, which stays
// pending for the next run. The files are deleted concurrently
// (removeFiles). It returns how many files it deleted.
func (w *Writer) runClean(ctx context.Context, in timeline.Instant, plan *timeline.CleanerPlan, data []byte) (int, error) {
	start := w.opts.Clock()
	if in.State == timeline.StateRequested {
		var err error
		if in, err = timeline.TransitionToInflight(ctx, w.fsys, in, data); err != nil {
			return 0, err
		}
	}
	meta := &timeline.CleanMetadata{
		StartCleanTime:         in.Time,
		EarliestCommitToRetain: plan.EarliestInstantToRetain.Time,
		LastCompletedCommit:    plan.LastCompletedCommit,
		Partitions:             make(map[string]timeline.CleanPartitionMetadata, len(plan.FilesToDelete)),
		Extra:                  plan.Extra,
	}
	policy := w.settings.Cleaner.Policy
	removedPartitions := map[string]bool{}
	if len(w.cfg.PartitionFields) > 0 {
		for _, part := range plan.PartitionsToDelete {
			removedPartitions[part] = part != ""
		}
	}
	parts := sortedKeys(plan.FilesToDelete)
	var files []string
	for _, part := range parts {
		files = append(files, plan.FilesToDelete[part]...)
	}
	errs := removeFiles(ctx, w.fsys, files)
	for _, part := range parts {
		pm := timeline.CleanPartitionMetadata{Partition: part, Policy: policy, PartitionDeleted: removedPartitions[part]}
		for _, f := range plan.FilesToDelete[part] {
			name := path.Base(f)
			pm.DeletePatterns = append(pm.DeletePatterns, name)
			err := errs[0]
			errs = errs[1:]
			switch {
			case err == nil:
				pm.Deleted = append(pm.Deleted, name)
			case errors.Is(err, fs.ErrNotExist):
				pm.Failed = append(pm.Failed, name)
			default:
				return 0, fmt.Errorf("clean %s: delete %s: %w", in.Time, f, err)
			}
		}
		meta.TotalFilesDeleted += len(pm.Deleted)
		meta.Partitions[part] = pm
	}
	// As Hudi, the partitions go after their files, each whole, its
	// partition metadata file included; a missing one is no failure, so a
	// clean resumed after a crash finishes. Unlike Hudi, a partition that
	// holds a base file the plan did not name stays: a write filled it
	// again after a crash left this clean pending.
	for _, part := range sortedKeys(removedPartitions) {
		if !removedPartitions[part] {
			continue
		}
		held, err := baseFileIDs(ctx, w.fsys, part)
		if err != nil {
			return 0, fmt.Errorf("clean %s: %w", in.Time, err)
		}
		if len(held) > 0 {
			pm := meta.Partitions[part]
			pm.Partition, pm.Policy, pm.PartitionDeleted = part, policy, false
			meta.Partitions[part] = pm
			continue
		}
		if err := w.fsys.RemoveAll(ctx, part); err != nil {
			return 0, fmt.Errorf("clean %s: remove partition %s: %w", in.Time, part, err)
		}
	}
	meta.TimeTakenMillis = w.opts.Clock().Sub(start).Milliseconds()
	out, err := timeline.MarshalCleanMetadata(meta)
	if err != nil {
		return 0, err
	}
	if _, err := timeline.Complete(ctx, w.fsys, in, out); err != nil {
		return 0, err
	}
	return meta.TotalFilesDeleted, nil
}

// cleanDue reports whether enough commits completed since the last clean
// to plan a new one (Hudi's CleanPlanActionExecutor.needsCleaning with
// the trigger strategy NUM_COMMITS): the commits after the last clean's
// lastCompletedCommitTimestamp, or all commits before any clean.
func (w *Writer) cleanDue(ctx context.Context, tl *timeline.Timeline) (bool, error) {
	commits := tl.CompletedCommits()
	cleans := tl.Filter(func(in timeline.Instant) bool {
		return in.Action == timeline.ActionClean && in.State == timeline.StateCompleted
	})
	if last, ok := cleans.Last(); ok {
		data, err := tl.ReadDetails(ctx, last)
		if err != nil {
			return false, err
		}
		if len(data) > 0 {
			meta, err := timeline.ParseCleanMetadata(data)
			if err != nil {
				return false, fmt.Errorf("instant %s: %w", last, err)
			}
			commits = commits.After(meta.LastCompletedCommit)
		}
	}
	return commits.Len() >= w.settings.Cleaner.MaxCommits, nil
}

// earliestCommitToRetain is Hudi's CleanerUtils.getEarliestCommitToRetain:
// for KEEP_LATEST_COMMITS the oldest of the last CommitsRetained completed
// commits, but never later than the oldest pending write; for
// KEEP_LATEST_BY_HOURS the oldest completed commit of the last
// HoursRetained hours (now in the table's zone loc). ok is false when
// there is none, and for KEEP_LATEST_FILE_VERSIONS.
func earliestCommitToRetain(tl *timeline.Timeline, s CleanerSettings, now time.Time, loc *time.Location) (timeline.Instant, bool) {
	completed := tl.CompletedCommits().Instants()
	switch s.Policy {
	case CleanKeepLatestCommits:
		if s.CommitsRetained == 0 || len(completed) <= s.CommitsRetained {
			// Hudi's nthInstant(count) is empty: retaining 0 never cleans.
			return timeline.Instant{}, false
		}
		nth := completed[len(completed)-s.CommitsRetained]
		pending, hasPending := tl.Commits().Pending().First()
		if !hasPending || nth.Time <= pending.Time {
			return nth, true
		}
		// The newest completed commit before the oldest pending write.
		var before timeline.Instant
		found := false
		for _, in := range completed {
			if in.Time < pending.Time {
				before, found = in, true
			}
		}
		return before, found
	case CleanKeepLatestByHours:
		cutoff := timeline.FormatInstantTimeIn(now.Add(-time.Duration(s.HoursRetained)*time.Hour), loc)
		for _, in := range completed {
			if in.Time >= cutoff {
				return in, true
			}
		}
	}
	return timeline.Instant{}, false
}

// planClean plans a clean as Hudi's CleanPlanner does for a copy-on-write
// table, listing every partition. KEEP_LATEST_COMMITS and
// KEEP_LATEST_BY_HOURS delete, of each live file group, the versions older
// than the earliest commit to retain except the newest of those (a query
// of a retained instant may still read it) and the group's latest; and
// every version of the groups that replacecommits before that commit
// replaced. KEEP_LATEST_FILE_VERSIONS keeps the newest FileVersionsRetained
// versions of each live group and deletes every replaced group. A file a
// savepoint keeps is never deleted.
func planClean(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, cfg *config.Table, s CleanerSettings, now time.Time, loc *time.Location) (*timeline.CleanerPlan, error) {
	plan := &timeline.CleanerPlan{Policy: s.Policy, FilesToDelete: map[string][]string{}, PartitionsToDelete: []string{}, Extra: map[string]string{}}
	if last, ok := tl.CompletedCommits().Last(); ok {
		plan.LastCompletedCommit = last.Time
	}
	ecr, hasECR := earliestCommitToRetain(tl, s, now, loc)
	if s.Policy != CleanKeepLatestFileVersions && !hasECR {
		return plan, nil // not enough commits yet
	}
	if hasECR {
		plan.EarliestInstantToRetain = ecr
	}
	savepointed, savepoints, err := savepointedFiles(ctx, tl)
	if err != nil {
		return nil, err
	}
	if len(savepoints) > 0 && len(cfg.PartitionFields) > 0 {
		plan.Extra[timeline.SavepointedTimestampsKey] = strings.Join(savepoints, ",")
	}
	view, err := read.LoadView(ctx, fsys, tl, "")
	if err != nil {
		return nil, err
	}
	partitions, err := read.ListPartitions(ctx, fsys)
	if err != nil {
		return nil, err
	}
	for _, part := range partitions {
		plan.FilesToDelete[part] = []string{}
	}
	del := func(sl read.FileSlice) {
		if !savepointed[path.Base(sl.Path)] {
			plan.FilesToDelete[sl.Partition] = append(plan.FilesToDelete[sl.Partition], sl.Path)
		}
	}
	for _, g := range view.ReplacedFileGroups() {
		if s.Policy == CleanKeepLatestFileVersions || g.ReplacedBy < ecr.Time {
			for _, sl := range g.Slices {
				del(sl)
			}
		}
	}
	for _, g := range view.FileGroups() {
		if s.Policy == CleanKeepLatestFileVersions {
			for _, sl := range g.Slices[:max(len(g.Slices)-s.FileVersionsRetained, 0)] {
				del(sl)
			}
			continue
		}
		latest := g.Latest().Instant
		lastBeforeECR := ""
		for _, sl := range g.Slices {
			if sl.Instant < ecr.Time {
				lastBeforeECR = sl.Instant
			}
		}
		for _, sl := range g.Slices {
			if sl.Instant != latest && sl.Instant != lastBeforeECR && sl.Instant < ecr.Time {
				del(sl)
			}
		}
	}
	plan.PartitionsToDelete, err = emptiedPartitions(ctx, fsys, view, partitions, savepointed, s.Policy != CleanKeepLatestFileVersions, ecr.Time)
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// emptiedPartitions are the partitions a clean removes whole, as Hudi's
// CleanPlanner marks them: no live file group, no file of a pending write
// (a file of no replaced group), and, when retainCommits, no group
// replaced at or after the earliest commit to retain ecr, a retained
// instant still reading it. Unlike Hudi, a partition holding a file a
// savepoint keeps stays, so that the savepoint can still be restored.
func emptiedPartitions(ctx context.Context, fsys storage.FS, view *read.View, partitions []string, savepointed map[string]bool, retainCommits bool, ecr string) ([]string, error) {
	keep := map[string]bool{}
	for _, g := range view.FileGroups() {
		keep[g.Partition] = true
	}
	replaced := map[string]bool{} // partition + "/" + file ID
	for _, g := range view.ReplacedFileGroups() {
		replaced[path.Join(g.Partition, g.FileID)] = true
		if retainCommits && g.ReplacedBy >= ecr {
			keep[g.Partition] = true
		}
		for _, sl := range g.Slices {
			if savepointed[path.Base(sl.Path)] {
				keep[g.Partition] = true
			}
		}
	}
	out := []string{}
	for _, part := range partitions {
		if keep[part] {
			continue
		}
		entries, err := fsys.ReadDir(ctx, part)
		if err != nil {
			return nil, fmt.Errorf("plan clean: list partition %q: %w", part, err)
		}
		pending := false
		for _, e := range entries {
			if name, err := basefile.ParseName(e.Name); err == nil && !replaced[path.Join(part, name.FileID)] {
				pending = true
				break
			}
		}
		if !pending {
			out = append(out, part)
		}
	}
	return out, nil
}

// savepointedFiles returns the names of the base files the completed
// savepoints keep, and the savepoints' instant times.
func savepointedFiles(ctx context.Context, tl *timeline.Timeline) (map[string]bool, []string, error) {
	files := map[string]bool{}
	var times []string
	for _, in := range tl.Savepoints().Instants() {
		meta, err := tl.ReadSavepointMetadata(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		for _, name := range meta.FileNames() {
			files[name] = true
		}
		times = append(times, in.Time)
	}
	return files, times, nil
}

// basePathURI is the table's base path as Hudi names it in a cleaner plan
// ("file:/data/trips"), for a table on the local file system; "" (paths
// relative to the base path) otherwise.
func basePathURI(fsys storage.FS) string {
	if local, ok := fsys.(interface{ Root() string }); ok {
		return "file:" + filepath.ToSlash(local.Root())
	}
	return ""
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

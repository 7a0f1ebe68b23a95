package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/timeline"
	archivetl "github.com/hoodie-dev/hoodie/timeline/archive"
)

// RollbackResult describes a rollback.
type RollbackResult struct {
	// Instant is the time of the rollback instant.
	Instant string
	// RolledBack is the write undone.
	RolledBack timeline.Instant
	// Deleted counts the data files deleted.
	Deleted int
	// Warnings report housekeeping after the rollback completed that
	// failed, such as the record index update; the next write repairs it.
	Warnings []error
}

// Rollback undoes the table's latest write, the completed commit or
// replacecommit at instant time instant, as Hudi's rollback does: it
// creates <r>.rollback.requested with the plan (a HoodieRollbackPlan naming
// the write's files), then <r>.rollback.inflight; it deletes the write's
// completed file, so that readers no longer see it, then its data files,
// then its inflight and requested files; and it completes <r>.rollback
// with the HoodieRollbackMetadata. The record index is brought back to the
// table afterwards.
//
// A rollback that dies half way is completed by the next Rollback,
// Restore or Write, from its plan: at every step readers see the table
// with the write or without it.
//
// A write that is not the latest, that a savepoint keeps, or whose
// previous file versions were cleaned since, is refused (a *RefusedError)
// with nothing changed; an instant that is not on the timeline, or is not
// a completed write, is an error. Asked again once done, Rollback returns
// the rollback that undid the write.
func (w *Writer) Rollback(ctx context.Context, instant string) (*RollbackResult, error) {
	var res *RollbackResult
	err := w.asService(ctx, func(tl *timeline.Timeline) error {
		target, err := latestWrite(tl, instant)
		if err != nil {
			// A rollback of instant that stopped half way, which recover
			// then completed: asked again, it is done.
			if done, ok := completedRollbackOf(ctx, tl, instant); ok {
				res = done
				return nil
			}
			if rerr := refuseArchived(ctx, w.fsys, tl, instant); rerr != nil {
				return rerr
			}
			return err
		}
		if err := refuseSavepointed(tl, target, "roll it back"); err != nil {
			return err
		}
		if err := refuseCleanedPast(ctx, w.fsys, tl, target); err != nil {
			return err
		}
		rb, err := w.requestRollback(ctx, target)
		if err != nil {
			return err
		}
		meta, err := w.runRollback(ctx, rb, true)
		if err != nil {
			return err
		}
		res = &RollbackResult{Instant: rb.Time, RolledBack: target, Deleted: int(meta.TotalFilesDeleted)}
		res.Warnings = w.syncIndexAfter(ctx)
		return nil
	})
	return res, err
}

// completedRollbackOf returns the latest completed rollback of instant on
// tl, if the instant is no longer there.
func completedRollbackOf(ctx context.Context, tl *timeline.Timeline, instant string) (*RollbackResult, bool) {
	if tl.Contains(instant) {
		return nil, false
	}
	rollbacks := tl.Completed().Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionRollback }).Instants()
	for _, rb := range slices.Backward(rollbacks) {
		data, err := tl.ReadDetails(ctx, rb)
		if err != nil {
			continue
		}
		meta, err := timeline.ParseRollbackMetadata(data)
		if err != nil {
			continue
		}
		for _, in := range meta.InstantsRollback {
			if in.CommitTime == instant {
				rolledBack := timeline.Instant{Time: in.CommitTime, Action: timeline.Action(in.Action), State: timeline.StateCompleted}
				return &RollbackResult{Instant: rb.Time, RolledBack: rolledBack, Deleted: int(meta.TotalFilesDeleted)}, true
			}
		}
	}
	return nil, false
}

// asService runs fn as a table service: holding the writer lock, on a
// table Hoodie writes, once the services and writes that failed before
// are completed or rolled back (see recover), Spark's metadata table is
// dropped (see dropMetadataTable) and pending cleans are completed (see
// finishPendingCleans), with the timeline then.
func (w *Writer) asService(ctx context.Context, fn func(tl *timeline.Timeline) error) error {
	unlock, err := w.lockTable(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if err := w.cfg.CheckWritable(); err != nil {
		return &RefusedError{fmt.Errorf("table %s: %w", w.cfg.Name, err)}
	}
	w.gen.SetLocation(w.cfg.TimelineZone().Location(w.opts.Local))
	if err := w.recover(ctx); err != nil {
		return err
	}
	// Spark's metadata table would keep listing what the service removes,
	// as it would miss a Hoodie write: it goes first, as before a write.
	if w.cfg, err = dropMetadataTable(ctx, w.fsys, w.cfg, w.opts.Clock()); err != nil {
		return err
	}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return err
	}
	if tl, err = w.finishPendingCleans(ctx, tl, &CleanResult{}); err != nil {
		return err
	}
	return fn(tl)
}

// refuseArchived refuses, with a *RefusedError, to roll back instant when
// it is a write the archived timeline holds and tl, the active one, does
// not: it is not the latest. It is nil for any other instant.
func refuseArchived(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, instant string) error {
	if tl.Contains(instant) {
		return nil
	}
	arch, err := archivetl.Load(ctx, fsys)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(arch.Instants(), func(in timeline.Instant) bool { return in.Time == instant }) {
		return nil
	}
	latest := "none"
	if last, ok := tl.CompletedCommits().Last(); ok {
		latest = last.Time
	}
	return &RefusedError{fmt.Errorf("write %s is archived, not the table's latest write (%s is); only the latest write is rolled back (restore to a savepoint to go further back)", instant, latest)}
}

// latestWrite returns the completed write at instant, if it is the latest
// write on tl: no write, pending or completed, comes after it.
func latestWrite(tl *timeline.Timeline, instant string) (timeline.Instant, error) {
	writes := tl.Commits().Instants()
	i := slices.IndexFunc(writes, func(in timeline.Instant) bool { return in.Time == instant })
	if i < 0 {
		if tl.Contains(instant) {
			in := tl.Filter(func(in timeline.Instant) bool { return in.Time == instant }).Instants()[0]
			return timeline.Instant{}, fmt.Errorf("instant %s is a %s, not a write (commit or replacecommit): only writes are rolled back", instant, in.Action)
		}
		return timeline.Instant{}, fmt.Errorf("instant %s is not on the table's timeline", instant)
	}
	target := writes[i]
	if target.State != timeline.StateCompleted {
		return timeline.Instant{}, fmt.Errorf("write %s is %s, not completed: a failed write is rolled back by the next write", instant, target.State)
	}
	if last := writes[len(writes)-1]; last.Time != instant {
		return timeline.Instant{}, &RefusedError{fmt.Errorf("write %s is not the table's latest write: %s (%s, %s) is; only the latest write is rolled back (restore to a savepoint to go further back)",
			instant, last.Time, last.Action, last.State)}
	}
	return target, nil
}

// refuseSavepointed refuses, naming what, to undo target when a savepoint
// keeps it, as Hudi refuses to roll back a savepointed commit.
func refuseSavepointed(tl *timeline.Timeline, target timeline.Instant, what string) error {
	for _, in := range tl.Completed().Instants() {
		if in.Action == timeline.ActionSavepoint && in.Time == target.Time {
			return &RefusedError{fmt.Errorf("write %s has a savepoint: delete the savepoint first to %s", target.Time, what)}
		}
	}
	return nil
}

// refuseLastActive refuses to roll back target, the only completed write
// of the active timeline, when the archived timeline holds writes before
// it.
func refuseLastActive(ctx context.Context, fsys storage.FS, target timeline.Instant) error {
	arch, err := archivetl.Load(ctx, fsys)
	if err != nil {
		return err
	}
	latest := ""
	for _, in := range arch.Instants() {
		switch in.Action {
		case timeline.ActionCommit, timeline.ActionDeltaCommit, timeline.ActionReplaceCommit:
			if in.State == timeline.StateCompleted && in.Time < target.Time {
				latest = max(latest, in.Time)
			}
		}
	}
	if latest == "" {
		return nil
	}
	return &RefusedError{fmt.Errorf("write %s cannot be rolled back: it is the only write left on the active timeline, and the writes before it (%s and older) are archived; without it the table would read empty", target.Time, latest)}
}

// refuseCleanedPast refuses to roll back target, the latest write, when the
// table without it would lack files: the versions of the file groups it
// rewrote, or the file groups it replaced, that were cleaned since. Hudi
// would roll it back, and leave readers files that are gone.
func refuseCleanedPast(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, target timeline.Instant) error {
	meta, err := tl.ReadReplaceCommitMetadata(ctx, target)
	if err != nil {
		return err
	}
	var asOf string
	if prev, ok := tl.CompletedCommits().Before(target.Time).Last(); ok {
		asOf = prev.Time
	}
	// An empty asOf would be the latest view: with no write before
	// target on the active timeline, there is nothing to bring back,
	// unless the writes before it were archived. Readers find the files
	// of archived writes from the first active commit on: without one,
	// the table would read empty, and come back whole, keys twice, with
	// the next write.
	if asOf == "" {
		return refuseLastActive(ctx, fsys, target)
	}
	gone := func(what string) error {
		return &RefusedError{fmt.Errorf("write %s cannot be rolled back: %s, which the table needs without it, was cleaned since", target.Time, what)}
	}
	view, err := read.LoadView(ctx, fsys, tl, asOf)
	var snapshotGone *read.GoneError
	if errors.As(err, &snapshotGone) {
		return gone(fmt.Sprintf("base file %s of commit %s", snapshotGone.Missing, snapshotGone.WrittenBy))
	}
	if err != nil {
		return err
	}
	for _, ws := range meta.WriteStats() {
		if ws.PrevCommit == "" || ws.PrevCommit == timeline.NullCommit {
			continue
		}
		if g, ok := view.FileGroup(ws.PartitionPath, ws.FileID); !ok || g.Latest().Instant != ws.PrevCommit {
			return gone(fmt.Sprintf("the version of file group %s written by %s", groupKey(ws.PartitionPath, ws.FileID), ws.PrevCommit))
		}
	}
	for part, ids := range meta.PartitionToReplaceFileIDs {
		for _, id := range ids {
			if _, ok := view.FileGroup(part, id); !ok {
				return gone("file group " + groupKey(part, id) + ", which it replaced")
			}
		}
	}
	return nil
}

// requestRollback plans the rollback of target and creates its requested
// instant holding the plan.
func (w *Writer) requestRollback(ctx context.Context, target timeline.Instant) (timeline.Instant, error) {
	files, err := writtenFiles(ctx, w.fsys, target)
	if err != nil {
		return timeline.Instant{}, fmt.Errorf("plan the rollback of %s: %w", target, err)
	}
	requests := make([]timeline.RollbackRequest, 0, len(files))
	for _, f := range files {
		requests = append(requests, rollbackRequest(w.fsys, f))
	}
	data, err := timeline.NewRollbackPlan(target, requests).MarshalAvro()
	if err != nil {
		return timeline.Instant{}, err
	}
	return timeline.CreateRequested(ctx, w.fsys, w.gen, timeline.ActionRollback, data)
}

// writtenFiles lists the data files target wrote, relative to the base
// path: a completed write's are those its commit metadata names (with any
// its markers name still), a pending write's those its markers name or,
// without markers, the base files carrying its instant time.
func writtenFiles(ctx context.Context, fsys storage.FS, target timeline.Instant) ([]string, error) {
	if target.State != timeline.StateCompleted {
		return pendingFiles(ctx, fsys, target.Time)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		return nil, err
	}
	meta, err := tl.ReadCommitMetadata(ctx, target)
	if err != nil {
		return nil, err
	}
	files, err := markedFiles(ctx, fsys, target.Time)
	if err != nil {
		return nil, err
	}
	for _, ws := range meta.WriteStats() {
		if ws.Path != "" {
			files = append(files, ws.Path)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// rollbackRequest is the request deleting the data file rel, as Hudi's
// marker-based rollback makes it: one per file, naming its file group and
// the instant of its base file, the file given by its full path.
func rollbackRequest(fsys storage.FS, rel string) timeline.RollbackRequest {
	req := timeline.RollbackRequest{
		PartitionPath:        partitionOf(rel),
		FilesToBeDeleted:     []string{fullPath(fsys, rel)},
		LogBlocksToBeDeleted: &map[string]int64{},
	}
	if name, err := basefile.ParseName(path.Base(rel)); err == nil {
		req.FileID, req.LatestBaseInstant = &name.FileID, &name.InstantTime
	}
	return req
}

// partitionOf is the partition path of a data file's path relative to the
// base path: "" for a file of a non-partitioned table.
func partitionOf(rel string) string {
	if dir := path.Dir(rel); dir != "." {
		return dir
	}
	return ""
}

// fullPath is the path of rel as Hudi writes paths in its plans: a URI,
// file:/base/path/rel, on a local table; rel itself elsewhere.
func fullPath(fsys storage.FS, rel string) string {
	if local, ok := fsys.(interface{ Root() string }); ok {
		return "file:" + path.Join(local.Root(), rel)
	}
	return rel
}

// planFile is the path, relative to the base path, of a file of a rollback
// request in partition: Hudi's plans give full paths (of the base path the
// writer saw), and the file is the one of that name in the partition.
func planFile(partition, file string) string {
	return path.Join(partition, path.Base(file))
}

// runRollback carries the rollback rb, a pending rollback instant whose
// plan is in its requested file, to its end, as Hudi's
// CopyOnWriteRollbackActionExecutor does: it moves rb to inflight, deletes
// the completed file of the instant to roll back (so that no reader sees
// it from then on), the files the plan names, then the instant's inflight
// and requested files and its heartbeat; and, when publish is true,
// completes rb with the metadata it returns (a restore publishes its own).
// The instant's markers go last.
//
// Every step can be done again: a rollback that died half way is finished
// by running it again from its plan.
func (w *Writer) runRollback(ctx context.Context, rb timeline.Instant, publish bool) (*timeline.RollbackMetadata, error) {
	start := w.opts.Clock()
	plan, err := readRollbackPlan(ctx, w.fsys, rb)
	if err != nil {
		return nil, err
	}
	target := timeline.Instant{Time: plan.InstantToRollback.CommitTime, Action: timeline.Action(plan.InstantToRollback.Action), State: timeline.StateInflight}
	if rb.State == timeline.StateRequested {
		if rb, err = timeline.TransitionToInflight(ctx, w.fsys, rb, nil); err != nil {
			return nil, fmt.Errorf("roll back %s: %w", target.Time, err)
		}
	}
	if err := timeline.RevertToInflight(ctx, w.fsys, target); err != nil {
		return nil, fmt.Errorf("roll back %s: %w", target.Time, err)
	}
	deleted := map[string][]string{}
	var removed []string
	for _, req := range plan.Requests() {
		for _, f := range req.FilesToBeDeleted {
			deleted[req.PartitionPath] = append(deleted[req.PartitionPath], f)
			removed = append(removed, planFile(req.PartitionPath, f))
		}
	}
	for i, err := range removeFiles(ctx, w.fsys, removed) {
		// A file already gone was deleted by an earlier attempt, and
		// counts as deleted, as in Hudi.
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("roll back %s: remove %s: %w", target.Time, removed[i], err)
		}
	}
	if err := removeCreatedPartitions(ctx, w.fsys, target.Time, removed); err != nil {
		return nil, fmt.Errorf("roll back %s: %w", target.Time, err)
	}
	if err := timeline.DeletePending(ctx, w.fsys, target); err != nil {
		return nil, fmt.Errorf("roll back %s: %w", target.Time, err)
	}
	if err := w.fsys.RemoveAll(ctx, heartbeatPath(target.Time)); err != nil {
		return nil, fmt.Errorf("roll back %s: remove its heartbeat: %w", target.Time, err)
	}
	meta := timeline.NewRollbackMetadata(rb.Time, w.opts.Clock().Sub(start).Milliseconds(), []timeline.Instant{target}, deleted)
	if publish {
		data, err := meta.MarshalAvro()
		if err != nil {
			return nil, err
		}
		if _, err := timeline.Complete(ctx, w.fsys, rb, data); err != nil {
			return nil, fmt.Errorf("complete rollback %s of %s: %w", rb.Time, target.Time, err)
		}
	}
	if err := w.fsys.RemoveAll(ctx, markerFolder(target.Time)); err != nil {
		return nil, fmt.Errorf("roll back %s: remove its markers: %w", target.Time, err)
	}
	return meta, nil
}

// readRollbackPlan reads the plan of the rollback rb from its requested
// file.
func readRollbackPlan(ctx context.Context, fsys storage.FS, rb timeline.Instant) (*timeline.RollbackPlan, error) {
	p, err := requestedOf(rb).Path()
	if err != nil {
		return nil, err
	}
	data, err := fsys.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read the plan of rollback %s: %w", rb.Time, err)
	}
	plan, err := timeline.ParseRollbackPlan(data)
	if err != nil {
		return nil, fmt.Errorf("rollback plan %s: %w", p, err)
	}
	if plan.InstantToRollback == nil || plan.InstantToRollback.CommitTime == "" {
		return nil, fmt.Errorf("rollback plan %s names no instant to roll back", p)
	}
	return plan, nil
}

// requestedOf is the requested state of in, whose file holds the plan of
// a rollback or restore.
func requestedOf(in timeline.Instant) timeline.Instant {
	return timeline.Instant{Time: in.Time, Action: in.Action, State: timeline.StateRequested}
}

// syncIndexAfter brings the record index to the table's latest view after
// a rollback or restore took commits away: their watermark gone from the
// timeline, the index rebuilds from the latest snapshot (see syncIndex),
// as the next write would. A failure is returned as a warning: the
// rollback stands, and the next write repairs the index.
func (w *Writer) syncIndexAfter(ctx context.Context) []error {
	if w.opts.IndexDir == "" {
		return nil
	}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return []error{fmt.Errorf("update the record index: %w", err)}
	}
	view, err := read.LoadView(ctx, w.fsys, tl, "")
	if err != nil {
		return []error{fmt.Errorf("update the record index: %w", err)}
	}
	idx, err := w.openIndex(ctx, tl, view)
	if err != nil {
		return []error{fmt.Errorf("update the record index: %w", err)}
	}
	if err := idx.Close(); err != nil {
		return []error{fmt.Errorf("update the record index: %w", err)}
	}
	return nil
}

// finishPendingRollbacks completes the rollbacks and the restore of tl
// that died half way, from their plans, oldest first, as Hudi's writers
// do: a requested rollback is a promise to roll its instant back. The
// pending rollbacks a completed restore left behind (its own, which a
// restore never completes) are deleted instead, as the restore would have.
// It reports whether it changed the timeline.
func (w *Writer) finishPendingRollbacks(ctx context.Context, tl *timeline.Timeline) (bool, error) {
	pending := tl.Pending().Filter(func(in timeline.Instant) bool {
		return in.Action == timeline.ActionRollback || in.Action == timeline.ActionRestore
	})
	if pending.Len() == 0 {
		return false, nil
	}
	for _, in := range pending.Instants() {
		if in.Action == timeline.ActionRestore {
			if _, err := w.runRestore(ctx, in); err != nil {
				return true, fmt.Errorf("complete the restore %s that stopped half way: %w", in.Time, err)
			}
		}
	}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return true, err
	}
	leftover, err := w.restoreLeftovers(ctx, tl)
	if err != nil {
		return true, err
	}
	for _, in := range tl.Pending().Instants() {
		if in.Action != timeline.ActionRollback {
			continue
		}
		if leftover[in.Time] {
			if err := timeline.DeletePending(ctx, w.fsys, in); err != nil {
				return true, err
			}
			continue
		}
		if _, err := w.runRollback(ctx, in, true); err != nil {
			return true, fmt.Errorf("complete the rollback %s that stopped half way: %w", in.Time, err)
		}
	}
	return true, nil
}

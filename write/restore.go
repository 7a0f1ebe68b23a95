package write

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/timeline"
)

// RestoreResult describes a restore.
type RestoreResult struct {
	// Instant is the time of the restore instant.
	Instant string
	// Savepoint is the savepoint the table was taken back to.
	Savepoint string
	// RolledBack are the writes undone, in the order they were.
	RolledBack []timeline.Instant
	// Warnings report housekeeping after the restore completed that
	// failed, such as the record index update; the next write repairs it.
	Warnings []error
}

// Restore takes the table back to the savepoint at instant time savepoint,
// as Hudi's restore does: it creates <t>.restore.requested with the plan (a
// HoodieRestorePlan listing every write after the savepoint, pending
// clusterings first, then the others newest first), then
// <t>.restore.inflight; it rolls back each write in turn, each with a
// rollback instant of its own that is never completed; it completes
// <t>.restore with the HoodieRestoreMetadata (every rollback's metadata),
// and then deletes those rollback instants. The record index is brought
// back to the table afterwards.
//
// A restore that dies half way is completed by the next Restore, Rollback
// or Write, from its plan: each write goes at once or not at all, so
// readers see the table as of one of its writes at every step.
//
// An instant that is not a completed savepoint, or whose write is gone,
// and a restore that would roll back a write another savepoint keeps, are
// refused (a *RefusedError) with nothing changed.
func (w *Writer) Restore(ctx context.Context, savepoint string) (*RestoreResult, error) {
	var res *RestoreResult
	err := w.asService(ctx, func(tl *timeline.Timeline) error {
		targets, err := restoreTargets(tl, savepoint)
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			// A restore to savepoint that stopped half way, which recover
			// then completed: asked again, it is done.
			if done, err := completedRestoreTo(ctx, tl, savepoint); done != nil || err != nil {
				res = done
				return err
			}
		}
		data, err := timeline.NewRestorePlan(savepoint, targets).MarshalAvro()
		if err != nil {
			return err
		}
		requested, err := timeline.CreateRequested(ctx, w.fsys, w.gen, timeline.ActionRestore, data)
		if err != nil {
			return err
		}
		rolledBack, err := w.runRestore(ctx, requested)
		if err != nil {
			return err
		}
		res = &RestoreResult{Instant: requested.Time, Savepoint: savepoint, RolledBack: rolledBack}
		res.Warnings = w.syncIndexAfter(ctx)
		return nil
	})
	return res, err
}

// completedRestoreTo returns the latest completed restore of tl if it
// took the table to savepoint; nil if it did not, or there is none.
func completedRestoreTo(ctx context.Context, tl *timeline.Timeline, savepoint string) (*RestoreResult, error) {
	last, ok := tl.Completed().Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionRestore }).Last()
	if !ok || last.Time < savepoint {
		return nil, nil
	}
	planData, err := tl.ReadDetails(ctx, requestedOf(last))
	if err != nil {
		return nil, err
	}
	plan, err := timeline.ParseRestorePlan(planData)
	if err != nil || plan.Savepoint() != savepoint {
		return nil, err
	}
	data, err := tl.ReadDetails(ctx, last)
	if err != nil {
		return nil, err
	}
	meta, err := timeline.ParseRestoreMetadata(data)
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{Instant: last.Time, Savepoint: savepoint}
	for _, in := range meta.RestoreInstantInfo {
		res.RolledBack = append(res.RolledBack, timeline.Instant{Time: in.CommitTime, Action: timeline.Action(in.Action), State: timeline.StateCompleted})
	}
	return res, nil
}

// restoreTargets returns the writes a restore to savepoint rolls back, in
// Hudi's order: the pending replacecommits (clusterings) after it first,
// then every other write after it, newest first. It refuses an instant
// that is not a completed savepoint of a write still on tl, and a restore
// past another savepoint.
func restoreTargets(tl *timeline.Timeline, savepoint string) ([]timeline.Instant, error) {
	var savepoints []string
	for _, in := range tl.Completed().Instants() {
		if in.Action == timeline.ActionSavepoint {
			savepoints = append(savepoints, in.Time)
		}
	}
	if !slices.Contains(savepoints, savepoint) {
		have := "it has none"
		if len(savepoints) > 0 {
			have = "its savepoints are " + strings.Join(savepoints, ", ")
		}
		return nil, &RefusedError{fmt.Errorf("instant %s is not a savepoint of the table (%s): a restore goes back to a savepoint", savepoint, have)}
	}
	if !tl.CompletedCommits().Contains(savepoint) {
		return nil, &RefusedError{fmt.Errorf("savepoint %s: its write is no longer on the timeline, so the table cannot be restored to it", savepoint)}
	}
	later := tl.Commits().After(savepoint).Instants()
	slices.Reverse(later)
	var targets []timeline.Instant
	for _, pass := range []func(timeline.Instant) bool{
		func(in timeline.Instant) bool {
			return in.Action == timeline.ActionReplaceCommit && in.State != timeline.StateCompleted
		},
		func(in timeline.Instant) bool {
			return in.Action != timeline.ActionReplaceCommit || in.State == timeline.StateCompleted
		},
	} {
		for _, in := range later {
			if pass(in) {
				targets = append(targets, in)
			}
		}
	}
	for _, in := range targets {
		if err := refuseSavepointed(tl, in, "restore to "+savepoint); err != nil {
			return nil, err
		}
	}
	return targets, nil
}

// runRestore carries the restore rs, a pending restore instant whose plan
// is in its requested file, to its end, and returns the writes it rolled
// back. A write the plan names that is already gone was rolled back by an
// earlier attempt; its pending rollback, if any, is finished for its
// metadata.
func (w *Writer) runRestore(ctx context.Context, rs timeline.Instant) ([]timeline.Instant, error) {
	start := w.opts.Clock()
	reqPath, err := requestedOf(rs).Path()
	if err != nil {
		return nil, err
	}
	data, err := w.fsys.ReadFile(ctx, reqPath)
	if err != nil {
		return nil, fmt.Errorf("read the plan of restore %s: %w", rs.Time, err)
	}
	plan, err := timeline.ParseRestorePlan(data)
	if err != nil {
		return nil, fmt.Errorf("restore plan %s: %w", reqPath, err)
	}
	if rs.State == timeline.StateRequested {
		if rs, err = timeline.TransitionToInflight(ctx, w.fsys, rs, nil); err != nil {
			return nil, fmt.Errorf("restore %s: %w", rs.Time, err)
		}
	}
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return nil, err
	}
	begun, err := w.rollbacksByTarget(ctx, tl.After(rs.Time))
	if err != nil {
		return nil, err
	}
	var rolledBack []timeline.Instant
	metas := map[string]*timeline.RollbackMetadata{}
	for _, info := range plan.InstantsToRollback {
		rb, ok := begun[info.CommitTime]
		if !ok {
			writes := tl.Commits().Filter(func(in timeline.Instant) bool { return in.Time == info.CommitTime }).Instants()
			if len(writes) == 0 {
				continue // rolled back by an earlier attempt
			}
			if rb, err = w.requestRollback(ctx, writes[0]); err != nil {
				return nil, fmt.Errorf("restore %s: %w", rs.Time, err)
			}
		}
		meta, err := w.runRollback(ctx, rb, false)
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", rs.Time, err)
		}
		in := timeline.Instant{Time: info.CommitTime, Action: timeline.Action(info.Action), State: timeline.StateCompleted}
		rolledBack = append(rolledBack, in)
		metas[in.Time] = meta
	}
	meta := timeline.NewRestoreMetadata(rs.Time, w.opts.Clock().Sub(start).Milliseconds(), rolledBack, metas)
	if data, err = meta.MarshalAvro(); err != nil {
		return nil, err
	}
	if _, err := timeline.Complete(ctx, w.fsys, rs, data); err != nil {
		return nil, fmt.Errorf("complete restore %s: %w", rs.Time, err)
	}
	// Its rollbacks are never completed: the restore instant stands for
	// them, and Hudi deletes them once it is complete.
	if tl, err = timeline.Load(ctx, w.fsys); err != nil {
		return nil, err
	}
	for _, in := range tl.After(rs.Time).Pending().Instants() {
		if in.Action == timeline.ActionRollback {
			if err := timeline.DeletePending(ctx, w.fsys, in); err != nil {
				return nil, fmt.Errorf("restore %s: %w", rs.Time, err)
			}
		}
	}
	return rolledBack, nil
}

// rollbacksByTarget maps the instant each pending rollback of tl rolls
// back to that rollback, as its plan names it.
func (w *Writer) rollbacksByTarget(ctx context.Context, tl *timeline.Timeline) (map[string]timeline.Instant, error) {
	out := map[string]timeline.Instant{}
	for _, in := range tl.Pending().Instants() {
		if in.Action != timeline.ActionRollback {
			continue
		}
		plan, err := readRollbackPlan(ctx, w.fsys, in)
		if err != nil {
			return nil, err
		}
		out[plan.InstantToRollback.CommitTime] = in
	}
	return out, nil
}

// restoreLeftovers returns the pending rollbacks that the latest completed
// restore made and, stopped before its very end, did not delete: those
// after it whose instant it rolled back.
func (w *Writer) restoreLeftovers(ctx context.Context, tl *timeline.Timeline) (map[string]bool, error) {
	restores := tl.Completed().Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionRestore })
	last, ok := restores.Last()
	if !ok {
		return nil, nil
	}
	data, err := tl.ReadDetails(ctx, last)
	if err != nil {
		return nil, err
	}
	meta, err := timeline.ParseRestoreMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", last.Time, err)
	}
	begun, err := w.rollbacksByTarget(ctx, tl.After(last.Time))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for target, rb := range begun {
		if slices.Contains(meta.InstantsToRollback, target) {
			out[rb.Time] = true
		}
	}
	return out, nil
}

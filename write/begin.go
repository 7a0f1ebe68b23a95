package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Taking a table for a write or a service: its lock, the checks before
// anything is written, and the recovery of what failed writers left.

// lockTable takes the table's writer lock, as the settings say to wait
// for it (a lock held past the wait is a refusal), and loads the table's
// configuration. A table of a version Hoodie only reads is refused first,
// before the lock file is created (see CheckTableVersion).
func (w *Writer) lockTable(ctx context.Context) (unlock func() error, err error) {
	if err := CheckTableVersion(ctx, w.fsys); err != nil {
		return nil, err
	}
	unlock, err = storage.Lock(ctx, w.fsys, storage.LockFile, storage.LockOptions{Timeout: w.settings.LockTimeout, Waiting: w.opts.LockWaiting})
	if errors.Is(err, storage.ErrLocked) && ctx.Err() == nil {
		return nil, &RefusedError{fmt.Errorf("table %w", err)}
	}
	if err != nil {
		return nil, err
	}
	if w.cfg, err = config.Load(ctx, w.fsys); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// begin takes the table's writer lock for a write of op (see lockTable),
// checks that op may write the table, and rolls back what failed writers
// left. The caller must call unlock, once begin returned no error.
func (w *Writer) begin(ctx context.Context, op Operation) (_ func() error, err error) {
	unlock, err := w.lockTable(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	if err := w.cfg.CheckWritable(); err != nil {
		return nil, &RefusedError{fmt.Errorf("table %s: %w", w.cfg.Name, err)}
	}
	if err := w.settings.checkWrite(op, w.cfg); err != nil {
		return nil, err
	}
	// Instant times are wall-clock digits in the table's zone, and readers
	// order commits by them: write in the zone Spark writes this table in.
	w.gen.SetLocation(w.cfg.TimelineZone().Location(w.opts.Local))
	if err := w.recover(ctx); err != nil {
		return nil, err
	}
	if w.cfg, err = dropMetadataTable(ctx, w.fsys, w.cfg, w.opts.Clock()); err != nil {
		return nil, err
	}
	return unlock, nil
}

// beginOnView is begin, then loads the timeline and the latest view that
// the write of op works on. The caller must call unlock, once beginOnView
// returned no error.
func (w *Writer) beginOnView(ctx context.Context, op Operation) (unlock func() error, tl *timeline.Timeline, view *read.View, err error) {
	if unlock, err = w.begin(ctx, op); err != nil {
		return nil, nil, nil, err
	}
	if tl, err = timeline.Load(ctx, w.fsys); err == nil {
		view, err = read.LoadView(ctx, w.fsys, tl, "")
	}
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	return unlock, tl, view, nil
}

// recover completes the rollbacks and the restore that died half way (see
// finishPendingRollbacks), rolls back every commit a dead writer left pending and drops
// markers that completed writes left, as a Hudi writer does with the
// default hoodie.cleaner.policy.failed.writes=EAGER: the caller holds the
// writer lock, so no Hoodie writer owns them.
//
// Only commits are rolled back (Hoodie refuses merge-on-read tables, the
// only ones with deltacommits), and of them not those whose writer keeps a
// fresh heartbeat (a Spark writer with the multi-writer setting LAZY,
// which does not take Hoodie's lock; a Hoodie writer's heartbeat is never
// fresh to another, see heartbeatFresh). The heartbeats of the commits
// rolled back, and of those complete, are deleted. So are pending insert
// overwrites and partition deletes, as Hudi rolls them back; a pending
// clustering is left alone, as Hudi leaves it, never rolled back as a
// failed write (the next clustering completes it).
func (w *Writer) recover(ctx context.Context) error {
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return err
	}
	if changed, err := w.finishPendingRollbacks(ctx, tl); err != nil {
		return err
	} else if changed {
		if tl, err = timeline.Load(ctx, w.fsys); err != nil {
			return err
		}
	}
	for _, in := range tl.Pending().Instants() {
		switch in.Action {
		case timeline.ActionCommit:
		case timeline.ActionReplaceCommit:
			// A clustering is never rolled back as a failed write (see
			// Writer.Cluster); an insert overwrite or a partition delete is.
			if plan, err := readClusteringPlan(ctx, w.fsys, in); err != nil || plan != nil {
				continue
			}
		default:
			continue
		}
		live, err := w.heartbeatFresh(ctx, in.Time)
		if err != nil {
			return err
		}
		if live {
			continue
		}
		err = rollbackPending(ctx, w.fsys, in)
		if errors.Is(err, timeline.ErrInstantCompleted) {
			continue // its writer completed it as the rollback began: it stands
		}
		if err != nil {
			return err
		}
		if err := w.fsys.RemoveAll(ctx, heartbeatPath(in.Time)); err != nil {
			return fmt.Errorf("remove the heartbeat of rolled back instant %s: %w", in.Time, err)
		}
	}
	if err := removeHeartbeats(ctx, w.fsys, tl.Pending().Contains, tl.Contains); err != nil {
		return err
	}
	entries, err := w.fsys.ReadDir(ctx, storage.TempFolder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no marker folder: nothing to drop
	}
	if err != nil {
		return fmt.Errorf("list markers: %w", err)
	}
	for _, e := range entries {
		if e.IsDir && tl.Contains(e.Name) && !tl.Pending().Contains(e.Name) {
			if err := w.fsys.RemoveAll(ctx, markerFolder(e.Name)); err != nil {
				return fmt.Errorf("remove markers of completed instant %s: %w", e.Name, err)
			}
		}
	}
	return nil
}

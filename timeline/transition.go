package timeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hoodie-dev/hoodie/storage"
)

// ErrInstantCompleted reports an attempt to delete a completed instant as if
// it were pending.
var ErrInstantCompleted = errors.New("instant is completed")

// maxCreateAttempts bounds how often CreateRequested retries with a later
// instant time when the requested file already exists.
const maxCreateAttempts = 64

// CreateRequested starts a new instant of action: it takes an instant time
// from gen later than every instant on the timeline and creates the
// instant's requested file holding plan. If that file already exists, another
// writer took the time for the same action, and CreateRequested tries again
// with a later time.
//
// plan is the requested file's content. Hudi writes it empty for commit and
// deltacommit. For replacecommit Hudi writes an Avro
// HoodieRequestedReplaceMetadata, which this package does not produce: pass
// nil, which Hudi reads as a replacecommit that is not a clustering (as its
// insert overwrite used to write). Clean and rollback need their Avro plans
// from the caller. A savepoint has no requested state and is refused.
//
// A nil gen is a Generator reading time.Now.
//
// The caller must hold the table's writer lock: create-if-absent keeps two
// writers from taking one instant time for one action, but not for two
// actions, and not from creating instants out of time order. Instants are
// made in timeline layout 1 (LayoutV1), the only one Hoodie writes.
func CreateRequested(ctx context.Context, fsys storage.FS, gen *Generator, action Action, plan []byte) (Instant, error) {
	return CreateRequestedWith(ctx, fsys, gen, action, plan, nil)
}

// Claim announces a writer's instant time before the instant's requested
// file exists, as Hudi's writers start their heartbeat before they create
// it (a reader of the timeline who sees the instant then sees its writer
// alive). It returns how to undo the announcement.
type Claim func(ctx context.Context, instantTime string) (release func(), err error)

// CreateRequestedWith is CreateRequested calling claim, if not nil, with
// each instant time it tries, before it creates the requested file. It
// releases the claim of a time another writer holds, and of the time it
// tried when it fails; a claim it returns with the instant stays. A claim's
// error fails it, with nothing created.
func CreateRequestedWith(ctx context.Context, fsys storage.FS, gen *Generator, action Action, plan []byte, claim Claim) (Instant, error) {
	if _, err := (Instant{Action: action, State: StateRequested}).suffix(); err != nil {
		return Instant{}, fmt.Errorf("create requested instant: %w", err)
	}
	if gen == nil {
		gen = new(Generator)
	}
	tl, err := LoadLayout(ctx, fsys, LayoutV1)
	if err != nil {
		return Instant{}, fmt.Errorf("create requested %s instant: %w", action, err)
	}
	var after string
	if last, ok := tl.Last(); ok {
		after = last.Time
	}
	for range maxCreateAttempts {
		ts, err := gen.Next(after)
		if err != nil {
			return Instant{}, fmt.Errorf("create requested %s instant: %w", action, err)
		}
		in := Instant{Time: ts, Action: action, State: StateRequested}
		p, err := in.Path()
		if err != nil {
			return Instant{}, fmt.Errorf("create requested %s instant: %w", action, err)
		}
		release := func() {}
		if claim != nil {
			if release, err = claim(ctx, ts); err != nil {
				return Instant{}, fmt.Errorf("create requested instant %s: %w", p, err)
			}
		}
		err = fsys.CreateIfAbsent(ctx, p, plan)
		if err == nil {
			return in, nil
		}
		release()
		if !errors.Is(err, fs.ErrExist) {
			return Instant{}, fmt.Errorf("create requested instant %s: %w", p, err)
		}
		// Another writer took ts; gen remembers it and moves past it.
	}
	return Instant{}, fmt.Errorf("create requested %s instant: %d instant times taken in a row: %w",
		action, maxCreateAttempts, fs.ErrExist)
}

// TransitionToInflight moves a requested instant to inflight by creating its
// inflight file holding data. For commit, deltacommit and replacecommit, data
// is the workload profile JSON (see NewWorkloadProfile), which is checked to
// parse before it is written. It fails with an error satisfying
// errors.Is(err, fs.ErrNotExist) if the requested file is missing, and with
// fs.ErrExist if the inflight file exists.
func TransitionToInflight(ctx context.Context, fsys storage.FS, requested Instant, data []byte) (Instant, error) {
	return transition(ctx, fsys, requested, StateRequested, data)
}

// Complete moves an inflight instant to completed by creating its completed
// file holding data: for commit, deltacommit and replacecommit (and
// compactions, which complete as commit or deltacommit) the commit metadata
// JSON (see CommitMetadata.MarshalJSON), which is checked to parse before it
// is written. Creating that file is the commit point.
//
// Complete refuses with an error satisfying errors.Is(err, fs.ErrNotExist)
// if the inflight file is missing, and fails with fs.ErrExist if the
// completed file exists: of two writers completing one instant, exactly one
// succeeds. It returns the completed instant.
func Complete(ctx context.Context, fsys storage.FS, inflight Instant, data []byte) (Instant, error) {
	return transition(ctx, fsys, inflight, StateInflight, data)
}

// transition creates the file of the state after from, holding data, if
// the instant (in state from) has its file. Data meant to be commit metadata
// must parse.
func transition(ctx context.Context, fsys storage.FS, in Instant, from State, data []byte) (Instant, error) {
	if in.State != from {
		return Instant{}, fmt.Errorf("move %s on from %s: %w: it is %s", in, from, ErrInvalidInstant, in.State)
	}
	next := in.withState(from + 1) // the states are consecutive
	if holdsCommitMetadata(next) {
		if err := unmarshalMetadata(data, new(ReplaceCommitMetadata)); err != nil {
			return Instant{}, fmt.Errorf("move %s to %s: refusing commit metadata that does not parse: %w", in, next.State, err)
		}
	}
	fromPath, err := in.Path()
	if err != nil {
		return Instant{}, err
	}
	nextPath, err := next.Path()
	if err != nil {
		return Instant{}, err
	}
	if _, err := fsys.Stat(ctx, fromPath); err != nil {
		return Instant{}, fmt.Errorf("move %s to %s: %s: %w", in, next.State, fromPath, err)
	}
	if err := fsys.CreateIfAbsent(ctx, nextPath, data); err != nil {
		return Instant{}, fmt.Errorf("move %s to %s: create %s: %w", in, next.State, nextPath, err)
	}
	return next, nil
}

// DeletePending removes the files of a pending instant, given in any state
// (its time and action are what count), in reverse order of creation: the
// inflight file, then the requested file, so that a crash halfway leaves an
// instant that still looks pending. Files already gone are skipped. A
// completed instant is never deleted: if its completed file exists,
// DeletePending removes nothing and fails with ErrInstantCompleted.
//
// A rollback calls it after deleting the instant's data files, under the
// table's writer lock.
func DeletePending(ctx context.Context, fsys storage.FS, in Instant) error {
	if err := notCompleted(ctx, fsys, in); err != nil {
		return fmt.Errorf("delete pending %s: %w", in, err)
	}
	for _, s := range []State{StateInflight, StateRequested} {
		if err := removeState(ctx, fsys, in, s); err != nil {
			return fmt.Errorf("delete pending %s: %w", in, err)
		}
	}
	return nil
}

// StopPending makes a pending instant unable to complete, as a rollback
// must before it deletes the instant's data files while its writer, which
// may not share the table's lock (Spark), could be completing it: Hudi
// completes an instant only from its inflight file, which StopPending
// deletes. It fails with ErrInstantCompleted, and changes nothing, when the
// instant completed before; and with ErrInstantCompleted too when it
// completed as it was being stopped, which the look after tells.
func StopPending(ctx context.Context, fsys storage.FS, in Instant) error {
	if err := notCompleted(ctx, fsys, in); err != nil {
		return fmt.Errorf("stop pending %s: %w", in, err)
	}
	if err := removeState(ctx, fsys, in, StateInflight); err != nil {
		return fmt.Errorf("stop pending %s: %w", in, err)
	}
	if err := notCompleted(ctx, fsys, in); err != nil {
		return fmt.Errorf("stop pending %s: %w", in, err)
	}
	return nil
}

// notCompleted fails with ErrInstantCompleted if the instant's completed
// file exists.
func notCompleted(ctx context.Context, fsys storage.FS, in Instant) error {
	donePath, err := in.withState(StateCompleted).Path()
	if err != nil {
		return err
	}
	done, err := storage.Exists(ctx, fsys, donePath)
	if err != nil {
		return err
	}
	if done {
		return fmt.Errorf("%s exists, so its files are committed and are kept: %w", donePath, ErrInstantCompleted)
	}
	return nil
}

// removeState removes the instant's file of state s, if the action has
// one and it exists.
func removeState(ctx context.Context, fsys storage.FS, in Instant, s State) error {
	p, err := in.withState(s).Path()
	if err != nil {
		return nil // the action has no such state (a savepoint is never requested)
	}
	if err := fsys.Remove(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

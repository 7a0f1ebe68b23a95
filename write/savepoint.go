package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/user"
	"path"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Savepoint is a savepoint of a table: a completed commit whose snapshot
// the cleaner keeps readable, and to which a restore can take the table.
type Savepoint struct {
	// Instant is the savepointed commit's instant time, which the
	// savepoint instant shares.
	Instant string
	// Meta is the savepoint's metadata: who made it, when, and the files
	// it keeps.
	Meta *timeline.SavepointMetadata
}

// ErrNoSuchSavepoint reports a savepoint that is not on the timeline.
var ErrNoSuchSavepoint = errors.New("no such savepoint")

// Savepoint savepoints the completed commit of instant time instant, as
// Hudi's SavepointActionExecutor: its metadata lists the base files of
// every partition that the snapshot as of the commit reads, and the
// cleaner keeps them. Only a completed commit (or replacecommit) of the
// active timeline can be savepointed, not one older than the earliest
// commit the last clean retained (Hudi's rule), nor one whose files are
// gone, nor one savepointed already. comment is kept in the metadata. A
// clean left pending is completed first: its plan did not know of the
// savepoint.
func (w *Writer) Savepoint(ctx context.Context, instant, comment string) (timeline.Instant, error) {
	unlock, err := w.lockForService(ctx)
	if err != nil {
		return timeline.Instant{}, err
	}
	defer unlock()
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return timeline.Instant{}, err
	}
	// A pending clean's plan did not know of the savepoint: it runs to
	// the end first, and the checks below see what it deleted.
	if tl, err = w.finishPendingCleans(ctx, tl, &CleanResult{}); err != nil {
		return timeline.Instant{}, err
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("cannot savepoint %s: "+format, append([]any{instant}, args...)...)
	}
	commits := tl.CompletedCommits()
	if !commits.Contains(instant) {
		if tl.Contains(instant) {
			return timeline.Instant{}, refuse("it is not a completed commit of table %s (see hoodiectl timeline)", w.cfg.Name)
		}
		return timeline.Instant{}, refuse("table %s has no such instant on its active timeline", w.cfg.Name)
	}
	if tl.Savepoints().Contains(instant) {
		return timeline.Instant{}, refuse("it is savepointed already")
	}
	if retained, err := lastCleanRetained(ctx, tl); err != nil {
		return timeline.Instant{}, err
	} else if retained != "" && instant < retained {
		return timeline.Instant{}, refuse("the last clean retained commits from %s on only, and may have removed files it reads", retained)
	}
	view, err := read.LoadView(ctx, w.fsys, tl, instant)
	if err != nil {
		return timeline.Instant{}, refuse("%w", err)
	}
	partitions, err := read.ListPartitions(ctx, w.fsys)
	if err != nil {
		return timeline.Instant{}, err
	}
	meta := &timeline.SavepointMetadata{By: currentUser(), At: w.opts.Clock(), Comment: comment, Files: map[string][]string{}}
	for _, part := range partitions {
		meta.Files[part] = []string{}
	}
	for _, s := range view.LatestSlices() {
		meta.Files[s.Partition] = append(meta.Files[s.Partition], path.Base(s.Path))
	}
	data, err := timeline.MarshalSavepointMetadata(meta)
	if err != nil {
		return timeline.Instant{}, err
	}
	in, err := timeline.CreateSavepoint(ctx, w.fsys, instant, data)
	if errors.Is(err, fs.ErrExist) {
		return timeline.Instant{}, refuse("it is savepointed already")
	}
	return in, err
}

// DeleteSavepoint removes the savepoint of instant time instant, as Hudi's
// deleteSavepoint does; the cleaner may then remove the files only it
// kept. It fails with ErrNoSuchSavepoint when there is no such savepoint.
func (w *Writer) DeleteSavepoint(ctx context.Context, instant string) error {
	unlock, err := w.lockForService(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tl, err := timeline.Load(ctx, w.fsys)
	if err != nil {
		return err
	}
	if !tl.Savepoints().Contains(instant) && !tl.Filter(isSavepoint).Contains(instant) {
		return fmt.Errorf("delete savepoint %s of table %s: %w", instant, w.cfg.Name, ErrNoSuchSavepoint)
	}
	return timeline.DeleteSavepoint(ctx, w.fsys, instant)
}

func isSavepoint(in timeline.Instant) bool { return in.Action == timeline.ActionSavepoint }

// Savepoints lists the table's completed savepoints, oldest first. It
// takes no lock.
func Savepoints(ctx context.Context, fsys storage.FS) ([]Savepoint, error) {
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		return nil, err
	}
	var out []Savepoint
	for _, in := range tl.Savepoints().Instants() {
		meta, err := tl.ReadSavepointMetadata(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, Savepoint{Instant: in.Time, Meta: meta})
	}
	return out, nil
}

// lastCleanRetained is the earliest commit the last completed clean
// retained; "" when there is none.
func lastCleanRetained(ctx context.Context, tl *timeline.Timeline) (string, error) {
	last, ok := tl.Filter(func(in timeline.Instant) bool {
		return in.Action == timeline.ActionClean && in.State == timeline.StateCompleted
	}).Last()
	if !ok {
		return "", nil
	}
	meta, err := tl.ReadCleanMetadata(ctx, last)
	if err != nil {
		return "", err
	}
	return meta.EarliestCommitToRetain, nil
}

// currentUser names who makes a savepoint: the user running the process,
// as Hudi's CLI records it.
func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "hoodie"
}

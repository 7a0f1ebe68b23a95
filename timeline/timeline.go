package timeline

import (
	"context"
	"fmt"
	"sort"

	"github.com/hoodie-dev/hoodie/storage"
)

// Timeline is a list of instants in Hudi's order: by instant time, then by
// action (a compaction counting as a commit), read once from a table's
// MetaFolder. Each instant appears once, in the latest state that its files
// show. A Timeline does not change; its filters return new Timelines that
// read instant details from the same table. Make one with Load.
type Timeline struct {
	fsys     storage.FS
	instants []Instant
}

// Load reads the active timeline of the table whose base path is the root of
// fsys. Hudi keeps an instant's requested and inflight files after it
// completes, so the instant takes the state of its latest file: completed
// if its completed file exists, else inflight if its inflight file exists,
// else requested. Files that are not instants are skipped; a file whose name
// starts with a digit but is no instant file fails the load.
//
// Load lists file names only. The content of a completed commit is checked
// when it is read (ReadCommitMetadata); see the package documentation for why
// a completed file always holds whole metadata.
func Load(ctx context.Context, fsys storage.FS) (*Timeline, error) {
	entries, err := fsys.ReadDir(ctx, storage.MetaFolder)
	if err != nil {
		return nil, fmt.Errorf("load timeline: list %s: %w", storage.MetaFolder, err)
	}
	type key struct {
		time   string
		action Action
	}
	latest := make(map[key]Instant)
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		in, ok, err := ParseInstantFileName(e.Name)
		if err != nil {
			return nil, fmt.Errorf("load timeline: %s: %w", storage.MetaFolder, err)
		}
		if !ok {
			continue
		}
		k := key{in.Time, completedAction(in.Action)}
		if prev, seen := latest[k]; !seen || laterState(in, prev) {
			latest[k] = in
		}
	}
	instants := make([]Instant, 0, len(latest))
	for _, in := range latest {
		instants = append(instants, in)
	}
	sort.Slice(instants, func(i, j int) bool { return instantLess(instants[i], instants[j]) })
	return &Timeline{fsys: fsys, instants: instants}, nil
}

// laterState reports whether a is further along than b, two files of one
// instant. Ties (which a sound timeline never has) go to the greater action
// name, so that loading is deterministic.
func laterState(a, b Instant) bool {
	if a.State != b.State {
		return a.State > b.State
	}
	return a.Action > b.Action
}

// instantLess orders instants as Hudi's HoodieInstant.COMPARATOR: by time as
// a string, then by action with compaction counted as commit and log
// compaction as deltacommit, then by state.
func instantLess(a, b Instant) bool {
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	if ca, cb := completedAction(a.Action), completedAction(b.Action); ca != cb {
		return ca < cb
	}
	return a.State < b.State
}

// Instants returns the instants in order. The slice is the caller's.
func (t *Timeline) Instants() []Instant {
	return append([]Instant(nil), t.instants...)
}

// Len is the number of instants.
func (t *Timeline) Len() int { return len(t.instants) }

// First returns the earliest instant; ok is false on an empty timeline.
func (t *Timeline) First() (in Instant, ok bool) {
	if len(t.instants) == 0 {
		return Instant{}, false
	}
	return t.instants[0], true
}

// Last returns the latest instant; ok is false on an empty timeline.
func (t *Timeline) Last() (in Instant, ok bool) {
	if len(t.instants) == 0 {
		return Instant{}, false
	}
	return t.instants[len(t.instants)-1], true
}

// Filter returns the instants for which keep returns true.
func (t *Timeline) Filter(keep func(Instant) bool) *Timeline {
	var out []Instant
	for _, in := range t.instants {
		if keep(in) {
			out = append(out, in)
		}
	}
	return &Timeline{fsys: t.fsys, instants: out}
}

// Completed returns the completed instants.
func (t *Timeline) Completed() *Timeline {
	return t.Filter(func(in Instant) bool { return in.State == StateCompleted })
}

// Pending returns the instants not completed: requested or inflight.
func (t *Timeline) Pending() *Timeline {
	return t.Filter(func(in Instant) bool { return in.State != StateCompleted })
}

// Commits returns the instants that write data files, in any state: commit,
// deltacommit and replacecommit, as Hudi's getCommitsTimeline. Pending
// compactions are not among them; completed ones are, as commits.
func (t *Timeline) Commits() *Timeline {
	return t.Filter(func(in Instant) bool { return isWrite(in.Action) })
}

// CompletedCommits returns the completed commits, deltacommits and
// replacecommits: the instants whose data readers see.
func (t *Timeline) CompletedCommits() *Timeline {
	return t.Filter(func(in Instant) bool { return in.State == StateCompleted && isWrite(in.Action) })
}

func isWrite(a Action) bool {
	return a == ActionCommit || a == ActionDeltaCommit || a == ActionReplaceCommit
}

// Before returns the instants whose time is before ts, comparing instant
// times as strings as Hudi does.
func (t *Timeline) Before(ts string) *Timeline {
	return t.Filter(func(in Instant) bool { return in.Time < ts })
}

// AtOrBefore returns the instants whose time is ts or before: the instants a
// time-travel query as of ts considers.
func (t *Timeline) AtOrBefore(ts string) *Timeline {
	return t.Filter(func(in Instant) bool { return in.Time <= ts })
}

// After returns the instants whose time is after ts; an incremental query
// from ts reads the completed commits among them.
func (t *Timeline) After(ts string) *Timeline {
	return t.Filter(func(in Instant) bool { return in.Time > ts })
}

// Contains reports whether an instant of time ts, of any action and state,
// is on the timeline.
func (t *Timeline) Contains(ts string) bool {
	i := sort.Search(len(t.instants), func(i int) bool { return t.instants[i].Time >= ts })
	return i < len(t.instants) && t.instants[i].Time == ts
}

// ReadDetails returns the content of the instant's file. Its meaning depends
// on the action and state: commit metadata JSON for commits (see
// ReadCommitMetadata), Avro for clean, rollback and replacecommit plans, and
// empty for requested commits.
func (t *Timeline) ReadDetails(ctx context.Context, in Instant) ([]byte, error) {
	p, err := in.Path()
	if err != nil {
		return nil, err
	}
	if t.fsys == nil {
		return nil, fmt.Errorf("read instant %s: timeline not made by Load", in)
	}
	data, err := t.fsys.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read instant %s: %w", in, err)
	}
	return data, nil
}

// ReadCommitMetadata reads and parses the commit metadata of a commit,
// deltacommit or replacecommit instant: the completed file's metadata, the
// workload profile of an inflight file, or the empty metadata of a requested
// commit or deltacommit. Errors name the instant file.
func (t *Timeline) ReadCommitMetadata(ctx context.Context, in Instant) (*CommitMetadata, error) {
	m := new(CommitMetadata)
	if err := t.readMetadata(ctx, in, m); err != nil {
		return nil, err
	}
	return m, nil
}

// ReadReplaceCommitMetadata is ReadCommitMetadata that also reads the file
// groups a replacecommit replaces.
func (t *Timeline) ReadReplaceCommitMetadata(ctx context.Context, in Instant) (*ReplaceCommitMetadata, error) {
	m := new(ReplaceCommitMetadata)
	if err := t.readMetadata(ctx, in, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (t *Timeline) readMetadata(ctx context.Context, in Instant, m any) error {
	if !holdsCommitMetadata(in) {
		return fmt.Errorf("read commit metadata of %s: %w: its file holds no commit metadata", in, ErrInvalidInstant)
	}
	data, err := t.ReadDetails(ctx, in)
	if err != nil {
		return err
	}
	p, _ := in.Path() // ReadDetails checked it
	if err := unmarshalMetadata(data, m); err != nil {
		return fmt.Errorf("instant file %s: %w", p, err)
	}
	return nil
}

// holdsCommitMetadata reports whether the instant's file holds commit
// metadata JSON (or is empty): every state of commit and deltacommit, the
// inflight and completed replacecommit (its requested file holds an Avro
// HoodieRequestedReplaceMetadata), and completed compactions.
func holdsCommitMetadata(in Instant) bool {
	switch in.Action {
	case ActionCommit, ActionDeltaCommit:
		return true
	case ActionReplaceCommit:
		return in.State != StateRequested
	case ActionCompaction, ActionLogCompaction:
		return in.State == StateCompleted
	}
	return false
}

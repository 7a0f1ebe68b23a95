package timeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
)

// Timeline is a list of instants in Hudi's order: by instant time, then by
// action (a compaction counting as a commit), read once from a table's
// MetaFolder. Each instant appears once, in the latest state that its files
// show. A Timeline does not change; its filters return new Timelines that
// read instant details from the same table. Make one with Load.
type Timeline struct {
	fsys     storage.FS
	layout   Layout
	instants []Instant
	// completion holds the completion times of completed instants whose
	// file names give one (layout 2). A savepoint shares its instant time
	// with the commit it saves, so the key holds the action too.
	completion map[instantKey]string
	// history is true when a layout 2 table's archived timeline holds
	// files: instants older than the active ones exist.
	history bool
}

// Load reads the active timeline of the table whose base path is the root of
// fsys, in the layout its hoodie.properties declares (see LayoutOf; a folder
// without hoodie.properties is read in layout 1). Hudi keeps an instant's
// requested and inflight files after it completes, so the instant takes the
// state of its latest file: completed
// if its completed file exists, else inflight if its inflight file exists,
// else requested. Files that are not instants are skipped; a file whose name
// starts with a digit but is no instant file fails the load.
//
// Load lists file names only. The content of a completed commit is checked
// when it is read (ReadCommitMetadata); see the package documentation for why
// a completed file always holds whole metadata.
func Load(ctx context.Context, fsys storage.FS) (*Timeline, error) {
	layout, err := tableLayout(ctx, fsys)
	if err != nil {
		return nil, fmt.Errorf("load timeline: %w", err)
	}
	return LoadLayout(ctx, fsys, layout)
}

// LoadLayout is Load with the table's layout given.
func LoadLayout(ctx context.Context, fsys storage.FS, layout Layout) (*Timeline, error) {
	entries, err := fsys.ReadDir(ctx, layout.Folder)
	if err != nil {
		return nil, fmt.Errorf("load timeline: list %s: %w", layout.Folder, err)
	}
	var completion map[instantKey]string
	history := false
	if layout.Version >= 2 {
		if history, err = holdsFiles(ctx, fsys, layout.History); err != nil {
			return nil, fmt.Errorf("load timeline: %w", err)
		}
	}
	latest := make(map[instantKey]Instant)
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		in, done, ok, err := layout.ParseFileName(e.Name)
		if err != nil {
			return nil, fmt.Errorf("load timeline: %s: %w", layout.Folder, err)
		}
		if !ok {
			continue
		}
		k := instantKey{in.Time, completedAction(in.Action)}
		if done != "" {
			if completion == nil {
				completion = make(map[instantKey]string)
			}
			completion[k] = done
		}
		if prev, seen := latest[k]; !seen || laterState(in, prev) {
			latest[k] = in
		}
	}
	instants := make([]Instant, 0, len(latest))
	for _, in := range latest {
		instants = append(instants, in)
	}
	sort.Slice(instants, func(i, j int) bool { return instantLess(instants[i], instants[j]) })
	return &Timeline{fsys: fsys, layout: layout, instants: instants, completion: completion, history: history}, nil
}

// instantKey identifies an instant whatever its state: its time and the
// action it completes as.
type instantKey struct {
	time   string
	action Action
}

// holdsFiles reports whether the folder dir holds a file or folder whose
// name does not start with a dot (Hadoop's checksum files do); a missing
// folder holds none.
func holdsFiles(ctx context.Context, fsys storage.FS, dir string) (bool, error) {
	entries, err := fsys.ReadDir(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, ".") {
			return true, nil
		}
	}
	return false, nil
}

// CompletionTime returns the completion time of a completed instant as far
// as the timeline tells: in layout 2 the one its file name gives; else, and
// for completed instants of layout 2 kept from before an upgrade (which Hudi
// dates by their file's modification time), its instant time. A pending
// instant has none: "".
func (t *Timeline) CompletionTime(in Instant) string {
	if in.State != StateCompleted {
		return ""
	}
	if c, ok := t.completion[instantKey{in.Time, completedAction(in.Action)}]; ok {
		return c
	}
	return in.Time
}

// path returns the path of the instant's file, relative to the base path.
func (t *Timeline) path(in Instant) (string, error) {
	c := ""
	if in.State == StateCompleted {
		c = t.completion[instantKey{in.Time, completedAction(in.Action)}]
	}
	name, err := t.layout.FileName(in, c)
	if err != nil {
		return "", err
	}
	return path.Join(t.layout.Folder, name), nil
}

// Layout is the layout the timeline was read in.
func (t *Timeline) Layout() Layout { return t.layout }

// HasHistory reports whether instants older than the active timeline are
// known to exist in a layout 2 table's archived timeline (the LSM timeline
// in Layout.History), which Hoodie does not read. It is false in layout 1,
// whose archived timeline read/view.go does without.
func (t *Timeline) HasHistory() bool { return t.history }

// laterState reports whether a is further along than b, two files of one
// instant. Ties (which a sound timeline never has) go to the greater action
// name, so that loading is deterministic.
func laterState(a, b Instant) bool {
	if a.State != b.State {
		return a.State > b.State
	}
	return a.Action > b.Action
}

// Less orders instants as Hudi's HoodieInstant.COMPARATOR, as a Timeline
// holds them (see instantLess).
func Less(a, b Instant) bool { return instantLess(a, b) }

// CompletedAction is the action an instant of action a has once
// completed: a compaction completes as a commit, a log compaction as a
// deltacommit, any other action as itself.
func CompletedAction(a Action) Action { return completedAction(a) }

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
	return &Timeline{fsys: t.fsys, layout: t.layout, instants: out, completion: t.completion, history: t.history}
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
	p, err := t.path(in)
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
	p, _ := t.path(in) // ReadDetails checked it
	if err := decodeMetadata(data, m); err != nil {
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

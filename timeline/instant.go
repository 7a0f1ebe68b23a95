package timeline

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
)

// Action is what an instant does to the table, as named by Hudi's
// HoodieTimeline constants.
type Action string

// The actions of a table version 6 timeline.
const (
	// ActionCommit is a write to a copy-on-write table (COMMIT_ACTION).
	ActionCommit Action = "commit"
	// ActionDeltaCommit is a write to a merge-on-read table
	// (DELTA_COMMIT_ACTION).
	ActionDeltaCommit Action = "deltacommit"
	// ActionReplaceCommit is a write that replaces whole file groups:
	// insert overwrite, delete partition, clustering (REPLACE_COMMIT_ACTION).
	ActionReplaceCommit Action = "replacecommit"
	// ActionClean removes file versions no longer needed (CLEAN_ACTION).
	ActionClean Action = "clean"
	// ActionRollback undoes a failed write (ROLLBACK_ACTION).
	ActionRollback Action = "rollback"
	// ActionSavepoint keeps a commit from being cleaned (SAVEPOINT_ACTION).
	// It takes the instant time of the commit it saves.
	ActionSavepoint Action = "savepoint"
	// ActionRestore takes the table back to a savepoint (RESTORE_ACTION).
	ActionRestore Action = "restore"
	// ActionCompaction merges log files into base files; it completes as a
	// commit (COMPACTION_ACTION).
	ActionCompaction Action = "compaction"
	// ActionLogCompaction merges log files into a log file; it completes as a
	// deltacommit (LOG_COMPACTION_ACTION).
	ActionLogCompaction Action = "logcompaction"
	// ActionIndexing builds a metadata-table index (INDEXING_ACTION).
	ActionIndexing Action = "indexing"
	// ActionSchemaCommit saves a schema (SCHEMA_COMMIT_ACTION).
	ActionSchemaCommit Action = "schemacommit"
)

// State is where an instant is in its life: requested, then inflight, then
// completed.
type State uint8

// The states of an instant, in the order an instant passes through them
// (Hudi's HoodieInstant.State).
const (
	StateRequested State = iota + 1
	StateInflight
	StateCompleted
)

// String returns "requested", "inflight" or "completed".
func (s State) String() string {
	switch s {
	case StateRequested:
		return "requested"
	case StateInflight:
		return "inflight"
	case StateCompleted:
		return "completed"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// ErrInvalidInstant reports an instant, or an instant file name, that the
// timeline layout does not allow.
var ErrInvalidInstant = errors.New("invalid instant")

// Instant is one action at one instant time in one state. Its file in
// MetaFolder is named by FileName.
type Instant struct {
	// Time is the instant time, kept as found in the file name (17 digits,
	// or 14 for tables written before Hudi 0.9). Instants order by Time
	// compared as strings, as in Hudi.
	Time string
	// Action is what the instant does.
	Action Action
	// State is how far the action has got.
	State State
}

// String describes the instant as Hudi's HoodieInstant.toString does, e.g.
// "[==>20240418172802262__commit__INFLIGHT]" ("==>" marks pending instants).
func (in Instant) String() string {
	marker := ""
	if in.State != StateCompleted {
		marker = "==>"
	}
	return "[" + marker + in.Time + "__" + string(in.Action) + "__" + strings.ToUpper(in.State.String()) + "]"
}

// suffixes are the instant file name suffixes of one action, after the
// instant time; "" marks a state the action does not have.
type suffixes struct {
	requested, inflight, completed string
}

// actionSuffixes gives the file names of timeline layout 1, as Hudi's
// HoodieInstant.getFileName makes them. A commit's inflight file is
// "<t>.inflight", for compatibility with old tables; compaction completes as
// "<t>.commit" and log compaction as "<t>.deltacommit"; a savepoint has no
// requested file.
var actionSuffixes = map[Action]suffixes{
	ActionCommit:        {".commit.requested", ".inflight", ".commit"},
	ActionDeltaCommit:   {".deltacommit.requested", ".deltacommit.inflight", ".deltacommit"},
	ActionReplaceCommit: {".replacecommit.requested", ".replacecommit.inflight", ".replacecommit"},
	ActionClean:         {".clean.requested", ".clean.inflight", ".clean"},
	ActionRollback:      {".rollback.requested", ".rollback.inflight", ".rollback"},
	ActionSavepoint:     {"", ".savepoint.inflight", ".savepoint"},
	ActionRestore:       {".restore.requested", ".restore.inflight", ".restore"},
	ActionCompaction:    {".compaction.requested", ".compaction.inflight", ".commit"},
	ActionLogCompaction: {".logcompaction.requested", ".logcompaction.inflight", ".deltacommit"},
	ActionIndexing:      {".indexing.requested", ".indexing.inflight", ".indexing"},
	ActionSchemaCommit:  {".schemacommit.requested", ".schemacommit.inflight", ".schemacommit"},
}

// completedAction is the action an instant of action a has once completed.
func completedAction(a Action) Action {
	switch a {
	case ActionCompaction:
		return ActionCommit
	case ActionClustering:
		return ActionReplaceCommit
	case ActionLogCompaction:
		return ActionDeltaCommit
	}
	return a
}

// suffixIndex maps each file name suffix of layout 1 back to the action
// and state it stands for. A completed compaction's ".commit" reads back as
// a completed commit, as in Hudi.
var suffixIndex = indexSuffixes(actionSuffixes)

// indexSuffixes maps each file name suffix of an action in bySuffix back to
// the action and state it stands for.
func indexSuffixes(bySuffix map[Action]suffixes) map[string]Instant {
	index := make(map[string]Instant)
	for action, s := range bySuffix {
		if s.requested != "" {
			index[s.requested] = Instant{Action: action, State: StateRequested}
		}
		index[s.inflight] = Instant{Action: action, State: StateInflight}
		if completedAction(action) == action {
			index[s.completed] = Instant{Action: action, State: StateCompleted}
		}
	}
	return index
}

// suffix returns the layout 1 file name suffix of the instant's action and
// state.
func (in Instant) suffix() (string, error) { return in.suffixIn(actionSuffixes) }

// suffixIn returns the file name suffix of the instant's action and state
// among bySuffix, the suffixes of a layout.
func (in Instant) suffixIn(bySuffix map[Action]suffixes) (string, error) {
	s, ok := bySuffix[in.Action]
	if !ok {
		return "", fmt.Errorf("instant %s: %w: unknown action %q", in, ErrInvalidInstant, in.Action)
	}
	var sfx string
	switch in.State {
	case StateRequested:
		sfx = s.requested
	case StateInflight:
		sfx = s.inflight
	case StateCompleted:
		sfx = s.completed
	}
	if sfx == "" {
		return "", fmt.Errorf("instant %s: %w: a %s instant has no %s state", in, ErrInvalidInstant, in.Action, in.State)
	}
	return sfx, nil
}

// FileName returns the name of the instant's file in MetaFolder, e.g.
// "20240418172802262.commit.requested", "20240418172802262.inflight" or
// "20240418172802262.commit".
func (in Instant) FileName() (string, error) {
	if err := CheckInstantTime(in.Time); err != nil {
		return "", fmt.Errorf("instant %s: %w: %w", in, ErrInvalidInstant, err)
	}
	sfx, err := in.suffix()
	if err != nil {
		return "", err
	}
	return in.Time + sfx, nil
}

// Path returns the instant file's path relative to the table's base path,
// e.g. ".hoodie/20240418172802262.commit".
func (in Instant) Path() (string, error) {
	name, err := in.FileName()
	if err != nil {
		return "", err
	}
	return path.Join(storage.MetaFolder, name), nil
}

// withState returns the instant of the same time and action in state s, with
// the action it has in that state.
func (in Instant) withState(s State) Instant {
	out := Instant{Time: in.Time, Action: in.Action, State: s}
	if s == StateCompleted {
		out.Action = completedAction(in.Action)
	}
	return out
}

// ParseInstantFileName reads the instant that a file in MetaFolder stands
// for. Names that cannot be instants, because they do not start with a digit
// (hoodie.properties, hoodie.properties.backup, hidden files, the folders
// archived, .temp, .aux, .schema...), give ok false and no error. A name that
// starts with a digit but is not an instant file of timeline layout 1 gives
// an error naming it.
func ParseInstantFileName(name string) (in Instant, ok bool, err error) {
	return parseInstantFileName(name, suffixIndex)
}

// parseInstantFileName parses name, "<time><suffix>", with the suffixes of
// index.
func parseInstantFileName(name string, index map[string]Instant) (in Instant, ok bool, err error) {
	if name == "" || name[0] < '0' || name[0] > '9' {
		return Instant{}, false, nil
	}
	dot := strings.IndexByte(name, '.')
	if dot < 0 {
		return Instant{}, false, fmt.Errorf("instant file %q: %w: no action extension", name, ErrInvalidInstant)
	}
	return parseInstantParts(name, name[:dot], name[dot:], index)
}

// parseInstantParts reads the instant of the file name, whose instant time
// is ts and suffix sfx, with the suffixes of index. Errors name the file.
func parseInstantParts(name, ts, sfx string, index map[string]Instant) (in Instant, ok bool, err error) {
	if err := CheckInstantTime(ts); err != nil {
		return Instant{}, false, fmt.Errorf("instant file %q: %w: %w", name, ErrInvalidInstant, err)
	}
	in, known := index[sfx]
	if !known {
		return Instant{}, false, fmt.Errorf("instant file %q: %w: unknown extension %q", name, ErrInvalidInstant, sfx)
	}
	in.Time = ts
	return in, true, nil
}

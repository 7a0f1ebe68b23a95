package timeline

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

const ts = "20240418172802262"

// layoutNames are the instant file names of timeline layout 1, as Hudi's
// HoodieTimeline constants make them.
var layoutNames = []struct {
	action Action
	state  State
	name   string
}{
	{ActionCommit, StateRequested, ts + ".commit.requested"},
	{ActionCommit, StateInflight, ts + ".inflight"},
	{ActionCommit, StateCompleted, ts + ".commit"},
	{ActionDeltaCommit, StateRequested, ts + ".deltacommit.requested"},
	{ActionDeltaCommit, StateInflight, ts + ".deltacommit.inflight"},
	{ActionDeltaCommit, StateCompleted, ts + ".deltacommit"},
	{ActionReplaceCommit, StateRequested, ts + ".replacecommit.requested"},
	{ActionReplaceCommit, StateInflight, ts + ".replacecommit.inflight"},
	{ActionReplaceCommit, StateCompleted, ts + ".replacecommit"},
	{ActionClean, StateRequested, ts + ".clean.requested"},
	{ActionClean, StateInflight, ts + ".clean.inflight"},
	{ActionClean, StateCompleted, ts + ".clean"},
	{ActionRollback, StateRequested, ts + ".rollback.requested"},
	{ActionRollback, StateInflight, ts + ".rollback.inflight"},
	{ActionRollback, StateCompleted, ts + ".rollback"},
	{ActionSavepoint, StateInflight, ts + ".savepoint.inflight"},
	{ActionSavepoint, StateCompleted, ts + ".savepoint"},
	{ActionRestore, StateRequested, ts + ".restore.requested"},
	{ActionRestore, StateInflight, ts + ".restore.inflight"},
	{ActionRestore, StateCompleted, ts + ".restore"},
	{ActionCompaction, StateRequested, ts + ".compaction.requested"},
	{ActionCompaction, StateInflight, ts + ".compaction.inflight"},
	{ActionLogCompaction, StateRequested, ts + ".logcompaction.requested"},
	{ActionLogCompaction, StateInflight, ts + ".logcompaction.inflight"},
	{ActionIndexing, StateRequested, ts + ".indexing.requested"},
	{ActionIndexing, StateInflight, ts + ".indexing.inflight"},
	{ActionIndexing, StateCompleted, ts + ".indexing"},
	{ActionSchemaCommit, StateRequested, ts + ".schemacommit.requested"},
	{ActionSchemaCommit, StateInflight, ts + ".schemacommit.inflight"},
	{ActionSchemaCommit, StateCompleted, ts + ".schemacommit"},
}

func TestInstantFileName(t *testing.T) {
	for _, tt := range layoutNames {
		in := Instant{Time: ts, Action: tt.action, State: tt.state}
		got, err := in.FileName()
		if err != nil || got != tt.name {
			t.Errorf("%v.FileName() = %q, %v; want %q", in, got, err, tt.name)
		}
		p, err := in.Path()
		if err != nil || p != ".hoodie/"+tt.name {
			t.Errorf("%v.Path() = %q, %v; want .hoodie/%s", in, p, err, tt.name)
		}
	}
}

func TestInstantFileNameCompletedCompactions(t *testing.T) {
	tests := []struct {
		action Action
		want   string
	}{
		{ActionCompaction, ts + ".commit"},
		{ActionLogCompaction, ts + ".deltacommit"},
	}
	for _, tt := range tests {
		got, err := Instant{Time: ts, Action: tt.action, State: StateCompleted}.FileName()
		if err != nil || got != tt.want {
			t.Errorf("completed %s: FileName() = %q, %v; want %q", tt.action, got, err, tt.want)
		}
	}
}

func TestInstantFileNameInvalid(t *testing.T) {
	tests := []Instant{
		{Time: ts, Action: ActionSavepoint, State: StateRequested},
		{Time: ts, Action: "clustering", State: StateRequested},
		{Time: ts, Action: ActionCommit},
		{Time: ts, Action: ActionCommit, State: 9},
		{Time: "2024", Action: ActionCommit, State: StateCompleted},
		{Time: "../../etc", Action: ActionCommit, State: StateCompleted},
		{Time: "", Action: ActionCommit, State: StateCompleted},
	}
	for _, in := range tests {
		if got, err := in.FileName(); !errors.Is(err, ErrInvalidInstant) {
			t.Errorf("%v.FileName() = %q, %v; want ErrInvalidInstant", in, got, err)
		}
	}
}

func TestParseInstantFileName(t *testing.T) {
	for _, tt := range layoutNames {
		in, ok, err := ParseInstantFileName(tt.name)
		want := Instant{Time: ts, Action: tt.action, State: tt.state}
		if err != nil || !ok || in != want {
			t.Errorf("ParseInstantFileName(%q) = %v, %v, %v; want %v", tt.name, in, ok, err, want)
		}
	}
	// Completed compactions read back as what they complete as.
	more := []struct {
		name string
		want Instant
	}{
		{"20240418172802.commit", Instant{Time: "20240418172802", Action: ActionCommit, State: StateCompleted}},
		{"20240418172802.inflight", Instant{Time: "20240418172802", Action: ActionCommit, State: StateInflight}},
		{InitInstantTime + ".commit", Instant{Time: InitInstantTime, Action: ActionCommit, State: StateCompleted}},
		{FullBootstrapInstantTime + ".commit", Instant{Time: FullBootstrapInstantTime, Action: ActionCommit, State: StateCompleted}},
	}
	for _, tt := range more {
		in, ok, err := ParseInstantFileName(tt.name)
		if err != nil || !ok || in != tt.want {
			t.Errorf("ParseInstantFileName(%q) = %v, %v, %v; want %v", tt.name, in, ok, err, tt.want)
		}
	}
}

func TestParseInstantFileNameNotInstants(t *testing.T) {
	for _, name := range []string{
		"hoodie.properties", "hoodie.properties.backup", "hoodie.properties.updated",
		".temp", "archived", ".aux", ".schema", ".index", ".lock", ".heartbeat", "metadata",
		"." + ts + ".commit.crc", ".hoodie_partition_metadata", "",
	} {
		in, ok, err := ParseInstantFileName(name)
		if ok || err != nil {
			t.Errorf("ParseInstantFileName(%q) = %v, %v, %v; want not an instant", name, in, ok, err)
		}
	}
}

func TestParseInstantFileNameMalformed(t *testing.T) {
	for _, name := range []string{
		ts,                               // no extension
		ts + ".",                         // empty extension
		ts + ".commit.completed",         // a layout 2 name
		ts + ".savepoint.requested",      // savepoints are never requested
		ts + ".compaction",               // compactions complete as commits
		ts + ".logcompaction",            // ... and log compactions as deltacommits
		ts + ".clustering.requested",     // not in table version 6
		ts + ".commit.requested.crc",     // a stray suffix
		ts + "_20240418172803000.commit", // a layout 2 completed name
		"2024041817280226.commit",        // 16 digits
		"20240418172802262001.deltacommit",
		"20241318172802262.commit", // month 13
		"1.commit",
		"00000000000003.commit",
		"2024a.commit",
	} {
		in, ok, err := ParseInstantFileName(name)
		if ok || !errors.Is(err, ErrInvalidInstant) {
			t.Errorf("ParseInstantFileName(%q) = %v, %v, %v; want ErrInvalidInstant", name, in, ok, err)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("ParseInstantFileName(%q): error %q does not name the file", name, err)
		}
	}
}

func TestInstantString(t *testing.T) {
	tests := []struct {
		in   Instant
		want string
	}{
		{Instant{ts, ActionCommit, StateCompleted}, "[" + ts + "__commit__COMPLETED]"},
		{Instant{ts, ActionCommit, StateInflight}, "[==>" + ts + "__commit__INFLIGHT]"},
		{Instant{ts, ActionClean, StateRequested}, "[==>" + ts + "__clean__REQUESTED]"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{
		StateRequested: "requested", StateInflight: "inflight", StateCompleted: "completed", 0: "State(0)",
	} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
}

func FuzzParseInstantFileName(f *testing.F) {
	for _, tt := range layoutNames {
		f.Add(tt.name)
	}
	for _, s := range []string{
		"hoodie.properties", ".temp", "20240418172802.commit", "00000000000000.commit",
		ts, ts + ".", ts + ".commit.completed", "2024041817280226.commit", "9.x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) { checkFileName(t, LayoutV1, name) })
}

// checkFileName checks what layout l reads of the file name: an error
// naming it, or an instant whose file name is name again, or, for a name
// that does not start with a digit, neither.
func checkFileName(t *testing.T, l Layout, name string) {
	in, c, ok, err := l.ParseFileName(name)
	switch {
	case err != nil:
		if ok {
			t.Fatalf("ParseFileName(%q): ok with error %v", name, err)
		}
		if !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Fatalf("ParseFileName(%q): error %q does not name the file", name, err)
		}
	case ok:
		back, err := l.FileName(in, c)
		if err != nil || back != name {
			t.Fatalf("ParseFileName(%q) = %v, %q, whose FileName is %q, %v", name, in, c, back, err)
		}
	default:
		if name != "" && name[0] >= '0' && name[0] <= '9' {
			t.Fatalf("ParseFileName(%q): a name starting with a digit is neither an instant nor an error", name)
		}
	}
}

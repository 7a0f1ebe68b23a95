package timeline

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
)

// newTable returns a local FS on an empty table folder holding the given
// files (paths relative to .hoodie; a name ending in "/" is a folder).
func newTable(t *testing.T, files map[string]string) storage.FS {
	t.Helper()
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.MkdirAll(ctx, storage.MetaFolder); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := path.Join(storage.MetaFolder, name)
		if strings.HasSuffix(name, "/") {
			err = fsys.MkdirAll(ctx, p)
		} else {
			err = fsys.WriteFile(ctx, p, []byte(data))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return fsys
}

func load(t *testing.T, fsys storage.FS) *Timeline {
	t.Helper()
	tl, err := LoadLayout(context.Background(), fsys, LayoutV1)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestLoadLatestState(t *testing.T) {
	fsys := newTable(t, map[string]string{
		"hoodie.properties":             "hoodie.table.version=6\n",
		"hoodie.properties.backup":      "",
		"archived/":                     "",
		".temp/20240101000000003/":      "",
		".aux/.bootstrap/":              "",
		".schema/":                      "",
		"metadata/":                     "",
		".20240101000000001.commit.crc": "",
		// A commit Hudi completed keeps its requested and inflight files.
		"20240101000000001.commit.requested": "",
		"20240101000000001.inflight":         "{}",
		"20240101000000001.commit":           "{}",
		// An inflight commit.
		"20240101000000003.commit.requested": "",
		"20240101000000003.inflight":         "",
		// A requested deltacommit.
		"20240101000000004.deltacommit.requested": "",
		// A completed compaction reads as a completed commit.
		"20240101000000002.compaction.requested": "",
		"20240101000000002.compaction.inflight":  "",
		"20240101000000002.commit":               "{}",
		// A savepoint shares the time of the commit it saves.
		"20240101000000001.savepoint.inflight": "",
		"20240101000000001.savepoint":          "",
		// A pending compaction.
		"20240101000000005.compaction.requested": "",
		// Clean and rollback instants are listed, not read.
		"20240101000000006.clean.requested":         "\x00avro",
		"20240101000000006.clean.inflight":          "",
		"20240101000000006.clean":                   "\x00avro",
		"20240101000000007.rollback.requested":      "\x00avro",
		"20240101000000008.replacecommit.requested": "",
		"20240101000000008.replacecommit.inflight":  "{}",
		"20240101000000008.replacecommit":           "{}",
		// An old 14-digit instant sorts before the 17-digit ones of its second.
		"20240101000000.commit": "",
	})
	tl := load(t, fsys)
	want := []Instant{
		{"20240101000000", ActionCommit, StateCompleted},
		{"20240101000000001", ActionCommit, StateCompleted},
		{"20240101000000001", ActionSavepoint, StateCompleted},
		{"20240101000000002", ActionCommit, StateCompleted},
		{"20240101000000003", ActionCommit, StateInflight},
		{"20240101000000004", ActionDeltaCommit, StateRequested},
		{"20240101000000005", ActionCompaction, StateRequested},
		{"20240101000000006", ActionClean, StateCompleted},
		{"20240101000000007", ActionRollback, StateRequested},
		{"20240101000000008", ActionReplaceCommit, StateCompleted},
	}
	if got := tl.Instants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("instants:\n got %v\nwant %v", got, want)
	}
}

func TestLoadEmptyTimeline(t *testing.T) {
	tl := load(t, newTable(t, map[string]string{"hoodie.properties": ""}))
	if tl.Len() != 0 {
		t.Fatalf("Len() = %d, want 0", tl.Len())
	}
	if in, ok := tl.Last(); ok {
		t.Errorf("Last() = %v, want none", in)
	}
	if in, ok := tl.First(); ok {
		t.Errorf("First() = %v, want none", in)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Run("malformed instant file", func(t *testing.T) {
		fsys := newTable(t, map[string]string{
			"20240101000000001.commit":           "{}",
			"20240101000000002.commit.completed": "{}",
		})
		_, err := LoadLayout(context.Background(), fsys, LayoutV1)
		if !errors.Is(err, ErrInvalidInstant) || !strings.Contains(err.Error(), "20240101000000002.commit.completed") {
			t.Fatalf("Load() error = %v, want ErrInvalidInstant naming the file", err)
		}
	})
	t.Run("no .hoodie folder", func(t *testing.T) {
		fsys, err := storage.NewLocalFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadLayout(context.Background(), fsys, LayoutV1); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Load() error = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestTimelineFilters(t *testing.T) {
	fsys := newTable(t, map[string]string{
		"20240101000000001.commit":                  "",
		"20240101000000002.clean":                   "",
		"20240101000000003.deltacommit":             "",
		"20240101000000004.replacecommit":           "",
		"20240101000000005.inflight":                "",
		"20240101000000006.replacecommit.requested": "",
		"20240101000000007.compaction.requested":    "",
		"20240101000000008.commit":                  "",
	})
	tl := load(t, fsys)
	times := func(tl *Timeline) string {
		var out []string
		for _, in := range tl.Instants() {
			out = append(out, in.Time[len(in.Time)-1:])
		}
		return strings.Join(out, "")
	}
	tests := []struct {
		name string
		got  *Timeline
		want string
	}{
		{"all", tl, "12345678"},
		{"Completed", tl.Completed(), "12348"},
		{"Pending", tl.Pending(), "567"},
		{"Commits", tl.Commits(), "134568"},
		{"CompletedCommits", tl.CompletedCommits(), "1348"},
		{"Before", tl.Before("20240101000000004"), "123"},
		{"AtOrBefore", tl.AtOrBefore("20240101000000004"), "1234"},
		{"AtOrBefore a 14-digit time", tl.AtOrBefore("20240101000000"), ""},
		{"After", tl.After("20240101000000004"), "5678"},
		{"After and AtOrBefore", tl.After("20240101000000002").AtOrBefore("20240101000000006").CompletedCommits(), "34"},
		{"Filter", tl.Filter(func(in Instant) bool { return in.Action == ActionClean }), "2"},
	}
	for _, tt := range tests {
		if got := times(tt.got); got != tt.want {
			t.Errorf("%s: instants ending %q, want %q", tt.name, got, tt.want)
		}
	}
	last, ok := tl.CompletedCommits().Last()
	if !ok || last.Time != "20240101000000008" {
		t.Errorf("last completed commit = %v, %v", last, ok)
	}
	first, ok := tl.Pending().First()
	if !ok || first != (Instant{"20240101000000005", ActionCommit, StateInflight}) {
		t.Errorf("first pending = %v, %v", first, ok)
	}
	for ts, want := range map[string]bool{
		"20240101000000001": true, "20240101000000007": true, "20240101000000009": false, "2024010100000000": false,
	} {
		if got := tl.Contains(ts); got != want {
			t.Errorf("Contains(%q) = %v, want %v", ts, got, want)
		}
	}
	// Instants returns a copy.
	tl.Instants()[0].Time = "changed"
	if first, _ := tl.First(); first.Time != "20240101000000001" {
		t.Errorf("Instants() shares the timeline's slice")
	}
}

func TestZeroTimelineReads(t *testing.T) {
	var tl Timeline
	if _, err := tl.ReadDetails(context.Background(), Instant{"20240101000000001", ActionCommit, StateCompleted}); err == nil {
		t.Fatal("ReadDetails on a zero Timeline succeeded")
	}
}

func TestReadCommitMetadata(t *testing.T) {
	ctx := context.Background()
	fsys := newTable(t, map[string]string{
		"20240101000000001.commit.requested":     "",
		"20240101000000001.inflight":             `{"partitionToWriteStats":{"p":[{"fileId":"","numInserts":3}]},"operationType":"INSERT"}`,
		"20240101000000001.commit":               `{"partitionToWriteStats":{"p":[{"fileId":"f1","path":"p/f1.parquet","numWrites":3}]},"operationType":"INSERT","unknown":[1,2]}`,
		"20240101000000002.commit":               `{"partitionToWriteStats": {"p": "not a list"}}`,
		"20240101000000003.commit":               "PAR1 not json",
		"20240101000000004.clean":                "\x00avro",
		"20240101000000005.replacecommit":        `{"partitionToWriteStats":{},"operationType":"INSERT_OVERWRITE","partitionToReplaceFileIds":{"p":["f1"]}}`,
		"20240101000000006.deltacommit":          "",
		"20240101000000007.compaction.requested": "\x00avro plan",
	})
	tl := load(t, fsys)

	m, err := tl.ReadCommitMetadata(ctx, Instant{"20240101000000001", ActionCommit, StateCompleted})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.WrittenPaths(); !reflect.DeepEqual(got, []string{"p/f1.parquet"}) || m.OperationType != OperationInsert {
		t.Errorf("completed metadata: paths %v, operation %q", got, m.OperationType)
	}
	profile, err := tl.ReadCommitMetadata(ctx, Instant{"20240101000000001", ActionCommit, StateInflight})
	if err != nil || profile.Totals().Inserted != 3 {
		t.Errorf("workload profile: %+v, %v", profile, err)
	}
	requested, err := tl.ReadCommitMetadata(ctx, Instant{"20240101000000001", ActionCommit, StateRequested})
	if err != nil || requested.PartitionToWriteStats != nil {
		t.Errorf("requested commit: %+v, %v; want empty metadata", requested, err)
	}
	empty, err := tl.ReadCommitMetadata(ctx, Instant{"20240101000000006", ActionDeltaCommit, StateCompleted})
	if err != nil || !reflect.DeepEqual(empty, &CommitMetadata{}) {
		t.Errorf("empty deltacommit: %+v, %v; want empty metadata", empty, err)
	}
	replace, err := tl.ReadReplaceCommitMetadata(ctx, Instant{"20240101000000005", ActionReplaceCommit, StateCompleted})
	if err != nil || !reflect.DeepEqual(replace.PartitionToReplaceFileIDs, map[string][]string{"p": {"f1"}}) {
		t.Errorf("replacecommit: %+v, %v", replace, err)
	}

	bad := []struct {
		in       Instant
		wantName string
		wantErr  error
	}{
		{Instant{"20240101000000002", ActionCommit, StateCompleted}, ".hoodie/20240101000000002.commit", nil},
		{Instant{"20240101000000003", ActionCommit, StateCompleted}, ".hoodie/20240101000000003.commit", nil},
		{Instant{"20240101000000004", ActionClean, StateCompleted}, "20240101000000004", ErrInvalidInstant},
		{Instant{"20240101000000007", ActionCompaction, StateRequested}, "20240101000000007", ErrInvalidInstant},
		{Instant{"20240101000000009", ActionCommit, StateCompleted}, "20240101000000009", fs.ErrNotExist},
	}
	for _, tt := range bad {
		_, err := tl.ReadCommitMetadata(ctx, tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.wantName) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
			t.Errorf("ReadCommitMetadata(%v) error = %v, want one naming %s (%v)", tt.in, err, tt.wantName, tt.wantErr)
		}
	}
}

package timeline

import (
	"context"
	"path"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/hudi1test"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// completion is a completion time after ts.
const completion = "20240418172805123"

// v2Names are instant file names of timeline layout 2 as Hudi 1.0.2's
// InstantFileNameGeneratorV2 makes them (and as Spark wrote them in the
// interop suite), with what they stand for.
var v2Names = []struct {
	action     Action
	state      State
	completion string
	name       string
}{
	{ActionCommit, StateRequested, "", ts + ".commit.requested"},
	{ActionCommit, StateInflight, "", ts + ".inflight"},
	{ActionCommit, StateCompleted, completion, ts + "_" + completion + ".commit"},
	// A completed instant kept from before an upgrade to version 8.
	{ActionCommit, StateCompleted, "", ts + ".commit"},
	{ActionDeltaCommit, StateCompleted, completion, ts + "_" + completion + ".deltacommit"},
	{ActionReplaceCommit, StateRequested, "", ts + ".replacecommit.requested"},
	{ActionReplaceCommit, StateInflight, "", ts + ".replacecommit.inflight"},
	{ActionReplaceCommit, StateCompleted, completion, ts + "_" + completion + ".replacecommit"},
	{ActionClustering, StateRequested, "", ts + ".clustering.requested"},
	{ActionClustering, StateInflight, "", ts + ".clustering.inflight"},
	{ActionClean, StateCompleted, completion, ts + "_" + completion + ".clean"},
	{ActionRollback, StateCompleted, completion, ts + "_" + completion + ".rollback"},
	{ActionSavepoint, StateInflight, "", ts + ".savepoint.inflight"},
	{ActionSavepoint, StateCompleted, completion, ts + "_" + completion + ".savepoint"},
	{ActionCompaction, StateRequested, "", ts + ".compaction.requested"},
	{ActionIndexing, StateCompleted, completion, ts + "_" + completion + ".indexing"},
}

func TestLayoutV2FileNames(t *testing.T) {
	l := Layout{Version: 2, Folder: ".hoodie/timeline"}
	for _, tt := range v2Names {
		in, c, ok, err := l.ParseFileName(tt.name)
		want := Instant{Time: ts, Action: tt.action, State: tt.state}
		if err != nil || !ok || in != want || c != tt.completion {
			t.Errorf("ParseFileName(%q) = %v, %q, %v, %v; want %v, %q", tt.name, in, c, ok, err, want, tt.completion)
		}
		if got, err := l.FileName(want, tt.completion); err != nil || got != tt.name {
			t.Errorf("FileName(%v, %q) = %q, %v; want %q", want, tt.completion, got, err, tt.name)
		}
	}
	// Layout 2 reads the file names of layout 1 that it shares, and no
	// other: a completion time or a clustering is an error in layout 1.
	for _, name := range []string{ts + "_" + completion + ".commit", ts + ".clustering.requested"} {
		if _, _, ok, err := LayoutV1.ParseFileName(name); ok || err == nil {
			t.Errorf("layout 1 read %q: ok %v, error %v; want an error", name, ok, err)
		}
	}
	// A clustering completes as a replacecommit.
	if c := (Instant{Time: ts, Action: ActionClustering, State: StateInflight}).withState(StateCompleted); c.Action != ActionReplaceCommit {
		t.Errorf("a completed clustering is a %s, want %s", c.Action, ActionReplaceCommit)
	}
}

func TestLayoutV2BadFileNames(t *testing.T) {
	l := Layout{Version: 2, Folder: ".hoodie/timeline"}
	for _, name := range []string{
		ts + "_" + completion + ".inflight",         // a pending file with a completion time
		ts + "_" + completion + ".commit.requested", // idem
		ts + "_.commit",     // no completion time
		ts + "_2024.commit", // not an instant time
		ts + "_" + completion + "_" + ts + ".commit", // two
		ts + "_" + completion + ".clustering",        // a clustering completes as a replacecommit
		"2024_" + completion + ".commit",
	} {
		_, _, ok, err := l.ParseFileName(name)
		if ok || err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("ParseFileName(%q): ok %v, error %v; want an error naming the file", name, ok, err)
		}
	}
	for _, name := range []string{"hoodie.properties", "history", ".20240418172802262.commit.crc", "_x.commit"} {
		if _, _, ok, err := l.ParseFileName(name); ok || err != nil {
			t.Errorf("ParseFileName(%q): ok %v, error %v; want neither", name, ok, err)
		}
	}
}

func FuzzLayoutV2ParseFileName(f *testing.F) {
	for _, tt := range v2Names {
		f.Add(tt.name)
	}
	for _, s := range []string{ts + "_" + completion + ".inflight", ts + "_.commit", "1_2.commit", ts + "_" + completion} {
		f.Add(s)
	}
	l := Layout{Version: 2, Folder: ".hoodie/timeline"}
	f.Fuzz(func(t *testing.T, name string) { checkFileName(t, l, name) })
}

// v8Config returns the configuration of a table of version 8 whose
// timeline path is dir ("" for none).
func v8Config(t *testing.T, dir string) *config.Table {
	t.Helper()
	cfg, err := config.NewTable("t", []string{"id"}, "ts", []string{"part"}, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Version, cfg.TimelineLayoutVersion = config.ReadOnlyTableVersion, config.ReadOnlyTimelineLayoutVersion
	if dir != "" {
		cfg.Extra.Set(KeyTimelinePath, dir)
	}
	return cfg
}

func TestLayoutOf(t *testing.T) {
	for _, tt := range []struct {
		dir, want string
	}{
		{"", ".hoodie/timeline"},
		{"timeline", ".hoodie/timeline"},
		{"tl/active/", ".hoodie/tl/active"},
		{"../timeline", ""},
		{"/timeline", ""},
		{".", ""},
	} {
		cfg := v8Config(t, tt.dir)
		if tt.dir == "" {
			cfg.Extra = nil
		}
		l, err := LayoutOf(cfg)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("timeline path %q: layout %+v, want an error", tt.dir, l)
		case tt.want != "" && (err != nil || l != Layout{Version: 2, Folder: tt.want, History: tt.want + "/history"}):
			t.Errorf("timeline path %q: layout %+v, %v; want layout 2 in %s", tt.dir, l, err, tt.want)
		}
	}
	cfg := v8Config(t, "")
	cfg.Extra.Set(KeyHistoryPath, "lsm")
	if l, err := LayoutOf(cfg); err != nil || l.History != ".hoodie/timeline/lsm" {
		t.Errorf("history path lsm: layout %+v, %v; want its history in .hoodie/timeline/lsm", l, err)
	}
	cfg.Extra.Set(KeyHistoryPath, "../../data")
	if l, err := LayoutOf(cfg); err == nil {
		t.Errorf("history path ../../data: layout %+v, want an error", l)
	}
	cfg, err := config.NewTable("t", []string{"id"}, "", nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := LayoutOf(cfg); err != nil || l != LayoutV1 {
		t.Errorf("version 6: layout %+v, %v; want %+v", l, err, LayoutV1)
	}
	cfg.TimelineLayoutVersion = 3
	if _, err := LayoutOf(cfg); err == nil {
		t.Error("timeline layout 3 read")
	}
}

// TestLoadVersion8 loads the timeline of a version 8 table laid out as Hudi
// 1.0.2 lays it out, in the folder its hoodie.properties names, and reads
// its Avro commit metadata as the JSON it was made from.
func TestLoadVersion8(t *testing.T) {
	ctx := context.Background()
	cfg := v8Config(t, "tl")
	const (
		t1, c1 = "20240418172802262", "20240418172803000"
		t2     = "20240418172804498"
		// A savepoint of t1, which takes t1's time, completed later.
		s1 = "20240418172809000"
	)
	js := []byte(`{"partitionToWriteStats":{"p0":[{"fileId":"f1","path":"p0/f1_0-1-2_` + t1 + `.parquet","prevCommit":"null","numWrites":3,"numInserts":3,"totalWriteBytes":10,"partitionPath":"p0","fileSizeInBytes":10,"runtimeStats":{"totalCreateTime":5}}]},"compacted":false,"extraMetadata":{"schema":"{}"},"operationType":"INSERT"}`)
	avroMeta, err := hudi1test.AvroCommitMetadata(js)
	if err != nil {
		t.Fatal(err)
	}
	fsys := newTable(t, map[string]string{
		"hoodie.properties":                  string(cfg.Marshal(time.Now())),
		"tl/" + t1 + ".commit.requested":     "",
		"tl/" + t1 + ".inflight":             string(avroMeta),
		"tl/" + t1 + "_" + c1 + ".commit":    string(avroMeta),
		"tl/" + t2 + ".commit.requested":     "",
		"tl/" + t1 + ".savepoint.inflight":   "",
		"tl/" + t1 + "_" + s1 + ".savepoint": "",
		"tl/.00000000000000001.commit.crc":   "",
		"tl/history/":                        "",
		// Layout 1's files, left in .hoodie, are no instants of layout 2.
		"20240101000000000.commit": "{}",
	})
	tl, err := Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Layout() != (Layout{Version: 2, Folder: ".hoodie/tl", History: ".hoodie/tl/history"}) || tl.HasHistory() {
		t.Errorf("layout %+v, history %v; want layout 2 in .hoodie/tl without history", tl.Layout(), tl.HasHistory())
	}
	savepoint := Instant{Time: t1, Action: ActionSavepoint, State: StateCompleted}
	want := []Instant{{Time: t1, Action: ActionCommit, State: StateCompleted}, savepoint, {Time: t2, Action: ActionCommit, State: StateRequested}}
	if got := tl.Instants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("instants %v, want %v", got, want)
	}
	for in, c := range map[Instant]string{want[0]: c1, savepoint: s1, want[2]: ""} {
		if got := tl.CompletionTime(in); got != c {
			t.Errorf("completion time of %v: %q, want %q", in, got, c)
		}
	}
	got, err := tl.ReadCommitMetadata(ctx, want[0])
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := ParseCommitMetadata(js)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, fromJSON) {
		t.Errorf("Avro commit metadata read as\n%+v\nwant, as from its JSON,\n%+v", got, fromJSON)
	}
	inflight, err := tl.ReadCommitMetadata(ctx, Instant{Time: t1, Action: ActionCommit, State: StateInflight})
	if err != nil || inflight.OperationType != OperationInsert {
		t.Errorf("inflight workload: %+v, %v", inflight, err)
	}

	// Once archival has written to the history folder, the timeline knows
	// older instants exist.
	if err := fsys.WriteFile(ctx, path.Join(storage.MetaFolder, "tl", DefaultHistoryPath, "_version_"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if tl, err = Load(ctx, fsys); err != nil || !tl.HasHistory() {
		t.Errorf("with a history file: history %v, %v; want true", tl != nil && tl.HasHistory(), err)
	}
}

// TestAvroReplaceCommitMetadata reads the Avro HoodieReplaceCommitMetadata
// of Hudi 1.0.2 as the JSON it was made from.
func TestAvroReplaceCommitMetadata(t *testing.T) {
	js := []byte(`{"partitionToWriteStats":{"p0":[{"fileId":"f2","path":"p0/f2_0-1-2_` + ts + `.parquet","prevCommit":"null","numWrites":2,"numInserts":2,"partitionPath":"p0"}]},"compacted":false,"extraMetadata":{"schema":"{}"},"operationType":"INSERT_OVERWRITE","partitionToReplaceFileIds":{"p0":["f1"],"p1":[]}}`)
	data, err := hudi1test.AvroReplaceCommitMetadata(js)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseReplaceCommitMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseReplaceCommitMetadata(js)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got.PartitionToReplaceFileIDs["p0"]) != 1 {
		t.Errorf("Avro replace commit metadata read as\n%+v\nwant, as from its JSON,\n%+v", got, want)
	}
}

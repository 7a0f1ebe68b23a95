package write

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/basefiletest"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

func tripsInput(ts []trips.Trip) *Input {
	return &Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

// testTable is a table in a temporary folder with a writer.
type testTable struct {
	t    testing.TB
	dir  string
	fsys storage.FS
	w    *Writer
}

func newTripsTable(t testing.TB, mode config.MergeMode, settings Settings) *testTable {
	t.Helper()
	return newTripsTableWith(t, mode, settings, true)
}

// newTripsTableWith is newTripsTable with hoodie.populate.meta.fields set
// to populateMeta.
func newTripsTableWith(t testing.TB, mode config.MergeMode, settings Settings, populateMeta bool) *testTable {
	t.Helper()
	return newTripsTableConfigured(t, mode, settings, func(cfg *config.Table) { cfg.PopulateMetaFields = populateMeta })
}

// newTripsTableConfigured is newTripsTable with its configuration changed
// by configure before the table is created.
func newTripsTableConfigured(t testing.TB, mode config.MergeMode, settings Settings, configure func(*config.Table)) *testTable {
	t.Helper()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, mode)
	if err != nil {
		t.Fatal(err)
	}
	configure(cfg)
	if err := config.CreateTable(context.Background(), fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	return &testTable{t: t, dir: dir, fsys: fsys, w: newTestWriter(fsys, dir, settings)}
}

// newMemTripsTable creates an empty trips table (event time, partitioned
// by partitionpath) in memory.
func newMemTripsTable(t testing.TB) *storage.MemFS {
	t.Helper()
	mem := storage.NewMemFS()
	cfg, err := config.NewTable("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(context.Background(), mem, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	return mem
}

func newTestWriter(fsys storage.FS, dir string, settings Settings) *Writer {
	if settings.MaxFileSize == 0 {
		settings = DefaultSettings()
	}
	return NewWriter(fsys, Options{Settings: settings, IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir})
}

// latest loads the table's timeline and its latest file-system view.
func (tt *testTable) latest() (*timeline.Timeline, *read.View) {
	tt.t.Helper()
	ctx := context.Background()
	tl, err := timeline.Load(ctx, tt.fsys)
	if err != nil {
		tt.t.Fatal(err)
	}
	view, err := read.LoadView(ctx, tt.fsys, tl, "")
	if err != nil {
		tt.t.Fatal(err)
	}
	return tl, view
}

func (tt *testTable) write(op Operation, in *Input) *Result {
	tt.t.Helper()
	res, err := tt.w.Write(context.Background(), op, in)
	if err != nil {
		tt.t.Fatalf("%s: %v", op, err)
	}
	for _, w := range res.Warnings {
		tt.t.Errorf("%s: warning: %v", op, w)
	}
	return res
}

// snapshot reads every record of the table as of asOf ("" for the latest),
// by record key, with meta fields. The records of files without meta fields
// get the meta fields the file determines (commit time: the file's instant,
// no sequence number) and a record key from their first column.
func snapshot(t testing.TB, fsys storage.FS, asOf string) map[string][]any {
	t.Helper()
	ctx := context.Background()
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	view, err := read.LoadView(ctx, fsys, tl, asOf)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]any{}
	for _, s := range view.LatestSlices() {
		for _, values := range basefiletest.Rows(t, fsys, s.Path) {
			if !cfg.PopulateMetaFields {
				values = append([]any{s.Instant, nil, values[0], s.Partition, filepath.Base(s.Path)}, values...)
			}
			key := values[2].(string)
			if _, dup := out[key]; dup {
				t.Fatalf("key %q appears twice in the snapshot", key)
			}
			if values[4] != filepath.Base(s.Path) {
				t.Errorf("record %q: _hoodie_file_name %v, file %s", key, values[4], s.Path)
			}
			out[key] = values
		}
	}
	return out
}

// tableOf30Trips makes a trips table holding 30 trips of the generator of
// seed, written by one insert, and returns it, the generator and the trips.
func tableOf30Trips(t *testing.T, seed int64) (*testTable, *trips.Generator, []trips.Trip) {
	t.Helper()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	gen := trips.NewGenerator(seed)
	initial := gen.Inserts(30)
	tt.write(OpInsert, tripsInput(initial))
	return tt, gen, initial
}

// killChild runs test, a test of this binary, in a child process with the
// environment variables env added, waits for its first line, which must be
// say, then kills it with SIGKILL after delay.
func killChild(t *testing.T, test, say string, delay time.Duration, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	time.Sleep(delay)
	cmd.Process.Kill()
	cmd.Wait()
	if line != say+"\n" {
		t.Fatalf("child said %q", line)
	}
}

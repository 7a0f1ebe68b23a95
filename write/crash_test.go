package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// dataOf strips the meta fields and keys a snapshot by record key, so that
// two snapshots written at different instants compare equal when their
// records do.
func dataOf(snap map[string][]any) map[string]string {
	out := make(map[string]string, len(snap))
	for k, v := range snap {
		out[k] = fmt.Sprint(v[5:])
	}
	return out
}

func equalData(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// verifyIndex checks that the table's index, caught up, matches its
// snapshot. tableID is the id its writers gave it: with another, the index
// would read as stale and be rebuilt first.
func verifyIndex(t *testing.T, fsys storage.FS, indexDir, tableID string) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Open(ctx, indexDir, index.Options{TableName: cfg.Name, TableID: tableID})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Stale(); err != nil {
		t.Fatalf("the index its writers left is stale: %v", err)
	}
	if err := SyncIndex(ctx, fsys, tl, idx); err != nil {
		t.Fatal(err)
	}
	report, err := VerifyIndex(ctx, fsys, tl, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() {
		t.Fatalf("index differs from the table: %+v", report)
	}
}

// TestWriteCrashAtEveryStep fails every mutating file-system step of an
// upsert, and of an insert (whose index changes are prepared while its
// files are written), in turn, as if the process died there, and checks
// that the table then reads as it was before the write or as it is after
// it, never in between; that no completed instant lacks its files; that
// the index folder keeps no table prepared for the failed write; that the
// writer lock is free; and that the next write succeeds and leaves the
// index consistent.
//
// It does the same with the disk filling up at each step instead (every
// step that adds data fails with ENOSPC from there on, removing files
// works): the write then fails with one line saying so, having removed
// what it wrote, or commits; and once space is freed, the next write
// through the same file system succeeds.
func TestWriteCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	gen := trips.NewGenerator(7)
	initial := gen.Inserts(30)
	settings := DefaultSettings()
	settings.MaxFileSize = 4 << 10 // several file groups
	settings.SmallFileLimit = 3 << 10

	setup := func(t *testing.T) (*storage.MemFS, string) {
		mem := newMemTripsTable(t)
		dir := t.TempDir()
		w := NewWriter(mem, Options{Settings: settings, IndexDir: dir, TableID: dir})
		if _, err := w.Write(ctx, OpInsert, tripsInput(initial)); err != nil {
			t.Fatal(err)
		}
		return mem, dir
	}

	writeOf := func(op Operation, batch []trips.Trip) func(*Writer) error {
		return func(w *Writer) error {
			_, err := w.Write(ctx, op, tripsInput(batch))
			return err
		}
	}
	// An insert overwrite of the partitions of some stored trips, with
	// those trips changed and new ones.
	var overwrite []trips.Trip
	for _, tr := range append(gen.Updates(initial, 10), gen.Inserts(5)...) {
		if tr.PartitionPath == initial[0].PartitionPath || tr.PartitionPath == initial[1].PartitionPath {
			overwrite = append(overwrite, tr)
		}
	}
	writes := []struct {
		name string
		do   func(*Writer) error
		// again reports whether an error of the next, same write is
		// right after a commit: a partition deleted is no longer there.
		again func(err error) bool
		// minSteps is the least number of steps the write must take.
		minSteps int
	}{
		{name: "upsert", do: writeOf(OpUpsert, append(gen.Updates(initial, 10), gen.Inserts(5)...)), minSteps: 8},
		{name: "insert", do: writeOf(OpInsert, gen.Inserts(6)), minSteps: 8},
		{name: "insert-overwrite", do: writeOf(OpInsertOverwrite, overwrite), minSteps: 8},
		{name: "delete-partition", do: func(w *Writer) error {
			_, err := w.DeletePartitions(ctx, []string{config.EscapePartitionValue(initial[0].PartitionPath)})
			return err
		}, again: func(err error) bool { return errors.Is(err, ErrRefused) }, minSteps: 5},
	}
	for _, tc := range writes {
		for _, full := range []bool{false, true} {
			name := tc.name
			if full {
				name += "/full disk"
			}
			t.Run(name, func(t *testing.T) {
				// A clean run gives the expected states and the number of steps.
				mem, dir := setup(t)
				before := dataOf(snapshot(t, mem, ""))
				probe := faultfs.New(mem, 0)
				if err := tc.do(NewWriter(probe, Options{Settings: settings, IndexDir: dir, TableID: dir})); err != nil {
					t.Fatal(err)
				}
				after := dataOf(snapshot(t, mem, ""))
				steps := probe.Steps()
				if steps < tc.minSteps {
					t.Fatalf("the write took only %d steps", steps)
				}

				for failAt := 1; failAt <= steps; failAt++ {
					mem, dir := setup(t)
					ffs := faultfs.New(mem, failAt)
					if full {
						ffs.Full(syscall.ENOSPC)
					}
					err := tc.do(NewWriter(ffs, Options{Settings: settings, IndexDir: dir, TableID: dir}))
					committed := err == nil
					if err != nil && !errors.Is(err, faultfs.ErrInjected) {
						t.Fatalf("step %d (%s): unexpected error %v", failAt, ffs.Trace()[failAt-1], err)
					}
					if err != nil && full && (!errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "\n")) {
						t.Fatalf("step %d (%s): a full disk gave %v; want one line saying so", failAt, ffs.Trace()[failAt-1], err)
					}
					if unlock, err := mem.TryLock(ctx, storage.LockFile); err != nil {
						t.Fatalf("step %d: the writer lock is still held: %v", failAt, err)
					} else {
						unlock()
					}
					got := dataOf(snapshot(t, mem, ""))
					switch {
					case equalData(got, before) && !committed:
					case equalData(got, after):
					default:
						t.Fatalf("step %d (%s): the table is neither as before nor as after the write (committed %v)", failAt, ffs.Trace()[failAt-1], committed)
					}
					if left, _ := filepath.Glob(filepath.Join(dir, "hoodie-apply-*")); len(left) > 0 {
						t.Fatalf("step %d: index tables left: %v", failAt, left)
					}
					if full && !committed {
						// Removing works on a full disk: the failed write
						// leaves nothing behind.
						if tl, err := timeline.Load(ctx, mem); err != nil || tl.Pending().Len() != 0 {
							t.Fatalf("step %d: a write that failed on a full disk left pending instants (%v)", failAt, err)
						}
					}
					// The next write cleans up and succeeds (an insert's keys are
					// there if it committed: drop them); on a full disk, once
					// space is freed.
					nextSettings := settings
					nextSettings.DropDuplicates = true
					var nextFS storage.FS = mem
					if full {
						ffs.Free()
						nextFS = ffs
					}
					next := NewWriter(nextFS, Options{Settings: nextSettings, IndexDir: dir, TableID: dir})
					if err := tc.do(next); err != nil && (tc.again == nil || !tc.again(err)) {
						t.Fatalf("step %d: the next write failed: %v", failAt, err)
					}
					if got := dataOf(snapshot(t, mem, "")); !equalData(got, after) {
						t.Fatalf("step %d: after the next write the table is not as expected", failAt)
					}
					tl, err := timeline.Load(ctx, mem)
					if err != nil {
						t.Fatal(err)
					}
					if p := tl.Pending(); p.Len() != 0 {
						t.Fatalf("step %d: pending instants left after the next write: %v", failAt, p.Instants())
					}
					if entries, _ := mem.ReadDir(ctx, storage.TempFolder); len(entries) != 0 {
						t.Fatalf("step %d: markers left: %v", failAt, entries)
					}
					// The failed write's heartbeat, fresh but Hoodie's, did
					// not keep its commit from being rolled back.
					if entries, _ := mem.ReadDir(ctx, heartbeatFolder); len(entries) != 0 {
						t.Fatalf("step %d: heartbeats left: %v", failAt, entries)
					}
					verifyIndex(t, mem, dir, dir)
				}
			})
		}
	}
}

// TestWriteKilled runs a large upsert in a child process, kills it with
// SIGKILL at several moments, and checks the table each time.
func TestWriteKilled(t *testing.T) {
	if os.Getenv("HOODIE_KILL_WRITER") != "" {
		killedWriterChild()
		return
	}
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short mode")
	}
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	gen := trips.NewGenerator(3)
	initial := gen.Inserts(50_000)
	tt.write(OpBulkInsert, tripsInput(initial))
	before := dataOf(snapshot(t, tt.fsys, ""))
	for _, delay := range []time.Duration{0, 20 * time.Millisecond, 80 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond} {
		killChild(t, "TestWriteKilled", "writing", delay, "HOODIE_KILL_WRITER="+tt.dir)
		// The table holds what it held, plus whole batches of what the child
		// committed before it died: never part of a batch.
		got := dataOf(snapshot(t, tt.fsys, ""))
		for k, v := range before {
			if got[k] != v {
				t.Fatalf("killed after %v: record %q changed or vanished", delay, k)
			}
		}
		if added := len(got) - len(before); added%childBatch != 0 {
			t.Fatalf("killed after %v: %d records added, not a multiple of the child's batch of %d", delay, added, childBatch)
		}
		before = got
	}
	// The last killed write left its heartbeat, fresh: the next write
	// still rolls back what the killed ones left, and succeeds.
	tl, err := timeline.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range tl.Pending().Instants() {
		if _, err := tt.fsys.Stat(ctx, heartbeatPath(in.Time)); err != nil {
			t.Errorf("killed write %s left no heartbeat: %v", in.Time, err)
		}
	}
	res := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 100)))
	if res.Updated != 100 {
		t.Errorf("next write updated %d, want 100", res.Updated)
	}
	if tl, err = timeline.Load(ctx, tt.fsys); err != nil {
		t.Fatal(err)
	}
	if tl.Pending().Len() != 0 {
		t.Errorf("pending instants after the next write: %v", tl.Pending().Instants())
	}
	if entries, _ := tt.fsys.ReadDir(ctx, heartbeatFolder); len(entries) != 0 {
		t.Errorf("heartbeats left after the next write: %v", entries)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// childBatch is how many new records each write of the killed child adds.
const childBatch = 20_000

// killedWriterChild upserts into the table named by HOODIE_KILL_WRITER
// until it is killed.
func killedWriterChild() {
	dir := os.Getenv("HOODIE_KILL_WRITER")
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(2)
	}
	w := newTestWriter(fsys, dir, Settings{})
	gen := trips.NewGenerator(int64(time.Now().UnixNano()))
	os.Stdout.WriteString("writing\n")
	for i := 0; ; i++ {
		in := tripsInput(gen.Inserts(childBatch))
		in.Name = "child-" + strconv.Itoa(i)
		if _, err := w.Write(context.Background(), OpUpsert, in); err != nil {
			os.Exit(3)
		}
	}
}

// errAfterCreate is what failCreateFS reports.
var errAfterCreate = errors.New("sync folder .hoodie: input/output error")

// failCreateFS fails CreateIfAbsent of the files whose names end with suffix:
// before creating them, or, with after, once they are created, as a file
// system does when the create succeeded but its acknowledgement, or the
// folder sync after it, failed.
type failCreateFS struct {
	storage.FS
	suffix string
	after  bool
}

func (f failCreateFS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if !strings.HasSuffix(name, f.suffix) {
		return f.FS.CreateIfAbsent(ctx, name, data)
	}
	if f.after {
		if err := f.FS.CreateIfAbsent(ctx, name, data); err != nil {
			return err
		}
	}
	return errAfterCreate
}

func (f failCreateFS) TryLock(ctx context.Context, name string) (func() error, error) {
	return f.FS.(storage.Locker).TryLock(ctx, name)
}

// TestWriteCompleteFailsAfterCommitPoint has the creation of the completed
// commit file succeed and then report an error. The commit stands: the write
// must keep its files, report success with a warning, and leave the index
// and the next write working.
func TestWriteCompleteFailsAfterCommitPoint(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 13)

	fsys := failCreateFS{FS: tt.fsys, suffix: ".commit", after: true}
	w := newTestWriter(fsys, tt.dir, Settings{})
	res, err := w.Write(ctx, OpUpsert, tripsInput(gen.Updates(initial, 10)))
	if err != nil {
		t.Fatalf("write whose commit file was made: %v", err)
	}
	if len(res.Warnings) != 1 || !errors.Is(res.Warnings[0], errAfterCreate) {
		t.Errorf("warnings %v, want the error of completing", res.Warnings)
	}
	tl, _ := tt.latest()
	last, _ := tl.CompletedCommits().Last()
	if last.Time != res.Instant {
		t.Fatalf("latest commit %s, want %s", last.Time, res.Instant)
	}
	meta, err := tl.ReadCommitMetadata(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range meta.WrittenPaths() {
		if _, err := tt.fsys.Stat(ctx, p); err != nil {
			t.Errorf("completed commit %s lists %s, which is gone: %v", last.Time, p, err)
		}
	}
	if entries, _ := tt.fsys.ReadDir(ctx, storage.TempFolder); len(entries) != 0 {
		t.Errorf("markers left: %v", entries)
	}
	checkIndex(t, tt)
	tt.write(OpUpsert, tripsInput(gen.Updates(initial, 1)))
}

// TestRollbackPendingKeepsCompletedInstant asks for the rollback of a
// completed instant whose markers are still there (as a writer that died
// after its commit point leaves them): nothing may be deleted.
func TestRollbackPendingKeepsCompletedInstant(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	res := tt.write(OpInsert, tripsInput(trips.NewGenerator(15).Inserts(30)))
	for _, f := range res.Files {
		if err := createMarker(ctx, tt.fsys, res.Instant, f.Path, markerCreate); err != nil {
			t.Fatal(err)
		}
	}
	in := timeline.Instant{Time: res.Instant, Action: timeline.ActionCommit, State: timeline.StateInflight}
	if err := rollbackPending(ctx, tt.fsys, in); !errors.Is(err, timeline.ErrInstantCompleted) {
		t.Errorf("rollback of a completed instant: %v, want ErrInstantCompleted", err)
	}
	for _, f := range res.Files {
		if _, err := tt.fsys.Stat(ctx, f.Path); err != nil {
			t.Errorf("file %s of the completed instant: %v", f.Path, err)
		}
	}
	tl, _ := tt.latest()
	if !tl.Contains(res.Instant) {
		t.Errorf("instant %s is gone from the timeline", res.Instant)
	}
}

// TestWriteInflightFailureRollsBack fails the move of a write to inflight
// and checks that the write's own rollback removes its requested instant.
func TestWriteInflightFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 16)

	w := newTestWriter(failCreateFS{FS: tt.fsys, suffix: ".inflight"}, tt.dir, Settings{})
	_, err := w.Write(ctx, OpUpsert, tripsInput(gen.Updates(initial, 10)))
	if !errors.Is(err, errAfterCreate) {
		t.Fatalf("write: %v, want the injected error", err)
	}
	if strings.Contains(err.Error(), "rolled back") {
		t.Errorf("the failed write was not rolled back: %v", err)
	}
	tl, _ := tt.latest()
	if p := tl.Pending(); p.Len() != 0 {
		t.Errorf("pending instants left: %v", p.Instants())
	}
}

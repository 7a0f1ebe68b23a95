package write

import (
	"context"
	"errors"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// undoCase is a rollback or restore a crash test interrupts.
type undoCase struct {
	name string
	// setup makes the table and returns the instant to undo (or restore
	// to), and the snapshots a reader may see during the undo, the one
	// it leads to last.
	setup func(t *testing.T, mem *storage.MemFS, w *Writer) (string, []map[string]string)
	run   func(ctx context.Context, w *Writer, instant string) (string, error)
	// action is the instant the undo completes.
	action timeline.Action
}

func undoCases() []undoCase {
	settings := DefaultSettings()
	settings.MaxFileSize = 4 << 10 // several file groups
	settings.SmallFileLimit = 3 << 10
	ctx := context.Background()
	writeAll := func(t *testing.T, w *Writer, mem *storage.MemFS, seed int64, n int) []string {
		gen := trips.NewGenerator(seed)
		initial := gen.Inserts(30)
		var instants []string
		for i := range n {
			var batch []trips.Trip
			op := OpUpsert
			switch {
			case i == 0:
				batch, op = initial, OpInsert
			case i%3 == 2:
				batch, op = initial[i:i+3], OpDelete
			default:
				batch = append(gen.Updates(initial, 8), gen.Inserts(4)...)
			}
			res, err := w.Write(ctx, op, tripsInput(batch))
			if err != nil {
				t.Fatal(err)
			}
			instants = append(instants, res.Instant)
		}
		return instants
	}
	return []undoCase{{
		name: "rollback",
		setup: func(t *testing.T, mem *storage.MemFS, w *Writer) (string, []map[string]string) {
			instants := writeAll(t, w, mem, 5, 2)
			after := dataOf(snapshot(t, mem, instants[0]))
			before := dataOf(snapshot(t, mem, ""))
			return instants[1], []map[string]string{before, after}
		},
		run: func(ctx context.Context, w *Writer, instant string) (string, error) {
			res, err := w.Rollback(ctx, instant)
			if err != nil {
				return "", err
			}
			return res.Instant, nil
		},
		action: timeline.ActionRollback,
	}, {
		name: "restore",
		setup: func(t *testing.T, mem *storage.MemFS, w *Writer) (string, []map[string]string) {
			instants := writeAll(t, w, mem, 6, 4)
			writeSavepoint(t, mem, instants[1])
			var states []map[string]string
			for i := len(instants) - 1; i >= 1; i-- {
				states = append(states, dataOf(snapshot(t, mem, instants[i])))
			}
			return instants[1], states
		},
		run: func(ctx context.Context, w *Writer, instant string) (string, error) {
			res, err := w.Restore(ctx, instant)
			if err != nil {
				return "", err
			}
			return res.Instant, nil
		},
		action: timeline.ActionRestore,
	}}
}

// TestUndoCrashAtEveryStep fails every mutating file-system step of a
// rollback, and of a restore, in turn, as if the process died there, and
// checks that a reader then sees the table as it was before, as it is
// after, or (for a restore) as of one of the writes between; and that the
// next run of the same command completes the one that stopped: the table
// as after, one completed rollback or restore on the timeline and nothing
// pending, the record index right. It does the same when the next run is
// a write instead, which completes the rollback or restore first.
func TestUndoCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	settings := DefaultSettings()
	settings.MaxFileSize = 4 << 10
	settings.SmallFileLimit = 3 << 10
	for _, tc := range undoCases() {
		t.Run(tc.name, func(t *testing.T) {
			setup := func(t *testing.T) (*storage.MemFS, string, string, []map[string]string) {
				mem := newMemTripsTable(t)
				dir := t.TempDir()
				instant, states := tc.setup(t, mem, NewWriter(mem, Options{Settings: settings, IndexDir: dir, TableID: dir}))
				return mem, dir, instant, states
			}
			mem, dir, instant, states := setup(t)
			probe := faultfs.New(mem, 0)
			if _, err := tc.run(ctx, NewWriter(probe, Options{Settings: settings, IndexDir: dir, TableID: dir}), instant); err != nil {
				t.Fatal(err)
			}
			after := states[len(states)-1]
			if !maps.Equal(dataOf(snapshot(t, mem, "")), after) {
				t.Fatal("a clean run does not lead to the expected table")
			}
			steps := probe.Steps()
			if steps < 6 {
				t.Fatalf("the %s took only %d steps", tc.name, steps)
			}
			for failAt := 1; failAt <= steps; failAt++ {
				{
					// Every other step, the next run is a write.
					nextIsWrite := failAt%2 == 0
					mem, dir, instant, states := setup(t)
					ffs := faultfs.New(mem, failAt)
					_, err := tc.run(ctx, NewWriter(ffs, Options{Settings: settings, IndexDir: dir, TableID: dir}), instant)
					if err != nil && !errors.Is(err, faultfs.ErrInjected) {
						t.Fatalf("step %d (%s): unexpected error %v", failAt, ffs.Trace()[failAt-1], err)
					}
					got := dataOf(snapshot(t, mem, ""))
					if !slices.ContainsFunc(states, func(s map[string]string) bool { return maps.Equal(s, got) }) {
						t.Fatalf("step %d (%s): a reader sees a table that is none of the expected ones", failAt, ffs.Trace()[failAt-1])
					}
					tl, err := timeline.Load(ctx, mem)
					if err != nil {
						t.Fatal(err)
					}
					started := tl.Pending().Filter(func(in timeline.Instant) bool { return in.Action == tc.action }).Len() > 0
					next := NewWriter(mem, Options{Settings: settings, IndexDir: dir, TableID: dir})
					if nextIsWrite {
						// A write of nothing new (deletes of absent keys)
						// still completes what was started, first.
						if _, err := next.Write(ctx, OpDelete, tripsInput(trips.NewGenerator(99).Inserts(1))); err != nil {
							t.Fatalf("step %d: the next write failed: %v", failAt, err)
						}
						if tl, err := timeline.Load(ctx, mem); err != nil || tl.Pending().Len() != 0 {
							t.Fatalf("step %d: the next write left pending instants (%v)", failAt, err)
						}
						if got := dataOf(snapshot(t, mem, "")); started && !maps.Equal(got, after) {
							t.Fatalf("step %d (%s): the next write did not complete the %s", failAt, ffs.Trace()[failAt-1], tc.name)
						}
					}
					// Run again, the command completes what stopped, or
					// finds it done.
					if _, err := tc.run(ctx, next, instant); err != nil {
						t.Fatalf("step %d (%s): the next %s failed: %v", failAt, ffs.Trace()[failAt-1], tc.name, err)
					}
					if got := dataOf(snapshot(t, mem, "")); !maps.Equal(got, after) {
						t.Fatalf("step %d (%s): after the next run the table is not as expected", failAt, ffs.Trace()[failAt-1])
					}
					if tl, err = timeline.Load(ctx, mem); err != nil {
						t.Fatal(err)
					}
					if p := tl.Pending(); p.Len() != 0 {
						t.Fatalf("step %d: pending instants left: %v", failAt, p.Instants())
					}
					if done := tl.Completed().Filter(func(in timeline.Instant) bool {
						return in.Action == timeline.ActionRollback || in.Action == timeline.ActionRestore
					}).Instants(); len(done) != 1 || done[0].Action != tc.action {
						t.Fatalf("step %d (%s): completed rollbacks and restores %v; want one %s", failAt, ffs.Trace()[failAt-1], done, tc.action)
					}
					if entries, _ := mem.ReadDir(ctx, storage.TempFolder); len(entries) != 0 {
						t.Fatalf("step %d: markers left: %v", failAt, entries)
					}
					verifyIndex(t, mem, dir, dir)
				}
			}
		})
	}
}

// TestRestoreKilled restores a table over many writes in a child process,
// kills it with SIGKILL at several moments, each time checking that a
// reader sees the table as of one of its writes; the next child carries
// on, and a last restore in this process completes it.
func TestRestoreKilled(t *testing.T) {
	if dir := os.Getenv("HOODIE_KILL_RESTORE"); dir != "" {
		killedRestoreChild(dir, os.Getenv("HOODIE_KILL_SAVEPOINT"))
		return
	}
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short mode")
	}
	ctx := context.Background()
	settings := DefaultSettings()
	settings.MaxFileSize = 16 << 10 // several file groups a write
	settings.SmallFileLimit = 12 << 10
	tt := newTripsTable(t, config.MergeEventTime, settings)
	gen := trips.NewGenerator(8)
	initial := gen.Inserts(400)
	saved := tt.write(OpInsert, tripsInput(initial)).Instant
	writeSavepoint(t, tt.fsys, saved)
	states := []map[string]string{dataOf(snapshot(t, tt.fsys, ""))}
	for range 6 {
		tt.write(OpUpsert, tripsInput(append(gen.Updates(initial, 40), gen.Inserts(10)...)))
		states = append(states, dataOf(snapshot(t, tt.fsys, "")))
	}
	for _, delay := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond} {
		killChild(t, "TestRestoreKilled", "restoring", delay, "HOODIE_KILL_RESTORE="+tt.dir, "HOODIE_KILL_SAVEPOINT="+saved)
		got := dataOf(snapshot(t, tt.fsys, ""))
		if !slices.ContainsFunc(states, func(s map[string]string) bool { return maps.Equal(s, got) }) {
			t.Fatalf("killed after %v: a reader sees a table that is none of its writes", delay)
		}
	}
	if _, err := tt.w.Restore(ctx, saved); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(dataOf(snapshot(t, tt.fsys, "")), states[0]) {
		t.Fatal("after the last restore the table is not as of the savepoint")
	}
	tl, err := timeline.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Pending().Len() != 0 || tl.CompletedCommits().After(saved).Len() != 0 {
		t.Fatalf("after the last restore: pending %v, writes after the savepoint %v", tl.Pending().Instants(), tl.CompletedCommits().After(saved).Instants())
	}
	verifyIndex(t, tt.fsys, tt.w.opts.IndexDir, tt.dir)
}

// killedRestoreChild restores the table in dir to savepoint until it is
// killed.
func killedRestoreChild(dir, savepoint string) {
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("restoring\n")
	if _, err := newTestWriter(fsys, dir, Settings{}).Restore(context.Background(), savepoint); err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}

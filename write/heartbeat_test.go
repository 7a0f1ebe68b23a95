package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

// hookFunc is a PreCommitHook of a function.
type hookFunc func(ctx context.Context, c *PendingCommit) error

func (f hookFunc) PreCommit(ctx context.Context, c *PendingCommit) error { return f(ctx, c) }

// beatCountingFS counts the writes of heartbeats, the creation and the
// refreshes.
type beatCountingFS struct {
	*storage.LocalFS
	beats atomic.Int64
}

func (f *beatCountingFS) WriteFile(ctx context.Context, name string, data []byte) error {
	err := f.LocalFS.WriteFile(ctx, name, data)
	if err == nil && strings.HasPrefix(name, heartbeatFolder+"/") {
		f.beats.Add(1)
	}
	return err
}

// A write keeps a Hoodie heartbeat, as Hudi's writers do, from before its
// first data file until its commit completes or is rolled back; it
// refreshes it every heartbeat interval meanwhile.
func TestWriteKeepsAHeartbeat(t *testing.T) {
	ctx := context.Background()
	for _, refused := range []bool{false, true} {
		name := "committed"
		if refused {
			name = "refused"
		}
		t.Run(name, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			props := config.NewProperties()
			props.Set(KeyHeartbeatInterval, "1")
			// A second before it expires, whatever the machine's load.
			props.Set(KeyHeartbeatMisses, "1000")
			settings, err := ParseSettings(props)
			if err != nil {
				t.Fatal(err)
			}
			cfs := &beatCountingFS{LocalFS: tt.fsys.(*storage.LocalFS)}
			var instant string
			beating := func(ctx context.Context, instant string) error {
				data, err := tt.fsys.ReadFile(ctx, heartbeatPath(instant))
				if err != nil {
					return err
				}
				if !bytes.Equal(data, hoodieHeartbeat) {
					return errors.New("the heartbeat is not Hoodie's: " + string(data))
				}
				return nil
			}
			var progressErr atomic.Value
			hook := hookFunc(func(ctx context.Context, c *PendingCommit) error {
				instant = c.Instant
				if err := beating(ctx, c.Instant); err != nil {
					t.Errorf("no heartbeat before the commit: %v", err)
				}
				// Two refreshes after the creation.
				deadline := time.Now().Add(time.Minute)
				for cfs.beats.Load() < 3 {
					if time.Now().After(deadline) {
						t.Fatalf("the heartbeat was written %d times in a minute, interval 1 ms", cfs.beats.Load())
					}
					time.Sleep(time.Millisecond)
				}
				if err := beating(ctx, c.Instant); err != nil {
					t.Errorf("no heartbeat after its refreshes: %v", err)
				}
				if refused {
					return &RefusedError{errors.New("refused by the test")}
				}
				return nil
			})
			w := NewWriter(cfs, Options{Settings: settings, IndexDir: t.TempDir(), TableID: tt.dir, Hook: hook,
				Progress: func(done, total int) {
					// A refresh may be replacing the heartbeat meanwhile,
					// through a temporary file.
					entries, err := tt.fsys.ReadDir(ctx, heartbeatFolder)
					for _, e := range entries {
						if beating(ctx, e.Name) == nil {
							return
						}
					}
					progressErr.Store(fmt.Errorf("no heartbeat while writing files (%v, %v)", entries, err))
				}})
			_, err = w.Write(ctx, OpInsert, tripsInput(trips.NewGenerator(5).Inserts(20)))
			if refused != (err != nil) {
				t.Fatalf("write error %v, refused %v", err, refused)
			}
			if e := progressErr.Load(); e != nil {
				t.Errorf("during the write: %v", e)
			}
			if instant == "" {
				t.Fatal("the hook did not run")
			}
			if _, err := tt.fsys.Stat(ctx, heartbeatPath(instant)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("heartbeat of %s after the write: stat error %v, want none", instant, err)
			}
		})
	}
}

// A write creates its heartbeat before its requested instant, as Hudi's
// writers do: a Spark writer that sees the instant sees its writer alive.
func TestWriteHeartbeatBeforeRequested(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	ffs := faultfs.New(tt.fsys, 0)
	w := newTestWriter(ffs, tt.dir, Settings{})
	res, err := w.Write(context.Background(), OpInsert, tripsInput(trips.NewGenerator(5).Inserts(5)))
	if err != nil {
		t.Fatal(err)
	}
	beat, requested := -1, -1
	for i, step := range ffs.Trace() {
		switch {
		case beat < 0 && strings.HasSuffix(step, heartbeatPath(res.Instant)):
			beat = i
		case requested < 0 && strings.HasSuffix(step, res.Instant+".commit.requested"):
			requested = i
		}
	}
	if beat < 0 || requested < 0 || beat > requested {
		t.Fatalf("heartbeat at step %d, requested file at step %d; want the heartbeat first: %v", beat, requested, ffs.Trace())
	}
}

// A write whose heartbeat expired or was removed before it completes is
// refused with nothing committed, as Hudi aborts such a commit: another
// writer may have taken it for dead and rolled it back.
func TestWriteRefusedWhenHeartbeatLost(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		lose func(path string) error
		want string
	}{
		{"expired", func(path string) error {
			// The refreshes stalled an hour (the default interval is a
			// minute, and the write ends long before).
			old := time.Now().Add(-time.Hour)
			return os.Chtimes(path, old, old)
		}, "its heartbeat expired"},
		{"removed", os.Remove, "its heartbeat .hoodie/.heartbeat/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			tt.write(OpInsert, tripsInput(trips.NewGenerator(1).Inserts(5)))
			before := dataOf(snapshot(t, tt.fsys, ""))
			hook := hookFunc(func(ctx context.Context, c *PendingCommit) error {
				return tc.lose(filepath.Join(tt.dir, filepath.FromSlash(heartbeatPath(c.Instant))))
			})
			w := NewWriter(tt.fsys, Options{Settings: DefaultSettings(), IndexDir: t.TempDir(), TableID: tt.dir, Hook: hook})
			_, err := w.Write(ctx, OpInsert, tripsInput(trips.NewGenerator(2).Inserts(5)))
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want it refused with %q", err, tc.want)
			}
			if got := dataOf(snapshot(t, tt.fsys, "")); !equalData(got, before) {
				t.Fatal("the refused write changed the table")
			}
			tl, _ := tt.latest()
			if tl.Pending().Len() != 0 {
				t.Fatalf("pending instants left: %v", tl.Pending().Instants())
			}
		})
	}
}

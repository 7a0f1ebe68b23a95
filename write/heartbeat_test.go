package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
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

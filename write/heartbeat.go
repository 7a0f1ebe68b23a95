package write

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

// heartbeatFolder holds the heartbeats of writers, as Hudi's
// HoodieHeartbeatClient keeps them: a live writer touches
// .hoodie/.heartbeat/<instant> every heartbeat interval, and deletes it
// once its write completes or is rolled back.
const heartbeatFolder = storage.MetaFolder + "/.heartbeat"

// hoodieHeartbeat is the content of Hoodie's heartbeats. Hudi reads only a
// heartbeat's modification time, and writes it empty: the content tells
// Hoodie's heartbeats from Spark's.
var hoodieHeartbeat = []byte("hoodie\n")

// heartbeatPath is the heartbeat of the instant.
func heartbeatPath(instant string) string {
	return heartbeatFolder + "/" + instant
}

// heartbeat is a write's own heartbeat, refreshed on its goroutine until
// stop.
type heartbeat struct {
	fsys    storage.FS
	instant string
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// startHeartbeat creates the heartbeat of the instant and touches it every
// interval (the default, a minute, if zero) until stop, so that a Spark
// writer with hoodie.cleaner.policy.failed.writes=LAZY leaves the write
// alone. A failed refresh is tried again at the next tick.
func startHeartbeat(ctx context.Context, fsys storage.FS, instant string, interval time.Duration) (*heartbeat, error) {
	if err := fsys.WriteFile(ctx, heartbeatPath(instant), hoodieHeartbeat); err != nil {
		return nil, fmt.Errorf("start the heartbeat of %s: %w", instant, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &heartbeat{fsys: fsys, instant: instant, cancel: cancel}
	ticker := time.NewTicker(cmp.Or(interval, DefaultSettings().HeartbeatInterval))
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				// A heartbeat gone was removed by another writer's
				// rollback of the write: it stays gone, and the write
				// fails before it completes (see Writer.checkHeartbeat).
				if _, err := fsys.Stat(ctx, heartbeatPath(instant)); errors.Is(err, fs.ErrNotExist) {
					return
				}
				_ = fsys.WriteFile(ctx, heartbeatPath(instant), hoodieHeartbeat)
			}
		}
	}()
	return h, nil
}

// stop ends the refreshes and deletes the heartbeat. A heartbeat that
// cannot be deleted is left to the next write (see removeHeartbeats).
func (h *heartbeat) stop(ctx context.Context) {
	h.cancel()
	h.done.Wait()
	_ = h.fsys.RemoveAll(context.WithoutCancel(ctx), heartbeatPath(h.instant))
}

// heartbeatFresh reports whether the writer of the pending instant may be
// alive: a Spark writer whose heartbeat has not expired (see
// Settings.HeartbeatTimeout). A Hoodie heartbeat never is: the caller holds
// the table's writer lock, which Hoodie's writers take for their whole
// write, so its writer died.
func (w *Writer) heartbeatFresh(ctx context.Context, instant string) (bool, error) {
	info, err := w.fsys.Stat(ctx, heartbeatPath(instant))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check the heartbeat of %s: %w", instant, err)
	}
	if w.opts.Clock().Sub(info.ModTime) > cmp.Or(w.settings.HeartbeatTimeout, DefaultSettings().HeartbeatTimeout) {
		return false, nil
	}
	hoodie, err := isHoodieHeartbeat(ctx, w.fsys, instant)
	return !hoodie, err
}

// isHoodieHeartbeat reports whether the heartbeat of the instant is one a
// Hoodie writer left.
func isHoodieHeartbeat(ctx context.Context, fsys storage.FS, instant string) (bool, error) {
	data, err := fsys.ReadFile(ctx, heartbeatPath(instant))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the heartbeat of %s: %w", instant, err)
	}
	return bytes.Equal(data, hoodieHeartbeat), nil
}

// removeHeartbeats deletes the heartbeats no writer keeps: those of
// instants that are not pending and are complete, or whose heartbeat is
// Hoodie's (its writer died, or failed to delete it). A Spark writer
// creates its heartbeat before its requested instant, so a Spark heartbeat
// of an instant not in the timeline may be alive: it stays.
func removeHeartbeats(ctx context.Context, fsys storage.FS, pending, known func(instant string) bool) error {
	entries, err := fsys.ReadDir(ctx, heartbeatFolder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list heartbeats: %w", err)
	}
	for _, e := range entries {
		if e.IsDir || pending(e.Name) {
			continue
		}
		dead := known(e.Name)
		if !dead {
			if dead, err = isHoodieHeartbeat(ctx, fsys, e.Name); err != nil {
				return err
			}
		}
		if dead {
			if err := fsys.RemoveAll(ctx, heartbeatPath(e.Name)); err != nil {
				return fmt.Errorf("remove the heartbeat of %s: %w", e.Name, err)
			}
		}
	}
	return nil
}

// checkHeartbeat fails, refused, if the write's own heartbeat has expired
// (not refreshed for Settings.HeartbeatTimeout, by the writer's clock) or
// is gone, as Hudi's writers abort a commit whose heartbeat expired
// (HeartbeatUtils.abortIfHeartbeatExpired): a Spark writer with the
// multi-writer setting LAZY may have taken the write for dead and rolled
// it back meanwhile.
func (w *Writer) checkHeartbeat(ctx context.Context, instant string) error {
	info, err := w.fsys.Stat(ctx, heartbeatPath(instant))
	if errors.Is(err, fs.ErrNotExist) {
		return &RefusedError{fmt.Errorf("commit %s: its heartbeat %s is gone, as another writer's rollback of it removes it: the write is not committed", instant, heartbeatPath(instant))}
	}
	if err != nil {
		return fmt.Errorf("check the heartbeat of %s: %w", instant, err)
	}
	timeout := cmp.Or(w.settings.HeartbeatTimeout, DefaultSettings().HeartbeatTimeout)
	if age := w.opts.Clock().Sub(info.ModTime); age > timeout {
		return &RefusedError{fmt.Errorf("commit %s: its heartbeat expired (last refreshed %s ago, more than %s, %s times %s): another writer may have rolled the write back; the write is not committed",
			instant, age.Round(time.Millisecond), timeout, KeyHeartbeatMisses, KeyHeartbeatInterval)}
	}
	return nil
}

package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// LockFile is the table-relative path of the writer lock.
const LockFile = MetaFolder + "/.lock"

// ErrLocked reports a lock that another writer holds.
var ErrLocked = errors.New("held by another writer")

// Locker is implemented by file systems that can hold an exclusive lock on
// behalf of one writer. The lock must be released when the holder's process
// dies, so that a crashed writer never blocks a table forever.
type Locker interface {
	// TryLock takes the lock named name without waiting: it fails with an
	// error satisfying errors.Is(err, ErrLocked) when another holder has it.
	// The returned function releases it.
	TryLock(ctx context.Context, name string) (unlock func() error, err error)
}

// Lock takes the lock named name on fsys, retrying until ctx is done. A file
// system that does not implement Locker cannot be written safely and is
// refused.
func Lock(ctx context.Context, fsys FS, name string) (func() error, error) {
	locker, ok := fsys.(Locker)
	if !ok {
		return nil, fmt.Errorf("lock %s: this file system cannot hold a writer lock", name)
	}
	wait := 5 * time.Millisecond
	for {
		unlock, err := locker.TryLock(ctx, name)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock %s: %w (%v)", name, err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// TryLock implements Locker with flock(2) on a lock file: the kernel releases
// the lock when the holding process exits, however it exits.
func (l *LocalFS) TryLock(ctx context.Context, name string) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := l.resolve("lock", name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", p, ErrLocked)
		}
		return nil, fmt.Errorf("flock %s: %w", p, err)
	}
	// Record the holder for people looking at a stuck table; the lock itself
	// is the flock, not this content.
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	return func() error {
		unlockErr := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		closeErr := f.Close()
		return errors.Join(unlockErr, closeErr)
	}, nil
}

// memLocks holds the locks of every MemFS; a MemFS lives in one process, so a
// mutex-guarded set is enough.
type memLocks struct {
	mu   sync.Mutex
	held map[string]bool
}

// TryLock implements Locker in memory.
func (m *MemFS) TryLock(ctx context.Context, name string) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := memPath("lock", name)
	if err != nil {
		return nil, err
	}
	m.locks.mu.Lock()
	defer m.locks.mu.Unlock()
	if m.locks.held == nil {
		m.locks.held = map[string]bool{}
	}
	if m.locks.held[p] {
		return nil, fmt.Errorf("%s: %w", name, ErrLocked)
	}
	m.locks.held[p] = true
	var once sync.Once
	return func() error {
		once.Do(func() {
			m.locks.mu.Lock()
			delete(m.locks.held, p)
			m.locks.mu.Unlock()
		})
		return nil
	}, nil
}

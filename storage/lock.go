package storage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// LockHolder identifies the process that holds a lock.
type LockHolder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// String says who holds the lock: "pid 42 on host h since 2024-01-02T03:04:05Z".
func (h *LockHolder) String() string {
	return fmt.Sprintf("pid %d on host %s since %s", h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
}

// thisProcess is the holder record of the calling process, as of now.
func thisProcess() *LockHolder {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return &LockHolder{PID: os.Getpid(), Host: host, Since: time.Now().UTC().Truncate(time.Second)}
}

// LockedError reports a lock another writer holds; errors.Is(err,
// ErrLocked) is true for it.
type LockedError struct {
	// Name is the lock's name.
	Name string
	// Holder is who holds it, or nil when the holder has not recorded
	// itself (yet).
	Holder *LockHolder
}

func (e *LockedError) Error() string {
	if e.Holder == nil {
		return "locked by another writer"
	}
	return "locked by " + e.Holder.String()
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Locker is implemented by file systems that can hold an exclusive lock on
// behalf of one writer. The lock must be released when the holder's process
// dies, so that a crashed writer never blocks a table forever.
type Locker interface {
	// TryLock takes the lock named name without waiting, and records the
	// calling process as its holder. It fails with a *LockedError, naming
	// the holder when it recorded itself, when another holder has it. The
	// returned function releases it.
	TryLock(ctx context.Context, name string) (unlock func() error, err error)
}

// LockOptions tune how Lock waits.
type LockOptions struct {
	// Timeout bounds the wait: Lock then fails with the *LockedError of
	// the holder. Zero waits until the context is done.
	Timeout time.Duration
	// Waiting, if not nil, is called once when the lock has been busy for
	// NoticeAfter, with its holder (nil when unknown); always before a
	// Timeout of at least NoticeAfter fails.
	Waiting func(holder *LockHolder)
	// NoticeAfter is when Waiting is called; zero means one second.
	NoticeAfter time.Duration
}

// Lock takes the lock named name on fsys, retrying until it is free, ctx is
// done or opts.Timeout has passed. A file system that does not implement
// Locker cannot be written safely and is refused.
func Lock(ctx context.Context, fsys FS, name string, opts LockOptions) (func() error, error) {
	locker, ok := fsys.(Locker)
	if !ok {
		return nil, fmt.Errorf("lock %s: this file system cannot hold a writer lock", name)
	}
	var deadline, notice <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	noticeAfter := cmp.Or(opts.NoticeAfter, time.Second)
	if opts.Waiting != nil {
		t := time.NewTimer(noticeAfter)
		defer t.Stop()
		notice = t.C
	}
	wait := 5 * time.Millisecond
	var locked *LockedError // the last refusal
	for {
		unlock, err := locker.TryLock(ctx, name)
		if err == nil {
			return unlock, nil
		}
		if !errors.As(err, &locked) {
			if locked != nil && ctx.Err() != nil {
				// Done while waiting: say for whom.
				return nil, fmt.Errorf("lock %s: %w (%w)", name, locked, ctx.Err())
			}
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock %s: %w (%w)", name, err, ctx.Err())
		case <-deadline:
			if notice != nil && opts.Timeout >= noticeAfter {
				// Both fired: the notice comes first, whichever
				// select picked.
				opts.Waiting(locked.Holder)
			}
			return nil, fmt.Errorf("%w; gave up waiting after %v", err, opts.Timeout)
		case <-notice:
			notice = nil
			opts.Waiting(locked.Holder)
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
			return nil, &LockedError{Name: name, Holder: readHolder(p + holderSuffix)}
		}
		return nil, fmt.Errorf("flock %s: %w", p, err)
	}
	// Record the holder for writers that wait and people looking at a
	// stuck table; the lock itself is the flock, not this record. The
	// record is replaced atomically, so a reader sees a whole one. It is
	// only a courtesy: when it cannot be written (a full disk), the lock
	// is still taken and an older record is dropped, so that a waiter
	// never names a holder that is gone; what the holder then writes
	// fails with the cause itself.
	if writeHolder(p+holderSuffix, thisProcess()) != nil {
		os.Remove(p + holderSuffix)
	}
	return func() error {
		// Drop the record while holding the lock: the next holder's is
		// never removed.
		removeErr := os.Remove(p + holderSuffix)
		if errors.Is(removeErr, fs.ErrNotExist) {
			removeErr = nil
		}
		unlockErr := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		closeErr := f.Close()
		return errors.Join(removeErr, unlockErr, closeErr)
	}, nil
}

// holderSuffix names the file beside a lock file that records its holder.
const holderSuffix = ".holder"

// writeHolder records h in the file path, replacing it atomically.
func writeHolder(path string, h *LockHolder) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("record the lock holder: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record the lock holder: %w", err)
	}
	return nil
}

// readHolder reads the holder record at path; nil when there is none, it
// cannot be read, or it names a process of this host that is gone (the
// lock is busy either way).
func readHolder(path string) *LockHolder {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var h LockHolder
	if json.Unmarshal(data, &h) != nil || h.PID <= 0 {
		return nil
	}
	if host, err := os.Hostname(); err == nil && host == h.Host && errors.Is(syscall.Kill(h.PID, 0), syscall.ESRCH) {
		// A dead holder's record, left by a holder killed before it
		// could remove it: the live holder has not recorded itself yet.
		return nil
	}
	return &h
}

// memLocks holds the locks of every MemFS; a MemFS lives in one process, so a
// mutex-guarded set is enough.
type memLocks struct {
	mu   sync.Mutex
	held map[string]*LockHolder
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
		m.locks.held = map[string]*LockHolder{}
	}
	if h, held := m.locks.held[p]; held {
		return nil, &LockedError{Name: name, Holder: h}
	}
	m.locks.held[p] = thisProcess()
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

package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/locktest"
	"github.com/hoodie-dev/hoodie/storage"
)

func TestLockExcludes(t *testing.T) {
	ctx := context.Background()
	for name, fsys := range fileSystems(t) {
		t.Run(name, func(t *testing.T) {
			unlock, err := storage.Lock(ctx, fsys, storage.LockFile, storage.LockOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = fsys.(storage.Locker).TryLock(ctx, storage.LockFile)
			var locked *storage.LockedError
			if !errors.Is(err, storage.ErrLocked) || !errors.As(err, &locked) || locked.Holder == nil || locked.Holder.PID != os.Getpid() {
				t.Fatalf("second TryLock: got %v, want ErrLocked naming this process", err)
			}
			short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancel()
			if _, err := storage.Lock(short, fsys, storage.LockFile, storage.LockOptions{}); !errors.Is(err, storage.ErrLocked) {
				t.Fatalf("Lock with a deadline: got %v, want ErrLocked", err)
			}
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			if _, err := fsys.Stat(ctx, storage.LockFile+".holder"); name == "local" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("holder record after unlock: %v, want none", err)
			}
			again, err := storage.Lock(ctx, fsys, storage.LockFile, storage.LockOptions{})
			if err != nil {
				t.Fatalf("lock after unlock: %v", err)
			}
			again()
		})
	}
}

// TestLockReleasedWhenHolderIsKilled takes the lock in a child process,
// checks what a writer waiting for it learns, kills the child with SIGKILL,
// and checks that the lock is free again.
func TestLockReleasedWhenHolderIsKilled(t *testing.T) {
	locktest.Serve()
	dir := t.TempDir()
	holder := locktest.Start(t, "TestLockReleasedWhenHolderIsKilled", dir)
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := fsys.TryLock(ctx, storage.LockFile); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("lock held by the child: got %v, want ErrLocked", err)
	}
	checkHolderIsChild(t, fsys, holder.PID())
	holder.Kill()
	unlock, err := fsys.TryLock(ctx, storage.LockFile)
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	unlock()
}

// checkHolderIsChild checks that a writer blocked by the child's lock learns
// whom it waits for: when blocked, after NoticeAfter, and when it gives up.
func checkHolderIsChild(t *testing.T, fsys *storage.LocalFS, pid int) {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pid %d on host %s since ", pid, host)
	_, err = fsys.TryLock(context.Background(), storage.LockFile)
	var locked *storage.LockedError
	if !errors.As(err, &locked) || locked.Holder == nil || locked.Holder.PID != pid || locked.Holder.Host != host {
		t.Fatalf("TryLock of a held lock: %v, want a LockedError naming pid %d on %s", err, pid, host)
	}
	if age := time.Since(locked.Holder.Since); age < 0 || age > time.Hour {
		t.Errorf("holder since %v, want about now", locked.Holder.Since)
	}
	_, err = storage.Lock(context.Background(), fsys, storage.LockFile, storage.LockOptions{Timeout: 20 * time.Millisecond})
	if !errors.Is(err, storage.ErrLocked) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "gave up waiting after 20ms") {
		t.Errorf("Lock with a timeout: %v, want one naming %q", err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var told []*storage.LockHolder
	_, err = storage.Lock(ctx, fsys, storage.LockFile, storage.LockOptions{NoticeAfter: time.Millisecond, Waiting: func(h *storage.LockHolder) {
		told = append(told, h)
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || len(told) != 1 || told[0] == nil || told[0].PID != pid {
		t.Errorf("Lock told %v and returned %v; want the child's pid %d once, then the cancellation", told, err, pid)
	}
}

// TestStaleHolderRecordIsNotNamed checks that a record left by a holder
// that died is not taken for the live holder's.
func TestStaleHolderRecordIsNotNamed(t *testing.T) {
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unlock, err := storage.Lock(ctx, fsys, storage.LockFile, storage.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// A process that has ended, on this host, as the record's holder.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	record := fmt.Sprintf(`{"pid":%d,"host":%q,"since":"2024-01-02T03:04:05Z"}`, gone.Process.Pid, host)
	if err := fsys.WriteFile(ctx, storage.LockFile+".holder", []byte(record)); err != nil {
		t.Fatal(err)
	}
	_, err = fsys.TryLock(ctx, storage.LockFile)
	var locked *storage.LockedError
	if !errors.As(err, &locked) || locked.Holder != nil || err.Error() != "locked by another writer" {
		t.Errorf("TryLock: %v, want a LockedError without the dead holder", err)
	}
}

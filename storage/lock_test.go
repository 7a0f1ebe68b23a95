package storage_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

func TestLockExcludes(t *testing.T) {
	ctx := context.Background()
	for name, fsys := range fileSystems(t) {
		t.Run(name, func(t *testing.T) {
			unlock, err := storage.Lock(ctx, fsys, storage.LockFile)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fsys.(storage.Locker).TryLock(ctx, storage.LockFile)
			if !errors.Is(err, storage.ErrLocked) {
				t.Fatalf("second TryLock: got %v, want ErrLocked", err)
			}
			short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancel()
			if _, err := storage.Lock(short, fsys, storage.LockFile); !errors.Is(err, storage.ErrLocked) {
				t.Fatalf("Lock with a deadline: got %v, want ErrLocked", err)
			}
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			again, err := storage.Lock(ctx, fsys, storage.LockFile)
			if err != nil {
				t.Fatalf("lock after unlock: %v", err)
			}
			again()
		})
	}
}

// TestLockReleasedWhenHolderIsKilled takes the lock in a child process, kills
// it with SIGKILL, and checks that the lock is free again.
func TestLockReleasedWhenHolderIsKilled(t *testing.T) {
	if dir := os.Getenv("HOODIE_LOCK_HOLDER"); dir != "" {
		fsys, err := storage.NewLocalFS(dir)
		if err != nil {
			os.Exit(1)
		}
		if _, err := storage.Lock(context.Background(), fsys, storage.LockFile); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockReleasedWhenHolderIsKilled$")
	cmd.Env = append(os.Environ(), "HOODIE_LOCK_HOLDER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("child did not take the lock: %q %v", line, err)
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := fsys.TryLock(ctx, storage.LockFile); !errors.Is(err, storage.ErrLocked) {
		cmd.Process.Kill()
		t.Fatalf("lock held by the child: got %v, want ErrLocked", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	unlock, err := fsys.TryLock(ctx, storage.LockFile)
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	unlock()
}

package faultfs_test

import (
	"context"
	"errors"
	"io"
	"syscall"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

// steps runs a fixed sequence of mutating operations on fsys and returns
// the first error.
func steps(ctx context.Context, fsys storage.FS) error {
	if err := fsys.MkdirAll(ctx, "a"); err != nil {
		return err
	}
	if err := fsys.CreateIfAbsent(ctx, "a/x", []byte("x")); err != nil {
		return err
	}
	w, err := fsys.Create(ctx, "a/y")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, "hello"); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return fsys.Rename(ctx, "a/y", "a/z")
}

func TestFailsAtTheChosenStepAndAfter(t *testing.T) {
	ctx := context.Background()
	probe := faultfs.New(storage.NewMemFS(), 0)
	if err := steps(ctx, probe); err != nil {
		t.Fatal(err)
	}
	if probe.Steps() != 6 || probe.Crashed() {
		t.Fatalf("clean run: %d steps, crashed %v; trace %v", probe.Steps(), probe.Crashed(), probe.Trace())
	}
	for failAt := 1; failAt <= 6; failAt++ {
		mem := storage.NewMemFS()
		f := faultfs.New(mem, failAt)
		err := steps(ctx, f)
		if !errors.Is(err, faultfs.ErrInjected) || !f.Crashed() || f.Steps() != failAt {
			t.Fatalf("fail at %d: err %v, crashed %v, steps %d", failAt, err, f.Crashed(), f.Steps())
		}
		// Every later mutation fails too; reads still pass through.
		if err := f.WriteFile(ctx, "later", nil); !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("fail at %d: a later step succeeded", failAt)
		}
		if _, err := f.ReadDir(ctx, "."); err != nil {
			t.Fatalf("fail at %d: read after the crash: %v", failAt, err)
		}
		if ok, _ := storage.Exists(ctx, mem, "a/z"); ok {
			t.Fatalf("fail at %d: the last step happened", failAt)
		}
	}
	// A failing write tears: half of its buffer reaches the file.
	mem := storage.NewMemFS()
	f := faultfs.New(mem, 4)
	steps(ctx, f)
	if data, _ := mem.ReadFile(ctx, "a/y"); string(data) != "he" {
		t.Fatalf("torn write left %q, want %q", data, "he")
	}
}

func TestFullDiskFailsWritesUntilFreed(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemFS()
	if err := mem.WriteFile(ctx, "old", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f := faultfs.New(mem, 2).Full(syscall.ENOSPC)
	err := steps(ctx, f)
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, faultfs.ErrInjected) || f.Steps() != 2 {
		t.Fatalf("err %v after %d steps, want ENOSPC at step 2", err, f.Steps())
	}
	// Removing and renaming work on a full disk; adding data does not.
	if err := f.Rename(ctx, "old", "older"); err != nil {
		t.Fatalf("rename on a full disk: %v", err)
	}
	if err := f.Remove(ctx, "older"); err != nil {
		t.Fatalf("remove on a full disk: %v", err)
	}
	if err := f.MkdirAll(ctx, "b"); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("mkdir on a full disk: %v", err)
	}
	f.Free()
	if err := steps(ctx, f); err != nil {
		t.Fatalf("once freed: %v", err)
	}
}

// Package faultfs wraps a storage.FS so that a chosen mutating step fails, as
// if the process died there. Crash tests run an operation once to count its
// steps, then once per step with the failure injected at that step, and check
// what a reader sees afterwards on the inner FS.
package faultfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hoodie-dev/hoodie/storage"
)

// ErrInjected is the error returned by the failing step and every mutating
// step after it.
var ErrInjected = errors.New("faultfs: injected failure")

// FS is a storage.FS whose mutating steps are counted; the step numbered
// FailAt (counting from 1) and every mutating step after it fail with
// ErrInjected. FailAt 0 never fails. Reads always pass through.
//
// Each call of Create, CreateIfAbsent, WriteFile, Rename, Remove, RemoveAll and
// MkdirAll is one step, and so is each Write and Close on a writer from
// Create; a failing Write first writes half of its buffer, as a torn write
// would.
//
// Full turns the crash into a full disk: the failing steps fail with
// another error (ENOSPC), only the steps that add data fail, and Free
// ends the failure.
type FS struct {
	inner  storage.FS
	failAt int

	mu      sync.Mutex
	steps   int
	crashed bool
	trace   []string
	full    error // the error of a full disk, if Full was called
	freed   bool
}

var _ storage.FS = (*FS)(nil)

// New wraps inner so that step failAt fails (0: never).
func New(inner storage.FS, failAt int) *FS {
	return &FS{inner: inner, failAt: failAt}
}

// Steps is the number of mutating steps attempted so far.
func (f *FS) Steps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.steps
}

// Crashed reports whether the injected failure has happened.
func (f *FS) Crashed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashed
}

// Trace lists the mutating steps attempted, as "op name", in order.
func (f *FS) Trace() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.trace...)
}

// Full makes f a disk that fills up at step failAt, rather than a process
// that dies there: from that step on, the steps that add data (Create,
// CreateIfAbsent, WriteFile, MkdirAll, and Write and Close on a writer)
// fail with err, wrapped with ErrInjected, until Free is called; Remove,
// RemoveAll and Rename go on working, as they do on a full disk. It
// returns f.
func (f *FS) Full(err error) *FS {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.full = err
	return f
}

// Free ends a full disk's failure (see Full): later steps pass, as after
// space was freed.
func (f *FS) Free() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.freed = true
}

// step counts one mutating step and reports whether it must fail. adds
// says whether the step adds data (see Full).
func (f *FS) step(op, name string, adds bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steps++
	f.trace = append(f.trace, op+" "+name)
	if !f.crashed && (f.failAt <= 0 || f.steps < f.failAt) {
		return nil
	}
	f.crashed = true
	switch {
	case f.full == nil:
		return fmt.Errorf("%s %s: %w", op, name, ErrInjected)
	case adds && !f.freed:
		return fmt.Errorf("%s %s: %w (%w)", op, name, f.full, ErrInjected)
	}
	return nil
}

// Open implements storage.FS.
func (f *FS) Open(ctx context.Context, name string) (storage.File, error) {
	return f.inner.Open(ctx, name)
}

// ReadFile implements storage.FS.
func (f *FS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	return f.inner.ReadFile(ctx, name)
}

// Stat implements storage.FS.
func (f *FS) Stat(ctx context.Context, name string) (storage.FileInfo, error) {
	return f.inner.Stat(ctx, name)
}

// ReadDir implements storage.FS.
func (f *FS) ReadDir(ctx context.Context, name string) ([]storage.FileInfo, error) {
	return f.inner.ReadDir(ctx, name)
}

type writer struct {
	f     *FS
	name  string
	inner io.WriteCloser
}

func (w *writer) Write(p []byte) (int, error) {
	if err := w.f.step("write", w.name, true); err != nil {
		n, _ := w.inner.Write(p[:len(p)/2])
		return n, err
	}
	return w.inner.Write(p)
}

func (w *writer) Close() error {
	if err := w.f.step("close", w.name, true); err != nil {
		return err
	}
	return w.inner.Close()
}

// Create implements storage.FS.
func (f *FS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	if err := f.step("create", name, true); err != nil {
		return nil, err
	}
	w, err := f.inner.Create(ctx, name)
	if err != nil {
		return nil, err
	}
	return &writer{f: f, name: name, inner: w}, nil
}

// CreateIfAbsent implements storage.FS.
func (f *FS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if err := f.step("create-if-absent", name, true); err != nil {
		return err
	}
	return f.inner.CreateIfAbsent(ctx, name, data)
}

// WriteFile implements storage.FS.
func (f *FS) WriteFile(ctx context.Context, name string, data []byte) error {
	if err := f.step("write-file", name, true); err != nil {
		return err
	}
	return f.inner.WriteFile(ctx, name, data)
}

// Rename implements storage.FS.
func (f *FS) Rename(ctx context.Context, oldname, newname string) error {
	if err := f.step("rename", oldname+" -> "+newname, false); err != nil {
		return err
	}
	return f.inner.Rename(ctx, oldname, newname)
}

// Remove implements storage.FS.
func (f *FS) Remove(ctx context.Context, name string) error {
	if err := f.step("remove", name, false); err != nil {
		return err
	}
	return f.inner.Remove(ctx, name)
}

// RemoveAll implements storage.FS.
func (f *FS) RemoveAll(ctx context.Context, name string) error {
	if err := f.step("remove-all", name, false); err != nil {
		return err
	}
	return f.inner.RemoveAll(ctx, name)
}

// MkdirAll implements storage.FS.
func (f *FS) MkdirAll(ctx context.Context, name string) error {
	if err := f.step("mkdir", name, true); err != nil {
		return err
	}
	return f.inner.MkdirAll(ctx, name)
}

// TryLock implements storage.Locker when the inner FS does. Taking a lock
// changes nothing a reader sees, so it is not a counted step.
func (f *FS) TryLock(ctx context.Context, name string) (func() error, error) {
	locker, ok := f.inner.(storage.Locker)
	if !ok {
		return nil, fmt.Errorf("lock %s: the wrapped file system cannot hold a writer lock", name)
	}
	return locker.TryLock(ctx, name)
}

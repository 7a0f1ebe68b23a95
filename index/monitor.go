package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// monitor turns the failures Pebble does not return as errors into errors
// of the index. Pebble treats a write that fails in its log or manifest (a
// full disk) and corruption it finds in the background as fatal to the
// process: it calls its logger's Fatalf, which by default exits, and it
// retries a failed flush at once, forever, logging each try, while writes
// that need the memtable space wait for it. The index is a cache of the
// timeline and must never stop a process or hold a table's lock, so the
// monitor records the first such failure, stops the Pebble goroutine that
// reported it for good (see Fatalf), and makes every later use of the
// store fail with that failure, wrapping ErrBroken. Reads and writes run
// on a goroutine of their own (see run), so that a caller waiting for one
// that Pebble will never finish returns as soon as the failure is known.
//
// A store that failed is fenced off (see fencedFS): Pebble's goroutines
// may go on reading, but wait for good at their next change to a file,
// and its lock on the folder is released, so that a new index can take the
// folder's place in the same process.
type monitor struct {
	logger pebble.Logger // Options.Logger, or nil

	once   sync.Once
	err    error         // the failure; set once, before failed is closed
	failed chan struct{} // closed at the first failure

	lockMu sync.Mutex
	lock   io.Closer // Pebble's lock on the folder, once taken
}

func newMonitor(logger pebble.Logger) *monitor {
	return &monitor{logger: logger, failed: make(chan struct{})}
}

// fail records err as the store's failure, unless one is recorded already,
// and returns the recorded failure, which wraps ErrBroken and err, does
// not name the index, and is one line long (Pebble's messages may list
// several problems, one a line).
func (m *monitor) fail(err error) error {
	m.once.Do(func() {
		m.err = fmt.Errorf("%w: %w", ErrBroken, &fatalError{msg: strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " "), cause: err})
		close(m.failed)
		m.lockMu.Lock()
		if m.lock != nil {
			_ = m.lock.Close()
		}
		m.lockMu.Unlock()
	})
	<-m.failed
	return m.err
}

// locked reports whether the store's folder lock was taken.
func (m *monitor) locked() bool {
	m.lockMu.Lock()
	defer m.lockMu.Unlock()
	return m.lock != nil
}

// failure returns the store's failure, or nil.
func (m *monitor) failure() error {
	select {
	case <-m.failed:
		return m.err
	default:
		return nil
	}
}

// check returns err, recording it as the store's failure first when it
// reports corruption.
func (m *monitor) check(err error) error {
	if err != nil && pebble.IsCorruptionError(err) {
		return m.fail(err)
	}
	return err
}

// catch, deferred, turns a panic of Pebble into the store's failure,
// returned in *err. Pebble panics on some failures (a log it cannot
// rotate, some corruption), in the goroutine that called it.
func (m *monitor) catch(err *error) {
	if r := recover(); r != nil {
		*err = m.fail(panicError(r))
	}
}

// run calls op, which uses the store, on a goroutine of its own, and
// returns its error, or the store's failure as soon as there is one: op
// may then never return (a write Pebble stalls, a read that met corruption
// and was stopped). Contexts are op's to watch: Pebble's writes cannot be
// abandoned half done. It costs about a microsecond a call.
func (m *monitor) run(op func() error) error {
	if err := m.failure(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer m.catch(&err)
		err = m.check(op())
	}()
	select {
	case err := <-done:
		return err
	case <-m.failed:
		return m.err
	}
}

// commit commits b and closes it on a goroutine of its own (see run): a
// batch whose commit never returns stays with that goroutine.
func (m *monitor) commit(b *pebble.Batch, o *pebble.WriteOptions) error {
	return m.run(func() error { return errors.Join(b.Commit(o), b.Close()) })
}

// Infof implements pebble.Logger: informational lines go to Options.Logger.
func (m *monitor) Infof(format string, args ...any) {
	if m.logger != nil {
		m.logger.Infof(format, args...)
	}
}

// Errorf implements pebble.Logger: error lines go to Options.Logger. The
// failures among them reach the monitor through the event listener.
func (m *monitor) Errorf(format string, args ...any) {
	if m.logger != nil {
		m.logger.Errorf(format, args...)
	}
}

// Fatalf implements pebble.Logger. Pebble calls it when it can no longer
// trust its own state, and does not expect it to return: going on would
// corrupt the store or its locks. It records the failure, which fails
// whatever waits on the store, and blocks the calling goroutine for good;
// the store is abandoned, and the process goes on.
func (m *monitor) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	m.Errorf("%s", msg)
	err := &fatalError{msg: firstLine(msg)}
	for _, a := range args {
		if cause, ok := a.(error); ok {
			err.cause = cause
			break
		}
	}
	m.fail(err)
	select {}
}

// fatalError is the failure a Fatalf line reports: its text, wrapping the
// error it names, if any (a full disk's ENOSPC).
type fatalError struct {
	msg   string
	cause error
}

func (e *fatalError) Error() string { return e.msg }
func (e *fatalError) Unwrap() error { return e.cause }

// listener returns the event listener that reports Pebble's background
// failures (a flush or compaction that failed, corruption found) to m.
func (m *monitor) listener() *pebble.EventListener {
	return &pebble.EventListener{
		BackgroundError: func(err error) {
			m.Errorf("background error: %v", err)
			m.fail(err)
		},
		// Pebble's default is Fatalf: the goroutine that found the
		// corruption must not go on (one that did made a compaction
		// panic), so it stops here for good, as in Fatalf.
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			m.Errorf("%s", info)
			m.fail(fmt.Errorf("corruption in %s: %w", info.Path, info.Details))
			select {}
		},
	}
}

// panicError returns the error of a panic of Pebble, r, wrapping r when
// it is an error (a full disk's ENOSPC).
func panicError(r any) error {
	cause, _ := r.(error)
	return &fatalError{msg: "pebble panicked: " + firstLine(fmt.Sprint(r)), cause: cause}
}

// firstLine returns s up to its first line break: Pebble's messages may
// carry a stack trace.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// fencedFS is the file system a store is opened on: vfs.FS that stops a
// Pebble goroutine for good, as Fatalf does, where going on would lead
// Pebble into code that panics in its own goroutines or double-unlocks a
// mutex (a fatal error of the Go runtime), both of which end the process:
//
//   - a file it cannot create, or a write, sync or preallocation of a file
//     open for writing that fails (a full disk), is the store's failure;
//   - once the store failed, any file system operation that changes
//     something waits for good, so that a Pebble goroutine still running
//     on a store its index abandoned never touches the folder of an index
//     that replaces it.
//
// It also hands Pebble's lock on the folder to the monitor, which releases
// it at the failure, so that a new index can take the folder's place in
// the same process.
type fencedFS struct {
	vfs.FS
	mon *monitor
}

// stop blocks for good once the store failed.
func (m *monitor) stop() {
	if m.failure() != nil {
		select {}
	}
}

// stopAt records err, if not nil, as the store's failure and blocks for
// good.
func (m *monitor) stopAt(err error) {
	if err != nil {
		m.fail(err)
		select {}
	}
}

func (f fencedFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f.mon.stop()
	file, err := f.FS.Create(name, category)
	f.mon.stopAt(err)
	return fencedFile{File: file, mon: f.mon}, nil
}

func (f fencedFS) Link(oldname, newname string) error {
	f.mon.stop()
	return f.FS.Link(oldname, newname)
}

func (f fencedFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f.mon.stop()
	file, err := f.FS.OpenReadWrite(name, category, opts...)
	if err != nil {
		return nil, err
	}
	return fencedFile{File: file, mon: f.mon}, nil
}

func (f fencedFS) OpenDir(name string) (vfs.File, error) {
	file, err := f.FS.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return fencedFile{File: file, mon: f.mon}, nil
}

func (f fencedFS) Remove(name string) error {
	f.mon.stop()
	return f.FS.Remove(name)
}

func (f fencedFS) RemoveAll(name string) error {
	f.mon.stop()
	return f.FS.RemoveAll(name)
}

func (f fencedFS) Rename(oldname, newname string) error {
	f.mon.stop()
	return f.FS.Rename(oldname, newname)
}

func (f fencedFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f.mon.stop()
	file, err := f.FS.ReuseForWrite(oldname, newname, category)
	f.mon.stopAt(err)
	return fencedFile{File: file, mon: f.mon}, nil
}

func (f fencedFS) MkdirAll(dir string, perm os.FileMode) error {
	f.mon.stop()
	return f.FS.MkdirAll(dir, perm)
}

// Lock takes the lock, and keeps it for the monitor to release at a
// failure. The lock it returns releases it once, whoever closes it first.
func (f fencedFS) Lock(name string) (io.Closer, error) {
	l, err := f.FS.Lock(name)
	if err != nil {
		return nil, err
	}
	once := &onceCloser{c: l}
	f.mon.lockMu.Lock()
	f.mon.lock = once
	f.mon.lockMu.Unlock()
	return once, nil
}

// fencedFile is a file of a fencedFS: a write, sync or close that fails is
// the store's failure, and no write or sync happens after it.
type fencedFile struct {
	vfs.File
	mon *monitor
}

func (f fencedFile) Write(p []byte) (int, error) {
	f.mon.stop()
	n, err := f.File.Write(p)
	f.mon.stopAt(err)
	return n, nil
}

func (f fencedFile) WriteAt(p []byte, off int64) (int, error) {
	f.mon.stop()
	n, err := f.File.WriteAt(p, off)
	f.mon.stopAt(err)
	return n, nil
}

func (f fencedFile) Preallocate(offset, length int64) error {
	f.mon.stop()
	f.mon.stopAt(f.File.Preallocate(offset, length))
	return nil
}

func (f fencedFile) Sync() error {
	f.mon.stop()
	f.mon.stopAt(f.File.Sync())
	return nil
}

func (f fencedFile) SyncData() error {
	f.mon.stop()
	f.mon.stopAt(f.File.SyncData())
	return nil
}

func (f fencedFile) SyncTo(length int64) (bool, error) {
	f.mon.stop()
	full, err := f.File.SyncTo(length)
	f.mon.stopAt(err)
	return full, nil
}

// Close closes the file, even after the failure; a file system may report
// a full disk only there.
func (f fencedFile) Close() error {
	f.mon.stopAt(f.File.Close())
	return nil
}

// onceCloser closes c at its first Close only.
type onceCloser struct {
	once sync.Once
	c    io.Closer
	err  error
}

func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.c.Close() })
	return o.err
}

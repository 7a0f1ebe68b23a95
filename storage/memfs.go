package storage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// MemFS is an FS held in memory, for tests and short-lived tables. Folders
// exist implicitly where files are below them, or explicitly after MkdirAll.
type MemFS struct {
	mu    sync.Mutex
	files map[string]memFile
	dirs  map[string]bool
	locks memLocks
}

type memFile struct {
	data    []byte
	modTime time.Time
}

var _ FS = (*MemFS)(nil)

// NewMemFS returns an empty in-memory FS.
func NewMemFS() *MemFS {
	return &MemFS{files: map[string]memFile{}, dirs: map[string]bool{".": true}}
}

func memPath(op, name string) (string, error) {
	clean, err := CleanPath(name)
	if err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: ErrInvalidPath}
	}
	return clean, nil
}

// mkdirs records p and its parents as folders; the caller holds mu.
func (m *MemFS) mkdirs(p string) {
	for p != "." && p != "/" && !m.dirs[p] {
		m.dirs[p] = true
		p = path.Dir(p)
	}
}

// isDir reports whether p is a folder; the caller holds mu.
func (m *MemFS) isDir(p string) bool {
	if m.dirs[p] {
		return true
	}
	prefix := p + "/"
	for name := range m.files {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

type memReader struct {
	*bytes.Reader
}

func (memReader) Close() error { return nil }

// Open implements FS.
func (m *MemFS) Open(ctx context.Context, name string) (File, error) {
	data, err := m.ReadFile(ctx, name)
	if err != nil {
		return nil, err
	}
	return memReader{bytes.NewReader(data)}, nil
}

// ReadFile implements FS.
func (m *MemFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := memPath("read", name)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(f.data), nil
}

type memWriter struct {
	m      *MemFS
	name   string
	buf    bytes.Buffer
	closed bool
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fs.ErrClosed
	}
	n, _ := w.buf.Write(p)
	w.m.mu.Lock()
	w.m.files[w.name] = memFile{data: bytes.Clone(w.buf.Bytes()), modTime: time.Now()}
	w.m.mu.Unlock()
	return n, nil
}

func (w *memWriter) Close() error {
	if w.closed {
		return fs.ErrClosed
	}
	w.closed = true
	return nil
}

// Create implements FS. Like a local file, the partial content is visible
// while the writer is open.
func (m *MemFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := memPath("create", name)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok || m.isDir(p) {
		return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	m.mkdirs(path.Dir(p))
	m.files[p] = memFile{modTime: time.Now()}
	return &memWriter{m: m, name: p}, nil
}

// CreateIfAbsent implements FS.
func (m *MemFS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := memPath("create", name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok || m.isDir(p) {
		return &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	m.mkdirs(path.Dir(p))
	m.files[p] = memFile{data: bytes.Clone(data), modTime: time.Now()}
	return nil
}

// WriteFile implements FS.
func (m *MemFS) WriteFile(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := memPath("write", name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.isDir(p) {
		return &fs.PathError{Op: "write", Path: name, Err: errors.New("is a folder")}
	}
	m.mkdirs(path.Dir(p))
	m.files[p] = memFile{data: bytes.Clone(data), modTime: time.Now()}
	return nil
}

// Rename implements FS for files.
func (m *MemFS) Rename(ctx context.Context, oldname, newname string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	from, err := memPath("rename", oldname)
	if err != nil {
		return err
	}
	to, err := memPath("rename", newname)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[from]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	delete(m.files, from)
	m.mkdirs(path.Dir(to))
	m.files[to] = f
	return nil
}

// Remove implements FS.
func (m *MemFS) Remove(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := memPath("remove", name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		delete(m.files, p)
		return nil
	}
	if !m.isDir(p) {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	prefix := p + "/"
	for other := range m.files {
		if strings.HasPrefix(other, prefix) {
			return &fs.PathError{Op: "remove", Path: name, Err: errors.New("folder not empty")}
		}
	}
	for dir := range m.dirs {
		if strings.HasPrefix(dir, prefix) {
			return &fs.PathError{Op: "remove", Path: name, Err: errors.New("folder not empty")}
		}
	}
	delete(m.dirs, p)
	return nil
}

// RemoveAll implements FS.
func (m *MemFS) RemoveAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := memPath("remove", name)
	if err != nil {
		return err
	}
	if p == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: errors.New("refusing to remove the table's base folder")}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	prefix := p + "/"
	delete(m.files, p)
	for other := range m.files {
		if strings.HasPrefix(other, prefix) {
			delete(m.files, other)
		}
	}
	delete(m.dirs, p)
	for dir := range m.dirs {
		if strings.HasPrefix(dir, prefix) {
			delete(m.dirs, dir)
		}
	}
	return nil
}

// ReadDir implements FS.
func (m *MemFS) ReadDir(ctx context.Context, name string) ([]FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := memPath("readdir", name)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p != "." && !m.isDir(p) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	prefix := p + "/"
	if p == "." {
		prefix = ""
	}
	seen := map[string]FileInfo{}
	for fname, f := range m.files {
		if rest, ok := strings.CutPrefix(fname, prefix); ok {
			if child, _, nested := strings.Cut(rest, "/"); nested {
				seen[child] = FileInfo{Name: child, IsDir: true}
			} else {
				seen[child] = FileInfo{Name: child, Size: int64(len(f.data)), ModTime: f.modTime}
			}
		}
	}
	for dir := range m.dirs {
		if rest, ok := strings.CutPrefix(dir, prefix); ok && dir != "." {
			child, _, _ := strings.Cut(rest, "/")
			if _, isFile := seen[child]; !isFile {
				seen[child] = FileInfo{Name: child, IsDir: true}
			}
		}
	}
	out := make([]FileInfo, 0, len(seen))
	for _, fi := range seen {
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Stat implements FS.
func (m *MemFS) Stat(ctx context.Context, name string) (FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return FileInfo{}, err
	}
	p, err := memPath("stat", name)
	if err != nil {
		return FileInfo{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[p]; ok {
		return FileInfo{Name: path.Base(p), Size: int64(len(f.data)), ModTime: f.modTime}, nil
	}
	if p == "." || m.isDir(p) {
		return FileInfo{Name: path.Base(p), IsDir: true}, nil
	}
	return FileInfo{}, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// MkdirAll implements FS.
func (m *MemFS) MkdirAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := memPath("mkdir", name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		return &fs.PathError{Op: "mkdir", Path: name, Err: errors.New("is a file")}
	}
	m.mkdirs(p)
	return nil
}

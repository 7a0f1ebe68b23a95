package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// LocalFS is an FS rooted at a folder of the local file system.
type LocalFS struct {
	root string
}

var _ FS = (*LocalFS)(nil)

// NewLocalFS returns an FS rooted at root. The folder need not exist yet.
func NewLocalFS(root string) (*LocalFS, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("table path %q: %w", root, err)
	}
	return &LocalFS{root: abs}, nil
}

// Root is the absolute local path of the base folder.
func (l *LocalFS) Root() string { return l.root }

// EnclosingTable returns the base path of the nearest table, a folder
// holding .hoodie/hoodie.properties (or its backup), among the folders
// above the base path, symbolic links resolved; "" when there is none.
// Folders it cannot read are taken as no table.
func (l *LocalFS) EnclosingTable(ctx context.Context) (string, error) {
	// Resolve the links of the deepest folder that exists: the base path
	// itself may not exist yet.
	dir, rest := l.root, ""
	for {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			dir = filepath.Join(resolved, rest)
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			dir = filepath.Join(dir, rest)
			break
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
	for dir != filepath.Dir(dir) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		dir = filepath.Dir(dir)
		for _, name := range []string{PropertiesFile, PropertiesBackupFile} {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
				return dir, nil
			}
		}
	}
	return "", nil
}

func (l *LocalFS) resolve(op, name string) (string, error) {
	clean, err := CleanPath(name)
	if err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: ErrInvalidPath}
	}
	return filepath.Join(l.root, filepath.FromSlash(clean)), nil
}

type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// Open implements FS.
func (l *LocalFS) Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := l.resolve("open", name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a folder")}
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// ReadFile implements FS.
func (l *LocalFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := l.resolve("read", name)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

type syncingFile struct {
	f *os.File
}

func (s *syncingFile) Write(p []byte) (int, error) { return s.f.Write(p) }

func (s *syncingFile) Close() error {
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// Create implements FS.
func (l *LocalFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := l.resolve("create", name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &syncingFile{f: f}, nil
}

// writeTemp writes data to a new hidden file beside p and syncs it, returning
// its path.
func writeTemp(p string, data []byte) (string, error) {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(p)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// syncDir makes a folder's entries durable. Errors are returned so callers can
// report them; some file systems do not support syncing folders, which is
// treated as success.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// CreateIfAbsent implements FS. The data is written to a temporary file that
// is then hard-linked to its name: link(2) fails if the name exists, so the
// file appears whole or not at all and is never replaced.
func (l *LocalFS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.resolve("create", name)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(p, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			return &fs.PathError{Op: "create", Path: p, Err: le.Err}
		}
		return err
	}
	return syncDir(filepath.Dir(p))
}

// WriteFile implements FS with a temporary file renamed over the target.
func (l *LocalFS) WriteFile(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.resolve("write", name)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(p, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(p))
}

// Rename implements FS.
func (l *LocalFS) Rename(ctx context.Context, oldname, newname string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	from, err := l.resolve("rename", oldname)
	if err != nil {
		return err
	}
	to, err := l.resolve("rename", newname)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Rename(from, to); err != nil {
		return err
	}
	return syncDir(filepath.Dir(to))
}

// Remove implements FS.
func (l *LocalFS) Remove(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.resolve("remove", name)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

// RemoveAll implements FS.
func (l *LocalFS) RemoveAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.resolve("remove", name)
	if err != nil {
		return err
	}
	if p == l.root {
		return &fs.PathError{Op: "remove", Path: name, Err: errors.New("refusing to remove the table's base folder")}
	}
	return os.RemoveAll(p)
}

// ReadDir implements FS.
func (l *LocalFS) ReadDir(ctx context.Context, name string) ([]FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := l.resolve("readdir", name)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, toFileInfo(info))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func toFileInfo(info fs.FileInfo) FileInfo {
	fi := FileInfo{Name: info.Name(), IsDir: info.IsDir(), ModTime: info.ModTime()}
	if !fi.IsDir {
		fi.Size = info.Size()
	}
	return fi
}

// Stat implements FS.
func (l *LocalFS) Stat(ctx context.Context, name string) (FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return FileInfo{}, err
	}
	p, err := l.resolve("stat", name)
	if err != nil {
		return FileInfo{}, err
	}
	info, err := os.Stat(p)
	if err != nil {
		return FileInfo{}, err
	}
	return toFileInfo(info), nil
}

// MkdirAll implements FS.
func (l *LocalFS) MkdirAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.resolve("mkdir", name)
	if err != nil {
		return err
	}
	return os.MkdirAll(p, 0o755)
}

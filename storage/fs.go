// Package storage is the file layer of a Hoodie table. Every other
// package reaches a table's files through it.
//
// It holds:
//
//   - the file-system abstraction FS, with LocalFS and MemFS;
//   - the writer lock (Lock, Locker, LockHolder);
//   - the paths of a table's metadata folder (MetaFolder, PropertiesFile).
//
// What the files hold lives in its subpackages: storage/config reads and
// writes hoodie.properties and partition metadata, storage/basefile the
// Parquet base files and the schema and values they hold. storage/faultfs
// wraps an FS to fail a chosen step, for crash tests.
//
// # Paths
//
// Paths given to an FS are slash-separated and relative to the table's base
// path: ".hoodie/hoodie.properties",
// "2024/01/01/abc-0_0-1-1_20240101000000000.parquet". The empty string and
// "." name the base path itself.
//
// # Guarantees
//
// The commit protocol rests on two FS operations:
//
//   - CreateIfAbsent publishes a whole file or nothing, and never replaces
//     an existing file.
//   - WriteFile replaces a file so that readers see the old content or the
//     new one.
//
// Files made with Create may be left partial by a crash; the commit
// protocol never reads such a file unless a completed instant names it.
//
// A table is written only on a file system that implements Locker: Lock
// refuses any other. The lock is released when its holder's process dies,
// so a crashed writer never blocks a table.
package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// FS is the file system a table lives on. Implementations must be safe for
// concurrent use. Errors for missing files satisfy errors.Is(err,
// fs.ErrNotExist); errors for files that already exist satisfy errors.Is(err,
// fs.ErrExist).
//
// The commit protocol rests on two guarantees: CreateIfAbsent publishes a
// whole file or nothing and never replaces an existing file, and WriteFile
// replaces a file so that readers see either the old or the new content.
type FS interface {
	// Open opens a file for random-access reading.
	Open(ctx context.Context, name string) (File, error)
	// ReadFile returns the whole content of a file.
	ReadFile(ctx context.Context, name string) ([]byte, error)
	// Create creates a new file for streaming writes, making parent folders
	// as needed. It fails if the file exists. The content is durable once
	// Close returns nil; a writer that is never closed, or whose writes fail,
	// may leave a partial file behind (the commit protocol finds such files
	// through markers).
	Create(ctx context.Context, name string) (io.WriteCloser, error)
	// CreateIfAbsent atomically creates a file holding data, making parent
	// folders as needed. It fails with an error satisfying
	// errors.Is(err, fs.ErrExist) if the file exists. Readers see either no
	// file or the whole file.
	CreateIfAbsent(ctx context.Context, name string, data []byte) error
	// WriteFile atomically creates or replaces a file holding data. Readers
	// see either the old content or the new one.
	WriteFile(ctx context.Context, name string, data []byte) error
	// Rename moves a file, replacing any file at newname.
	Rename(ctx context.Context, oldname, newname string) error
	// Remove deletes a file or an empty folder.
	Remove(ctx context.Context, name string) error
	// RemoveAll deletes a file or a folder and everything below it. A missing
	// name is not an error.
	RemoveAll(ctx context.Context, name string) error
	// ReadDir lists a folder, sorted by name.
	ReadDir(ctx context.Context, name string) ([]FileInfo, error)
	// Stat describes one file or folder.
	Stat(ctx context.Context, name string) (FileInfo, error)
	// MkdirAll creates a folder and any missing parents.
	MkdirAll(ctx context.Context, name string) error
}

// File is an open file for random-access reading, as Parquet readers need.
type File interface {
	io.ReaderAt
	io.Closer
	// Size is the file's length in bytes.
	Size() int64
}

// FileInfo describes a file or folder.
type FileInfo struct {
	// Name is the base name (no folder).
	Name string
	// Size is the length in bytes; zero for folders.
	Size int64
	// IsDir reports a folder.
	IsDir bool
	// ModTime is the last modification time.
	ModTime time.Time
}

// ErrInvalidPath reports a path that is absolute or climbs out of the base
// path with "..".
var ErrInvalidPath = errors.New("invalid path")

// CleanPath checks and normalizes a table-relative path: it must be
// slash-separated, not absolute, and must not leave the base path. The base
// path itself is returned as ".".
func CleanPath(name string) (string, error) {
	if strings.Contains(name, "\\") || strings.HasPrefix(name, "/") || strings.ContainsRune(name, 0) {
		return "", &fs.PathError{Op: "check", Path: name, Err: ErrInvalidPath}
	}
	clean := path.Clean("/" + name)[1:]
	if clean == "" {
		return ".", nil
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", &fs.PathError{Op: "check", Path: name, Err: ErrInvalidPath}
		}
	}
	return clean, nil
}

// Exists reports whether name exists on fsys.
func Exists(ctx context.Context, fsys FS, name string) (bool, error) {
	_, err := fsys.Stat(ctx, name)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

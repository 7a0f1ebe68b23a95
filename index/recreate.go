package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Suffixes of the folders Recreate works in, beside the index's folder.
const (
	newSuffix = ".new" // the index being built
	oldSuffix = ".old" // the index being replaced
)

// Recreate builds a new index from scan, as RebuildDigest builds one, in a
// folder beside dir, and puts it in dir's place. It never opens what dir
// holds, so it repairs any index: a damaged store (ErrBroken), another
// table's, a folder Pebble cannot open. opts are those of the new index;
// ReadOnly is refused. The caller keeps other writers of the index away
// (Hoodie holds the table's writer lock).
//
// A crash leaves dir holding the old index or the new one, or no folder,
// which Open then creates empty (an index a caller rebuilds); the folders
// it leaves beside dir the next Recreate removes. A failure, a full disk
// included, leaves dir as it was and removes the new folder.
func Recreate(ctx context.Context, dir string, opts Options, watermark string, digest []byte, scan ScanFunc) error {
	if opts.ReadOnly {
		return fmt.Errorf("recreate index %s: the options are read-only", dir)
	}
	fsys := opts.fileSystem()
	dir = filepath.Clean(dir) // the folders beside it are named after it
	fresh, old := dir+newSuffix, dir+oldSuffix
	if err := errors.Join(fsys.RemoveAll(fresh), fsys.RemoveAll(old)); err != nil {
		return fmt.Errorf("recreate index %s: remove what an earlier one left: %w", dir, err)
	}
	err := build(ctx, fresh, opts, watermark, digest, scan)
	if err == nil {
		err = swap(fsys, dir, fresh, old)
	}
	if err != nil {
		// A store that failed may still be open in a goroutine Pebble
		// never ends; removing its files is harmless to it.
		return errors.Join(fmt.Errorf("recreate index %s: %w", dir, err), fsys.RemoveAll(fresh))
	}
	if err := fsys.RemoveAll(old); err != nil {
		return fmt.Errorf("recreate index %s: remove the old index: %w", dir, err)
	}
	return nil
}

// build creates the index in dir from scan.
func build(ctx context.Context, dir string, opts Options, watermark string, digest []byte, scan ScanFunc) error {
	ix, err := Open(ctx, dir, opts)
	if err != nil {
		return err
	}
	err = ix.RebuildDigest(ctx, watermark, digest, scan)
	return errors.Join(err, ix.Close())
}

// swap puts the index in fresh in dir's place, moving what dir holds to
// old, and makes the renames durable.
func swap(fsys vfs.FS, dir, fresh, old string) error {
	if err := fsys.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("move the old index aside: %w", err)
	}
	if err := fsys.Rename(fresh, dir); err != nil {
		return errors.Join(fmt.Errorf("move the new index in place: %w", err), fsys.Rename(old, dir))
	}
	parent := fsys.PathDir(dir)
	d, err := fsys.OpenDir(parent)
	if err == nil {
		err = errors.Join(d.Sync(), d.Close())
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", parent, err)
	}
	return nil
}

package hoodie

import (
	"bytes"
	"context"
	"errors"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
)

// Scan opens a scan of the table (see read.NewScan). Unless opts.Locator
// is set, a filter that pins record keys (uuid = 'k', uuid IN (...)) is
// answered from the record index when the index is idle and at the
// snapshot's instant: only the file groups holding the keys are opened.
// Otherwise the scan prunes by the files' footers; the result is the same.
func (t *Table) Scan(ctx context.Context, opts read.Options) (*read.Scan, error) {
	cfg, tl, err := t.state(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Locator == nil {
		opts.Locator = &indexLocator{table: t, name: cfg.Name}
	}
	return read.NewScan(ctx, t.fsys, cfg, tl, opts)
}

// indexLocator answers a scan's key lookups from the table's record index.
// The index belongs to the writer, and a reader must never wait for one:
// the locator takes the writer lock only if it is free, opens the index
// read-only, and holds both for the lookup alone (a writer that comes
// meanwhile waits those milliseconds). When a writer holds the lock, when
// there is no index, or when the index is stale, at another instant than
// the scan's snapshot or made from other files than the snapshot's (see
// index.Index.ViewDigest), or when it cannot be opened or read (a damaged
// store), it declines and the scan falls back to the footers.
type indexLocator struct {
	table *Table
	name  string // the table name the index was made for
}

// LocateKeys implements read.KeyLocator.
func (l *indexLocator) LocateKeys(ctx context.Context, view *read.View, keys []string) (locs []read.KeyLocation, ok bool, err error) {
	unlock, err := l.table.fsys.TryLock(ctx, storage.LockFile)
	if err != nil {
		// Busy, or a table this process may not lock (a read-only folder):
		// the footers answer instead.
		return nil, false, ctx.Err()
	}
	defer func() { err = errors.Join(err, unlock()) }()
	idx, err := index.Open(ctx, l.table.indexDir, index.Options{
		TableName: l.name,
		TableID:   l.table.path,
		ReadOnly:  true,
	})
	if err != nil {
		return nil, false, ctx.Err()
	}
	defer func() { err = errors.Join(err, idx.Close()) }()
	// A write that completed after the index reached its watermark, with
	// an earlier instant time (a writer whose clock or zone is behind), is
	// in the snapshot but not in the index, archived or not: the files
	// differ from those the index stored the digest of, and the footers
	// answer until the next write catches the index up.
	if idx.Stale() != nil || idx.Watermark() != view.AsOf() || !bytes.Equal(idx.ViewDigest(), view.Digest()) {
		return nil, false, nil
	}
	matches, err := idx.Tag(ctx, keys)
	if err != nil {
		// A damaged index, found as its tables are read: the footers
		// answer, and the next write rebuilds it.
		return nil, false, ctx.Err()
	}
	locs = make([]read.KeyLocation, matches.Len())
	for i, m := range matches.All() {
		locs[i] = read.KeyLocation{Partition: m.Location.PartitionPath, FileID: m.Location.FileID, Found: m.Found}
	}
	return locs, true, nil
}

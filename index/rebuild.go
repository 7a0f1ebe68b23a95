package index

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// loadBatchBytes is the size at which Rebuild and Verify commit a batch
// while loading a scan.
const loadBatchBytes = 16 << 20

// ScanFunc streams the records of a table snapshot: it calls yield once per
// record with its key and location, in any order, and stops at the first
// error yield returns, returning it (wrapped or not).
type ScanFunc func(yield func(key string, loc Location) error) error

// Rebuild replaces the contents of the index with the records scan yields
// and sets the watermark to the instant of that snapshot ("" for a table
// without completed instants). It also records the table identity and
// format version of this Index, so it repairs any stale index.
//
// Rebuild is crash-safe: it first commits, synced, a batch that marks the
// index as being rebuilt and deletes everything; it loads the scan in large
// unsynced batches; and its last batch, synced, sets the watermark and clears
// the mark. An index whose rebuild did not finish, because of a crash or an
// error from scan or ctx, is stale, in memory and when next opened.
//
// Keys must not be empty (ErrEmptyKey). If scan yields a key twice, the last
// location wins; Verify reports such duplicates.
func (ix *Index) Rebuild(ctx context.Context, watermark string, scan ScanFunc) error {
	return ix.RebuildDigest(ctx, watermark, nil, scan)
}

// RebuildDigest is Rebuild that also stores digest, which identifies the
// table's file-system view as of watermark (see ViewDigest).
func (ix *Index) RebuildDigest(ctx context.Context, watermark string, digest []byte, scan ScanFunc) error {
	if err := ctx.Err(); err != nil {
		return ix.errorf("rebuild: %w", err)
	}
	if watermark != "" {
		if err := checkInstant(watermark); err != nil {
			return ix.errorf("rebuild: %w", err)
		}
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.closed {
		return ix.errorf("rebuild: %w", ErrClosed)
	}
	if err := ix.dropPrepared(); err != nil {
		return ix.errorf("rebuild: %w", err)
	}
	ix.setStale(ix.errorf("a rebuild to instant %q is under way: %w", watermark, ErrStale))
	ix.dict = newDictionary()

	b := ix.db.NewBatch()
	err := b.DeleteRange(allLower, allUpper, nil)
	if err == nil {
		err = ix.setMeta(b, "", []byte(watermark))
	}
	if err == nil {
		err = ix.mon.commit(b, pebble.Sync)
	} else {
		_ = b.Close()
	}
	if err != nil {
		return ix.errorf("rebuild: start: %w", err)
	}

	var p putter
	l := loader{db: ix.db, mon: ix.mon, ctx: ctx, put: func(b *pebble.Batch, key string, loc Location) error {
		return p.put(b, ix.dict, key, loc)
	}}
	if err := l.run(scan); err != nil {
		return ix.errorf("rebuild: scan: %w", err)
	}
	b = l.batch()
	if err := ix.setMeta(b, watermark, nil); err != nil {
		_ = b.Close()
		return err
	}
	if err := b.Set(metaView, storedDigest(digest), nil); err != nil {
		_ = b.Close()
		return ix.errorf("rebuild: finish: %w", err)
	}
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	if err := ix.mon.commit(b, pebble.Sync); err != nil {
		return ix.errorf("rebuild: finish: %w", err)
	}
	ix.stale, ix.watermark, ix.viewDigest, ix.visible = nil, watermark, keptDigest(digest), ix.dict.locs
	return nil
}

// loader writes the records of a scan in batches of about loadBatchBytes,
// each committed without waiting for a sync. Rebuild ends with a synced
// batch, which makes every earlier one durable with it; Verify's scratch
// records need no durability.
type loader struct {
	db  *pebble.DB
	mon *monitor
	ctx context.Context
	// put adds one record, already checked, to a batch.
	put func(b *pebble.Batch, key string, loc Location) error

	b   *pebble.Batch // the batch being filled
	n   int           // records yielded
	err error         // the first error of yield
}

// run calls scan with l.yield and returns the first error of either: a scan
// that drops an error of yield does not hide it. On error it discards the
// batch being filled; on success that batch, not yet committed, is left for
// the caller to end the load with.
func (l *loader) run(scan ScanFunc) error {
	err := scan(l.yield)
	if err == nil {
		err = l.err
	}
	if err != nil {
		l.discard()
	}
	return err
}

// yield loads one record. After an error it loads nothing and returns that
// error again.
func (l *loader) yield(key string, loc Location) error {
	if l.err == nil {
		l.err = l.load(key, loc)
	}
	return l.err
}

// load checks one record and adds it to the batch, committing the batch when
// full and checking the context now and then.
func (l *loader) load(key string, loc Location) error {
	if l.n%checkEvery == 0 {
		if err := l.ctx.Err(); err != nil {
			return err
		}
	}
	l.n++
	if err := checkPut(key, loc); err != nil {
		return fmt.Errorf("record %d: %w", l.n-1, err)
	}
	b := l.batch()
	if err := l.put(b, key, loc); err != nil {
		return err
	}
	if b.Len() < loadBatchBytes {
		return nil
	}
	l.b = nil
	return l.mon.commit(b, pebble.NoSync)
}

// batch returns the batch being filled.
func (l *loader) batch() *pebble.Batch {
	if l.b == nil {
		l.b = l.db.NewBatch()
	}
	return l.b
}

// discard drops the batch being filled, if any.
func (l *loader) discard() {
	if l.b != nil {
		_ = l.b.Close()
		l.b = nil
	}
}

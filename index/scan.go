package index

import (
	"context"
	"errors"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Scan calls yield with every record in the index, in index order (keys that
// are not UUIDs in key order, then UUIDs in key order; see the package doc),
// and stops at the first error yield returns, returning it wrapped. It sees
// one consistent state of the index. With ctx bound, it is a ScanFunc:
//
//	func(yield func(string, Location) error) error { return ix.Scan(ctx, yield) }
func (ix *Index) Scan(ctx context.Context, yield func(key string, loc Location) error) error {
	return ix.records(ctx, func(it *pebble.Iterator, locs []Location) error {
		loc, err := resolve(it, locs)
		if err != nil {
			return err
		}
		return yield(recordKey(it.Key()), loc)
	})
}

// Count returns the number of records in the index. It reads every key.
func (ix *Index) Count(ctx context.Context) (int64, error) {
	var n int64
	err := ix.records(ctx, func(*pebble.Iterator, []Location) error {
		n++
		return nil
	})
	return n, err
}

// records calls fn at every record of the index, with the locations that
// resolve its file-group ids.
//
// The walk runs on a goroutine of its own (see monitor.run): a store found
// damaged returns at once, and fn is never called after records returns.
func (ix *Index) records(ctx context.Context, fn func(it *pebble.Iterator, locs []Location) error) error {
	if err := ctx.Err(); err != nil {
		return ix.errorf("scan: %w", err)
	}
	var mu sync.Mutex // held while fn runs
	returned := false
	err := ix.mon.run(func() error {
		lower, upper := recordSpan()
		it, locs, err := ix.newIter(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			return err
		}
		n := 0
		for valid := it.First(); valid; valid = it.Next() {
			if n%checkEvery == 0 {
				if err = ctx.Err(); err != nil {
					break
				}
			}
			mu.Lock()
			if returned {
				err = ix.mon.failure()
			} else {
				err = fn(it, locs)
			}
			mu.Unlock()
			if err != nil {
				break
			}
			n++
		}
		return errors.Join(err, it.Error(), it.Close())
	})
	mu.Lock()
	returned = true
	mu.Unlock()
	if err != nil {
		return ix.errorf("scan: %w", err)
	}
	return nil
}

// newIter opens an iterator for a reader, with the locations that resolve the
// file-group ids it sees.
func (ix *Index) newIter(ctx context.Context, opts *pebble.IterOptions) (*pebble.Iterator, []Location, error) {
	ix.stateMu.RLock()
	defer ix.stateMu.RUnlock()
	if err := ix.usable(); err != nil {
		return nil, nil, err
	}
	it, err := ix.db.NewIterWithContext(ctx, opts)
	return it, ix.visible, err
}

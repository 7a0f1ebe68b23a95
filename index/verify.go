package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// maxExamples is how many keys of each kind of difference a Report lists.
const maxExamples = 10

// Report is the outcome of Verify: how the index differs from a snapshot.
type Report struct {
	// Watermark is the watermark of the index that was compared.
	Watermark string
	// Indexed is the number of records in the index; Scanned the number of
	// records the scan yielded.
	Indexed, Scanned int64
	// Duplicates counts records the scan yielded with a key it had already
	// yielded: the snapshot itself is inconsistent.
	Duplicates int64
	// Missing counts keys in the snapshot but not in the index, Extra keys in
	// the index but not in the snapshot, and Wrong keys in both with
	// different locations.
	Missing, Extra, Wrong int64
	// MissingKeys, ExtraKeys and WrongKeys are the first few of each, in
	// index order (see Scan).
	MissingKeys, ExtraKeys []string
	WrongKeys              []Mismatch
}

// Mismatch is a key whose location in the index differs from the snapshot.
type Mismatch struct {
	Key              string
	Indexed, Scanned Location
}

// OK reports whether the index and the snapshot agree.
func (r Report) OK() bool {
	return r.Duplicates == 0 && r.Missing == 0 && r.Extra == 0 && r.Wrong == 0
}

// Verify compares the index with a snapshot of the table at the watermark,
// whose records scan yields in any order. The caller keeps writers away
// while it runs; Verify itself blocks Apply and Rebuild.
//
// To keep memory bounded, Verify stages the scan in a scratch namespace of
// the store (unsynced; cleared when it ends and when the next Verify starts),
// then walks the index and the staged records side by side in index order.
func (ix *Index) Verify(ctx context.Context, scan ScanFunc) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.usable(); err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	if err := ix.clearStaged(); err != nil {
		return Report{}, err
	}
	r, err := ix.verify(ctx, scan)
	return r, errors.Join(err, ix.clearStaged())
}

// verify stages the scan and compares it with the index.
func (ix *Index) verify(ctx context.Context, scan ScanFunc) (Report, error) {
	r := Report{Watermark: ix.watermark}
	var key, value []byte
	l := loader{db: ix.db, ctx: ctx, put: func(b *pebble.Batch, k string, loc Location) error {
		key = appendRecordKey(append(key[:0], nsVerify), k)
		value = appendPair(value[:0], loc.PartitionPath, loc.FileID)
		return b.Set(key, value, nil)
	}}
	err := l.run(scan)
	if err == nil {
		err = l.batch().Commit(pebble.NoSync)
		l.discard()
	}
	if err != nil {
		return Report{}, ix.errorf("verify: scan: %w", err)
	}
	r.Scanned = int64(l.n)

	lower, upper := recordSpan()
	ri, err := ix.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	lower, upper = span(nsVerify)
	vi, err := ix.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		_ = ri.Close()
		return Report{}, ix.errorf("verify: %w", err)
	}
	err = r.compare(ctx, ri, vi, ix.visible)
	if err := errors.Join(err, ri.Close(), vi.Close()); err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	return r, nil
}

// compare walks the index (ri) and the staged snapshot (vi, whose keys are
// 'v' and a record's Pebble key) side by side in index order, counting what
// differs.
func (r *Report) compare(ctx context.Context, ri, vi *pebble.Iterator, locs []Location) error {
	var staged int64
	rok, vok := ri.First(), vi.First()
	for n := 0; rok || vok; n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c := -1
		switch {
		case !rok:
			c = 1
		case vok:
			c = bytes.Compare(ri.Key(), vi.Key()[1:])
		}
		switch {
		case c < 0:
			r.Indexed++
			r.Extra++
			if len(r.ExtraKeys) < maxExamples {
				r.ExtraKeys = append(r.ExtraKeys, recordKey(ri.Key()))
			}
			rok = ri.Next()
		case c > 0:
			staged++
			r.Missing++
			if len(r.MissingKeys) < maxExamples {
				r.MissingKeys = append(r.MissingKeys, recordKey(vi.Key()[1:]))
			}
			vok = vi.Next()
		default:
			r.Indexed++
			staged++
			indexed, err := resolve(ri, locs)
			if err != nil {
				return err
			}
			v, err := vi.ValueAndErr()
			if err != nil {
				return err
			}
			scanned, err := decodeLocation(v)
			if err != nil {
				return fmt.Errorf("staged record %q: %w", recordKey(vi.Key()[1:]), err)
			}
			if indexed != scanned {
				r.Wrong++
				if len(r.WrongKeys) < maxExamples {
					r.WrongKeys = append(r.WrongKeys, Mismatch{Key: recordKey(ri.Key()), Indexed: indexed, Scanned: scanned})
				}
			}
			rok, vok = ri.Next(), vi.Next()
		}
	}
	r.Duplicates = r.Scanned - staged
	return errors.Join(ri.Error(), vi.Error())
}

// clearStaged deletes Verify's scratch namespace.
func (ix *Index) clearStaged() error {
	lower, upper := span(nsVerify)
	if err := ix.db.DeleteRange(lower, upper, pebble.NoSync); err != nil {
		return ix.errorf("verify: clear scratch space: %w", err)
	}
	return nil
}

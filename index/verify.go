package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// maxExamples is how many keys of each kind of difference a Report lists.
const maxExamples = 10

// verifyChunk is how many records of the snapshot Verify holds in memory
// (twice as many while it gathers them), and verifyBytes how many bytes of
// their keys at most. verifyChunk is a variable so that tests can make
// Verify go through several chunks.
var verifyChunk = 1 << 19

const verifyBytes = 64 << 20

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
// Verify writes nothing, and holds at most about 1M records of the
// snapshot in memory, about 30 bytes each beside their keys (see
// verifyChunk): it gathers the snapshot's records of one key range at a
// time, sorts them, and walks the index's records of that range beside
// them. A snapshot of more records than half of that is scanned once per
// range.
func (ix *Index) Verify(ctx context.Context, scan ScanFunc) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.usable(); err != nil {
		return Report{}, ix.errorf("verify: %w", err)
	}
	r := Report{Watermark: ix.watermark}
	lower, end := recordSpan()
	for first := true; ; first = false {
		c := snapshotChunk{lower: lower, upper: end}
		if err := c.gather(ctx, scan); err != nil {
			return Report{}, ix.errorf("verify: scan: %w", err)
		}
		if first {
			r.Scanned = c.yielded
		}
		err := ix.mon.run(func() error { return r.compare(ctx, ix, &c) })
		if err != nil {
			return Report{}, ix.errorf("verify: %w", err)
		}
		if bytes.Equal(c.upper, end) {
			return r, nil
		}
		lower = c.upper
	}
}

// snapshotChunk holds the snapshot's records whose Pebble keys are in
// [lower, upper): the key of record i ends at ends[i] in buf, and its
// location is groups[ids[i]]. About 30 bytes a record beside its key.
type snapshotChunk struct {
	lower, upper []byte
	yielded      int64 // records the scan yielded, in any range
	buf          []byte
	ends         []int32
	ids          []uint32
	groups       []Location
	groupIDs     map[Location]uint32
	order        []int32 // the records in key order, once sorted
}

// key returns the Pebble key of record i.
func (c *snapshotChunk) key(i int32) []byte {
	var start int32
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.buf[start:c.ends[i]]
}

// add appends a record.
func (c *snapshotChunk) add(key []byte, loc Location) {
	id, ok := c.groupIDs[loc]
	if !ok {
		if c.groupIDs == nil {
			c.groupIDs = map[Location]uint32{}
		}
		id = uint32(len(c.groups))
		c.groupIDs[loc] = id
		c.groups = append(c.groups, loc)
	}
	c.buf = append(c.buf, key...)
	c.ends = append(c.ends, int32(len(c.buf)))
	c.ids = append(c.ids, id)
}

// gather scans the snapshot and keeps its records in the chunk's range,
// lowering the upper bound as needed to keep at most verifyChunk of them
// (or more records of a single key).
func (c *snapshotChunk) gather(ctx context.Context, scan ScanFunc) error {
	var key []byte
	var yieldErr error
	err := scan(func(k string, loc Location) error {
		if yieldErr != nil {
			return yieldErr
		}
		if c.yielded%checkEvery == 0 {
			if yieldErr = ctx.Err(); yieldErr != nil {
				return yieldErr
			}
		}
		c.yielded++
		if yieldErr = checkPut(k, loc); yieldErr != nil {
			yieldErr = fmt.Errorf("record %d: %w", c.yielded-1, yieldErr)
			return yieldErr
		}
		key = appendRecordKey(key[:0], k)
		if bytes.Compare(key, c.lower) < 0 || bytes.Compare(key, c.upper) >= 0 {
			return nil
		}
		c.add(key, loc)
		if len(c.ends) >= 2*verifyChunk || len(c.buf) >= verifyBytes {
			c.shrink()
		}
		return nil
	})
	if err == nil {
		err = yieldErr
	}
	if err != nil {
		return err
	}
	c.sort()
	return nil
}

// sort orders the records by key.
func (c *snapshotChunk) sort() {
	c.order = c.order[:0]
	for i := range int32(len(c.ends)) {
		c.order = append(c.order, i)
	}
	slices.SortFunc(c.order, func(a, b int32) int { return bytes.Compare(c.key(a), c.key(b)) })
}

// shrink keeps the verifyChunk records of lowest keys, or fewer whose keys
// take half of verifyBytes, and the other records of the last one's key,
// and lowers the upper bound to the next key.
func (c *snapshotChunk) shrink() {
	c.sort()
	n, size := 1, len(c.key(c.order[0]))
	for n < verifyChunk && n < len(c.order) && size < verifyBytes/2 {
		size += len(c.key(c.order[n]))
		n++
	}
	for n < len(c.order) && bytes.Equal(c.key(c.order[n]), c.key(c.order[n-1])) {
		n++
	}
	if n == len(c.order) {
		return
	}
	c.upper = bytes.Clone(c.key(c.order[n]))
	kept := snapshotChunk{groups: c.groups, groupIDs: c.groupIDs}
	for _, i := range c.order[:n] {
		kept.buf = append(kept.buf, c.key(i)...)
		kept.ends = append(kept.ends, int32(len(kept.buf)))
		kept.ids = append(kept.ids, c.ids[i])
	}
	c.buf, c.ends, c.ids = kept.buf, kept.ends, kept.ids
}

// compare walks the index's records in the chunk's range and the chunk's
// records side by side in index order, counting what differs.
func (r *Report) compare(ctx context.Context, ix *Index, c *snapshotChunk) error {
	it, locs, err := ix.newIter(ctx, &pebble.IterOptions{LowerBound: c.lower, UpperBound: c.upper})
	if err != nil {
		return err
	}
	err = r.merge(ctx, it, locs, c)
	return errors.Join(err, it.Error(), it.Close())
}

// merge is compare's walk, it the iterator over the index's records.
func (r *Report) merge(ctx context.Context, it *pebble.Iterator, locs []Location, c *snapshotChunk) error {
	ok, j := it.First(), 0
	for n := 0; ok || j < len(c.order); n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if j > 0 && j < len(c.order) && bytes.Equal(c.key(c.order[j]), c.key(c.order[j-1])) {
			r.Duplicates++
			j++
			continue
		}
		cmp := -1
		switch {
		case !ok:
			cmp = 1
		case j < len(c.order):
			cmp = bytes.Compare(it.Key(), c.key(c.order[j]))
		}
		switch {
		case cmp < 0:
			r.Indexed++
			r.Extra++
			if len(r.ExtraKeys) < maxExamples {
				r.ExtraKeys = append(r.ExtraKeys, recordKey(it.Key()))
			}
			ok = it.Next()
		case cmp > 0:
			r.Missing++
			if len(r.MissingKeys) < maxExamples {
				r.MissingKeys = append(r.MissingKeys, recordKey(c.key(c.order[j])))
			}
			j++
		default:
			r.Indexed++
			indexed, err := resolve(it, locs)
			if err != nil {
				return err
			}
			if scanned := c.groups[c.ids[c.order[j]]]; indexed != scanned {
				r.Wrong++
				if len(r.WrongKeys) < maxExamples {
					r.WrongKeys = append(r.WrongKeys, Mismatch{Key: recordKey(it.Key()), Indexed: indexed, Scanned: scanned})
				}
			}
			ok = it.Next()
			j++
		}
	}
	return nil
}

package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Put records that Key now lives at Location.
type Put struct {
	Key      string
	Location Location
}

// ChangeSet is what one commit changed in the index: records written to a
// file group they were not indexed in (inserts, moves) and records removed.
// Records rewritten in place, in the file group the index already names, need
// not be listed.
type ChangeSet struct {
	// Puts are applied after Deletes, in order: a key deleted and put ends up
	// put, and of two puts of a key the last wins.
	Puts    []Put
	Deletes []string
}

// Apply records the changes of the completed instant and advances the
// watermark to it, all in one synced Pebble batch: after a crash the index
// holds either all of it or none of it.
//
// instant must not be older than the watermark (ErrOutOfOrder). An instant
// equal to the watermark is already contained in the index: Apply does
// nothing and returns nil, so replaying the last commit after an uncertain
// failure is harmless. Keys must not be empty (ErrEmptyKey) and locations
// need a file id.
func (ix *Index) Apply(ctx context.Context, instant string, changes ChangeSet) error {
	if err := ix.checkApply(ctx, instant, changes); err != nil {
		return err
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.usable(); err != nil {
		return ix.errorf("apply %s: %w", instant, err)
	}
	switch {
	case instant < ix.watermark:
		return ix.errorf("apply %s: watermark is %s: %w", instant, ix.watermark, ErrOutOfOrder)
	case instant == ix.watermark:
		return nil
	}

	b := ix.db.NewBatch()
	defer b.Close()
	n := len(ix.dict.locs)
	if err := ix.batchChanges(ctx, b, changes, instant); err != nil {
		ix.dict.rollback(n)
		return ix.errorf("apply %s: %w", instant, err)
	}

	ix.stateMu.Lock()
	err := b.Commit(pebble.Sync)
	if err == nil {
		ix.watermark, ix.visible = instant, ix.dict.locs
	}
	ix.stateMu.Unlock()
	if err != nil {
		ix.dict.rollback(n)
		return ix.errorf("apply %s: commit: %w", instant, err)
	}
	return nil
}

// checkApply validates the arguments of Apply.
func (ix *Index) checkApply(ctx context.Context, instant string, changes ChangeSet) error {
	if err := ctx.Err(); err != nil {
		return ix.errorf("apply %s: %w", instant, err)
	}
	if err := checkInstant(instant); err != nil {
		return ix.errorf("apply: %w", err)
	}
	for i, k := range changes.Deletes {
		if k == "" {
			return ix.errorf("apply %s: delete %d: %w", instant, i, ErrEmptyKey)
		}
	}
	for i, p := range changes.Puts {
		if err := checkPut(p.Key, p.Location); err != nil {
			return ix.errorf("apply %s: put %d: %w", instant, i, err)
		}
	}
	return nil
}

// checkPut validates one entry to be written.
func checkPut(key string, loc Location) error {
	if key == "" {
		return ErrEmptyKey
	}
	if loc.FileID == "" {
		return fmt.Errorf("key %q: location without a file id", key)
	}
	return nil
}

// batchChanges adds changes to b, assigning dictionary ids to new file
// groups, and sets the watermark to instant.
//
// The entries go into b in key order: the new dictionary entries, the
// watermark, then the records, each key once (the last put of a key; a put
// over a delete). A batch too large for the memtable is sorted by Pebble
// when it commits, through an interface comparison per pair; fed in order,
// that sort finds it sorted in one pass, and the sort here (Tag's, on all
// cores) costs a fraction of it: on 1M puts, Pebble's sort took 0.88 s of
// Apply's 1.09 s.
func (ix *Index) batchChanges(ctx context.Context, b *pebble.Batch, changes ChangeSet, instant string) error {
	ids := make([]uint32, len(changes.Puts))
	keys := make([]string, len(changes.Puts))
	for i, put := range changes.Puts {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		keys[i] = put.Key
		if i > 0 && put.Location == changes.Puts[i-1].Location {
			ids[i] = ids[i-1]
			continue
		}
		id, err := ix.dict.assign(b, put.Location)
		if err != nil {
			return err
		}
		ids[i] = id
	}
	if err := b.Set(metaWatermark, []byte(instant), nil); err != nil {
		return err
	}
	dels, puts := newSortedChanges(changes.Deletes, ix.tagWorkers), newSortedChanges(keys, ix.tagWorkers)
	var value []byte
	for n := 0; dels.more() || puts.more(); n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !puts.more() || (dels.more() && bytes.Compare(dels.key(), puts.key()) < 0) {
			// A key deleted and not put.
			key, _ := dels.take()
			if err := b.Delete(key, nil); err != nil {
				return fmt.Errorf("delete %q: %w", recordKey(key), err)
			}
			continue
		}
		key, pos := puts.take()
		for dels.more() && bytes.Equal(dels.key(), key) {
			dels.take()
		}
		value = binary.AppendUvarint(value[:0], uint64(ids[pos]))
		if err := b.Set(key, value, nil); err != nil {
			return fmt.Errorf("put %q: %w", recordKey(key), err)
		}
	}
	return nil
}

// sortedChanges walks the Pebble keys of record keys in key order, each
// once.
type sortedChanges struct {
	tk   *tagKeys // nil without keys
	next int      // the next of tk.sorted to take
}

func newSortedChanges(keys []string, workers int) sortedChanges {
	if len(keys) == 0 {
		return sortedChanges{}
	}
	return sortedChanges{tk: sortKeys(keys, workers)}
}

func (s *sortedChanges) more() bool { return s.tk != nil && s.next < len(s.tk.sorted) }

// key returns the next Pebble key.
func (s *sortedChanges) key() []byte { return s.tk.key(s.tk.sorted[s.next].pos) }

// take returns the next Pebble key and the greatest position among the
// record keys it stands for, and moves past them.
func (s *sortedChanges) take() (key []byte, pos uint32) {
	key, pos = s.key(), s.tk.sorted[s.next].pos
	for s.next++; s.more() && bytes.Equal(s.key(), key); s.next++ {
		pos = max(pos, s.tk.sorted[s.next].pos)
	}
	return key, pos
}

// putter adds record entries to batches, remembering the last location so
// that runs of records in one file group look the dictionary up once.
type putter struct {
	key, value []byte
	last       Location
	lastID     uint32
	hasLast    bool
}

// put adds to b the entry recording that key lives at loc.
func (p *putter) put(b *pebble.Batch, d *dictionary, key string, loc Location) error {
	if !p.hasLast || loc != p.last {
		id, err := d.assign(b, loc)
		if err != nil {
			return err
		}
		p.last, p.lastID, p.hasLast = loc, id, true
	}
	p.key = appendRecordKey(p.key[:0], key)
	p.value = binary.AppendUvarint(p.value[:0], uint64(p.lastID))
	if err := b.Set(p.key, p.value, nil); err != nil {
		return fmt.Errorf("put %q: %w", key, err)
	}
	return nil
}

package index

import (
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
	if err := ix.batchChanges(ctx, b, changes); err != nil {
		ix.dict.rollback(n)
		return ix.errorf("apply %s: %w", instant, err)
	}
	if err := b.Set(metaWatermark, []byte(instant), nil); err != nil {
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

// batchChanges adds changes to b, assigning dictionary ids to new file groups.
func (ix *Index) batchChanges(ctx context.Context, b *pebble.Batch, changes ChangeSet) error {
	var key []byte
	for i, k := range changes.Deletes {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key = appendRecordKey(key[:0], k)
		if err := b.Delete(key, nil); err != nil {
			return fmt.Errorf("delete %q: %w", k, err)
		}
	}
	var p putter
	for i, put := range changes.Puts {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := p.put(b, ix.dict, put.Key, put.Location); err != nil {
			return err
		}
	}
	return nil
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

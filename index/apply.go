package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Put records that Key now lives at Location.
type Put struct {
	Key      string
	Location Location
}

// PutGroup records that each of Keys now lives at Location: the puts of
// the keys one after the other, in the memory of a key each where Puts
// takes three strings a key. A writer's new file group is one.
type PutGroup struct {
	Location Location
	Keys     []string
}

// ChangeSet is what one commit changed in the index: records written to a
// file group they were not indexed in (inserts, moves) and records removed.
// Records rewritten in place, in the file group the index already names, need
// not be listed.
type ChangeSet struct {
	// Puts are applied after Deletes, in order: a key deleted and put ends up
	// put, and of two puts of a key the last wins.
	Puts []Put
	// PutGroups are applied after Puts, a group after the other, each key
	// of a group as a Put of it.
	PutGroups []PutGroup
	Deletes   []string
	// ViewDigest, stored with the new watermark, identifies the table's
	// file-system view as of it (the caller decides how); nil records that
	// it is not known.
	ViewDigest []byte
}

// Apply records the changes of the completed instant and advances the
// watermark to it, atomically and durably: after a crash the index holds
// either all of it or none of it. A change set of fewer than
// defaultIngestMin puts and deletes commits as one synced Pebble batch; a
// larger one is written into sorted tables that one Pebble ingestion adds
// (see ingest).
//
// instant must not be older than the watermark (ErrOutOfOrder). An instant
// equal to the watermark is already contained in the index: Apply does
// nothing and returns nil, so replaying the last commit after an uncertain
// failure is harmless. Keys must not be empty (ErrEmptyKey) and locations
// need a file id.
//
// Apply is Prepare followed by Commit with changes.ViewDigest.
func (ix *Index) Apply(ctx context.Context, instant string, changes ChangeSet) error {
	p, err := ix.Prepare(ctx, instant, changes)
	if err != nil {
		return err
	}
	return p.Commit(ctx, changes.ViewDigest)
}

// Prepared is a change set made ready to commit: its keys sorted and, when
// it is large enough to be ingested, written into tables. A writer
// prepares the changes of a commit while it writes the commit's files, and
// commits them once the commit is complete, which then takes little more
// than a file sync.
//
// Until it is committed or discarded, the index refuses to prepare or
// apply other changes (ErrPrepared); Rebuild and Close discard it.
type Prepared struct {
	ix        *Index
	instant   string
	contained bool           // the instant is the watermark: nothing to do
	first     int            // the dictionary's size before the changes
	records   *sortedRecords // the record changes, in key order
	ingest    bool           // whether they go in by ingestion
	tables    []string       // the tables of the record changes, if ingested
}

// Prepare readies changes, which the completed or pending instant makes,
// for Commit, with the checks of Apply. The changes' ViewDigest is not
// used: Commit is given the digest.
func (ix *Index) Prepare(ctx context.Context, instant string, changes ChangeSet) (*Prepared, error) {
	if err := ix.checkApply(ctx, instant, changes); err != nil {
		return nil, err
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.usable(); err != nil {
		return nil, ix.errorf("apply %s: %w", instant, err)
	}
	if ix.prepared != nil {
		return nil, ix.errorf("apply %s: %w (for instant %s)", instant, ErrPrepared, ix.prepared.instant)
	}
	p := &Prepared{ix: ix, instant: instant, first: len(ix.dict.locs)}
	switch {
	case instant < ix.watermark:
		return nil, ix.errorf("apply %s: watermark is %s: %w", instant, ix.watermark, ErrOutOfOrder)
	case instant == ix.watermark:
		p.contained = true
		ix.prepared = p
		return p, nil
	}
	if ix.readOnly {
		// Before writing anything into the folder or the dictionary.
		return nil, ix.errorf("apply %s: %w", instant, pebble.ErrReadOnly)
	}
	p.ingest = changes.puts()+len(changes.Deletes) >= ix.ingestMin
	var err error
	p.records, err = ix.sortChanges(ctx, changes)
	if err == nil && p.ingest {
		p.tables, err = ix.writeRecordTables(ctx, p.records)
	}
	if err != nil {
		ix.dict.rollback(p.first)
		return nil, ix.errorf("apply %s: %w", instant, err)
	}
	ix.prepared = p
	return p, nil
}

// Commit writes the prepared changes, with digest as the view digest of the
// new watermark (see ChangeSet.ViewDigest), and advances the watermark to
// the prepared instant, atomically and durably. On failure nothing is
// applied, and the changes are discarded.
func (p *Prepared) Commit(ctx context.Context, digest []byte) error {
	ix := p.ix
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.prepared != p {
		return ix.errorf("apply %s: the changes are no longer prepared: %w", p.instant, ErrPrepared)
	}
	ix.prepared = nil
	if p.contained {
		return nil
	}
	err := ix.usable()
	if err == nil {
		if p.ingest {
			err = ix.ingest(ctx, p, digest)
		} else {
			err = ix.commit(ctx, p, digest)
		}
	}
	if err != nil {
		return ix.errorf("apply %s: %w", p.instant, errors.Join(err, p.discard()))
	}
	return nil
}

// Discard drops the prepared changes and the tables written for them. It
// does nothing if they were committed or discarded already.
func (p *Prepared) Discard() error {
	p.ix.writeMu.Lock()
	defer p.ix.writeMu.Unlock()
	if p.ix.prepared != p {
		return nil
	}
	return p.ix.dropPrepared()
}

// dropPrepared discards the prepared changes, if any. The caller holds
// writeMu.
func (ix *Index) dropPrepared() error {
	p := ix.prepared
	if p == nil {
		return nil
	}
	ix.prepared = nil
	if err := p.discard(); err != nil {
		return ix.errorf("discard the changes prepared for %s: %w", p.instant, err)
	}
	return nil
}

// discard forgets the file groups the changes added to the dictionary and
// removes their tables. The caller holds writeMu.
func (p *Prepared) discard() error {
	p.ix.dict.rollback(p.first)
	return removeTables(p.ix.fs, p.tables)
}

// commit writes the prepared changes, digest and the watermark in one
// synced batch.
func (ix *Index) commit(ctx context.Context, p *Prepared, digest []byte) error {
	b := ix.db.NewBatch()
	if err := ix.batchChanges(ctx, b, p, digest); err != nil {
		_ = b.Close()
		return err
	}
	return ix.publish(p.instant, digest, func() error {
		if err := ix.mon.commit(b, pebble.Sync); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}

// publish calls write, which makes a writer's changes durable and visible in
// Pebble, and on success publishes the watermark instant, its view digest
// and the dictionary that go with them. It holds stateMu exclusively meanwhile, so
// that no reader sees the new records without the file groups they name.
func (ix *Index) publish(instant string, digest []byte, write func() error) error {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	if err := write(); err != nil {
		return err
	}
	ix.watermark, ix.viewDigest, ix.visible = instant, keptDigest(digest), ix.dict.locs
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
	for i, g := range changes.PutGroups {
		for j, k := range g.Keys {
			if err := checkPut(k, g.Location); err != nil {
				return ix.errorf("apply %s: put group %d, key %d: %w", instant, i, j, err)
			}
		}
	}
	return nil
}

// puts returns the number of puts, those of the groups included.
func (c *ChangeSet) puts() int {
	n := len(c.Puts)
	for _, g := range c.PutGroups {
		n += len(g.Keys)
	}
	return n
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

// batchChanges adds the prepared changes to b, with the dictionary entries
// of their new file groups, and sets the view digest and the watermark.
//
// The entries go into b in key order: the new dictionary entries, the
// watermark, then the records, each key once (the last put of a key; a put
// over a delete). A batch too large for the memtable is sorted by Pebble
// when it commits, through an interface comparison per pair; fed in order,
// that sort finds it sorted in one pass, and the sort here (Tag's, on all
// cores) costs a fraction of it: on 1M puts, Pebble's sort took 0.88 s of
// Apply's 1.09 s.
func (ix *Index) batchChanges(ctx context.Context, b *pebble.Batch, p *Prepared, digest []byte) error {
	for id := p.first; id < len(ix.dict.locs); id++ {
		if err := b.Set(groupKey(uint32(id)), ix.dict.entry(uint32(id)), nil); err != nil {
			return fmt.Errorf("file group %s: %w", ix.dict.locs[id], err)
		}
	}
	if err := b.Set(metaView, storedDigest(digest), nil); err != nil {
		return err
	}
	if err := b.Set(metaWatermark, []byte(p.instant), nil); err != nil {
		return err
	}
	rs := p.records
	return rs.each(ctx, rs.dels, rs.puts, nil, func(key, value []byte) error {
		if value == nil {
			if err := b.Delete(key, nil); err != nil {
				return fmt.Errorf("delete %q: %w", recordKey(key), err)
			}
			return nil
		}
		if err := b.Set(key, value, nil); err != nil {
			return fmt.Errorf("put %q: %w", recordKey(key), err)
		}
		return nil
	})
}

// sortedRecords are the record changes of a change set, ready to write in
// key order.
type sortedRecords struct {
	dels, puts sortedChanges // the puts with their file-group ids
}

// sortChanges gives each put of changes its file-group id, adding new groups
// to the dictionary (the caller writes their entries or rolls them back),
// and sorts the keys of the puts and the deletes.
func (ix *Index) sortChanges(ctx context.Context, changes ChangeSet) (*sortedRecords, error) {
	ids := make([]uint32, 0, changes.puts())
	var keys keySegments
	if len(changes.Puts) > 0 {
		puts := make([]string, len(changes.Puts))
		for i, put := range changes.Puts {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			puts[i] = put.Key
			if i > 0 && put.Location == changes.Puts[i-1].Location {
				ids = append(ids, ids[i-1])
				continue
			}
			id, _, err := ix.dict.intern(put.Location)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		keys = append(keys, puts)
	}
	for _, g := range changes.PutGroups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id, _, err := ix.dict.intern(g.Location)
		if err != nil {
			return nil, err
		}
		for range g.Keys {
			ids = append(ids, id)
		}
		keys = append(keys, g.Keys)
	}
	return &sortedRecords{
		dels: newSortedChanges(keySegments{changes.Deletes}, nil, ix.tagWorkers),
		puts: newSortedChanges(keys, ids, ix.tagWorkers),
	}, nil
}

// each calls fn with the record changes from dels and puts, positioned at
// the first change to write, up to the key end (exclusive; nil for no end),
// in key order and each key once: the value of the last put of a key, or
// nil for a key deleted and not put. It checks ctx now and then.
func (rs *sortedRecords) each(ctx context.Context, dels, puts sortedChanges, end []byte, fn func(key, value []byte) error) error {
	more := func(s *sortedChanges) bool {
		return s.more() && (end == nil || bytes.Compare(s.key(), end) < 0)
	}
	var value []byte
	for n := 0; more(&dels) || more(&puts); n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !more(&puts) || (more(&dels) && bytes.Compare(dels.key(), puts.key()) < 0) {
			// A key deleted and not put.
			key, _ := dels.take()
			if err := fn(key, nil); err != nil {
				return err
			}
			continue
		}
		key, last := puts.take()
		for dels.more() && bytes.Equal(dels.key(), key) {
			dels.take()
		}
		value = binary.AppendUvarint(value[:0], uint64(puts.ids[last]))
		if err := fn(key, value); err != nil {
			return err
		}
	}
	return nil
}

// sortedChanges walks the Pebble keys of record keys in key order, each
// once.
type sortedChanges struct {
	buf []byte // the keys in sorted order, one after the other
	// ends holds where each key ends in buf, unless the keys are all UUIDs
	// (see encodeUUIDKeys): then ends is nil and each takes uuidKeyLen.
	ends []int
	pos  []uint32 // the position of each key among the record keys, one a key
	ids  []uint32 // a file-group id for each key, if given
	next int      // the next key to take
}

// newSortedChangesOf returns room for the sorted changes of the keys of tk,
// with ids if withIDs.
func newSortedChangesOf(tk *tagKeys, withIDs bool) sortedChanges {
	n := tk.len()
	s := sortedChanges{pos: make([]uint32, n)}
	if tk.starts != nil {
		s.ends = make([]int, n)
	}
	if withIDs {
		s.ids = make([]uint32, n)
	}
	return s
}

// newSortedChanges sorts keys, each with its id if ids is not nil.
func newSortedChanges(keys keySegments, ids []uint32, workers int) sortedChanges {
	if keys.len() == 0 {
		return sortedChanges{}
	}
	tk := encodeKeys(keys, workers)
	if runs := tk.ascendingRuns(maxMergedRuns); runs != nil {
		return tk.mergeChanges(runs, ids)
	}
	if tk.starts == nil {
		return tk.sortUUIDs(workers).changes(ids)
	}
	tk.sorted = make([]keyHead, tk.len())
	tk.sort(workers)
	return tk.gather(ids, workers)
}

// mergeChanges merges the ascending runs of keys between bounds (see
// ascendingRuns) straight into the sorted changes, with their ids if ids is
// not nil. A write's changes come a file group at a time, each in key
// order: reading each run in sequence needs neither the sorted positions
// nor gather's copies.
func (tk *tagKeys) mergeChanges(bounds []int, ids []uint32) sortedChanges {
	s := newSortedChangesOf(tk, ids != nil)
	s.buf = make([]byte, 0, tk.encoded)
	tk.mergeRuns(bounds, func(i int, pos uint32) {
		s.buf = append(s.buf, tk.key(pos)...)
		if s.ends != nil {
			s.ends[i] = len(s.buf)
		}
		s.pos[i] = pos
		if ids != nil {
			s.ids[i] = ids[pos]
		}
	})
	return s
}

// gather copies the sorted keys one after the other, in order, with their
// ids if ids is not nil, on up to workers goroutines. Walking the keys where
// sortKeys leaves them, scattered in memory, waits on a cache miss per key:
// on 1M puts that took more time than writing them, and a tight copying
// loop overlaps the misses.
func (tk *tagKeys) gather(ids []uint32, workers int) sortedChanges {
	n := len(tk.sorted)
	s := newSortedChangesOf(tk, ids != nil)
	gatherAt := func(i int) uint32 {
		pos := tk.sorted[i].Value
		s.pos[i] = pos
		if ids != nil {
			s.ids[i] = ids[pos]
		}
		return pos
	}
	type part struct {
		lo, hi int
		buf    []byte // keys lo to hi-1
	}
	var (
		mu    sync.Mutex
		parts []part
	)
	inParallel(n, workers, func(lo, hi int) {
		buf := make([]byte, 0, len(tk.buf)/n*(hi-lo))
		for i := lo; i < hi; i++ {
			buf = append(buf, tk.key(gatherAt(i))...)
			s.ends[i] = len(buf)
		}
		mu.Lock()
		parts = append(parts, part{lo, hi, buf})
		mu.Unlock()
	})
	if len(parts) == 1 {
		s.buf = parts[0].buf
		return s
	}
	slices.SortFunc(parts, func(a, b part) int { return a.lo - b.lo })
	for _, p := range parts {
		base := len(s.buf)
		s.buf = append(s.buf, p.buf...)
		for i := p.lo; i < p.hi; i++ {
			s.ends[i] += base
		}
	}
	return s
}

func (s *sortedChanges) more() bool { return s.next < len(s.pos) }

// len returns the number of keys, duplicates included.
func (s *sortedChanges) len() int { return len(s.pos) }

// at returns the i-th Pebble key in sorted order.
func (s *sortedChanges) at(i int) []byte {
	if s.ends == nil {
		return uuidKeyAt(s.buf, i)
	}
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.buf[start:s.ends[i]:s.ends[i]]
}

// key returns the next Pebble key.
func (s *sortedChanges) key() []byte { return s.at(s.next) }

// seek positions s at the first key not below key.
func (s *sortedChanges) seek(key []byte) {
	s.next = sort.Search(s.len(), func(i int) bool { return bytes.Compare(s.at(i), key) >= 0 })
}

// take returns the next Pebble key and the index in sorted order of the
// last of the record keys it stands for (the greatest position), and moves
// past them.
func (s *sortedChanges) take() (key []byte, last int) {
	key, last = s.key(), s.next
	for s.next++; s.more() && bytes.Equal(s.key(), key); s.next++ {
		if s.pos[s.next] > s.pos[last] {
			last = s.next
		}
	}
	return key, last
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

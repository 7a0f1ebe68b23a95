package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/hoodie-dev/hoodie/internal/prefetch"
	"github.com/hoodie-dev/hoodie/internal/radix"
)

// minShardKeys is the fewest keys a Tag goroutine (a walker, or a share of
// the key encoding) is given: below it, a second goroutine costs more than
// it saves.
const minShardKeys = 16 << 10

// chunkKeys is how many sorted keys a Tag walker takes at a time. Walkers
// take chunks in key order as they go, so that one the machine slows down
// takes fewer.
const chunkKeys = 4 << 10

// checkEvery is how many items a loop handles between checks of its context.
const checkEvery = 4096

// Match is what Tag found for one key.
type Match struct {
	// Location is where the record lives; the zero Location when Found is
	// false.
	Location Location
	// Found reports whether the index holds the key.
	Found bool
}

// Matches is what Tag found for its keys, in the order of the keys. It
// takes 4 bytes per key, where a []Match would take 40 and hold pointers
// the garbage collector scans: a key's file group is its id in the
// dictionary, which the Matches share with the index.
type Matches struct {
	ids  []uint32   // per key: 0 when not found, else 1 + its group's id
	locs []Location // the groups, by id
}

// Len returns the number of keys.
func (m Matches) Len() int { return len(m.ids) }

// At returns what Tag found for key i, for 0 <= i < Len().
func (m Matches) At(i int) Match {
	id := m.ids[i]
	if id == 0 {
		return Match{}
	}
	return Match{Location: m.locs[id-1], Found: true}
}

// All yields each key's position and what Tag found for it, in key order.
func (m Matches) All() iter.Seq2[int, Match] {
	return func(yield func(int, Match) bool) {
		for i := range m.ids {
			if !yield(i, m.At(i)) {
				return
			}
		}
	}
}

// Tag looks up keys and returns what it found for each, in the order of
// keys. Duplicate keys get equal matches. The lookups see one consistent
// state of the index: the one at Watermark() when Tag started.
//
// Tag sorts the keys in index order (remembering each one's position) and
// walks an iterator forward through them, seeking only when the iterator is
// behind the next key. Large calls share the sorted keys out among
// Options.TagWorkers goroutines, each with its own iterator over the same
// state. Memory is 4 bytes per key of result, 20 to 40 bytes per key while
// sorting (plus a copy of the keys, unless they are all UUIDs) and Pebble's
// block cache; the index is never loaded whole.
//
// An empty key is refused with an error wrapping ErrEmptyKey.
func (ix *Index) Tag(ctx context.Context, keys []string) (Matches, error) {
	if err := ctx.Err(); err != nil {
		return Matches{}, ix.errorf("tag: %w", err)
	}
	for i, k := range keys {
		if k == "" {
			return Matches{}, ix.errorf("tag: key %d: %w", i, ErrEmptyKey)
		}
	}
	if uint64(len(keys)) > math.MaxUint32 {
		return Matches{}, ix.errorf("tag: %d keys in one call, more than %d", len(keys), math.MaxUint32)
	}
	out := Matches{ids: make([]uint32, len(keys))}
	if len(keys) == 0 {
		return out, nil
	}
	// On a goroutine of its own (see monitor.run): a store found damaged
	// returns at once.
	if err := ix.mon.run(func() error { return ix.tag(ctx, keys, &out) }); err != nil {
		return Matches{}, ix.errorf("tag: %w", err)
	}
	return out, nil
}

// tag answers Tag's keys in out, whose ids are zero.
func (ix *Index) tag(ctx context.Context, keys []string, out *Matches) error {
	sk := sortKeys(keySegments{keys}, ix.tagWorkers)
	var bounds chunk
	sk.appendTo(&bounds, 0, 1)
	sk.appendTo(&bounds, len(keys)-1, len(keys))
	opts := &pebble.IterOptions{
		LowerBound: bounds.key(0),
		UpperBound: append(bounds.key(1), 0),
	}
	it, locs, err := ix.newIter(ctx, opts)
	if err != nil {
		return err
	}
	if err := walk(ctx, ix.mon, it, sk, ix.tagWorkers, len(locs), out.ids); err != nil {
		return err
	}
	out.locs = locs
	return nil
}

// tagKeys are record keys as Pebble keys, and their sorted order: the keys
// of a Tag call that are not all UUIDs (those are sortedUUIDs), and the
// keys of an Apply's changes.
type tagKeys struct {
	// buf holds the Pebble keys in the caller's order: key i starts
	// buf[starts[i]:starts[i+1]], a slot as long as 1+len(keys[i]), which
	// a UUID does not fill. When every key is a UUID, starts is nil and
	// key i is buf[i*uuidKeyLen:(i+1)*uuidKeyLen].
	buf     []byte
	starts  []int
	encoded int       // the length of the Pebble keys, all together
	sorted  []keyHead // the keys in sorted order, once sorted
}

// uuidKeyLen is the length of the Pebble key of a UUID.
const uuidKeyLen = 1 + 16

// len returns the number of keys.
func (tk *tagKeys) len() int {
	if tk.starts == nil {
		return len(tk.buf) / uuidKeyLen
	}
	return len(tk.starts) - 1
}

// uuidKeyAt returns key i of buf, which holds Pebble keys of UUIDs back to
// back.
func uuidKeyAt(buf []byte, i int) []byte {
	at := i * uuidKeyLen
	return buf[at : at+uuidKeyLen : at+uuidKeyLen]
}

// key returns the Pebble key of key i.
func (tk *tagKeys) key(i uint32) []byte {
	if tk.starts == nil {
		return uuidKeyAt(tk.buf, int(i))
	}
	k := tk.buf[tk.starts[i]:tk.starts[i+1]:tk.starts[i+1]]
	if k[0] == nsUUID {
		return k[:uuidKeyLen:uuidKeyLen]
	}
	return k
}

// keyHead stands for one of a Tag call's keys: its position in the caller's
// slice (Value), and its head (Prefix), the first 8 bytes of its Pebble key
// after the prefix all the call's Pebble keys share, big endian and zero
// padded. Heads order most pairs of keys without reading the keys.
type keyHead = radix.Entry[uint32]

// keySegments is a list of keys given in segments, one after the other:
// key i of the list is key i of the segments laid end to end.
type keySegments [][]string

// len returns the number of keys.
func (ks keySegments) len() int {
	n := 0
	for _, seg := range ks {
		n += len(seg)
	}
	return n
}

// loadEach calls fn with keys lo to hi-1 in turn, each with its list
// position, until fn returns false; it reports whether fn saw them all. The
// keys come in the order of the records, not of their memory: it loads a
// block of them before fn sees them (see internal/prefetch), which made a
// 1M-key bulk load 15 to 20% faster
// (BenchmarkApplyBulkLoad/order=runs/path=ingest).
func (ks keySegments) loadEach(lo, hi int, fn func(at int, key string) bool) bool {
	base := 0
	for _, seg := range ks {
		for block := max(lo-base, 0); block < min(hi-base, len(seg)); block += prefetchBlock {
			end := min(block+prefetchBlock, hi-base, len(seg))
			prefetch.Strings(seg[block:end])
			for j := block; j < end; j++ {
				if !fn(base+j, seg[j]) {
					return false
				}
			}
		}
		base += len(seg)
	}
	return true
}

// sortedKeys are the keys of a Tag call in index order, equal keys in the
// order of their positions.
type sortedKeys interface {
	// len returns the number of keys.
	len() int
	// appendTo appends the sorted keys lo to hi-1 to c.
	appendTo(c *chunk, lo, hi int)
}

// chunk holds a run of sorted keys, copied out for a walker: the Pebble
// keys one after the other in buf, key i ending at ends[i], and their
// positions among the caller's keys.
type chunk struct {
	buf  []byte
	ends []int
	pos  []uint32
}

// reset empties c, keeping its memory.
func (c *chunk) reset() {
	c.buf, c.ends, c.pos = c.buf[:0], c.ends[:0], c.pos[:0]
}

// key returns the Pebble key of key i of c.
func (c *chunk) key(i int) []byte {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.buf[start:c.ends[i]:c.ends[i]]
}

// sortKeys encodes keys as Pebble keys and sorts them, using up to workers
// goroutines: as sortedUUIDs when they are all UUIDs, as tagKeys otherwise.
// There is at least one key and fewer than 1<<32.
func sortKeys(keys keySegments, workers int) sortedKeys {
	if s := sortUUIDKeys(keys, workers); s != nil {
		return s
	}
	tk := encodeOtherKeys(keys, workers)
	tk.sorted = make([]keyHead, tk.len())
	if runs := tk.ascendingRuns(maxMergedRuns); runs != nil {
		tk.mergeRuns(runs, func(i int, pos uint32) { tk.sorted[i] = keyHead{Value: pos} })
		return tk
	}
	tk.sort(workers)
	return tk
}

// encodeKeys encodes keys as Pebble keys into one buffer, using up to
// workers goroutines, and leaves them unsorted. There is at least one key
// and fewer than 1<<32.
func encodeKeys(keys keySegments, workers int) *tagKeys {
	if tk := encodeUUIDKeys(keys, workers); tk != nil {
		return tk
	}
	return encodeOtherKeys(keys, workers)
}

// encodeOtherKeys is encodeKeys for keys that may not all be UUIDs: each
// gets a slot of 1+len(key) bytes.
func encodeOtherKeys(keys keySegments, workers int) *tagKeys {
	n := keys.len()
	tk := &tagKeys{starts: make([]int, n+1)}
	i := 0
	for _, seg := range keys {
		for _, k := range seg {
			tk.starts[i+1] = tk.starts[i] + 1 + len(k)
			i++
		}
	}
	tk.buf = make([]byte, tk.starts[n])
	var encoded atomic.Int64
	inParallel(n, workers, func(lo, hi int) {
		size := 0
		keys.loadEach(lo, hi, func(at int, k string) bool {
			size += len(appendRecordKey(tk.buf[tk.starts[at]:tk.starts[at]:tk.starts[at+1]], k))
			return true
		})
		encoded.Add(int64(size))
	})
	tk.encoded = int(encoded.Load())
	return tk
}

// encodeUUIDKeys is encodeKeys for keys that are all UUIDs (see
// parseUUID), as the record keys of most tables are: their Pebble keys
// take uuidKeyLen bytes each, back to back, where the slots of encodeKeys
// take 1+36 and an offset each (on 1M keys, 17 MB against 45 MB). It
// returns nil, having looked at the keys only until it found out, if they
// are not all UUIDs.
func encodeUUIDKeys(keys keySegments, workers int) *tagKeys {
	n, ok := allUUIDs(keys)
	if !ok {
		return nil
	}
	tk := &tagKeys{buf: make([]byte, n*uuidKeyLen), encoded: n * uuidKeyLen}
	ok = parseUUIDKeys(keys, workers, func(at int, u [16]byte) {
		key := uuidKeyAt(tk.buf, at)
		key[0] = nsUUID
		copy(key[1:], u[:])
	})
	if !ok {
		return nil
	}
	return tk
}

// allUUIDs returns the number of keys and whether they may all be UUIDs:
// whether they all have the length of one and the first is one. It reads
// the keys' headers, and the text of the first only.
func allUUIDs(keys keySegments) (n int, ok bool) {
	var text [uuidLen]byte // the first key
	for _, seg := range keys {
		for _, k := range seg {
			if len(k) != uuidLen {
				return 0, false
			}
		}
		if n == 0 && len(seg) > 0 {
			copy(text[:], seg[0])
		}
		n += len(seg)
	}
	_, ok = parseUUID(text[:])
	return n, ok
}

// parseUUIDKeys parses keys, all of them uuidLen long, as UUIDs on up to
// workers goroutines, calling put with each key's position and bytes, and
// reports whether they all are UUIDs. It stops early, and put may have seen
// only some of the keys, when one is not.
func parseUUIDKeys(keys keySegments, workers int, put func(at int, u [16]byte)) bool {
	var failed atomic.Bool
	inParallel(keys.len(), workers, func(lo, hi int) {
		// parseUUID takes bytes: each key is copied to the stack rather
		// than converted, which could allocate.
		var text [uuidLen]byte
		keys.loadEach(lo, hi, func(at int, k string) bool {
			copy(text[:], k)
			u, ok := parseUUID(text[:])
			if !ok || failed.Load() {
				failed.Store(true)
				return false
			}
			put(at, u)
			return true
		})
	})
	return !failed.Load()
}

// sort fills tk.sorted, of tk.len() entries, with the keys in order, using
// up to workers goroutines.
func (tk *tagKeys) sort(workers int) {
	n := len(tk.sorted)
	first := tk.key(0)
	shared := len(first)
	for i := 1; i < n && shared > 0; i++ {
		k := tk.key(uint32(i))
		shared = min(shared, len(k))
		for shared > 0 && !bytes.Equal(k[:shared], first[:shared]) {
			shared--
		}
	}
	inParallel(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var b [8]byte
			copy(b[:], tk.key(uint32(i))[shared:])
			tk.sorted[i] = keyHead{Prefix: binary.BigEndian.Uint64(b[:]), Value: uint32(i)}
		}
	})
	radix.SortParallel(tk.sorted, make([]keyHead, n), tk.comparePos, workers)
}

// prefetchBlock is how many keys loadEach loads ahead of encoding them.
const prefetchBlock = 256

// maxMergedRuns is the most ascending runs of keys that sortKeys merges
// rather than sorting. A write's changes come a file group at a time, each
// group's keys in order, so they often form a few runs: merging them reads
// each run in sequence, where a sort reads the keys all over memory.
const maxMergedRuns = 64

// ascendingRuns returns where the runs of keys in ascending order (equal
// neighbours included) start, followed by the number of keys, when there
// are at most max runs; nil otherwise, having looked at the keys only until
// it found more.
func (tk *tagKeys) ascendingRuns(max int) []int {
	n := tk.len()
	starts := []int{0}
	prev := tk.key(0)
	for i := 1; i < n; i++ {
		k := tk.key(uint32(i))
		if bytes.Compare(prev, k) > 0 {
			if len(starts) == max {
				return nil
			}
			starts = append(starts, i)
		}
		prev = k
	}
	return append(starts, n)
}

// mergeRuns merges the ascending runs of keys between bounds (see
// ascendingRuns), calling emit with the position of each key in turn, the
// i-th in sorted order; equal keys keep the order of their positions.
func (tk *tagKeys) mergeRuns(bounds []int, emit func(i int, pos uint32)) {
	// heap is a binary min-heap of the runs not yet taken whole, each at
	// its next key, ordered by that key and then by position.
	type run struct{ next, end uint32 }
	heap := make([]run, 0, len(bounds)-1)
	less := func(a, b run) bool {
		c := bytes.Compare(tk.key(a.next), tk.key(b.next))
		return c < 0 || c == 0 && a.next < b.next
	}
	down := func(i int) {
		for {
			least := i
			for _, c := range [2]int{2*i + 1, 2*i + 2} {
				if c < len(heap) && less(heap[c], heap[least]) {
					least = c
				}
			}
			if least == i {
				return
			}
			heap[i], heap[least] = heap[least], heap[i]
			i = least
		}
	}
	for i := 0; i+1 < len(bounds); i++ {
		heap = append(heap, run{uint32(bounds[i]), uint32(bounds[i+1])})
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := range tk.len() {
		top := &heap[0]
		emit(i, top.next)
		if top.next++; top.next == top.end {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
	}
}

// inParallel calls fn on up to workers consecutive ranges [lo, hi) covering
// [0, n), concurrently, giving each at least minShardKeys.
func inParallel(n, workers int, fn func(lo, hi int)) {
	inShards(n, shards(n, workers), func(_, lo, hi int) { fn(lo, hi) })
}

// shards returns how many goroutines, up to workers, share n items, giving
// each at least minShardKeys.
func shards(n, workers int) int {
	return max(1, min(workers, n/minShardKeys))
}

// inShards calls fn on w consecutive ranges [lo, hi) covering [0, n),
// range r being the r-th, concurrently.
func inShards(n, w int, fn func(r, lo, hi int)) {
	var wg sync.WaitGroup
	for r := 1; r < w; r++ {
		wg.Go(func() { fn(r, r*n/w, (r+1)*n/w) })
	}
	fn(0, 0, n/w)
	wg.Wait()
}

// comparePos orders the keys at positions a and b.
func (tk *tagKeys) comparePos(a, b uint32) int {
	return bytes.Compare(tk.key(a), tk.key(b))
}

// appendTo implements sortedKeys.
func (tk *tagKeys) appendTo(c *chunk, lo, hi int) {
	// Copying keys in a tight loop overlaps the cache misses of reading
	// them, which the walk, waiting on each lookup, would take one at a
	// time.
	for _, kh := range tk.sorted[lo:hi] {
		c.buf = append(c.buf, tk.key(kh.Value)...)
		c.ends = append(c.ends, len(c.buf))
		c.pos = append(c.pos, kh.Value)
	}
}

// walk looks up the sorted keys, writing to ids at each key's position 1 +
// the id of its file group, of which there are groups, or leaving 0 when the
// index does not hold it. It uses up to workers goroutines, each walking
// its own clone of it, and closes the iterators.
func walk(ctx context.Context, mon *monitor, it *pebble.Iterator, sk sortedKeys, workers, groups int, ids []uint32) error {
	n := shards(sk.len(), workers)
	iters := []*pebble.Iterator{it}
	var err error
	for len(iters) < n && err == nil {
		var c *pebble.Iterator
		if c, err = it.Clone(pebble.CloneOptions{}); err == nil {
			iters = append(iters, c)
		}
	}
	errs := make([]error, len(iters), 2*len(iters)+1)
	if err == nil {
		var next atomic.Int64 // the start of the next chunk to take
		var wg sync.WaitGroup
		for i := 1; i < len(iters); i++ {
			wg.Go(func() {
				defer mon.catch(&errs[i])
				errs[i] = walker(ctx, iters[i], sk, &next, groups, ids)
			})
		}
		errs[0] = walker(ctx, it, sk, &next, groups, ids)
		wg.Wait()
	}
	for _, it := range iters {
		errs = append(errs, it.Close())
	}
	return errors.Join(append(errs, err)...)
}

// walker walks it forward through chunks of the sorted keys, taking the next
// chunk from next until there is none left. Taken in increasing order, the
// chunks of one walker follow each other in key order.
func walker(ctx context.Context, it *pebble.Iterator, sk sortedKeys, next *atomic.Int64, groups int, ids []uint32) error {
	// The keys found, with their file-group ids. They go to ids at the end
	// of each chunk: ids is in the caller's order, and a store to it while
	// walking would stall the next lookup on a cache miss.
	type hit struct{ pos, id uint32 }
	var (
		c     chunk
		hits  []hit
		valid bool // whether it is at the first key >= the last one sought
	)
	for {
		start := int(next.Add(chunkKeys) - chunkKeys)
		if start >= sk.len() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		c.reset()
		sk.appendTo(&c, start, min(start+chunkKeys, sk.len()))
		hits = hits[:0]
		var prev []byte
		for i := range c.pos {
			key := c.key(i)
			if bytes.Equal(key, prev) {
				// A duplicate gets the previous key's match.
				if n := len(hits); n > 0 && hits[n-1].pos == c.pos[i-1] {
					hits = append(hits, hit{c.pos[i], hits[n-1].id})
				}
				continue
			}
			prev = key
			// The iterator may already be at or past this key: a previous
			// seek for an absent key stops at the next key present.
			if !valid || bytes.Compare(it.Key(), key) < 0 {
				if valid = it.SeekGE(key); !valid {
					// No indexed key is >= this one: nor any later one.
					break
				}
			}
			if !bytes.Equal(it.Key(), key) {
				continue
			}
			id, err := groupID(it, groups)
			if err != nil {
				return err
			}
			hits = append(hits, hit{c.pos[i], id})
		}
		for _, h := range hits {
			ids[h.pos] = h.id + 1
		}
		if !valid {
			return it.Error()
		}
	}
}

// resolve decodes the location of the record at the iterator's position.
func resolve(it *pebble.Iterator, locs []Location) (Location, error) {
	id, err := groupID(it, len(locs))
	if err != nil {
		return Location{}, err
	}
	return locs[id], nil
}

// groupID decodes the file-group id of the record at the iterator's
// position, checking that it is below groups.
func groupID(it *pebble.Iterator, groups int) (uint32, error) {
	v, err := it.ValueAndErr()
	if err != nil {
		return 0, err
	}
	id, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) || id >= uint64(groups) {
		return 0, fmt.Errorf("record %q: value %x names no file group: %w", recordKey(it.Key()), v, ErrStale)
	}
	return uint32(id), nil
}

package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// minShardKeys is the fewest sorted keys a Tag worker (or a parallel sort
// half) is given: below it, a second goroutine costs more than it saves.
const minShardKeys = 16 << 10

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

// Tag looks up keys and returns one Match per key, in the order of keys.
// Duplicate keys get equal matches. The lookups see one consistent state of
// the index: the one at Watermark() when Tag started.
//
// Tag sorts the keys (remembering each one's position) and walks an iterator
// forward through them, seeking only when the iterator is behind the next key.
// Large calls split the sorted keys among Options.TagWorkers goroutines, each
// with its own iterator over the same state. Memory is the keys, the result
// and Pebble's block cache; the index is never loaded whole.
//
// An empty key is refused with an error wrapping ErrEmptyKey.
func (ix *Index) Tag(ctx context.Context, keys []string) ([]Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, ix.errorf("tag: %w", err)
	}
	for i, k := range keys {
		if k == "" {
			return nil, ix.errorf("tag: key %d: %w", i, ErrEmptyKey)
		}
	}
	if uint64(len(keys)) > math.MaxUint32 {
		return nil, ix.errorf("tag: %d keys in one call, more than %d", len(keys), math.MaxUint32)
	}
	out := make([]Match, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	sorted := sortKeys(keys, ix.tagWorkers)
	opts := &pebble.IterOptions{
		LowerBound: appendKey(nil, nsRecord, sorted[0].key),
		UpperBound: append(appendKey(nil, nsRecord, sorted[len(sorted)-1].key), 0),
	}

	it, locs, err := ix.newIter(ctx, opts)
	if err != nil {
		return nil, ix.errorf("tag: %w", err)
	}
	if err := walkShards(ctx, it, split(sorted, ix.tagWorkers), locs, out); err != nil {
		return nil, ix.errorf("tag: %w", err)
	}
	return out, nil
}

// walkShards walks each shard of sorted keys with its own clone of it,
// concurrently, and closes the iterators.
func walkShards(ctx context.Context, it *pebble.Iterator, shards [][]sortedKey, locs []Location, out []Match) error {
	iters := []*pebble.Iterator{it}
	var err error
	for len(iters) < len(shards) && err == nil {
		var c *pebble.Iterator
		if c, err = it.Clone(pebble.CloneOptions{}); err == nil {
			iters = append(iters, c)
		}
	}
	errs := make([]error, len(iters), 2*len(iters)+1)
	if err == nil {
		var wg sync.WaitGroup
		for i := 1; i < len(iters); i++ {
			wg.Go(func() { errs[i] = walk(ctx, iters[i], shards[i], locs, out) })
		}
		errs[0] = walk(ctx, it, shards[0], locs, out)
		wg.Wait()
	}
	for _, it := range iters {
		errs = append(errs, it.Close())
	}
	return errors.Join(append(errs, err)...)
}

// walk looks up the sorted keys with it, writing each result to out at the
// key's position. locs resolves file-group ids.
func walk(ctx context.Context, it *pebble.Iterator, sorted []sortedKey, locs []Location, out []Match) error {
	var seek []byte
	valid := false
	for i, sk := range sorted {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if i > 0 && sk.key == sorted[i-1].key {
			out[sk.pos] = out[sorted[i-1].pos]
			continue
		}
		// The iterator may already be at or past this key: a previous seek
		// for an absent key stops at the next key present.
		if !valid || string(it.Key()[1:]) < sk.key {
			seek = appendKey(seek[:0], nsRecord, sk.key)
			if valid = it.SeekGE(seek); !valid {
				// No indexed key is >= this one: nor any later one.
				return it.Error()
			}
		}
		if string(it.Key()[1:]) != sk.key {
			continue
		}
		loc, err := resolve(it, locs)
		if err != nil {
			return err
		}
		out[sk.pos] = Match{Location: loc, Found: true}
	}
	return nil
}

// resolve decodes the location of the record at the iterator's position.
func resolve(it *pebble.Iterator, locs []Location) (Location, error) {
	v, err := it.ValueAndErr()
	if err != nil {
		return Location{}, err
	}
	id, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) || id >= uint64(len(locs)) {
		return Location{}, fmt.Errorf("record %q: value %x names no file group: %w", it.Key()[1:], v, ErrStale)
	}
	return locs[id], nil
}

// sortedKey is one of a Tag call's keys, with its position in the caller's
// slice. head holds the key's first 8 bytes after the prefix all the call's
// keys share, big endian and zero padded: comparing heads orders most pairs
// of keys without comparing the strings.
type sortedKey struct {
	key  string
	head uint64
	pos  uint32
}

func compareSorted(a, b sortedKey) int {
	if a.head != b.head {
		if a.head < b.head {
			return -1
		}
		return 1
	}
	return strings.Compare(a.key, b.key)
}

// sortKeys returns keys in sorted order, using up to workers goroutines.
// There is at least one key and fewer than 1<<32.
func sortKeys(keys []string, workers int) []sortedKey {
	shared := len(keys[0])
	for _, k := range keys[1:] {
		shared = min(shared, len(k))
		for shared > 0 && k[:shared] != keys[0][:shared] {
			shared--
		}
	}
	s := make([]sortedKey, len(keys))
	for i, k := range keys {
		var b [8]byte
		copy(b[:], k[shared:])
		s[i] = sortedKey{key: k, head: binary.BigEndian.Uint64(b[:]), pos: uint32(i)}
	}
	sortParallel(s, make([]sortedKey, len(s)), workers)
	return s
}

// sortParallel sorts s. When s is large and there are workers to spare, it
// sorts the halves of s concurrently and merges them through tmp, a slice of
// the same length.
func sortParallel(s, tmp []sortedKey, workers int) {
	if workers < 2 || len(s) < 2*minShardKeys {
		slices.SortFunc(s, compareSorted)
		return
	}
	mid := len(s) / 2
	var wg sync.WaitGroup
	wg.Go(func() { sortParallel(s[:mid], tmp[:mid], workers/2) })
	sortParallel(s[mid:], tmp[mid:], workers-workers/2)
	wg.Wait()
	a, b, out := s[:mid], s[mid:], tmp[:0]
	for len(a) > 0 && len(b) > 0 {
		if compareSorted(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(append(out, a...), b...)
	copy(s, out)
}

// split cuts sorted into at most workers contiguous shards of at least
// minShardKeys keys each.
func split(sorted []sortedKey, workers int) [][]sortedKey {
	n := min(workers, len(sorted)/minShardKeys)
	if n < 2 {
		return [][]sortedKey{sorted}
	}
	shards := make([][]sortedKey, n)
	for i := range shards {
		shards[i] = sorted[i*len(sorted)/n : (i+1)*len(sorted)/n]
	}
	return shards
}

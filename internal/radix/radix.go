// Package radix sorts values by a 64-bit prefix of their sort key: a radix
// sort of the prefixes, then a comparison sort of each run of equal
// prefixes. On keys whose first eight bytes mostly differ (UUIDs, hashes)
// it takes a small fraction of the time of a comparison sort, whose
// comparisons would follow each key into memory.
package radix

import (
	"math/bits"
	"slices"
	"sync"
)

// Entry is a value with the prefix it sorts by: the first eight bytes of
// its key, big-endian, padded with zeros (see Prefix).
type Entry[T any] struct {
	Prefix uint64
	Value  T
}

// Prefix returns the first eight bytes of key as a big-endian number,
// padded with zeros: keys compare as their prefixes do, unless these are
// equal.
func Prefix(key string) uint64 {
	var b [8]byte
	copy(b[:], key)
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// Sort sorts s by prefix, and entries of equal prefixes with cmp, which
// must order them as their full keys do. The radix passes go over the
// prefix's high bytes only, as far as they tell apart about 16 times as
// many values as there are entries; entries equal in those are then sorted
// by comparison. tmp is scratch memory of at least len(s) entries. The
// sort is stable: entries that cmp finds equal keep their order.
func Sort[T any](s, tmp []Entry[T], cmp func(a, b T) int) {
	if len(s) < 2 {
		return
	}
	// Bytes in which all prefixes agree need no pass (ASCII keys, say,
	// share the top bit of every byte; short keys their zero padding).
	var differ uint64
	for _, e := range s {
		differ |= e.Prefix ^ s[0].Prefix
	}
	// Nor do the low bytes, once the bytes above them tell apart many
	// more values than there are entries: runs of entries equal in those
	// are then rare and short, and sorted by comparison.
	low, need := 64, bits.Len(uint(len(s)))+4
	for low > 0 && need > 0 {
		low -= 8
		need -= bits.OnesCount64(differ >> low & 0xff)
	}
	src, dst := s, tmp[:len(s)]
	for shift := low; shift < 64; shift += 8 {
		if differ>>shift&0xff == 0 {
			continue
		}
		var start [256]int
		for _, e := range src {
			start[e.Prefix>>shift&0xff]++
		}
		n := 0
		for i, c := range start {
			start[i], n = n, n+c
		}
		for _, e := range src {
			d := e.Prefix >> shift & 0xff
			dst[start[d]] = e
			start[d]++
		}
		src, dst = dst, src
	}
	copy(s, src)
	byKey := func(a, b Entry[T]) int {
		if a.Prefix != b.Prefix {
			if a.Prefix < b.Prefix {
				return -1
			}
			return 1
		}
		return cmp(a.Value, b.Value)
	}
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j].Prefix>>low == s[i].Prefix>>low {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(s[i:j], byKey)
		}
		i = j
	}
}

// minParallel is the fewest entries SortParallel gives a goroutine.
const minParallel = 1 << 14

// SortParallel sorts s as Sort does, on up to workers goroutines: the two
// halves are sorted concurrently (each on half the workers) and merged. It
// is stable too: of equal entries, those of the first half go first.
func SortParallel[T any](s, tmp []Entry[T], cmp func(a, b T) int, workers int) {
	if workers < 2 || len(s) < 2*minParallel {
		Sort(s, tmp, cmp)
		return
	}
	mid := len(s) / 2
	var wg sync.WaitGroup
	wg.Go(func() { SortParallel(s[:mid], tmp[:mid], cmp, workers/2) })
	SortParallel(s[mid:], tmp[mid:], cmp, workers-workers/2)
	wg.Wait()
	a, b, out := s[:mid], s[mid:], tmp[:0]
	for len(a) > 0 && len(b) > 0 {
		if b[0].Prefix < a[0].Prefix || b[0].Prefix == a[0].Prefix && cmp(b[0].Value, a[0].Value) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(append(out, a...), b...)
	copy(s, out)
}

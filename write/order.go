package write

import (
	"cmp"
	"strings"
	"sync"

	"github.com/hoodie-dev/hoodie/internal/radix"
)

// sortRecords returns the records of all in record-key order, records of
// one key in input order, and the radix.Prefix of each key. New files hold
// their records in this order, as Hudi's sorting bulk insert writes them,
// so that the key column's page statistics narrow a lookup by key to a page
// or two; and records of one key end up side by side for precombining.
//
// The records are copied in their new order: every later pass over them
// (precombining, planning, writing) then reads memory in sequence instead
// of jumping around the input, which on 1M records costs a cache miss each.
func sortRecords(all []record) (sorted []record, prefixes []uint64) {
	entries := make([]radix.Entry[int32], len(all))
	for i := range all {
		entries[i] = radix.Entry[int32]{Prefix: radix.Prefix(all[i].key), Value: int32(i)}
	}
	byKey := func(a, b int32) int { return cmp.Or(strings.Compare(all[a].key, all[b].key), cmp.Compare(a, b)) }
	tmp := make([]radix.Entry[int32], len(entries))
	// The halves are sorted on two cores and merged into tmp.
	half := len(entries) / 2
	var wg sync.WaitGroup
	wg.Go(func() { radix.Sort(entries[:half], tmp[:half], byKey) })
	radix.Sort(entries[half:], tmp[half:], byKey)
	wg.Wait()
	merged, a, b := tmp[:0], entries[:half], entries[half:]
	for len(a) > 0 && len(b) > 0 {
		// On equal keys the first half's record, earlier in the input, goes first.
		if b[0].Prefix < a[0].Prefix || b[0].Prefix == a[0].Prefix && byKey(b[0].Value, a[0].Value) < 0 {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	sorted, prefixes = make([]record, len(all)), make([]uint64, len(all))
	gather := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sorted[i], prefixes[i] = all[merged[i].Value], merged[i].Prefix
		}
	}
	wg.Go(func() { gather(0, half) })
	gather(half, len(merged))
	wg.Wait()
	return sorted, prefixes
}

// precombineSorted returns one record per key of sorted (in key order,
// records of one key in input order; prefixes as sortRecords returns them):
// of the records of a key, the one with the greatest value in column
// precombine of its row, and of those the last; without a precombine
// column (precombine -1), the last. A failed comparison is returned with
// the record it came up with: of several, the one earliest in the input.
func precombineSorted(sorted []record, prefixes []uint64, precombine int) ([]*record, *record, error) {
	kept := make([]*record, 0, len(sorted))
	var (
		failed  *record
		failure error
	)
	// Keys whose prefixes differ differ: their bytes need not be read.
	sameKey := func(i, j int) bool { return prefixes[i] == prefixes[j] && sorted[i].key == sorted[j].key }
	for i := 0; i < len(sorted); {
		winner := &sorted[i]
		j := i + 1
		for ; j < len(sorted) && sameKey(i, j); j++ {
			r := &sorted[j]
			if precombine >= 0 {
				c, err := compareOrdering(r.row[precombine], winner.row[precombine])
				if err != nil {
					if failed == nil || r.pos < failed.pos {
						failed, failure = r, err
					}
					continue
				}
				if c < 0 {
					continue
				}
			}
			winner = r
		}
		kept = append(kept, winner)
		i = j
	}
	return kept, failed, failure
}

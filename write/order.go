package write

import (
	"cmp"
	"strings"

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
// Sorting and copying use up to workers goroutines.
func sortRecords(all []record, workers int) (sorted []record, prefixes []uint64) {
	entries := make([]radix.Entry[int32], len(all))
	for i := range all {
		entries[i] = radix.Entry[int32]{Prefix: radix.Prefix(all[i].key), Value: int32(i)}
	}
	radix.SortParallel(entries, make([]radix.Entry[int32], len(entries)), func(a, b int32) int {
		return cmp.Or(strings.Compare(all[a].key, all[b].key), cmp.Compare(a, b))
	}, workers)
	sorted, prefixes = make([]record, len(all)), make([]uint64, len(all))
	parallelChunks(len(entries), workers, func(lo, hi int) error {
		for i, e := range entries[lo:hi] {
			sorted[lo+i], prefixes[lo+i] = all[e.Value], e.Prefix
		}
		return nil
	})
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

package write

import (
	"cmp"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/radix"
)

// keyOrder returns the positions in all of its records in record-key order,
// records of one key in input order, each with the radix.Prefix of its key.
// It sorts with up to workers goroutines.
func keyOrder(all []record, workers int) []radix.Entry[int32] {
	order := make([]radix.Entry[int32], len(all))
	for i := range all {
		order[i] = radix.Entry[int32]{Prefix: radix.Prefix(all[i].key), Value: int32(i)}
	}
	radix.SortParallel(order, make([]radix.Entry[int32], len(order)), func(a, b int32) int {
		return cmp.Or(strings.Compare(all[a].key, all[b].key), cmp.Compare(a, b))
	}, workers)
	return order
}

// sortRecords returns the records of all in the key order that keyOrder
// gave, copied in that order. New files hold their records in this order,
// as Hudi's sorting bulk insert writes them, so that the key column's page
// statistics narrow a lookup by key to a page or two; and records of one
// key end up side by side for precombining.
//
// The records are copied in their new order: every later pass over them
// (precombining, planning, writing) then reads memory in sequence instead
// of jumping around the input, which on 1M records costs a cache miss each.
// The copy uses up to workers goroutines.
func sortRecords(all []record, order []radix.Entry[int32], workers int) keyedRecords {
	sorted, prefixes := make([]record, len(all)), make([]uint64, len(all))
	parallelChunks(len(order), workers, func(lo, hi int) error {
		for i, e := range order[lo:hi] {
			sorted[lo+i], prefixes[lo+i] = all[e.Value], e.Prefix
		}
		return nil
	})
	return keyedRecords{
		n:      len(sorted),
		at:     func(i int) *record { return &sorted[i] },
		prefix: func(i int) uint64 { return prefixes[i] },
	}
}

// keyedRecords is a sequence of records in key order, records of one key in
// input order: at(i) is record i and prefix(i) the radix.Prefix of its key.
type keyedRecords struct {
	n      int
	at     func(i int) *record
	prefix func(i int) uint64
}

// orderedRecords is the sequence of the records of all in order, as
// keyOrder returns it, without moving them.
func orderedRecords(all []record, order []radix.Entry[int32]) keyedRecords {
	return keyedRecords{
		n:      len(all),
		at:     func(i int) *record { return &all[order[i].Value] },
		prefix: func(i int) uint64 { return order[i].Prefix },
	}
}

// precombineKeys returns one record per key of recs, in key order: of the
// records of a key, the one with the greatest value in column precombine
// of its row, and of those the last; without a precombine column
// (precombine -1), the last. A failed comparison is returned with the
// record it came up with: of several, the one earliest in the input.
func precombineKeys(recs keyedRecords, precombine int) ([]*record, *record, error) {
	kept := make([]*record, 0, recs.n)
	var (
		failed  *record
		failure error
	)
	for i := 0; i < recs.n; {
		winner := recs.at(i)
		j := i + 1
		// Keys whose prefixes differ differ: their bytes need not be read.
		for ; j < recs.n && recs.prefix(j) == recs.prefix(i) && recs.at(j).key == winner.key; j++ {
			r := recs.at(j)
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

// inInputOrder reorders kept, records of all, by their position in all.
func inInputOrder(all []record, kept []*record) []*record {
	keep := make([]bool, len(all))
	for _, r := range kept {
		keep[r.pos] = true
	}
	kept = kept[:0]
	for i := range all {
		if keep[i] {
			kept = append(kept, &all[i])
		}
	}
	return kept
}

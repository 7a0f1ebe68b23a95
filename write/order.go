package write

import (
	"cmp"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/radix"
)

// keyOrder returns the positions in all of its records in record-key order,
// records of one key in input order, each with the radix.Prefix of its key.
// It sorts with up to workers goroutines. New files hold their records in
// this order, as Hudi's sorting bulk insert writes them, so that the key
// column's page statistics narrow a lookup by key to a page or two; and the
// records of one key come one after the other, for precombining.
//
// The records stay where they are: copying them in key order, so that later
// passes would read memory in sequence, cost more than it saved (a 1M-record
// bulk insert took 5% longer with the copy).
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

// precombineKeys returns one record per key of all, in the order keyOrder
// gave: of the records of a key, the one with the greatest value in column
// precombine of its row, and of those the last; without a precombine column
// (precombine -1), the last. A failed comparison is returned with the record
// it came up with: of several, the one earliest in the input.
func precombineKeys(all []record, order []radix.Entry[int32], precombine int) ([]*record, *record, error) {
	kept := make([]*record, 0, len(order))
	var (
		failed  *record
		failure error
	)
	for i := 0; i < len(order); {
		winner := &all[order[i].Value]
		j := i + 1
		// Keys whose prefixes differ differ: their bytes need not be read.
		for ; j < len(order) && order[j].Prefix == order[i].Prefix && all[order[j].Value].key == winner.key; j++ {
			r := &all[order[j].Value]
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

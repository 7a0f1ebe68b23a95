package write

import (
	"cmp"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/radix"
)

// sortRecords returns the records of all in record-key order, records of
// one key in input order. New files hold their records in this order, as
// Hudi's sorting bulk insert writes them, so that the key column's page
// statistics narrow a lookup by key to a page or two; and records of one
// key end up side by side for precombining. The entries keep each key's
// prefix, which tells most neighbours apart without reading their keys.
func sortRecords(all []record) []radix.Entry[*record] {
	entries := make([]radix.Entry[*record], len(all))
	for i := range all {
		entries[i] = radix.Entry[*record]{Prefix: radix.Prefix(all[i].key), Value: &all[i]}
	}
	radix.Sort(entries, make([]radix.Entry[*record], len(entries)), func(a, b *record) int {
		return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.pos, b.pos))
	})
	return entries
}

// precombineSorted returns one record per key of sorted (in key order,
// records of one key in input order): the one with the greatest precombine
// value, and of those the last; without a precombine column (precombine
// false) the last. A failed comparison is returned with the record it came
// up with: of several, the one earliest in the input.
func precombineSorted(sorted []radix.Entry[*record], precombine bool) ([]*record, *record, error) {
	kept := make([]*record, 0, len(sorted))
	var (
		failed  *record
		failure error
	)
	sameKey := func(i, j int) bool {
		return sorted[i].Prefix == sorted[j].Prefix && sorted[i].Value.key == sorted[j].Value.key
	}
	for i := 0; i < len(sorted); {
		winner := sorted[i].Value
		j := i + 1
		for ; j < len(sorted) && sameKey(i, j); j++ {
			r := sorted[j].Value
			if precombine {
				c, err := compareOrdering(r.ordering, winner.ordering)
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

package write

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
)

// TestSortAndPrecombine checks that records come out in key order, one per
// key: the greatest precombine value, the last of equals, or the last
// without a precombine column.
func TestSortAndPrecombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"", "a", "a\x00", "b", "key-0001", "key-0002", "ffffffff-0000", "ffffffff-0001", "z"}
	var all []record
	type want struct {
		pos     int32
		byOrder int32 // the winner with precombine
	}
	wants := map[string]*want{}
	for i := range 2000 {
		key := keys[rng.IntN(len(keys))]
		ts := int64(rng.IntN(5))
		all = append(all, record{key: key, row: []any{key, ts}, pos: int32(i)})
		w := wants[key]
		if w == nil {
			w = &want{pos: int32(i), byOrder: int32(i)}
			wants[key] = w
		}
		w.pos = int32(i)
		if ts >= all[w.byOrder].row[1].(int64) {
			w.byOrder = int32(i)
		}
	}
	for _, precombine := range []int{-1, 1} {
		t.Run(fmt.Sprint("precombine column ", precombine), func(t *testing.T) {
			sorted, prefixes := sortRecords(all, 2)
			kept, failed, err := precombineSorted(sorted, prefixes, precombine)
			if err != nil || failed != nil {
				t.Fatalf("precombine failed on %v: %v", failed, err)
			}
			if len(kept) != len(wants) {
				t.Fatalf("kept %d records, want one per key: %d", len(kept), len(wants))
			}
			for i, r := range kept {
				if i > 0 && strings.Compare(kept[i-1].key, r.key) >= 0 {
					t.Errorf("key %q follows %q", r.key, kept[i-1].key)
				}
				w := wants[r.key].pos
				if precombine >= 0 {
					w = wants[r.key].byOrder
				}
				if r.pos != w {
					t.Errorf("key %q: kept the record at %d, want %d", r.key, r.pos, w)
				}
			}
		})
	}
}

// TestPrecombineFailure checks that of several records whose precombine
// values cannot be compared, the earliest in the input is reported.
func TestPrecombineFailure(t *testing.T) {
	all := []record{
		{key: "b", row: []any{int64(1)}, pos: 0},
		{key: "a", row: []any{int64(1)}, pos: 1},
		{key: "b", row: []any{"text"}, pos: 2},
		{key: "a", row: []any{"text"}, pos: 3},
	}
	sorted, prefixes := sortRecords(all, 2)
	_, failed, err := precombineSorted(sorted, prefixes, 0)
	if err == nil || failed == nil || failed.pos != 2 {
		t.Fatalf("failure %v on %+v, want one on the record at 2", err, failed)
	}
}

// TestExistingKeysErrorNamesFirstRecords checks that an insert of existing
// keys is refused naming how many and the first five in input order,
// although the write handles records in key order.
func TestExistingKeysErrorNamesFirstRecords(t *testing.T) {
	tt := newTripsTable(t, storage.MergeEventTime, Settings{})
	gen := trips.NewGenerator(5)
	existing := gen.Inserts(50)
	tt.write(OpBulkInsert, tripsInput(existing))
	// Seven existing keys among new ones, in decreasing key order.
	again := slices.SortedFunc(slices.Values(existing[:7]), func(a, b trips.Trip) int { return strings.Compare(b.UUID, a.UUID) })
	batch := append(gen.Inserts(3), again...)
	_, err := tt.w.Write(t.Context(), OpInsert, tripsInput(batch))
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("insert of existing keys: %v, want a refusal", err)
	}
	want := []string{"7 record(s)"}
	for i, tr := range again[:5] {
		want = append(want, fmt.Sprintf("%q (record %d)", tr.UUID, 4+i))
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %s", err, w)
		}
	}
	if strings.Contains(err.Error(), again[5].UUID) {
		t.Errorf("error %q names a sixth record", err)
	}
}

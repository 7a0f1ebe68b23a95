package write

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/basefiletest"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// TestSortAndPrecombine checks that records come out one per key, in key
// order or, unsorted, in input order: of a key's records, the one with the
// greatest precombine value, the last of equals, or the last without a
// precombine column.
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
	for _, tc := range []struct {
		precombine int
		sorted     bool
	}{{-1, true}, {1, true}, {-1, false}, {1, false}} {
		t.Run(fmt.Sprintf("precombine column %d, sorted %v", tc.precombine, tc.sorted), func(t *testing.T) {
			kept, failed, err := precombineKeys(all, keyOrder(all, 2), tc.precombine)
			if err != nil || failed != nil {
				t.Fatalf("precombine failed on %v: %v", failed, err)
			}
			if !tc.sorted {
				kept = inInputOrder(all, kept)
			}
			if len(kept) != len(wants) {
				t.Fatalf("kept %d records, want one per key: %d", len(kept), len(wants))
			}
			for i, r := range kept {
				if i > 0 && tc.sorted && strings.Compare(kept[i-1].key, r.key) >= 0 {
					t.Errorf("key %q follows %q", r.key, kept[i-1].key)
				}
				if i > 0 && !tc.sorted && kept[i-1].pos >= r.pos {
					t.Errorf("record %d follows record %d", r.pos, kept[i-1].pos)
				}
				w := wants[r.key].pos
				if tc.precombine >= 0 {
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
	_, failed, err := precombineKeys(all, keyOrder(all, 2), 0)
	if err == nil || failed == nil || failed.pos != 2 {
		t.Fatalf("failure %v on %+v, want one on the record at 2", err, failed)
	}
}

// TestExistingKeysErrorNamesFirstRecords checks that an insert of existing
// keys is refused naming how many and the first five in input order,
// although the write handles records in key order.
func TestExistingKeysErrorNamesFirstRecords(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
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

// TestBulkInsertSortMode checks that a bulk insert writes each file's
// records in key order by default and in input order with sort mode NONE,
// and that both keep the same records: one per key, as precombined.
func TestBulkInsertSortMode(t *testing.T) {
	gen := trips.NewGenerator(9)
	batch := gen.Inserts(300)
	// Later versions of 20 keys, some older (smaller ts) than the first.
	for i, tr := range batch[:20] {
		tr.TS += int64(i%2*2-1) * 1000
		tr.Fare += 1
		batch = append(batch, tr)
	}
	// Each key's record is the one with the greatest ts, of equals the last:
	// without sorting, records keep the order of the ones kept.
	position := map[string]int{}
	for i, tr := range batch {
		if p, ok := position[tr.UUID]; !ok || tr.TS >= batch[p].TS {
			position[tr.UUID] = i
		}
	}
	var snapshots []map[string][]any
	for _, mode := range []string{"", "NONE"} {
		settings := DefaultSettings()
		if mode != "" {
			settings.BulkInsertSortMode = mode
		}
		tt := newTripsTable(t, config.MergeEventTime, settings)
		if res := tt.write(OpBulkInsert, tripsInput(batch)); res.Inserted != 300 {
			t.Fatalf("mode %q: %d inserted, want 300", mode, res.Inserted)
		}
		_, view := tt.latest()
		for _, s := range view.LatestSlices() {
			rows := basefiletest.Rows(t, tt.fsys, s.Path)
			for i := 1; i < len(rows); i++ {
				prev, key := rows[i-1][basefile.MetaRecordKeyPos].(string), rows[i][basefile.MetaRecordKeyPos].(string)
				if mode == "" && prev >= key {
					t.Errorf("sorted: %s: key %q follows %q", s.Path, key, prev)
				}
				if mode == "NONE" && position[prev] >= position[key] {
					t.Errorf("NONE: %s: key %q (input %d) follows %q (input %d)", s.Path, key, position[key], prev, position[prev])
				}
			}
		}
		snapshots = append(snapshots, snapshot(t, tt.fsys, ""))
	}
	if len(snapshots[0]) != 300 {
		t.Fatalf("%d records, want 300", len(snapshots[0]))
	}
	for key, sorted := range snapshots[0] {
		unsorted := snapshots[1][key]
		// The data fields follow the five meta fields.
		if !reflect.DeepEqual(sorted[basefile.NumMetaFields:], unsorted[basefile.NumMetaFields:]) {
			t.Errorf("key %q: sorted %v, unsorted %v", key, sorted, unsorted)
		}
	}
}

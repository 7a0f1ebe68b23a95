package index

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// bottomTables returns the file numbers of the tables in the index's bottom
// level.
func bottomTables(t *testing.T, ix *Index) []string {
	t.Helper()
	levels, err := ix.db.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	var nums []string
	for _, table := range levels[len(levels)-1] {
		nums = append(nums, table.FileNum.String())
	}
	slices.Sort(nums)
	return nums
}

// TestSmallWritesLeaveBottomLevel checks that small writes into a large
// index, each in its own session as a table write opens it, compact into a
// level above the bottom one instead of rewriting the whole index: Pebble's
// default base level size kept indexes of millions of records in one level,
// and every other write rewrote all of it.
func TestSmallWritesLeaveBottomLevel(t *testing.T) {
	dir := t.TempDir()
	opts := Options{TableName: "t", TableID: "id"}
	ix := openTest(t, dir, opts)
	var bulk ChangeSet
	for i := range 500_000 {
		bulk.Puts = append(bulk.Puts, Put{Key: testKey(i), Location: benchLocation(i % 9)})
	}
	if err := ix.Apply(t.Context(), "20240101000000000", bulk); err != nil {
		t.Fatal(err)
	}
	// The ingested tables go into a level when the memtable, which they
	// overlap, is flushed.
	if err := ix.db.Flush(); err != nil {
		t.Fatal(err)
	}
	before := bottomTables(t, ix)
	if len(before) == 0 {
		t.Fatal("the bulk load left no table in the bottom level")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]Location{}
	for round := 1; round <= 10; round++ {
		ix := openTest(t, dir, opts)
		var cs ChangeSet
		for i := range 1000 {
			key := testKey(1_000_000 + round*1000 + i)
			cs.Puts = append(cs.Puts, Put{Key: key, Location: benchLocation(i)})
			want[key] = benchLocation(i)
		}
		if err := ix.Apply(t.Context(), fmt.Sprintf("2024010100000%04d", round), cs); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ix = openTest(t, dir, opts)
	defer ix.Close()
	if after := bottomTables(t, ix); !slices.Equal(after, before) {
		t.Errorf("10 writes of 1,000 records rewrote the bottom level: tables %v, were %v", after, before)
	}
	keys := slices.Sorted(maps.Keys(want))
	matches, err := ix.Tag(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range matches.All() {
		if !m.Found || m.Location != want[keys[i]] {
			t.Fatalf("key %q: %+v, want %v", keys[i], m, want[keys[i]])
		}
	}
}

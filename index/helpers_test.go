package index

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// testOptions are the options of the table most tests index.
var testOptions = Options{TableName: "trips", TableID: "20240101000000000"}

// openTest opens the index in dir with opts and closes it when the test
// ends, unless the test closed it.
func openTest(t testing.TB, dir string, opts Options) *Index {
	t.Helper()
	ix, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if !ix.closed {
			if err := ix.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	return ix
}

// reopen closes ix and opens its folder again with the same options.
func reopen(t testing.TB, ix *Index, opts Options) *Index {
	t.Helper()
	if err := ix.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return openTest(t, ix.dir, opts)
}

// loc returns the location of file group f in partition p.
func loc(p, f string) Location { return Location{PartitionPath: p, FileID: f} }

// mapScan returns a ScanFunc yielding the records of m in random order.
func mapScan(m map[string]Location) ScanFunc {
	return func(yield func(string, Location) error) error {
		for k, l := range m {
			if err := yield(k, l); err != nil {
				return err
			}
		}
		return nil
	}
}

// contents returns every record of ix, via Scan, checking that it yields
// them in index order.
func contents(t testing.TB, ix *Index) map[string]Location {
	t.Helper()
	got := make(map[string]Location)
	var prev string
	err := ix.Scan(context.Background(), func(k string, l Location) error {
		if len(got) > 0 && bytes.Compare(appendRecordKey(nil, k), appendRecordKey(nil, prev)) <= 0 {
			return fmt.Errorf("key %q after %q: not in index order", k, prev)
		}
		prev = k
		got[k] = l
		return nil
	})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return got
}

// matchList returns the matches of ms as a slice.
func matchList(ms Matches) []Match {
	out := make([]Match, 0, ms.Len())
	for _, m := range ms.All() {
		out = append(out, m)
	}
	return out
}

// checkContents fails the test unless ix holds exactly want, by Scan, Count
// and Tag.
func checkContents(t testing.TB, ix *Index, want map[string]Location) {
	t.Helper()
	ctx := context.Background()
	got := contents(t, ix)
	if !maps.Equal(got, want) {
		t.Fatalf("index holds %d records, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	n, err := ix.Count(ctx)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(want))
	}
	keys := slices.Collect(maps.Keys(want))
	ms, err := ix.Tag(ctx, keys)
	if err != nil {
		t.Fatalf("Tag: %v", err)
	}
	for i, k := range keys {
		if m := ms.At(i); !m.Found || m.Location != want[k] {
			t.Fatalf("Tag(%q) = %+v, want %v", k, m, want[k])
		}
	}
}

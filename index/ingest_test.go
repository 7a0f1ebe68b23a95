package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// largeChanges returns a few change sets, each large enough to be split
// among ingestion tables, that exercise what Apply must get right: new keys,
// UUID and other keys, moves of indexed keys, deletes of indexed and unknown
// keys, a key deleted and put in one set, a key put twice, and file groups
// new to the dictionary.
func largeChanges(rng *rand.Rand) []ChangeSet {
	const keys = 60_000
	key := func(i int) string {
		if i%5 == 0 {
			return fmt.Sprintf("key-%d", i) // stored under 'r'
		}
		return testKey(i)
	}
	var sets []ChangeSet
	for s := range 4 {
		var cs ChangeSet
		groups := 3 + 3*s // each set names groups the last did not
		for range 40_000 {
			i := rng.IntN(keys)
			cs.Puts = append(cs.Puts, Put{Key: key(i), Location: loc(fmt.Sprint("p=", i%3), fmt.Sprint("f", rng.IntN(groups)))})
		}
		for range 15_000 {
			cs.Deletes = append(cs.Deletes, key(rng.IntN(keys+1000)))
		}
		// Deleted and put again in the same set: the put wins.
		cs.Deletes = append(cs.Deletes, cs.Puts[7].Key, cs.Puts[8].Key)
		sets = append(sets, cs)
	}
	return sets
}

// applyModel applies cs to model as Apply defines it: deletes, then puts in
// order.
func applyModel(model map[string]Location, cs ChangeSet) {
	for _, k := range cs.Deletes {
		delete(model, k)
	}
	for _, p := range cs.Puts {
		model[p.Key] = p.Location
	}
}

// TestApplyPathsAgree feeds the same large change sets to an index that
// commits them as batches and to one that ingests them, and checks that both
// hold the same records, dictionary and watermark, before and after
// reopening.
func TestApplyPathsAgree(t *testing.T) {
	ctx := context.Background()
	ixs := make([]*Index, len(applyPaths))
	opts := make([]Options, len(applyPaths))
	for i, path := range applyPaths {
		opts[i] = testOptions
		opts[i].ingestMin = path.ingestMin
		opts[i].TagWorkers = 2 + i // the ingest path splits into 3 tables
		ixs[i] = openTest(t, t.TempDir(), opts[i])
	}
	model := map[string]Location{}
	for n, cs := range largeChanges(rand.New(rand.NewPCG(5, 5))) {
		instant := fmt.Sprintf("%017d", 20240101000000001+n)
		for _, ix := range ixs {
			if err := ix.Apply(ctx, instant, cs); err != nil {
				t.Fatal(err)
			}
		}
		applyModel(model, cs)
		var scans []map[string]Location
		for _, ix := range ixs {
			if w := ix.Watermark(); w != instant {
				t.Fatalf("%s: Watermark = %q, want %q", ix.dir, w, instant)
			}
			scans = append(scans, contents(t, ix))
		}
		if !maps.Equal(scans[0], scans[1]) {
			t.Fatalf("after set %d the paths differ: %d records against %d", n, len(scans[0]), len(scans[1]))
		}
		if !maps.Equal(scans[0], model) {
			t.Fatalf("after set %d the index holds %d records, the model %d", n, len(scans[0]), len(model))
		}
		if !slices.Equal(ixs[0].dict.locs, ixs[1].dict.locs) {
			t.Fatalf("after set %d the dictionaries differ:\n%v\n%v", n, ixs[0].dict.locs, ixs[1].dict.locs)
		}
	}
	for i, ix := range ixs {
		ix = reopen(t, ix, opts[i])
		checkContents(t, ix, model)
		if w := ix.Watermark(); w != "20240101000000004" {
			t.Fatalf("after reopening: Watermark = %q", w)
		}
		if !slices.Equal(ix.dict.locs, ixs[0].dict.locs) {
			t.Fatalf("after reopening the dictionary is %v, want %v", ix.dict.locs, ixs[0].dict.locs)
		}
		checkNoTables(t, ix.dir)
	}
}

// countdownContext is a context whose Err reports it cancelled from its
// n-th call on, to stop an Apply at each of the points where it looks.
type countdownContext struct {
	context.Context
	calls atomic.Int64
	n     int64
}

func (c *countdownContext) Err() error {
	if c.calls.Add(1) > c.n {
		return context.Canceled
	}
	return nil
}

// TestIngestFailure stops large Applies at every point where they check
// their context, the last one right before the ingestion, and checks that
// each leaves the index as it was, dictionary included, with no table left
// in its folder, and that an Apply after them succeeds.
func TestIngestFailure(t *testing.T) {
	ctx := context.Background()
	opts := testOptions
	opts.ingestMin = 1
	opts.TagWorkers = 2
	ix := openTest(t, t.TempDir(), opts)
	sets := largeChanges(rand.New(rand.NewPCG(6, 6)))
	model := map[string]Location{}
	if err := ix.Apply(ctx, "20240101000000001", sets[0]); err != nil {
		t.Fatal(err)
	}
	applyModel(model, sets[0])
	groups := len(ix.dict.locs)

	for n := int64(0); ; n++ {
		err := ix.Apply(&countdownContext{Context: ctx, n: n}, "20240101000000002", sets[1])
		if err == nil {
			if n < 10 {
				t.Fatalf("Apply succeeded after %d checks of its context; it should check more often", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Apply stopped after %d checks: %v", n, err)
		}
		if w := ix.Watermark(); w != "20240101000000001" {
			t.Fatalf("Apply stopped after %d checks: Watermark = %q", n, w)
		}
		if len(ix.dict.locs) != groups || len(ix.dict.ids) != groups {
			t.Fatalf("Apply stopped after %d checks: the dictionary holds %d groups, want %d", n, len(ix.dict.locs), groups)
		}
		checkNoTables(t, ix.dir)
		if n%8 == 0 {
			if got := contents(t, ix); !maps.Equal(got, model) {
				t.Fatalf("Apply stopped after %d checks changed the records", n)
			}
		}
	}
	applyModel(model, sets[1])
	checkNoTables(t, ix.dir)
	checkContents(t, reopen(t, ix, opts), model)
}

// TestIngestLeftTables checks that Open removes the tables an Apply
// left when the process stopped before ingesting them, and that a read-only
// index neither writes nor removes any.
func TestIngestLeftTables(t *testing.T) {
	dir := t.TempDir()
	ix := openTest(t, dir, testOptions)
	left := ix.tablePath(1)
	if err := os.WriteFile(left, []byte("half a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := testOptions
	ro.ReadOnly = true
	ro.ingestMin = 1
	ix = reopen(t, ix, ro)
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("a read-only Open removed a left table: %v", err)
	}
	err := ix.Apply(context.Background(), "20240101000000001", ChangeSet{Puts: []Put{{Key: "k", Location: loc("p", "f")}}})
	if err == nil {
		t.Fatal("an ingesting Apply on a read-only index succeeded")
	}
	if _, err := os.Stat(ix.tablePath(0)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an Apply on a read-only index wrote a table: %v", err)
	}
	ix = reopen(t, ix, testOptions)
	checkNoTables(t, ix.dir)
}

// checkNoTables fails the test if dir holds a table written to be ingested.
func checkNoTables(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ingestPrefix) {
			t.Fatalf("%s left in the index folder", filepath.Join(dir, e.Name()))
		}
	}
}

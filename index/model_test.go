package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRandomAgainstModel runs random workloads (applies, tags, reopenings,
// rebuilds, interrupted rebuilds and verifies) against an index and against a
// map, the obviously correct model, and checks that they always agree.
func TestRandomAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			runModel(t, rand.New(rand.NewPCG(seed, 0x1d)), 300)
		})
	}
}

// modelKeys is the key universe of the random workloads: ordinary keys,
// keys with bytes that could trip an encoding, UUIDs (stored as bytes) and
// keys that look like UUIDs but are not in canonical form (stored as text).
var modelKeys = func() []string {
	keys := []string{"a", "a\x00", "a\x00b", "\x00", "\xff", "\xff\xff", "id:1,region:eu", "id:1,region:eu,", "日本", "🔑", "r", "g", "m", "u", "v"}
	for i := range 400 {
		keys = append(keys, testKey(i)[:4+i%20])
	}
	for i := range 100 {
		k := testKey(i)
		keys = append(keys, k)
		switch i % 4 {
		case 0:
			keys = append(keys, strings.ToUpper(k))
		case 1:
			keys = append(keys, k+"-0")
		case 2:
			keys = append(keys, strings.ReplaceAll(k, "-", ""))
		}
	}
	return keys
}()

func runModel(t *testing.T, rng *rand.Rand, rounds int) {
	ctx := context.Background()
	opts := testOptions
	opts.TagWorkers = 1 + rng.IntN(3)
	// Both paths of Apply: change sets of up to 90 changes, some of them
	// ingested.
	opts.ingestMin = 1 + rng.IntN(60)
	ix := openTest(t, t.TempDir(), opts)
	model := map[string]Location{}
	var locs []Location
	for i := range 12 {
		locs = append(locs, loc(fmt.Sprintf("p=%d", i%4), fmt.Sprintf("f%d-0", i)))
	}
	instant := 0
	instantString := func(n int) string { return fmt.Sprintf("%017d", 20240101000000000+n) }
	randomKey := func() string { return modelKeys[rng.IntN(len(modelKeys))] }

	for round := range rounds {
		switch op := rng.IntN(100); {
		case op < 60: // apply
			var cs ChangeSet
			for range rng.IntN(30) {
				cs.Deletes = append(cs.Deletes, randomKey())
			}
			for range rng.IntN(60) {
				cs.Puts = append(cs.Puts, Put{Key: randomKey(), Location: locs[rng.IntN(len(locs))]})
			}
			// Put groups, as a writer's new file groups give them: keys
			// in order, or not, and a key in several groups.
			for range rng.IntN(4) {
				g := PutGroup{Location: locs[rng.IntN(len(locs))]}
				for range rng.IntN(40) {
					g.Keys = append(g.Keys, randomKey())
				}
				if rng.IntN(2) == 0 {
					slices.Sort(g.Keys)
				}
				cs.PutGroups = append(cs.PutGroups, g)
			}
			switch next := instant + 1 + rng.IntN(3); {
			case rng.IntN(10) == 0 && instant > 0: // replay of the last instant: a no-op
				if err := ix.Apply(ctx, instantString(instant), cs); err != nil {
					t.Fatalf("round %d: replayed Apply: %v", round, err)
				}
			case rng.IntN(10) == 0 && instant > 1: // an older instant: refused
				err := ix.Apply(ctx, instantString(instant-1), cs)
				if !errors.Is(err, ErrOutOfOrder) {
					t.Fatalf("round %d: Apply of an older instant: %v", round, err)
				}
			default:
				if err := ix.Apply(ctx, instantString(next), cs); err != nil {
					t.Fatalf("round %d: Apply: %v", round, err)
				}
				instant = next
				for _, k := range cs.Deletes {
					delete(model, k)
				}
				for _, p := range cs.Puts {
					model[p.Key] = p.Location
				}
				for _, g := range cs.PutGroups {
					for _, k := range g.Keys {
						model[k] = g.Location
					}
				}
			}
		case op < 65:
			ix = reopen(t, ix, opts)
		case op < 68:
			if rng.IntN(2) == 0 {
				// An interrupted rebuild, then a reopening: stale until rebuilt.
				errStop := errors.New("stop")
				err := ix.Rebuild(ctx, instantString(instant), func(yield func(string, Location) error) error {
					if err := mapScan(model)(yield); err != nil {
						return err
					}
					return errStop
				})
				if !errors.Is(err, errStop) {
					t.Fatalf("round %d: interrupted Rebuild: %v", round, err)
				}
				ix = reopen(t, ix, opts)
				if err := ix.Stale(); !errors.Is(err, ErrStale) {
					t.Fatalf("round %d: Stale after an interrupted rebuild: %v", round, err)
				}
			}
			if err := ix.Rebuild(ctx, instantString(instant), mapScan(model)); err != nil {
				t.Fatalf("round %d: Rebuild: %v", round, err)
			}
		case op < 70:
			r, err := ix.Verify(ctx, mapScan(model))
			if err != nil || !r.OK() || r.Indexed != int64(len(model)) {
				t.Fatalf("round %d: Verify = %+v, %v", round, r, err)
			}
		default: // tag
			var keys []string
			for range rng.IntN(80) {
				keys = append(keys, randomKey())
			}
			got, err := ix.Tag(ctx, keys)
			if err != nil {
				t.Fatalf("round %d: Tag: %v", round, err)
			}
			for i, k := range keys {
				l, ok := model[k]
				if m := got.At(i); m != (Match{Location: l, Found: ok}) {
					t.Fatalf("round %d: Tag(%q) = %+v, model says %v %v", round, k, m, l, ok)
				}
			}
		}
		if w := ix.Watermark(); instant > 0 && w != instantString(instant) {
			t.Fatalf("round %d: Watermark = %q, want %q", round, w, instantString(instant))
		}
	}
	if got := contents(t, ix); !maps.Equal(got, model) {
		t.Fatalf("index and model differ at the end:\n got %v\nwant %v", got, model)
	}
	checkContents(t, reopen(t, ix, opts), model)
}

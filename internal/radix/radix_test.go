package radix

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// item is a key with its position in the input, to check stability.
type item struct {
	key string
	pos int
}

func compareKeys(a, b item) int { return strings.Compare(a.key, b.key) }

// sortItems sorts items with Sort and returns them.
func sortItems(items []item) []item {
	return sortItemsWith(items, func(s, tmp []Entry[item]) { Sort(s, tmp, compareKeys) })
}

// sortItemsWith sorts items with sort and returns them.
func sortItemsWith(items []item, sort func(s, tmp []Entry[item])) []item {
	entries := make([]Entry[item], len(items))
	for i, it := range items {
		entries[i] = Entry[item]{Prefix: Prefix(it.key), Value: it}
	}
	sort(entries, make([]Entry[item], len(entries)))
	out := make([]item, len(entries))
	for i, e := range entries {
		out[i] = e.Value
	}
	return out
}

// want sorts items by key, then position, with the standard library.
func want(items []item) []item {
	return slices.SortedStableFunc(slices.Values(items), func(a, b item) int {
		return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.pos, b.pos))
	})
}

func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(i int) string{
		"uuid-like": func(int) string {
			return fmt.Sprintf("%08x-%04x-%04x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xffff)
		},
		"shared prefix": func(int) string { return fmt.Sprintf("record-%06d", rng.IntN(5000)) },
		"short and empty": func(int) string {
			return strings.Repeat("a", rng.IntN(4)) + string(rune('a' + rng.IntN(3)))[:rng.IntN(2)]
		},
		"zero bytes": func(int) string { return strings.Repeat("\x00", rng.IntN(10)) + "x"[:rng.IntN(2)] },
		"bytes above 0x7f": func(int) string {
			b := make([]byte, 1+rng.IntN(12))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			return string(b)
		},
		"all equal": func(int) string { return "same key" },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 17, 1000, 20000, 3*minParallel + 5} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				items := make([]item, n)
				for i := range items {
					items[i] = item{key: gen(i), pos: i}
				}
				want := want(items)
				if got := sortItems(items); !slices.Equal(got, want) {
					t.Fatalf("sorted %d keys wrongly: first keys %v, want %v", n, got[:min(5, n)], want[:min(5, n)])
				}
				parallel := sortItemsWith(items, func(s, tmp []Entry[item]) { SortParallel(s, tmp, compareKeys, 3) })
				if !slices.Equal(parallel, want) {
					t.Fatalf("SortParallel sorted %d keys wrongly: first keys %v, want %v", n, parallel[:min(5, n)], want[:min(5, n)])
				}
			})
		}
	}
}

func FuzzSort(f *testing.F) {
	f.Add([]byte("b\x00a\x00ab\x00a\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var items []item
		for i, key := range strings.Split(string(data), "\x00") {
			items = append(items, item{key: key, pos: i})
		}
		if got, want := sortItems(items), want(items); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// BenchmarkSort compares Sort with a comparison sort of the same entries,
// by prefix first, on 1M random 36-byte keys.
func BenchmarkSort(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]item, 1_000_000)
	for i := range items {
		items[i] = item{key: fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0xffff, rng.Uint64()&0xffffffffffff), pos: i}
	}
	entries := make([]Entry[item], len(items))
	fill := func() {
		for i, it := range items {
			entries[i] = Entry[item]{Prefix: Prefix(it.key), Value: it}
		}
	}
	b.Run("radix", func(b *testing.B) {
		tmp := make([]Entry[item], len(entries))
		for b.Loop() {
			b.StopTimer()
			fill()
			b.StartTimer()
			Sort(entries, tmp, compareKeys)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			fill()
			b.StartTimer()
			slices.SortFunc(entries, func(a, b Entry[item]) int {
				return cmp.Or(cmp.Compare(a.Prefix, b.Prefix), compareKeys(a.Value, b.Value))
			})
		}
	})
}

package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTag(t *testing.T) {
	ctx := context.Background()
	records := map[string]Location{
		"b":                         loc("2024/01/01", "f1-0"),
		"d":                         loc("2024/01/01", "f2-0"),
		"id:1,region:eu":            loc("region=eu", "f3-0"),
		"id:1,region:us":            loc("region=us", "f4-0"),
		"ключ-日本-🔑":                 loc("", "f5-0"),
		"tab\tnewline\nnul\x00":     loc("p", "f6-0"),
		"\xff\xfe not utf-8":        loc("p", "f6-0"),
		testKey(1):                  loc("p", "f7-0"),
		testKey(2):                  loc("p", "f8-0"),
		strings.ToUpper(testKey(2)): loc("p", "f9-0"),
	}
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(records)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		keys []string
	}{
		{"empty input", []string{}},
		{"nil input", nil},
		{"one present", []string{"b"}},
		{"one absent", []string{"c"}},
		{"before the first and after the last", []string{"0", "zzz", "a"}},
		{"unsorted mix", []string{"d", "x", "b", "c", "id:1,region:us", "id:1"}},
		{"duplicates", []string{"d", "b", "d", "d", "c", "c", "b"}},
		{"prefixes of indexed keys", []string{"id:1,region:e", "id:1,region:eu,", "tab\tnewline\nnul"}},
		{"odd bytes", []string{"ключ-日本-🔑", "tab\tnewline\nnul\x00", "\xff\xfe not utf-8", "id:1,region:eu"}},
		{"all absent after the last", []string{"zz", "zz", "zy"}},
		{"uuids", []string{testKey(2), testKey(3), testKey(1), testKey(2), strings.ToUpper(testKey(1))}},
		{"uuids and other keys", []string{"b", testKey(1), strings.ToUpper(testKey(2)), "zz", testKey(2), testKey(2)[:35], "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := ix.Tag(ctx, tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			got := matchList(ms)
			if len(got) != len(tt.keys) {
				t.Fatalf("got %d matches for %d keys", len(got), len(tt.keys))
			}
			for i, k := range tt.keys {
				l, ok := records[k]
				if want := (Match{Location: l, Found: ok}); got[i] != want {
					t.Errorf("key %d (%q): got %+v, want %+v", i, k, got[i], want)
				}
			}
		})
	}
}

func TestTagRefusesEmptyKey(t *testing.T) {
	ix := openTest(t, t.TempDir(), testOptions)
	_, err := ix.Tag(context.Background(), []string{"a", "", "b"})
	if !errors.Is(err, ErrEmptyKey) || !strings.Contains(err.Error(), "key 1") {
		t.Fatalf("Tag with an empty key: %v, want ErrEmptyKey naming key 1", err)
	}
}

// TestTagWorkers checks that large Tag calls give the same answers whatever
// the number of workers, which exercises the parallel sort and the chunks
// the walkers share, on keys of both record namespaces.
func TestTagWorkers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	records := make(map[string]Location)
	for i := range 20_000 {
		records[testKey(2*i)] = loc(fmt.Sprintf("p%d", i%7), fmt.Sprintf("f%d", i%31))
		records[fmt.Sprint("id-", 2*i)] = loc("q", fmt.Sprintf("f%d", i%5))
	}
	var keys []string
	for range 5 * minShardKeys {
		if i := rng.IntN(len(records) + 100); rng.IntN(2) == 0 {
			keys = append(keys, testKey(i))
		} else {
			keys = append(keys, fmt.Sprint("id-", i))
		}
	}
	dir := t.TempDir()
	var want []Match
	for _, workers := range []int{1, 2, 3, 8} {
		opts := testOptions
		opts.TagWorkers = workers
		ix := openTest(t, dir, opts)
		if want == nil {
			if err := ix.Rebuild(ctx, "20240101000000001", mapScan(records)); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := ix.Tag(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		got := matchList(ms)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			found := 0
			for i, k := range keys {
				l, ok := records[k]
				if got[i] != (Match{Location: l, Found: ok}) {
					t.Fatalf("workers=1: key %q: got %+v, want %v %v", k, got[i], l, ok)
				}
				if ok {
					found++
				}
			}
			if found == 0 || found == len(keys) {
				t.Fatalf("found %d of %d keys: the test needs both kinds", found, len(keys))
			}
			want = got
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("workers=%d: results differ from workers=1", workers)
		}
	}
}

func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randomKeys := func(n int) []string {
		keys := make([]string, n)
		for i := range keys {
			if i%3 == 0 {
				keys[i] = testKey(rng.IntN(n + 1))
			} else {
				keys[i] = fmt.Sprint("shared prefix/", rng.IntN(n+1), strings.Repeat("x", rng.IntN(10)))
			}
		}
		return keys
	}
	// UUIDs take sortUUIDKeys's way (and encodeUUIDKeys's for an Apply);
	// a last one in upper case sends them back to the general one.
	uuids := func(n int) []string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = testKey(rng.IntN(n + 1))
		}
		return keys
	}
	// Time-ordered UUIDs (version 7) of one millisecond share their first
	// 6 bytes; these share 7, which the sort skips.
	sharedUUIDs := func(n int) []string {
		keys := uuids(n)
		for i, k := range keys {
			keys[i] = "0192f5a3-7e1c-7" + k[len("0192f5a3-7e1c-7"):]
		}
		return keys
	}
	oneUUID := func(n int) []string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = testKey(1)
		}
		return keys
	}
	almostUUIDs := func(n int) []string {
		keys := uuids(n)
		keys[n-1] = strings.ToUpper(keys[n-1])
		return keys
	}
	// inRuns returns keys of gen in runs ascending in index order, as the
	// changes of a write come a file group at a time: runs is the number
	// of chunks, each sorted, so there are at most that many ascending
	// runs.
	inRuns := func(gen func(n int) []string, runs int) func(n int) []string {
		return func(n int) []string {
			keys := gen(n)
			for r := range runs {
				chunk := keys[r*n/runs : (r+1)*n/runs]
				slices.SortFunc(chunk, func(a, b string) int {
					return bytes.Compare(appendRecordKey(nil, a), appendRecordKey(nil, b))
				})
			}
			return keys
		}
	}
	layouts := []struct {
		name   string
		keys   func(n int) []string
		merged bool // whether equal keys must keep their order
	}{
		{"random", randomKeys, false},
		{"one run", inRuns(randomKeys, 1), true},
		{"three runs", inRuns(randomKeys, 3), true},
		{"most runs merged", inRuns(randomKeys, maxMergedRuns), true},
		{"too many runs to merge", inRuns(randomKeys, maxMergedRuns+1), false},
		{"UUIDs", uuids, false},
		{"UUIDs in three runs", inRuns(uuids, 3), true},
		{"UUIDs sharing 7 bytes", sharedUUIDs, false},
		{"one UUID", oneUUID, false},
		{"UUIDs but the last", almostUUIDs, false},
		{"UUIDs but the last, in runs", inRuns(almostUUIDs, 3), true},
	}
	for _, layout := range layouts {
		for _, n := range []int{1, 2, 2*minShardKeys - 1, 2 * minShardKeys, 5*minShardKeys + 3} {
			for _, workers := range []int{1, 2, 3} {
				keys := layout.keys(n)
				// Odd worker counts see the keys in uneven segments, one
				// of them empty, as a write's put groups give them.
				segments := keySegments{keys}
				if workers%2 == 1 {
					a, b := n/3, n/3+n/2
					segments = keySegments{keys[:a], nil, keys[a:b], keys[b:]}
				}
				sk := sortKeys(segments, workers)
				allUUIDs := true
				for _, k := range keys {
					if _, ok := parseUUID([]byte(k)); !ok {
						allUUIDs = false
					}
				}
				if _, asUUIDs := sk.(sortedUUIDs); allUUIDs != asUUIDs {
					t.Fatalf("%s n=%d workers=%d: keys all UUIDs %v, sorted as UUIDs %v", layout.name, n, workers, allUUIDs, asUUIDs)
				}
				if sk.len() != n {
					t.Fatalf("%s n=%d workers=%d: %d sorted keys", layout.name, n, workers, sk.len())
				}
				// The sorted keys, copied out in two chunks as walkers do.
				var sorted chunk
				sk.appendTo(&sorted, 0, n/2)
				sk.appendTo(&sorted, n/2, n)
				seen := make([]bool, n)
				var prev []byte
				for i, pos := range sorted.pos {
					key := sorted.key(i)
					if want := appendRecordKey(nil, keys[pos]); !bytes.Equal(key, want) {
						t.Fatalf("%s n=%d workers=%d: key %d is %q, want %q", layout.name, n, workers, pos, key, want)
					}
					if c := bytes.Compare(key, prev); c < 0 {
						t.Fatalf("%s n=%d workers=%d: %q after %q", layout.name, n, workers, key, prev)
					} else if c == 0 && (layout.merged || allUUIDs) && pos < sorted.pos[i-1] {
						t.Fatalf("%s n=%d workers=%d: equal keys at positions %d and %d out of order", layout.name, n, workers, sorted.pos[i-1], pos)
					}
					if seen[pos] {
						t.Fatalf("%s n=%d workers=%d: position %d twice", layout.name, n, workers, pos)
					}
					seen[pos] = true
					prev = key
				}
				if len(sorted.pos) != n {
					t.Fatalf("%s n=%d workers=%d: %d keys copied out", layout.name, n, workers, len(sorted.pos))
				}
				// The changes of an Apply, merged or gathered, hold the
				// same keys in the same order, each with its id.
				ids := make([]uint32, n)
				for i := range ids {
					ids[i] = uint32(i * 7)
				}
				sc := newSortedChanges(segments, ids, workers)
				if sc.len() != n {
					t.Fatalf("%s n=%d workers=%d: %d sorted changes", layout.name, n, workers, sc.len())
				}
				for i, pos := range sorted.pos {
					if !bytes.Equal(sc.at(i), sorted.key(i)) || sc.ids[i] != ids[sc.pos[i]] || layout.merged && sc.pos[i] != pos {
						t.Fatalf("%s n=%d workers=%d: change %d is %q at position %d with id %d, want %q at %d", layout.name, n, workers, i, sc.at(i), sc.pos[i], sc.ids[i], sorted.key(i), pos)
					}
				}
			}
		}
	}
}

func TestTagCorruptValue(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "", mapScan(map[string]Location{"a": loc("p", "f")})); err != nil {
		t.Fatal(err)
	}
	set(t, ix.db, appendKey(nil, nsRecord, "a"), "\x07")
	_, err := ix.Tag(ctx, []string{"a"})
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), ix.dir) {
		t.Fatalf("Tag of a record naming no file group: %v, want ErrStale naming the folder", err)
	}
}

// testKey returns a UUID in canonical form, spread over the key space by i.
func testKey(i int) string {
	h := uint64(i)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	h ^= h >> 29
	g := h * 0xbf58476d1ce4e5b9
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", h>>32, h>>16&0xffff, h&0xffff, g>>48, g&0xffffffffffff)
}

// TestTagDuringApply tags while commits move every key at once (commit t
// puts them all in file group t): each Tag must see one commit, never a mix,
// and never one older than the watermark read before it.
func TestTagDuringApply(t *testing.T) {
	ctx := context.Background()
	opts := testOptions
	opts.TagWorkers = 2
	ix := openTest(t, t.TempDir(), opts)
	keys := make([]string, 3*minShardKeys)
	for i := range keys {
		keys[i] = testKey(i)
	}
	const commits = 8
	instant := func(n int) string { return fmt.Sprintf("%017d", 20240101000000000+n) }
	done := make(chan error)
	go func() {
		defer close(done)
		for n := 1; n <= commits; n++ {
			cs := ChangeSet{Puts: make([]Put, len(keys))}
			for i, k := range keys {
				cs.Puts[i] = Put{Key: k, Location: loc("p", instant(n))}
			}
			if err := ix.Apply(ctx, instant(n), cs); err != nil {
				done <- err
				return
			}
		}
	}()
	for finished := false; !finished; {
		select {
		case err, ok := <-done:
			if ok {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		before := ix.Watermark()
		ms, err := ix.Tag(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		got := matchList(ms)
		for i := range got {
			if got[i] != got[0] {
				t.Fatalf("one Tag saw %+v and %+v", got[0], got[i])
			}
		}
		if seen := got[0].Location.FileID; seen < before {
			t.Fatalf("Tag saw commit %q after the watermark was %q", seen, before)
		}
	}
	if w := ix.Watermark(); w != instant(commits) {
		t.Fatalf("Watermark = %q", w)
	}
}

// FuzzSortKeys checks the order sortKeys gives keys made from the input:
// each 17 bytes make a key, a UUID of the last 16 bytes unless the first is
// odd, when they make the key's text; repeated bytes make equal keys, and a
// shared start makes UUIDs that share leading bytes.
func FuzzSortKeys(f *testing.F) {
	f.Add([]byte("\x00aaaaaaaaaaaaaaaa\x00aaaaaaaaaaaaaaab\x00aaaaaaaaaaaaaaaa"))
	f.Add([]byte("\x00abcdefghijklmnop\x01abcdefghijklmnop\x00zzzzzzzzzzzzzzzz"))
	f.Add(bytes.Repeat([]byte("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff\x00"), 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		for ; len(data) >= 17; data = data[17:] {
			k := string(data[1:17])
			if data[0]%2 == 0 {
				k = formatUUID(data[1:17])
			}
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			return
		}
		sk := sortKeys(keySegments{keys}, 2)
		var sorted chunk
		sk.appendTo(&sorted, 0, sk.len())
		if len(sorted.pos) != len(keys) {
			t.Fatalf("%d sorted keys for %d", len(sorted.pos), len(keys))
		}
		seen := make([]bool, len(keys))
		for i, pos := range sorted.pos {
			if seen[pos] {
				t.Fatalf("position %d twice", pos)
			}
			seen[pos] = true
			key := sorted.key(i)
			if want := appendRecordKey(nil, keys[pos]); !bytes.Equal(key, want) {
				t.Fatalf("key %d is %x, want %x", pos, key, want)
			}
			if i == 0 {
				continue
			}
			switch c := bytes.Compare(sorted.key(i-1), key); {
			case c > 0:
				t.Fatalf("%x after %x", key, sorted.key(i-1))
			case c == 0 && sorted.pos[i-1] > pos:
				t.Fatalf("equal keys at positions %d and %d out of order", sorted.pos[i-1], pos)
			}
		}
	})
}

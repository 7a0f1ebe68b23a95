package index

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRecordKeys(t *testing.T) {
	uuid := "0f8fad5b-d9cb-469f-a165-70867728950e"
	tests := []struct {
		key  string
		uuid bool // stored under nsUUID
	}{
		{uuid, true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", true},
		{strings.ToUpper(uuid), false},
		{strings.ReplaceAll(uuid, "-", ""), false},
		{"{" + uuid + "}", false},
		{uuid + "0", false},
		{uuid[:35], false},
		{"0f8fad5bd-9cb-469f-a165-70867728950e", false}, // a dash out of place
		{"0f8fad5b-d9cb-469f-a165-70867728950g", false},
		{"0f8fad5b-d9cb-469f-a165-7086772895\xe9e", false},
		{"k", false},
	}
	for _, tt := range tests {
		key := appendRecordKey([]byte("prefix"), tt.key)
		if !bytes.HasPrefix(key, []byte("prefix")) {
			t.Fatalf("appendRecordKey(%q) overwrote dst: %q", tt.key, key)
		}
		key = key[len("prefix"):]
		want := append([]byte{nsRecord}, tt.key...)
		if tt.uuid {
			want = append([]byte{nsUUID}, make([]byte, 16)...)
		}
		if key[0] != want[0] || len(key) != len(want) {
			t.Errorf("appendRecordKey(%q) = %q, want namespace %q and %d bytes", tt.key, key, want[0], len(want))
		}
		if got := recordKey(key); got != tt.key {
			t.Errorf("recordKey(appendRecordKey(%q)) = %q", tt.key, got)
		}
	}
}

// TestRecordKeyOrder checks that UUIDs stored as bytes sort as their text
// does, which Tag's walk needs.
func TestRecordKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// mutate returns base with random hex digits from position i on.
	mutate := func(base string, i int) string {
		k := []byte(base)
		for ; i < len(k); i++ {
			if k[i] != '-' {
				k[i] = "0123456789abcdef"[rng.IntN(16)]
			}
		}
		return string(k)
	}
	for range 10_000 {
		base, i := testKey(rng.IntN(1000)), rng.IntN(uuidLen+1)
		a, b := mutate(base, i), mutate(base, i)
		ka, kb := appendRecordKey(nil, a), appendRecordKey(nil, b)
		if ka[0] != nsUUID || kb[0] != nsUUID {
			t.Fatalf("%q or %q not stored as a UUID", a, b)
		}
		if got, want := bytes.Compare(ka, kb), strings.Compare(a, b); got != want {
			t.Fatalf("%q vs %q: stored keys compare %d, keys %d", a, b, got, want)
		}
	}
}

// FuzzRecordKey checks that every non-empty key comes back from its Pebble
// key as it was, and that only the canonical form of a UUID is stored as
// 16 bytes.
func FuzzRecordKey(f *testing.F) {
	for _, seed := range []string{"0f8fad5b-d9cb-469f-a165-70867728950e", "0F8FAD5B-D9CB-469F-A165-70867728950E", "id:1,region:eu", "\x00\xff", "0f8fad5b-d9cb-469f-a165-70867728950"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if k == "" {
			return
		}
		stored := appendRecordKey(nil, k)
		if got := recordKey(stored); got != k {
			t.Fatalf("key %q stored as %x reads back as %q", k, stored, got)
		}
		if stored[0] == nsUUID && (len(stored) != uuidKeyLen || formatUUID(stored[1:]) != k) {
			t.Fatalf("key %q stored as UUID bytes %x", k, stored)
		}
	})
}

package basefile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomKeys returns n keys of random bytes (any byte, so not always valid
// UTF-8) of random lengths up to maxLen, in runs of equal length so that
// AddKeys hashes some four at a time and some alone.
func randomKeys(r *rand.Rand, n, maxLen int) []string {
	keys := make([]string, 0, n)
	for len(keys) < n {
		length, run := r.IntN(maxLen+1), 1+r.IntN(9)
		for range min(run, n-len(keys)) {
			key := make([]byte, length)
			for i := range key {
				key[i] = byte(r.Uint32())
			}
			keys = append(keys, string(key))
		}
	}
	return keys
}

// uuidKeys returns n random keys shaped like UUIDs, 36 bytes each.
func uuidKeys(r *rand.Rand, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		hi, lo := r.Uint64(), r.Uint64()
		keys[i] = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&(1<<48-1))
	}
	return keys
}

// checkAddKeys checks that adding keys with AddKeys, in batches of size
// batch, serializes the same filter as adding them one at a time with Add.
func checkAddKeys(t *testing.T, numEntries int, fpp float64, maxEntries int, keys []string, batch int) {
	t.Helper()
	want, err := NewBloomFilter(numEntries, fpp, maxEntries)
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewBloomFilter(numEntries, fpp, maxEntries)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		want.Add(k)
	}
	for i := 0; i < len(keys); i += batch {
		got.AddKeys(keys[i:min(i+batch, len(keys))])
	}
	if got.String() != want.String() {
		t.Errorf("%d keys in batches of %d (%d entries, fpp %g, max %d): AddKeys and Add serialize differently",
			len(keys), batch, numEntries, fpp, maxEntries)
	}
}

func TestBloomAddKeysMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	mixed := randomKeys(r, 5000, 100)
	uuids := uuidKeys(r, 3000)
	for _, batch := range []int{1, 3, 64, 100, 1024, 5000} {
		// Growth: a new standard filter per 300 keys until 1000 keys are
		// covered, then round robin over four.
		checkAddKeys(t, 300, 0.001, 1000, mixed, batch)
		checkAddKeys(t, 300, 0.001, 1000, uuids, batch)
	}
	checkAddKeys(t, DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries, mixed, bloomBatchKeys)
	checkAddKeys(t, DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries, uuids, bloomBatchKeys)
}

// hadoopMurmur is Hadoop's MurmurHash.hash(byte[], int, int, int),
// transliterated from Java, int for int.
func hadoopMurmur(data []byte, seed int32) int32 {
	const m, r = int32(0x5bd1e995), 24
	length := int32(len(data))
	h := seed ^ length
	len4 := length >> 2
	for i := range len4 {
		i4 := i << 2
		k := int32(int8(data[i4+3]))
		k = k<<8 | int32(data[i4+2])
		k = k<<8 | int32(data[i4+1])
		k = k<<8 | int32(data[i4])
		k *= m
		k ^= int32(uint32(k) >> r)
		k *= m
		h *= m
		h ^= k
	}
	if left := length - len4<<2; left != 0 {
		if left >= 3 {
			h ^= int32(int8(data[length-3])) << 16
		}
		if left >= 2 {
			h ^= int32(int8(data[length-2])) << 8
		}
		h ^= int32(int8(data[length-1]))
		h *= m
	}
	h ^= int32(uint32(h) >> 13)
	h *= m
	h ^= int32(uint32(h) >> 15)
	return h
}

// hadoopPositions is Hadoop's HashFunction.hash: the bits a key sets.
func hadoopPositions(key []byte, numHashes, vectorSize int32) []uint32 {
	var positions []uint32
	var h int32
	for range numHashes {
		h = hadoopMurmur(key, h)
		p := h % vectorSize
		if p < 0 {
			p = -p
		}
		positions = append(positions, uint32(p))
	}
	return positions
}

func TestBloomBitsMatchHadoop(t *testing.T) {
	f, err := NewBloomFilter(DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries)
	if err != nil {
		t.Fatal(err)
	}
	odd, err := NewBloomFilter(7, 0.3, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range randomKeys(rand.New(rand.NewPCG(7, 8)), 2000, 100) {
		for _, f := range []*BloomFilter{f, odd} {
			if got, want := f.bits(nil, key), hadoopPositions([]byte(key), f.numHashes, f.vectorSize); !slices.Equal(got, want) {
				t.Fatalf("bits(%q) = %v, Hadoop's %v", key, got, want)
			}
		}
	}
}

func TestBloomBuilderMatchesAdd(t *testing.T) {
	keys := randomKeys(rand.New(rand.NewPCG(3, 4)), 3000, 40)
	want, err := NewBloomFilter(100, 0.01, 1500)
	if err != nil {
		t.Fatal(err)
	}
	start := want.clone(0)
	for _, k := range keys {
		want.Add(k)
	}
	b := newBloomBuilder(start)
	for _, k := range keys {
		b.add(k)
	}
	if b.finish().String() != want.String() {
		t.Error("bloomBuilder and Add serialize differently")
	}
}

// FuzzBloomAddKeys checks AddKeys against Add for arbitrary keys: data cut
// into keys of keyLen bytes (so that many have equal lengths), then into
// keys of growing lengths.
func FuzzBloomAddKeys(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef"), uint8(4))
	f.Add([]byte("h\xc3\xa9llo w\xc3\xb6rld, \xff\xfe\x80 key"), uint8(3))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, keyLen uint8) {
		var keys []string
		size := int(keyLen) % 101
		for i := 0; i+size <= len(data) && len(keys) < 200; i += max(size, 1) {
			keys = append(keys, string(data[i:i+size]))
		}
		for i, size := 0, 0; i < len(data); i, size = i+size, size+1 {
			keys = append(keys, string(data[i:min(i+size, len(data))]))
		}
		// Small standard filters, so that the keys fill several and then
		// go round robin.
		checkAddKeys(t, 16, 0.000001, 40, keys, 50)
	})
}

func BenchmarkBloomAdd(b *testing.B) {
	keys := uuidKeys(rand.New(rand.NewPCG(5, 6)), 1_000_000)
	run := func(b *testing.B, add func(*BloomFilter, []string)) {
		for b.Loop() {
			f, err := NewBloomFilter(DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries)
			if err != nil {
				b.Fatal(err)
			}
			add(f, keys)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	}
	b.Run("scalar", func(b *testing.B) {
		run(b, func(f *BloomFilter, keys []string) {
			for _, k := range keys {
				f.Add(k)
			}
		})
	})
	b.Run("batch", func(b *testing.B) {
		run(b, func(f *BloomFilter, keys []string) {
			for i := 0; i < len(keys); i += bloomBatchKeys {
				f.AddKeys(keys[i:min(i+bloomBatchKeys, len(keys))])
			}
		})
	})
}

// BenchmarkBloomString serializes the filter of a base file of a bulk
// insert: about 111,000 keys, the records of one of its nine files.
func BenchmarkBloomString(b *testing.B) {
	f, err := NewBloomFilter(DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries)
	if err != nil {
		b.Fatal(err)
	}
	f.AddKeys(uuidKeys(rand.New(rand.NewPCG(7, 8)), 111_000))
	b.ReportAllocs()
	for b.Loop() {
		if len(f.String()) == 0 {
			b.Fatal("empty serialization")
		}
	}
}

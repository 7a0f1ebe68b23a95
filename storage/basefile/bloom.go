package basefile

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Hudi's bloom index defaults: hoodie.index.bloom.num_entries,
// hoodie.index.bloom.fpp and hoodie.bloom.index.filter.dynamic.max.entries.
const (
	DefaultBloomNumEntries  = 60000
	DefaultBloomFPP         = 0.000000001
	DefaultBloomMaxEntries  = 100000
	bloomFilterTypeDynamic  = "DYNAMIC_V0"
	bloomFilterVersion      = 0xffffffff // Hadoop's Filter format version, -1 as a Java int
	bloomHashTypeMurmur     = 1          // Hadoop's Hash.MURMUR_HASH
	bloomFilterHeaderLength = 4 + 4 + 1 + 4
)

// BloomFilter is Hudi's DYNAMIC_V0 bloom filter of record keys
// (HoodieDynamicBoundedBloomFilter, after Hadoop's DynamicBloomFilter), which
// Spark's bloom index reads from the org.apache.hudi.bloomfilter footer of a
// base file to learn which keys the file may hold.
//
// It is a list of standard bloom filters of vectorSize bits, each meant for
// rowEntries keys. Keys go to the last one until it holds rowEntries; then a
// new one is added, unless the list already covers maxEntries keys, in which
// case keys go round-robin to all of them from then on. Each key sets
// numHashes bits, chosen by chaining Hadoop's MurmurHash over the key's UTF-8
// bytes.
type BloomFilter struct {
	vectorSize int32
	numHashes  int32
	rowEntries int32 // keys per standard filter
	maxEntries int32 // 0 for a filter read from its serialized form
	current    int32 // keys added to the active standard filter
	reachedMax bool
	nextRow    int32 // round-robin position once reachedMax
	rows       [][]byte
	modM       uint64 // fastModMultiplier(vectorSize)
}

// NewBloomFilter returns an empty DYNAMIC_V0 filter sized, as Hudi sizes it,
// for numEntries keys per standard filter at false-positive rate fpp, growing
// up to maxEntries keys.
func NewBloomFilter(numEntries int, fpp float64, maxEntries int) (*BloomFilter, error) {
	if numEntries < 1 || numEntries > math.MaxInt32 || !(fpp > 0 && fpp < 1) || maxEntries < 0 || maxEntries > math.MaxInt32 {
		return nil, fmt.Errorf("storage: bloom filter: bad parameters: %d entries, fpp %g, %d max entries", numEntries, fpp, maxEntries)
	}
	log2 := math.Log(2)
	bits := math.Ceil(float64(numEntries) * -math.Log(fpp) / (log2 * log2))
	if bits > math.MaxInt32 {
		return nil, fmt.Errorf("storage: bloom filter: %d entries at fpp %g need too many bits", numEntries, fpp)
	}
	f := &BloomFilter{
		vectorSize: int32(bits),
		numHashes:  int32(math.Ceil(log2 * bits / float64(numEntries))),
		rowEntries: int32(numEntries),
		maxEntries: int32(maxEntries),
	}
	f.modM = fastModMultiplier(f.vectorSize)
	f.rows = [][]byte{f.newRow()}
	return f, nil
}

// clone returns a copy of f that grows up to maxEntries keys (a filter
// read from a footer does not know its limit).
func (f *BloomFilter) clone(maxEntries int) *BloomFilter {
	c := *f
	c.rows = make([][]byte, len(f.rows))
	for i, row := range f.rows {
		c.rows[i] = append([]byte(nil), row...)
	}
	if c.maxEntries == 0 {
		c.maxEntries = int32(min(maxEntries, math.MaxInt32))
	}
	return &c
}

func (f *BloomFilter) newRow() []byte {
	return make([]byte, f.rowBytes())
}

// rowBytes is the length of a standard filter's bit vector in bytes.
func (f *BloomFilter) rowBytes() int {
	return int((int64(f.vectorSize) + 7) / 8)
}

// Add adds a key. Hudi refuses empty keys, and so should callers.
func (f *BloomFilter) Add(key string) {
	f.addBits(f.rowForNextKey(), key)
}

// rowForNextKey returns the standard filter the next key goes to, adding
// one when the active one is full, and counts the key in it.
func (f *BloomFilter) rowForNextKey() []byte {
	row := f.activeRow()
	if row == nil {
		f.rows = append(f.rows, f.newRow())
		row = f.rows[len(f.rows)-1]
		f.current = 0
	}
	f.current++
	return row
}

// setBit sets bit in row.
func setBit(row []byte, bit uint32) {
	row[bit>>3] |= 1 << (bit & 7)
}

// AddKeys adds keys in order, setting the same bits as Add would one key at
// a time, but faster. A key's chained hashes are one chain of dependent
// multiplies, which leaves the CPU's multiplier mostly idle. AddKeys hashes
// keys of equal length four at a time, so that the CPU overlaps four
// independent chains.
func (f *BloomFilter) AddKeys(keys []string) {
	for len(keys) > 0 {
		n := min(len(keys), bloomChunkKeys)
		f.addChunk(keys[:n])
		keys = keys[n:]
	}
}

// bloomChunkKeys is how many keys addChunk takes: enough to find four keys
// of equal length among keys of a few lengths, few enough for its
// bookkeeping to stay on the stack.
const bloomChunkKeys = 64

// addChunk adds up to bloomChunkKeys keys. Which standard filter a key goes
// to depends on the keys before it, but the bits it sets do not: it picks
// each key's filter in order, then hashes the keys grouped by length.
func (f *BloomFilter) addChunk(keys []string) {
	var rowBuf [bloomChunkKeys][]byte
	var orderBuf [bloomChunkKeys]int
	rows, order := rowBuf[:len(keys)], orderBuf[:len(keys)]
	for i := range keys {
		rows[i] = f.rowForNextKey()
		order[i] = i
	}
	if !sameLength(keys) {
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(len(keys[a]), len(keys[b])) })
	}
	for len(order) >= 4 {
		a, b, c, d := order[0], order[1], order[2], order[3]
		// Sorted by length, the four have one length if the first and the
		// last do; if not, the first has fewer than four of its length left.
		if len(keys[a]) != len(keys[d]) {
			f.addBits(rows[a], keys[a])
			order = order[1:]
			continue
		}
		four, fourRows := [4]string{keys[a], keys[b], keys[c], keys[d]}, [4][]byte{rows[a], rows[b], rows[c], rows[d]}
		if len(keys[a]) == 36 {
			f.addFourUUIDs(four, fourRows)
		} else {
			f.addFour(four, fourRows)
		}
		order = order[4:]
	}
	for _, i := range order {
		f.addBits(rows[i], keys[i])
	}
}

// sameLength reports whether all keys have the same length, as UUID keys
// do, so that addChunk need not sort them by length.
func sameLength(keys []string) bool {
	for _, k := range keys {
		if len(k) != len(keys[0]) {
			return false
		}
	}
	return true
}

// addBits sets the bits of key in row.
func (f *BloomFilter) addBits(row []byte, key string) {
	var buf [64]uint32
	for _, bit := range f.bits(buf[:0], key) {
		setBit(row, bit)
	}
}

// addFourUUIDs is addFour for keys of 36 bytes, as UUIDs are: nine blocks
// and no tail, with the block loop unrolled so that the four hash chains
// and the loop's bookkeeping fit in registers.
func (f *BloomFilter) addFourUUIDs(keys [4]string, rows [4][]byte) {
	var blocks [9][4]uint32
	for i := range blocks {
		blocks[i] = murmurBlocks(&keys, 4*i)
	}
	size := f.rowBytes()
	r0, r1, r2, r3 := rows[0][:size], rows[1][:size], rows[2][:size], rows[3][:size]
	var a, b, c, d uint32
	for range f.numHashes {
		a, b, c, d = a^36, b^36, c^36, d^36
		a, b, c, d = murmurStep(a, b, c, d, &blocks[0])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[1])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[2])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[3])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[4])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[5])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[6])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[7])
		a, b, c, d = murmurStep(a, b, c, d, &blocks[8])
		a, b, c, d = murmurFinish(a), murmurFinish(b), murmurFinish(c), murmurFinish(d)
		setBit(r0, f.position(a))
		setBit(r1, f.position(b))
		setBit(r2, f.position(c))
		setBit(r3, f.position(d))
	}
}

// murmurStep folds a block of each of four keys into their hashes.
func murmurStep(a, b, c, d uint32, k *[4]uint32) (uint32, uint32, uint32, uint32) {
	return a*murmurM ^ k[0], b*murmurM ^ k[1], c*murmurM ^ k[2], d*murmurM ^ k[3]
}

// murmurBlocks returns the mixed blocks at i of four keys.
func murmurBlocks(keys *[4]string, i int) [4]uint32 {
	return [4]uint32{murmurBlock(keys[0], i), murmurBlock(keys[1], i), murmurBlock(keys[2], i), murmurBlock(keys[3], i)}
}

// addFour sets the bits of four keys of equal length in their rows, as
// addBits would, computing their hashes in step.
func (f *BloomFilter) addFour(keys [4]string, rows [4][]byte) {
	n := len(keys[0])
	var blockBuf [16][4]uint32
	blocks := blockBuf[:0]
	for i := 0; i+4 <= n; i += 4 {
		blocks = append(blocks, murmurBlocks(&keys, i))
	}
	rest := n % 4
	ta, tb, tc, td := murmurTail(keys[0][n-rest:]), murmurTail(keys[1][n-rest:]), murmurTail(keys[2][n-rest:]), murmurTail(keys[3][n-rest:])
	// Rows all have rowBytes bytes: saying so lets one length bound all four,
	// freeing registers for the hash chains.
	size := f.rowBytes()
	r0, r1, r2, r3 := rows[0][:size], rows[1][:size], rows[2][:size], rows[3][:size]
	var a, b, c, d uint32
	for range f.numHashes {
		a, b, c, d = a^uint32(n), b^uint32(n), c^uint32(n), d^uint32(n)
		for _, k := range blocks {
			a, b, c, d = a*murmurM^k[0], b*murmurM^k[1], c*murmurM^k[2], d*murmurM^k[3]
		}
		if rest > 0 {
			a, b, c, d = (a^ta)*murmurM, (b^tb)*murmurM, (c^tc)*murmurM, (d^td)*murmurM
		}
		a, b, c, d = murmurFinish(a), murmurFinish(b), murmurFinish(c), murmurFinish(d)
		setBit(r0, f.position(a))
		setBit(r1, f.position(b))
		setBit(r2, f.position(c))
		setBit(r3, f.position(d))
	}
}

// activeRow returns the standard filter the next key goes to, or nil when a
// new one must be added.
func (f *BloomFilter) activeRow() []byte {
	if f.reachedMax {
		row := f.rows[int(f.nextRow)%len(f.rows)]
		f.nextRow++
		return row
	}
	if f.current >= f.rowEntries {
		if int64(len(f.rows))*int64(f.rowEntries) < int64(f.maxEntries) {
			return nil
		}
		f.reachedMax = true
		return f.rows[0]
	}
	return f.rows[len(f.rows)-1]
}

// MightContain reports whether key may have been added; false means it
// surely was not.
func (f *BloomFilter) MightContain(key string) bool {
	if key == "" {
		return false
	}
	var buf [64]uint32
	positions := f.bits(buf[:0], key)
	for _, row := range f.rows {
		if rowHas(row, positions) {
			return true
		}
	}
	return false
}

// rowHas reports whether all positions are set in row.
func rowHas(row []byte, positions []uint32) bool {
	for _, bit := range positions {
		if row[bit>>3]&(1<<(bit&7)) == 0 {
			return false
		}
	}
	return true
}

// String returns the filter serialized as Hudi stores it in the footer: the
// base64 of Hadoop's Writable form of the dynamic filter.
//
// The serialized filter streams into the base64 encoder, which writes into
// the string's own memory: no serialized copy of the filter is made.
func (f *BloomFilter) String() string {
	rowLen := bloomFilterHeaderLength + f.rowBytes()
	var out strings.Builder
	out.Grow(base64.StdEncoding.EncodedLen(bloomFilterHeaderLength + 12 + len(f.rows)*rowLen))
	enc := base64.NewEncoder(base64.StdEncoding, &out)
	// A strings.Builder never fails a write, nor then the encoder.
	b := f.appendHeader(make([]byte, 0, bloomFilterHeaderLength+12))
	b = binary.BigEndian.AppendUint32(b, uint32(f.rowEntries))
	b = binary.BigEndian.AppendUint32(b, uint32(f.current))
	b = binary.BigEndian.AppendUint32(b, uint32(len(f.rows)))
	enc.Write(b)
	for _, row := range f.rows {
		enc.Write(f.appendHeader(b[:0]))
		enc.Write(row)
	}
	enc.Close()
	return out.String()
}

func (f *BloomFilter) appendHeader(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, bloomFilterVersion)
	b = binary.BigEndian.AppendUint32(b, uint32(f.numHashes))
	b = append(b, bloomHashTypeMurmur)
	return binary.BigEndian.AppendUint32(b, uint32(f.vectorSize))
}

// ParseBloomFilter reads a DYNAMIC_V0 filter serialized as String writes it
// (and as Hudi writes it in the org.apache.hudi.bloomfilter footer).
func ParseBloomFilter(s string) (*BloomFilter, error) {
	f, err := parseBloomFilter(s)
	if err != nil {
		return nil, fmt.Errorf("storage: parse bloom filter: %w", err)
	}
	return f, nil
}

func parseBloomFilter(s string) (*BloomFilter, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var f BloomFilter
	if b, err = f.readHeader(b); err != nil {
		return nil, err
	}
	if len(b) < 12 {
		return nil, errors.New("truncated")
	}
	f.rowEntries = int32(binary.BigEndian.Uint32(b))
	f.current = int32(binary.BigEndian.Uint32(b[4:]))
	numRows := int(binary.BigEndian.Uint32(b[8:]))
	b = b[12:]
	rowLen := f.rowBytes()
	if numRows < 1 || numRows > len(b)/(bloomFilterHeaderLength+rowLen) {
		return nil, fmt.Errorf("%d standard filters of %d bytes do not fit in %d bytes", numRows, rowLen, len(b))
	}
	for range numRows {
		var row BloomFilter
		if b, err = row.readHeader(b); err != nil {
			return nil, err
		}
		if row.vectorSize != f.vectorSize || row.numHashes != f.numHashes {
			return nil, errors.New("standard filters differ in shape")
		}
		f.rows = append(f.rows, b[:rowLen:rowLen])
		b = b[rowLen:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the filter", len(b))
	}
	f.modM = fastModMultiplier(f.vectorSize)
	return &f, nil
}

// readHeader reads a Hadoop Filter header into f and returns the rest.
func (f *BloomFilter) readHeader(b []byte) ([]byte, error) {
	if len(b) < bloomFilterHeaderLength {
		return nil, errors.New("truncated")
	}
	if v := binary.BigEndian.Uint32(b); v != bloomFilterVersion {
		return nil, fmt.Errorf("unsupported filter version %d", int32(v))
	}
	f.numHashes = int32(binary.BigEndian.Uint32(b[4:]))
	if b[8] != bloomHashTypeMurmur {
		return nil, fmt.Errorf("unsupported hash type %d", b[8])
	}
	f.vectorSize = int32(binary.BigEndian.Uint32(b[9:]))
	if f.numHashes < 1 || f.vectorSize < 1 {
		return nil, fmt.Errorf("bad filter shape: %d hashes over %d bits", f.numHashes, f.vectorSize)
	}
	return b[bloomFilterHeaderLength:], nil
}

// murmurM is the multiplier of MurmurHash2.
const murmurM = 0x5bd1e995

// bits appends to dst the bits key sets: numHashes positions, each from
// the MurmurHash of the key's bytes (Hadoop's variant of MurmurHash2, as Hudi
// keeps it) seeded with the previous hash, mapped to a bit as Java's
// Math.abs(h % vectorSize) maps it.
func (f *BloomFilter) bits(dst []uint32, key string) []uint32 {
	// The mixed four-byte blocks and the tail do not depend on the seed:
	// compute them once for all hashes.
	var blockBuf [16]uint32
	blocks := blockBuf[:0]
	for i := 0; i+4 <= len(key); i += 4 {
		blocks = append(blocks, murmurBlock(key, i))
	}
	rest := len(key) % 4
	tail := murmurTail(key[len(key)-rest:])
	h := uint32(0)
	for range f.numHashes {
		h ^= uint32(len(key))
		for _, k := range blocks {
			h = h*murmurM ^ k
		}
		if rest > 0 {
			h = (h ^ tail) * murmurM
		}
		h = murmurFinish(h)
		dst = append(dst, f.position(h))
	}
	return dst
}

// murmurBlock returns the mixed little-endian four-byte block of key at i.
func murmurBlock(key string, i int) uint32 {
	k := uint32(key[i]) | uint32(key[i+1])<<8 | uint32(key[i+2])<<16 | uint32(key[i+3])<<24
	k *= murmurM
	k ^= k >> 24
	return k * murmurM
}

// murmurTail returns the last len(key)%4 bytes of a key, rest, as MurmurHash
// folds them in. Java's bytes are signed: tail bytes are sign-extended.
func murmurTail(rest string) uint32 {
	var tail uint32
	for j := 0; j < len(rest); j++ {
		tail ^= uint32(int32(int8(rest[j]))) << (8 * (len(rest) - 1 - j))
	}
	return tail
}

// murmurFinish is MurmurHash2's final avalanche.
func murmurFinish(h uint32) uint32 {
	h ^= h >> 13
	h *= murmurM
	return h ^ h>>15
}

// position maps a hash to a bit as Java's Math.abs(h % vectorSize) does.
func (f *BloomFilter) position(h uint32) uint32 {
	if int32(h) < 0 {
		h = -h
	}
	return fastMod(h, f.modM, f.vectorSize)
}

// fastModMultiplier returns the multiplier fastMod needs for divisor d.
func fastModMultiplier(d int32) uint64 {
	return ^uint64(0)/uint64(d) + 1
}

// fastMod returns a % d without dividing (Lemire, Kaser and Kurz, "Faster
// remainder by direct computation"), m being fastModMultiplier(d).
func fastMod(a uint32, m uint64, d int32) uint32 {
	hi, _ := bits.Mul64(m*uint64(a), uint64(d))
	return uint32(hi)
}

// bloomBatchKeys is how many keys a bloomBuilder hands over at once.
const bloomBatchKeys = 1024

// bloomBuilder fills a BloomFilter on its own goroutine, so that hashing
// keys (numHashes chained hashes each) overlaps with encoding and
// compressing pages. Keys keep their order, which the filter's growth
// depends on. finish must be called to stop the goroutine.
type bloomBuilder struct {
	filter  *BloomFilter
	cur     *keyBatch
	full    chan *keyBatch // batches to add, in order
	free    chan *keyBatch // batches added, to reuse
	stopped chan struct{}
}

// keyBatch holds keys back to back: key i ends at ends[i].
type keyBatch struct {
	data []byte
	ends []int
}

func newBloomBuilder(f *BloomFilter) *bloomBuilder {
	const batches = 4
	b := &bloomBuilder{
		filter:  f,
		cur:     new(keyBatch),
		full:    make(chan *keyBatch, batches),
		free:    make(chan *keyBatch, batches),
		stopped: make(chan struct{}),
	}
	for range batches - 1 {
		b.free <- new(keyBatch)
	}
	go b.run()
	return b
}

func (b *bloomBuilder) run() {
	defer close(b.stopped)
	var keys []string
	for batch := range b.full {
		keys = keys[:0]
		start := 0
		for _, end := range batch.ends {
			keys = append(keys, unsafeString(batch.data[start:end]))
			start = end
		}
		b.filter.AddKeys(keys)
		batch.data, batch.ends = batch.data[:0], batch.ends[:0]
		b.free <- batch
	}
}

// add queues a copy of key.
func (b *bloomBuilder) add(key string) {
	b.cur.data = append(b.cur.data, key...)
	b.cur.ends = append(b.cur.ends, len(b.cur.data))
	if len(b.cur.ends) == bloomBatchKeys {
		b.full <- b.cur
		b.cur = <-b.free
	}
}

// finish adds the queued keys, stops the goroutine and returns the filter.
func (b *bloomBuilder) finish() *BloomFilter {
	if len(b.cur.ends) > 0 {
		b.full <- b.cur
	}
	close(b.full)
	<-b.stopped
	return b.filter
}

// Package trips generates the trip records of Hudi's Spark quickstart,
// deterministically and fast, for tests and benchmarks.
//
// A trip has six columns: uuid (the record key), ts (epoch milliseconds, the
// precombine field), rider, driver, fare and partitionpath, the last one of
// three partitions. The same seed always yields the same trips, so two
// engines benchmarked in one run can be given identical data.
//
// The records follow the shape of Hudi's QuickstartUtils.DataGenerator with
// two differences: only these six of its columns are made, and each trip
// draws its own rider/driver number (Hudi uses one per batch), so that the
// rider and driver columns are not constant within a batch.
package trips

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Column names, in the order of Columns and Trip.Values.
const (
	ColUUID          = "uuid"
	ColTS            = "ts"
	ColRider         = "rider"
	ColDriver        = "driver"
	ColFare          = "fare"
	ColPartitionPath = "partitionpath"
)

// Partition paths, as in Hudi's quickstart.
const (
	SanFrancisco = "americas/united_states/san_francisco"
	SaoPaulo     = "americas/brazil/sao_paulo"
	Chennai      = "asia/india/chennai"
)

// BaseTS is the ts of the first batch's earliest possible trip:
// 2024-01-01T00:00:00Z in epoch milliseconds.
const BaseTS int64 = 1704067200000

// BatchSpan is the width in milliseconds of the window that the timestamps
// of one batch (one Inserts or Updates call) are drawn from; batch i draws
// from [BaseTS+i*BatchSpan, BaseTS+(i+1)*BatchSpan).
const BatchSpan int64 = 24 * 60 * 60 * 1000

// uuidLen is the length of a UUID's text form.
const uuidLen = 36

// Columns returns the column names in order: uuid, ts, rider, driver, fare,
// partitionpath.
func Columns() []string {
	return []string{ColUUID, ColTS, ColRider, ColDriver, ColFare, ColPartitionPath}
}

// Partitions returns the three partition paths.
func Partitions() []string {
	return []string{SanFrancisco, SaoPaulo, Chennai}
}

// Trip is one trip record.
type Trip struct {
	UUID          string  // record key: a UUID v4 in its 36-character text form
	TS            int64   // epoch milliseconds; precombine field
	Rider         string  // "rider-NNN"
	Driver        string  // "driver-NNN"
	Fare          float64 // in [0, 100)
	PartitionPath string  // one of Partitions()
}

// Values returns the trip as a row in column order, with the dynamic types
// string, int64, string, string, float64, string.
func (t Trip) Values() []any {
	return t.AppendValues(make([]any, 0, 6))
}

// AppendValues appends the trip's values in column order to dst and returns
// the extended slice.
func (t Trip) AppendValues(dst []any) []any {
	return append(dst, t.UUID, t.TS, t.Rider, t.Driver, t.Fare, t.PartitionPath)
}

// Keys returns the record keys of trips, in order.
func Keys(trips []Trip) []string {
	keys := make([]string, len(trips))
	for i, t := range trips {
		keys[i] = t.UUID
	}
	return keys
}

// numbers is how many distinct rider and driver names there are.
const numbers = 1000

// riders and drivers are the names "rider-000" … "rider-999" and
// "driver-000" … "driver-999", shared by all trips.
var riders, drivers = names("rider-"), names("driver-")

func names(prefix string) []string {
	s := make([]string, numbers)
	for i := range s {
		s[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return s
}

var partitions = [...]string{SanFrancisco, SaoPaulo, Chennai}

// A Generator makes trips from a seeded pseudo-random source. Its output
// depends only on the seed and the sequence of calls made on it. A Generator
// is not safe for concurrent use.
type Generator struct {
	rng   *rand.Rand
	batch int64 // number of batches (Inserts or Updates calls) made so far
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed int64) *Generator {
	s := uint64(seed)
	return &Generator{rng: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))}
}

// nextBatch returns the start of the timestamp window of a new batch.
func (g *Generator) nextBatch() int64 {
	start := BaseTS + g.batch*BatchSpan
	g.batch++
	return start
}

// Inserts returns n new trips. Their keys are random UUIDs (version 4 text
// form) drawn from the generator's source, so they are unique with
// overwhelming probability, also across calls and seeds. Partitions are drawn
// uniformly from the three.
//
// The keys of one call share one backing string, so keeping any one of them
// alive keeps the memory of all n.
func (g *Generator) Inserts(n int) []Trip {
	if n <= 0 {
		return nil
	}
	start := g.nextBatch()
	buf := make([]byte, n*uuidLen)
	for i := range n {
		putUUID(buf[i*uuidLen:(i+1)*uuidLen], g.rng.Uint64(), g.rng.Uint64())
	}
	keys := string(buf)
	trips := make([]Trip, n)
	for i := range trips {
		num := g.rng.IntN(numbers)
		trips[i] = Trip{
			UUID:          keys[i*uuidLen : (i+1)*uuidLen],
			TS:            start + g.rng.Int64N(BatchSpan),
			Rider:         riders[num],
			Driver:        drivers[num],
			Fare:          g.rng.Float64() * 100,
			PartitionPath: partitions[g.rng.IntN(len(partitions))],
		}
	}
	return trips
}

// Updates returns updates of n distinct trips picked at random from
// existing, in the order picked: each keeps its key and partition path and
// gets a new ts greater than its old one, a new fare and a new rider and
// driver. Keys are distinct if those of existing are. It panics if n is
// greater than len(existing).
func (g *Generator) Updates(existing []Trip, n int) []Trip {
	if n > len(existing) {
		panic("trips: Updates of " + strconv.Itoa(n) + " trips from " + strconv.Itoa(len(existing)))
	}
	if n <= 0 {
		return nil
	}
	start := g.nextBatch()
	picked := g.pick(n, len(existing))
	trips := make([]Trip, n)
	for i, j := range picked {
		old := existing[j]
		ts := start + g.rng.Int64N(BatchSpan)
		if ts <= old.TS {
			ts = old.TS + 1 + g.rng.Int64N(BatchSpan)
		}
		num := g.rng.IntN(numbers)
		trips[i] = Trip{
			UUID:          old.UUID,
			TS:            ts,
			Rider:         riders[num],
			Driver:        drivers[num],
			Fare:          g.rng.Float64() * 100,
			PartitionPath: old.PartitionPath,
		}
	}
	return trips
}

// pick returns n distinct indexes in [0, size), in random order.
func (g *Generator) pick(n, size int) []int {
	if n > size/4 {
		// Partial Fisher–Yates shuffle of all indexes.
		idx := make([]int, size)
		for i := range idx {
			idx[i] = i
		}
		for i := range n {
			j := i + g.rng.IntN(size-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		return idx[:n:n]
	}
	// Few of many: draw until n distinct ones were seen.
	seen := make(map[int]struct{}, n)
	idx := make([]int, 0, n)
	for len(idx) < n {
		j := g.rng.IntN(size)
		if _, dup := seen[j]; dup {
			continue
		}
		seen[j] = struct{}{}
		idx = append(idx, j)
	}
	return idx
}

const hexDigits = "0123456789abcdef"

// putUUID writes the text form of the version 4 UUID made of the random bits
// hi and lo into dst, which is 36 bytes long.
func putUUID(dst []byte, hi, lo uint64) {
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant RFC 4122
	_ = dst[uuidLen-1]
	p := 0
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[p] = '-'
			p++
		}
		dst[p] = hexDigits[c>>4]
		dst[p+1] = hexDigits[c&0x0f]
		p += 2
	}
}

package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// benchRecords is the size of the index the Tag benchmarks read.
const benchRecords = 1_000_000

// benchFixture is the folder of the benchRecords-record index the Tag
// benchmarks read, built on first use and removed by TestMain.
var benchFixture struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFixture.dir != "" {
		os.RemoveAll(benchFixture.dir)
	}
	os.Exit(code)
}

// benchLocation is the location of record i: one of 1000 file groups in 100
// partitions.
func benchLocation(i int) Location {
	g := uint64(i) * 0x9e3779b97f4a7c15 >> 54 % 1000
	return Location{
		PartitionPath: fmt.Sprintf("region=r%d/date=2024-01-%02d", g%5, g/10%30+1),
		FileID:        fmt.Sprintf("%08x-1234-4abc-9def-%012x-0", g*0x2545f491, g*0x9e3779b97f4a),
	}
}

// benchScan yields records 0 to n-1.
func benchScan(n int) ScanFunc {
	return func(yield func(string, Location) error) error {
		for i := range n {
			if err := yield(testKey(i), benchLocation(i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// benchDir returns the folder of an index of benchRecords records,
// testKey(i) for i < benchRecords, written as a bulk insert writes it: one
// Apply.
func benchDir(b *testing.B) string {
	f := &benchFixture
	f.once.Do(func() {
		if f.dir, f.err = os.MkdirTemp("", "hoodie-index-bench-"); f.err != nil {
			return
		}
		var ix *Index
		if ix, f.err = Open(context.Background(), f.dir, testOptions); f.err != nil {
			return
		}
		cs := ChangeSet{Puts: make([]Put, benchRecords)}
		for i := range cs.Puts {
			cs.Puts[i] = Put{Key: testKey(i), Location: benchLocation(i)}
		}
		f.err = errors.Join(ix.Apply(context.Background(), "20240101000000001", cs), ix.Close())
	})
	if f.err != nil {
		b.Fatal(f.err)
	}
	return f.dir
}

// benchBatches returns a few batches of n keys in random order, half of them
// in the index.
func benchBatches(n int) [][]string {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	batches := make([][]string, 8)
	for i := range batches {
		batches[i] = make([]string, n)
		for j := range n {
			batches[i][j] = testKey(j%2*benchRecords + rng.IntN(benchRecords))
		}
	}
	return batches
}

// benchTag runs tag over batches of n keys and reports keys per second.
// Each call gets the index freshly opened with opts, as a writer opens it
// for each commit: Pebble's block cache is cold, the OS page cache warm.
// Only tag is timed.
func benchTag(b *testing.B, n int, opts Options, tag func(*Index, []string) (int, error)) {
	dir := benchDir(b)
	batches := benchBatches(n)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ix, err := Open(context.Background(), dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		matches, err := tag(ix, batches[i%len(batches)])
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if matches != n {
			b.Fatalf("%d matches for %d keys", matches, n)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkTagSorted measures Tag: sort, then a forward walk per worker.
// The case of hoodiectl bench's tag line is batch=100000/workers=2 (on two
// cores).
func BenchmarkTagSorted(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("batch=%d/workers=%d", n, workers), func(b *testing.B) {
				opts := testOptions
				opts.TagWorkers = workers
				benchTag(b, n, opts, func(ix *Index, keys []string) (int, error) {
					ms, err := ix.Tag(context.Background(), keys)
					return ms.Len(), err
				})
			})
		}
	}
}

// BenchmarkSortKeys measures the sort that begins a Tag of 100,000 keys on
// two workers: UUIDs (sortedUUIDs), and the same keys in upper case, which
// are no UUIDs to the index (tagKeys).
func BenchmarkSortKeys(b *testing.B) {
	uuids := benchBatches(100_000)[0]
	upper := make([]string, len(uuids))
	for i, k := range uuids {
		upper[i] = strings.ToUpper(k)
	}
	for _, c := range []struct {
		name string
		keys []string
	}{{"uuid", uuids}, {"other", upper}} {
		b.Run("keys="+c.name, func(b *testing.B) {
			for b.Loop() {
				if sk := sortKeys(keySegments{c.keys}, 2); sk.len() != len(c.keys) {
					b.Fatalf("%d sorted keys, want %d", sk.len(), len(c.keys))
				}
			}
		})
	}
}

// BenchmarkTagGetPerKey is the baseline of BenchmarkTagSorted: one Pebble
// Get per key, in input order.
func BenchmarkTagGetPerKey(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			benchTag(b, n, testOptions, getPerKey)
		})
	}
}

// getPerKey looks keys up one Get at a time, returning how many it looked
// up.
func getPerKey(ix *Index, keys []string) (int, error) {
	ids := make([]uint32, len(keys))
	var key []byte
	for i, k := range keys {
		key = appendRecordKey(key[:0], k)
		v, closer, err := ix.db.Get(key)
		if errors.Is(err, pebble.ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		id, _ := binary.Uvarint(v)
		ids[i] = uint32(id) + 1
		if err := closer.Close(); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// BenchmarkApply measures commits of 1000 puts and 100 deletes each.
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	ix := openTest(b, b.TempDir(), testOptions)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; b.Loop(); i++ {
		var cs ChangeSet
		for range 1000 {
			j := rng.IntN(benchRecords)
			cs.Puts = append(cs.Puts, Put{Key: testKey(j), Location: benchLocation(j + i)})
		}
		for range 100 {
			cs.Deletes = append(cs.Deletes, testKey(rng.IntN(benchRecords)))
		}
		if err := ix.Apply(ctx, fmt.Sprintf("%017d", 20240101000000000+i), cs); err != nil {
			b.Fatal(err)
		}
	}
}

// applyPaths are the two ways Apply writes a change set, forced by the
// option that chooses between them.
var applyPaths = []struct {
	name      string
	ingestMin int
}{{"batch", math.MaxInt}, {"ingest", 1}}

// benchApplyLarge times, for each of applyPaths, the Apply of changes into
// the index that setup leaves in a fresh folder, and the flush of Pebble's
// memtable after it: a batch that large is flushed at once, competing with
// whatever follows. apply-ns/op is the Apply alone.
func benchApplyLarge(b *testing.B, changes ChangeSet, setup func(b *testing.B, dir string)) {
	ctx := context.Background()
	for _, path := range applyPaths {
		b.Run("path="+path.name, func(b *testing.B) {
			opts := testOptions
			opts.ingestMin = path.ingestMin
			var applying time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "index")
				setup(b, dir)
				ix := openTest(b, dir, opts)
				b.StartTimer()
				start := time.Now()
				if err := ix.Apply(ctx, fmt.Sprintf("%017d", 20240201000000000+i), changes); err != nil {
					b.Fatal(err)
				}
				applying += time.Since(start)
				if err := ix.db.Flush(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := ix.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(applying.Nanoseconds())/float64(b.N), "apply-ns/op")
		})
	}
}

// BenchmarkApplyBulkLoad measures the Apply of a bulk insert: benchRecords
// new keys, a few hundred at a time per file group, into an empty index.
// With order=random the keys come in random order, as a bulk insert that
// does not sort gives them; with order=runs in three ascending runs, as a
// sorting bulk insert into three partitions gives them (each partition's
// file groups in key order), which Apply merges instead of sorting.
func BenchmarkApplyBulkLoad(b *testing.B) {
	var cs ChangeSet
	for i := range benchRecords {
		cs.Puts = append(cs.Puts, Put{Key: testKey(i), Location: benchLocation(i / 300)})
	}
	b.Run("order=random", func(b *testing.B) {
		benchApplyLarge(b, cs, func(*testing.B, string) {})
	})
	runs := ChangeSet{Puts: slices.Clone(cs.Puts)}
	for r := range 3 {
		run := runs.Puts[r*benchRecords/3 : (r+1)*benchRecords/3]
		slices.SortFunc(run, func(a, b Put) int { return strings.Compare(a.Key, b.Key) })
		for i := range run {
			run[i].Location = benchLocation(r*benchRecords/3/300 + i/300)
		}
	}
	b.Run("order=runs", func(b *testing.B) {
		benchApplyLarge(b, runs, func(*testing.B, string) {})
	})
}

// BenchmarkApplyUpsert measures the Apply of a large upsert into an index of
// benchRecords records: puts, half of them moves of indexed keys, half new
// keys, and a fifth as many deletes of indexed keys.
func BenchmarkApplyUpsert(b *testing.B) {
	fixture := benchDir(b)
	for _, puts := range []int{10_000, 50_000, 100_000} {
		var cs ChangeSet
		rng := rand.New(rand.NewPCG(3, 3))
		for i := range puts {
			k := rng.IntN(benchRecords) + i%2*benchRecords
			cs.Puts = append(cs.Puts, Put{Key: testKey(k), Location: benchLocation(k + 1)})
		}
		for range puts / 5 {
			cs.Deletes = append(cs.Deletes, testKey(rng.IntN(benchRecords)))
		}
		b.Run(fmt.Sprint("puts=", puts), func(b *testing.B) {
			benchApplyLarge(b, cs, func(b *testing.B, dir string) {
				if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRebuild measures a rebuild of benchRecords records.
func BenchmarkRebuild(b *testing.B) {
	ctx := context.Background()
	ix := openTest(b, b.TempDir(), testOptions)
	for b.Loop() {
		if err := ix.Rebuild(ctx, "20240101000000001", benchScan(benchRecords)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*benchRecords)/b.Elapsed().Seconds(), "records/s")
}

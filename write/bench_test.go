package write

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// benchRows is the size of the benchmark table, as the performance targets
// state them.
const benchRows = 1_000_000

// BenchmarkParquetGoBaseline writes the trips with their five meta columns
// using parquet-go alone, from Go structs, zstd, into as many files as a
// bulk insert of them makes (three per partition): the baseline bulk-insert
// is measured against.
func BenchmarkParquetGoBaseline(b *testing.B) {
	ts := trips.NewGenerator(1).Inserts(benchRows)
	files := map[string]int{}
	for _, p := range trips.Partitions() {
		files[p] = 3
	}
	b.ResetTimer()
	for range b.N {
		if _, err := tripbench.WriteParquet(b.TempDir(), "20261129000000000", ts, files, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBulkInsert loads 1M trips into an empty table.
func BenchmarkBulkInsert(b *testing.B) {
	benchBulkInsert(b, DefaultSettings(), true)
}

// BenchmarkBulkInsertUnsorted loads 1M trips into an empty table with
// hoodie.bulkinsert.sort.mode=NONE.
func BenchmarkBulkInsertUnsorted(b *testing.B) {
	settings := DefaultSettings()
	settings.BulkInsertSortMode = "NONE"
	benchBulkInsert(b, settings, true)
}

// BenchmarkBulkInsertNoMetaFields loads 1M trips into an empty table that
// does not populate meta fields.
func BenchmarkBulkInsertNoMetaFields(b *testing.B) {
	benchBulkInsert(b, DefaultSettings(), false)
}

// benchBulkInsert loads 1M trips into an empty table with settings, which
// populates meta fields or not.
func benchBulkInsert(b *testing.B, settings Settings, populateMeta bool) {
	in := tripsInput(trips.NewGenerator(1).Inserts(benchRows))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tt := newTripsTableWith(b, config.MergeEventTime, settings, populateMeta)
		b.StartTimer()
		tt.write(OpBulkInsert, in)
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchTable is a 1M-record trips table written once per benchmark.
func benchTable(b *testing.B) (*testTable, []trips.Trip, *trips.Generator) {
	b.Helper()
	gen := trips.NewGenerator(1)
	all := gen.Inserts(benchRows)
	tt := newTripsTable(b, config.MergeEventTime, Settings{})
	tt.write(OpBulkInsert, tripsInput(all))
	return tt, all, gen
}

// BenchmarkUpsert upserts random keys into the 1M-record table, half
// updates and half inserts.
func BenchmarkUpsert(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tt, all, gen := benchTable(b)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				batch := append(gen.Updates(all, n/2), gen.Inserts(n/2)...)
				in := tripsInput(batch)
				b.StartTimer()
				tt.write(OpUpsert, in)
			}
		})
	}
}

// BenchmarkDelete deletes 1,000 random keys from the 1M-record table.
func BenchmarkDelete(b *testing.B) {
	tt, all, gen := benchTable(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		victims := gen.Updates(all, 1000)
		in := tripsInput(victims)
		b.StartTimer()
		res := tt.write(OpDelete, in)
		b.StopTimer()
		// Put them back so that every iteration deletes existing keys.
		if res.Deleted != 1000 {
			b.Fatalf("deleted %d, want 1000", res.Deleted)
		}
		tt.write(OpInsert, in)
		b.StartTimer()
	}
}

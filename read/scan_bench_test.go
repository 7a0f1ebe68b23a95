package read_test

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// benchRecords is the size of the benchmarks' trips table.
const benchRecords = 1_000_000

// benchTable is the benchmarks' table, written once per test binary: four
// bulk inserts of a quarter of the records each, then an upsert of 1%.
var benchTable struct {
	once  sync.Once
	dir   string
	first string // the first insert's instant
	key   string // a key of the last insert
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTable.dir != "" {
		os.RemoveAll(benchTable.dir)
	}
	os.Exit(code)
}

// loadBenchTable writes the benchmarks' table on first use.
func loadBenchTable(b *testing.B) *tripsTable {
	b.Helper()
	benchTable.once.Do(func() {
		benchTable.dir, benchTable.err = os.MkdirTemp("", "hoodie-read-bench-")
		if benchTable.err != nil {
			return
		}
		tt := newTripsTable(b, benchTable.dir)
		gen := trips.NewGenerator(42)
		var all []trips.Trip
		for i := range 4 {
			batch := gen.Inserts(benchRecords / 4)
			instant := tt.write(write.OpBulkInsert, batch)
			if i == 0 {
				benchTable.first = instant
			}
			all = append(all, batch...)
		}
		tt.write(write.OpUpsert, gen.Updates(all, benchRecords/100))
		benchTable.key = all[len(all)-1].UUID
	})
	if benchTable.err != nil {
		b.Fatal(benchTable.err)
	}
	return newTripsTableAt(b, benchTable.dir)
}

// benchScan runs a scan per iteration, reading every batch, and reports
// the scan's counters.
func benchScan(b *testing.B, opts read.Options, wantRows int64) {
	tt := loadBenchTable(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var stats read.Stats
	for range b.N {
		s, err := tt.scan(opts)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := s.NextBatch(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		stats = s.Stats()
		s.Close()
	}
	b.StopTimer()
	if wantRows >= 0 && stats.RowsReturned != wantRows {
		b.Fatalf("%d records, want %d", stats.RowsReturned, wantRows)
	}
	b.ReportMetric(float64(stats.RowsReturned), "records")
	b.ReportMetric(float64(stats.FilesRead), "files-read")
	b.ReportMetric(float64(stats.FilesSkipped), "files-skipped")
	b.ReportMetric(float64(stats.RowGroupsRead), "rowgroups-read")
	b.ReportMetric(float64(stats.RowGroupsSkipped), "rowgroups-skipped")
	b.ReportMetric(float64(stats.PagesSkipped), "pages-skipped")
	b.Logf("%+v", stats)
}

func BenchmarkScanSnapshot(b *testing.B) {
	benchScan(b, read.Options{}, benchRecords)
}

func BenchmarkScanSnapshotTwoColumns(b *testing.B) {
	benchScan(b, read.Options{Columns: []string{trips.ColUUID, trips.ColFare}}, benchRecords)
}

func BenchmarkScanTimeTravel(b *testing.B) {
	loadBenchTable(b)
	benchScan(b, read.Options{AsOf: benchTable.first}, benchRecords/4)
}

func BenchmarkScanPartition(b *testing.B) {
	benchScan(b, read.Options{Where: "partitionpath = '" + trips.Chennai + "'"}, -1)
}

func BenchmarkScanOneKey(b *testing.B) {
	loadBenchTable(b)
	benchScan(b, read.Options{Where: "uuid = '" + benchTable.key + "'"}, 1)
}

func BenchmarkScanFareRange(b *testing.B) {
	benchScan(b, read.Options{Where: "fare >= 10 AND fare < 11"}, -1)
}

// BenchmarkBaseFileRows is the baseline the scan is measured against:
// the latest snapshot read row by row with basefile.File.Rows, which
// assembles parquet.Rows and decodes every value to the value model.
func BenchmarkBaseFileRows(b *testing.B) {
	tt := loadBenchTable(b)
	ctx := context.Background()
	s, err := tt.scan(read.Options{})
	if err != nil {
		b.Fatal(err)
	}
	slices := s.View().LatestSlices()
	s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n := 0
		for _, slice := range slices {
			bf, err := basefile.Open(ctx, tt.fsys, slice.Path)
			if err != nil {
				b.Fatal(err)
			}
			rows := bf.Rows(ctx)
			for {
				_, err := rows.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			bf.Close()
		}
		if n != benchRecords {
			b.Fatalf("%d rows", n)
		}
	}
}

func BenchmarkScanSnapshotSerial(b *testing.B) {
	benchScan(b, read.Options{Parallelism: 1}, benchRecords)
}

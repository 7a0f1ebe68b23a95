package write

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
)

// benchRows is the size of the benchmark table, as the performance targets
// state them.
const benchRows = 1_000_000

// baselineRow is a trip with the five meta columns, as plain parquet-go
// writes it from Go structs.
type baselineRow struct {
	CommitTime    string  `parquet:"_hoodie_commit_time,optional"`
	SeqNo         string  `parquet:"_hoodie_commit_seqno,optional"`
	RecordKey     string  `parquet:"_hoodie_record_key,optional"`
	PartitionPath string  `parquet:"_hoodie_partition_path,optional"`
	FileName      string  `parquet:"_hoodie_file_name,optional"`
	UUID          string  `parquet:"uuid,optional"`
	TS            int64   `parquet:"ts,optional"`
	Rider         string  `parquet:"rider,optional"`
	Driver        string  `parquet:"driver,optional"`
	Fare          float64 `parquet:"fare,optional"`
	Partition     string  `parquet:"partitionpath,optional"`
}

// BenchmarkParquetGoBaseline writes the trips with their five meta columns
// using parquet-go alone, from Go structs, zstd, into as many files as a
// bulk insert of them makes (three per partition): the baseline bulk-insert
// is measured against. Building the rows is part of the work, as it is for
// a bulk insert.
func BenchmarkParquetGoBaseline(b *testing.B) {
	ts := trips.NewGenerator(1).Inserts(benchRows)
	const filesPerPartition = 3
	b.ResetTimer()
	for range b.N {
		dir := b.TempDir()
		fsys, _ := storage.NewLocalFS(dir)
		byPart := map[string][]baselineRow{}
		for i, t := range ts {
			byPart[t.PartitionPath] = append(byPart[t.PartitionPath], baselineRow{
				CommitTime: "20261129000000000", SeqNo: "20261129000000000_0_" + strconv.Itoa(i), RecordKey: t.UUID,
				PartitionPath: t.PartitionPath, FileName: "f.parquet",
				UUID: t.UUID, TS: t.TS, Rider: t.Rider, Driver: t.Driver, Fare: t.Fare, Partition: t.PartitionPath,
			})
		}
		n := 0
		for _, rows := range byPart {
			for f := range filesPerPartition {
				out, err := fsys.Create(context.Background(), fmt.Sprintf("%d.parquet", n))
				if err != nil {
					b.Fatal(err)
				}
				n++
				w := parquet.NewGenericWriter[baselineRow](out, parquet.Compression(&parquet.Zstd))
				lo, hi := len(rows)*f/filesPerPartition, len(rows)*(f+1)/filesPerPartition
				if _, err := w.Write(rows[lo:hi]); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				out.Close()
			}
		}
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBulkInsert loads 1M trips into an empty table.
func BenchmarkBulkInsert(b *testing.B) {
	in := tripsInput(trips.NewGenerator(1).Inserts(benchRows))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tt := newTripsTable(b, storage.MergeEventTime, Settings{})
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
	tt := newTripsTable(b, storage.MergeEventTime, Settings{})
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

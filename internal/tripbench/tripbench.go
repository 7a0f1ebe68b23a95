// Package tripbench holds the data of the benchmark workloads, drawn the
// way bench/peers draws them, so that both run on the same records: the
// trips of each step, from internal/trips with seed Seed, the input schema
// Hoodie writes them under, and the plain parquet-go writer that a bulk
// insert is measured against. Package bench runs the workloads on it; it
// stands apart from bench because the tests of the packages bench imports
// use it too.
package tripbench

import (
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Seed seeds the generator of every workload.
const Seed = 1

// Batch is the trips of one write or lookup: updates of existing trips,
// then new trips.
type Batch struct {
	Trips []trips.Trip
	// Updates is how many trips lead Trips with keys of the base table.
	Updates int
}

// Inserts returns how many of the batch's trips have new keys.
func (b Batch) Inserts() int { return len(b.Trips) - b.Updates }

// Data holds the trips of every workload.
type Data struct {
	// Base are the trips of the base table.
	Base []trips.Trip
	// Upsert1k and Upsert100k are upserts of 1,000 and 100,000 keys, half
	// of them of base trips (all of them, if the base has fewer).
	Upsert1k, Upsert100k Batch
	// Deletes are 1,000 base trips to delete.
	Deletes []trips.Trip
	// Lookup is the base trip that point lookups look for.
	Lookup trips.Trip
	// Tag are 100,000 keys to look up in the record index, as Upsert100k
	// makes them: half of them present.
	Tag Batch
}

// NewData generates the trips of the workloads on a base table of rows
// trips; rows must be at least 1. The batches are drawn in the order
// bench/peers draws them (base, upsert of 1,000, upsert of 100,000,
// deletes), so that both get the same keys, and the tag keys last.
func NewData(rows int) Data {
	g := trips.NewGenerator(Seed)
	d := Data{Base: g.Inserts(rows)}
	d.Upsert1k = mixedBatch(g, d.Base, 1000)
	d.Upsert100k = mixedBatch(g, d.Base, 100_000)
	d.Deletes = g.Updates(d.Base, min(1000, rows))
	d.Lookup = d.Base[rows/2]
	d.Tag = mixedBatch(g, d.Base, 100_000)
	return d
}

// mixedBatch draws n trips: updates of min(n/2, len(base)) base trips, then
// new trips.
func mixedBatch(g *trips.Generator, base []trips.Trip, n int) Batch {
	updates := min(n/2, len(base))
	b := Batch{Trips: g.Updates(base, updates), Updates: updates}
	b.Trips = append(b.Trips, g.Inserts(n-updates)...)
	return b
}

// Schema is the schema Hoodie writes trips under: the columns of
// trips.Columns, all nullable, as Spark gives them to Hudi.
func Schema() *basefile.Schema {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	return &basefile.Schema{Name: "trips_record", Namespace: "hoodie.trips", Fields: []basefile.Field{
		{Name: trips.ColUUID, Type: str},
		{Name: trips.ColTS, Type: basefile.Nullable(basefile.Primitive(basefile.KindLong))},
		{Name: trips.ColRider, Type: str},
		{Name: trips.ColDriver, Type: str},
		{Name: trips.ColFare, Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))},
		{Name: trips.ColPartitionPath, Type: str},
	}}
}

// Rows returns ts as rows of Schema.
func Rows(ts []trips.Trip) [][]any {
	rows := make([][]any, len(ts))
	for i, t := range ts {
		rows[i] = t.Values()
	}
	return rows
}

// FareSum returns the sum of the fares of ts.
func FareSum(ts []trips.Trip) float64 {
	var sum float64
	for _, t := range ts {
		sum += t.Fare
	}
	return sum
}

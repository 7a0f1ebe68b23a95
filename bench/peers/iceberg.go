package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

// icebergSchema is the trips table's schema; all columns are required, as
// the generator makes no nulls (arrowSchema matches it).
var icebergSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: trips.ColUUID, Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 2, Name: trips.ColTS, Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 3, Name: trips.ColRider, Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 4, Name: trips.ColDriver, Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 5, Name: trips.ColFare, Type: iceberg.PrimitiveTypes.Float64, Required: true},
	iceberg.NestedField{ID: 6, Name: trips.ColPartitionPath, Type: iceberg.PrimitiveTypes.String, Required: true},
)

// tableProperties returns the table's properties: zstd Parquet and deletes
// by copy on write (both iceberg-go's defaults, stated so that a change of
// defaults does not change the benchmark), and, if bloom is set, a Parquet
// bloom filter on the uuid column.
func tableProperties(bloom bool) iceberg.Properties {
	props := iceberg.Properties{
		table.ParquetCompressionKey: "zstd",
		table.WriteDeleteModeKey:    table.WriteModeCopyOnWrite,
	}
	if bloom {
		props[table.ParquetBloomFilterColumnEnabledKeyPrefix+"."+trips.ColUUID] = "true"
	}
	return props
}

// runIceberg makes a fresh table in work and times, in this order, the
// append of the base trips, the full scan, the point lookup, the two upserts
// and the delete, checking the table after each.
func runIceberg(ctx context.Context, cfg config, d data, work string, run int, t *timings) error {
	warehouse := filepath.Join(work, fmt.Sprintf("iceberg-%d", run))
	if !cfg.keep {
		defer os.RemoveAll(warehouse)
	}
	cat, err := hadoop.NewCatalog("bench", warehouse, iceberg.Properties{})
	if err != nil {
		return fmt.Errorf("opening the catalog: %w", err)
	}
	defer cat.Close()
	ns := table.Identifier{"bench"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		return fmt.Errorf("creating the namespace: %w", err)
	}
	spec, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldByName(
		trips.ColPartitionPath, trips.ColPartitionPath, iceberg.IdentityTransform{}, icebergSchema, nil))
	if err != nil {
		return fmt.Errorf("making the partition spec: %w", err)
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"bench", "trips"}, icebergSchema,
		catalog.WithPartitionSpec(&spec), catalog.WithProperties(tableProperties(cfg.uuidBloom)))
	if err != nil {
		return fmt.Errorf("creating the table: %w", err)
	}

	// Append.
	start := t.startTimer(wlArrow)
	base := tripsToRecords(d.base)
	t.add(wlArrow, len(d.base), start.stop())
	defer releaseAll(base)
	start = t.startTimer(wlAppend)
	tbl, err = appendRecords(ctx, tbl, base)
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	t.add(wlAppend, len(d.base), start.stop())
	rows := len(d.base)
	if err := checkSnapshotRows(tbl, rows); err != nil {
		return fmt.Errorf("after the append: %w", err)
	}

	// Full scan.
	start = t.startTimer(wlScan)
	n, sum, err := scanStats(ctx, tbl, iceberg.AlwaysTrue{})
	if err != nil {
		return fmt.Errorf("full scan: %w", err)
	}
	t.add(wlScan, n, start.stop())
	if n != rows {
		return fmt.Errorf("full scan: %d rows, want %d", n, rows)
	}
	if want := fareSum(d.base); math.Abs(sum-want) > 1e-9*want {
		return fmt.Errorf("full scan: fares sum to %v, want %v", sum, want)
	}

	// Point lookup.
	start = t.startTimer(wlLookup)
	found, err := scanFares(ctx, tbl, iceberg.EqualTo(iceberg.Reference(trips.ColUUID), d.lookup.UUID))
	if err != nil {
		return fmt.Errorf("point lookup: %w", err)
	}
	t.add(wlLookup, 1, start.stop())
	if err := checkFares(found, []trips.Trip{d.lookup}); err != nil {
		return fmt.Errorf("point lookup: %w", err)
	}

	// Upserts.
	for _, u := range []struct {
		workload string
		batch    upsertBatch
	}{{wlUpsert1k, d.upsert1k}, {wlUpsert100k, d.upsert100k}} {
		recs := tripsToRecords(u.batch.trips)
		start = t.startTimer(u.workload)
		tbl, err = upsert(ctx, tbl, recs, trips.Keys(u.batch.trips))
		releaseAll(recs)
		if err != nil {
			return fmt.Errorf("%s: %w", u.workload, err)
		}
		t.add(u.workload, len(u.batch.trips), start.stop())
		rows += u.batch.inserts()
		if err := checkUpsert(ctx, tbl, u.batch, rows); err != nil {
			return fmt.Errorf("after %s: %w", u.workload, err)
		}
	}

	// Delete.
	keys := trips.Keys(d.deletes)
	start = t.startTimer(wlDelete)
	tbl, err = tbl.Delete(ctx, iceberg.IsIn(iceberg.Reference(trips.ColUUID), keys...), nil)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	t.add(wlDelete, len(keys), start.stop())
	rows -= len(keys)
	if err := checkDelete(ctx, tbl, keys, rows); err != nil {
		return fmt.Errorf("after the delete: %w", err)
	}
	return nil
}

// appendRecords appends recs to tbl in one commit.
func appendRecords(ctx context.Context, tbl *table.Table, recs []arrow.RecordBatch) (*table.Table, error) {
	rdr, err := array.NewRecordReader(arrowSchema, recs)
	if err != nil {
		return nil, fmt.Errorf("making a record reader: %w", err)
	}
	defer rdr.Release()
	return tbl.Append(ctx, rdr, nil)
}

// upsert replaces the rows whose keys are among keys with recs, the
// copy-on-write way: in one overwrite commit, files holding any of the keys
// are rewritten without those rows, and recs are written as new files.
func upsert(ctx context.Context, tbl *table.Table, recs []arrow.RecordBatch, keys []string) (*table.Table, error) {
	rdr, err := array.NewRecordReader(arrowSchema, recs)
	if err != nil {
		return nil, fmt.Errorf("making a record reader: %w", err)
	}
	defer rdr.Release()
	filter := iceberg.IsIn(iceberg.Reference(trips.ColUUID), keys...)
	return tbl.Overwrite(ctx, rdr, nil, table.WithOverwriteFilter(filter))
}

// checkSnapshotRows checks the row count the current snapshot's summary
// states.
func checkSnapshotRows(tbl *table.Table, want int) error {
	snap := tbl.CurrentSnapshot()
	if snap == nil || snap.Summary == nil {
		return fmt.Errorf("no current snapshot summary")
	}
	if got := snap.Summary.Properties["total-records"]; got != fmt.Sprint(want) {
		return fmt.Errorf("snapshot summary states %s records, want %d", got, want)
	}
	return nil
}

// sampleSize is how many keys of a batch the checks read back.
const sampleSize = 20

// checkUpsert checks that tbl has rows rows and that a sample of the
// batch's updated and inserted keys each appear once with the batch's fare.
func checkUpsert(ctx context.Context, tbl *table.Table, batch upsertBatch, rows int) error {
	if err := checkRows(ctx, tbl, rows); err != nil {
		return err
	}
	sample := slices.Concat(head(batch.trips[:batch.updates], sampleSize/2), head(batch.trips[batch.updates:], sampleSize/2))
	found, err := scanFares(ctx, tbl, iceberg.IsIn(iceberg.Reference(trips.ColUUID), trips.Keys(sample)...))
	if err != nil {
		return fmt.Errorf("reading back a sample: %w", err)
	}
	return checkFares(found, sample)
}

// checkDelete checks that tbl has rows rows and none of a sample of the
// deleted keys.
func checkDelete(ctx context.Context, tbl *table.Table, keys []string, rows int) error {
	if err := checkRows(ctx, tbl, rows); err != nil {
		return err
	}
	found, err := scanFares(ctx, tbl, iceberg.IsIn(iceberg.Reference(trips.ColUUID), head(keys, sampleSize)...))
	if err != nil {
		return fmt.Errorf("reading back a sample: %w", err)
	}
	if len(found) != 0 {
		return fmt.Errorf("%d of %d sampled deleted keys are still there", len(found), min(len(keys), sampleSize))
	}
	return nil
}

// checkRows checks both the row count the snapshot summary states and the
// one a scan finds.
func checkRows(ctx context.Context, tbl *table.Table, want int) error {
	if err := checkSnapshotRows(tbl, want); err != nil {
		return err
	}
	n, _, err := scanStats(ctx, tbl, iceberg.AlwaysTrue{})
	if err != nil {
		return fmt.Errorf("counting rows: %w", err)
	}
	if n != want {
		return fmt.Errorf("a scan finds %d rows, want %d", n, want)
	}
	return nil
}

// checkFares checks that found, the fares read back by key, holds exactly
// the keys of want, each once and with want's fare.
func checkFares(found map[string][]float64, want []trips.Trip) error {
	if len(found) != len(want) {
		return fmt.Errorf("read back %d of %d keys", len(found), len(want))
	}
	for _, w := range want {
		fares := found[w.UUID]
		if len(fares) != 1 {
			return fmt.Errorf("key %s: %d rows, want 1", w.UUID, len(fares))
		}
		if fares[0] != w.Fare {
			return fmt.Errorf("key %s: fare %v, want %v", w.UUID, fares[0], w.Fare)
		}
	}
	return nil
}

// scanStats scans the rows of tbl matching filter, all columns, and returns
// their count and the sum of their fares.
func scanStats(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression) (int, float64, error) {
	var (
		n   int
		sum float64
	)
	err := scan(ctx, tbl, filter, nil, func(rec arrow.RecordBatch) error {
		fares, err := column[*array.Float64](rec, trips.ColFare)
		if err != nil {
			return err
		}
		for _, f := range fares.Float64Values() {
			sum += f
		}
		n += int(rec.NumRows())
		return nil
	})
	return n, sum, err
}

// scanFares returns the fares of the rows of tbl matching filter, by key.
func scanFares(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression) (map[string][]float64, error) {
	found := map[string][]float64{}
	err := scan(ctx, tbl, filter, []string{trips.ColUUID, trips.ColFare}, func(rec arrow.RecordBatch) error {
		keys, err := column[*array.String](rec, trips.ColUUID)
		if err != nil {
			return err
		}
		fares, err := column[*array.Float64](rec, trips.ColFare)
		if err != nil {
			return err
		}
		for i := range keys.Len() {
			found[keys.Value(i)] = append(found[keys.Value(i)], fares.Value(i))
		}
		return nil
	})
	return found, err
}

// scan reads the rows of tbl matching filter into Arrow, selecting the
// named columns (all when none are named), and calls f on each batch.
func scan(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, columns []string, f func(arrow.RecordBatch) error) error {
	opts := []table.ScanOption{table.WithRowFilter(filter)}
	if len(columns) > 0 {
		opts = append(opts, table.WithSelectedFields(columns...))
	}
	s := tbl.Scan(opts...)
	defer s.Close()
	_, recs, err := s.ToArrowRecords(ctx)
	if err != nil {
		return fmt.Errorf("planning the scan: %w", err)
	}
	for rec, err := range recs {
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
		err = f(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// column returns the named column of rec as an array of type A.
func column[A arrow.Array](rec arrow.RecordBatch, name string) (A, error) {
	var zero A
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		return zero, fmt.Errorf("scan result has %d columns named %q", len(idx), name)
	}
	a, ok := rec.Column(idx[0]).(A)
	if !ok {
		return zero, fmt.Errorf("column %q is a %T, want %T", name, rec.Column(idx[0]), zero)
	}
	return a, nil
}

// fareSum returns the sum of the fares of ts.
func fareSum(ts []trips.Trip) float64 {
	var sum float64
	for _, t := range ts {
		sum += t.Fare
	}
	return sum
}

// head returns the first n elements of s, or all of s if it is shorter.
func head[E any](s []E, n int) []E {
	return s[:min(n, len(s))]
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// tag looks the tag keys up in the index of t, which holds the base trips
// that bulk wrote. It measures the index itself, which the hoodie package
// keeps behind its Table, so it opens the index in its folder, holding the
// writer lock while it uses it, as the index belongs to the writer.
func (r *runner) tag(t *hoodie.Table, bulk *write.Result) (err error) {
	fsys, err := storage.NewLocalFS(t.Path())
	if err != nil {
		return err
	}
	unlock, err := storage.Lock(r.ctx, fsys, storage.LockFile, storage.LockOptions{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	dir := filepath.Join(t.Path(), filepath.FromSlash(hoodie.DefaultIndexFolder))
	idx, err := index.Open(r.ctx, dir, index.Options{TableName: triptable.Spec().Name, TableID: t.Path()})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, idx.Close()) }()
	return r.tagWith(idx, bulk)
}

// tagWith measures the tagging on an open index.
func (r *runner) tagWith(idx *index.Index, bulk *write.Result) error {
	ctx, batch := r.ctx, r.data.Tag
	if err := idx.Stale(); err != nil {
		return fmt.Errorf("%s: %w", Tag100k, err)
	}
	if wm := idx.Watermark(); wm != bulk.Instant {
		return fmt.Errorf("%s: the index is at instant %q, want the bulk insert's %s", Tag100k, wm, bulk.Instant)
	}
	keys := trips.Keys(batch.Trips)
	var matches index.Matches
	if err := r.measure(Tag100k, len(keys), func() (string, error) {
		var err error
		matches, err = idx.Tag(ctx, keys)
		found := 0
		for _, m := range matches.All() {
			if m.Found {
				found++
			}
		}
		return fmt.Sprintf("%d keys found", found), err
	}); err != nil {
		return err
	}
	groups := map[index.Location]bool{}
	for _, f := range bulk.Files {
		groups[index.Location{PartitionPath: f.Partition, FileID: f.FileID}] = true
	}
	for i, m := range matches.All() {
		tr := batch.Trips[i]
		switch {
		case m.Found != (i < batch.Updates):
			return fmt.Errorf("%s: key %s: found %v, want %v", Tag100k, tr.UUID, m.Found, i < batch.Updates)
		case m.Found && (m.Location.PartitionPath != r.folders[tr.PartitionPath] || !groups[m.Location]):
			return fmt.Errorf("%s: key %s of partition %s: tagged %s, not a file group of the bulk insert there", Tag100k, tr.UUID, tr.PartitionPath, m.Location)
		}
	}
	r.validate(Tag100k, "the %d present keys found in file groups of their partitions, the %d others not found", batch.Updates, batch.Inserts())
	return nil
}

// reads times the reads of the N-record snapshot: every column, one
// partition, one key.
func (r *runner) reads(t *hoodie.Table) error {
	base := r.data.Base
	if err := r.fareTotals(t, SnapshotScan, hoodie.ScanOptions{}, base); err != nil {
		return err
	}
	var chennai []trips.Trip
	for _, tr := range base {
		if tr.PartitionPath == trips.Chennai {
			chennai = append(chennai, tr)
		}
	}
	where := trips.ColPartitionPath + " = " + quoteLiteral(trips.Chennai)
	if err := r.fareTotals(t, PartitionScan, hoodie.ScanOptions{Where: where}, chennai); err != nil {
		return err
	}
	key := r.data.Lookup
	var found map[string][]float64
	if err := r.measure(KeyLookup, 1, func() (string, error) {
		var stats read.Stats
		var err error
		found, stats, err = faresByKey(r.ctx, t, hoodie.ScanOptions{Where: trips.ColUUID + " = " + quoteLiteral(key.UUID)})
		return scanDetail(stats), err
	}); err != nil {
		return err
	}
	if err := checkFares(found, []trips.Trip{key}); err != nil {
		return fmt.Errorf("%s: %w", KeyLookup, err)
	}
	r.validate(KeyLookup, "key %s read back with its fare, once", key.UUID)
	return nil
}

// timeTravel times the scan of t as of the bulk insert's instant, after
// the upserts and the delete: the N base trips with their first fares.
func (r *runner) timeTravel(t *hoodie.Table, instant string) error {
	return r.fareTotals(t, TimeTravel, hoodie.ScanOptions{AsOf: instant}, r.data.Base)
}

// fareTotals times a scan of t with opts as workload, counting the records
// and summing their fares, and checks both against want.
func (r *runner) fareTotals(t *hoodie.Table, workload Workload, opts hoodie.ScanOptions, want []trips.Trip) error {
	var (
		n   int64
		sum float64
	)
	if err := r.measure(workload, len(want), func() (string, error) {
		stats, err := scanTable(r.ctx, t, opts, func(batch *read.Batch) error {
			fares, err := batchColumn(batch, trips.ColFare)
			if err != nil {
				return err
			}
			for _, f := range fares.Float64s() {
				sum += f
			}
			n += int64(batch.Len())
			return nil
		})
		return scanDetail(stats), err
	}); err != nil {
		return err
	}
	if err := checkTotals(n, sum, want); err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	r.validate(workload, "%d records, fares summing to the generated %.2f", n, sum)
	return nil
}

// checkTotals checks a count of records and a sum of their fares against
// the trips want.
func checkTotals(n int64, sum float64, want []trips.Trip) error {
	wantSum := tripbench.FareSum(want)
	if n != int64(len(want)) || math.Abs(sum-wantSum) > 1e-9*math.Max(1, wantSum) {
		return fmt.Errorf("%d records with fares summing to %v, want %d summing to %v", n, sum, len(want), wantSum)
	}
	return nil
}

// scanDetail is the detail of a scan.
func scanDetail(s read.Stats) string {
	return fmt.Sprintf("files %d read %d skipped, row groups %d read %d skipped", s.FilesRead, s.FilesSkipped, s.RowGroupsRead, s.RowGroupsSkipped)
}

// scanTable scans t with opts, calling fn on each batch, and returns the
// scan's counters.
func scanTable(ctx context.Context, t *hoodie.Table, opts hoodie.ScanOptions, fn func(*read.Batch) error) (stats read.Stats, err error) {
	s, err := t.Scan(ctx, opts)
	if err != nil {
		return stats, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	for batch, err := range s.Batches() {
		if err != nil {
			return stats, err
		}
		if err := fn(batch); err != nil {
			return stats, err
		}
	}
	return s.Stats(), nil
}

// batchColumn returns the column name of batch.
func batchColumn(batch *read.Batch, name string) (*read.Vector, error) {
	i := batch.Schema().FieldIndex(name)
	if i < 0 {
		return nil, fmt.Errorf("the scan returned no column %s", name)
	}
	return batch.Column(i), nil
}

// faresByKey scans t with opts, reading uuid and fare, and returns the
// fares found by key.
func faresByKey(ctx context.Context, t *hoodie.Table, opts hoodie.ScanOptions) (map[string][]float64, read.Stats, error) {
	opts.Columns = []string{trips.ColUUID, trips.ColFare}
	found := map[string][]float64{}
	stats, err := scanTable(ctx, t, opts, func(batch *read.Batch) error {
		keys, fares := batch.Column(0), batch.Column(1).Float64s()
		for i := range batch.Len() {
			k := string(keys.Bytes(i))
			found[k] = append(found[k], fares[i])
		}
		return nil
	})
	return found, stats, err
}

// readBack returns the fares of the records of keys in the latest snapshot
// of t, by key.
func readBack(ctx context.Context, t *hoodie.Table, keys []string) (map[string][]float64, error) {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = quoteLiteral(k)
	}
	found, _, err := faresByKey(ctx, t, hoodie.ScanOptions{Where: trips.ColUUID + " IN (" + strings.Join(quoted, ", ") + ")"})
	return found, err
}

// checkFares checks that found holds exactly the keys of want, each once
// and with want's fare.
func checkFares(found map[string][]float64, want []trips.Trip) error {
	if len(found) != len(want) {
		return fmt.Errorf("read back %d of %d keys", len(found), len(want))
	}
	for _, w := range want {
		if fares := found[w.UUID]; len(fares) != 1 || fares[0] != w.Fare {
			return fmt.Errorf("key %s: fares %v, want [%v]", w.UUID, fares, w.Fare)
		}
	}
	return nil
}

// quoteLiteral quotes s as a string literal of the filter language and of
// SQL.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

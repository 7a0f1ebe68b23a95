package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// sampleSize is how many keys of a write the checks read back.
const sampleSize = 20

// input is the write input of ts.
func input(ts []trips.Trip) *write.Input {
	return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

// written is the detail of a write.
func written(res *write.Result) string {
	if res == nil {
		return ""
	}
	return fmt.Sprintf("%d files written", len(res.Files))
}

// checkWrite checks a write's counts and warnings, and that the snapshot
// after it holds rows records by the row counts of its files' footers.
func (r *runner) checkWrite(workload Workload, t *hoodie.Table, res *write.Result, inserted, updated, deleted int, rows int64) error {
	if len(res.Warnings) > 0 {
		return fmt.Errorf("%s: %w", workload, errors.Join(res.Warnings...))
	}
	if res.Inserted != int64(inserted) || res.Updated != int64(updated) || res.Deleted != int64(deleted) {
		return fmt.Errorf("%s: %d inserted, %d updated, %d deleted; want %d, %d, %d",
			workload, res.Inserted, res.Updated, res.Deleted, inserted, updated, deleted)
	}
	got, files, err := snapshotRows(r.ctx, t)
	if err != nil {
		return fmt.Errorf("%s: count the snapshot's records: %w", workload, err)
	}
	if got != rows {
		return fmt.Errorf("%s: the snapshot holds %d records, want %d", workload, got, rows)
	}
	r.validate(workload, "%d inserted, %d updated, %d deleted; the snapshot's %d files hold %d records", inserted, updated, deleted, files, rows)
	return nil
}

// snapshotRows returns the number of records the latest snapshot of t holds,
// by its files' footers, and the number of files.
func snapshotRows(ctx context.Context, t *hoodie.Table) (int64, int, error) {
	latest, err := t.FileSlices(ctx, "")
	if err != nil {
		return 0, 0, err
	}
	fsys, err := storage.NewLocalFS(t.Path())
	if err != nil {
		return 0, 0, err
	}
	var n int64
	for _, s := range latest {
		f, err := basefile.Open(ctx, fsys, s.Path)
		if err != nil {
			return 0, 0, err
		}
		n += f.NumRows()
		if err := f.Close(); err != nil {
			return 0, 0, fmt.Errorf("close %s: %w", s.Path, err)
		}
	}
	return n, len(latest), nil
}

// bulkVariant measures workload: a bulk insert of the base trips, in, with
// settings into a new table in dir that populates meta fields or not
// (hoodie.populate.meta.fields).
func (r *runner) bulkVariant(dir string, workload Workload, in *write.Input, populateMeta bool, settings write.Settings) error {
	spec := triptable.Spec()
	spec.NoMetaFields = !populateMeta
	t, err := hoodie.Create(r.ctx, dir, spec)
	if err != nil {
		return err
	}
	var res *write.Result
	if err := r.measure(workload, len(r.data.Base), func() (string, error) {
		var err error
		res, err = t.Write(r.ctx, write.OpBulkInsert, in, hoodie.WriteOptions{Settings: settings})
		return written(res), err
	}); err != nil {
		return err
	}
	return r.checkWrite(workload, t, res, len(r.data.Base), 0, 0, int64(len(r.data.Base)))
}

// parquetGo runs the baseline in dir: the base trips written by plain
// parquet-go into as many files per partition as bulk wrote.
func (r *runner) parquetGo(dir string, bulk *write.Result) error {
	perFolder := map[string]int{}
	for _, f := range bulk.Files {
		perFolder[f.Partition]++
	}
	files := map[string]int{}
	for p, folder := range r.folders {
		files[p] = perFolder[folder]
	}
	var paths []string
	if err := r.measure(ParquetGoWrite, len(r.data.Base), func() (string, error) {
		var err error
		paths, err = tripbench.WriteParquet(dir, bulk.Instant, r.data.Base, files, write.DefaultSettings().Parallelism)
		return fmt.Sprintf("%d files written", len(paths)), err
	}); err != nil {
		return err
	}
	var rows int64
	for _, p := range paths {
		n, err := tripbench.ParquetRows(p)
		if err != nil {
			return fmt.Errorf("%s: %w", ParquetGoWrite, err)
		}
		rows += n
	}
	if len(paths) != len(bulk.Files) || rows != int64(len(r.data.Base)) {
		return fmt.Errorf("%s: %d files hold %d rows, want %d files of %d rows", ParquetGoWrite, len(paths), rows, len(bulk.Files), len(r.data.Base))
	}
	r.validate(ParquetGoWrite, "%d files hold %d rows, as many files per partition as the bulk insert", len(paths), rows)
	return nil
}

// upsert times the upsert of batch into t as workload and checks that the
// table then holds rows records and, of a sample of the batch's updated and
// new keys, each once with its new fare.
func (r *runner) upsert(t *hoodie.Table, workload Workload, batch tripbench.Batch, rows int64) error {
	in := input(batch.Trips)
	var res *write.Result
	if err := r.measure(workload, len(batch.Trips), func() (string, error) {
		var err error
		res, err = t.Write(r.ctx, write.OpUpsert, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(res), err
	}); err != nil {
		return err
	}
	if err := r.checkWrite(workload, t, res, batch.Inserts(), batch.Updates, 0, rows); err != nil {
		return err
	}
	updates, inserts := batch.Trips[:batch.Updates], batch.Trips[batch.Updates:]
	sample := slices.Concat(updates[:min(sampleSize/2, len(updates))], inserts[:min(sampleSize/2, len(inserts))])
	found, err := readBack(r.ctx, t, trips.Keys(sample))
	if err != nil {
		return fmt.Errorf("%s: read back a sample: %w", workload, err)
	}
	if err := checkFares(found, sample); err != nil {
		return fmt.Errorf("%s: read back a sample: %w", workload, err)
	}
	r.validated[workload] += fmt.Sprintf("; %d sampled keys read back with their new fares", len(sample))
	return nil
}

// deleteKeys times the delete of the delete trips from t and checks that
// the table then holds rows records and none of a sample of the deleted keys.
func (r *runner) deleteKeys(t *hoodie.Table, rows int64) error {
	victims := r.data.Deletes
	in := input(victims)
	var res *write.Result
	if err := r.measure(Delete1k, len(victims), func() (string, error) {
		var err error
		res, err = t.Write(r.ctx, write.OpDelete, in, hoodie.WriteOptions{Settings: write.DefaultSettings()})
		return written(res), err
	}); err != nil {
		return err
	}
	if err := r.checkWrite(Delete1k, t, res, 0, 0, len(victims), rows); err != nil {
		return err
	}
	sample := trips.Keys(victims[:min(sampleSize, len(victims))])
	found, err := readBack(r.ctx, t, sample)
	if err != nil {
		return fmt.Errorf("%s: read back a sample: %w", Delete1k, err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%s: %d of %d sampled deleted keys are still there", Delete1k, len(found), len(sample))
	}
	r.validated[Delete1k] += fmt.Sprintf("; %d sampled deleted keys gone", len(sample))
	return nil
}

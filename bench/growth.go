package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

// GrowthKeys is how many distinct existing keys each upsert of RunGrowth
// updates.
const GrowthKeys = 1000

// growthTimed is how many of the first and of the last upserts
// GrowthReport's medians take.
const growthTimed = 10

// GrowthOptions say what RunGrowth measures and where.
type GrowthOptions struct {
	Rows    int // trips in the base table, at least MinRows
	Upserts int // upserts of GrowthKeys keys each, at least 1
	// Settings are the settings of the bulk insert and of every upsert;
	// the zero value means write.DefaultSettings (the automatic cleaner
	// and archival on). Otherwise take them from write.DefaultSettings or
	// write.ParseSettings, which fill the fields the report's bounds read.
	Settings write.Settings
	// Dir is the folder RunGrowth makes its work folder in ("": the
	// system's temporary folder); it is made if missing. The work folder
	// is removed at the end.
	Dir string
	// Progress, if not nil, receives a line per step and per upsert.
	Progress io.Writer
}

// GrowthReport is the outcome of RunGrowth: how big the table and its
// active timeline grew, against the bounds of Hoodie's first table
// services target.
type GrowthReport struct {
	Rows    int `json:"rows"`
	Upserts int `json:"upserts"`
	Keys    int `json:"keys_per_upsert"`
	// CommitsRetained and KeepMaxCommits are the settings the bounds
	// take: hoodie.cleaner.commits.retained and hoodie.keep.max.commits.
	CommitsRetained int `json:"commits_retained"`
	KeepMaxCommits  int `json:"keep_max_commits"`
	// SnapshotBytes are the bytes of the latest file slices' base files,
	// after the upserts.
	SnapshotBytes int64 `json:"snapshot_bytes"`
	// TableBytes are the bytes of every file under the table's base path
	// after the upserts: data files, .hoodie (timeline, archive, record
	// index) included.
	TableBytes int64 `json:"table_bytes"`
	// MetaBytes are the bytes of TableBytes under .hoodie, and IndexBytes
	// those of the record index among them.
	MetaBytes  int64 `json:"meta_bytes"`
	IndexBytes int64 `json:"index_bytes"`
	// BoundBytes is (CommitsRetained + 2) × SnapshotBytes, and
	// BoundRatio is TableBytes / BoundBytes: at most 1 meets the bound.
	BoundBytes int64   `json:"bound_bytes"`
	BoundRatio float64 `json:"bound_ratio"`
	// ActiveInstants are the instants of the active timeline, every action
	// and state; ActiveCommits and ActiveCleans the completed commits and
	// cleans among them, which archival bounds by KeepMaxCommits each.
	ActiveInstants int `json:"active_instants"`
	ActiveCommits  int `json:"active_commits"`
	ActiveCleans   int `json:"active_cleans"`
	// ArchivedInstants are the instants of the archived timeline.
	ArchivedInstants int `json:"archived_instants"`
	// FirstMedian and LastMedian are the median wall-clock seconds of the
	// first and of the last ten upserts (all of them, if fewer).
	FirstMedian float64 `json:"first_median_seconds"`
	LastMedian  float64 `json:"last_median_seconds"`
	// Upsert are the wall-clock seconds of each upsert, in order.
	Upsert []float64 `json:"upsert_seconds"`
	// Bounds are the bounds of the target: the table's bytes at most
	// (CommitsRetained + 2) times the snapshot's, and at most
	// KeepMaxCommits completed commits, and cleans, on the active
	// timeline.
	Bounds     []Ratio `json:"bounds"`
	GoVersion  string  `json:"go_version"`
	GOMAXPROCS int     `json:"gomaxprocs"`
}

// Check returns an error naming each of Bounds not met.
func (g *GrowthReport) Check() error {
	var errs []error
	for _, b := range g.Bounds {
		if !b.Met {
			errs = append(errs, fmt.Errorf("%s: %g, want %s", b.Name, b.Value, b.Target))
		}
	}
	return errors.Join(errs...)
}

// RunGrowth bulk-inserts opts.Rows trips into a new table in a work folder
// under opts.Dir, then upserts opts.Upserts times GrowthKeys distinct
// existing keys with opts.Settings, and reports the table's size and its
// active timeline after them. It fails on a wrong write: one that did not
// update GrowthKeys records, warned, or left the snapshot with other than
// opts.Rows records. It does not fail on a bound the report does not meet;
// GrowthReport.Check says which.
func RunGrowth(ctx context.Context, opts GrowthOptions) (*GrowthReport, error) {
	if opts.Rows < MinRows {
		return nil, fmt.Errorf("%d rows: need at least %d", opts.Rows, MinRows)
	}
	if opts.Upserts < 1 {
		return nil, fmt.Errorf("%d upserts: need at least 1", opts.Upserts)
	}
	if opts.Settings.Props == nil {
		opts.Settings = write.DefaultSettings()
	}
	work, err := workFolder(opts.Dir, "hoodie-growth-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	r := &runner{ctx: ctx, progress: opts.Progress}
	r.progressf("generating %d trips", opts.Rows)
	g := trips.NewGenerator(tripbench.Seed)
	base := g.Inserts(opts.Rows)
	t, err := hoodie.Create(ctx, filepath.Join(work, "table"), triptable.Spec())
	if err != nil {
		return nil, err
	}
	wopts := hoodie.WriteOptions{Settings: opts.Settings}
	r.progressf("bulk-inserting %d trips", opts.Rows)
	if _, err := t.Write(ctx, write.OpBulkInsert, input(base), wopts); err != nil {
		return nil, fmt.Errorf("bulk insert: %w", err)
	}
	rep := &GrowthReport{
		Rows: opts.Rows, Upserts: opts.Upserts, Keys: GrowthKeys,
		CommitsRetained: opts.Settings.Cleaner.CommitsRetained, KeepMaxCommits: opts.Settings.Archive.MaxCommits,
		GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	for i := range opts.Upserts {
		in := input(g.Updates(base, GrowthKeys))
		start := time.Now()
		res, err := t.Write(ctx, write.OpUpsert, in, wopts)
		took := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("upsert %d: %w", i+1, err)
		}
		switch {
		case len(res.Warnings) > 0:
			return nil, fmt.Errorf("upsert %d: %w", i+1, errors.Join(res.Warnings...))
		case res.Updated != GrowthKeys || res.Inserted != 0:
			return nil, fmt.Errorf("upsert %d: %d updated, %d inserted; want %d, 0", i+1, res.Updated, res.Inserted, GrowthKeys)
		}
		rep.Upsert = append(rep.Upsert, took.Seconds())
		detail := written(res)
		if res.Clean != "" {
			detail += "; clean " + res.Clean
		}
		r.progressf("  upsert %d of %d  %8.3f s  %s", i+1, opts.Upserts, took.Seconds(), detail)
	}
	n, _, err := snapshotRows(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("count the snapshot's records: %w", err)
	}
	if n != int64(opts.Rows) {
		return nil, fmt.Errorf("the snapshot holds %d records after the upserts, want %d", n, opts.Rows)
	}
	if err := rep.measure(ctx, t); err != nil {
		return nil, err
	}
	rep.FirstMedian = median(rep.Upsert[:min(growthTimed, len(rep.Upsert))])
	rep.LastMedian = median(rep.Upsert[max(0, len(rep.Upsert)-growthTimed):])
	return rep, nil
}

// measure fills the report's sizes and counts from t.
func (g *GrowthReport) measure(ctx context.Context, t *hoodie.Table) error {
	latest, err := t.FileSlices(ctx, "")
	if err != nil {
		return fmt.Errorf("list the latest file slices: %w", err)
	}
	for _, s := range latest {
		g.SnapshotBytes += s.Size
	}
	for _, b := range []struct {
		n   *int64
		dir string
	}{{&g.TableBytes, ""}, {&g.MetaBytes, storage.MetaFolder}, {&g.IndexBytes, hoodie.DefaultIndexFolder}} {
		if *b.n, err = treeBytes(filepath.Join(t.Path(), filepath.FromSlash(b.dir))); err != nil {
			return err
		}
	}
	g.BoundBytes = int64(g.CommitsRetained+2) * g.SnapshotBytes
	if g.BoundBytes > 0 {
		g.BoundRatio = float64(g.TableBytes) / float64(g.BoundBytes)
	}
	active, err := t.Instants(ctx)
	if err != nil {
		return fmt.Errorf("list the active timeline: %w", err)
	}
	g.ActiveInstants = len(active)
	for _, in := range active {
		if in.State != timeline.StateCompleted {
			continue
		}
		switch in.Action {
		case timeline.ActionCommit, timeline.ActionReplaceCommit:
			g.ActiveCommits++
		case timeline.ActionClean:
			g.ActiveCleans++
		}
	}
	archived, err := t.ArchivedInstants(ctx)
	if err != nil {
		return fmt.Errorf("list the archived timeline: %w", err)
	}
	g.ArchivedInstants = len(archived)
	limit := float64(g.KeepMaxCommits)
	g.Bounds = []Ratio{
		ratio("table bytes / ((commits retained + 2) × snapshot bytes)", g.BoundRatio, 1, false),
		ratio("completed commits on the active timeline", float64(g.ActiveCommits), limit, false),
		ratio("completed cleans on the active timeline", float64(g.ActiveCleans), limit, false),
	}
	return nil
}

// treeBytes returns the bytes of the regular files under dir.
func treeBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sum the bytes under %s: %w", dir, err)
	}
	return n, nil
}

// median returns the median of xs, which holds at least one value.
func median(xs []float64) float64 {
	sorted := slices.Sorted(slices.Values(xs))
	return (sorted[(len(sorted)-1)/2] + sorted[len(sorted)/2]) / 2
}

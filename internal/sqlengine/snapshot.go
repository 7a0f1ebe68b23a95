package sqlengine

import (
	"context"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// CreateSnapshotView makes name a view over the snapshot of the table
// stored in the local folder fsys, whose configuration is cfg, as of
// instant ("" for the latest snapshot): the view `hoodiectl query` reads,
// with the five meta columns first and the values a scan gives (see
// TableFiles). A snapshot with no files has the columns of the table's
// schema as of the snapshot, or of its current schema for a snapshot before
// the first write, and no rows.
func (e *Engine) CreateSnapshotView(ctx context.Context, name string, fsys *storage.LocalFS, cfg *config.Table, instant string) error {
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		return err
	}
	view, err := read.LoadView(ctx, fsys, tl, instant)
	if err != nil {
		return err
	}
	slices := view.LatestSlices()
	var schema *basefile.Schema
	if len(slices) == 0 || Computes(cfg) {
		if schema, err = read.SnapshotSchema(ctx, cfg, tl, view); err != nil {
			return err
		}
	}
	return e.CreateView(ctx, name, TableFiles(fsys.Root(), cfg, schema, slices), schema)
}

package read

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TableSchema is the table's schema as of the last completed write of tl,
// without meta fields: the writer's schema recorded in the latest commit
// metadata that has one, or else the schema the table was created with
// (hoodie.table.create.schema), or nil when neither exists. Pass a view's
// Timeline for the schema as of the view's instant.
func TableSchema(ctx context.Context, cfg *storage.TableConfig, tl *timeline.Timeline) (*storage.Schema, error) {
	commits := tl.CompletedCommits().Instants()
	for i := len(commits) - 1; i >= 0; i-- {
		meta, err := tl.ReadCommitMetadata(ctx, commits[i])
		if err != nil {
			return nil, err
		}
		if s := meta.Schema(); s != "" {
			schema, err := storage.ParseSchema([]byte(s))
			if err != nil {
				return nil, fmt.Errorf("schema of commit %s: %w", commits[i].Time, err)
			}
			return schema.WithoutMetaFields(), nil
		}
	}
	if cfg.CreateSchema == "" {
		return nil, nil
	}
	schema, err := storage.ParseSchema([]byte(cfg.CreateSchema))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", storage.KeyCreateSchema, err)
	}
	return schema.WithoutMetaFields(), nil
}

// SnapshotSchema is the schema of the records of view's snapshot, without
// meta fields: the table schema as of the view's instant, or, for a view
// before the first write, the table's current schema (TableSchema of tl,
// the active timeline); nil when the table has no schema at all. Every
// record a scan of view returns, whatever the schema of the file it comes
// from, has this schema's columns and types.
func SnapshotSchema(ctx context.Context, cfg *storage.TableConfig, tl *timeline.Timeline, view *View) (*storage.Schema, error) {
	schema, err := TableSchema(ctx, cfg, view.Timeline())
	if err == nil && schema == nil {
		schema, err = TableSchema(ctx, cfg, tl)
	}
	return schema, err
}

// readerSchema is the schema a scan of view reads: SnapshotSchema with the
// meta fields first. A table without any schema yet has only the meta
// fields.
func readerSchema(ctx context.Context, cfg *storage.TableConfig, tl *timeline.Timeline, view *View) (*storage.Schema, error) {
	schema, err := SnapshotSchema(ctx, cfg, tl, view)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		schema = &storage.Schema{Name: cfg.Name + "_record", Namespace: "hoodie." + cfg.Name}
	}
	return schema.WithMetaFields(), nil
}

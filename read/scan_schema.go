package read

import (
	"context"
	"fmt"
	"slices"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TableSchema is the table's schema as of the last completed write of tl,
// without meta fields: the writer's schema recorded in the latest commit
// metadata that has one, or else the schema the table was created with
// (hoodie.table.create.schema), or nil when neither exists. Pass a view's
// Timeline for the schema as of the view's instant.
func TableSchema(ctx context.Context, cfg *config.Table, tl *timeline.Timeline) (*basefile.Schema, error) {
	commits := tl.CompletedCommits().Instants()
	for i := len(commits) - 1; i >= 0; i-- {
		meta, err := tl.ReadCommitMetadata(ctx, commits[i])
		if err != nil {
			return nil, err
		}
		if s := meta.Schema(); s != "" {
			schema, err := basefile.ParseSchema([]byte(s))
			if err != nil {
				return nil, fmt.Errorf("schema of commit %s: %w", commits[i].Time, err)
			}
			return withPartitionColumns(cfg, schema.WithoutMetaFields())
		}
	}
	if cfg.CreateSchema == "" {
		return nil, nil
	}
	schema, err := basefile.ParseSchema([]byte(cfg.CreateSchema))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.KeyCreateSchema, err)
	}
	return schema.WithoutMetaFields(), nil
}

// withPartitionColumns adds to schema the partition columns it lacks in a
// table with hoodie.datasource.write.drop.partition.columns=true: Spark
// commits such a table's schema without them, and reads them from the
// partition folders, as a scan does. A column takes its type from the
// schema the table was created with when that has it, else it is a
// nullable string, as Spark reads it; it comes last, where Spark puts
// partition columns.
func withPartitionColumns(cfg *config.Table, schema *basefile.Schema) (*basefile.Schema, error) {
	if !cfg.DropPartitionColumns {
		return schema, nil
	}
	var create *basefile.Schema
	for _, name := range cfg.PartitionFields {
		if schema.FieldIndex(name) >= 0 {
			continue
		}
		if create == nil && cfg.CreateSchema != "" {
			var err error
			if create, err = basefile.ParseSchema([]byte(cfg.CreateSchema)); err != nil {
				return nil, fmt.Errorf("%s: %w", config.KeyCreateSchema, err)
			}
		}
		field := basefile.Field{Name: name, Type: basefile.Nullable(basefile.Primitive(basefile.KindString))}
		if create != nil {
			if i := create.FieldIndex(name); i >= 0 {
				field = create.Fields[i]
			}
		}
		fields := append(slices.Clip(schema.Fields), field)
		schema = &basefile.Schema{Name: schema.Name, Namespace: schema.Namespace, Doc: schema.Doc, Fields: fields}
	}
	return schema, nil
}

// SnapshotSchema is the schema of the records of view's snapshot, without
// meta fields: the table schema as of the view's instant, or, for a view
// before the first write, the table's current schema (TableSchema of tl,
// the active timeline); nil when the table has no schema at all. Every
// record a scan of view returns, whatever the schema of the file it comes
// from, has this schema's columns and types.
func SnapshotSchema(ctx context.Context, cfg *config.Table, tl *timeline.Timeline, view *View) (*basefile.Schema, error) {
	schema, err := TableSchema(ctx, cfg, view.Timeline())
	if err == nil && schema == nil {
		schema, err = TableSchema(ctx, cfg, tl)
	}
	return schema, err
}

// readerSchema is the schema a scan of view reads: SnapshotSchema with the
// meta fields first. A table without any schema yet has only the meta
// fields.
func readerSchema(ctx context.Context, cfg *config.Table, tl *timeline.Timeline, view *View) (*basefile.Schema, error) {
	schema, err := SnapshotSchema(ctx, cfg, tl, view)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		schema = &basefile.Schema{Name: cfg.Name + "_record", Namespace: "hoodie." + cfg.Name}
	}
	return schema.WithMetaFields(), nil
}

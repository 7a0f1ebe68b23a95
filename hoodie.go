// Package hoodie is the embedding API of Hoodie, a copy-on-write lakehouse
// table engine whose tables are Apache Hudi tables (table version 6): open or
// create a table on a local folder, write records to it, and read any of its
// snapshots.
//
// It is a thin face over the packages that do the work: storage (files and
// formats), timeline (the commit log), index (the record index), write and
// read.
//
//	t, err := hoodie.Open(ctx, "/data/trips")
//	res, err := t.Write(ctx, write.OpUpsert, input, write.DefaultSettings())
//	fmt.Println("committed", res.Instant)
package hoodie

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

// DefaultIndexFolder is where a local table keeps its record index, relative
// to the base path.
const DefaultIndexFolder = storage.MetaFolder + "/.index"

// Table is a Hoodie table on a local folder. It is safe for concurrent use;
// writes take the table's writer lock, so writers in several processes take
// turns, and reads never wait.
type Table struct {
	path     string
	fsys     *storage.LocalFS
	indexDir string
}

// Option tunes how a table is opened.
type Option func(*Table)

// WithIndexDir keeps the record index in dir instead of DefaultIndexFolder.
func WithIndexDir(dir string) Option {
	return func(t *Table) { t.indexDir = dir }
}

func newTable(path string, opts []Option) (*Table, error) {
	fsys, err := storage.NewLocalFS(path)
	if err != nil {
		return nil, err
	}
	t := &Table{path: fsys.Root(), fsys: fsys, indexDir: filepath.Join(fsys.Root(), filepath.FromSlash(DefaultIndexFolder))}
	for _, o := range opts {
		o(t)
	}
	return t, nil
}

// Open opens the table at path, checking its hoodie.properties.
func Open(ctx context.Context, path string, opts ...Option) (*Table, error) {
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := t.Config(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Create creates an empty table at path with cfg (see
// storage.NewTableConfig). It fails if a table exists there. The table's
// instant times are UTC unless cfg.TimelineTimezone says otherwise (see
// storage.CreateTable).
func Create(ctx context.Context, path string, cfg *storage.TableConfig, opts ...Option) (*Table, error) {
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	if err := storage.CreateTable(ctx, t.fsys, cfg, time.Now()); err != nil {
		return nil, fmt.Errorf("create table at %s: %w", path, err)
	}
	return t, nil
}

// Path is the table's absolute base path.
func (t *Table) Path() string { return t.path }

// FS is the table's file system.
func (t *Table) FS() storage.FS { return t.fsys }

// IndexDir is the folder of the table's record index.
func (t *Table) IndexDir() string { return t.indexDir }

// Config reads hoodie.properties.
func (t *Table) Config(ctx context.Context) (*storage.TableConfig, error) {
	cfg, err := storage.LoadTableConfig(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return cfg, nil
}

// Timeline loads the table's active timeline.
func (t *Table) Timeline(ctx context.Context) (*timeline.Timeline, error) {
	tl, err := timeline.Load(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return tl, nil
}

// Schema is the table's current schema without meta fields, or nil for a
// table nothing was written to yet.
func (t *Table) Schema(ctx context.Context) (*storage.Schema, error) {
	cfg, tl, err := t.state(ctx)
	if err != nil {
		return nil, err
	}
	return read.TableSchema(ctx, cfg, tl)
}

// state reads hoodie.properties and loads the active timeline.
func (t *Table) state(ctx context.Context) (*storage.TableConfig, *timeline.Timeline, error) {
	cfg, err := t.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	tl, err := t.Timeline(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cfg, tl, nil
}

// View is the table's file-system view as of an instant ("" for the latest).
func (t *Table) View(ctx context.Context, asOf string) (*read.View, error) {
	tl, err := t.Timeline(ctx)
	if err != nil {
		return nil, err
	}
	return read.LoadView(ctx, t.fsys, tl, asOf)
}

// Writer returns a writer of the table. opts.IndexDir and opts.TableID are
// filled in from the table.
func (t *Table) Writer(opts write.Options) *write.Writer {
	opts.IndexDir, opts.TableID = t.indexDir, t.path
	return write.NewWriter(t.fsys, opts)
}

// Write applies op with the records of in as one commit; see write.Writer.
func (t *Table) Write(ctx context.Context, op write.Operation, in *write.Input, settings write.Settings) (*write.Result, error) {
	return t.Writer(write.Options{Settings: settings}).Write(ctx, op, in)
}

// WithIndex runs fn with the table's record index open and the timeline
// loaded, holding the writer lock: the index belongs to the writer. The
// index is as the last write left it; write.SyncIndex catches it up.
func (t *Table) WithIndex(ctx context.Context, fn func(idx *index.Index, tl *timeline.Timeline) error) error {
	return t.asWriter(ctx, func(opts index.Options, tl *timeline.Timeline) (err error) {
		idx, err := index.Open(ctx, t.indexDir, opts)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, idx.Close()) }()
		return fn(idx, tl)
	})
}

// RebuildIndex builds the record index anew from the latest snapshot,
// holding the writer lock. It never opens the old index, so it repairs
// any: the new index is built beside it and put in its place (see
// index.Recreate).
func (t *Table) RebuildIndex(ctx context.Context) error {
	return t.asWriter(ctx, func(opts index.Options, tl *timeline.Timeline) error {
		return write.RecreateIndex(ctx, t.fsys, tl, t.indexDir, opts)
	})
}

// asWriter runs fn holding the writer lock, with the options of the
// table's record index and the timeline loaded.
func (t *Table) asWriter(ctx context.Context, fn func(opts index.Options, tl *timeline.Timeline) error) (err error) {
	unlock, err := storage.Lock(ctx, t.fsys, storage.LockFile, storage.LockOptions{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	cfg, tl, err := t.state(ctx)
	if err != nil {
		return err
	}
	return fn(index.Options{TableName: cfg.Name, TableID: t.path}, tl)
}

// VerifyIndex compares the record index, caught up to the timeline, with
// the keys of the latest snapshot.
func (t *Table) VerifyIndex(ctx context.Context) (index.Report, error) {
	var report index.Report
	err := t.WithIndex(ctx, func(idx *index.Index, tl *timeline.Timeline) error {
		if err := write.SyncIndex(ctx, t.fsys, tl, idx); err != nil {
			return err
		}
		var err error
		report, err = write.VerifyIndex(ctx, t.fsys, tl, idx)
		return err
	})
	return report, err
}

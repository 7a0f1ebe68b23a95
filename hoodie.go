package hoodie

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

// DefaultIndexFolder is where a table on the local file system keeps its
// record index, relative to the base path.
const DefaultIndexFolder = storage.MetaFolder + "/.index"

// Table is a Hoodie table. It is safe for concurrent use; writes take the
// table's writer lock, so writers in several processes take turns, and
// reads never wait.
type Table struct {
	path     string
	fsys     storage.FS
	indexDir string
}

// Option tunes how Open and Create reach a table.
type Option func(*Table)

// WithFS puts the table on fsys, whose root is the table's base path,
// instead of the local folder path. Unless fsys is a *storage.LocalFS, path
// then only names the table, in errors and to its record index, and the
// record index, which is a local folder, must be given with WithIndexDir.
func WithFS(fsys storage.FS) Option {
	return func(t *Table) { t.fsys = fsys }
}

// WithIndexDir keeps the record index in the local folder dir instead of
// DefaultIndexFolder.
func WithIndexDir(dir string) Option {
	return func(t *Table) { t.indexDir = dir }
}

func newTable(path string, opts []Option) (*Table, error) {
	t := &Table{path: path}
	for _, o := range opts {
		o(t)
	}
	if t.fsys == nil {
		fsys, err := storage.NewLocalFS(path)
		if err != nil {
			return nil, err
		}
		t.fsys = fsys
	}
	local, isLocal := t.fsys.(*storage.LocalFS)
	if isLocal {
		// One id for the folder, however it is reached: the index tells
		// tables apart by it.
		t.path = local.Root()
	}
	if t.indexDir == "" {
		if !isLocal {
			return nil, fmt.Errorf("table %s: a table off the local file system needs WithIndexDir: the record index is a local folder", path)
		}
		t.indexDir = filepath.Join(local.Root(), filepath.FromSlash(DefaultIndexFolder))
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

// TableSpec describes a new copy-on-write table. Name and RecordKey are
// required.
type TableSpec struct {
	// Name is the table name (hoodie.table.name).
	Name string
	// RecordKey are the record key columns: one, or several for Hudi's
	// complex key "c1:v1,c2:v2".
	RecordKey []string
	// Precombine is the column whose greater value wins between two
	// versions of a record; "" for none.
	Precombine string
	// PartitionBy are the partition columns; none for a non-partitioned
	// table.
	PartitionBy []string
	// HiveStyle names partition folders "col=value" instead of "value".
	HiveStyle bool
	// MergeMode is config.MergeEventTime or config.MergeCommitTime; ""
	// means event time with a Precombine column, commit time without.
	MergeMode config.MergeMode
	// Schema, if not nil, is the table's schema (hoodie.table.create.schema),
	// whose types the writes then follow. Nil lets the first write infer it.
	Schema *basefile.Schema
	// NoMetaFields writes base files without Hudi's five meta columns
	// (hoodie.populate.meta.fields=false).
	NoMetaFields bool
	// TimestampKeyGen, if not empty, gives the table Hudi's timestamp-based
	// key generator with these hoodie.keygen.timebased.* settings (see
	// write.TimestampKeys), kept in hoodie.properties. It takes one record
	// key column and one partition column.
	TimestampKeyGen map[string]string
}

// SpecError is the error of Check and Create for a TableSpec that
// describes no valid table. Create makes nothing then.
type SpecError struct {
	// Schema reports that Schema is at fault: it does not fit the table's
	// columns. Otherwise the names and columns are (a missing name or
	// record key, a column named twice...).
	Schema bool
	// Err says what is wrong.
	Err error
}

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// CreateError is Create's error: why it made no table at Path. Its Err is
// a *SpecError for a bad TableSpec; otherwise laying the table out failed:
// a table is there or encloses Path (config.ErrTableExists,
// config.ErrInsideTable), or an I/O error.
type CreateError struct {
	Path string
	Err  error
}

func (e *CreateError) Error() string { return "create table at " + e.Path + ": " + e.Err.Error() }
func (e *CreateError) Unwrap() error { return e.Err }

// Check reports whether spec describes a valid table, as Create checks it
// before it makes anything; its error is a *SpecError.
func (spec TableSpec) Check() error {
	_, err := spec.config()
	return err
}

// config is the table configuration spec describes; its error is a
// *SpecError.
func (spec TableSpec) config() (*config.Table, error) {
	cfg, err := config.NewTable(spec.Name, spec.RecordKey, spec.Precombine, spec.PartitionBy, spec.HiveStyle, spec.MergeMode)
	if err != nil {
		return nil, &SpecError{Err: err}
	}
	cfg.PopulateMetaFields = !spec.NoMetaFields
	if spec.Schema != nil {
		schema := spec.Schema.WithoutMetaFields()
		if err := write.CheckTableSchema(cfg, schema); err != nil {
			return nil, &SpecError{Schema: true, Err: err}
		}
		data, err := schema.MarshalJSON()
		if err != nil {
			return nil, &SpecError{Schema: true, Err: err}
		}
		cfg.CreateSchema = string(data)
	}
	if len(spec.TimestampKeyGen) > 0 {
		for _, k := range slices.Sorted(maps.Keys(spec.TimestampKeyGen)) {
			if !slices.Contains(write.TimestampKeys, k) {
				return nil, &SpecError{Err: fmt.Errorf("%s is not a setting of the timestamp-based key generator (its settings: %s)", k, strings.Join(write.TimestampKeys, ", "))}
			}
			cfg.Extra.Set(k, spec.TimestampKeyGen[k])
		}
		cfg.KeyGeneratorClass = config.TimestampBasedKeyGenerator
		if err := write.CheckTimestampTable(cfg); err != nil {
			return nil, &SpecError{Err: err}
		}
	}
	return cfg, nil
}

// Create creates an empty table at path as spec describes. It fails, and
// creates nothing, if a table exists there or spec is not a valid table;
// its error is then a *CreateError. The table's instant times are in UTC
// (hoodie.table.timeline.timezone).
func Create(ctx context.Context, path string, spec TableSpec, opts ...Option) (*Table, error) {
	cfg, err := spec.config()
	if err != nil {
		return nil, &CreateError{Path: path, Err: err}
	}
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	if err := config.CreateTable(ctx, t.fsys, cfg, time.Now()); err != nil {
		return nil, &CreateError{Path: path, Err: err}
	}
	return t, nil
}

// Path is the table's absolute base path on the local file system, or else
// the path given to Open or Create.
func (t *Table) Path() string { return t.path }

// Config reads hoodie.properties.
func (t *Table) Config(ctx context.Context) (*config.Table, error) {
	cfg, err := config.Load(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return cfg, nil
}

// timeline loads the table's active timeline.
func (t *Table) timeline(ctx context.Context) (*timeline.Timeline, error) {
	tl, err := timeline.Load(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return tl, nil
}

// Instants lists the instants of the table's active timeline, oldest
// first, each in its latest state: the commits, and the other actions of
// other writers (rollbacks, cleans, ...), completed, inflight or requested.
// An instant time is what ScanOptions.AsOf and Begin take.
func (t *Table) Instants(ctx context.Context) ([]timeline.Instant, error) {
	tl, err := t.timeline(ctx)
	if err != nil {
		return nil, err
	}
	return tl.Instants(), nil
}

// Schema is the table's current schema without meta fields, or nil for a
// table nothing was written to yet.
func (t *Table) Schema(ctx context.Context) (*basefile.Schema, error) {
	cfg, tl, err := t.state(ctx)
	if err != nil {
		return nil, err
	}
	return read.TableSchema(ctx, cfg, tl)
}

// state reads hoodie.properties and loads the active timeline.
func (t *Table) state(ctx context.Context) (*config.Table, *timeline.Timeline, error) {
	cfg, err := t.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	tl, err := t.timeline(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cfg, tl, nil
}

// FileSlices returns the newest base file of each file group of the
// snapshot as of an instant ("" for the latest), sorted by partition and
// file id. Their paths are relative to the base path.
func (t *Table) FileSlices(ctx context.Context, asOf string) ([]read.FileSlice, error) {
	tl, err := t.timeline(ctx)
	if err != nil {
		return nil, err
	}
	view, err := read.LoadView(ctx, t.fsys, tl, asOf)
	if err != nil {
		return nil, err
	}
	return view.LatestSlices(), nil
}

// WriteOptions tune a write. The zero value writes with
// write.DefaultSettings.
type WriteOptions struct {
	// Settings are the write settings (see write.ParseSettings); the zero
	// value means write.DefaultSettings.
	Settings write.Settings
	// Hook, if not nil, runs before the commit and may refuse it (see
	// validate.FromSettings).
	Hook write.PreCommitHook
	// LockWaiting, if not nil, is called once when the write has waited a
	// second for the table's writer lock, with its holder (nil when
	// unknown).
	LockWaiting func(holder *storage.LockHolder)
	// Notify, if not nil, receives what the write repaired on its way
	// without failing, such as a damaged record index it rebuilt.
	Notify func(error)
	// Progress, if not nil, is called as each base file is written, with
	// the files done and the files planned, from several goroutines, one
	// call at a time.
	Progress func(done, total int)
}

// Write applies op to the records of in as one commit, or commits nothing
// and returns an error. An error wrapping write.ErrRefused is a write the
// table's rules or opts.Hook refused. See write.Writer.
func (t *Table) Write(ctx context.Context, op write.Operation, in *write.Input, opts WriteOptions) (*write.Result, error) {
	return t.writer(opts).Write(ctx, op, in)
}

// writer returns a writer of the table with opts.
func (t *Table) writer(opts WriteOptions) *write.Writer {
	return write.NewWriter(t.fsys, write.Options{
		Settings:    opts.Settings,
		IndexDir:    t.indexDir,
		TableID:     t.path,
		Hook:        opts.Hook,
		LockWaiting: opts.LockWaiting,
		Notify:      opts.Notify,
		Progress:    opts.Progress,
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

// VerifyIndex catches the record index up to the timeline, holding the
// writer lock, and compares it with the keys of the latest snapshot. An
// index whose files do not read back fails with an error wrapping
// index.ErrBroken; RebuildIndex repairs it.
func (t *Table) VerifyIndex(ctx context.Context) (index.Report, error) {
	var report index.Report
	err := t.asWriter(ctx, func(opts index.Options, tl *timeline.Timeline) (err error) {
		idx, err := index.Open(ctx, t.indexDir, opts)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, idx.Close()) }()
		if err := write.SyncIndex(ctx, t.fsys, tl, idx); err != nil {
			return err
		}
		report, err = write.VerifyIndex(ctx, t.fsys, tl, idx)
		return err
	})
	return report, err
}

// asWriter runs fn holding the writer lock, with the options of the
// table's record index and the timeline loaded. A table Hoodie does not
// write (table version 8) is refused before the lock is taken: the record
// index serves writes only.
func (t *Table) asWriter(ctx context.Context, fn func(opts index.Options, tl *timeline.Timeline) error) (err error) {
	if err := write.CheckTableVersion(ctx, t.fsys); err != nil {
		return err
	}
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

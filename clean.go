package hoodie

import (
	"context"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// ServiceOptions tune a table service run outside a write: the cleaner,
// savepoints, rollback and restore. The zero value runs with
// write.DefaultSettings.
type ServiceOptions struct {
	// Settings are the hoodie.* settings (see write.ParseSettings): the
	// hoodie.clean.* and hoodie.cleaner.* keys say what the cleaner keeps.
	Settings write.Settings
	// LockWaiting, if not nil, is called once when the service has waited
	// a second for the table's writer lock, with its holder (nil when
	// unknown).
	LockWaiting func(holder *storage.LockHolder)
}

// serviceWriter is the writer that runs the table's services with opts.
func (t *Table) serviceWriter(opts ServiceOptions) *write.Writer {
	return write.NewWriter(t.fsys, write.Options{Settings: opts.Settings, IndexDir: t.indexDir, TableID: t.path, LockWaiting: opts.LockWaiting})
}

// Clean runs the cleaner now, as `hoodiectl clean` does: it completes the
// cleans a crash left pending, then plans and runs a new clean when the
// trigger and the policy of opts.Settings find files to delete. The
// result's Instant is "" when there was nothing to clean. See
// write.Writer.Clean.
func (t *Table) Clean(ctx context.Context, opts ServiceOptions) (*write.CleanResult, error) {
	return t.serviceWriter(opts).Clean(ctx)
}

// Savepoint savepoints the completed commit of instant time instant, so
// that the cleaner keeps every file its snapshot reads, and returns the
// savepoint's instant time (the commit's). See write.Writer.Savepoint.
func (t *Table) Savepoint(ctx context.Context, instant, comment string, opts ServiceOptions) (string, error) {
	in, err := t.serviceWriter(opts).Savepoint(ctx, instant, comment)
	return in.Time, err
}

// DeleteSavepoint removes the savepoint of instant time instant; it fails
// with an error wrapping write.ErrNoSuchSavepoint when there is none.
func (t *Table) DeleteSavepoint(ctx context.Context, instant string, opts ServiceOptions) error {
	return t.serviceWriter(opts).DeleteSavepoint(ctx, instant)
}

// Savepoints lists the table's savepoints, oldest first.
func (t *Table) Savepoints(ctx context.Context) ([]write.Savepoint, error) {
	return write.Savepoints(ctx, t.fsys)
}

package hoodie

import (
	"context"

	"github.com/hoodie-dev/hoodie/write"
)

// Rollback undoes the table's latest write, the completed commit or
// replacecommit at instant, with a rollback instant as Hudi writes it, and
// brings the record index back to the table (see write.Writer.Rollback).
// A write that is not the latest, or that a savepoint keeps, is refused
// with an error wrapping write.ErrRefused, and nothing changes.
func (t *Table) Rollback(ctx context.Context, instant string, opts ServiceOptions) (*write.RollbackResult, error) {
	return t.serviceWriter(opts).Rollback(ctx, instant)
}

// Restore takes the table back to the savepoint at instant, rolling back
// every later write, with a restore instant as Hudi writes it (see
// write.Writer.Restore). An instant that is not a savepoint is refused
// with an error wrapping write.ErrRefused, and nothing changes.
func (t *Table) Restore(ctx context.Context, instant string, opts ServiceOptions) (*write.RestoreResult, error) {
	return t.serviceWriter(opts).Restore(ctx, instant)
}

package hoodie

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/timeline/archive"
	"github.com/hoodie-dev/hoodie/write"
)

// ArchiveOptions tune an archival. The zero value archives with Hudi's
// defaults (hoodie.keep.min.commits 20, hoodie.keep.max.commits 30).
type ArchiveOptions struct {
	// Settings are the write settings whose archival settings apply
	// (write.Settings.Archive); the zero value means write.DefaultSettings.
	Settings write.Settings
	// LockWaiting, if not nil, is called once when the archival has waited
	// a second for the table's writer lock, with its holder (nil when
	// unknown).
	LockWaiting func(holder *storage.LockHolder)
}

// Archive moves the instants Hudi's archiver would archive from the active
// timeline to the archived timeline (.hoodie/archived), holding the
// writer lock. A write archives after its commit by default
// (hoodie.archive.automatic); Archive runs it on its own. See
// write.Writer.Archive for what it archives and what it keeps.
func (t *Table) Archive(ctx context.Context, opts ArchiveOptions) (*write.ArchiveResult, error) {
	w := write.NewWriter(t.fsys, write.Options{
		Settings:    opts.Settings,
		IndexDir:    t.indexDir,
		TableID:     t.path,
		LockWaiting: opts.LockWaiting,
	})
	return w.Archive(ctx)
}

// TimelineInstant is an instant of the table's whole timeline.
type TimelineInstant = archive.Listed

// AllInstants lists the instants of the archived and the active timeline
// together, in timeline order, each once and marked with where it is.
func (t *Table) AllInstants(ctx context.Context) ([]TimelineInstant, error) {
	tl, err := t.timeline(ctx)
	if err != nil {
		return nil, err
	}
	arch, err := archive.Load(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return archive.Merged(tl, arch), nil
}

// ArchivedInstants lists the instants of the archived timeline, each once
// in the latest state archived, in timeline order.
func (t *Table) ArchivedInstants(ctx context.Context) ([]timeline.Instant, error) {
	arch, err := archive.Load(ctx, t.fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	return arch.Instants(), nil
}

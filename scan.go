package hoodie

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// ScanOptions choose the records a scan returns. The zero value scans
// every column of the latest snapshot. read.Options tells the forms of
// instants, column names and filters. Record order is not specified.
// NoIndex gives the same records as the record index would: it only
// changes how the files holding the keys that Where pins are found.
type ScanOptions struct {
	AsOf        string   // read the table as of this instant (time travel)
	Begin, End  string   // read the records committed in (Begin, End]; End defaults to the latest commit (table version 8: of the commits completed in [Begin, End])
	Columns     []string // the columns returned, in order; nil: the meta columns, then all
	Where       string   // keep the records this filter is true for, such as "fare > 10 AND city = 'sf'"
	BatchSize   int      // the most records in a batch; 0: read.DefaultBatchSize
	Parallelism int      // how many files are read at once; 0: one per CPU
	NoIndex     bool     // prune by the files' footers alone, never asking the record index
}

// Scan is an open scan of one snapshot of a table. Range over Batches or
// Rows once, and Close it when done. A Scan is not safe for concurrent use.
type Scan struct {
	ctx  context.Context
	scan *read.Scan
}

// Scan opens a scan of the table. ctx bounds the whole scan, files read in
// the background included. An unknown column is a *read.UnknownColumnError,
// a filter that does not parse a *read.SyntaxError.
//
// Unless opts.NoIndex is set, a filter that pins record keys (uuid = 'k',
// uuid IN (...)) is answered from the record index when the index is idle
// and at the snapshot's instant: only the file groups holding the keys are
// opened. Otherwise the scan prunes by the files' footers; the result is
// the same.
func (t *Table) Scan(ctx context.Context, opts ScanOptions) (*Scan, error) {
	cfg, tl, err := t.state(ctx)
	if err != nil {
		return nil, err
	}
	ro := read.Options{
		AsOf:        opts.AsOf,
		Begin:       opts.Begin,
		End:         opts.End,
		Columns:     opts.Columns,
		Where:       opts.Where,
		BatchSize:   opts.BatchSize,
		Parallelism: opts.Parallelism,
	}
	if !opts.NoIndex {
		ro.Locator = &indexLocator{table: t, name: cfg.Name}
	}
	s, err := read.NewScan(ctx, t.fsys, cfg, tl, ro)
	if err != nil {
		return nil, err
	}
	return &Scan{ctx: ctx, scan: s}, nil
}

// Schema is the schema of the records returned: the columns asked for, in
// order.
func (s *Scan) Schema() *basefile.Schema { return s.scan.Schema() }

// Stats counts what the scan has read and what its filter let it skip.
func (s *Scan) Stats() read.Stats { return s.scan.Stats() }

// Batches yields the records in batches of typed column vectors. A batch is
// valid until the loop asks for the next. A failure is yielded once, with a
// nil batch, and ends the sequence; so does the end of the loop, which
// closes the scan.
func (s *Scan) Batches() iter.Seq2[*read.Batch, error] {
	return func(yield func(*read.Batch, error) bool) {
		defer s.scan.Close()
		for {
			b, err := s.scan.NextBatch(s.ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(b, nil) {
				return
			}
		}
	}
}

// Rows yields the records one at a time, each a row of the value model
// with one value per field of Schema. It ends as Batches does.
func (s *Scan) Rows() iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for b, err := range s.Batches() {
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range b.Len() {
				if !yield(b.Row(i), nil) {
					return
				}
			}
		}
	}
}

// Close stops the scan and releases the files being read. It may be
// called more than once.
func (s *Scan) Close() error { return s.scan.Close() }

// indexLocator answers a scan's key lookups from the table's record index.
// The index belongs to the writer, and a reader must never wait for one:
// the locator takes the writer lock only if it is free, opens the index
// read-only, and holds both for the lookup alone (a writer that comes
// meanwhile waits those milliseconds). When a writer holds the lock, when
// the file system cannot lock, when there is no index, or when the index is
// stale, at another instant than the scan's snapshot or made from other
// files than the snapshot's (see index.Index.ViewDigest), or when it cannot
// be opened or read (a damaged store), it declines and the scan falls back
// to the footers.
type indexLocator struct {
	table *Table
	name  string // the table name the index was made for
}

// LocateKeys implements read.KeyLocator.
func (l *indexLocator) LocateKeys(ctx context.Context, view *read.View, keys []string) (locs []read.KeyLocation, ok bool, err error) {
	locker, canLock := l.table.fsys.(storage.Locker)
	if !canLock {
		return nil, false, nil
	}
	unlock, err := locker.TryLock(ctx, storage.LockFile)
	if err != nil {
		// Busy, or a table this process may not lock (a read-only folder):
		// the footers answer instead.
		return nil, false, ctx.Err()
	}
	defer func() { err = errors.Join(err, unlock()) }()
	idx, err := index.Open(ctx, l.table.indexDir, index.Options{
		TableName: l.name,
		TableID:   l.table.path,
		ReadOnly:  true,
	})
	if err != nil {
		return nil, false, ctx.Err()
	}
	defer func() { err = errors.Join(err, idx.Close()) }()
	// A write that completed after the index reached its watermark, with
	// an earlier instant time (a writer whose clock or zone is behind), is
	// in the snapshot but not in the index, archived or not: the files
	// differ from those the index stored the digest of, and the footers
	// answer until the next write catches the index up.
	if idx.Stale() != nil || idx.Watermark() != view.AsOf() || !bytes.Equal(idx.ViewDigest(), view.Digest()) {
		return nil, false, nil
	}
	matches, err := idx.Tag(ctx, keys)
	if err != nil {
		// A damaged index, found as its tables are read: the footers
		// answer, and the next write rebuilds it.
		return nil, false, ctx.Err()
	}
	locs = make([]read.KeyLocation, matches.Len())
	for i, m := range matches.All() {
		locs[i] = read.KeyLocation{Partition: m.Location.PartitionPath, FileID: m.Location.FileID, Found: m.Found}
	}
	return locs, true, nil
}

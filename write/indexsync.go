package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// openIndex opens the record index and brings it up to the timeline: it
// replays the commits after its watermark, or rebuilds it from the latest
// snapshot when it cannot be trusted. latest is the table's latest view,
// loaded from tl. An index that cannot be opened, or whose store fails
// (index.ErrBroken), is recreated from latest (see recreateIndex): the
// index is a cache of the timeline, never a reason not to write.
func (w *Writer) openIndex(ctx context.Context, tl *timeline.Timeline, latest *read.View) (*index.Index, error) {
	if w.opts.IndexDir == "" {
		return nil, errors.New("no record index folder configured")
	}
	idx, err := index.Open(ctx, w.opts.IndexDir, w.indexOptions())
	if err == nil {
		if err = syncIndex(ctx, w.fsys, tl, idx, latest); err == nil {
			return idx, nil
		}
		_ = idx.Close() // the error that matters is err
		if !errors.Is(err, index.ErrBroken) {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, err
	}
	return w.replaceIndex(ctx, latest, err)
}

// indexOptions are the options of the table's record index.
func (w *Writer) indexOptions() index.Options {
	return index.Options{TableName: w.cfg.Name, TableID: w.opts.TableID}
}

// replaceIndex builds the record index anew from latest, the table's
// latest view, beside the one that failed with cause, puts it in its
// place (see recreateIndex), tells Options.Notify, and opens it.
func (w *Writer) replaceIndex(ctx context.Context, latest *read.View, cause error) (*index.Index, error) {
	if w.opts.Notify != nil {
		w.opts.Notify(fmt.Errorf("the record index cannot be used, rebuilding it from the table's files: %w", cause))
	}
	if err := recreateIndex(ctx, w.fsys, w.opts.IndexDir, w.indexOptions(), latest); err != nil {
		return nil, fmt.Errorf("rebuild the record index: %w", err)
	}
	return index.Open(ctx, w.opts.IndexDir, w.indexOptions())
}

// SyncIndex brings idx up to the latest completed commit of tl. Commits
// after its watermark, whoever wrote them (Spark included), are replayed from
// the files they wrote. The index is rebuilt from the latest snapshot
// instead when it is new (no watermark), when it is stale, when the
// timeline no longer holds its watermark,
// when the table's file-system view as of the watermark is not the one the
// index stored the digest of (a commit older than the watermark completed
// after the index reached it, archived since or not), and when files the
// replay needs may be gone.
func SyncIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index) error {
	return syncIndex(ctx, fsys, tl, idx, nil)
}

// syncIndex is SyncIndex given, when not nil, the latest view of tl, which
// spares listing the table again when the index is at the last commit.
func syncIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index, latest *read.View) error {
	commits := tl.CompletedCommits()
	last, ok := commits.Last()
	if !ok {
		if idx.Stale() != nil || idx.Watermark() != "" {
			return idx.Rebuild(ctx, "", func(func(string, index.Location) error) error { return nil })
		}
		return nil
	}
	rebuild := func() error {
		if latest == nil {
			return RebuildIndex(ctx, fsys, tl, idx)
		}
		return rebuildIndex(ctx, fsys, idx, latest)
	}
	wm := idx.Watermark()
	// A new index (watermark "") is built from the latest snapshot, not by
	// replaying the active timeline from nothing: commits Spark archived
	// left files the replay would never see, and reading the latest files
	// once costs less than reading every commit's.
	if idx.Stale() != nil || wm == "" || !commits.Contains(wm) || wm > last.Time {
		return rebuild()
	}
	// The files as of wm tell what the index must hold, whatever the active
	// timeline still shows: a commit older than wm that completed late
	// changed them, even once it is archived.
	base := latest
	if latest == nil || latest.AsOf() != wm {
		var err error
		base, err = read.LoadView(ctx, fsys, tl, wm)
		if errors.Is(err, read.ErrSnapshotGone) {
			// The cleaner removed files of the view as of wm: only the
			// latest snapshot tells where the keys are.
			return rebuild()
		}
		if err != nil {
			return err
		}
	}
	if stored := idx.ViewDigest(); stored == nil || !bytes.Equal(stored, base.Digest()) {
		return rebuild()
	}
	if wm == last.Time {
		return nil
	}
	// The digest matched: every file group's slice as of wm is still there
	// (a cleaner that removed one changed the digest), and the replay
	// starts from all of them.
	err := replayCommits(ctx, fsys, tl, idx, base)
	if errors.Is(err, errDuplicateKey) {
		// One location per key cannot follow a key that two file groups
		// hold: only the latest snapshot tells where it is at the end.
		return rebuild()
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A file a commit after wm wrote is gone (cleaned since, or
		// removed by hand): only the latest snapshot can tell where the
		// keys are.
		return rebuild()
	}
	return err
}

// replayCommits applies to idx, one commit at a time, the changes of the
// completed commits after base's instant, derived from the files they
// wrote, each with the digest of the view it leads to.
func replayCommits(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index, base *read.View) error {
	latest := map[string]read.FileSlice{} // file group -> its latest slice
	for _, s := range base.LatestSlices() {
		latest[groupKey(s.Partition, s.FileID)] = s
	}
	for _, in := range tl.CompletedCommits().After(base.AsOf()).Instants() {
		changes, err := commitChanges(ctx, fsys, tl, idx, in, latest)
		if err != nil {
			return fmt.Errorf("catch the record index up on commit %s: %w", in.Time, err)
		}
		changes.ViewDigest = read.DigestSlices(slices.Collect(maps.Values(latest)))
		if err := idx.Apply(ctx, in.Time, changes); err != nil {
			return err
		}
	}
	return nil
}

// errDuplicateKey reports a replayed commit that wrote a key another live
// file group holds, as Spark's default, non-global index allows.
var errDuplicateKey = errors.New("a commit wrote a key that another file group holds")

// commitChanges derives a commit's index changes from its files: the keys of
// every file it wrote are put, and keys that a rewritten or replaced file
// group held before and no longer holds are deleted. latest, the latest
// slice of every live file group, is updated. A key put while idx places
// it in a file group the commit left alone is errDuplicateKey.
func commitChanges(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index, in timeline.Instant, latest map[string]read.FileSlice) (index.ChangeSet, error) {
	var changes index.ChangeSet
	var replaced map[string][]string
	var stats []timeline.WriteStat
	if in.Action == timeline.ActionReplaceCommit {
		meta, err := tl.ReadReplaceCommitMetadata(ctx, in)
		if err != nil {
			return changes, err
		}
		replaced, stats = meta.PartitionToReplaceFileIDs, meta.WriteStats()
	} else {
		meta, err := tl.ReadCommitMetadata(ctx, in)
		if err != nil {
			return changes, err
		}
		stats = meta.WriteStats()
	}
	dropGroup := func(k string) error {
		prev, ok := latest[k]
		if !ok {
			return nil
		}
		keys, err := readRecordKeys(ctx, fsys, prev.Path)
		if err != nil {
			return err
		}
		changes.Deletes = append(changes.Deletes, keys...)
		delete(latest, k)
		return nil
	}
	for part, ids := range replaced {
		for _, id := range ids {
			if err := dropGroup(groupKey(part, id)); err != nil {
				return changes, err
			}
		}
	}
	for _, ws := range stats {
		if ws.Path == "" {
			continue
		}
		k := groupKey(ws.PartitionPath, ws.FileID)
		if err := dropGroup(k); err != nil {
			return changes, err
		}
		keys, err := readRecordKeys(ctx, fsys, ws.Path)
		if err != nil {
			return changes, err
		}
		loc := index.Location{PartitionPath: ws.PartitionPath, FileID: ws.FileID}
		for _, key := range keys {
			changes.Puts = append(changes.Puts, index.Put{Key: key, Location: loc})
		}
		latest[k] = read.FileSlice{Partition: ws.PartitionPath, FileID: ws.FileID, Instant: in.Time, Path: ws.Path, Size: ws.FileSizeInBytes}
	}
	keys := make([]string, len(changes.Puts))
	for i, p := range changes.Puts {
		keys[i] = p.Key
	}
	matches, err := idx.Tag(ctx, keys)
	if err != nil {
		return changes, err
	}
	for i, m := range matches.All() {
		k := groupKey(m.Location.PartitionPath, m.Location.FileID)
		if m.Found && m.Location != changes.Puts[i].Location && latest[k].Instant != in.Time {
			if _, live := latest[k]; live {
				return changes, fmt.Errorf("key %q in %s and %s: %w", keys[i], m.Location, changes.Puts[i].Location, errDuplicateKey)
			}
		}
	}
	return changes, nil
}

// RebuildIndex reloads idx from the record keys of the latest snapshot.
func RebuildIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index) error {
	view, err := read.LoadView(ctx, fsys, tl, "")
	if err != nil {
		return err
	}
	return rebuildIndex(ctx, fsys, idx, view)
}

// RecreateIndex builds the record index in dir anew from the record keys
// of the latest snapshot, beside the index dir holds, whatever state that
// one is in, and puts it in its place (see index.Recreate).
func RecreateIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, dir string, opts index.Options) error {
	view, err := read.LoadView(ctx, fsys, tl, "")
	if err != nil {
		return err
	}
	return recreateIndex(ctx, fsys, dir, opts, view)
}

// recreateIndex builds the record index in dir anew from the record keys
// of view, the latest snapshot, with the view's digest.
func recreateIndex(ctx context.Context, fsys storage.FS, dir string, opts index.Options, view *read.View) error {
	return index.Recreate(ctx, dir, opts, view.AsOf(), view.Digest(), snapshotKeys(ctx, fsys, view))
}

// rebuildIndex reloads idx from the record keys of view, the latest
// snapshot, and stores the view's digest with its watermark.
func rebuildIndex(ctx context.Context, fsys storage.FS, idx *index.Index, view *read.View) error {
	return idx.RebuildDigest(ctx, view.AsOf(), view.Digest(), snapshotKeys(ctx, fsys, view))
}

// VerifyIndex compares idx with the record keys of the latest snapshot.
func VerifyIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index) (index.Report, error) {
	view, err := read.LoadView(ctx, fsys, tl, "")
	if err != nil {
		return index.Report{}, err
	}
	return idx.Verify(ctx, snapshotKeys(ctx, fsys, view))
}

// snapshotKeys yields the key and location of every record of a view.
func snapshotKeys(ctx context.Context, fsys storage.FS, view *read.View) index.ScanFunc {
	return func(yield func(string, index.Location) error) error {
		for _, s := range view.LatestSlices() {
			keys, err := readRecordKeys(ctx, fsys, s.Path)
			if err != nil {
				return err
			}
			loc := index.Location{PartitionPath: s.Partition, FileID: s.FileID}
			for _, k := range keys {
				if err := yield(k, loc); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// readRecordKeys reads the _hoodie_record_key column of a base file, and
// nothing else; for a file without meta fields it computes the keys from
// the record-key columns, as the table's key generator makes them. So it
// does for a file whose _hoodie_record_key column holds no key at all: Hudi
// 0.15's Spark writer gives a table with hoodie.populate.meta.fields=false
// the meta columns anyway, null but _hoodie_file_name.
func readRecordKeys(ctx context.Context, fsys storage.FS, path string) ([]string, error) {
	bf, err := basefile.Open(ctx, fsys, path)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	if !bf.Schema().HasMetaFields() {
		return computeRecordKeys(ctx, fsys, bf)
	}
	keys := make([]string, 0, bf.NumRows())
	values := make([]parquet.Value, 4096)
	for _, rg := range bf.RowGroups() {
		pages := rg.ColumnChunks()[basefile.MetaRecordKeyPos].Pages()
		for {
			page, err := pages.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				pages.Close()
				return nil, fmt.Errorf("read record keys of %s: %w", path, err)
			}
			vr := page.Values()
			for {
				n, err := vr.ReadValues(values)
				for _, v := range values[:n] {
					if !v.IsNull() {
						keys = append(keys, string(v.ByteArray()))
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					parquet.Release(page)
					pages.Close()
					return nil, fmt.Errorf("read record keys of %s: %w", path, err)
				}
			}
			parquet.Release(page)
		}
		pages.Close()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if len(keys) == 0 && bf.NumRows() > 0 {
		return computeRecordKeys(ctx, fsys, bf)
	}
	return keys, nil
}

// computeRecordKeys returns the record keys of the rows of bf, a base file
// without meta fields, from the record-key columns the table's
// configuration names.
func computeRecordKeys(ctx context.Context, fsys storage.FS, bf *basefile.File) ([]string, error) {
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		return nil, err
	}
	gen, err := NewKeyGenerator(cfg, bf.Schema())
	if err != nil {
		return nil, fmt.Errorf("base file %s has no meta fields and its record keys cannot be computed: %w", bf.Path(), err)
	}
	keys := make([]string, 0, bf.NumRows())
	err = eachRow(ctx, bf, func(values []any) error {
		key, err := gen.RecordKey(values)
		if err != nil {
			return fmt.Errorf("base file %s, row %d: %w", bf.Path(), len(keys), err)
		}
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// eachRow calls fn with the values of each row of bf, in order, until fn
// fails.
func eachRow(ctx context.Context, bf *basefile.File, fn func(values []any) error) error {
	rows := bf.Rows(ctx)
	defer rows.Close()
	batch := make([]parquet.Row, 1024)
	for {
		n, readErr := rows.ReadRows(batch)
		for _, row := range batch[:n] {
			values, err := bf.DecodeRow(row)
			if err != nil {
				return err
			}
			if err := fn(values); err != nil {
				return err
			}
		}
		if errors.Is(readErr, io.EOF) {
			return nil
		}
		if readErr != nil {
			return fmt.Errorf("read %s: %w", bf.Path(), readErr)
		}
	}
}

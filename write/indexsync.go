package write

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// openIndex opens the record index and brings it up to the timeline: it
// replays the commits after its watermark, or rebuilds it from the latest
// snapshot when it cannot be trusted.
func (w *Writer) openIndex(ctx context.Context, tl *timeline.Timeline) (*index.Index, error) {
	if w.opts.IndexDir == "" {
		return nil, errors.New("no record index folder configured")
	}
	idx, err := index.Open(ctx, w.opts.IndexDir, index.Options{TableName: w.cfg.Name, TableID: w.opts.TableID})
	if err != nil {
		return nil, err
	}
	if err := SyncIndex(ctx, w.fsys, tl, idx); err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}

// SyncIndex brings idx up to the latest completed commit of tl. Commits
// after its watermark, whoever wrote them (Spark included), are replayed from
// the files they wrote. The index is rebuilt from the latest snapshot
// instead when it is stale, when the timeline no longer holds its watermark,
// when a commit at or before the watermark completed after the index reached
// it (see index.Seen), and when files the replay needs may be gone.
func SyncIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index) error {
	commits := tl.CompletedCommits()
	last, ok := commits.Last()
	if !ok {
		if idx.Stale() != nil || idx.Watermark() != "" {
			return idx.Rebuild(ctx, "", func(func(string, index.Location) error) error { return nil })
		}
		return nil
	}
	wm := idx.Watermark()
	if idx.Stale() != nil || (wm != "" && !commits.Contains(wm)) || wm > last.Time || (wm != "" && missedCommits(commits, wm, idx.Seen())) {
		return RebuildIndex(ctx, fsys, tl, idx)
	}
	if wm == last.Time {
		return nil
	}
	if wm != "" && removedFilesAfter(tl, wm) {
		// The replay starts from the file groups as of wm, listed from the
		// files that exist now: a group whose slice was cleaned since would
		// be missing, and the keys later commits took out of it would stay
		// in the index.
		return RebuildIndex(ctx, fsys, tl, idx)
	}
	err := replayCommits(ctx, fsys, tl, idx, wm)
	if errors.Is(err, errReplayGap) || errors.Is(err, fs.ErrNotExist) {
		// A file the replay needs is gone (cleaned, with its clean instant
		// archived, or removed by hand): only the latest snapshot can tell
		// where the keys are.
		return RebuildIndex(ctx, fsys, tl, idx)
	}
	return err
}

// missedCommits reports whether commits, the completed writes of the active
// timeline, hold one at or before the watermark wm that seen, recorded with
// it, does not: its changes are not in the index and no replay (which starts
// after wm) will add them. A nil seen (an index from before it was
// recorded) counts as missing.
func missedCommits(commits *timeline.Timeline, wm string, seen *index.Seen) bool {
	if seen == nil {
		return true
	}
	var times []string
	for _, in := range commits.AtOrBefore(wm).Instants() {
		times = append(times, in.Time)
	}
	return seen.Missing(times)
}

// seenAt returns the index.Seen of an index whose watermark is wm, which
// holds the changes of every completed write of commits at or before it,
// and of more, the times of completed writes not (yet) on commits, in order
// and later than those.
func seenAt(commits *timeline.Timeline, wm string, more ...string) *index.Seen {
	var times []string
	for _, in := range commits.AtOrBefore(wm).Instants() {
		times = append(times, in.Time)
	}
	times = append(times, more...)
	return &index.Seen{Count: len(times), Latest: slices.Clone(times[max(0, len(times)-index.MaxSeenLatest):])}
}

// removedFilesAfter reports whether a completed clean, rollback or restore,
// the actions that delete data files, is later than wm.
func removedFilesAfter(tl *timeline.Timeline, wm string) bool {
	for _, in := range tl.Completed().After(wm).Instants() {
		switch in.Action {
		case timeline.ActionClean, timeline.ActionRollback, timeline.ActionRestore:
			return true
		}
	}
	return false
}

// errReplayGap reports that a commit after the watermark rewrote a file
// group that the view as of the watermark does not have: its earlier slice
// is gone, and what the commit removed from the group cannot be known.
var errReplayGap = errors.New("a file group's previous slice is missing")

// replayCommits applies to idx, one commit at a time, the changes of the
// completed commits after wm, derived from the files they wrote.
func replayCommits(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index, wm string) error {
	var base *read.View
	var err error
	if wm == "" {
		base = &read.View{}
	} else if base, err = read.LoadView(ctx, fsys, tl, wm); err != nil {
		return err
	}
	latest := map[string]string{} // file group -> path of its latest slice
	for _, s := range base.LatestSlices() {
		latest[groupKey(s.Partition, s.FileID)] = s.Path
	}
	for _, in := range tl.CompletedCommits().After(wm).Instants() {
		changes, err := commitChanges(ctx, fsys, tl, in, latest)
		if err != nil {
			return fmt.Errorf("catch the record index up on commit %s: %w", in.Time, err)
		}
		changes.Seen = seenAt(tl.CompletedCommits(), in.Time)
		if err := idx.Apply(ctx, in.Time, changes); err != nil {
			return err
		}
	}
	return nil
}

// commitChanges derives a commit's index changes from its files: the keys of
// every file it wrote are put, and keys that a rewritten or replaced file
// group held before and no longer holds are deleted. latest is updated.
func commitChanges(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, in timeline.Instant, latest map[string]string) (index.ChangeSet, error) {
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
		keys, err := readRecordKeys(ctx, fsys, prev)
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
		if _, ok := latest[k]; !ok && ws.PrevCommit != "" && ws.PrevCommit != timeline.NullCommit {
			return changes, fmt.Errorf("%s (file group %s, previous commit %s): %w", ws.Path, ws.FileID, ws.PrevCommit, errReplayGap)
		}
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
		latest[k] = ws.Path
	}
	return changes, nil
}

// RebuildIndex reloads idx from the record keys of the latest snapshot.
func RebuildIndex(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, idx *index.Index) error {
	view, err := read.LoadView(ctx, fsys, tl, "")
	if err != nil {
		return err
	}
	return idx.RebuildSeen(ctx, view.AsOf(), seenAt(tl.CompletedCommits(), view.AsOf()), snapshotKeys(ctx, fsys, view))
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
// the record-key columns, as the table's key generator makes them.
func readRecordKeys(ctx context.Context, fsys storage.FS, path string) ([]string, error) {
	bf, err := storage.OpenBaseFile(ctx, fsys, path)
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
		pages := rg.ColumnChunks()[storage.MetaRecordKeyPos].Pages()
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
	return keys, nil
}

// computeRecordKeys returns the record keys of the rows of bf, a base file
// without meta fields, from the record-key columns the table's
// configuration names.
func computeRecordKeys(ctx context.Context, fsys storage.FS, bf *storage.BaseFile) ([]string, error) {
	cfg, err := storage.LoadTableConfig(ctx, fsys)
	if err != nil {
		return nil, err
	}
	gen, err := NewKeyGenerator(cfg, bf.Schema())
	if err != nil {
		return nil, fmt.Errorf("base file %s has no meta fields and its record keys cannot be computed: %w", bf.Path(), err)
	}
	keys := make([]string, 0, bf.NumRows())
	rows := bf.Rows(ctx)
	defer rows.Close()
	batch := make([]parquet.Row, 1024)
	for {
		n, readErr := rows.ReadRows(batch)
		for _, row := range batch[:n] {
			values, err := bf.DecodeRow(row)
			if err != nil {
				return nil, err
			}
			key, err := gen.RecordKey(values)
			if err != nil {
				return nil, fmt.Errorf("base file %s, row %d: %w", bf.Path(), len(keys), err)
			}
			keys = append(keys, key)
		}
		if readErr == io.EOF {
			return keys, nil
		}
		if readErr != nil {
			return nil, fmt.Errorf("read record keys of %s: %w", bf.Path(), readErr)
		}
	}
}

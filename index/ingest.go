package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// defaultIngestMin is the fewest changes (puts and deletes) that Apply
// writes into tables and ingests rather than committing as a batch. A batch
// goes through the write-ahead log and the memtable, and is written again
// when the memtable is flushed; an ingested table is written once, in the
// layout Pebble reads, but each ingestion costs a few file syncs and may
// force a flush of the memtable.
const defaultIngestMin = 64 << 10

// ingestPrefix starts the names of the tables Apply writes into the index
// folder before ingesting them. Pebble ignores files it does not name; Open
// removes those a crash left behind.
const ingestPrefix = "hoodie-apply-"

// ingest adds the prepared record tables to the store, with a small table
// of the dictionary entries of their new file groups, digest and the
// watermark, in one Pebble ingestion, which is atomic and durable: after a
// crash the store holds all of them or none.
//
// An ingested table's keys get a sequence number above every key already in
// the store (Pebble flushes a memtable the tables overlap first), so a put
// replaces the value of its key and a delete, written as a point tombstone,
// removes it, as in a batch. The dictionary entries and the watermark go
// into a table of their own: the records' tables then overlap nothing the
// store holds outside the record namespaces, and the records of a bulk
// insert into an empty index land straight in the bottom level, where no
// compaction needs to rewrite them.
//
// On failure its own table is removed; the caller discards the others.
func (ix *Index) ingest(ctx context.Context, p *Prepared, digest []byte) (err error) {
	path := ix.tablePath(0)
	defer func() {
		if err != nil {
			err = errors.Join(err, removeTables(ix.fs, []string{path}))
		}
	}()
	err = ix.writeTable(path, func(w *sstable.Writer) error {
		for id := uint32(p.first); id < uint32(len(ix.dict.locs)); id++ {
			if err := w.Set(groupKey(id), ix.dict.entry(id)); err != nil {
				return fmt.Errorf("file group %s: %w", ix.dict.locs[id], err)
			}
		}
		if err := w.Set(metaView, storedDigest(digest)); err != nil {
			return err
		}
		return w.Set(metaWatermark, []byte(p.instant))
	})
	if err != nil {
		return err
	}
	// The last moment to give up without a trace: Pebble's ingestion,
	// once started, completes or fails whole.
	if err := ctx.Err(); err != nil {
		return err
	}
	return ix.publish(p.instant, digest, func() error {
		if err := ix.mon.run(func() error { return ix.db.Ingest(ctx, append([]string{path}, p.tables...)) }); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		return nil
	})
}

// writeRecordTables writes the record changes of rs into tables to ingest,
// split into key ranges written concurrently, one table each, on up to
// Options.TagWorkers goroutines, and returns their paths. On failure it
// removes them.
func (ix *Index) writeRecordTables(ctx context.Context, rs *sortedRecords) (paths []string, err error) {
	if rs.dels.len()+rs.puts.len() == 0 {
		return nil, nil
	}
	splits := rs.splits(max(1, min(ix.tagWorkers, (rs.dels.len()+rs.puts.len())/minShardKeys)))
	errs := make([]error, len(splits)+1)
	var wg sync.WaitGroup
	for i := range errs {
		dels, puts := rs.dels, rs.puts
		if i > 0 {
			dels.seek(splits[i-1])
			puts.seek(splits[i-1])
		}
		var end []byte
		if i < len(splits) {
			end = splits[i]
		}
		path := ix.tablePath(1 + i)
		paths = append(paths, path)
		wg.Go(func() {
			errs[i] = ix.writeTable(path, func(w *sstable.Writer) error {
				return rs.each(ctx, dels, puts, end, func(key, value []byte) error {
					if value == nil {
						return w.Delete(key)
					}
					return w.Set(key, value)
				})
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, removeTables(ix.fs, paths))
	}
	return paths, nil
}

// splits returns up to k-1 increasing keys that split the record changes
// into k key ranges of about as many changes each, none of them empty.
func (rs *sortedRecords) splits(k int) [][]byte {
	s := &rs.puts
	if rs.dels.len() > s.len() {
		s = &rs.dels
	}
	var keys [][]byte
	if s.len() == 0 {
		return nil
	}
	prev := s.at(0)
	for i := 1; i < k; i++ {
		if key := s.at(i * s.len() / k); bytes.Compare(key, prev) > 0 {
			keys = append(keys, key)
			prev = key
		}
	}
	return keys
}

// tablePath returns the path of the i-th table an Apply ingests.
func (ix *Index) tablePath(i int) string {
	return ix.fs.PathJoin(ix.dir, fmt.Sprintf("%s%d.sst", ingestPrefix, i))
}

// writeTable creates the table at path, calls fill to add its entries in key
// order, and finishes it, synced, as Pebble requires of a table to ingest.
func (ix *Index) writeTable(path string, fill func(w *sstable.Writer) error) error {
	f, err := ix.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), ix.tableOpts)
	err = fill(w)
	// Close finishes the table even after a failure: that closes the file,
	// which the caller then removes.
	if cerr := w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write table %s: %w", ix.fs.PathBase(path), cerr)
	}
	return err
}

// removeTables removes the tables at paths that exist.
func removeTables(fsys vfs.FS, paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove table: %w", err))
		}
	}
	return errors.Join(errs...)
}

// removeLeftTables removes from dir the tables an Apply wrote and did not
// ingest or remove, because the process stopped. The caller holds Pebble's
// lock on dir, so no Apply is under way.
func removeLeftTables(fsys vfs.FS, dir string) error {
	names, err := fsys.List(dir)
	if err != nil {
		return fmt.Errorf("list tables left by an interrupted apply: %w", err)
	}
	var paths []string
	for _, name := range names {
		if strings.HasPrefix(name, ingestPrefix) {
			paths = append(paths, fsys.PathJoin(dir, name))
		}
	}
	return removeTables(fsys, paths)
}

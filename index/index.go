package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// formatVersion is the version of the layout described in docs/index.md.
// A store written by another version is stale. Version 1 stored UUID keys
// as text, under 'r'.
const formatVersion = 2

// blockSize is the target size of the data blocks of the tables the index
// writes, four times Pebble's default. A Tag of many keys on a freshly
// opened index reads nearly every block, and pays per block to read,
// allocate and cache it. Measured on 1M UUID records (2-core VM), a cold
// Tag of 100k keys took about 20% less CPU than with 4 KB blocks (8 KB: 12%
// less, 32 KB: no better than 16 KB), and one of 1k keys, which reads a
// block per key, 4 ms more (10 ms).
const blockSize = 16 << 10

// DefaultCacheSize is the block-cache size of an index whose options leave it
// unset. It is small because an index is mostly opened for one operation
// (Hoodie's writer opens it for each write), which reads each block about
// once. A long-lived index that is tagged again and again may want a cache
// the size of its store. docs/performance.md has the measurements.
const DefaultCacheSize = 1 << 20

// Options configure an index.
type Options struct {
	// TableName and TableID identify the table the index belongs to; both are
	// required. TableID tells apart two tables of the same name (Hoodie
	// passes an id recorded in the table's properties). Opening an index
	// made for another table reports it stale.
	TableName string
	TableID   string

	// CacheSize is the size in bytes of Pebble's block cache, the memory an
	// index uses beyond one entry per file group. Zero means
	// DefaultCacheSize.
	CacheSize int64

	// TagWorkers is how many goroutines one large Tag call may use, each
	// walking its own slice of the sorted keys with its own iterator. Zero
	// means runtime.GOMAXPROCS(0); one keeps every Tag call on a single
	// goroutine and a single iterator.
	TagWorkers int

	// Logger receives Pebble's log lines. Nil drops them: the failures
	// among them come back as errors (see ErrBroken). Its Fatalf is never
	// called.
	Logger pebble.Logger

	// ReadOnly opens an existing index for lookups only: Open fails when
	// dir holds no index, nothing is written to the folder, and Apply,
	// Rebuild and Verify fail. Pebble still takes its folder lock, so a
	// read-only index cannot be open while a writer has the index open, and
	// the other way round.
	ReadOnly bool

	// ingestMin overrides defaultIngestMin when positive, so that tests can
	// send small change sets through either path of Apply.
	ingestMin int

	// fs is the file system of the store, vfs.Default when nil; tests
	// inject failures through it.
	fs vfs.FS
}

// fileSystem returns the file system of the store.
func (o *Options) fileSystem() vfs.FS {
	if o.fs == nil {
		return vfs.Default
	}
	return o.fs
}

// Index is a record-key index stored in one Pebble folder. It is safe for
// concurrent use, except Close, which must not run concurrently with any other
// method. Tag, Scan, Count and Watermark run concurrently with each other and
// with a writer; the writers (Apply, Rebuild, Verify) run one at a time.
type Index struct {
	dir        string
	fs         vfs.FS
	db         *pebble.DB
	mon        *monitor // the store's failure, once it has failed
	table      []byte   // appendPair(TableName, TableID)
	tagWorkers int
	readOnly   bool
	ingestMin  int                   // see defaultIngestMin
	tableOpts  sstable.WriterOptions // of the tables Apply ingests

	// writeMu serializes writers. dict is owned by the writer holding it.
	writeMu sync.Mutex
	dict    *dictionary
	// prepared is the change set prepared and not yet committed or
	// discarded, if any; the dictionary holds its new file groups.
	prepared *Prepared

	// stateMu guards the state readers see. A writer commits its last batch
	// and publishes the new state while holding it exclusively, so a reader
	// that takes it shared while opening its iterator sees a Pebble state and
	// an in-memory state that belong together.
	stateMu    sync.RWMutex
	closed     bool
	stale      error      // nil when the index can be trusted; wraps ErrStale
	watermark  string     // meaningful when stale is nil
	viewDigest []byte     // stored with the watermark; nil when not known
	visible    []Location // the committed prefix of dict.locs, indexed by id
}

// Open opens the index in dir, creating the folder and an empty index (with
// watermark "") if there is none.
//
// Open fails only when it cannot open or read the store. An index that opens
// but cannot be trusted is still returned: Stale then reports why, and every
// method other than Rebuild, Stale, Watermark and Close fails with that
// error (which wraps ErrStale) until Rebuild succeeds.
func Open(ctx context.Context, dir string, opts Options) (*Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	switch {
	case dir == "":
		return nil, errors.New("open index: empty folder name")
	case opts.TableName == "" || opts.TableID == "":
		return nil, fmt.Errorf("open index %s: table name and table id are required", dir)
	case opts.CacheSize < 0 || opts.TagWorkers < 0:
		return nil, fmt.Errorf("open index %s: negative cache size or tag workers", dir)
	}
	mon := newMonitor(opts.Logger)
	po := &pebble.Options{
		FormatMajorVersion: pebble.FormatNewest,
		CacheSize:          opts.CacheSize,
		FS:                 fencedFS{FS: opts.fileSystem(), mon: mon},
		Logger:             mon,
		EventListener:      mon.listener(),
		ReadOnly:           opts.ReadOnly,
		ErrorIfNotExists:   opts.ReadOnly,
	}
	if po.CacheSize == 0 {
		po.CacheSize = DefaultCacheSize
	}
	for i := range po.Levels {
		po.Levels[i].BlockSize = blockSize
	}
	// A write adds a small table of random keys to L0, which overlaps every
	// table below it. With Pebble's default base level size (64 MB), an
	// index of up to a few million records lives in one level, L6, so every
	// L0 compaction rewrote all of it, and Pebble started one every second or
	// third write, the next Open or Close waiting for it (~0.3 s on 1M
	// records). A small base level puts L5 above L6 for any index of more
	// than a few thousand records: L0 compacts into L5, and L5 into L6 only
	// once it holds a tenth of L6.
	po.LBaseMaxBytes = 1 << 20
	// With the defaults filled in, po also describes the tables Apply
	// writes to ingest.
	po.EnsureDefaults()
	var ix *Index
	err := mon.run(func() error {
		db, err := pebble.Open(dir, po)
		if err != nil {
			if mon.locked() {
				// Not a folder Pebble could not lock or find: a store
				// it cannot read back (a damaged manifest, a file gone).
				return mon.fail(err)
			}
			return fmt.Errorf("open index %s: %w", dir, err)
		}
		ix = newIndex(dir, db, mon, opts, po)
		err = ix.load()
		if err == nil && !ix.readOnly {
			if err = removeLeftTables(ix.fs, dir); err != nil {
				err = ix.errorf("open: %w", err)
			}
		}
		if err != nil && mon.failure() == nil {
			_ = db.Close()
		}
		return err
	})
	if err != nil && err == mon.failure() {
		err = fmt.Errorf("open index %s: %w", dir, err)
	}
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// newIndex returns the index of the store db, opened with po.
func newIndex(dir string, db *pebble.DB, mon *monitor, opts Options, po *pebble.Options) *Index {
	ix := &Index{
		dir:        dir,
		fs:         opts.fileSystem(),
		mon:        mon,
		readOnly:   opts.ReadOnly,
		db:         db,
		table:      appendPair(nil, opts.TableName, opts.TableID),
		tagWorkers: opts.TagWorkers,
		ingestMin:  opts.ingestMin,
		tableOpts:  po.MakeWriterOptions(0, db.FormatMajorVersion().MaxTableFormat()),
		dict:       newDictionary(),
	}
	if ix.tagWorkers == 0 {
		ix.tagWorkers = runtime.GOMAXPROCS(0)
	}
	if ix.ingestMin <= 0 {
		ix.ingestMin = defaultIngestMin
	}
	return ix
}

// load reads the metadata and the dictionary, initializing a new store and
// recording in ix.stale why an existing one cannot be trusted.
func (ix *Index) load() error {
	format, err := ix.get(metaFormat)
	if err != nil {
		return err
	}
	if format == nil && ix.readOnly {
		ix.stale = ix.errorf("the folder holds no index yet: %w", ErrStale)
		return nil
	}
	if format == nil {
		return ix.initialize()
	}
	if want := strconv.Itoa(formatVersion); string(format) != want {
		ix.stale = ix.errorf("format version %q, want %q: %w", format, want, ErrStale)
		return nil
	}
	table, err := ix.get(metaTable)
	if err != nil {
		return err
	}
	if string(table) != string(ix.table) {
		name, id, _ := decodePair(table)
		wantName, wantID, _ := decodePair(ix.table)
		ix.stale = ix.errorf("made for table %q (id %q), not %q (id %q): %w", name, id, wantName, wantID, ErrStale)
		return nil
	}
	rebuilding, err := ix.get(metaRebuilding)
	if err != nil {
		return err
	}
	if rebuilding != nil {
		ix.stale = ix.errorf("a rebuild to instant %q was interrupted: %w", rebuilding, ErrStale)
		return nil
	}
	watermark, err := ix.get(metaWatermark)
	if err != nil {
		return err
	}
	if watermark == nil || (len(watermark) > 0 && checkInstant(string(watermark)) != nil) {
		ix.stale = ix.errorf("bad watermark %q: %w", watermark, ErrStale)
		return nil
	}
	dict, err := loadDictionary(ix.db)
	if err != nil {
		ix.stale = ix.errorf("%w: %w", err, ErrStale)
		return nil
	}
	digest, err := ix.get(metaView)
	if err != nil {
		return err
	}
	if len(digest) == 0 {
		digest = nil // not known: a caller that needs it rebuilds
	}
	ix.watermark, ix.viewDigest, ix.dict, ix.visible = string(watermark), digest, dict, dict.locs
	return nil
}

// initialize writes the metadata of an empty index into a store without a
// format version, or marks the index stale if the store holds other keys.
func (ix *Index) initialize() error {
	it, err := ix.db.NewIter(nil)
	if err != nil {
		return ix.errorf("read: %w", err)
	}
	empty := !it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return ix.errorf("read: %w", err)
	}
	if !empty {
		ix.stale = ix.errorf("the folder holds a Pebble store without a format version: %w", ErrStale)
		return nil
	}
	b := ix.db.NewBatch()
	defer b.Close()
	if err := ix.setMeta(b, "", nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return ix.errorf("initialize: %w", err)
	}
	return nil
}

// setMeta adds to b the metadata of a trusted index at watermark, or, when
// rebuilding is not nil, of an index being rebuilt to that instant.
func (ix *Index) setMeta(b *pebble.Batch, watermark string, rebuilding []byte) error {
	err := errors.Join(
		b.Set(metaFormat, []byte(strconv.Itoa(formatVersion)), nil),
		b.Set(metaTable, ix.table, nil),
		b.Set(metaWatermark, []byte(watermark), nil),
	)
	if rebuilding != nil {
		err = errors.Join(err, b.Set(metaRebuilding, rebuilding, nil))
	} else {
		err = errors.Join(err, b.Delete(metaRebuilding, nil))
	}
	if err != nil {
		return ix.errorf("write metadata: %w", err)
	}
	return nil
}

// get returns a copy of the value of key, or nil if there is none.
func (ix *Index) get(key []byte) ([]byte, error) {
	v, closer, err := ix.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, ix.errorf("read %q: %w", key, ix.mon.check(err))
	}
	v = bytes.Clone(v)
	if err := closer.Close(); err != nil {
		return nil, ix.errorf("read %q: %w", key, err)
	}
	return v, nil
}

// Stale returns nil if the index can be trusted, or an error wrapping
// ErrStale that says why not.
func (ix *Index) Stale() error {
	ix.stateMu.RLock()
	defer ix.stateMu.RUnlock()
	return ix.stale
}

// usable returns the error to report instead of using the index: it is
// closed or stale. The caller holds writeMu or stateMu.
func (ix *Index) usable() error {
	if ix.closed {
		return ix.errorf("%w", ErrClosed)
	}
	if err := ix.mon.failure(); err != nil {
		return err
	}
	return ix.stale
}

// setStale marks the index stale in memory.
func (ix *Index) setStale(err error) {
	ix.stateMu.Lock()
	ix.stale = err
	ix.stateMu.Unlock()
}

// Close closes the index. The index must not be in use.
//
// Closing an index whose store failed (ErrBroken) does not wait for the
// store: Pebble may hold its locks in a goroutine that never returns. The
// store's lock on its folder was released at the failure, and it can no
// longer create or remove files (see monitor), so Open and Recreate may
// use the folder at once.
func (ix *Index) Close() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	if ix.closed {
		return ix.errorf("close: %w", ErrClosed)
	}
	ix.closed = true
	err := ix.dropPrepared()
	if ix.mon.failure() != nil {
		// Stops Pebble's retries, unless a goroutine of it holds its
		// locks for good.
		go func() {
			defer func() { _ = recover() }()
			_ = ix.db.Close()
		}()
	} else {
		err = errors.Join(err, ix.mon.run(ix.db.Close))
	}
	if err != nil {
		return ix.errorf("close: %w", err)
	}
	return nil
}

// Dir returns the folder of the index.
func (ix *Index) Dir() string { return ix.dir }

// errorf returns an error naming the index folder.
func (ix *Index) errorf(format string, args ...any) error {
	return fmt.Errorf("index %s: "+format, append([]any{ix.dir}, args...)...)
}

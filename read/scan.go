package read

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// DefaultBatchSize is the number of records a Batch holds at most when
// Options.BatchSize is 0.
const DefaultBatchSize = 8192

// Options choose what a scan reads. The zero value reads every column of
// every record of the latest snapshot.
type Options struct {
	// AsOf makes a time-travel scan: the table as it was after the last
	// completed commit at or before this instant. It takes the forms
	// timeline.ParseInstantOrTime accepts (17 or 14 digits, "yyyy-MM-dd
	// HH:mm:ss[.SSS]", "yyyy-MM-dd"). An instant before the first commit
	// gives no records.
	AsOf string
	// Begin makes an incremental scan: the records of the snapshot as of
	// End whose _hoodie_commit_time lies in (Begin, End]. A Begin of zeros
	// ("000") means from the start. End defaults to the latest commit;
	// Begin after End is an error, as are AsOf and End without Begin.
	// In a table of version 8 Begin and End are completion times: the
	// scan reads the records of the commits that completed in [Begin,
	// End], as Hudi 1.x does (see window.resolve).
	Begin, End string
	// Columns are the columns to return, in order: top-level columns or
	// fields nested in records ("structField.field2", returned under that
	// name). Nil means the five Hudi meta columns, then every column of the
	// table schema.
	Columns []string
	// Where filters the records with an expression of the filter language
	// (see ParseFilter). It may name columns that are not returned.
	Where string
	// BatchSize bounds the records of a Batch; 0 means DefaultBatchSize.
	BatchSize int
	// Parallelism is how many files are read at once, in goroutines of
	// their own; 0 means runtime.GOMAXPROCS(0), and 1 reads in the caller's
	// goroutine. Record order is not specified either way.
	Parallelism int
	// Locator, if not nil, places the record keys that Where pins (see
	// KeyLocator), so that a lookup by key opens only the file groups
	// holding the keys. hoodie.Table.Scan sets it to the table's record
	// index.
	Locator KeyLocator
}

// Stats count what a scan read and what its filter let it skip.
type Stats struct {
	// FilesRead are the base files some rows of which were read;
	// FilesSkipped those pruned: by partition values, by instant (an
	// incremental scan), by record-key range and bloom filter, or because
	// statistics ruled out all of their row groups.
	FilesRead, FilesSkipped int
	// RowGroupsRead and RowGroupsSkipped count the row groups of the files
	// opened, read or ruled out by their column statistics.
	RowGroupsRead, RowGroupsSkipped int
	// RowsRead are the rows of the row groups read that were decoded: the
	// filter's columns of every one of them, and the other columns only of
	// the rows that passed the filter; RowsReturned are those rows.
	RowsRead, RowsReturned int64
	// KeysLocated counts the record keys the filter pins that
	// Options.Locator placed in their file groups (or found in none) before
	// any file was opened; 0 when there is no locator or it could not
	// answer, and the footers' key ranges and bloom filters pruned instead.
	KeysLocated int
	// PagesSkipped counts the data pages never read because the filter
	// ruled out all their rows: by the page statistics of its columns, or,
	// for the other columns, by the rows it selected (found by the offset
	// index; columns in lists and maps do not count).
	PagesSkipped int64
}

// Scan reads the records of a snapshot of a table, as of an instant, or
// changed since one, batch by batch (NextBatch) or record by record
// (Next). Files and row groups the filter rules out are never read. A Scan
// is not safe for concurrent use; Close it when done.
type Scan struct {
	// Set by NewScan, then only read.
	ctx         context.Context
	fsys        storage.FS
	view        *View
	schema      *basefile.Schema // of the records returned
	cols        []readCol        // the columns read: those returned, then the filter's others
	out         int              // how many of cols are returned
	filter      pred             // nil: every record
	filterCols  []bool           // by read column: the filter reads it
	part        partitioning
	computeMeta bool                 // the table does not populate meta fields
	keyCols     []bool               // by read column: its values are record keys
	consts      map[string][]*Vector // partition columns' values by partition
	located     map[string]groupRef  // the locator's answers; nil without them
	batchSize   int
	parallelism int

	mu     sync.Mutex // guards slices and stats
	slices []FileSlice
	stats  Stats

	main    *cursor // reading in the caller's goroutine
	workers *workers
	rows    *Batch // for Next
	rowIdx  int
	err     error
}

// NewScan opens a scan of the table on fsys, whose configuration is cfg
// and active timeline tl. It loads the file-system view of the snapshot,
// resolves the columns and the filter against the table schema as of that
// snapshot (an unknown column is an *UnknownColumnError, a filter that does
// not parse a *SyntaxError, one that does not fit its columns a
// *FilterError), and prunes the files that partition values or instants
// rule out. Reading starts with the first NextBatch or Next; ctx bounds the
// whole scan, the files read in the background included.
func NewScan(ctx context.Context, fsys storage.FS, cfg *config.Table, tl *timeline.Timeline, opts Options) (*Scan, error) {
	w, err := newWindow(opts)
	if err != nil {
		return nil, err
	}
	if err := w.resolve(tl); err != nil {
		return nil, err
	}
	view, err := LoadView(ctx, fsys, tl, w.viewAt)
	if err != nil {
		return nil, err
	}
	schema, err := readerSchema(ctx, cfg, tl, view)
	if err != nil {
		return nil, err
	}
	cs := &columnSet{schema: schema}
	if err := project(cs, opts.Columns); err != nil {
		return nil, err
	}
	out := len(cs.cols)
	filter, err := compileWhere(opts.Where, w, cs)
	if err != nil {
		return nil, err
	}
	s := &Scan{
		ctx:         ctx,
		fsys:        fsys,
		view:        view,
		schema:      &basefile.Schema{Name: schema.Name, Namespace: schema.Namespace, Doc: schema.Doc},
		cols:        cs.cols,
		out:         out,
		filter:      filter,
		part:        newPartitioning(cfg),
		computeMeta: !cfg.PopulateMetaFields,
		consts:      map[string][]*Vector{},
		batchSize:   cmp.Or(max(opts.BatchSize, 0), DefaultBatchSize),
		parallelism: cmp.Or(max(opts.Parallelism, 0), runtime.GOMAXPROCS(0)),
	}
	keyField := ""
	if len(cfg.RecordKeyFields) == 1 && singleKeyValues[cfg.KeyGeneratorClass] {
		keyField = cfg.RecordKeyFields[0]
	}
	if filter != nil {
		s.filterCols = make([]bool, len(s.cols))
		filter.columns(s.filterCols)
	}
	s.keyCols = make([]bool, len(s.cols))
	for i, c := range s.cols {
		// A key column's text is the record key; bytes make base64 keys,
		// which are not the column's values.
		s.keyCols[i] = reprOf(c.typ) == reprBytes && (c.name == basefile.MetaRecordKey ||
			c.name == keyField && (isText(c.typ) || c.typ.Logical == basefile.LogicalUUID))
		if i < out {
			s.schema.Fields = append(s.schema.Fields, basefile.Field{Name: c.name, Type: c.typ, Doc: c.doc})
		}
	}
	if s.located, err = s.locateKeys(ctx, opts.Locator); err != nil {
		return nil, err
	}
	s.stats.KeysLocated = len(s.located)
	for _, slice := range view.LatestSlices() {
		// This fills the partition constants of every slice read, which
		// the readers then share without writing.
		if w.skips(slice) || !s.mayMatch(s.source(slice, nil, nil)) {
			s.stats.FilesSkipped++
			continue
		}
		s.slices = append(s.slices, slice)
	}
	s.main = s.newCursor(1)
	return s, nil
}

// singleKeyValues are the key generators whose record key, for one key
// column, is that column's value (a complex key generator writes
// "col:value").
var singleKeyValues = map[string]bool{
	config.SimpleKeyGenerator:                       true,
	config.NonpartitionedKeyGenerator:               true,
	"org.apache.hudi.keygen.SimpleAvroKeyGenerator": true,
}

// project adds the columns to return to cs.
func project(cs *columnSet, columns []string) error {
	if len(columns) == 0 {
		for _, f := range cs.schema.Fields {
			if _, err := cs.resolve([]string{f.Name}); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range columns {
		n := len(cs.cols)
		i, err := cs.resolve(strings.Split(name, "."))
		if err != nil {
			return err
		}
		if i < n {
			return fmt.Errorf("column %q is listed twice", name)
		}
	}
	return nil
}

// compileWhere compiles the filter text and the incremental window's
// condition into one predicate, nil when there is neither.
func compileWhere(where string, w window, cs *columnSet) (pred, error) {
	var filter pred
	if where != "" {
		e, err := ParseFilter(where)
		if err != nil {
			return nil, err
		}
		if filter, err = compileFilter(e, cs); err != nil {
			return nil, err
		}
	}
	if !w.incremental {
		return filter, nil
	}
	p, err := w.predicate(cs)
	if err != nil || filter == nil {
		return p, err
	}
	return &andPred{p, filter}, nil
}

// Schema returns the schema of the records: one field per returned column,
// named as Options.Columns names it.
func (s *Scan) Schema() *basefile.Schema { return s.schema }

// View returns the file-system view the scan reads.
func (s *Scan) View() *View { return s.view }

// Stats returns the counts so far.
func (s *Scan) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// count updates the stats.
func (s *Scan) count(update func(*Stats)) {
	s.mu.Lock()
	update(&s.stats)
	s.mu.Unlock()
}

// takeSlice returns the next file slice to read; ok is false when none is
// left.
func (s *Scan) takeSlice() (slice FileSlice, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.slices) == 0 {
		return FileSlice{}, false
	}
	slice = s.slices[0]
	s.slices = s.slices[1:]
	return slice, true
}

// mayMatch reports whether the filter may be true for some row described
// by src.
func (s *Scan) mayMatch(src rangeSource) bool {
	return s.filter == nil || s.filter.possible(src).has(tTrue)
}

// partitionConstants returns the partition columns' values in partition,
// by read column.
func (s *Scan) partitionConstants(partition string) []*Vector {
	c, ok := s.consts[partition]
	if !ok {
		c = s.part.constants(partition, s.cols)
		s.consts[partition] = c
	}
	return c
}

// source describes the columns of a file slice: from its partition path
// and, once the file is open (f not nil), its column plans and footer, and
// the statistics of row group rg if not nil. It computes the partition's
// constants on the spot, and caches them.
func (s *Scan) source(slice FileSlice, f *fileReader, rg parquet.RowGroup) rangeSource {
	consts := s.partitionConstants(slice.Partition)
	return func(col int) colRange {
		if f == nil {
			if v, ok := computedMeta(s.cols[col].name, slice); ok && s.computeMeta {
				return constRange(textVector(v))
			}
		} else if p := f.plans[col]; p.constant != nil {
			return constRange(p.constant)
		}
		if consts != nil && consts[col] != nil {
			return constRange(consts[col])
		}
		if f == nil && s.located != nil && s.keyCols[col] {
			return colRange{known: true, mayNull: true, mayValue: true, mightHold: s.locatedIn(groupRef{slice.Partition, slice.FileID})}
		}
		if f == nil {
			return colRange{}
		}
		var r colRange
		if p := f.plans[col]; rg != nil && p.flat() {
			r = p.leaves[0].statsRange(rg)
		}
		if f.keys != nil && s.keyCols[col] {
			if !r.known {
				r = colRange{known: true, mayNull: true, mayValue: true}
			}
			r.mightHold = f.keys
		}
		return r
	}
}

// constRange describes a column holding one value.
func constRange(v *Vector) colRange {
	if v.IsNull(0) {
		return colRange{known: true, mayNull: true}
	}
	x, ok := scalarAt(v, 0)
	if !ok {
		return colRange{}
	}
	return colRange{known: true, mayValue: true, hasBounds: true, min: x, max: x}
}

// openFile opens a file slice and plans its reading; it returns nil when
// the file's footer rules out every row.
func (s *Scan) openFile(ctx context.Context, slice FileSlice) (*fileReader, error) {
	bf, err := basefile.Open(ctx, s.fsys, slice.Path)
	if err != nil {
		return nil, err
	}
	f := &fileReader{slice: slice, bf: bf, filter: s.filter, filterCols: s.filterCols}
	f.groupSource = func(rg parquet.RowGroup) rangeSource { return s.source(slice, f, rg) }
	if err := s.plan(f); err != nil {
		return nil, errors.Join(fmt.Errorf("base file %s: %w", slice.Path, err), f.close())
	}
	numGroups := len(bf.RowGroups())
	if s.filter != nil && !s.mayMatch(s.source(slice, f, nil)) {
		s.count(func(st *Stats) { st.FilesSkipped++; st.RowGroupsSkipped += numGroups })
		return nil, f.close()
	}
	skipped := 0
	for g, rg := range bf.RowGroups() {
		switch {
		case rg.NumRows() == 0:
		case s.filter != nil && !s.mayMatch(s.source(slice, f, rg)):
			skipped++
		default:
			f.groups = append(f.groups, g)
		}
	}
	if len(f.groups) == 0 {
		s.count(func(st *Stats) { st.FilesSkipped++; st.RowGroupsSkipped += skipped })
		return nil, f.close()
	}
	s.count(func(st *Stats) { st.FilesRead++; st.RowGroupsRead += len(f.groups); st.RowGroupsSkipped += skipped })
	return f, nil
}

// plan maps the read columns onto the file. Meta columns of a file without
// meta fields, or of a table that does not populate them, are computed
// where the file determines them (see computedMeta); a partition column
// the file does not store, or any partition column of a table with
// hoodie.datasource.write.drop.partition.columns=true, takes its value from
// the partition path.
func (s *Scan) plan(f *fileReader) error {
	hasMeta := f.bf.Schema().HasMetaFields() && !s.computeMeta
	consts := s.partitionConstants(f.slice.Partition)
	pschema := f.bf.Parquet().Schema()
	for i, c := range s.cols {
		var p *colPlan
		if v, ok := computedMeta(c.name, f.slice); ok && !hasMeta {
			p = &colPlan{constant: textVector(v)}
		} else {
			var err error
			if p, err = planColumn(pschema, c); err != nil {
				return err
			}
		}
		if consts != nil && consts[i] != nil && (s.part.dropped || p.constant != nil && p.constant.IsNull(0)) {
			// A table that drops the partition columns takes them from
			// the folders even where a file stores them, as Spark does:
			// a file Hoodie rewrote from Spark's holds nulls there.
			p = &colPlan{constant: consts[i]}
		}
		p.setNested()
		f.plans = append(f.plans, p)
	}
	switch {
	case s.located != nil:
		// The locator's answer is exact: no need for the bloom filter.
		f.keys = s.locatedIn(groupRef{f.slice.Partition, f.slice.FileID})
	case hasMeta && s.filter != nil:
		f.keys = keyChecker(f.bf)
	}
	return nil
}

// keyChecker returns a test of whether a record key may be in the file,
// from the footer's least and greatest keys and bloom filter.
func keyChecker(bf *basefile.File) func(string) bool {
	minKey, maxKey, ok := bf.RecordKeyRange()
	// The footer orders keys as Java strings (UTF-16); for ASCII that is
	// byte order.
	ok = ok && isASCII(minKey) && isASCII(maxKey)
	bloom, err := bf.BloomFilter()
	if err != nil {
		bloom = nil
	}
	return func(k string) bool {
		if ok && isASCII(k) && (k < minKey || k > maxKey) {
			return false
		}
		return bloom == nil || bloom.MightContain(k)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// cursor is one reader of the scan's files: the file it is in and the
// batches it fills, used in turn.
type cursor struct {
	file *fileReader
	bufs []*Batch // every read column
	outs []*Batch // the returned columns of bufs
	next int      // the buffer to fill next
}

// newCursor returns a cursor with n batch buffers.
func (s *Scan) newCursor(n int) *cursor {
	c := &cursor{}
	for range n {
		b := &Batch{schema: s.schema}
		for _, col := range s.cols {
			b.cols = append(b.cols, newVector(col.typ))
		}
		c.bufs = append(c.bufs, b)
		c.outs = append(c.outs, &Batch{schema: s.schema, cols: b.cols[:s.out]})
	}
	return c
}

// close closes the cursor's file.
func (c *cursor) close() error {
	if c.file == nil {
		return nil
	}
	err := c.file.close()
	c.file = nil
	return err
}

// fill reads the next batch of records that pass the filter, from the
// cursor's file and then from the files left to read, into the cursor's
// next buffer. It returns io.EOF when no file is left.
func (s *Scan) fill(ctx context.Context, c *cursor) (*Batch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.file == nil {
			slice, ok := s.takeSlice()
			if !ok {
				return nil, io.EOF
			}
			f, err := s.openFile(ctx, slice)
			if err != nil {
				return nil, err
			}
			if f == nil {
				continue
			}
			c.file = f
		}
		b, err := s.readFile(c)
		if err == errEndOfFile {
			continue
		}
		return b, err
	}
}

// readFile reads the next batch of records that pass the filter from the
// cursor's file into the cursor's next buffer. After the file's last row,
// it closes the file and returns errEndOfFile.
func (s *Scan) readFile(c *cursor) (*Batch, error) {
	f := c.file
	for {
		b, out := c.bufs[c.next], c.outs[c.next]
		n, err := f.readBatch(b, s.batchSize)
		if err == errEndOfFile {
			err := c.close()
			s.count(func(st *Stats) { st.PagesSkipped += f.takePagesSkipped() })
			if err != nil {
				return nil, err
			}
			return nil, errEndOfFile
		}
		if err != nil {
			return nil, fmt.Errorf("read base file %s: %w", f.slice.Path, err)
		}
		out.n = b.n
		s.count(func(st *Stats) {
			st.RowsRead += int64(n)
			st.RowsReturned += int64(out.n)
			st.PagesSkipped += f.takePagesSkipped()
		})
		if out.n > 0 {
			c.next = (c.next + 1) % len(c.bufs)
			return out, nil
		}
	}
}

// ReadSlice reads the records of one file slice of the scan, one of
// View().LatestSlices(), that pass the filter, and calls fn with each batch
// of them; a batch is valid only until fn returns. The records are as
// NextBatch returns them, in the scan's schema. Unlike NextBatch and Next,
// which read all of the scan's files, ReadSlice reads just the one, in the
// caller's goroutine, and may be called from several goroutines at once,
// for different slices; do not mix it with NextBatch or Next. An error of
// fn ends the read and is returned.
func (s *Scan) ReadSlice(ctx context.Context, slice FileSlice, fn func(*Batch) error) (err error) {
	if _, ok := s.consts[slice.Partition]; !ok {
		// NewScan computed the partition constants of every slice it
		// reads, and readers share them without writing.
		return fmt.Errorf("base file %s: not a file of the scan's snapshot", slice.Path)
	}
	f, err := s.openFile(ctx, slice)
	if err != nil || f == nil {
		return err
	}
	c := s.newCursor(1)
	c.file = f
	defer func() { err = errors.Join(err, c.close()) }()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := s.readFile(c)
		if err == errEndOfFile {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}

// NextBatch returns the next batch of records, or io.EOF after the last.
// The batch is valid until the next call. Do not mix NextBatch and Next.
func (s *Scan) NextBatch(ctx context.Context) (*Batch, error) {
	if s.err != nil {
		return nil, s.err
	}
	var b *Batch
	var err error
	if s.workers == nil && s.parallelism > 1 && s.filesLeft() > 1 {
		s.workers = s.startWorkers()
	}
	if s.workers != nil {
		b, err = s.workers.receive(ctx)
	} else {
		b, err = s.fill(ctx, s.main)
	}
	if err != nil {
		s.err = err
		if cerr := s.Close(); cerr != nil && err != io.EOF {
			s.err = errors.Join(err, cerr)
		}
	}
	return b, s.err
}

// filesLeft returns how many file slices are left to read.
func (s *Scan) filesLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.slices)
}

// Next returns the next record as a row of the value model, one value per
// field of Schema, or io.EOF after the last. Do not mix Next and
// NextBatch.
func (s *Scan) Next(ctx context.Context) ([]any, error) {
	for s.rows == nil || s.rowIdx == s.rows.n {
		b, err := s.NextBatch(ctx)
		if err != nil {
			return nil, err
		}
		s.rows, s.rowIdx = b, 0
	}
	s.rowIdx++
	return s.rows.Row(s.rowIdx - 1), nil
}

// Close stops the scan and releases the files being read. A closed scan
// returns no more records.
func (s *Scan) Close() error {
	s.mu.Lock()
	s.slices = nil
	s.mu.Unlock()
	if s.err == nil {
		s.err = io.EOF
	}
	var err error
	if s.workers != nil {
		err = s.workers.stop()
	}
	return errors.Join(err, s.main.close())
}

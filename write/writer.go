package write

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Operation is a kind of write.
type Operation int

// The write operations of the hoodiectl contract.
const (
	// OpInsert adds records whose keys are new, filling small file groups.
	// Records whose _hoodie_is_deleted is true are skipped.
	OpInsert Operation = iota + 1
	// OpBulkInsert adds records whose keys are new into new file groups.
	// Records whose _hoodie_is_deleted is true are skipped.
	OpBulkInsert
	// OpUpsert inserts new keys and updates existing ones.
	OpUpsert
	// OpDelete removes the records whose keys are given.
	OpDelete
	// OpSoftDelete keeps the given records but nulls every column except the
	// record key, partition and precombine columns.
	OpSoftDelete
	// OpInsertOverwrite replaces every file group of the partitions the
	// input's records go to with new file groups of those records, as one
	// replacecommit. Records whose _hoodie_is_deleted is true are skipped.
	OpInsertOverwrite
	// OpInsertOverwriteTable replaces every file group of the table with
	// new file groups of the input's records, as one replacecommit.
	OpInsertOverwriteTable
	// OpDeletePartition replaces every file group of the given partitions
	// with nothing: Writer.DeletePartitions runs it, Write refuses it.
	OpDeletePartition
	// OpCluster rewrites small file groups into full ones: Writer.Cluster
	// runs it, Write refuses it.
	OpCluster
)

var operationNames = map[Operation]string{
	OpInsert: "insert", OpBulkInsert: "bulk-insert", OpUpsert: "upsert", OpDelete: "delete", OpSoftDelete: "soft-delete",
	OpInsertOverwrite: "insert-overwrite", OpInsertOverwriteTable: "insert-overwrite-table", OpDeletePartition: "delete-partition",
	OpCluster: "cluster",
}

// String returns the operation's command name.
func (o Operation) String() string {
	if s, ok := operationNames[o]; ok {
		return s
	}
	return fmt.Sprintf("Operation(%d)", int(o))
}

// hudi returns the operation type Hudi records for it; a soft delete is an
// upsert of nulled records.
func (o Operation) hudi() timeline.Operation {
	switch o {
	case OpInsert:
		return timeline.OperationInsert
	case OpBulkInsert:
		return timeline.OperationBulkInsert
	case OpDelete:
		return timeline.OperationDelete
	case OpInsertOverwrite:
		return timeline.OperationInsertOverwrite
	case OpInsertOverwriteTable:
		return timeline.OperationInsertOverwriteTable
	case OpDeletePartition:
		return timeline.OperationDeletePartition
	case OpCluster:
		return timeline.OperationCluster
	default:
		return timeline.OperationUpsert
	}
}

// IsDeletedColumn is the column whose true value makes an upsert delete the
// record's key (basefile.IsDeletedField).
const IsDeletedColumn = basefile.IsDeletedField

// PendingCommit is what the pre-commit hook sees: the write's new files,
// written but not yet committed, and the table as it was.
type PendingCommit struct {
	FS        storage.FS
	Config    *config.Table
	Instant   string
	Operation Operation
	// Schema is the table schema after the write, without meta fields.
	Schema *basefile.Schema
	// Before are the latest file slices of the table before the write, and
	// After those the table will have once the write commits.
	Before, After []read.FileSlice
	// Partitions are the partitions the write touches.
	Partitions []string
	// Settings are the write's settings, validator settings included.
	Settings *config.Properties
}

// PreCommitHook decides whether a write may commit. An error aborts the
// write: its files and instant are removed and the table stays as it was.
// Return a *RefusedError for a failed check (exit status 1).
type PreCommitHook interface {
	PreCommit(ctx context.Context, c *PendingCommit) error
}

// Options configure a Writer.
type Options struct {
	// Settings are the write settings; the zero value means DefaultSettings.
	Settings Settings
	// IndexDir is the folder of the record index.
	IndexDir string
	// TableID tells the index this table from another of the same name
	// (the table's base path, for a local table).
	TableID string
	// Hook, if not nil, runs before every commit.
	Hook PreCommitHook
	// Clock gives the current time; nil means time.Now.
	Clock func() time.Time
	// Local is the zone of instant times on a table whose timeline zone is
	// LOCAL (hoodie.table.timeline.timezone LOCAL or absent, as Spark
	// creates tables): nil means time.Local, the process's zone, as Hudi
	// uses the JVM's default zone. A UTC table's instant times are in UTC
	// whatever Local says.
	Local *time.Location
	// LockWaiting, if not nil, is called once when a write has waited a
	// second for the table's writer lock, with its holder (nil when
	// unknown): a caller tells its user whom the write waits for.
	LockWaiting func(holder *storage.LockHolder)
	// Notify, if not nil, receives what a write repaired on its way
	// without failing: a record index it found unusable (damaged, or
	// left broken by a full disk) and rebuilt from the table's files.
	Notify func(error)
	// Progress, if not nil, is called as each base file of a write is
	// written, with the files done and the files planned. It is called from
	// several goroutines, one call at a time.
	Progress func(done, total int)
}

// Writer writes to one table. Each Write takes the table's writer lock, so
// writers in several processes take turns; readers never wait.
type Writer struct {
	fsys     storage.FS
	cfg      *config.Table
	settings Settings
	opts     Options
	gen      *timeline.Generator
}

// NewWriter returns a writer of the table on fsys.
func NewWriter(fsys storage.FS, opts Options) *Writer {
	if opts.Settings.MaxFileSize == 0 {
		opts.Settings = DefaultSettings()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Writer{fsys: fsys, settings: opts.Settings, opts: opts, gen: timeline.NewGenerator(opts.Clock)}
}

// Result describes a write.
type Result struct {
	// Instant is the instant the write committed; "" when it had nothing to
	// commit.
	Instant   string
	Operation Operation
	// Counts over the files written.
	Inserted, Updated, Deleted, Written int64
	// Skipped counts input records that changed nothing: duplicates dropped,
	// deletes of absent keys.
	Skipped int64
	// Files are the base files written.
	Files []read.FileSlice
	// Clean is the clean instant the automatic cleaner completed after
	// the commit; "" when it cleaned nothing.
	Clean string
	// Warnings report housekeeping after the commit point that failed: the
	// commit stands, and the next write repairs what they name.
	Warnings []error
}

// Write applies op with the records of in as one commit. Before anything is
// written it rolls back what failed writers left. Any failure leaves the
// table as it was.
func (w *Writer) Write(ctx context.Context, op Operation, in *Input) (*Result, error) {
	switch {
	case op == OpDeletePartition:
		return nil, errors.New("delete-partition takes partitions, not records: use DeletePartitions")
	case op == OpCluster:
		return nil, errors.New("cluster takes no records: use Cluster")
	case len(in.Rows) == 0 && op.Overwrites():
		return nil, &RefusedError{fmt.Errorf("%s: no records: %s would replace the partitions with nothing; delete-partition removes partitions", in.displayName(), op)}
	case len(in.Rows) == 0:
		return nil, fmt.Errorf("%s: no records", in.displayName())
	}
	unlock, tl, view, err := w.beginOnView(ctx, op)
	if err != nil {
		return nil, err
	}
	defer unlock()
	tableSchema, err := read.TableSchema(ctx, w.cfg, tl)
	if err != nil {
		return nil, err
	}
	if tableSchema == nil && (op == OpDelete || op == OpSoftDelete) {
		// Nothing was ever written: every key is absent, and absent keys
		// are ignored.
		return &Result{Operation: op, Skipped: int64(len(in.Rows))}, nil
	}
	named, err := namedSingleKeys(ctx, w.fsys, w.cfg, view)
	if err != nil {
		return nil, err
	}
	schema, records, err := w.prepare(op, in, tableSchema, named)
	if err != nil {
		return nil, err
	}
	if lossy := lossyWidenings(tableSchema, schema); len(lossy) > 0 && !w.settings.LossyWidening {
		if err := checkStoredWidening(ctx, w.fsys, view, lossy); err != nil {
			return nil, fmt.Errorf("%s: %w", in.displayName(), err)
		}
	}
	idx, err := w.openIndex(ctx, tl, view)
	if err != nil {
		return nil, err
	}
	defer func() { idx.Close() }()
	repl := overwriteTargets(op, records, view)
	p, err := w.makePlan(ctx, op, in, records, view, idx, repl)
	if errors.Is(err, index.ErrBroken) || errors.Is(err, index.ErrStale) {
		// Its store failed while tagging (a damaged table of it that the
		// catch-up did not read), or a record it holds names no file
		// group of it or of the table (damage the store's checksums did
		// not catch).
		_ = idx.Close()
		fresh, rerr := w.replaceIndex(ctx, view, err)
		if rerr != nil {
			return nil, rerr
		}
		idx = fresh
		p, err = w.makePlan(ctx, op, in, records, view, idx, repl)
	}
	if err != nil {
		return nil, err
	}
	avg, err := averageRecordSize(ctx, tl, w.settings.RecordSizeEstimate)
	if err != nil {
		return nil, err
	}
	// A pending replacecommit (Spark's clustering, or an insert overwrite)
	// hides, once complete, every version of the file groups it replaces,
	// a version this write adds included: Hudi refuses updates to file
	// groups under clustering. This write changes none of them, and puts
	// no new records into them.
	locks, err := pendingReplaces(ctx, w.fsys, tl)
	if err != nil {
		return nil, err
	}
	if err := locks.checkReplace(repl); err != nil {
		return nil, &RefusedError{fmt.Errorf("%s: %w", in.displayName(), err)}
	}
	// Hudi's insert overwrite, too, writes new file groups only.
	newTasks := w.assignInserts(p, view, avg, op == OpBulkInsert || repl != nil, locks.locked)
	for _, t := range existingTasks(p) {
		if instant, locked := locks.locked(t.partition, t.fileID); locked {
			return nil, &RefusedError{fmt.Errorf("%s: file group %s is under replacecommit %s (a clustering or an insert overwrite), still pending: once complete it would hide this write's change to it; write again once it completes or is rolled back",
				in.displayName(), groupKey(t.partition, t.fileID), instant)}
		}
	}
	tasks := append(existingTasks(p), newTasks...)
	res := &Result{Operation: op, Skipped: int64(p.skipped)}
	// An insert overwrite of deleted records only still replaces their
	// partitions, with nothing.
	if len(tasks) == 0 && repl == nil {
		return res, nil
	}
	c := &commit{w: w, op: op, in: in, tl: tl, view: view, schema: schema, tableSchemaChanged: !schema.Equal(tableSchema), idx: idx, repl: repl}
	if err := c.run(ctx, tasks, p); err != nil {
		return nil, err
	}
	c.finish(ctx, res)
	return res, nil
}

// prepare evolves the table schema for the input and turns the input rows
// into records under it, checked and deduplicated, in record-key order (in
// input order for a bulk insert whose sort mode does not sort). namedKeys
// says that the table's keys of one column are "col:value" (see
// namedSingleKeys).
func (w *Writer) prepare(op Operation, in *Input, tableSchema *basefile.Schema, namedKeys bool) (*basefile.Schema, []*record, error) {
	deletesOnly := op == OpDelete || op == OpSoftDelete
	if i := in.Schema.FieldIndex(IsDeletedColumn); i >= 0 && !deletesOnly && in.Schema.Fields[i].Type.Kind != basefile.KindBoolean {
		// Nulls alone are harmless: an earlier Hoodie made such a column a
		// string in the first write whose values were all null.
		for r, row := range in.Rows {
			if i < len(row) && row[i] != nil {
				return nil, nil, in.recordError(r, "", fmt.Errorf("column %s holds %s values; it must hold booleans, true for the records to delete", IsDeletedColumn, in.Schema.Fields[i].Type.Kind))
			}
		}
	}
	schema := tableSchema
	if !deletesOnly {
		if err := checkColumnNames(in.Schema.Fields); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in.displayName(), err)
		}
		evolved, _, err := EvolveSchema(tableSchema, in.Schema, slices.Concat(w.cfg.RecordKeyFields, w.cfg.PartitionFields))
		if err != nil {
			return nil, nil, &RefusedError{fmt.Errorf("%s: %w", in.displayName(), err)}
		}
		schema = evolved
	}
	keygen, err := NewKeyGenerator(w.cfg, schema)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: table %s: %w", in.displayName(), w.cfg.Name, err)
	}
	keygen.named = namedKeys
	if err := keygen.SetTimestampSettings(w.cfg, w.settings.Props, w.opts.Local); err != nil {
		return nil, nil, err
	}
	var conv *rowConverter
	if deletesOnly {
		// Deletes need only the key and partition columns: the others, of
		// any type or none, are left out.
		conv, err = newKeysConverter(schema, in.Schema, slices.Concat(w.cfg.RecordKeyFields, w.cfg.PartitionFields))
	} else {
		conv, err = newRowConverter(schema, in.Schema)
	}
	if err != nil {
		return nil, nil, &RefusedError{fmt.Errorf("%s: %w", in.displayName(), err)}
	}
	precombine := -1
	if f := w.cfg.PrecombineField; f != "" && !deletesOnly {
		if precombine = schema.FieldIndex(f); precombine < 0 {
			return nil, nil, fmt.Errorf("%s: precombine column %q is missing from the input", in.displayName(), f)
		}
		if err := checkOrderingType(schema.Fields[precombine].Type); err != nil {
			return nil, nil, fmt.Errorf("precombine column %q: %w", f, err)
		}
	}
	// A record whose _hoodie_is_deleted is true deletes its key in an
	// upsert, and is not written by an insert, as Hudi's insert drops it.
	isDeleted := -1
	if !deletesOnly {
		isDeleted = schema.FieldIndex(IsDeletedColumn)
	}
	// Converting rows and computing keys is independent per row: it runs
	// on every core. Their positions are then sorted by key, and
	// precombining is a pass over neighbours in that order.
	if len(in.Rows) > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%s: %d records in one write; at most %d", in.displayName(), len(in.Rows), math.MaxInt32)
	}
	// Parquet's strings are UTF-8, and readers refuse a file with others
	// (DuckDB) or change them (Java's, which would no longer find the key).
	var texts []int
	for i, f := range schema.Fields {
		switch f.Type.Kind {
		case basefile.KindString, basefile.KindRecord, basefile.KindArray, basefile.KindMap:
			texts = append(texts, i)
		}
	}
	all := make([]record, len(in.Rows))
	err = parallelChunks(len(in.Rows), w.settings.Parallelism, func(lo, hi int) error {
		parts := newPartitionCache(keygen)
		for i := lo; i < hi; i++ {
			row, err := conv.convertRow(in.Rows[i])
			if err != nil {
				return in.recordError(i, "", err)
			}
			for _, c := range texts {
				if s, bad := invalidText(row[c]); bad {
					return in.recordError(i, "", fmt.Errorf("column %q: %q is not valid UTF-8 text", schema.Fields[c].Name, s))
				}
			}
			key, err := keygen.InputKey(row)
			if err != nil {
				return in.recordError(i, "", err)
			}
			partition, err := parts.path(row)
			if err != nil {
				return in.recordError(i, key, err)
			}
			r := &all[i]
			*r = record{row: row, key: key, partition: partition, pos: int32(i)}
			if precombine >= 0 {
				if why := badOrdering(row[precombine]); why != "" {
					return in.recordError(i, key, fmt.Errorf("precombine column %q is %s", w.cfg.PrecombineField, why))
				}
			}
			if isDeleted >= 0 {
				if b, ok := row[isDeleted].(bool); ok && b {
					r.deleted = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	order := keyOrder(all, w.settings.Parallelism)
	records, failed, err := precombineKeys(all, order, precombine)
	if err != nil {
		return nil, nil, in.recordError(int(failed.pos), failed.key, err)
	}
	if op == OpBulkInsert && !w.settings.SortsBulkInsert() {
		// The key order only brought the records of each key together.
		records = inInputOrder(all, records)
	}
	return schema, records, nil
}

// invalidText returns the first string of v, a value of the value model,
// that is not valid UTF-8: v itself, or one inside its records, arrays and
// maps (map keys included).
func invalidText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, !utf8.ValidString(x)
	case []any:
		for _, e := range x {
			if s, bad := invalidText(e); bad {
				return s, true
			}
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) {
				return k, true
			}
			if s, bad := invalidText(e); bad {
				return s, true
			}
		}
	}
	return "", false
}

// replaceLocks are the file groups that pending replacecommits may
// replace.
type replaceLocks struct {
	// all is a pending replacecommit whose file groups are not known (an
	// insert overwrite, or a plan that does not read): it may replace any.
	all    string
	groups map[timeline.FileGroupID]string // a clustering's, by the instant
}

// pendingReplaces reads the clustering plans of the pending replacecommits
// of tl (see timeline.ReadClusteringPlan).
func pendingReplaces(ctx context.Context, fsys storage.FS, tl *timeline.Timeline) (*replaceLocks, error) {
	locks := &replaceLocks{groups: map[timeline.FileGroupID]string{}}
	for _, in := range tl.Pending().Instants() {
		if in.Action != timeline.ActionReplaceCommit {
			continue
		}
		plan, err := readClusteringPlan(ctx, fsys, in)
		if err != nil || plan == nil {
			// Unknown file groups: any may be replaced.
			locks.all = in.Time
			continue
		}
		for _, g := range plan.FileGroups() {
			locks.groups[g] = in.Time
		}
	}
	return locks, nil
}

// locked reports whether a pending replacecommit may replace the file group,
// and which.
func (l *replaceLocks) locked(partition, fileID string) (string, bool) {
	if l.all != "" {
		return l.all, true
	}
	instant, ok := l.groups[timeline.FileGroupID{Partition: partition, FileID: fileID}]
	return instant, ok
}

// parallelChunks splits [0, n) into up to workers chunks and runs fn on each
// concurrently. Of the chunks that fail, the error of the first is returned,
// so the error names the earliest bad record.
func parallelChunks(n, workers int, fn func(lo, hi int) error) error {
	workers = max(min(workers, n/4096), 1)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for c := range workers {
		lo, hi := n*c/workers, n*(c+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = fn(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// existingTasks returns a task per existing file group the plan changes.
func existingTasks(p *plan) []*fileGroupTask {
	keys := make([]string, 0, len(p.groups))
	for k := range p.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tasks := make([]*fileGroupTask, 0, len(keys))
	for _, k := range keys {
		g := p.groups[k]
		slice := g.slice
		tasks = append(tasks, &fileGroupTask{partition: slice.Partition, fileID: slice.FileID, prev: &slice, work: g, inserts: g.inserts})
	}
	return tasks
}

// averageRecordSize learns the size of a record from the latest completed
// write, as Hudi does, or falls back to the estimate.
func averageRecordSize(ctx context.Context, tl *timeline.Timeline, estimate int64) (int64, error) {
	commits := tl.CompletedCommits().Instants()
	for i := len(commits) - 1; i >= 0; i-- {
		meta, err := tl.ReadCommitMetadata(ctx, commits[i])
		if err != nil {
			return 0, err
		}
		t := meta.Totals()
		if t.Written > 0 && t.Bytes > 0 {
			return max(t.Bytes/t.Written, 1), nil
		}
	}
	return estimate, nil
}

// runTasks writes the tasks' files, Settings.Parallelism at a time, and
// returns their results in task order. The first failure cancels the rest.
func runTasks(ctx context.Context, env *taskEnv, tasks []*fileGroupTask, firstTaskNo int) ([]taskResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]taskResult, len(tasks))
	errs := make([]error, len(tasks))
	sem := make(chan struct{}, max(env.w.settings.Parallelism, 1))
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	for i, t := range tasks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			results[i], errs[i] = env.runTask(ctx, t, firstTaskNo+i)
			if errs[i] != nil {
				cancel()
				return
			}
			if p := env.w.opts.Progress; p != nil {
				progressMu.Lock()
				done++
				p(done, len(tasks))
				progressMu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

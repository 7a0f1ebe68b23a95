package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// commit carries one write through the commit protocol: requested,
// inflight, data files (with markers), pre-commit hook, completed.
type commit struct {
	w                  *Writer
	op                 Operation
	in                 *Input
	tl                 *timeline.Timeline
	view               *read.View
	schema             *basefile.Schema
	tableSchemaChanged bool

	instant timeline.Instant
	results []taskResult
	meta    *timeline.CommitMetadata
	// idx is the record index, caught up to view. When the plan fixes the
	// index changes (see plannedChanges), planned holds them, and prepared
	// is them prepared while the files were written (nil if that failed).
	idx      *index.Index
	planned  *index.ChangeSet
	prepared *index.Prepared
	// completeErr is the error Complete reported although the completed
	// file was made: the commit stands, and finish reports it as a warning.
	completeErr error
	// repl, when not nil, makes the commit a replacecommit that replaces
	// these file groups, and replacedKeys are the keys they held.
	repl         *replacement
	replacedKeys []string
	// plan is a clustering's plan, and resume, when not zero, its pending
	// instant, which the commit completes.
	plan   *timeline.ClusteringPlan
	resume timeline.Instant
}

// run writes the data and completes the instant. On any failure it rolls
// the instant back, leaving the table as it was.
func (c *commit) run(ctx context.Context, tasks []*fileGroupTask, p *plan) (err error) {
	w := c.w
	// The heartbeat starts before the requested file, as Hudi's writers
	// start theirs: a Spark writer with the multi-writer setting LAZY rolls
	// back a pending commit without a fresh heartbeat, and must never see
	// this one so. A crash between the two leaves a Hoodie heartbeat of an
	// instant the timeline lacks, which the next write removes.
	var beat *heartbeat
	requested, err := c.start(ctx, func(ctx context.Context, instant string) (func(), error) {
		b, err := startHeartbeat(ctx, w.fsys, instant, w.settings.HeartbeatInterval)
		if err != nil {
			return nil, err
		}
		beat = b
		return func() { b.stop(ctx); beat = nil }, nil
	})
	if err != nil {
		return err
	}
	c.instant = requested
	defer func() {
		if err != nil {
			if rbErr := rollbackPending(context.WithoutCancel(ctx), w.fsys, c.instant); rbErr != nil {
				err = errors.Join(err, fmt.Errorf("the failed write could not be rolled back (the next write will): %w", rbErr))
			}
		}
		// The heartbeat stops only once the instant is complete or gone:
		// until then a Spark writer must see the write alive.
		if beat != nil {
			beat.stop(ctx)
		}
	}()
	if beat == nil {
		// A resumed clustering, whose requested file exists: its heartbeat
		// starts before any data file.
		if beat, err = startHeartbeat(ctx, w.fsys, requested.Time, w.settings.HeartbeatInterval); err != nil {
			return err
		}
	}
	if requested.State == timeline.StateRequested {
		// Hudi's clustering leaves its inflight file empty.
		var profileJSON []byte
		if c.op != OpCluster {
			if profileJSON, err = workloadProfile(c.op, tasks).MarshalJSON(); err != nil {
				return err
			}
		}
		// c.instant moves on only once the inflight file exists: on
		// failure it stays the requested instant, which the deferred
		// rollback removes.
		inflight, err := timeline.TransitionToInflight(ctx, w.fsys, requested, profileJSON)
		if err != nil {
			return fmt.Errorf("start commit %s: %w", requested.Time, err)
		}
		c.instant = inflight
	}
	stopIndex := c.prepareIndex(ctx, tasks)
	defer func() {
		stopIndex(err != nil)
		if err != nil && c.prepared != nil {
			if dErr := c.prepared.Discard(); dErr != nil {
				err = errors.Join(err, dErr)
			}
		}
	}()
	env, err := c.taskEnv()
	if err != nil {
		return err
	}
	if c.results, err = c.writeFiles(ctx, env, tasks, 0); err != nil {
		return err
	}
	// Moves decided by the event-time merge go to their new partitions.
	var moved []*record
	for _, r := range c.results {
		moved = append(moved, r.moves...)
	}
	if len(moved) > 0 {
		// New file groups take their records in key order.
		slices.SortFunc(moved, func(a, b *record) int { return strings.Compare(a.key, b.key) })
		movedPlan := &plan{groups: map[string]*groupWork{}, newInserts: map[string][]*record{}}
		for _, r := range moved {
			movedPlan.newInserts[r.partition] = append(movedPlan.newInserts[r.partition], r)
		}
		moveTasks := c.w.assignInserts(movedPlan, &read.View{}, c.w.settings.RecordSizeEstimate, true, nil)
		more, err := c.writeFiles(ctx, env, moveTasks, len(tasks))
		if err != nil {
			return err
		}
		c.results = append(c.results, more...)
	}
	if c.meta, err = c.metadata(); err != nil {
		return err
	}
	if c.repl != nil && c.op != OpCluster {
		// A clustering puts every key it replaces again.
		if c.replacedKeys, err = replacedKeys(ctx, c); err != nil {
			return err
		}
	}
	if hook := w.opts.Hook; hook != nil {
		if err := hook.PreCommit(ctx, c.pending()); err != nil {
			return err
		}
	}
	data, err := c.completedData()
	if err != nil {
		return err
	}
	if err := c.checkConcurrentCommits(ctx); err != nil {
		return err
	}
	if err := w.checkHeartbeat(ctx, c.instant.Time); err != nil {
		return err
	}
	if _, err := timeline.Complete(ctx, w.fsys, c.instant, data); err != nil {
		// The error may come after the completed file was made (a folder
		// sync, a lost acknowledgement): then the commit stands, and must
		// be finished, not rolled back.
		if !c.completedDespite(ctx, data) {
			return fmt.Errorf("complete commit %s: %w", c.instant.Time, err)
		}
		c.completeErr = err
	}
	return nil
}

// start creates the commit's requested instant, calling claim with its
// time first (see timeline.CreateRequestedWith), or for a clustering left
// pending returns its instant, having removed the files an earlier attempt
// wrote, without calling claim.
func (c *commit) start(ctx context.Context, claim timeline.Claim) (timeline.Instant, error) {
	w := c.w
	if c.resume.Time != "" {
		if err := removeWrittenFiles(ctx, w.fsys, c.resume); err != nil {
			return timeline.Instant{}, fmt.Errorf("resume clustering %s: %w", c.resume.Time, err)
		}
		return c.resume, nil
	}
	action, plan := timeline.ActionCommit, []byte(nil)
	if c.repl != nil || c.plan != nil {
		action = timeline.ActionReplaceCommit
		var err error
		if plan, err = c.requested(); err != nil {
			return timeline.Instant{}, err
		}
	}
	requested, err := timeline.CreateRequestedWith(ctx, w.fsys, w.gen, action, plan, claim)
	if err != nil {
		return timeline.Instant{}, fmt.Errorf("start commit: %w", err)
	}
	return requested, nil
}

// prepareIndex starts preparing the index changes of the write on their
// own goroutine, when the plan fixes them (see plannedChanges), so that
// they are gathered and made while the files are written and the commit's
// end only ingests them. It returns a function that waits for it, having
// cancelled it if the write failed. c.planned is then the changes, and
// c.prepared them prepared, or nil if the changes are not planned or could
// not be prepared (finish then applies them as usual, and reports the
// failure if it happens again).
func (c *commit) prepareIndex(ctx context.Context, tasks []*fileGroupTask) (stop func(failed bool)) {
	if c.op != OpInsert && c.op != OpBulkInsert {
		return func(bool) {}
	}
	// Set now, filled in by the goroutine: the tasks need only know that
	// the changes are planned.
	c.planned = new(index.ChangeSet)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		*c.planned = plannedChanges(tasks)
		if p, err := c.idx.Prepare(ctx, c.instant.Time, *c.planned); err == nil {
			c.prepared = p
		}
	}()
	return func(failed bool) {
		if failed {
			cancel()
		}
		<-done
		cancel()
	}
}

// plannedChanges returns the index changes of an insert or a bulk insert,
// which the plan fixes: each new record goes into the file group its task
// writes, in the order the tasks write them, and nothing else changes (an
// insert refuses or skips keys the table holds). The tasks only read the
// records meanwhile. For other operations the merge decides the changes.
//
// The changes are a put group a task: a key takes a string, where a Put
// takes three. On a bulk insert of 1M records, Puts took 48 MB.
func plannedChanges(tasks []*fileGroupTask) index.ChangeSet {
	groups := make([]index.PutGroup, len(tasks))
	for i, t := range tasks {
		keys := make([]string, len(t.inserts))
		for j, r := range t.inserts {
			keys[j] = r.key
		}
		groups[i] = index.PutGroup{Location: index.Location{PartitionPath: t.partition, FileID: t.fileID}, Keys: keys}
	}
	return index.ChangeSet{PutGroups: groups}
}

// completedDespite reports whether the instant's completed file exists and
// holds data, although Complete reported an error.
func (c *commit) completedDespite(ctx context.Context, data []byte) bool {
	done, err := timeline.Instant{Time: c.instant.Time, Action: c.instant.Action, State: timeline.StateCompleted}.Path()
	if err != nil {
		return false
	}
	// The write may have been cancelled as its completed file was made:
	// the look must not fail for that.
	got, err := c.w.fsys.ReadFile(context.WithoutCancel(ctx), done)
	return err == nil && bytes.Equal(got, data)
}

func (c *commit) taskEnv() (*taskEnv, error) {
	env := &taskEnv{w: c.w, op: c.op, in: c.in, instant: c.instant.Time, schema: c.schema, fileSchema: c.schema, precombine: -1, changesPlanned: c.planned != nil}
	if c.w.cfg.PopulateMetaFields {
		env.fileSchema = c.schema.WithMetaFields()
	} else {
		// Rows carry no key: merges compute the keys of stored rows.
		var err error
		if env.keys, err = NewKeyGenerator(c.w.cfg, c.schema); err != nil {
			return nil, err
		}
	}
	ps, err := env.fileSchema.ParquetSchema()
	if err != nil {
		return nil, err
	}
	env.parquetSchema = ps
	if f := c.w.cfg.PrecombineField; f != "" {
		env.precombine = c.schema.FieldIndex(f)
	}
	env.keepOnSoftDelete = make([]bool, len(c.schema.Fields))
	keep := map[string]bool{c.w.cfg.PrecombineField: true}
	for _, f := range c.w.cfg.RecordKeyFields {
		keep[f] = true
	}
	for _, f := range c.w.cfg.PartitionFields {
		keep[f] = true
	}
	for i, f := range c.schema.Fields {
		env.keepOnSoftDelete[i] = keep[f.Name]
		if !keep[f.Name] && !f.Type.Nullable && c.op == OpSoftDelete {
			return nil, &RefusedError{fmt.Errorf("soft-delete needs column %q to be nullable", f.Name)}
		}
	}
	return env, nil
}

// writeFiles writes the files of the tasks (see runTasks), numbered from
// firstTaskNo on, and meanwhile the metadata files of the partitions they
// create, whose syncs would otherwise leave the cores idle before the files
// are begun. The first failure of either stops the other.
func (c *commit) writeFiles(ctx context.Context, env *taskEnv, tasks []*fileGroupTask, firstTaskNo int) ([]taskResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	partitionsDone := make(chan error, 1)
	go func() {
		err := c.ensurePartitions(ctx, tasks)
		if err != nil {
			cancel()
		}
		partitionsDone <- err
	}()
	results, err := runTasks(ctx, env, tasks, firstTaskNo)
	if err != nil {
		cancel()
	}
	partitionsErr := <-partitionsDone
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		return nil, err
	case partitionsErr != nil:
		return nil, partitionsErr
	case err != nil:
		return nil, err
	}
	return results, nil
}

// ensurePartitions writes the metadata file of every partition the tasks
// create.
func (c *commit) ensurePartitions(ctx context.Context, tasks []*fileGroupTask) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		if t.prev != nil || seen[t.partition] {
			continue
		}
		seen[t.partition] = true
		if err := config.EnsurePartitionMetadata(ctx, c.w.fsys, t.partition, c.instant.Time, c.w.opts.Clock()); err != nil {
			return err
		}
	}
	return nil
}

// workloadProfile is the inflight file's content: the planned inserts per
// partition and updates per file group, as Hudi writes it.
func workloadProfile(op Operation, tasks []*fileGroupTask) *timeline.CommitMetadata {
	inserts := map[string]int64{}
	groups := map[string][]timeline.FileGroupWork{}
	for _, t := range tasks {
		if t.prev == nil {
			inserts[t.partition] += int64(len(t.inserts))
			continue
		}
		groups[t.partition] = append(groups[t.partition], timeline.FileGroupWork{
			FileID: t.fileID, PrevCommit: t.prev.Instant,
			Updates: int64(len(t.work.updates) + len(t.work.movedOut)), Inserts: int64(len(t.inserts)),
		})
	}
	return timeline.NewWorkloadProfile(op.hudi(), inserts, groups)
}

// metadata builds the completed instant's commit metadata.
func (c *commit) metadata() (*timeline.CommitMetadata, error) {
	schemaJSON, err := c.schema.MarshalJSON()
	if err != nil {
		return nil, err
	}
	meta := &timeline.CommitMetadata{
		// Never null, as Hudi's own: Spark's incremental query of a partition
		// delete, which writes no file, fails on a null one.
		PartitionToWriteStats: map[string][]timeline.WriteStat{},
		OperationType:         c.op.hudi(),
		ExtraMetadata:         map[string]string{timeline.SchemaKey: string(schemaJSON)},
	}
	for _, r := range c.results {
		meta.AddWriteStat(r.stat.PartitionPath, r.stat)
	}
	return meta, nil
}

// completedData returns the content of the completed instant's file: the
// commit metadata, and for a replacecommit the file groups it replaces.
func (c *commit) completedData() ([]byte, error) {
	if c.repl == nil {
		return c.meta.MarshalJSON()
	}
	return timeline.ReplaceCommitMetadata{CommitMetadata: *c.meta, PartitionToReplaceFileIDs: c.repl.groups}.MarshalJSON()
}

// pending describes the written but uncommitted write for the hook.
func (c *commit) pending() *PendingCommit {
	partitions := map[string]bool{}
	for _, r := range c.results {
		partitions[r.slice.Partition] = true
	}
	if c.repl != nil {
		for p := range c.repl.groups {
			partitions[p] = true
		}
	}
	parts := make([]string, 0, len(partitions))
	for p := range partitions {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return &PendingCommit{
		FS: c.w.fsys, Config: c.w.cfg, Instant: c.instant.Time, Operation: c.op, Schema: c.schema,
		Before: c.view.LatestSlices(), After: c.after(), Partitions: parts, Settings: c.w.settings.Props,
	}
}

// after returns the latest slice of every file group once the commit is
// complete, sorted by partition and file id: the view it started from, with
// the slices it wrote replacing their groups', without the groups a
// replacecommit replaces.
func (c *commit) after() []read.FileSlice {
	before := c.view.LatestSlices()
	replaced := map[string]read.FileSlice{}
	for _, r := range c.results {
		replaced[groupKey(r.slice.Partition, r.slice.FileID)] = r.slice
	}
	after := make([]read.FileSlice, 0, len(before)+len(c.results))
	for _, s := range before {
		if _, ok := replaced[groupKey(s.Partition, s.FileID)]; !ok && !c.repl.covers(s.Partition, s.FileID) {
			after = append(after, s)
		}
	}
	for _, r := range c.results {
		after = append(after, r.slice)
	}
	sort.Slice(after, func(i, j int) bool {
		return after[i].Partition < after[j].Partition || (after[i].Partition == after[j].Partition && after[i].FileID < after[j].FileID)
	})
	return after
}

// changes returns the index changes of the commit: the planned ones, or
// those its file group tasks reported, with the keys of the file groups it
// replaces deleted.
func (c *commit) changes() index.ChangeSet {
	if c.planned != nil {
		return *c.planned
	}
	var changes index.ChangeSet
	var puts, dels int
	for _, r := range c.results {
		puts, dels = puts+len(r.puts), dels+len(r.dels)
	}
	changes.Puts, changes.Deletes = make([]index.Put, 0, puts), make([]string, 0, dels+len(c.replacedKeys))
	// Puts come after deletes: a replaced key the commit writes again
	// stays, in its new file group.
	changes.Deletes = append(changes.Deletes, c.replacedKeys...)
	for _, r := range c.results {
		changes.Deletes = append(changes.Deletes, r.dels...)
		changes.Puts = append(changes.Puts, r.puts...)
	}
	return changes
}

// finish does what follows the commit point: markers are dropped, the index
// learns the key changes, the result is filled in. None of it can undo the
// commit, and what fails here the next writer repairs (it drops markers of
// completed instants and catches the index up), so failures are reported
// as warnings, not errors.
func (c *commit) finish(ctx context.Context, res *Result) {
	w := c.w
	warn := func(what string, err error) {
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Errorf("commit %s is complete, but %s failed (the next write repairs it): %w", c.instant.Time, what, err))
		}
	}
	if c.completeErr != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("commit %s is complete (its completed file is in place), although completing it reported: %w", c.instant.Time, c.completeErr))
	}
	warn("removing its markers", w.fsys.RemoveAll(ctx, markerFolder(c.instant.Time)))
	for _, r := range c.results {
		res.Files = append(res.Files, r.slice)
	}
	// The index was caught up to c.view: with this commit's slices, the
	// view as of it, unless a commit completed meanwhile with an earlier
	// instant time, which the next catch-up then finds.
	switch digest := read.DigestSlices(c.after()); {
	case c.prepared != nil:
		warn("updating the record index", c.prepared.Commit(ctx, digest))
	case c.completedLate():
		warn("updating the record index", c.syncIndexLate(ctx))
	default:
		changes := c.changes()
		changes.ViewDigest = digest
		warn("updating the record index", c.idx.Apply(ctx, c.instant.Time, changes))
	}
	if w.cfg.CreateSchema == "" {
		if s, err := c.schema.MarshalJSON(); err == nil {
			cfg := *w.cfg
			cfg.CreateSchema = string(s)
			warn("recording the schema in hoodie.properties", config.Update(ctx, w.fsys, &cfg, w.opts.Clock()))
		}
	}
	t := c.meta.Totals()
	res.Instant = c.instant.Time
	res.Inserted, res.Updated, res.Deleted, res.Written = t.Inserted, t.Updated, t.Deleted, t.Written
	// The services that follow a commit, as Hudi's postCommit runs them:
	// after every kind of write, replacecommits included.
	w.cleanAfterCommit(ctx, res)
	w.archiveAfterCommit(ctx, res)
}

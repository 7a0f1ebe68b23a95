package write

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// ClusteringSettings are the settings of Hudi's size-based clustering plan
// strategy (SparkSizeBasedClusteringPlanStrategy) that Writer.Cluster
// honours, with Hudi's defaults.
type ClusteringSettings struct {
	// SmallFileLimit is the size under which a file group is clustered
	// (hoodie.clustering.plan.strategy.small.file.limit, 300 MiB).
	SmallFileLimit int64
	// TargetFileSize is the size of the file groups clustering writes
	// (hoodie.clustering.plan.strategy.target.file.max.bytes, 1 GiB).
	TargetFileSize int64
	// MaxBytesPerGroup bounds the input of one clustering group
	// (hoodie.clustering.plan.strategy.max.bytes.per.group, 2 GiB).
	MaxBytesPerGroup int64
	// MaxGroups bounds the groups of one clustering
	// (hoodie.clustering.plan.strategy.max.num.groups, 30).
	MaxGroups int
	// SortColumns, if any, order the records of the files written
	// (hoodie.clustering.plan.strategy.sort.columns); the record key orders
	// records that tie, and all records when there are none.
	SortColumns []string
	// ChunkBytes bounds the memory a clustering takes (Hoodie's own; 0
	// means TargetFileSize): a group is executed in chunks of its files
	// whose total size stays under it (a file larger than it is a chunk of
	// its own), each read into memory, sorted and written to a file group
	// of its own. At most Settings.Parallelism chunks are in memory at once.
	ChunkBytes int64
}

// The names Hudi's clustering plans and metadata use.
const (
	// clusteringStrategyClass is the execution strategy Hudi 0.15 names in
	// its plans by default, whose rewrite Hoodie's is.
	clusteringStrategyClass = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
	// KeyClusteringSortColumns is the clustering plan's sort columns, in
	// the settings and in the plan's strategy parameters.
	KeyClusteringSortColumns = "hoodie.clustering.plan.strategy.sort.columns"
)

// Cluster rewrites the small file groups of each partition into file
// groups of the target size, as one replacecommit holding Hudi's
// clustering plan (see ClusteringSettings), and returns its result; a table
// with nothing to cluster commits nothing (Result.Instant is "").
//
// A clustering left pending (its writer died, or Spark scheduled it) is
// completed instead, from its plan, as Hudi's next clustering does: the
// files its earlier attempt wrote are removed first. Until a clustering
// completes, writes leave its file groups alone (see pendingReplaces), as
// Hudi's do, so its plan stays right; writes that committed meanwhile put
// the record index past the clustering's instant, and the index is then
// rebuilt from the latest snapshot (see syncIndexLate).
func (w *Writer) Cluster(ctx context.Context) (*Result, error) {
	unlock, tl, view, err := w.beginOnView(ctx, OpCluster)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var resume timeline.Instant
	var plan *timeline.ClusteringPlan
	for _, in := range tl.Pending().Instants() {
		if in.Action != timeline.ActionReplaceCommit {
			continue
		}
		if plan, err = readClusteringPlan(ctx, w.fsys, in); err != nil {
			return nil, err
		}
		if plan != nil {
			resume = in
			break
		}
	}
	if plan == nil {
		locks, err := pendingReplaces(ctx, w.fsys, tl)
		if err != nil {
			return nil, err
		}
		if plan = w.planClustering(view, locks); plan == nil {
			return &Result{Operation: OpCluster}, nil
		}
	}
	schema, err := read.TableSchema(ctx, w.cfg, tl)
	if err != nil {
		return nil, err
	}
	c := &commit{w: w, op: OpCluster, in: &Input{Name: "cluster"}, tl: tl, view: view, schema: schema, resume: resume, plan: plan}
	tasks, err := c.clusterTasks()
	if err != nil {
		return nil, err
	}
	idx, err := w.openIndex(ctx, tl, view)
	if err != nil {
		return nil, err
	}
	defer func() { idx.Close() }()
	c.idx = idx
	if err := c.run(ctx, tasks, nil); err != nil {
		return nil, err
	}
	res := &Result{Operation: OpCluster}
	c.finish(ctx, res)
	return res, nil
}

// planClustering plans a clustering of view as Hudi's size-based plan
// strategy does: per partition, the latest slices smaller than the small
// file limit, largest first, in groups of at most MaxBytesPerGroup, each
// written to enough file groups of TargetFileSize; at most MaxGroups
// groups. A group of one slice is left alone unless sort columns are set
// (rewriting it would change nothing). File groups a pending replacecommit
// may replace are left alone. It returns nil when nothing is to cluster.
func (w *Writer) planClustering(view *read.View, locks *replaceLocks) *timeline.ClusteringPlan {
	cs := w.settings.Clustering
	byPartition := map[string][]read.FileSlice{}
	for _, s := range view.LatestSlices() {
		if _, locked := locks.locked(s.Partition, s.FileID); locked || s.Size >= cs.SmallFileLimit {
			continue
		}
		byPartition[s.Partition] = append(byPartition[s.Partition], s)
	}
	plan := &timeline.ClusteringPlan{StrategyClass: clusteringStrategyClass, StrategyParams: map[string]string{}, PreserveMetadata: true}
	if len(cs.SortColumns) > 0 {
		plan.StrategyParams[KeyClusteringSortColumns] = strings.Join(cs.SortColumns, ",")
	}
	var group []read.FileSlice
	var size int64
	closeGroup := func() {
		if len(group) > 1 || (len(group) == 1 && len(cs.SortColumns) > 0) {
			g := timeline.ClusteringGroup{NumOutputFileGroups: int(max((size+cs.TargetFileSize-1)/cs.TargetFileSize, 1)),
				Metrics: map[string]float64{"TOTAL_IO_READ_MB": float64(size) / (1 << 20), "TOTAL_IO_WRITE_MB": float64(size) / (1 << 20),
					"TOTAL_IO_MB": 2 * float64(size) / (1 << 20), "TOTAL_LOG_FILE_SIZE": 0, "TOTAL_LOG_FILES": 0}}
			for _, s := range group {
				g.Slices = append(g.Slices, timeline.ClusteringSlice{DataFilePath: s.Path, FileID: s.FileID, PartitionPath: s.Partition})
			}
			plan.Groups = append(plan.Groups, g)
		}
		group, size = nil, 0
	}
	for _, p := range slices.Sorted(maps.Keys(byPartition)) {
		candidates := byPartition[p]
		slices.SortStableFunc(candidates, func(a, b read.FileSlice) int { return cmp.Compare(b.Size, a.Size) })
		for _, s := range candidates {
			if len(group) > 0 && size+s.Size > cs.MaxBytesPerGroup {
				closeGroup()
			}
			group, size = append(group, s), size+s.Size
		}
		closeGroup()
	}
	if len(plan.Groups) == 0 {
		return nil
	}
	plan.Groups = plan.Groups[:min(len(plan.Groups), cs.MaxGroups)]
	return plan
}

// clusterTasks splits each group of the plan into chunks of its files
// (see clusterChunks): a task each, which reads, sorts and writes its
// chunk's records to a new file group.
func (c *commit) clusterTasks() ([]*fileGroupTask, error) {
	sortCols, err := c.sortColumns()
	if err != nil {
		return nil, err
	}
	budget := c.w.settings.Clustering.ChunkBytes
	if budget <= 0 {
		budget = c.w.settings.Clustering.TargetFileSize
	}
	c.repl = &replacement{groups: map[string][]string{}, set: map[string]bool{}}
	var tasks []*fileGroupTask
	for _, g := range c.plan.Groups {
		var inputs []read.FileSlice
		for _, s := range g.Slices {
			fg, ok := c.view.FileGroup(s.PartitionPath, s.FileID)
			if !ok {
				return nil, fmt.Errorf("the clustering plan names file group %s of partition %q, which the table does not have", s.FileID, s.PartitionPath)
			}
			inputs = append(inputs, fg.Latest())
			c.repl.groups[s.PartitionPath] = append(c.repl.groups[s.PartitionPath], s.FileID)
			c.repl.set[groupKey(s.PartitionPath, s.FileID)] = true
		}
		for _, chunk := range clusterChunks(inputs, budget) {
			tasks = append(tasks, &fileGroupTask{partition: chunk[0].Partition, fileID: basefile.NewFileID(),
				clustered: &clusterChunk{inputs: chunk, sortCols: sortCols}})
		}
	}
	return tasks, nil
}

// clusterChunks splits the files of a clustering group, in order, into
// chunks whose total size is at most budget; a file larger than budget is
// a chunk of its own.
func clusterChunks(files []read.FileSlice, budget int64) [][]read.FileSlice {
	var chunks [][]read.FileSlice
	var size int64
	for _, f := range files {
		if n := len(chunks); n == 0 || size+f.Size > budget {
			chunks, size = append(chunks, nil), 0
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], f)
		size += f.Size
	}
	return chunks
}

// clusterChunk is the work of one clustering task: the files whose records
// it rewrites, and the positions of the sort columns in their rows.
type clusterChunk struct {
	inputs   []read.FileSlice
	sortCols []int
}

// clusteredRow is a stored record a clustering rewrites: its values in the
// file schema of the write, meta fields included if the table has them.
type clusteredRow struct {
	key    string
	values []any
}

// sortColumns returns the positions of the clustering's sort columns in
// the rows clusterTasks reads.
func (c *commit) sortColumns() ([]int, error) {
	names := c.w.settings.Clustering.SortColumns
	if c.resume.Time != "" {
		names = nil // the plan's, which Spark may have made
		if v := c.plan.StrategyParams[KeyClusteringSortColumns]; v != "" {
			names = strings.Split(v, ",")
		}
	}
	offset := 0
	if c.w.cfg.PopulateMetaFields {
		offset = basefile.NumMetaFields
	}
	var out []int
	for _, name := range names {
		i := c.schema.FieldIndex(strings.TrimSpace(name))
		if i < 0 {
			return nil, &RefusedError{fmt.Errorf("%s: column %q is not in the table", KeyClusteringSortColumns, name)}
		}
		if err := checkOrderingType(c.schema.Fields[i].Type); err != nil {
			return nil, &RefusedError{fmt.Errorf("%s: column %q: %w", KeyClusteringSortColumns, name, err)}
		}
		out = append(out, offset+i)
	}
	return out, nil
}

// compareNullsFirst compares two values of a sortable column, nulls first.
func compareNullsFirst(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	c, _ := compareOrdering(a, b) // one column, one type: comparable
	return c
}

// readClustered reads every record of a base file, converted to the
// write's file schema.
func (e *taskEnv) readClustered(ctx context.Context, path string) ([]clusteredRow, error) {
	bf, err := basefile.Open(ctx, e.w.fsys, path)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	if e.keys == nil && !bf.Schema().HasMetaFields() {
		return nil, fmt.Errorf("base file %s has no Hudi meta fields, but the table has %s=true", path, config.KeyPopulateMetaFields)
	}
	var conv *rowConverter
	if !parquet.EqualNodes(bf.Parquet().Schema(), e.parquetSchema) {
		if conv, err = newStoredConverter(e.fileSchema, bf.Schema(), e.w.settings.LossyWidening); err != nil {
			return nil, fmt.Errorf("base file %s does not fit the table schema: %w", path, err)
		}
	}
	out := make([]clusteredRow, 0, bf.NumRows())
	err = eachRow(ctx, bf, func(values []any) error {
		var err error
		if conv != nil {
			if values, err = conv.convertRow(values); err != nil {
				return fmt.Errorf("base file %s: %w", path, err)
			}
		}
		var key string
		if e.keys != nil {
			if key, err = e.keys.RecordKey(values); err != nil {
				return fmt.Errorf("base file %s: %w", path, err)
			}
		} else if key, _ = values[basefile.MetaRecordKeyPos].(string); key == "" {
			return fmt.Errorf("base file %s: a row has no %s", path, basefile.MetaRecordKey)
		}
		out = append(out, clusteredRow{key: key, values: values})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeClustered reads the records of the task's chunk, sorts them by the
// sort columns then the record key, and writes them, keeping their meta
// fields but the file name (Hudi's clustering preserves them).
func (m *merger) writeClustered(ctx context.Context) error {
	var rows []clusteredRow
	for _, in := range m.task.clustered.inputs {
		more, err := m.env.readClustered(ctx, in.Path)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	sortCols := m.task.clustered.sortCols
	slices.SortFunc(rows, func(a, b clusteredRow) int {
		for _, i := range sortCols {
			if c := compareNullsFirst(a.values[i], b.values[i]); c != 0 {
				return c
			}
		}
		return strings.Compare(a.key, b.key)
	})
	loc := index.Location{PartitionPath: m.task.partition, FileID: m.task.fileID}
	m.puts = make([]index.Put, 0, len(rows))
	for i, r := range rows {
		if err := m.writeStored([]byte(r.key), r.values); err != nil {
			return err
		}
		rows[i] = clusteredRow{} // written: its values may go
		m.puts = append(m.puts, index.Put{Key: r.key, Location: loc})
		m.inserts++
	}
	return nil
}

// completedLate reports whether the commit is a resumed clustering older
// than the record index's watermark: commits after its instant completed
// while it was pending, and the index, caught up to them, refuses its
// changes (index.ErrOutOfOrder).
func (c *commit) completedLate() bool {
	return c.resume.Time != "" && c.instant.Time < c.idx.Watermark()
}

// syncIndexLate brings the record index to the table's latest view after a
// clustering completed late (see completedLate). Its completion changed the
// view as of the watermark, so the index no longer has that view's digest,
// and syncIndex rebuilds it from the latest snapshot, as the next write's
// catch-up would. The writes after the clustering left its file groups
// alone, but the index records only the view as of its watermark, not the
// commits that led to it, so the clustering's key moves cannot be applied
// under it. Until the rebuild is done, a crash leaves the index with the
// old digest, which the next catch-up rebuilds the same way.
func (c *commit) syncIndexLate(ctx context.Context) error {
	tl, err := timeline.Load(ctx, c.w.fsys)
	if err != nil {
		return fmt.Errorf("load the timeline: %w", err)
	}
	latest, err := read.LoadView(ctx, c.w.fsys, tl, "")
	if err != nil {
		return fmt.Errorf("load the latest view: %w", err)
	}
	if err := syncIndex(ctx, c.w.fsys, tl, c.idx, latest); err != nil {
		return fmt.Errorf("rebuild it after clustering %s completed late: %w", c.instant.Time, err)
	}
	return nil
}

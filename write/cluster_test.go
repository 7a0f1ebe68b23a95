package write

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/internal/basefiletest"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// smallGroupsSettings make every write of a few trips a file group of its
// own per partition.
func smallGroupsSettings() Settings {
	s := DefaultSettings()
	s.SmallFileLimit = 0
	return s
}

// withoutFileNames returns a snapshot without the _hoodie_file_name of its
// records, which a clustering changes.
func withoutFileNames(snap map[string][]any) map[string][]any {
	out := make(map[string][]any, len(snap))
	for k, v := range snap {
		v = slices.Clone(v)
		v[4] = nil
		out[k] = v
	}
	return out
}

// TestCluster checks a clustering end to end: the plan in the requested
// file as Hudi writes it, one file group per partition after it, every
// record as it was (commit times included), the index following the keys,
// and sort columns ordering the records of the files written.
func TestCluster(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, smallGroupsSettings())
	gen := trips.NewGenerator(31)
	all := insertBatches(tt, gen, 4, 20)
	before := snapshot(t, tt.fsys, "")
	_, view := tt.latest()
	groupsBefore := len(view.FileGroups())
	tt.w.settings.Clustering.SortColumns = []string{"fare"}
	res, err := tt.w.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant == "" || res.Written != int64(len(all)) {
		t.Fatalf("clustering result %+v: want an instant, %d records written", res, len(all))
	}
	tl, view := tt.latest()
	if last, _ := tl.Last(); last.Action != timeline.ActionReplaceCommit || last.Time != res.Instant {
		t.Fatalf("last instant %v, want the clustering's replacecommit", last)
	}
	requested, err := tt.fsys.ReadFile(ctx, filepath.Join(storage.MetaFolder, res.Instant+".replacecommit.requested"))
	if err != nil {
		t.Fatal(err)
	}
	objects, err := avrofile.Read(requested)
	if err != nil {
		t.Fatal(err)
	}
	if op := objects[0].(map[string]any)["operationType"]; op != "CLUSTER" {
		t.Errorf("requested operationType %v, want CLUSTER", op)
	}
	plan, ok, err := timeline.ReadClusteringPlan(requested)
	if err != nil || !ok || plan.StrategyParams[KeyClusteringSortColumns] != "fare" {
		t.Fatalf("clustering plan %+v, %v, %v: want one sorting by fare", plan, ok, err)
	}
	inflight, err := tt.fsys.ReadFile(ctx, filepath.Join(storage.MetaFolder, res.Instant+".replacecommit.inflight"))
	if err != nil || len(inflight) != 0 {
		t.Errorf("inflight file %q, %v: Hudi's clustering leaves it empty", inflight, err)
	}
	perPartition := map[string]int{}
	for _, g := range view.FileGroups() {
		perPartition[g.Partition]++
	}
	for p, n := range perPartition {
		if n != 1 {
			t.Errorf("partition %s has %d file groups after clustering, want 1 (of %d in all before)", p, n, groupsBefore)
		}
	}
	after := snapshot(t, tt.fsys, "")
	if !reflect.DeepEqual(withoutFileNames(after), withoutFileNames(before)) {
		t.Error("the clustering changed records")
	}
	for _, s := range view.LatestSlices() {
		var fares []float64
		for _, row := range basefiletest.Rows(t, tt.fsys, s.Path) {
			fares = append(fares, row[9].(float64))
		}
		if !slices.IsSorted(fares) {
			t.Errorf("file %s is not sorted by fare: %v", s.Path, fares)
		}
	}
	// As of before the clustering, as it was.
	if got := snapshot(t, tt.fsys, tl.CompletedCommits().Instants()[3].Time); !reflect.DeepEqual(got, before) {
		t.Error("time travel to before the clustering reads other records")
	}
	// Nothing left to cluster (without sort columns, a file group alone in
	// its partition stays): nothing committed.
	tt.w.settings.Clustering.SortColumns = nil
	if again, err := tt.w.Cluster(ctx); err != nil || again.Instant != "" {
		t.Errorf("a second clustering: %+v, %v; want nothing committed", again, err)
	}
	up := tt.write(OpUpsert, tripsInput(gen.Updates(all, 10)))
	if up.Updated != 10 || up.Inserted != 0 {
		t.Errorf("upsert after clustering: %d updated, %d inserted; want 10, 0", up.Updated, up.Inserted)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// TestClusterInChunks checks that a clustering group larger than the chunk
// budget is executed in chunks: no output file holds the records of input
// files larger together than the budget, each output file is sorted, every
// record is written once, and the index follows the keys.
func TestClusterInChunks(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, smallGroupsSettings())
	gen := trips.NewGenerator(37)
	for range 6 {
		tt.write(OpInsert, tripsInput(gen.Inserts(30)))
	}
	before := snapshot(t, tt.fsys, "")
	_, view := tt.latest()
	inputSize := map[string]int64{} // by file name
	var largest int64
	for _, s := range view.LatestSlices() {
		inputSize[filepath.Base(s.Path)] = s.Size
		largest = max(largest, s.Size)
	}
	budget := 2 * largest
	tt.w.settings.Clustering.SortColumns = []string{"fare"}
	tt.w.settings.Clustering.ChunkBytes = budget
	res, err := tt.w.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != int64(len(before)) {
		t.Fatalf("clustering wrote %d records, want %d", res.Written, len(before))
	}
	_, view = tt.latest()
	filesPerPartition := map[string]int{}
	rows := 0
	for _, s := range view.LatestSlices() {
		filesPerPartition[s.Partition]++
		var fares []float64
		read := map[string]bool{}
		var readBytes int64
		for _, row := range basefiletest.Rows(t, tt.fsys, s.Path) {
			rows++
			fares = append(fares, row[9].(float64))
			from := before[row[2].(string)][4].(string)
			if !read[from] {
				read[from] = true
				readBytes += inputSize[from]
			}
		}
		if readBytes > budget {
			t.Errorf("file %s holds the records of %d input files of %d bytes, over the budget of %d", s.Path, len(read), readBytes, budget)
		}
		if !slices.IsSorted(fares) {
			t.Errorf("file %s is not sorted by fare: %v", s.Path, fares)
		}
	}
	if rows != len(before) {
		t.Errorf("the clustered files hold %d rows, want %d", rows, len(before))
	}
	for p, n := range filesPerPartition {
		if n < 2 {
			t.Errorf("partition %s has %d file groups after clustering; a group of 6 files over a budget of 2 makes at least 3", p, n)
		}
	}
	if after := snapshot(t, tt.fsys, ""); !reflect.DeepEqual(withoutFileNames(after), withoutFileNames(before)) {
		t.Error("the clustering changed records")
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// TestClusterCrashAtEveryStep fails every mutating step of a clustering in
// turn, as if the process died there: the table reads the same records,
// an insert meanwhile works, and the next clustering completes the pending
// one (or has nothing left to do), leaving no pending instant and the
// index right. Neither the insert nor the next clustering warns, and the
// failed clustering, if it completed, warns only of the injected fault:
// completing a clustering after the insert, older than the index's
// watermark, must bring the index in step, not fail to.
func TestClusterCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	gen := trips.NewGenerator(32)
	batches := [][]trips.Trip{gen.Inserts(10), gen.Inserts(10), gen.Inserts(10)}
	extra := gen.Inserts(4)
	settings := smallGroupsSettings()
	setup := func(t *testing.T) (*storage.MemFS, string) {
		mem := newMemTripsTable(t)
		dir := t.TempDir()
		w := NewWriter(mem, Options{Settings: settings, IndexDir: dir, TableID: dir})
		for _, b := range batches {
			if _, err := w.Write(ctx, OpInsert, tripsInput(b)); err != nil {
				t.Fatal(err)
			}
		}
		return mem, dir
	}
	mem, dir := setup(t)
	before := dataOf(snapshot(t, mem, ""))
	probe := faultfs.New(mem, 0)
	if _, err := NewWriter(probe, Options{Settings: settings, IndexDir: dir, TableID: dir}).Cluster(ctx); err != nil {
		t.Fatal(err)
	}
	steps := probe.Steps()
	if steps < 8 {
		t.Fatalf("the clustering took only %d steps", steps)
	}
	for failAt := 1; failAt <= steps; failAt++ {
		mem, dir := setup(t)
		ffs := faultfs.New(mem, failAt)
		res, err := NewWriter(ffs, Options{Settings: settings, IndexDir: dir, TableID: dir}).Cluster(ctx)
		if err != nil && !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d (%s): unexpected error %v", failAt, ffs.Trace()[failAt-1], err)
		}
		if err == nil {
			for _, w := range res.Warnings {
				if !errors.Is(w, faultfs.ErrInjected) {
					t.Errorf("step %d (%s): a warning not of the injected fault: %v", failAt, ffs.Trace()[failAt-1], w)
				}
			}
		}
		if got := dataOf(snapshot(t, mem, "")); !equalData(got, before) {
			t.Fatalf("step %d (%s): the records changed", failAt, ffs.Trace()[failAt-1])
		}
		w := NewWriter(mem, Options{Settings: settings, IndexDir: dir, TableID: dir})
		ins, err := w.Write(ctx, OpInsert, tripsInput(extra))
		if err != nil {
			t.Fatalf("step %d: an insert after the failed clustering: %v", failAt, err)
		}
		for _, w := range ins.Warnings {
			t.Errorf("step %d: the insert after the failed clustering warned: %v", failAt, w)
		}
		next, err := w.Cluster(ctx)
		if err != nil {
			t.Fatalf("step %d: the next clustering: %v", failAt, err)
		}
		for _, w := range next.Warnings {
			t.Errorf("step %d: the next clustering warned: %v", failAt, w)
		}
		want := dataOf(snapshot(t, mem, ""))
		if len(want) != len(before)+len(extra) {
			t.Fatalf("step %d: %d records after the next clustering, want %d", failAt, len(want), len(before)+len(extra))
		}
		tl, err := timeline.Load(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		if p := tl.Pending(); p.Len() != 0 {
			t.Fatalf("step %d: pending instants left: %v", failAt, p.Instants())
		}
		verifyIndex(t, mem, dir, dir)
	}
}

// TestReplaceKilled runs insert overwrites of the whole table with its own
// records, each followed by a clustering, in a child process, and kills it
// with SIGKILL at several moments: neither changes the records, so the
// table must read the same records after each kill, and the next
// clustering must complete what the child left pending.
func TestReplaceKilled(t *testing.T) {
	if os.Getenv("HOODIE_KILL_REPLACER") != "" {
		killedReplacerChild()
		return
	}
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short mode")
	}
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, killedReplacerSettings())
	tt.write(OpBulkInsert, tripsInput(trips.NewGenerator(33).Inserts(killedReplacerRecords)))
	before := dataOf(snapshot(t, tt.fsys, ""))
	for _, delay := range []time.Duration{0, 30 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
		killChild(t, "TestReplaceKilled", "writing", delay, "HOODIE_KILL_REPLACER="+tt.dir)
		if got := dataOf(snapshot(t, tt.fsys, "")); !equalData(got, before) {
			t.Fatalf("killed after %v: the records changed", delay)
		}
	}
	if _, err := tt.w.Cluster(ctx); err != nil {
		t.Fatalf("the clustering after the kills: %v", err)
	}
	tl, _ := tt.latest()
	if tl.Pending().Len() != 0 {
		t.Errorf("pending instants after the next clustering: %v", tl.Pending().Instants())
	}
	if got := dataOf(snapshot(t, tt.fsys, "")); !equalData(got, before) {
		t.Fatal("the clustering after the kills changed the records")
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// killedReplacerRecords is how many records the killed child rewrites.
const killedReplacerRecords = 30_000

// killedReplacerSettings make the child's overwrites write several file
// groups a partition, which its clusterings join.
func killedReplacerSettings() Settings {
	s := DefaultSettings()
	s.MaxFileSize, s.SmallFileLimit = 1<<20, 0
	return s
}

// killedReplacerChild overwrites the table named by HOODIE_KILL_REPLACER
// with its own records and clusters it, until it is killed.
func killedReplacerChild() {
	ctx := context.Background()
	dir := os.Getenv("HOODIE_KILL_REPLACER")
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(2)
	}
	w := newTestWriter(fsys, dir, killedReplacerSettings())
	records := trips.NewGenerator(33).Inserts(killedReplacerRecords)
	os.Stdout.WriteString("writing\n")
	for {
		if _, err := w.Write(ctx, OpInsertOverwriteTable, tripsInput(records)); err != nil {
			os.Exit(3)
		}
		if _, err := w.Cluster(ctx); err != nil {
			os.Exit(3)
		}
	}
}

// insertBatches inserts n batches of size new trips of gen into tt, a
// commit each, and returns the trips inserted.
func insertBatches(tt *testTable, gen *trips.Generator, n, size int) []trips.Trip {
	tt.t.Helper()
	var all []trips.Trip
	for range n {
		batch := gen.Inserts(size)
		all = append(all, batch...)
		tt.write(OpInsert, tripsInput(batch))
	}
	return all
}

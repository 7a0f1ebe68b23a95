package write

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
)

// cleanerTable is a trips table of one partition's worth of trips, whose
// every commit rewrites every file group: the instants of its commits, and
// the snapshot after each.
type cleanerTable struct {
	*testTable
	instants []string
	history  map[string]map[string]string
}

// newCleanerTable makes commits commits (an insert, then upserts of every
// trip) with the cleaner settings s and no automatic clean.
func newCleanerTable(t *testing.T, fsys storage.FS, commits int, s CleanerSettings, clock func() time.Time) *cleanerTable {
	t.Helper()
	settings := DefaultSettings()
	s.Automatic = false
	settings.Cleaner = s
	dir := t.TempDir()
	w := NewWriter(fsys, Options{Settings: settings, IndexDir: dir, TableID: dir, Clock: clock, Local: time.UTC})
	ct := &cleanerTable{testTable: &testTable{t: t, dir: dir, fsys: fsys, w: w}, history: map[string]map[string]string{}}
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	for i := range commits {
		op, batch := OpUpsert, gen.Updates(initial, 30)
		if i == 0 {
			op, batch = OpInsert, initial
		}
		res := ct.write(op, tripsInput(batch))
		ct.instants = append(ct.instants, res.Instant)
		ct.history[res.Instant] = dataOf(snapshot(t, fsys, ""))
	}
	return ct
}

// baseFiles lists the table's base files by instant.
func baseFiles(t *testing.T, fsys storage.FS) map[string][]string {
	t.Helper()
	ctx := context.Background()
	parts, err := read.ListPartitions(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range parts {
		entries, err := fsys.ReadDir(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if name, err := basefile.ParseName(e.Name); err == nil {
				out[name.InstantTime] = append(out[name.InstantTime], path.Join(p, e.Name))
			}
		}
	}
	return out
}

// instantsWithFiles are the instants that have base files, sorted.
func instantsWithFiles(t *testing.T, fsys storage.FS) []string {
	var out []string
	for in := range baseFiles(t, fsys) {
		out = append(out, in)
	}
	sort.Strings(out)
	return out
}

// checkPast checks that every past snapshot reads as it was or fails
// with read.ErrSnapshotGone, and that those of keep read.
func (ct *cleanerTable) checkPast(keep ...string) {
	ct.t.Helper()
	must := map[string]bool{}
	for _, in := range keep {
		must[in] = true
	}
	for _, in := range ct.instants {
		got, err := pastSnapshot(ct.t, ct.fsys, in)
		if errors.Is(err, read.ErrSnapshotGone) && !must[in] {
			continue
		}
		if err != nil {
			ct.t.Fatalf("as of %s: %v", in, err)
		}
		if !equalData(dataOf(got), ct.history[in]) {
			ct.t.Fatalf("as of %s: the snapshot differs from the table then", in)
		}
	}
}

// TestCleanKeepLatestCommits cleans 5 commits keeping 2: the earliest
// commit to retain is the 4th, and the 1st and 2nd versions go, the 3rd
// staying for queries of the 4th's time that started before it. The clean
// instant is on disk as Hudi writes it.
func TestCleanKeepLatestCommits(t *testing.T) {
	ctx := context.Background()
	ct := newCleanerTable(t, newMemTripsTable(t), 5, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}, nil)
	in := ct.instants
	groups := len(baseFiles(t, ct.fsys)[in[0]])
	res, err := ct.w.Clean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant == "" || res.Deleted != 2*groups {
		t.Fatalf("clean %+v, want an instant and %d files deleted", res, 2*groups)
	}
	if got, want := instantsWithFiles(t, ct.fsys), in[2:]; !reflect.DeepEqual(got, want) {
		t.Errorf("files of instants %v, want %v", got, want)
	}
	ct.checkPast(in[2:]...)
	for _, old := range in[:2] {
		_, err := pastSnapshot(t, ct.fsys, old)
		var gone *read.GoneError
		if !errors.As(err, &gone) || gone.OldestReadable != in[2] {
			t.Errorf("as of %s: %v, want gone with %s the oldest readable", old, err, in[2])
		}
	}

	tl, err := timeline.Load(ctx, ct.fsys)
	if err != nil {
		t.Fatal(err)
	}
	requested, err := tl.ReadDetails(ctx, timeline.Instant{Time: res.Instant, Action: timeline.ActionClean, State: timeline.StateRequested})
	if err != nil {
		t.Fatal(err)
	}
	inflight, err := tl.ReadDetails(ctx, timeline.Instant{Time: res.Instant, Action: timeline.ActionClean, State: timeline.StateInflight})
	if err != nil {
		t.Fatal(err)
	}
	if string(requested) != string(inflight) {
		t.Error("the inflight clean does not hold the plan, as Hudi's does")
	}
	plan, err := timeline.ParseCleanerPlan(requested)
	if err != nil {
		t.Fatal(err)
	}
	if plan.EarliestInstantToRetain.Time != in[3] || plan.LastCompletedCommit != in[4] || plan.Policy != CleanKeepLatestCommits || plan.FileCount() != 2*groups {
		t.Errorf("plan %+v", plan)
	}
	meta, err := tl.ReadCleanMetadata(ctx, timeline.Instant{Time: res.Instant, Action: timeline.ActionClean, State: timeline.StateCompleted})
	if err != nil {
		t.Fatal(err)
	}
	if meta.StartCleanTime != res.Instant || meta.EarliestCommitToRetain != in[3] || meta.LastCompletedCommit != in[4] || meta.TotalFilesDeleted != 2*groups {
		t.Errorf("metadata %+v", meta)
	}
	for part, pm := range meta.Partitions {
		if len(pm.Failed) != 0 || len(pm.Deleted) != len(plan.FilesToDelete[part]) || !reflect.DeepEqual(pm.DeletePatterns, pm.Deleted) {
			t.Errorf("partition %s: %+v", part, pm)
		}
	}

	// Retaining 0 commits never cleans, as Hudi's nthInstant(count) is empty.
	zero := ct.w.settings.Cleaner
	zero.CommitsRetained = 0
	tl, _ = ct.latest()
	if _, ok := earliestCommitToRetain(tl, zero, time.Now(), time.UTC); ok {
		t.Error("retaining 0 commits gave an earliest commit to retain")
	}

	// Nothing more to clean until a commit completes.
	if res, err := ct.w.Clean(ctx); err != nil || res.Instant != "" {
		t.Errorf("second clean: %+v, %v; want nothing to clean", res, err)
	}
}

// TestCleanKeepLatestFileVersions keeps the newest 2 versions of each
// file group.
func TestCleanKeepLatestFileVersions(t *testing.T) {
	ct := newCleanerTable(t, newMemTripsTable(t), 5, CleanerSettings{Policy: CleanKeepLatestFileVersions, FileVersionsRetained: 2, MaxCommits: 1}, nil)
	if _, err := ct.w.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := instantsWithFiles(t, ct.fsys), ct.instants[3:]; !reflect.DeepEqual(got, want) {
		t.Errorf("files of instants %v, want %v", got, want)
	}
	ct.checkPast(ct.instants[3:]...)
}

// TestCleanKeepLatestByHours keeps what the commits of the last 2 hours
// read, commits being an hour apart.
func TestCleanKeepLatestByHours(t *testing.T) {
	now := time.Date(2024, 4, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	fsys := newMemTripsTable(t)
	ct := newCleanerTable(t, fsys, 1, CleanerSettings{Policy: CleanKeepLatestByHours, HoursRetained: 2, MaxCommits: 1}, clock)
	// Then commits at 11:00 ... 14:00.
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	for i := 1; i < 5; i++ {
		now = time.Date(2024, 4, 1, 10+i, 0, 0, 0, time.UTC)
		res := ct.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
		ct.instants = append(ct.instants, res.Instant)
		ct.history[res.Instant] = dataOf(snapshot(t, fsys, ""))
	}
	now = time.Date(2024, 4, 1, 14, 1, 0, 0, time.UTC) // cutoff 12:01: the 13:00 commit is the earliest retained
	if _, err := ct.w.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := instantsWithFiles(t, ct.fsys), ct.instants[2:]; !reflect.DeepEqual(got, want) {
		t.Errorf("files of instants %v, want %v", got, want)
	}
	ct.checkPast(ct.instants[3:]...)
}

// TestCleanTrigger plans a clean only once hoodie.clean.max.commits
// commits completed since the last.
func TestCleanTrigger(t *testing.T) {
	ctx := context.Background()
	ct := newCleanerTable(t, newMemTripsTable(t), 4, CleanerSettings{Policy: CleanKeepLatestFileVersions, FileVersionsRetained: 1, MaxCommits: 3}, nil)
	if res, err := ct.w.Clean(ctx); err != nil || res.Instant == "" {
		t.Fatalf("first clean: %+v, %v", res, err)
	}
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	for i := range 3 {
		ct.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
		res, err := ct.w.Clean(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if due := i == 2; (res.Instant != "") != due {
			t.Errorf("%d commit(s) after the last clean: clean %q, want one: %v", i+1, res.Instant, due)
		}
	}
}

// TestCleanRetainsFromPendingWrite keeps, as Hudi does, every version a
// pending write may still need: the earliest commit to retain is never
// after the oldest pending write.
func TestCleanRetainsFromPendingWrite(t *testing.T) {
	ctx := context.Background()
	fsys := newMemTripsTable(t)
	ct := newCleanerTable(t, fsys, 5, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 1, MaxCommits: 1}, nil)
	// A write pending since just after the second commit (a Spark writer's).
	at, err := timeline.ParseInstantTime(ct.instants[1])
	if err != nil {
		t.Fatal(err)
	}
	pending := timeline.Instant{Time: timeline.FormatInstantTime(at.Add(time.Millisecond)), Action: timeline.ActionCommit, State: timeline.StateRequested}
	if pending.Time >= ct.instants[2] {
		t.Fatalf("no instant time between %s and %s", ct.instants[1], ct.instants[2])
	}
	p, err := pending.Path()
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.WriteFile(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	ecr, ok := earliestCommitToRetain(tl, ct.w.settings.Cleaner, time.Now(), time.UTC)
	if !ok || ecr.Time != ct.instants[1] || ecr.Time > pending.Time {
		t.Errorf("earliest commit to retain %v (%v), want %s, before the pending %s", ecr, ok, ct.instants[1], pending.Time)
	}
}

// TestCleanReplacedFileGroups deletes every version of a file group that a
// replacecommit replaced, once the replacecommit is older than the
// earliest commit to retain.
func TestCleanReplacedFileGroups(t *testing.T) {
	ctx := context.Background()
	fsys := newMemTripsTable(t)
	ct := newCleanerTable(t, fsys, 2, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}, nil)
	_, view := ct.latest()
	victim := view.FileGroups()[0]
	// A replacecommit replacing the group and writing nothing, as a
	// delete_partition does.
	requested, err := timeline.CreateRequested(ctx, fsys, nil, timeline.ActionReplaceCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	profile, err := timeline.NewWorkloadProfile(timeline.OperationDeletePartition, nil, nil).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	inflight, err := timeline.TransitionToInflight(ctx, fsys, requested, profile)
	if err != nil {
		t.Fatal(err)
	}
	meta := timeline.ReplaceCommitMetadata{PartitionToReplaceFileIDs: map[string][]string{victim.Partition: {victim.FileID}}}
	meta.OperationType = timeline.OperationDeletePartition
	data, err := meta.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Complete(ctx, fsys, inflight, data); err != nil {
		t.Fatal(err)
	}
	victimFiles := func() int {
		n := 0
		for _, files := range baseFiles(t, fsys) {
			for _, f := range files {
				if name, _ := basefile.ParseName(path.Base(f)); name.FileID == victim.FileID {
					n++
				}
			}
		}
		return n
	}
	// The replacecommit is retained: its group stays, for time travel.
	if _, err := ct.w.Clean(ctx); err != nil {
		t.Fatal(err)
	}
	if victimFiles() == 0 {
		t.Fatal("the replaced group was cleaned while a retained instant reads it")
	}
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	for range 2 {
		ct.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
	}
	if _, err := ct.w.Clean(ctx); err != nil {
		t.Fatal(err)
	}
	if n := victimFiles(); n != 0 {
		t.Errorf("%d file(s) of the replaced group left", n)
	}
}

// TestCleanKeepsSavepoints keeps a savepoint's files through cleans, and
// lets them go once it is deleted; it refuses savepoints of what is no
// completed commit, of a commit savepointed already, or of one a clean
// may have cut into.
func TestCleanKeepsSavepoints(t *testing.T) {
	ctx := context.Background()
	fsys := newMemTripsTable(t)
	ct := newCleanerTable(t, fsys, 3, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 1, MaxCommits: 1}, nil)
	saved := ct.instants[1]
	if _, err := ct.w.Savepoint(ctx, saved, "keep"); err != nil {
		t.Fatal(err)
	}
	if _, err := ct.w.Savepoint(ctx, saved, "again"); err == nil {
		t.Error("a second savepoint of one commit was made")
	}
	if _, err := ct.w.Savepoint(ctx, "20200101000000000", ""); err == nil {
		t.Error("a savepoint of no instant was made")
	}
	sps, err := Savepoints(ctx, fsys)
	if err != nil || len(sps) != 1 || sps[0].Instant != saved || sps[0].Meta.Comment != "keep" || len(sps[0].Meta.FileNames()) == 0 {
		t.Fatalf("savepoints %+v, %v", sps, err)
	}
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	for range 3 {
		ct.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
		if _, err := ct.w.Clean(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ct.checkPast(saved)
	if _, err := ct.w.Savepoint(ctx, ct.instants[0], ""); err == nil {
		t.Error("a savepoint of a cleaned commit was made")
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := tl.Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionClean }).Last()
	plan, err := tl.ReadCleanerPlan(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Extra[timeline.SavepointedTimestampsKey] != saved {
		t.Errorf("plan extra metadata %v, want the savepoint", plan.Extra)
	}

	if err := ct.w.DeleteSavepoint(ctx, saved); err != nil {
		t.Fatal(err)
	}
	if err := ct.w.DeleteSavepoint(ctx, saved); !errors.Is(err, ErrNoSuchSavepoint) {
		t.Errorf("second delete: %v, want ErrNoSuchSavepoint", err)
	}
	ct.write(OpUpsert, tripsInput(gen.Updates(initial, 30)))
	if _, err := ct.w.Clean(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := baseFiles(t, fsys)[saved]; ok {
		t.Error("the files of the deleted savepoint are still there")
	}
}

// TestCleanCrashAtEveryStep fails every mutating file-system step of a
// clean in turn, as if the process died there, and checks that the table
// then reads right (the latest snapshot as it was, each past one whole or
// gone, the retained ones whole), and that the next clean completes the
// pending one, leaving the files a clean that ran through leaves.
func TestCleanCrashAtEveryStep(t *testing.T) {
	settings := CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}
	checkCleanCrashes(t, func() *cleanerTable { return newCleanerTable(t, newMemTripsTable(t), 5, settings, nil) }, nil)
}

// checkCleanCrashes is TestCleanCrashAtEveryStep for the tables setup
// makes, whose clean retains their last two instants: it also checks that
// the next clean leaves the partition folders a clean that ran through
// leaves. When between is not nil, it runs after each crash, before the
// readers' checks and the next clean.
func checkCleanCrashes(t *testing.T, setup func() *cleanerTable, between func(*cleanerTable)) {
	t.Helper()
	ctx := context.Background()
	ct := setup()
	probe := faultfs.New(ct.fsys, 0)
	w := NewWriter(probe, ct.w.opts)
	if _, err := w.Clean(ctx); err != nil {
		t.Fatal(err)
	}
	// The instants whose files stay, by their place among the commits,
	// and the folders at the base path.
	kept := func(ct *cleanerTable) []string {
		var out []string
		for i, in := range ct.instants {
			if _, ok := baseFiles(t, ct.fsys)[in]; ok {
				out = append(out, strconv.Itoa(i))
			}
		}
		entries, err := ct.fsys.ReadDir(ctx, ".")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir && e.Name != storage.MetaFolder {
				out = append(out, e.Name)
			}
		}
		return out
	}
	want := kept(ct)
	steps := probe.Steps()
	if steps < 4 {
		t.Fatalf("the clean took only %d steps", steps)
	}
	for failAt := 1; failAt <= steps; failAt++ {
		ct := setup()
		retained := ct.instants[len(ct.instants)-2:]
		ffs := faultfs.New(ct.fsys, failAt)
		_, err := NewWriter(ffs, ct.w.opts).Clean(ctx)
		if err != nil && !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d (%s): %v", failAt, ffs.Trace()[failAt-1], err)
		}
		if between != nil {
			between(ct)
		}
		if got := dataOf(snapshot(t, ct.fsys, "")); !equalData(got, ct.history[retained[1]]) {
			t.Fatalf("step %d (%s): the latest snapshot changed", failAt, ffs.Trace()[failAt-1])
		}
		ct.checkPast(retained...)
		res, err := ct.w.Clean(ctx)
		if err != nil {
			t.Fatalf("step %d: the next clean: %v", failAt, err)
		}
		tl, err := timeline.Load(ctx, ct.fsys)
		if err != nil {
			t.Fatal(err)
		}
		if p := tl.Pending(); p.Len() != 0 {
			t.Fatalf("step %d: pending instants after the next clean: %v (%+v)", failAt, p.Instants(), res)
		}
		if got := kept(ct); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: after the next clean the commits and folders %v stay, want %v", failAt, got, want)
		}
		ct.checkPast(retained...)
	}
}

// TestCleanKilled runs writes with the automatic cleaner in a child
// process, kills it with SIGKILL at several moments, and checks the table
// each time: the latest snapshot and the retained ones read whole, and
// the next write completes any clean left pending.
func TestCleanKilled(t *testing.T) {
	if os.Getenv("HOODIE_KILL_CLEANER") != "" {
		killedCleanerChild()
		return
	}
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short mode")
	}
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	tt.write(OpBulkInsert, tripsInput(trips.NewGenerator(3).Inserts(killedCleanerKeys)))
	for _, delay := range []time.Duration{0, 30 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
		killChild(t, "TestCleanKilled", "writing", delay, "HOODIE_KILL_CLEANER="+tt.dir)
		if n := len(snapshot(t, tt.fsys, "")); n != killedCleanerKeys {
			t.Fatalf("killed after %v: %d records, want %d", delay, n, killedCleanerKeys)
		}
		tl, err := timeline.Load(ctx, tt.fsys)
		if err != nil {
			t.Fatal(err)
		}
		commits := tl.CompletedCommits().Instants()
		for _, in := range commits[max(len(commits)-killedCleanerRetained, 0):] {
			if _, err := pastSnapshot(t, tt.fsys, in.Time); err != nil {
				t.Fatalf("killed after %v: retained commit %s: %v", delay, in.Time, err)
			}
		}
	}
	settings := DefaultSettings()
	settings.Cleaner.CommitsRetained = killedCleanerRetained
	tt.w = newTestWriter(tt.fsys, tt.dir, settings)
	// The next writes complete what the children left, and clean.
	for range killedCleanerRetained + 1 {
		tt.write(OpUpsert, tripsInput(trips.NewGenerator(4).Updates(trips.NewGenerator(3).Inserts(killedCleanerKeys), 10)))
	}
	tl, err := timeline.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Pending().Len() != 0 {
		t.Errorf("pending instants after the next write: %v", tl.Pending().Instants())
	}
	if tl.Filter(func(in timeline.Instant) bool { return in.Action == timeline.ActionClean }).Len() == 0 {
		t.Error("nothing was cleaned")
	}
	commits := tl.CompletedCommits().Instants()
	if got, want := len(instantsWithFiles(t, tt.fsys)), killedCleanerRetained+1; got > want {
		t.Errorf("the base files of %d commits are left, want at most %d (of %d commits)", got, want, len(commits))
	}
}

const (
	killedCleanerKeys     = 2000
	killedCleanerRetained = 2
)

// killedCleanerChild upserts into the table named by HOODIE_KILL_CLEANER,
// cleaning after each commit, until it is killed.
func killedCleanerChild() {
	dir := os.Getenv("HOODIE_KILL_CLEANER")
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(2)
	}
	settings := DefaultSettings()
	settings.Cleaner.CommitsRetained = killedCleanerRetained
	w := newTestWriter(fsys, dir, settings)
	initial := trips.NewGenerator(3).Inserts(killedCleanerKeys)
	gen := trips.NewGenerator(time.Now().UnixNano())
	os.Stdout.WriteString("writing\n")
	for i := 0; ; i++ {
		in := tripsInput(gen.Updates(initial, 500))
		in.Name = "child-" + strconv.Itoa(i)
		if _, err := w.Write(context.Background(), OpUpsert, in); err != nil {
			os.Exit(3)
		}
	}
}

// TestSavepointCrashAtEveryStep fails each step of a savepoint in turn: the
// table reads as before, the savepoint is there or not, never half made,
// and asking again completes it, so that the cleaner keeps what it reads.
func TestSavepointCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	settings := CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}
	setup := func() *cleanerTable { return newCleanerTable(t, newMemTripsTable(t), 5, settings, nil) }
	ct := setup()
	probe := faultfs.New(ct.fsys, 0)
	if _, err := NewWriter(probe, ct.w.opts).Savepoint(ctx, ct.instants[1], "probe"); err != nil {
		t.Fatal(err)
	}
	steps := probe.Steps()
	if steps < 2 {
		t.Fatalf("the savepoint took only %d steps", steps)
	}
	for failAt := 1; failAt <= steps; failAt++ {
		ct := setup()
		saved := ct.instants[1]
		ffs := faultfs.New(ct.fsys, failAt)
		_, err := NewWriter(ffs, ct.w.opts).Savepoint(ctx, saved, "crash")
		if err != nil && !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d (%s): %v", failAt, ffs.Trace()[failAt-1], err)
		}
		if got := dataOf(snapshot(t, ct.fsys, "")); !equalData(got, ct.history[ct.instants[4]]) {
			t.Fatalf("step %d (%s): the latest snapshot changed", failAt, ffs.Trace()[failAt-1])
		}
		sps, err := Savepoints(ctx, ct.fsys)
		if err != nil {
			t.Fatalf("step %d: list savepoints: %v", failAt, err)
		}
		if len(sps) == 0 {
			if _, err := ct.w.Savepoint(ctx, saved, "again"); err != nil {
				t.Fatalf("step %d: the savepoint asked again: %v", failAt, err)
			}
		}
		if _, err := ct.w.Clean(ctx); err != nil {
			t.Fatalf("step %d: clean: %v", failAt, err)
		}
		tl, err := timeline.Load(ctx, ct.fsys)
		if err != nil {
			t.Fatal(err)
		}
		if p := tl.Pending(); p.Len() != 0 {
			t.Fatalf("step %d: pending instants: %v", failAt, p.Instants())
		}
		ct.checkPast(saved, ct.instants[3], ct.instants[4])
	}
}

// newDeletedPartitionTable is a cleaner table keeping 2 commits, of three
// commits, a delete-partition of the partition it returns, a clean, then
// two upserts of the other partitions' trips: its next clean retains the
// upserts only, and so removes the deleted partition. The clean between
// retains the delete-partition: the partition must stay.
func newDeletedPartitionTable(t *testing.T) (*cleanerTable, string) {
	t.Helper()
	ctx := context.Background()
	ct := newCleanerTable(t, newMemTripsTable(t), 3, CleanerSettings{Policy: CleanKeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}, nil)
	gen := trips.NewGenerator(21)
	initial := gen.Inserts(30)
	victim := config.EscapePartitionValue(initial[0].PartitionPath)
	record := func(res *Result) {
		ct.instants = append(ct.instants, res.Instant)
		ct.history[res.Instant] = dataOf(snapshot(t, ct.fsys, ""))
	}
	res, err := ct.w.DeletePartitions(ctx, []string{victim})
	if err != nil {
		t.Fatal(err)
	}
	record(res)
	if cr, err := ct.w.Clean(ctx); err != nil || cr.Instant == "" {
		t.Fatalf("clean while the delete-partition is retained: %+v, %v", cr, err)
	}
	if _, err := ct.fsys.ReadDir(ctx, victim); err != nil {
		t.Fatalf("the clean retaining the delete-partition removed its partition: %v", err)
	}
	var others []trips.Trip
	for _, tr := range initial {
		if config.EscapePartitionValue(tr.PartitionPath) != victim {
			others = append(others, tr)
		}
	}
	for range 2 {
		record(ct.write(OpUpsert, tripsInput(gen.Updates(others, len(others)))))
	}
	return ct, victim
}

// TestCleanDeletedPartition cleans past a delete-partition: the plan names
// the partition in partitionsToBeDeleted as Hudi does, the clean removes
// its folder, and the latest and retained snapshots, the partition listing
// and the index stay right; writing the partition's trips again brings it
// back.
func TestCleanDeletedPartition(t *testing.T) {
	ctx := context.Background()
	ct, victim := newDeletedPartitionTable(t)
	cr, err := ct.w.Clean(ctx)
	if err != nil || cr.Instant == "" {
		t.Fatalf("clean: %+v, %v", cr, err)
	}
	tl, err := timeline.Load(ctx, ct.fsys)
	if err != nil {
		t.Fatal(err)
	}
	requested := timeline.Instant{Time: cr.Instant, Action: timeline.ActionClean, State: timeline.StateRequested}
	data, err := tl.ReadDetails(ctx, requested)
	if err != nil {
		t.Fatal(err)
	}
	objects, err := avrofile.Read(data)
	if err != nil || len(objects) != 1 {
		t.Fatalf("cleaner plan %v, %v", objects, err)
	}
	if got := objects[0].(map[string]any)["partitionsToBeDeleted"]; !reflect.DeepEqual(got, []any{victim}) {
		t.Errorf("partitionsToBeDeleted %v, want [%s]", got, victim)
	}
	meta, err := tl.ReadCleanMetadata(ctx, timeline.Instant{Time: cr.Instant, Action: timeline.ActionClean, State: timeline.StateCompleted})
	if err != nil {
		t.Fatal(err)
	}
	if pm := meta.Partitions[victim]; !pm.PartitionDeleted || len(pm.Deleted) == 0 || len(pm.Failed) != 0 {
		t.Errorf("clean metadata of %s: %+v, want its files deleted and the partition too", victim, pm)
	}
	for part, pm := range meta.Partitions {
		if part != victim && pm.PartitionDeleted {
			t.Errorf("clean metadata: partition %s deleted", part)
		}
	}
	if _, err := ct.fsys.ReadDir(ctx, victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the deleted partition's folder: %v, want it gone", err)
	}
	parts, err := read.ListPartitions(ctx, ct.fsys)
	if err != nil || slices.Contains(parts, victim) || len(parts) == 0 {
		t.Errorf("partitions %v, %v: want the others only", parts, err)
	}
	latest := ct.instants[len(ct.instants)-1]
	if !equalData(dataOf(snapshot(t, ct.fsys, "")), ct.history[latest]) {
		t.Error("the latest snapshot changed")
	}
	ct.checkPast(ct.instants[len(ct.instants)-2:]...)

	// The index holds none of the partition's keys: its trips come back
	// as inserts, each once, in a partition listed again.
	gen := trips.NewGenerator(21)
	var back []trips.Trip
	for _, tr := range gen.Inserts(30) {
		if config.EscapePartitionValue(tr.PartitionPath) == victim {
			back = append(back, tr)
		}
	}
	res := ct.write(OpUpsert, tripsInput(back))
	if res.Inserted != int64(len(back)) {
		t.Errorf("%d of the partition's %d trips inserted", res.Inserted, len(back))
	}
	got := snapshot(t, ct.fsys, "")
	if want := len(ct.history[latest]) + len(back); len(got) != want {
		t.Errorf("%d records, want %d", len(got), want)
	}
	if parts, err := read.ListPartitions(ctx, ct.fsys); err != nil || !slices.Contains(parts, victim) {
		t.Errorf("partitions %v, %v: want %s back", parts, err, victim)
	}
}

// TestCleanDeletedPartitionCrashAtEveryStep crashes the clean removing a
// deleted partition at every step: the next clean finishes it.
func TestCleanDeletedPartitionCrashAtEveryStep(t *testing.T) {
	checkCleanCrashes(t, func() *cleanerTable {
		ct, _ := newDeletedPartitionTable(t)
		return ct
	}, nil)
}

// TestArchiveWhileDeletedPartitionCleanPending archives the timeline right
// after the clean removing a deleted partition crashed at each step, and
// before the next clean: archival keeps the delete-partition while its
// replaced files may still be on disk (the last completed clean retains
// it), the readers read right, and the next clean finishes the partition.
func TestArchiveWhileDeletedPartitionCleanPending(t *testing.T) {
	ctx := context.Background()
	archived := 0
	checkCleanCrashes(t, func() *cleanerTable {
		ct, _ := newDeletedPartitionTable(t)
		return ct
	}, func(ct *cleanerTable) {
		ct.w.settings.Archive = ArchiveSettings{MinCommits: 3, MaxCommits: 4}
		res, err := ct.w.Archive(ctx)
		if err != nil {
			t.Fatalf("archive while a clean is pending: %v", err)
		}
		for _, in := range res.Archived {
			if in.Action == timeline.ActionReplaceCommit {
				t.Fatalf("archived the delete-partition %s before its partition was cleaned", in)
			}
		}
		archived += len(res.Archived)
	})
	if archived == 0 {
		t.Fatal("archival archived nothing: the test checks nothing")
	}
}

// TestCleanKeepsDeletedPartition keeps, while cleaning past its
// delete-partition, a partition holding a file of a pending write (as Hudi
// does), or a file a savepoint keeps (so the savepoint stays restorable).
func TestCleanKeepsDeletedPartition(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// hold puts what keeps the partition, and returns the file that
		// must stay.
		hold func(ct *cleanerTable, victim string) string
	}{
		{"pending write", func(ct *cleanerTable, victim string) string {
			name := path.Join(victim, basefile.Name{FileID: basefile.NewFileID(), WriteToken: "0-0-0", InstantTime: "29991231235959999"}.String())
			if err := ct.fsys.WriteFile(ctx, name, []byte("being written")); err != nil {
				t.Fatal(err)
			}
			return name
		}},
		{"savepoint", func(ct *cleanerTable, victim string) string {
			saved := ct.instants[2]
			if _, err := ct.w.Savepoint(ctx, saved, ""); err != nil {
				t.Fatal(err)
			}
			for _, f := range baseFiles(t, ct.fsys)[saved] {
				if path.Dir(f) == victim {
					return f
				}
			}
			t.Fatalf("no file of %s in %s", saved, victim)
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, victim := newDeletedPartitionTable(t)
			kept := tc.hold(ct, victim)
			cr, err := ct.w.Clean(ctx)
			if err != nil || cr.Deleted == 0 {
				t.Fatalf("clean: %+v, %v", cr, err)
			}
			if _, err := ct.fsys.Stat(ctx, kept); err != nil {
				t.Errorf("%s: %v, want it kept", kept, err)
			}
			parts, err := read.ListPartitions(ctx, ct.fsys)
			if err != nil || !slices.Contains(parts, victim) {
				t.Errorf("partitions %v, %v: want %s kept", parts, err, victim)
			}
			ct.checkPast(ct.instants[len(ct.instants)-2:]...)
		})
	}
}

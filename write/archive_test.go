package write

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
	archivetl "github.com/hoodie-dev/hoodie/timeline/archive"
)

// smallArchival keeps 2 to 4 completed commits on the active timeline.
var smallArchival = ArchiveSettings{Automatic: true, MinCommits: 2, MaxCommits: 4, Batch: 3}

// steppingClock returns a clock that moves one second a call from a fixed
// start, so that instant times are the same from run to run and leave
// room between them.
func steppingClock() func() time.Time {
	now := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		now = now.Add(time.Second)
		return now
	}
}

// archiveTable is a table in memory written by a writer on a stepping
// clock with the given archival settings.
type archiveTable struct {
	mem      *storage.MemFS
	dir      string
	clock    func() time.Time
	archive  ArchiveSettings
	history  map[string]map[string]string // instant -> data as of it
	instants []string
}

func newArchiveTable(t *testing.T, a ArchiveSettings) *archiveTable {
	return &archiveTable{mem: newMemTripsTable(t), dir: t.TempDir(), clock: steppingClock(), archive: a, history: map[string]map[string]string{}}
}

func (at *archiveTable) writer(fsys storage.FS) *Writer {
	s := DefaultSettings()
	s.Archive = at.archive
	return NewWriter(fsys, Options{Settings: s, IndexDir: at.dir, TableID: at.dir, Clock: at.clock, Local: time.UTC})
}

// writeCommits makes n commits: an insert of 20 trips, then upserts of
// two updates and one insert, recording the data as of each.
func (at *archiveTable) writeCommits(t *testing.T, n int) {
	t.Helper()
	gen := trips.NewGenerator(int64(len(at.instants) + 1))
	var all []trips.Trip
	for i := range n {
		op, batch := OpUpsert, gen.Inserts(1)
		if i == 0 && len(at.instants) == 0 {
			op, batch = OpInsert, gen.Inserts(20)
		} else if len(all) > 0 {
			batch = append(batch, gen.Updates(all, 2)...)
		}
		all = append(all, batch...)
		res, err := at.writer(at.mem).Write(context.Background(), op, tripsInput(batch))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			t.Errorf("write %d: %v", i, w)
		}
		at.instants = append(at.instants, res.Instant)
		at.history[res.Instant] = dataOf(snapshot(t, at.mem, ""))
	}
}

// checkReads checks that every reader sees the table as it was written:
// the latest snapshot, and time travel to every instant, archived or not.
func (at *archiveTable) checkReads(t *testing.T, what string) {
	t.Helper()
	last := at.instants[len(at.instants)-1]
	if !equalData(dataOf(snapshot(t, at.mem, "")), at.history[last]) {
		t.Fatalf("%s: the latest snapshot is not the table's data", what)
	}
	for _, in := range at.instants {
		if !equalData(dataOf(snapshot(t, at.mem, in)), at.history[in]) {
			t.Fatalf("%s: time travel to %s does not give the data of then", what, in)
		}
	}
}

// wholeTimeline loads the active and the archived timeline and checks that
// together they hold every commit written, once, completed, the archived
// ones before the active ones. It returns the archived commits.
func (at *archiveTable) wholeTimeline(t *testing.T, what string) (archived []string) {
	t.Helper()
	commits, archived, active := wholeCommits(t, at.mem)
	if !slices.Equal(commits, at.instants) {
		t.Fatalf("%s: the whole timeline holds commits %v, want %v", what, commits, at.instants)
	}
	if first, ok := active.CompletedCommits().First(); ok && len(archived) > 0 && archived[len(archived)-1] >= first.Time {
		t.Fatalf("%s: archived commit %s is not older than the first active one %s", what, archived[len(archived)-1], first.Time)
	}
	return archived
}

// TestArchiveAfterCommits: with hoodie.keep.min.commits 2 and max 4, each
// commit that makes 5 archives down to 2, every state of each archived
// commit goes to the archive, and every read (time travel to archived
// commits included) and the archived commit metadata stay right.
func TestArchiveAfterCommits(t *testing.T) {
	ctx := context.Background()
	at := newArchiveTable(t, smallArchival)
	at.writeCommits(t, 10)
	tl, err := timeline.Load(ctx, at.mem)
	if err != nil {
		t.Fatal(err)
	}
	if n := tl.CompletedCommits().Len(); n != 4 {
		t.Errorf("%d commits on the active timeline after 10 commits; want 4 (archived down to 2 at the 5th and the 8th)", n)
	}
	archived := at.wholeTimeline(t, "after 10 commits")
	if !slices.Equal(archived, at.instants[:6]) {
		t.Errorf("archived %v, want the 6 oldest commits", archived)
	}
	at.checkReads(t, "after 10 commits")
	files, err := archivetl.ListFiles(ctx, at.mem)
	if err != nil || len(files) != 2 {
		t.Fatalf("archive files %v (%v), want 2, one an archival", files, err)
	}
	arch, err := archivetl.Load(ctx, at.mem)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(arch.Entries()); n != 18 {
		t.Errorf("%d archived entries, want 18: the requested, inflight and completed states of 6 commits", n)
	}
	for _, e := range arch.Entries() {
		if e.StateTransitionTime == "" {
			t.Errorf("archived %s has no state transition time", e.Instant)
		}
	}
	// The archived commit metadata names the files the commit wrote.
	m, err := arch.CommitMetadata(at.instants[0], timeline.ActionCommit)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.WrittenPaths(); len(got) == 0 || path.Base(got[0]) == "" || m.OperationType != "INSERT" {
		t.Errorf("archived metadata of the first commit: %v, operation %q", got, m.OperationType)
	}
}

// TestArchiveKeeps checks what archival leaves on the active timeline:
// nothing from the oldest savepoint on, from the latest commit before a
// pending write on, from the earliest commit the latest clean retains on,
// nor a replacecommit whose replaced files were not cleaned.
func TestArchiveKeeps(t *testing.T) {
	ctx := context.Background()
	// between is an instant time half a second after commit i (1-based).
	between := func(at *archiveTable, i int) string {
		tm, err := timeline.ParseInstantTimeIn(at.instants[i-1], time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return timeline.FormatInstantTimeIn(tm.Add(500*time.Millisecond), time.UTC)
	}
	put := func(t *testing.T, at *archiveTable, name string, data []byte) {
		t.Helper()
		if err := at.mem.WriteFile(ctx, path.Join(storage.MetaFolder, name), data); err != nil {
			t.Fatal(err)
		}
	}
	replaceJSON := []byte(`{"partitionToWriteStats":{},"partitionToReplaceFileIds":{},"compacted":false,"extraMetadata":{},"operationType":"INSERT_OVERWRITE"}`)
	cases := []struct {
		name  string
		setup func(t *testing.T, at *archiveTable)
		want  int // the commits archived, the oldest
		// replaced says that a replacecommit after commit 3 was archived.
		replaced bool
	}{
		{"nothing", func(*testing.T, *archiveTable) {}, 6, false},
		{"savepoint", func(t *testing.T, at *archiveTable) {
			put(t, at, at.instants[2]+".savepoint.inflight", nil)
			put(t, at, at.instants[2]+".savepoint", []byte("savepoint"))
		}, 2, false},
		{"pending write", func(t *testing.T, at *archiveTable) {
			put(t, at, between(at, 5)+".commit.requested", nil)
		}, 4, false},
		{"clean", func(t *testing.T, at *archiveTable) {
			ts := between(at, 8)
			put(t, at, ts+".clean", avrofiletest.CleanMetadata(t, ts, at.instants[4]))
		}, 4, false},
		{"replacecommit not cleaned", func(t *testing.T, at *archiveTable) {
			put(t, at, between(at, 3)+".replacecommit", replaceJSON)
		}, 3, false},
		{"replacecommit cleaned", func(t *testing.T, at *archiveTable) {
			put(t, at, between(at, 3)+".replacecommit.requested", nil)
			put(t, at, between(at, 3)+".replacecommit.inflight", replaceJSON)
			put(t, at, between(at, 3)+".replacecommit", replaceJSON)
			ts := between(at, 8)
			put(t, at, ts+".clean", avrofiletest.CleanMetadata(t, ts, at.instants[5]))
		}, 5, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			at := newArchiveTable(t, ArchiveSettings{MinCommits: 2, MaxCommits: 4, Batch: 10})
			at.writeCommits(t, 8)
			tc.setup(t, at)
			res, err := at.writer(at.mem).Archive(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var commits []string
			replaced := false
			for _, in := range res.Archived {
				switch in.Action {
				case timeline.ActionCommit:
					commits = append(commits, in.Time)
				case timeline.ActionReplaceCommit:
					replaced = true
				}
			}
			if !slices.Equal(commits, at.instants[:tc.want]) || replaced != tc.replaced {
				t.Errorf("archived commits %v (a replacecommit: %v), want the %d oldest (%v)", commits, replaced, tc.want, tc.replaced)
			}
			at.checkReads(t, "after archiving")
		})
	}
}

// TestArchiveRefusesBounds: Hudi needs more commits kept at most than at
// least, and at least more than the cleaner retains.
func TestArchiveRefusesBounds(t *testing.T) {
	props := config.NewProperties()
	props.Set(KeyKeepMinCommits, "5")
	props.Set(KeyKeepMaxCommits, "6")
	if _, err := ParseSettings(props); err == nil || !strings.Contains(err.Error(), "hoodie.keep.min.commits=5 must be greater than hoodie.cleaner.commits.retained=10") {
		t.Fatalf("keep.min below the cleaner's 10 commits: %v, want an error naming both", err)
	}
	props.Set("hoodie.cleaner.commits.retained", "4")
	props.Set(KeyKeepMaxCommits, "5")
	if _, err := ParseSettings(props); err == nil || !errors.Is(err, ErrRefused) && err.Error() == "" {
		t.Fatalf("keep.max = keep.min: %v, want an error", err)
	}
	props.Set(KeyKeepMaxCommits, "6")
	s, err := ParseSettings(props)
	if err != nil || s.Archive.MinCommits != 5 || s.Archive.MaxCommits != 6 || !s.Archive.Automatic {
		t.Fatalf("keep.min 5, keep.max 6: %+v, %v", s.Archive, err)
	}
}

// TestArchiveCrashAtEveryStep kills the archival at each of its steps in
// turn: every reader still reads the table right, no instant is lost or
// left pending, and the next archival completes the work without
// archiving an entry twice.
func TestArchiveCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) *archiveTable {
		at := newArchiveTable(t, ArchiveSettings{MinCommits: 2, MaxCommits: 4, Batch: 2})
		at.writeCommits(t, 6)
		return at
	}
	at := setup(t)
	probe := faultfs.New(at.mem, 0)
	if _, err := at.writer(probe).Archive(ctx); err != nil {
		t.Fatal(err)
	}
	steps := probe.Steps()
	if steps < 13 {
		t.Fatalf("archiving 4 commits took %d steps, want at least 13 (a file, 12 removals)", steps)
	}
	for failAt := 1; failAt <= steps; failAt++ {
		at := setup(t)
		ffs := faultfs.New(at.mem, failAt)
		if _, err := at.writer(ffs).Archive(ctx); !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d: %v, want the injected failure", failAt, err)
		}
		what := fmt.Sprintf("crash at step %d (%s)", failAt, ffs.Trace()[failAt-1])
		at.wholeTimeline(t, what)
		at.checkReads(t, what)
		tl, err := timeline.Load(ctx, at.mem)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Pending().Len() != 0 {
			t.Fatalf("%s: pending instants left, which a write would roll back: %v", what, tl.Pending().Instants())
		}
		if _, err := at.writer(at.mem).Archive(ctx); err != nil {
			t.Fatalf("%s: the next archival: %v", what, err)
		}
		if archived := at.wholeTimeline(t, what+", then archived"); len(archived) != 4 {
			t.Fatalf("%s: the next archival left %d commits archived, want 4", what, len(archived))
		}
		at.checkReads(t, what+", then archived")
		checkArchivedOnce(t, at.mem, what)
		// A write after it works, and rolls nothing back.
		at.writeCommits(t, 1)
		at.checkReads(t, what+", then written")
	}
}

func mustList(t *testing.T, fsys storage.FS) []archivetl.File {
	t.Helper()
	files, err := archivetl.ListFiles(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// checkArchived checks, after writes with automatic archival, that the
// active and the archived timeline together hold each write (commit or
// replacecommit) once, and
// that the active one holds no more than the settings allow.
func checkArchived(t *testing.T, fsys storage.FS, instants []string, a ArchiveSettings) {
	t.Helper()
	commits, archived, active := wholeCommits(t, fsys)
	if !slices.Equal(commits, instants) {
		t.Errorf("the active and archived timelines hold commits %v, want %v", commits, instants)
	}
	if n := active.CompletedCommits().Len(); n > a.MaxCommits || len(instants) > a.MaxCommits && len(archived) == 0 {
		t.Errorf("%d commits active, %d archived, of %d; keep.max.commits %d", n, len(archived), len(instants), a.MaxCommits)
	}
}

// TestArchiveKilled runs writes that archive after every commit in a child
// process, kills it with SIGKILL at several moments, and checks the table
// each time: every commit once on the two timelines together, the records
// of exactly the completed commits, and the next write and archival work.
func TestArchiveKilled(t *testing.T) {
	if dir := os.Getenv("HOODIE_KILL_ARCHIVER"); dir != "" {
		killedArchiverChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short mode")
	}
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	// Each child is killed after a few commits, a moment into the next
	// one (its write, or the archival after it).
	for round, delay := range []time.Duration{0, 5 * time.Millisecond, 15 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestArchiveKilled$")
		cmd.Env = append(os.Environ(), "HOODIE_KILL_ARCHIVER="+tt.dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewReader(out)
		for range round + 2 {
			if line, _ := lines.ReadString('\n'); line != "committed\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q", line)
			}
		}
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		what := fmt.Sprintf("killed after %v", delay)
		commits, _, _ := wholeCommits(t, tt.fsys)
		if got := len(snapshot(t, tt.fsys, "")); got != killedBatch*len(commits) {
			t.Fatalf("%s: %d records for %d completed commits of %d records each", what, got, len(commits), killedBatch)
		}
		for _, in := range commits {
			if n := len(snapshot(t, tt.fsys, in)); n == 0 {
				t.Fatalf("%s: time travel to %s reads nothing", what, in)
			}
		}
	}
	if files := mustList(t, tt.fsys); len(files) < 2 {
		t.Fatalf("the killed children wrote %d archive files; the test needs archivals to kill", len(files))
	}
	// The next write rolls back what the killed one left, and archives.
	tt.w.settings.Archive = ArchiveSettings{Automatic: true, MinCommits: 2, MaxCommits: 3, Batch: 1}
	before, _, _ := wholeCommits(t, tt.fsys)
	res := tt.write(OpInsert, tripsInput(trips.NewGenerator(time.Now().UnixNano()).Inserts(killedBatch)))
	checkArchived(t, tt.fsys, append(before, res.Instant), tt.w.settings.Archive)
	if tl, err := timeline.Load(ctx, tt.fsys); err != nil || tl.Pending().Len() != 0 {
		t.Fatalf("after the next write: %v pending (%v)", tl.Pending().Instants(), err)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// killedBatch is how many records each write of the killed child inserts.
const killedBatch = 10

// killedArchiverChild inserts batches into the table in dir, archiving
// after each commit, until it is killed.
func killedArchiverChild(dir string) {
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(2)
	}
	s := DefaultSettings()
	s.Archive = ArchiveSettings{Automatic: true, MinCommits: 2, MaxCommits: 3, Batch: 1}
	w := newTestWriter(fsys, dir, s)
	gen := trips.NewGenerator(time.Now().UnixNano())
	for {
		if _, err := w.Write(context.Background(), OpInsert, tripsInput(gen.Inserts(killedBatch))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println("committed")
	}
}

// wholeCommits lists the completed writes of the active and the archived
// timeline together, and those of the archived one, checking that each is
// there once; it returns the active timeline too.
func wholeCommits(t *testing.T, fsys storage.FS) (commits, archived []string, active *timeline.Timeline) {
	t.Helper()
	ctx := context.Background()
	active, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	arch, err := archivetl.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range archivetl.Merged(active, arch) {
		isWrite := l.Action == timeline.ActionCommit || l.Action == timeline.ActionReplaceCommit
		if !isWrite || l.State != timeline.StateCompleted {
			continue
		}
		if len(commits) > 0 && commits[len(commits)-1] == l.Time {
			t.Fatalf("commit %s listed twice", l.Time)
		}
		commits = append(commits, l.Time)
		if l.Archived {
			archived = append(archived, l.Time)
		}
	}
	return commits, archived, active
}

// checkArchivedOnce checks that no instant, in any state, is in the
// archive files of fsys twice.
func checkArchivedOnce(t *testing.T, fsys storage.FS, what string) {
	t.Helper()
	ctx := context.Background()
	seen := map[timeline.Instant]bool{}
	for _, f := range mustList(t, fsys) {
		data, err := fsys.ReadFile(ctx, path.Join(archivetl.Folder, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		entries, _, err := archivetl.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if seen[e.Instant] {
				t.Fatalf("%s: %s archived twice", what, e.Instant)
			}
			seen[e.Instant] = true
		}
	}
}

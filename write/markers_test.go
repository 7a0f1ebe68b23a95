package write

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TestRollbackOfDeadSparkWrite leaves a write pending as a Spark writer that
// died does, with its markers of the kind Spark writes, and checks that the
// next write deletes its data files: none of its records may be read once
// the commits before it are archived (a base file older than the active
// timeline reads as committed).
func TestRollbackOfDeadSparkWrite(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// markers makes the markers of the dead write's files.
		markers func(t *testing.T, fsys storage.FS, instant string, files []string)
	}{
		{"timeline-server-based markers", func(t *testing.T, fsys storage.FS, instant string, files []string) {
			dir := markerFolder(instant)
			if err := fsys.CreateIfAbsent(ctx, dir+"/"+markersTypeFile, []byte("TIMELINE_SERVER_BASED")); err != nil {
				t.Fatal(err)
			}
			// Spark spreads the names over several MARKERS<n> files.
			for i, f := range files {
				name := dir + "/" + markersFilePrefix + string(rune('0'+i%2))
				old, _ := fsys.ReadFile(ctx, name)
				if err := fsys.WriteFile(ctx, name, append(old, f+markerMerge+"\n"...)); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"no markers", func(*testing.T, storage.FS, string, []string) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			gen := trips.NewGenerator(12)
			initial := gen.Inserts(30)
			r1 := tt.write(OpInsert, tripsInput(initial))

			// The dead upsert: a committed write whose completed file and
			// markers are taken away, and whose markers are then made as
			// Spark makes them.
			updates := gen.Updates(initial, 10)
			r2, err := otherWriter(t, tt, Settings{}).Write(ctx, OpUpsert, tripsInput(updates))
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.fsys.Remove(ctx, ".hoodie/"+r2.Instant+".commit"); err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, f := range r2.Files {
				files = append(files, f.Path)
			}
			tc.markers(t, tt.fsys, r2.Instant, files)

			tt.write(OpInsert, tripsInput(gen.Inserts(1)))
			for _, f := range files {
				if _, err := tt.fsys.Stat(ctx, f); err == nil {
					t.Errorf("data file %s of the rolled-back instant %s is still there", f, r2.Instant)
				}
			}
			for _, f := range r1.Files {
				if _, err := tt.fsys.Stat(ctx, f.Path); err != nil {
					t.Errorf("committed file %s: %v", f.Path, err)
				}
			}

			// Hudi's archiver moves the first commit out of the active
			// timeline.
			for _, name := range []string{r1.Instant + ".commit.requested", r1.Instant + ".inflight", r1.Instant + ".commit"} {
				if err := tt.fsys.Rename(ctx, ".hoodie/"+name, ".hoodie/archived/"+name); err != nil {
					t.Fatal(err)
				}
			}
			after := snapshot(t, tt.fsys, "")
			for _, u := range updates {
				if got := after[u.UUID]; got == nil || got[0] == r2.Instant {
					t.Fatalf("record %s reads as %v, want it as written by %s", u.UUID, got, r1.Instant)
				}
			}
			if len(after) != len(initial)+1 {
				t.Errorf("%d records, want %d", len(after), len(initial)+1)
			}
		})
	}
}

// TestMarkedFilesReadsMarkersFiles reads the marker names of
// timeline-server-based markers, skipping MARKERS.type and blank lines.
func TestMarkedFilesReadsMarkersFiles(t *testing.T) {
	ctx := context.Background()
	fsys := storage.NewMemFS()
	dir := markerFolder("20240418172802262")
	for name, data := range map[string]string{
		markersTypeFile: "TIMELINE_SERVER_BASED",
		"MARKERS0":      "p1/a_0-1-2_20240418172802262.parquet.marker.CREATE\np2/b_1-1-2_20240418172802262.parquet.marker.MERGE\n",
		"MARKERS1":      "\r\np1/c_2-1-2_20240418172802262.parquet.marker.MERGE\r\n",
	} {
		if err := fsys.WriteFile(ctx, dir+"/"+name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := markedFiles(ctx, fsys, "20240418172802262")
	if err != nil {
		t.Fatal(err)
	}
	want := "p1/a_0-1-2_20240418172802262.parquet p1/c_2-1-2_20240418172802262.parquet p2/b_1-1-2_20240418172802262.parquet"
	slices.Sort(got)
	if strings.Join(got, " ") != want {
		t.Errorf("marked files %v, want %s", got, want)
	}
}

// pendingSparkWrite leaves on tt an upsert as a Spark writer leaves it while
// it runs: its data files written, its instant inflight, its markers in
// MARKERS files. It returns the instant, the files and the completed file's
// content the writer is about to write.
func pendingSparkWrite(t *testing.T, tt *testTable, gen *trips.Generator, initial []trips.Trip) (string, []string, []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := otherWriter(t, tt, Settings{}).Write(ctx, OpUpsert, tripsInput(gen.Updates(initial, 10)))
	if err != nil {
		t.Fatal(err)
	}
	done := ".hoodie/" + r.Instant + ".commit"
	meta, err := tt.fsys.ReadFile(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	if err := tt.fsys.Remove(ctx, done); err != nil {
		t.Fatal(err)
	}
	var files, lines []string
	for _, f := range r.Files {
		files = append(files, f.Path)
		lines = append(lines, f.Path+markerMerge)
	}
	dir := markerFolder(r.Instant)
	if err := tt.fsys.WriteFile(ctx, dir+"/"+markersTypeFile, []byte("TIMELINE_SERVER_BASED")); err != nil {
		t.Fatal(err)
	}
	if err := tt.fsys.WriteFile(ctx, dir+"/"+markersFilePrefix+"0", []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	return r.Instant, files, meta
}

// A Spark writer that keeps a fresh heartbeat (the multi-writer setting)
// is alive: its pending write is left alone, files and instant.
func TestRecoverLeavesWritesWithAFreshHeartbeat(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		age  time.Duration
		kept bool
	}{{"fresh", 30 * time.Second, true}, {"expired", 3 * time.Minute, false}} {
		t.Run(tc.name, func(t *testing.T) {
			tt, gen, initial := tableOf30Trips(t, 12)
			instant, files, _ := pendingSparkWrite(t, tt, gen, initial)
			beat := heartbeatFolder + "/" + instant
			if err := tt.fsys.WriteFile(ctx, beat, nil); err != nil {
				t.Fatal(err)
			}
			at := time.Now().Add(-tc.age)
			if err := os.Chtimes(filepath.Join(tt.dir, filepath.FromSlash(beat)), at, at); err != nil {
				t.Fatal(err)
			}
			tt.write(OpInsert, tripsInput(gen.Inserts(1)))
			for _, f := range append(files, ".hoodie/"+instant+".inflight") {
				if _, err := tt.fsys.Stat(ctx, f); (err == nil) != tc.kept {
					t.Errorf("%s: stat error %v, want kept %v", f, err, tc.kept)
				}
			}
		})
	}
}

// completingFS completes the pending instant just as its inflight file is
// about to be deleted: the writer finished before the rollback could stop it.
type completingFS struct {
	*storage.LocalFS
	instant string
	meta    []byte
}

func (f *completingFS) Remove(ctx context.Context, name string) error {
	if name == ".hoodie/"+f.instant+".inflight" {
		if err := f.LocalFS.CreateIfAbsent(ctx, ".hoodie/"+f.instant+".commit", f.meta); err != nil {
			return err
		}
	}
	return f.LocalFS.Remove(ctx, name)
}

// A write that completes while a rollback starts keeps its files: the
// rollback looks again once the instant can no longer complete.
func TestRollbackLeavesAWriteThatCompletesMeanwhile(t *testing.T) {
	ctx := context.Background()
	tt, gen, initial := tableOf30Trips(t, 12)
	instant, files, meta := pendingSparkWrite(t, tt, gen, initial)
	cfs := &completingFS{LocalFS: tt.fsys.(*storage.LocalFS), instant: instant, meta: meta}
	// The write goes on: the commit stands, and is the table's.
	if _, err := newTestWriter(cfs, tt.dir, Settings{}).Write(ctx, OpInsert, tripsInput(gen.Inserts(1))); err != nil {
		t.Errorf("write: %v", err)
	}
	if tl, err := timeline.Load(ctx, tt.fsys); err != nil || !tl.CompletedCommits().Contains(instant) {
		t.Errorf("commit %s is not completed: %v", instant, err)
	}
	for _, f := range files {
		if _, err := tt.fsys.Stat(ctx, f); err != nil {
			t.Errorf("file %s of the completed commit %s: %v", f, instant, err)
		}
	}
}

// A dead write without markers is rolled back by listing every partition,
// nested ones included: in a table of raw partition values, "a" and "a/b"
// are two partitions, one inside the other's folder, and the dead write's
// files and the partition it created in a/b go too.
func TestRollbackByListingFindsNestedPartitions(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTableConfigured(t, config.MergeEventTime, Settings{}, func(cfg *config.Table) {
		cfg.URLEncodePartitioning = false
	})
	in := func(rows ...[]any) *Input { return &Input{Name: "nested", Schema: modelSchema(), Rows: rows} }
	tt.write(OpInsert, in([]any{"k1", int64(1), "r", 1.0, "a", false}))
	// The dead write: committed, then its completed file and markers taken
	// away, as a writer that keeps its markers elsewhere leaves them.
	res, err := otherWriter(t, tt, Settings{}).Write(ctx, OpInsert, in([]any{"k2", int64(1), "r", 1.0, "a/b", false}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Partition != "a/b" {
		t.Fatalf("files %v, want one in a/b", res.Files)
	}
	if err := tt.fsys.Remove(ctx, ".hoodie/"+res.Instant+".commit"); err != nil {
		t.Fatal(err)
	}
	if err := tt.fsys.RemoveAll(ctx, markerFolder(res.Instant)); err != nil {
		t.Fatal(err)
	}
	tt.write(OpInsert, in([]any{"k3", int64(1), "r", 1.0, "a", false}))
	if _, err := tt.fsys.Stat(ctx, res.Files[0].Path); err == nil {
		t.Errorf("data file %s of the rolled-back instant is still there", res.Files[0].Path)
	}
	if _, err := os.Stat(filepath.Join(tt.dir, "a", "b")); err == nil {
		t.Error("the partition a/b the dead write created is still there")
	}
}

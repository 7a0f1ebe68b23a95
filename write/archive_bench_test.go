package write

import (
	"context"
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// BenchmarkLoadTimelineAndView loads the timeline and the latest view of a
// table of 30 commits and of one of 1,000, archived as Hudi's defaults
// archive (20 to 30 commits active) and cleaned as its default cleaner
// cleans (the versions of archived commits gone, but each file group's
// latest). Issue 19 wants the second to cost at most twice the first.
func BenchmarkLoadTimelineAndView(b *testing.B) {
	for _, commits := range []int{30, 1000} {
		b.Run(fmt.Sprintf("commits=%d", commits), func(b *testing.B) {
			ctx := context.Background()
			fsys := archivedTable(b, commits)
			b.ResetTimer()
			for range b.N {
				tl, err := timeline.Load(ctx, fsys)
				if err != nil {
					b.Fatal(err)
				}
				view, err := read.LoadView(ctx, fsys, tl, "")
				if err != nil {
					b.Fatal(err)
				}
				if len(view.FileGroups()) != benchGroups {
					b.Fatalf("%d file groups, want %d", len(view.FileGroups()), benchGroups)
				}
			}
		})
	}
}

// benchGroups is the number of file groups of archivedTable's tables.
const benchGroups = 20

// archivedTable makes, in a temporary folder, a table of n commits, each
// rewriting one of benchGroups file groups of one partition, archived by
// Writer.Archive with Hudi's defaults and cleaned of the versions no
// active commit wrote but each group's latest. The base files are empty:
// loading a view lists them and reads no content.
func archivedTable(b *testing.B, n int) storage.FS {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := config.NewTable("bench", []string{"uuid"}, "ts", []string{"partitionpath"}, false, config.MergeEventTime)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := config.CreateTable(ctx, fsys, cfg, start); err != nil {
		b.Fatal(err)
	}
	if err := config.EnsurePartitionMetadata(ctx, fsys, "p", "20240101000000000", start); err != nil {
		b.Fatal(err)
	}
	latest := map[string]string{} // file id -> its latest file
	var files []string
	for i := range n {
		instant := timeline.FormatInstantTimeIn(start.Add(time.Duration(i+1)*time.Second), time.UTC)
		id := fmt.Sprintf("%08d-0000-0000-0000-000000000000-0", i%benchGroups)
		file := path.Join("p", id+"_0-1-1_"+instant+".parquet")
		if err := fsys.WriteFile(ctx, file, nil); err != nil {
			b.Fatal(err)
		}
		latest[id], files = file, append(files, file)
		m := &timeline.CommitMetadata{OperationType: timeline.Operation("upsert"), ExtraMetadata: map[string]string{timeline.SchemaKey: "{}"}}
		m.AddWriteStat("p", timeline.WriteStat{FileID: id, Path: file, PrevCommit: "null", NumWrites: 1, PartitionPath: "p"})
		meta, err := m.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		for sfx, data := range map[string][]byte{".commit.requested": nil, ".inflight": meta, ".commit": meta} {
			if err := fsys.WriteFile(ctx, path.Join(storage.MetaFolder, instant+sfx), data); err != nil {
				b.Fatal(err)
			}
		}
		if (i+1)%10 == 0 || i == n-1 {
			// Hudi archives after every commit; once in ten is enough to
			// keep the same bounds.
			if _, err := NewWriter(fsys, Options{Local: time.UTC}).Archive(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		b.Fatal(err)
	}
	first, _ := tl.CompletedCommits().First()
	for _, f := range files {
		name, err := basefile.ParseName(path.Base(f))
		if err != nil {
			b.Fatal(err)
		}
		if name.InstantTime < first.Time && latest[name.FileID] != f {
			if err := fsys.Remove(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	}
	return fsys
}

// BenchmarkArchiveAfterCommit is what a write's automatic archival costs
// when there is nothing to archive, as after most commits: on the
// 1,000-commit table of BenchmarkLoadTimelineAndView.
func BenchmarkArchiveAfterCommit(b *testing.B) {
	ctx := context.Background()
	fsys := archivedTable(b, 1000)
	w := NewWriter(fsys, Options{Local: time.UTC})
	if _, err := w.Archive(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		res, err := w.archive(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Archived) != 0 {
			b.Fatalf("archived %d instants", len(res.Archived))
		}
	}
}

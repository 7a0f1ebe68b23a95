package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/write"
)

// smallGrowth are settings that bound a small table after a few upserts:
// the cleaner keeps one commit, archival two to three.
func smallGrowth() write.Settings {
	s := write.DefaultSettings()
	s.Cleaner.CommitsRetained = 1
	s.Archive.MinCommits, s.Archive.MaxCommits = 2, 3
	return s
}

// TestRunGrowth upserts a few times into a small table with the automatic
// cleaner and archival on, and checks the report against what they keep.
func TestRunGrowth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made")
	var progress bytes.Buffer
	const upserts = 12
	rep, err := RunGrowth(context.Background(), GrowthOptions{Rows: 2 * MinRows, Upserts: upserts, Settings: smallGrowth(), Dir: dir, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 2*MinRows || rep.Upserts != upserts || rep.Keys != GrowthKeys || rep.CommitsRetained != 1 || rep.KeepMaxCommits != 3 {
		t.Errorf("report of %d rows, %d upserts of %d keys, %d retained, keep max %d", rep.Rows, rep.Upserts, rep.Keys, rep.CommitsRetained, rep.KeepMaxCommits)
	}
	if rep.SnapshotBytes <= 0 || rep.TableBytes <= rep.SnapshotBytes+rep.MetaBytes || rep.BoundBytes != 3*rep.SnapshotBytes ||
		rep.IndexBytes <= 0 || rep.MetaBytes <= rep.IndexBytes {
		t.Errorf("snapshot %d bytes, table %d, .hoodie %d, index %d, bound %d", rep.SnapshotBytes, rep.TableBytes, rep.MetaBytes, rep.IndexBytes, rep.BoundBytes)
	}
	if want := float64(rep.TableBytes) / float64(rep.BoundBytes); rep.BoundRatio != want || want > 1 {
		t.Errorf("bound ratio %v, want %v, at most 1", rep.BoundRatio, want)
	}
	if rep.ActiveCommits < 2 || rep.ActiveCommits > 3 || rep.ActiveCleans > 3 || rep.ActiveInstants < rep.ActiveCommits+rep.ActiveCleans || rep.ArchivedInstants == 0 {
		t.Errorf("active timeline: %d instants, %d commits, %d cleans; %d archived", rep.ActiveInstants, rep.ActiveCommits, rep.ActiveCleans, rep.ArchivedInstants)
	}
	if len(rep.Upsert) != upserts || rep.FirstMedian <= 0 || rep.LastMedian <= 0 {
		t.Errorf("upsert times %v, medians %v and %v", rep.Upsert, rep.FirstMedian, rep.LastMedian)
	}
	if err := rep.Check(); err != nil || len(rep.Bounds) != 3 {
		t.Errorf("%d bounds, not met: %v", len(rep.Bounds), err)
	}
	for _, want := range []string{"generating 2000 trips\n", "upsert 1 of 12 ", "upsert 12 of 12 ", "clean "} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("no progress %q:\n%s", want, progress.String())
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was not removed: %v, %v", entries, err)
	}
}

// TestRunGrowthUnbounded turns the cleaner and archival off: the table
// and its timeline outgrow the bounds, and Check names both.
func TestRunGrowthUnbounded(t *testing.T) {
	s := smallGrowth()
	s.Cleaner.Automatic, s.Archive.Automatic = false, false
	rep, err := RunGrowth(context.Background(), GrowthOptions{Rows: 2 * MinRows, Upserts: 5, Settings: s, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BoundRatio <= 1 || rep.ActiveCommits != 6 || rep.ActiveCleans != 0 || rep.ArchivedInstants != 0 {
		t.Errorf("bound ratio %v, %d commits and %d cleans active, %d archived", rep.BoundRatio, rep.ActiveCommits, rep.ActiveCleans, rep.ArchivedInstants)
	}
	err = rep.Check()
	if err == nil || !strings.Contains(err.Error(), "table bytes / ((commits retained + 2) × snapshot bytes): ") ||
		!strings.Contains(err.Error(), "completed commits on the active timeline: 6, want <= 3") || strings.Contains(err.Error(), "cleans") {
		t.Errorf("Check: %v", err)
	}
}

func TestRunGrowthRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []GrowthOptions{{Rows: MinRows - 1, Upserts: 1, Dir: dir}, {Rows: MinRows, Upserts: 0, Dir: dir}} {
		if _, err := RunGrowth(context.Background(), opts); err == nil {
			t.Errorf("%d rows, %d upserts: no error", opts.Rows, opts.Upserts)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("the work folder was made: %v, %v", entries, err)
	}
}

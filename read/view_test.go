package read

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/timeline/archive"
)

// openFixture opens the table in dir and loads its timeline.
func openFixture(t *testing.T, dir string) (storage.FS, *timeline.Timeline) {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	return fsys, tl
}

func loadFixtureView(t *testing.T, dir, asOf string) *View {
	t.Helper()
	fsys, tl := openFixture(t, dir)
	v, err := LoadView(context.Background(), fsys, tl, asOf)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func slicePaths(v *View) []string {
	var out []string
	for _, s := range v.LatestSlices() {
		out = append(out, s.Path)
	}
	return out
}

func TestViewOfFixtures(t *testing.T) {
	tests := []struct {
		table, asOf, wantAsOf string
		want                  []string
	}{
		{"v6_simplekeygen_nonhivestyle", "", "20240418172804498", []string{
			"10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet",
			"20/76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet",
			"30/6db57019-98ee-480e-8eb1-fb3de48e1c24-0_1-119-167_20240418172804498.parquet",
		}},
		{"v6_simplekeygen_nonhivestyle", "20240418172802262", "20240418172802262", []string{
			"10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_1-98-142_20240418172802262.parquet",
			"20/76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet",
		}},
		{"v6_nonpartitioned", "", "20240418173551906", []string{
			"a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet",
		}},
		{"v6_nonpartitioned", "20240418173551905", "20240418173550988", []string{
			"a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet",
		}},
		{"v6_nonpartitioned", "19700101000000000", "", nil},
		{"v6_complexkeygen_hivestyle", "", "20240418173235694", []string{
			"byteField=10/shortField=300/a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet",
			"byteField=20/shortField=100/bb7c3a45-387f-490d-aab2-981c3f1a8ada-0_0-140-198_20240418173213674.parquet",
			"byteField=30/shortField=100/4668e35e-bff8-4be9-9ff2-e7fb17ecb1a7-0_1-161-224_20240418173235694.parquet",
		}},
		{"v6_empty", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.table+"@"+tt.asOf, func(t *testing.T) {
			v := loadFixtureView(t, fixtures.Unzip(t, tt.table), tt.asOf)
			if got := slicePaths(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("latest slices\n got %q\nwant %q", got, tt.want)
			}
			if v.AsOf() != tt.wantAsOf {
				t.Errorf("as of %q, want %q", v.AsOf(), tt.wantAsOf)
			}
		})
	}
}

func TestViewIgnoresUncommittedFiles(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	// A file of an inflight instant, and a second attempt's file of a
	// completed instant that its metadata does not list.
	for _, name := range []string{
		"a079bdb3-731c-4894-b855-abfcd6921007-0_0-1-1_20250101000000000.parquet",
		"a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-999_20240418173551906.parquet",
		"not-a-base-file.parquet",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("junk"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".hoodie", "20250101000000000.inflight"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".hoodie", "20250101000000000.commit.requested"), nil, 0o644)
	v := loadFixtureView(t, dir, "")
	want := []string{"a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet"}
	if got := slicePaths(v); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	g, ok := v.FileGroup("", "a079bdb3-731c-4894-b855-abfcd6921007-0")
	if !ok || len(g.Slices) != 2 {
		t.Fatalf("file group: %+v %v", g, ok)
	}
	if _, ok := v.FileGroup("", "missing"); ok {
		t.Error("found a missing file group")
	}
	if !reflect.DeepEqual(v.Partitions(), []string{""}) {
		t.Errorf("partitions %q", v.Partitions())
	}
}

// archiveCommit moves a completed commit's instant files to the archived
// folder, as Hudi's archiver takes them off the active timeline.
func archiveCommit(t *testing.T, dir, instant string) {
	t.Helper()
	meta := filepath.Join(dir, ".hoodie")
	if err := os.MkdirAll(filepath.Join(meta, "archived"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{".commit.requested", ".inflight", ".commit"} {
		if err := os.Rename(filepath.Join(meta, instant+suffix), filepath.Join(meta, "archived", instant+suffix)); err != nil {
			t.Fatal(err)
		}
	}
}

// Hudi archives cleans and rollbacks apart from commits: a rollback older
// than an archived commit may stay on the active timeline, and the files of
// that commit stay in the view.
func TestViewKeepsArchivedCommitsBehindAnOlderRollback(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	for _, suffix := range []string{".rollback.requested", ".rollback.inflight", ".rollback"} {
		if err := os.WriteFile(filepath.Join(dir, ".hoodie", "20240418172801000"+suffix), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	archiveCommit(t, dir, "20240418172802262")
	want := []string{
		"10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet",
		"20/76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet",
		"30/6db57019-98ee-480e-8eb1-fb3de48e1c24-0_1-119-167_20240418172804498.parquet",
	}
	if got := slicePaths(loadFixtureView(t, dir, "")); !reflect.DeepEqual(got, want) {
		t.Errorf("latest slices\n got %q\nwant %q", got, want)
	}
	// A write still pending at an instant before the first completed
	// commit left files no reader may see.
	pending := "20240418172700000"
	os.WriteFile(filepath.Join(dir, ".hoodie", pending+".commit.requested"), nil, 0o644)
	name := "0e5fe6a1-0f53-4a8c-8d4e-1a3c1f1e2d3c-0_0-1-1_" + pending + ".parquet"
	if err := os.WriteFile(filepath.Join(dir, "20", name), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := slicePaths(loadFixtureView(t, dir, "")); !reflect.DeepEqual(got, want) {
		t.Errorf("with a pending write before the first commit\n got %q\nwant %q", got, want)
	}
}

// Hudi writes partition metadata files as Parquet with
// hoodie.partition.metafile.use.base.format=true: the partitions are found
// by any of the file's names.
func TestViewFindsBaseFormatPartitionMetadata(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	for _, part := range []string{"10", "20", "30"} {
		from := filepath.Join(dir, part, ".hoodie_partition_metadata")
		if err := os.Rename(from, from+".parquet"); err != nil {
			t.Fatal(err)
		}
	}
	v := loadFixtureView(t, dir, "")
	if got := v.Partitions(); !reflect.DeepEqual(got, []string{"10", "20", "30"}) {
		t.Errorf("partitions %q, want 10, 20 and 30", got)
	}
}

// Time travel to an archived commit takes its archived metadata: a file
// of a failed task attempt of that commit, which its metadata does not
// list, stays out as it does while the commit is active.
func TestViewAsOfArchivedCommitReadsTheArchive(t *testing.T) {
	ctx := context.Background()
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	first := "20240418173550988"
	want := slicePaths(loadFixtureView(t, dir, first))
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	var entries []archive.Entry
	for _, in := range []timeline.Instant{
		{Time: first, Action: timeline.ActionCommit, State: timeline.StateRequested},
		{Time: first, Action: timeline.ActionCommit, State: timeline.StateInflight},
		{Time: first, Action: timeline.ActionCommit, State: timeline.StateCompleted},
	} {
		p, _ := in.Path()
		data, err := fsys.ReadFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := archive.NewEntry(in, data)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
		if err := fsys.Remove(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := archive.Append(ctx, fsys, entries, 10); err != nil {
		t.Fatal(err)
	}
	leftover := "a079bdb3-731c-4894-b855-abfcd6921007-0_0-999-999_" + first + ".parquet"
	if err := os.WriteFile(filepath.Join(dir, leftover), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := slicePaths(loadFixtureView(t, dir, first)); !reflect.DeepEqual(got, want) {
		t.Errorf("as of archived commit %s\n got %q\nwant %q", first, got, want)
	}
}

package read

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
)

// TestViewOfGoneFiles removes, from a Spark-written table, a file version
// that only an old snapshot reads: that snapshot fails with a *GoneError
// naming it and the oldest snapshot still readable, which reads; the
// latest reads. Removing a latest file leaves no snapshot readable, and
// the latest fails too, never giving part of the table.
func TestViewOfGoneFiles(t *testing.T) {
	ctx := context.Background()
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	fsys, tl := openFixture(t, dir)
	latest, err := LoadView(ctx, fsys, tl, "")
	if err != nil {
		t.Fatal(err)
	}
	// An old version: a slice of a group that has a newer one.
	var old FileSlice
	for _, g := range latest.FileGroups() {
		if len(g.Slices) > 1 {
			old = g.Slices[0]
			break
		}
	}
	if old.Path == "" {
		t.Fatal("the fixture has no file group of two versions")
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(old.Path))); err != nil {
		t.Fatal(err)
	}
	_, err = LoadView(ctx, fsys, tl, old.Instant)
	var gone *GoneError
	if !errors.As(err, &gone) || !errors.Is(err, ErrSnapshotGone) {
		t.Fatalf("view as of %s: %v, want a GoneError", old.Instant, err)
	}
	if gone.Missing != old.Path || gone.WrittenBy != old.Instant || gone.AsOf != old.Instant || gone.OldestReadable <= old.Instant {
		t.Errorf("gone %+v, want %s of %s missing and a later instant readable", gone, old.Path, old.Instant)
	}
	if _, err := LoadView(ctx, fsys, tl, gone.OldestReadable); err != nil {
		t.Errorf("the oldest readable instant %s: %v", gone.OldestReadable, err)
	}
	if _, err := LoadView(ctx, fsys, tl, ""); err != nil {
		t.Errorf("latest: %v", err)
	}

	newest := latest.LatestSlices()[0]
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(newest.Path))); err != nil {
		t.Fatal(err)
	}
	_, err = LoadView(ctx, fsys, tl, "")
	if !errors.As(err, &gone) || gone.Missing != newest.Path || gone.OldestReadable != "" {
		t.Fatalf("latest view without %s: %v, want a GoneError with no instant readable", newest.Path, err)
	}
}

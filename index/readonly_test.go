package index

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	ro := testOptions
	ro.ReadOnly = true

	if ix, err := Open(ctx, filepath.Join(t.TempDir(), "missing"), ro); err == nil {
		ix.Close()
		t.Fatal("a read-only Open of a missing folder succeeded")
	}

	dir := t.TempDir()
	ix := openTest(t, dir, testOptions)
	const instant = "20240101000000001"
	if err := ix.Apply(ctx, instant, ChangeSet{Puts: []Put{{Key: "k1", Location: loc("p", "f1")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, ro); err == nil {
		t.Fatal("a read-only Open succeeded while a writer has the index open")
	}
	ix = reopen(t, ix, ro)
	if err := ix.Stale(); err != nil {
		t.Fatalf("Stale() = %v", err)
	}
	if got := ix.Watermark(); got != instant {
		t.Errorf("Watermark() = %q, want %q", got, instant)
	}
	m, err := ix.Tag(ctx, []string{"k1", "k2"})
	if err != nil {
		t.Fatal(err)
	}
	if k1, k2 := m.At(0), m.At(1); !k1.Found || k1.Location != loc("p", "f1") || k2.Found {
		t.Errorf("Tag = %+v, %+v; want k1 in p/f1 and k2 absent", k1, k2)
	}
	if err := ix.Apply(ctx, "20240101000000002", ChangeSet{Deletes: []string{"k1"}}); !errors.Is(err, pebble.ErrReadOnly) {
		t.Errorf("Apply on a read-only index: %v, want ErrReadOnly", err)
	}
	if _, err := ix.Prepare(ctx, "20240101000000002", ChangeSet{Puts: []Put{{Key: "k3", Location: loc("p", "f9")}}}); !errors.Is(err, pebble.ErrReadOnly) {
		t.Errorf("Prepare on a read-only index: %v, want ErrReadOnly", err)
	}
	if n := len(ix.dict.locs); n != 1 {
		t.Errorf("a refused Prepare left %d file groups in the dictionary, want 1", n)
	}
	ix = reopen(t, ix, testOptions)
	if got := ix.Watermark(); got != instant {
		t.Errorf("after the read-only session Watermark() = %q, want %q", got, instant)
	}
}

func TestReadOnlyEmptyStoreIsStale(t *testing.T) {
	// An empty Pebble store: a read-write Open would initialize it, a
	// read-only one must leave it as it is.
	dir := t.TempDir()
	db, err := pebble.Open(dir, &pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro := testOptions
	ro.ReadOnly = true
	ix := openTest(t, dir, ro)
	if err := ix.Stale(); !errors.Is(err, ErrStale) {
		t.Errorf("Stale() = %v, want ErrStale", err)
	}
	ix = reopen(t, ix, testOptions)
	if err := ix.Stale(); err != nil || ix.Watermark() != "" {
		t.Errorf("after the read-only session: Stale() = %v, Watermark() = %q; want a new empty index", err, ix.Watermark())
	}
}

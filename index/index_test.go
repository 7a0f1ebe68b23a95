package index

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func TestOpenNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "table", ".hoodie", ".index")
	ix := openTest(t, dir, testOptions)
	if err := ix.Stale(); err != nil {
		t.Fatalf("Stale = %v, want nil", err)
	}
	if w := ix.Watermark(); w != "" {
		t.Fatalf("Watermark = %q, want empty", w)
	}
	checkContents(t, ix, map[string]Location{})
	if ix.Dir() != dir {
		t.Fatalf("Dir = %q, want %q", ix.Dir(), dir)
	}
}

func TestOpenRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		dir  string
		opts Options
	}{
		{"no folder", "", testOptions},
		{"no table name", dir, Options{TableID: "x"}},
		{"no table id", dir, Options{TableName: "x"}},
		{"negative cache", dir, Options{TableName: "x", TableID: "y", CacheSize: -1}},
		{"negative workers", dir, Options{TableName: "x", TableID: "y", TagWorkers: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(context.Background(), tt.dir, tt.opts)
			if err == nil {
				ix.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.dir) {
				t.Fatalf("error %q does not name the folder %q", err, tt.dir)
			}
		})
	}
}

func TestReopenPersists(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	want := map[string]Location{"a": loc("p1", "f1"), "b": loc("p2", "f2"), "c": loc("p1", "f1")}
	var puts []Put
	for k, l := range want {
		puts = append(puts, Put{k, l})
	}
	if err := ix.Apply(ctx, "20240101000000001", ChangeSet{Puts: puts}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(ctx, "20240101000000002", ChangeSet{Deletes: []string{"c"}, Puts: []Put{{"d", loc("p3", "f3")}}}); err != nil {
		t.Fatal(err)
	}
	delete(want, "c")
	want["d"] = loc("p3", "f3")

	ix = reopen(t, ix, testOptions)
	if err := ix.Stale(); err != nil {
		t.Fatalf("Stale after reopen: %v", err)
	}
	if w := ix.Watermark(); w != "20240101000000002" {
		t.Fatalf("Watermark after reopen = %q", w)
	}
	checkContents(t, ix, want)
	if n := len(ix.dict.locs); n != 3 {
		t.Fatalf("dictionary holds %d file groups after reopen, want 3", n)
	}
	// New groups after a reopen continue the dictionary's ids.
	if err := ix.Apply(ctx, "20240101000000003", ChangeSet{Puts: []Put{{"e", loc("p4", "f4")}}}); err != nil {
		t.Fatal(err)
	}
	want["e"] = loc("p4", "f4")
	checkContents(t, reopen(t, ix, testOptions), want)
}

func TestOpenStale(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		tamper func(t *testing.T, db *pebble.DB)
		reason string
	}{
		{name: "other table name", opts: Options{TableName: "other", TableID: testOptions.TableID}, reason: "made for table"},
		{name: "other table id", opts: Options{TableName: testOptions.TableName, TableID: "other"}, reason: "made for table"},
		{
			// Format 1 stored UUID keys as text under 'r'.
			name: "other format version", opts: testOptions, reason: "format version",
			tamper: func(t *testing.T, db *pebble.DB) { set(t, db, metaFormat, "1") },
		},
		{
			name: "interrupted rebuild", opts: testOptions, reason: "interrupted",
			tamper: func(t *testing.T, db *pebble.DB) { set(t, db, metaRebuilding, "20240101000000009") },
		},
		{
			name: "bad watermark", opts: testOptions, reason: "bad watermark",
			tamper: func(t *testing.T, db *pebble.DB) { set(t, db, metaWatermark, "yesterday") },
		},
		{
			name: "dictionary gap", opts: testOptions, reason: "dictionary",
			tamper: func(t *testing.T, db *pebble.DB) {
				if err := db.Delete(groupKey(0), pebble.Sync); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "foreign store", opts: testOptions, reason: "without a format version",
			tamper: func(t *testing.T, db *pebble.DB) {
				if err := db.DeleteRange(metaFormat, append(metaFormat, 0), pebble.Sync); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			ix := openTest(t, dir, testOptions)
			want := map[string]Location{"k1": loc("p", "f1"), "k2": loc("p", "f2")}
			if err := ix.Rebuild(ctx, "20240101000000001", mapScan(want)); err != nil {
				t.Fatal(err)
			}
			if tt.tamper != nil {
				tt.tamper(t, ix.db)
			}
			ix = reopen(t, ix, tt.opts)
			err := ix.Stale()
			if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), tt.reason) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Stale = %v, want ErrStale naming %q and the folder", err, tt.reason)
			}
			checkRefusesStale(t, ix)
			if err := ix.Rebuild(ctx, "20240101000000002", mapScan(want)); err != nil {
				t.Fatalf("Rebuild: %v", err)
			}
			ix = reopen(t, ix, tt.opts)
			if err := ix.Stale(); err != nil {
				t.Fatalf("Stale after rebuild and reopen: %v", err)
			}
			if w := ix.Watermark(); w != "20240101000000002" {
				t.Fatalf("Watermark = %q", w)
			}
			checkContents(t, ix, want)
		})
	}
}

// set writes a raw value into a store, behind the index's back.
func set(t *testing.T, db *pebble.DB, key []byte, value string) {
	t.Helper()
	if err := db.Set(key, []byte(value), pebble.Sync); err != nil {
		t.Fatal(err)
	}
}

// checkRefusesStale fails the test unless every reading and writing method
// of ix fails with ErrStale.
func checkRefusesStale(t *testing.T, ix *Index) {
	t.Helper()
	ctx := context.Background()
	if w := ix.Watermark(); w != "" {
		t.Errorf("stale Watermark = %q, want empty", w)
	}
	_, err := ix.Tag(ctx, []string{"k1"})
	checkIs(t, "Tag", err, ErrStale)
	checkIs(t, "Apply", ix.Apply(ctx, "20991231000000000", ChangeSet{}), ErrStale)
	_, err = ix.Count(ctx)
	checkIs(t, "Count", err, ErrStale)
	checkIs(t, "Scan", ix.Scan(ctx, func(string, Location) error { return nil }), ErrStale)
	_, err = ix.Verify(ctx, mapScan(nil))
	checkIs(t, "Verify", err, ErrStale)
}

func checkIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	checkIs(t, "second Close", ix.Close(), ErrClosed)
	_, err := ix.Tag(ctx, []string{"a"})
	checkIs(t, "Tag", err, ErrClosed)
	checkIs(t, "Apply", ix.Apply(ctx, "20240101000000001", ChangeSet{}), ErrClosed)
	checkIs(t, "Rebuild", ix.Rebuild(ctx, "", mapScan(nil)), ErrClosed)
	_, err = ix.Count(ctx)
	checkIs(t, "Count", err, ErrClosed)
}

func TestOpenTwiceFails(t *testing.T) {
	dir := t.TempDir()
	openTest(t, dir, testOptions)
	ix, err := Open(context.Background(), dir, testOptions)
	if err == nil {
		ix.Close()
		t.Fatal("second Open of a folder in use succeeded")
	}
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %q does not name the folder", err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix := openTest(t, t.TempDir(), testOptions)
	_, err := ix.Tag(ctx, []string{"a"})
	checkIs(t, "Tag", err, context.Canceled)
	checkIs(t, "Apply", ix.Apply(ctx, "20240101000000001", ChangeSet{}), context.Canceled)
	checkIs(t, "Scan", ix.Scan(ctx, func(string, Location) error { return nil }), context.Canceled)
	_, err = Open(ctx, t.TempDir(), testOptions)
	checkIs(t, "Open", err, context.Canceled)
}

package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func TestRebuildReplaces(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	err := ix.Apply(ctx, "20240101000000005", ChangeSet{Puts: []Put{{"old", loc("p", "gone")}, {"kept", loc("p", "gone")}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Location{"kept": loc("p", "f1"), "new": loc("q", "f2")}
	// A rebuild may go back in time: the snapshot is the truth.
	if err := ix.Rebuild(ctx, "20240101000000003", mapScan(want)); err != nil {
		t.Fatal(err)
	}
	if w := ix.Watermark(); w != "20240101000000003" {
		t.Fatalf("Watermark = %q", w)
	}
	checkContents(t, ix, want)
	if n := len(ix.dict.locs); n != 2 {
		t.Fatalf("dictionary holds %d groups after rebuild, want 2", n)
	}
	ix = reopen(t, ix, testOptions)
	checkContents(t, ix, want)
	if err := ix.Rebuild(ctx, "", mapScan(nil)); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ix, map[string]Location{})
	if w := ix.Watermark(); w != "" {
		t.Fatalf("Watermark after an empty rebuild = %q", w)
	}
}

// TestRebuildLarge loads more than one batch.
func TestRebuildLarge(t *testing.T) {
	ctx := context.Background()
	want := make(map[string]Location)
	pad := strings.Repeat("x", 200)
	for i := 0; len(want)*(len(pad)+40) < 2*loadBatchBytes; i++ {
		want[testKey(i)+pad] = loc(fmt.Sprintf("p%d", i%10), fmt.Sprintf("f%d", i%100))
	}
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(want)); err != nil {
		t.Fatal(err)
	}
	ix = reopen(t, ix, testOptions)
	checkContents(t, ix, want)
}

// TestRebuildInterrupted stops rebuilds midway and checks that the index is
// stale, then and after reopening, until a rebuild completes.
func TestRebuildInterrupted(t *testing.T) {
	errScan := errors.New("scan failed")
	records := make(map[string]Location)
	for i := range 10_000 {
		records[testKey(i)] = loc("p", fmt.Sprintf("f%d", i%10))
	}
	// failAfter yields n records, then fails with errScan.
	failAfter := func(n int) ScanFunc {
		return func(yield func(string, Location) error) error {
			for i := range n {
				if err := yield(testKey(i), records[testKey(i)]); err != nil {
					return err
				}
			}
			return errScan
		}
	}
	tests := []struct {
		name    string
		scan    ScanFunc
		ctx     func() context.Context
		wantErr error
	}{
		{name: "scan fails at once", scan: failAfter(0), wantErr: errScan},
		{name: "scan fails midway", scan: failAfter(5_000), wantErr: errScan},
		{
			name: "empty key", wantErr: ErrEmptyKey,
			scan: func(yield func(string, Location) error) error {
				if err := yield("a", loc("p", "f")); err != nil {
					return err
				}
				return yield("", loc("p", "f"))
			},
		},
		{
			name: "scan drops the error of yield", wantErr: ErrEmptyKey,
			scan: func(yield func(string, Location) error) error {
				_ = yield("", loc("p", "f"))
				_ = yield("b", loc("p", "f"))
				return nil
			},
		},
		{
			name: "location without file id",
			scan: func(yield func(string, Location) error) error { return yield("a", loc("p", "")) },
		},
		{
			name: "context canceled midway", wantErr: context.Canceled,
			scan: mapScan(records),
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				return &cancelAfter{Context: ctx, cancel: cancel, after: 2}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ix := openTest(t, t.TempDir(), testOptions)
			before := map[string]Location{"x": loc("p", "f")}
			if err := ix.Rebuild(ctx, "20240101000000001", mapScan(before)); err != nil {
				t.Fatal(err)
			}
			rctx := ctx
			if tt.ctx != nil {
				rctx = tt.ctx()
			}
			err := ix.Rebuild(rctx, "20240101000000002", tt.scan)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), ix.dir) {
				t.Fatalf("interrupted Rebuild: %v, want %v naming the folder", err, tt.wantErr)
			}
			checkIs(t, "Stale after the failed rebuild", ix.Stale(), ErrStale)
			checkRefusesStale(t, ix)

			ix = reopen(t, ix, testOptions)
			err = ix.Stale()
			if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "interrupted") {
				t.Fatalf("Stale after reopen = %v, want an interrupted rebuild", err)
			}
			checkRefusesStale(t, ix)

			if err := ix.Rebuild(ctx, "20240101000000002", mapScan(records)); err != nil {
				t.Fatal(err)
			}
			checkContents(t, reopen(t, ix, testOptions), records)
		})
	}
}

// cancelAfter is a context that cancels itself once its Err method has been
// called more than after times: Rebuild checks its context every checkEvery
// records, so it stops midway.
type cancelAfter struct {
	context.Context
	cancel func()
	calls  int
	after  int
}

func (c *cancelAfter) Err() error {
	if c.calls++; c.calls > c.after {
		c.cancel()
	}
	return c.Context.Err()
}

// TestRebuildCrashImages takes crash images of the store (Pebble
// checkpoints, with and without the unsynced tail of the log) at points
// inside a rebuild that then succeeds, and opens each: every image taken
// before the rebuild finished must be stale, and one taken after it must
// hold the snapshot.
func TestRebuildCrashImages(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	old := map[string]Location{"old": loc("p", "f")}
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(old)); err != nil {
		t.Fatal(err)
	}
	want := make(map[string]Location)
	pad := strings.Repeat("x", 200)
	var keys []string
	for i := 0; len(want)*(len(pad)+40) < 3*loadBatchBytes/2; i++ {
		k := testKey(i) + pad
		want[k] = loc("p", fmt.Sprintf("f%d", i%10))
		keys = append(keys, k)
	}
	images := t.TempDir()
	var taken []string
	image := func(flushed bool) error {
		dir := fmt.Sprintf("%s/%d", images, len(taken))
		taken = append(taken, dir)
		if flushed {
			return ix.db.Checkpoint(dir, pebble.WithFlushedWAL())
		}
		return ix.db.Checkpoint(dir)
	}
	scan := func(yield func(string, Location) error) error {
		for i, k := range keys {
			if i == 1 || i == len(keys)-1 {
				if err := errors.Join(image(false), image(true)); err != nil {
					return err
				}
			}
			if err := yield(k, want[k]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := ix.Rebuild(ctx, "20240101000000002", scan); err != nil {
		t.Fatal(err)
	}
	for _, dir := range taken {
		img := openTest(t, dir, testOptions)
		if err := img.Stale(); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("image %s: Stale = %v, want an interrupted rebuild", dir, err)
		}
	}
	if err := image(false); err != nil {
		t.Fatal(err)
	}
	img := openTest(t, taken[len(taken)-1], testOptions)
	if w := img.Watermark(); w != "20240101000000002" {
		t.Fatalf("image after the rebuild: Watermark = %q", w)
	}
	checkContents(t, img, want)
}

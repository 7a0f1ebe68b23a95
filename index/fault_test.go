package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/google/uuid"

	"github.com/hoodie-dev/hoodie/internal/damage"
)

// history is an index written through several commits, and what it held
// after each.
type history struct {
	dir    string
	last   string                         // the last instant
	states map[string]map[string]Location // records after each instant
	keys   []string                       // every key any state holds
}

// writeHistory writes an index in dir: a rebuild flushed to tables, a
// batch of puts and deletes, an ingestion, and a last small batch, left in
// Pebble's log.
func writeHistory(t *testing.T, dir string, opts Options) *history {
	t.Helper()
	ctx := context.Background()
	opts.ingestMin = 500
	ix := openTest(t, dir, opts)
	rng := rand.New(rand.NewPCG(1, 2))
	h := &history{dir: dir, states: map[string]map[string]Location{"": {}}}
	cur := map[string]Location{}
	seen := map[string]bool{}
	newKey := func(i int) string {
		var k string
		if i%3 == 0 {
			k = fmt.Sprintf("key-%06d", rng.IntN(1e6))
		} else {
			k = uuid.Must(uuid.NewRandomFromReader(rngReader{rng})).String()
		}
		if !seen[k] {
			seen[k] = true
			h.keys = append(h.keys, k)
		}
		return k
	}
	group := func() Location { return loc(fmt.Sprintf("p%d", rng.IntN(4)), fmt.Sprintf("f%d", rng.IntN(20))) }
	commit := func(instant string) {
		h.states[instant] = clone(cur)
		h.last = instant
	}
	for i := range 3000 {
		cur[newKey(i)] = group()
	}
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(cur)); err != nil {
		t.Fatal(err)
	}
	if err := ix.db.Flush(); err != nil {
		t.Fatal(err)
	}
	commit("20240101000000001")
	apply := func(instant string, puts, deletes int) {
		var cs ChangeSet
		for i := range puts {
			k := newKey(i)
			if i%2 == 0 && i/2 < len(h.keys) {
				k = h.keys[rng.IntN(len(h.keys))] // an update
			}
			l := group()
			cs.Puts = append(cs.Puts, Put{Key: k, Location: l})
			cur[k] = l
		}
		for range deletes {
			k := h.keys[rng.IntN(len(h.keys))]
			if _, ok := cur[k]; ok && !putIn(cs, k) {
				cs.Deletes = append(cs.Deletes, k)
				delete(cur, k)
			}
		}
		if err := ix.Apply(ctx, instant, cs); err != nil {
			t.Fatal(err)
		}
		commit(instant)
	}
	apply("20240101000000002", 200, 50)
	apply("20240101000000003", 800, 100) // ingested
	apply("20240101000000004", 20, 5)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	return h
}

func putIn(cs ChangeSet, k string) bool {
	for _, p := range cs.Puts {
		if p.Key == k {
			return true
		}
	}
	return false
}

func clone(m map[string]Location) map[string]Location {
	out := make(map[string]Location, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// rngReader reads random bytes from a seeded generator.
type rngReader struct{ r *rand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.r.Uint32())
	}
	return len(p), nil
}

// oneLine fails the test if err's message spans several lines.
func oneLine(t *testing.T, what string, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("%s: the error spans several lines:\n%v", what, err)
	}
}

// checkAgainst reads every key of h from ix, with Tag and with Scan, and
// fails the test unless each read either fails with a one-line error or
// returns exactly what the index held at its watermark: a damaged index
// may refuse to answer, never answer wrong.
func checkAgainst(t *testing.T, what string, ix *Index, h *history) {
	t.Helper()
	ctx := context.Background()
	if ix.Stale() != nil {
		oneLine(t, what, ix.Stale())
		return
	}
	want, ok := h.states[ix.Watermark()]
	if !ok {
		t.Fatalf("%s: the index opened at watermark %q, which it never had", what, ix.Watermark())
	}
	m, err := ix.Tag(ctx, h.keys)
	if err != nil {
		oneLine(t, what, err)
	} else {
		for i, k := range h.keys {
			got := m.At(i)
			if l, held := want[k]; got.Found != held || got.Location != l {
				t.Fatalf("%s: Tag(%q) = %+v, want %v (held %v)", what, k, got, l, held)
			}
		}
	}
	got := map[string]Location{}
	err = ix.Scan(ctx, func(k string, l Location) error {
		got[k] = l
		return nil
	})
	if err != nil {
		oneLine(t, what, err)
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: Scan yielded %d records, want %d", what, len(got), len(want))
	}
	for k, l := range got {
		if want[k] != l {
			t.Fatalf("%s: Scan yielded %q at %v, want %v", what, k, l, want[k])
		}
	}
}

// TestCorruptionAtRandomBytes flips one bit at a random byte of a random
// file of an index, for a fixed set of seeds, and checks that opening and
// reading it never panic and either fail with a one-line error or return
// what the index held, and that Recreate then rebuilds it whatever it
// holds.
func TestCorruptionAtRandomBytes(t *testing.T) {
	ctx := context.Background()
	h := writeHistory(t, t.TempDir(), testOptions)
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 16))
		dir := t.TempDir()
		damage.CopyFiles(t, h.dir, dir)
		what := fmt.Sprintf("seed %d, %s", seed, damage.FlipRandomBit(t, rng, dir))

		if ix, err := Open(ctx, dir, testOptions); err != nil {
			oneLine(t, what, err)
		} else {
			checkAgainst(t, what, ix, h)
			_ = ix.Close() // a damaged store may fail to close; it must not hang
		}
		if err := Recreate(ctx, dir, testOptions, h.last, nil, mapScan(h.states[h.last])); err != nil {
			t.Fatalf("%s: Recreate: %v", what, err)
		}
		ix, err := Open(ctx, dir, testOptions)
		if err != nil {
			t.Fatalf("%s: Open after Recreate: %v", what, err)
		}
		if ix.Watermark() != h.last {
			t.Fatalf("%s: after Recreate the watermark is %q, want %q", what, ix.Watermark(), h.last)
		}
		checkAgainst(t, what+", recreated", ix, h)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(dir + ".*"); len(left) > 0 {
			t.Fatalf("%s: Recreate left %v", what, left)
		}
	}
}

// fullDisk is an errorfs injector that fails every write to the file
// system with ENOSPC from the failAt-th on (counting from 1; 0: none), as a disk
// that fills up does, until free is called. Removing files works.
type fullDisk struct {
	failAt int64
	writes atomic.Int64
	freed  atomic.Bool
}

func (d *fullDisk) String() string { return "full disk" }

// MaybeError implements errorfs.Injector.
func (d *fullDisk) MaybeError(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpCreate, errorfs.OpLink, errorfs.OpReuseForWrite, errorfs.OpMkdirAll, errorfs.OpFilePreallocate,
		errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo, errorfs.OpFileFlush:
	default:
		return nil
	}
	if d.writes.Add(1) < d.failAt || d.failAt == 0 || d.freed.Load() {
		return nil
	}
	return &fs.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
}

// free makes room: writes succeed again.
func (d *fullDisk) free() { d.freed.Store(true) }

// TestDiskFullAtEveryWrite fills the disk at each write of an index's
// life in turn (its creation, a rebuild, batches and an ingestion, a
// Recreate) and checks that the operation that meets it fails with one
// line naming ENOSPC, or succeeds, and returns (a Pebble that retried or
// stalled for good would hang the test); that the index then holds a state
// it had, or is stale; and that once there is room again, Recreate
// rebuilds it.
func TestDiskFullAtEveryWrite(t *testing.T) {
	ctx := context.Background()
	// A clean run counts the writes.
	probe := &fullDisk{}
	opts := testOptions
	opts.fs = errorfs.Wrap(vfs.Default, probe)
	h := writeHistory(t, t.TempDir(), opts)
	total := probe.writes.Load()
	if total < 20 {
		t.Fatalf("the index's life took only %d writes", total)
	}
	step := int64(1)
	if testing.Short() {
		step = 7
	}
	for failAt := int64(1); failAt <= total+1; failAt += step {
		disk := &fullDisk{failAt: failAt}
		opts := testOptions
		opts.fs = errorfs.Wrap(vfs.Default, disk)
		opts.ingestMin = 500
		what := fmt.Sprintf("disk full from write %d of %d", failAt, total)
		dir := t.TempDir()
		err := lifeOf(ctx, dir, opts, h)
		if err != nil {
			oneLine(t, what, err)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("%s: the error does not say the disk is full: %v", what, err)
			}
		}
		disk.free()
		if ix, err := Open(ctx, dir, opts); err == nil {
			checkAgainst(t, what, ix, h)
			_ = ix.Close()
		}
		if err := Recreate(ctx, dir, opts, h.last, nil, mapScan(h.states[h.last])); err != nil {
			t.Fatalf("%s: Recreate once there is room: %v", what, err)
		}
		ix, err := Open(ctx, dir, opts)
		if err != nil {
			t.Fatalf("%s: Open after Recreate: %v", what, err)
		}
		checkAgainst(t, what+", recreated", ix, h)
		if ix.Watermark() != h.last {
			t.Fatalf("%s: after Recreate the watermark is %q", what, ix.Watermark())
		}
		_ = ix.Close()
	}
}

// lifeOf replays h's commits into a new index in dir, then recreates it,
// stopping at the first error.
func lifeOf(ctx context.Context, dir string, opts Options, h *history) error {
	ix, err := Open(ctx, dir, opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	prev := map[string]Location{}
	for _, instant := range []string{"20240101000000001", "20240101000000002", "20240101000000003", "20240101000000004"} {
		cur := h.states[instant]
		var cs ChangeSet
		for k, l := range cur {
			if prev[k] != l {
				cs.Puts = append(cs.Puts, Put{Key: k, Location: l})
			}
		}
		for k := range prev {
			if _, ok := cur[k]; !ok {
				cs.Deletes = append(cs.Deletes, k)
			}
		}
		if instant == "20240101000000001" {
			err = ix.Rebuild(ctx, instant, mapScan(cur))
		} else {
			err = ix.Apply(ctx, instant, cs)
		}
		if err != nil {
			return err
		}
		prev = cur
	}
	if err := ix.Close(); err != nil {
		return err
	}
	return Recreate(ctx, dir, opts, h.last, nil, mapScan(h.states[h.last]))
}

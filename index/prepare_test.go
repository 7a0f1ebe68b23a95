package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPrepare checks, on both paths of Apply, that prepared changes stay
// invisible until committed, that the index refuses other changes
// meanwhile, and that discarding them, closing the index or rebuilding it
// leaves no trace of them.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	for _, path := range applyPaths {
		t.Run(path.name, func(t *testing.T) {
			opts := testOptions
			opts.ingestMin = path.ingestMin
			opts.TagWorkers = 2
			ix := openTest(t, t.TempDir(), opts)
			sets := largeChanges(rand.New(rand.NewPCG(7, 7)))
			const first, second = "20240101000000001", "20240101000000002"
			digest := []byte("view of the first commit")

			p, err := ix.Prepare(ctx, first, sets[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(t, ix); len(got) != 0 || ix.Watermark() != "" {
				t.Fatalf("prepared changes are visible: %d records, watermark %q", len(got), ix.Watermark())
			}
			if _, err := ix.Prepare(ctx, second, sets[1]); !errors.Is(err, ErrPrepared) {
				t.Fatalf("a second Prepare: %v, want ErrPrepared", err)
			}
			if err := ix.Apply(ctx, second, sets[1]); !errors.Is(err, ErrPrepared) {
				t.Fatalf("an Apply while changes are prepared: %v, want ErrPrepared", err)
			}
			if err := p.Commit(ctx, digest); err != nil {
				t.Fatal(err)
			}
			model := map[string]Location{}
			applyModel(model, sets[0])
			checkContents(t, ix, model)
			if ix.Watermark() != first || !bytes.Equal(ix.ViewDigest(), digest) {
				t.Fatalf("after Commit: watermark %q, digest %q", ix.Watermark(), ix.ViewDigest())
			}
			if err := p.Commit(ctx, digest); !errors.Is(err, ErrPrepared) {
				t.Fatalf("a second Commit: %v, want ErrPrepared", err)
			}
			checkNoTables(t, ix.dir)
			groups := len(ix.dict.locs)

			// Discarded, closed with the index, or dropped by a rebuild: the
			// second set leaves no trace, and a Commit of it fails.
			drops := []struct {
				name string
				drop func(p *Prepared) error
			}{
				{"Discard", func(p *Prepared) error { return p.Discard() }},
				{"Close", func(*Prepared) error {
					ix = reopen(t, ix, opts)
					return nil
				}},
				{"Rebuild", func(*Prepared) error { return ix.RebuildDigest(ctx, first, digest, mapScan(model)) }},
			}
			for _, d := range drops {
				p, err := ix.Prepare(ctx, second, sets[1])
				if err != nil {
					t.Fatal(err)
				}
				if err := d.drop(p); err != nil {
					t.Fatalf("%s: %v", d.name, err)
				}
				if err := p.Commit(ctx, nil); !errors.Is(err, ErrPrepared) {
					t.Fatalf("%s: then Commit: %v, want ErrPrepared", d.name, err)
				}
				if err := p.Discard(); err != nil {
					t.Fatalf("%s: then Discard: %v", d.name, err)
				}
				checkNoTables(t, ix.dir)
				checkContents(t, ix, model)
				if ix.Watermark() != first || len(ix.dict.locs) != groups && d.name != "Rebuild" {
					t.Fatalf("%s: watermark %q, %d file groups, want %q and %d", d.name, ix.Watermark(), len(ix.dict.locs), first, groups)
				}
			}

			// The index takes the second set after all that.
			if err := ix.Apply(ctx, second, sets[1]); err != nil {
				t.Fatal(err)
			}
			applyModel(model, sets[1])
			checkContents(t, reopen(t, ix, opts), model)
		})
	}
}

package hoodie_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/internal/damage"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/write"
)

// TestIndexDamagedAtRandomBytes flips one bit at a random byte of a random
// file of a table's record index, for a fixed set of seeds, and then reads
// with a key filter, verifies the index, upserts and rebuilds the index:
// each must work, or, for verify, fail with one line wrapping
// index.ErrBroken; never panic, hang or return wrong records. The write
// that meets a damaged index rebuilds it and says so.
func TestIndexDamagedAtRandomBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tt := newTripsTable(t, dir)
	indexDir := filepath.Join(dir, filepath.FromSlash(hoodie.DefaultIndexFolder))
	pristine := t.TempDir()
	damage.CopyFiles(t, indexDir, pristine)

	keys := []string{tt.live[0].UUID, tt.live[len(tt.live)/2].UUID, tt.moved.UUID, tt.deleted.UUID, "00000000-0000-4000-8000-000000000000"}
	where := "uuid IN ('" + strings.Join(keys, "', '") + "')"
	want, _ := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where, NoIndex: true})
	if len(want) != 3 {
		t.Fatalf("the footers find %v, want 3 records", want)
	}
	updates := trips.NewGenerator(11).Updates(tt.live[:50], 50)
	upsert := &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(updates)}

	seeds := 16
	if testing.Short() {
		seeds = 6
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 61))
		if err := os.RemoveAll(indexDir); err != nil {
			t.Fatal(err)
		}
		damage.CopyFiles(t, pristine, indexDir)
		what := damage.FlipRandomBit(t, rng, indexDir)
		what = fmt.Sprintf("seed %d, %s", seed, what)

		if got, _ := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where}); !slices.Equal(got, want) {
			t.Fatalf("%s: the key filter read %v, want %v", what, got, want)
		}
		if report, err := tt.t.VerifyIndex(ctx); err != nil {
			if strings.Contains(err.Error(), "\n") || !errors.Is(err, index.ErrBroken) {
				t.Fatalf("%s: verify: %v; want one line wrapping ErrBroken", what, err)
			}
		} else if !report.OK() {
			t.Fatalf("%s: verify found differences in an index that holds what it held: %+v", what, report)
		}
		var notices []error
		res, err := tt.t.Write(ctx, write.OpUpsert, upsert, hoodie.WriteOptions{Settings: write.DefaultSettings(), Notify: func(err error) { notices = append(notices, err) }})
		if err != nil {
			t.Fatalf("%s: upsert: %v", what, err)
		}
		if res.Updated != int64(len(updates)) || len(res.Warnings) > 0 {
			t.Fatalf("%s: upsert updated %d of %d records, warnings %v", what, res.Updated, len(updates), res.Warnings)
		}
		for _, n := range notices {
			if !errors.Is(n, index.ErrBroken) && !strings.Contains(n.Error(), "open index") {
				t.Fatalf("%s: the upsert told %v", what, n)
			}
		}
		if err := tt.t.RebuildIndex(ctx); err != nil {
			t.Fatalf("%s: rebuild: %v", what, err)
		}
		if report, err := tt.t.VerifyIndex(ctx); err != nil || !report.OK() {
			t.Fatalf("%s: verify after the rebuild: %+v, %v", what, report, err)
		}
		got, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where})
		if !slices.Equal(got, want) || stats.KeysLocated != len(keys) {
			t.Fatalf("%s: after the rebuild the key filter read %v (%d keys located), want %v from the index", what, got, stats.KeysLocated, want)
		}
	}
}

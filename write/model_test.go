package write

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/damage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// modelRecord is a record as the contract says the table holds it.
type modelRecord struct {
	commit    string
	partition string
	ts        int64
	rider     any // string or nil after a soft delete
	fare      any // float64 or nil
}

// modelSchema is the input schema of the randomized test: trips with a
// _hoodie_is_deleted column.
func modelSchema() *basefile.Schema {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	return &basefile.Schema{Name: "model_record", Fields: []basefile.Field{
		{Name: "uuid", Type: str},
		{Name: "ts", Type: basefile.Nullable(basefile.Primitive(basefile.KindLong))},
		{Name: "rider", Type: str},
		{Name: "fare", Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))},
		{Name: "partitionpath", Type: str},
		{Name: IsDeletedColumn, Type: basefile.Nullable(basefile.Primitive(basefile.KindBoolean))},
	}}
}

type modelRow struct {
	key, partition string
	ts             int64
	rider          string
	fare           float64
	deleted        bool
}

// TestRandomWorkloads runs random inserts, upserts, deletes and soft deletes
// against a table and a map that applies the contract's rules, comparing
// the latest snapshot after every write and random past snapshots (time
// travel) along the way. Some steps try writes that must be refused with
// nothing changed (see refusedStep), and some precombine values are longs
// a double would round.
// Before a write in four, one bit flips at a random byte of a random file
// of the record index: the index is a cache, and the write must do just what
// it would have done.
func TestRandomWorkloads(t *testing.T) {
	for _, mode := range []config.MergeMode{config.MergeEventTime, config.MergeCommitTime} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", mode, seed), func(t *testing.T) {
				runModel(t, mode, seed, 25, true)
			})
		}
	}
	// A table with hoodie.populate.meta.fields=false: keys come from the
	// uuid column of stored rows.
	t.Run("no-meta-fields/seed4", func(t *testing.T) {
		runModel(t, config.MergeEventTime, 4, 25, false)
	})
}

func runModel(t *testing.T, mode config.MergeMode, seed uint64, steps int, populateMeta bool) {
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	settings := DefaultSettings()
	// Small files, so that inserts spread over several file groups and fill
	// small ones.
	settings.MaxFileSize = 8 << 10
	settings.SmallFileLimit = 6 << 10
	if seed%2 == 0 {
		// Files of many records (a file's bloom filter alone takes hundreds
		// of KiB) in several row groups and pages.
		settings.MaxFileSize, settings.SmallFileLimit = 4<<20, 3<<20
		settings.BlockSize, settings.PageSize = 2<<10, 256
	}
	if seed%3 != 0 {
		// Hudi's default: bulk inserts keep the input's order.
		settings.BulkInsertSortMode = "NONE"
	}
	tt := newTripsTableWith(t, mode, settings, populateMeta)
	partitions := []string{"americas/brazil", "asia/india", "europe/france"}
	model := map[string]modelRecord{}
	history := map[string]map[string]modelRecord{} // instant -> snapshot
	var instants []string
	nextKey := 0
	keys := func() []string {
		out := make([]string, 0, len(model))
		for k := range model {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for step := 0; step < steps; step++ {
		if len(instants) > 0 && rng.IntN(5) == 0 {
			refusedStep(t, tt, rng, step, model, keys(), populateMeta)
			continue
		}
		var rows []modelRow
		op := []Operation{OpInsert, OpBulkInsert, OpUpsert, OpUpsert, OpUpsert, OpDelete, OpSoftDelete}[rng.IntN(7)]
		existing := keys()
		n := 1 + rng.IntN(40)
		for i := 0; i < n; i++ {
			r := modelRow{partition: partitions[rng.IntN(len(partitions))], ts: int64(rng.IntN(50)), rider: fmt.Sprintf("rider-%d", rng.IntN(1000)), fare: float64(rng.IntN(10000)) / 100}
			if rng.IntN(40) == 0 {
				r.ts = 1<<53 + 1 + 2*int64(rng.IntN(50)) // a double would round it
			}
			pickExisting := len(existing) > 0 && rng.IntN(3) > 0
			switch {
			case op == OpInsert || op == OpBulkInsert:
				pickExisting = len(existing) > 0 && rng.IntN(20) == 0 // a rare duplicate: refused
				r.deleted = rng.IntN(15) == 0                         // skipped, even as a duplicate
			case op == OpUpsert:
				r.deleted = rng.IntN(10) == 0
			}
			if pickExisting {
				r.key = existing[rng.IntN(len(existing))]
				if op != OpUpsert || rng.IntN(4) > 0 {
					r.partition = model[r.key].partition // most updates stay put
				}
			} else {
				r.key = fmt.Sprintf("key-%04d", nextKey)
				nextKey++
			}
			rows = append(rows, r)
			if op == OpUpsert && rng.IntN(8) == 0 {
				dup := r // the same key twice in one input
				dup.ts = int64(rng.IntN(50))
				dup.fare += 1
				rows = append(rows, dup)
			}
		}
		in := &Input{Name: "model", Schema: modelSchema()}
		for _, r := range rows {
			in.Rows = append(in.Rows, []any{r.key, r.ts, r.rider, r.fare, r.partition, r.deleted})
		}
		if indexDir := filepath.Join(tt.dir, ".hoodie", ".index"); step > 0 && rng.IntN(4) == 0 {
			if _, err := os.Stat(indexDir); err == nil {
				damage.FlipRandomBit(t, rng, indexDir)
			}
		}
		res, err := tt.w.Write(context.Background(), op, in)
		want, wantErr := applyModel(model, op, mode, rows)
		if wantErr {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("step %d %s: got %v, want a refusal", step, op, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", step, op, err)
		}
		if res.Instant == "" {
			if !reflect.DeepEqual(want, model) {
				t.Fatalf("step %d %s: nothing committed, but the model changed", step, op)
			}
			continue
		}
		for k, r := range want {
			if r.commit == "" {
				r.commit = res.Instant
				want[k] = r
			}
		}
		model = want
		history[res.Instant] = model
		instants = append(instants, res.Instant)
		checkSnapshot(t, fmt.Sprintf("step %d %s", step, op), snapshot(t, tt.fsys, ""), model, populateMeta)
		if past := instants[rng.IntN(len(instants))]; rng.IntN(3) == 0 {
			checkSnapshot(t, fmt.Sprintf("step %d: as of %s", step, past), snapshot(t, tt.fsys, past), history[past], populateMeta)
		}
	}
	for _, in := range instants {
		checkSnapshot(t, "as of "+in, snapshot(t, tt.fsys, in), history[in], populateMeta)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// refusedStep tries a write that must be refused, with nothing changed: a
// NaN precombine value, a column differing from the table's only in case,
// or, when the model holds a ts a double would round, widening ts to
// double.
func refusedStep(t *testing.T, tt *testTable, rng *rand.Rand, step int, model map[string]modelRecord, keys []string, populateMeta bool) {
	t.Helper()
	schema := modelSchema()
	row := func(key string, ts any) []any { return []any{key, ts, "rider-x", 1.5, "asia/india", false} }
	key := fmt.Sprintf("key-new-%d", step)
	if len(keys) > 0 && rng.IntN(2) == 0 {
		key = keys[rng.IntN(len(keys))]
	}
	lossy := false
	for _, r := range model {
		lossy = lossy || !exactInFloat(r.ts, basefile.KindDouble)
	}
	in := &Input{Name: "model", Schema: schema}
	var what string
	var wantRefused bool
	switch kind := rng.IntN(3); {
	case kind == 0:
		what = "a NaN precombine value"
		schema.Fields[1].Type = basefile.Nullable(basefile.Primitive(basefile.KindDouble))
		in.Rows = [][]any{row("key-other", 3.0), row(key, math.NaN())}
	case kind == 1 || !lossy:
		what, wantRefused = "a column differing in case", true
		schema.Fields[2].Name = "Rider"
		in.Rows = [][]any{row(key, int64(3))}
	default:
		what, wantRefused = "a lossy widening of ts", true
		schema.Fields[1].Type = basefile.Nullable(basefile.Primitive(basefile.KindDouble))
		in.Rows = [][]any{row(key, 3.0)}
	}
	_, err := tt.w.Write(context.Background(), OpUpsert, in)
	var re *RecordError
	if wantRefused && !errors.Is(err, ErrRefused) || !wantRefused && !errors.As(err, &re) {
		t.Fatalf("step %d, %s: got %v, want it refused", step, what, err)
	}
	checkSnapshot(t, fmt.Sprintf("step %d, after %s", step, what), snapshot(t, tt.fsys, ""), model, populateMeta)
}

// applyModel returns the model after op, with records written by the op
// having an empty commit, or wantErr for a refused write.
func applyModel(model map[string]modelRecord, op Operation, mode config.MergeMode, rows []modelRow) (next map[string]modelRecord, wantErr bool) {
	// Precombine within the input: greatest ts, the later on a tie.
	latest := map[string]modelRow{}
	var order []string
	for _, r := range rows {
		prev, seen := latest[r.key]
		if !seen {
			order = append(order, r.key)
		}
		if !seen || op == OpDelete || op == OpSoftDelete || r.ts >= prev.ts {
			latest[r.key] = r
		}
	}
	next = make(map[string]modelRecord, len(model))
	for k, v := range model {
		next[k] = v
	}
	for _, k := range order {
		r := latest[k]
		stored, exists := model[k]
		switch op {
		case OpInsert, OpBulkInsert:
			if r.deleted {
				continue // nothing to insert
			}
			if exists {
				return nil, true
			}
			next[k] = modelRecord{partition: r.partition, ts: r.ts, rider: r.rider, fare: r.fare}
		case OpDelete:
			delete(next, k)
		case OpSoftDelete:
			if exists {
				next[k] = modelRecord{partition: stored.partition, ts: stored.ts}
			}
		case OpUpsert:
			if exists && mode == config.MergeEventTime && r.ts < stored.ts {
				continue
			}
			if r.deleted {
				delete(next, k)
				continue
			}
			next[k] = modelRecord{partition: r.partition, ts: r.ts, rider: r.rider, fare: r.fare}
		}
	}
	return next, false
}

// checkSnapshot compares a snapshot with the model. Without meta fields a
// record's commit time is not stored, and is not compared.
func checkSnapshot(t *testing.T, what string, got map[string][]any, want map[string]modelRecord, withCommit bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%s: record %q missing", what, k)
		}
		// Meta fields, then uuid, ts, rider, fare, partitionpath, _hoodie_is_deleted.
		if (withCommit && g[0] != w.commit) || g[3] != config.EscapePartitionValue(w.partition) || g[6] != w.ts || g[7] != w.rider || g[8] != w.fare || g[9] != w.partition {
			t.Fatalf("%s: record %q is %v, want %+v", what, k, g, w)
		}
	}
}

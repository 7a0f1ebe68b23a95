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
	"github.com/hoodie-dev/hoodie/storage"
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
func modelSchema() *storage.Schema {
	str := storage.Nullable(storage.Primitive(storage.KindString))
	return &storage.Schema{Name: "model_record", Fields: []storage.Field{
		{Name: "uuid", Type: str},
		{Name: "ts", Type: storage.Nullable(storage.Primitive(storage.KindLong))},
		{Name: "rider", Type: str},
		{Name: "fare", Type: storage.Nullable(storage.Primitive(storage.KindDouble))},
		{Name: "partitionpath", Type: str},
		{Name: IsDeletedColumn, Type: storage.Nullable(storage.Primitive(storage.KindBoolean))},
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
	for _, mode := range []storage.MergeMode{storage.MergeEventTime, storage.MergeCommitTime} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", mode, seed), func(t *testing.T) {
				runModel(t, mode, seed, 25, true)
			})
		}
	}
	// A table with hoodie.populate.meta.fields=false: keys come from the
	// uuid column of stored rows.
	t.Run("no-meta-fields/seed4", func(t *testing.T) {
		runModel(t, storage.MergeEventTime, 4, 25, false)
	})
	// A table of Hudi's timestamp-based key generator: partition values
	// are date-times, and two of them share a day's folder.
	t.Run("timestamp-keygen/seed5", func(t *testing.T) {
		runModelOn(t, storage.MergeEventTime, 5, 25, timestampModelTable(t))
	})
}

// modelTable is the table a randomized run writes: the partition values
// its rows take, and the folder each goes to.
type modelTable struct {
	partitions []string
	folder     func(value string) string
	meta       bool
	// create, if not nil, makes the table instead of newTripsTableWith.
	create func(t *testing.T, mode storage.MergeMode, settings Settings) *testTable
}

// timestampModelTable is a trips table partitioned by Hudi's
// timestamp-based key generator: partitionpath holds "yyyy-MM-dd
// HH:mm:ss" date-times, whose day is the folder, yyyy/MM/dd (one folder
// each, escaped, as the table URL-encodes partition paths).
func timestampModelTable(t *testing.T) modelTable {
	folders := map[string]string{
		"2024-01-02 13:30:00": "2024%2F01%2F02", "2024-01-02 23:59:59": "2024%2F01%2F02", "2023-12-31 00:00:00": "2023%2F12%2F31",
	}
	return modelTable{
		partitions: []string{"2024-01-02 13:30:00", "2024-01-02 23:59:59", "2023-12-31 00:00:00"},
		folder: func(v string) string {
			if f, ok := folders[v]; ok {
				return f
			}
			t.Fatalf("no folder for %q", v)
			return ""
		},
		meta: true,
		create: func(t *testing.T, mode storage.MergeMode, settings Settings) *testTable {
			// As Spark 0.15, the table does not keep the timestamp type:
			// every write gives it.
			settings.Props = storage.NewProperties()
			settings.Props.Set(KeyTimestampType, "DATE_STRING")
			return newTripsTableConfigured(t, mode, settings, func(cfg *storage.TableConfig) {
				cfg.KeyGeneratorClass = storage.TimestampBasedKeyGenerator
				cfg.Extra.Set(KeyTimestampInputFormat, "yyyy-MM-dd HH:mm:ss")
				cfg.Extra.Set(KeyTimestampOutputFormat, "yyyy/MM/dd")
				cfg.Extra.Set(KeyTimestampZone, "UTC")
			})
		},
	}
}

func runModel(t *testing.T, mode storage.MergeMode, seed uint64, steps int, populateMeta bool) {
	runModelOn(t, mode, seed, steps, modelTable{
		partitions: []string{"americas/brazil", "asia/india", "europe/france"},
		folder:     storage.EscapePartitionValue,
		meta:       populateMeta,
	})
}

func runModelOn(t *testing.T, mode storage.MergeMode, seed uint64, steps int, table modelTable) {
	populateMeta := table.meta
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
	var tt *testTable
	if table.create != nil {
		tt = table.create(t, mode, settings)
	} else {
		tt = newTripsTableWith(t, mode, settings, populateMeta)
	}
	partitions := table.partitions
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
			refusedStep(t, tt, rng, step, model, keys(), table)
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
		checkSnapshot(t, fmt.Sprintf("step %d %s", step, op), snapshot(t, tt.fsys, ""), model, table)
		if past := instants[rng.IntN(len(instants))]; rng.IntN(3) == 0 {
			checkSnapshot(t, fmt.Sprintf("step %d: as of %s", step, past), snapshot(t, tt.fsys, past), history[past], table)
		}
	}
	for _, in := range instants {
		checkSnapshot(t, "as of "+in, snapshot(t, tt.fsys, in), history[in], table)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// refusedStep tries a write that must be refused, with nothing changed: a
// NaN precombine value, a column differing from the table's only in case,
// or, when the model holds a ts a double would round, widening ts to
// double.
func refusedStep(t *testing.T, tt *testTable, rng *rand.Rand, step int, model map[string]modelRecord, keys []string, table modelTable) {
	t.Helper()
	schema := modelSchema()
	row := func(key string, ts any) []any { return []any{key, ts, "rider-x", 1.5, table.partitions[1], false} }
	key := fmt.Sprintf("key-new-%d", step)
	if len(keys) > 0 && rng.IntN(2) == 0 {
		key = keys[rng.IntN(len(keys))]
	}
	lossy := false
	for _, r := range model {
		lossy = lossy || !exactInFloat(r.ts, storage.KindDouble)
	}
	in := &Input{Name: "model", Schema: schema}
	var what string
	var wantRefused bool
	switch kind := rng.IntN(3); {
	case kind == 0:
		what = "a NaN precombine value"
		schema.Fields[1].Type = storage.Nullable(storage.Primitive(storage.KindDouble))
		in.Rows = [][]any{row("key-other", 3.0), row(key, math.NaN())}
	case kind == 1 || !lossy:
		what, wantRefused = "a column differing in case", true
		schema.Fields[2].Name = "Rider"
		in.Rows = [][]any{row(key, int64(3))}
	default:
		what, wantRefused = "a lossy widening of ts", true
		schema.Fields[1].Type = storage.Nullable(storage.Primitive(storage.KindDouble))
		in.Rows = [][]any{row(key, 3.0)}
	}
	_, err := tt.w.Write(context.Background(), OpUpsert, in)
	var re *RecordError
	if wantRefused && !errors.Is(err, ErrRefused) || !wantRefused && !errors.As(err, &re) {
		t.Fatalf("step %d, %s: got %v, want it refused", step, what, err)
	}
	checkSnapshot(t, fmt.Sprintf("step %d, after %s", step, what), snapshot(t, tt.fsys, ""), model, table)
}

// applyModel returns the model after op, with records written by the op
// having an empty commit, or wantErr for a refused write.
func applyModel(model map[string]modelRecord, op Operation, mode storage.MergeMode, rows []modelRow) (next map[string]modelRecord, wantErr bool) {
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
			if exists && mode == storage.MergeEventTime && r.ts < stored.ts {
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

// checkSnapshot compares a snapshot with the model of a run on table.
// Without meta fields a record's commit time is not stored, and is not
// compared.
func checkSnapshot(t *testing.T, what string, got map[string][]any, want map[string]modelRecord, table modelTable) {
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
		if (table.meta && g[0] != w.commit) || g[3] != table.folder(w.partition) || g[6] != w.ts || g[7] != w.rider || g[8] != w.fare || g[9] != w.partition {
			t.Fatalf("%s: record %q is %v, want %+v", what, k, g, w)
		}
	}
}

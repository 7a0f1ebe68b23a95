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
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/damage"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
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

// TestRandomWorkloads runs random inserts, upserts, deletes, soft deletes,
// insert overwrites, partition deletes, clusterings and rollbacks of the
// latest write against a table and a map that applies the contract's
// rules, comparing the latest snapshot after every write and random past
// snapshots (time travel) along the way. The cleaner runs too, after each
// commit or now and then, with a policy each seed picks, and savepoints
// come and go: a past snapshot reads whole or fails with
// read.ErrSnapshotGone, and those the policy or a savepoint keeps always
// read. Some steps try writes that must be refused with
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
	// A long run: a bit flipped in the index left it placing a key in a
	// file group the table no longer had, which the write must rebuild
	// the index for rather than fail.
	t.Run("event-time/seed89-long", func(t *testing.T) {
		runModel(t, config.MergeEventTime, 89, 80, true)
	})
	// A table of Hudi's timestamp-based key generator: partition values
	// are date-times, and two of them share a day's folder.
	t.Run("timestamp-keygen/seed5", func(t *testing.T) {
		runModelOn(t, config.MergeEventTime, 5, 25, timestampModelTable(t))
	})
}

// modelTable is the table a randomized run writes: the partition values
// its rows take, and the folder each goes to.
type modelTable struct {
	partitions []string
	folder     func(value string) string
	meta       bool
	// create, if not nil, makes the table instead of newTripsTableWith.
	create func(t *testing.T, mode config.MergeMode, settings Settings) *testTable
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
		create: func(t *testing.T, mode config.MergeMode, settings Settings) *testTable {
			// As Spark 0.15, the table does not keep the timestamp type:
			// every write gives it.
			settings.Props = config.NewProperties()
			settings.Props.Set(KeyTimestampType, "DATE_STRING")
			return newTripsTableConfigured(t, mode, settings, func(cfg *config.Table) {
				cfg.KeyGeneratorClass = config.TimestampBasedKeyGenerator
				cfg.Extra.Set(KeyTimestampInputFormat, "yyyy-MM-dd HH:mm:ss")
				cfg.Extra.Set(KeyTimestampOutputFormat, "yyyy/MM/dd")
				cfg.Extra.Set(KeyTimestampZone, "UTC")
			})
		},
	}
}

func runModel(t *testing.T, mode config.MergeMode, seed uint64, steps int, populateMeta bool) {
	runModelOn(t, mode, seed, steps, modelTable{
		partitions: []string{"americas/brazil", "asia/india", "europe/france"},
		folder:     config.EscapePartitionValue,
		meta:       populateMeta,
	})
}

func runModelOn(t *testing.T, mode config.MergeMode, seed uint64, steps int, table modelTable) {
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
	// The cleaner: seed 1 and 4 keep the last commits, seed 2 file
	// versions, after each commit; seed 3 keeps commits but cleans only
	// when asked.
	settings.Cleaner.CommitsRetained = 2 + int(seed%3)
	switch seed {
	case 2:
		settings.Cleaner.Policy, settings.Cleaner.FileVersionsRetained = CleanKeepLatestFileVersions, 2
	case 3:
		settings.Cleaner.Automatic = false
	}
	if seed%2 == 1 {
		// Archival after every few commits: reads of the latest snapshot
		// and time travel to archived commits stay right, and the index
		// catches up across them.
		// keep.min.commits above the commits the cleaner retains, as
		// Hudi requires.
		settings.Archive = ArchiveSettings{Automatic: true, MinCommits: settings.Cleaner.CommitsRetained + 1, MaxCommits: settings.Cleaner.CommitsRetained + 2, Batch: 2}
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
	savepoints := map[string]bool{}
	// committed lists every write that committed, those rolled back since
	// included: a clean kept the last commits of the timeline it saw, and
	// a commit is at least as near the end of every timeline since as it
	// is of this list.
	var committed []string
	// readable tells whether a past snapshot must read whole.
	readable := func(in string, instants []string) bool {
		if savepoints[in] || in == instants[len(instants)-1] {
			return true
		}
		n := settings.Cleaner.CommitsRetained
		return settings.Cleaner.Policy == CleanKeepLatestCommits && len(committed) >= n && in >= committed[len(committed)-n]
	}
	gone := 0
	checkPast := func(what, past string, instants []string) {
		t.Helper()
		got, err := pastSnapshot(t, tt.fsys, past)
		if errors.Is(err, read.ErrSnapshotGone) && !readable(past, instants) {
			gone++
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkSnapshot(t, what, got, history[past], table)
	}
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
		if len(instants) > 0 && rng.IntN(6) == 0 {
			// The write before the latest must read whole for the rollback
			// to be sure to work: else what it needs may have been cleaned.
			sure := len(instants) < 2 || readable(instants[len(instants)-2], instants)
			instants, model = rollbackStep(t, tt, rng, step, instants, history, savepoints, sure, table)
			continue
		}
		if len(instants) > 0 && rng.IntN(4) == 0 {
			serviceStep(t, tt, rng, step, instants, savepoints)
		}
		if len(model) > 0 && rng.IntN(10) == 0 {
			// A clustering changes no record, commit times included.
			tt.w.settings.Clustering.SortColumns = []string{[]string{"rider", "fare", "ts"}[rng.IntN(3)]}[:rng.IntN(2)]
			res, err := tt.w.Cluster(context.Background())
			if err != nil {
				t.Fatalf("step %d cluster: %v", step, err)
			}
			if res.Instant != "" {
				history[res.Instant] = model
				instants = append(instants, res.Instant)
				committed = append(committed, res.Instant)
			}
			checkSnapshot(t, fmt.Sprintf("step %d cluster", step), snapshot(t, tt.fsys, ""), model, table)
			continue
		}
		if len(model) > 0 && rng.IntN(12) == 0 {
			if in, next := deletePartitionStep(t, tt, rng, step, model, table); in != "" {
				model = next
				history[in] = model
				instants = append(instants, in)
				committed = append(committed, in)
			}
			continue
		}
		var rows []modelRow
		ops := []Operation{OpInsert, OpBulkInsert, OpUpsert, OpUpsert, OpUpsert, OpDelete, OpSoftDelete, OpInsertOverwrite, OpInsertOverwrite, OpInsertOverwriteTable}
		op := ops[rng.IntN(len(ops))]
		if op == OpInsertOverwriteTable && rng.IntN(2) == 0 {
			op = OpUpsert // a rare one: it empties the table of all but its input
		}
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
			case op.Overwrites():
				r.deleted = rng.IntN(15) == 0
			}
			if pickExisting {
				r.key = existing[rng.IntN(len(existing))]
				// An overwrite's key may go to another partition, whose
				// old one may not be replaced: then it is refused.
				moves := op == OpInsertOverwrite && rng.IntN(10) == 0
				if !moves && (op != OpUpsert || rng.IntN(4) > 0) {
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
		want, wantErr := applyModel(model, op, mode, rows)
		// Only before a write that commits: a refused one may stop before
		// it opens the index, and the flip would outlive the run.
		if indexDir := filepath.Join(tt.dir, ".hoodie", ".index"); step > 0 && !wantErr && rng.IntN(4) == 0 {
			if _, err := os.Stat(indexDir); err == nil {
				damage.FlipRandomBit(t, rng, indexDir)
			}
		}
		res, err := tt.w.Write(context.Background(), op, in)
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
		committed = append(committed, res.Instant)
		checkSnapshot(t, fmt.Sprintf("step %d %s", step, op), snapshot(t, tt.fsys, ""), model, table)
		if past := instants[rng.IntN(len(instants))]; rng.IntN(3) == 0 {
			checkPast(fmt.Sprintf("step %d: as of %s", step, past), past, instants)
		}
	}
	if _, err := tt.w.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, in := range instants {
		checkPast("as of "+in, in, instants)
	}
	if gone == 0 {
		t.Errorf("no past snapshot of %d was cleaned", len(instants))
	}
	if settings.Archive.Automatic {
		// Savepoints hold archival back, and so do the files of replaced
		// file groups they kept: with them gone, a commit (which makes a
		// clean due), a clean and an archival bring the active timeline
		// within its bounds.
		for in := range savepoints {
			if err := tt.w.DeleteSavepoint(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
		last := &Input{Name: "model", Schema: modelSchema(), Rows: [][]any{{"key-last", int64(0), "rider-last", 1.0, partitions[0], false}}}
		instants = append(instants, tt.write(OpInsert, last).Instant)
		if _, err := tt.w.Clean(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := tt.w.Archive(context.Background()); err != nil {
			t.Fatal(err)
		}
		checkArchived(t, tt.fsys, instants, settings.Archive)
	}
	verifyIndex(t, tt.fsys, filepath.Join(tt.dir, ".hoodie", ".index"), tt.dir)
}

// rollbackStep rolls back the latest of instants, the writes so far, after
// trying to roll back an earlier one, which must be refused with nothing
// changed; and returns the writes left and the model as of the last of
// them. Unless sure, the rollback may be refused because the cleaner
// removed files the table needs without the latest write.
func rollbackStep(t *testing.T, tt *testTable, rng *rand.Rand, step int, instants []string, history map[string]map[string]modelRecord, savepoints map[string]bool, sure bool, table modelTable) ([]string, map[string]modelRecord) {
	t.Helper()
	ctx := context.Background()
	latest := instants[len(instants)-1]
	if savepoints[latest] {
		if _, err := tt.w.Rollback(ctx, latest); !errors.Is(err, ErrRefused) {
			t.Fatalf("step %d: rolling back %s, which a savepoint keeps, gave %v; want it refused", step, latest, err)
		}
		checkSnapshot(t, fmt.Sprintf("step %d, after a refused rollback", step), snapshot(t, tt.fsys, ""), history[latest], table)
		return instants, history[latest]
	}
	if len(instants) > 1 {
		earlier := instants[rng.IntN(len(instants)-1)]
		if _, err := tt.w.Rollback(ctx, earlier); !errors.Is(err, ErrRefused) {
			t.Fatalf("step %d: rolling back %s, not the latest write, gave %v; want it refused", step, earlier, err)
		}
		checkSnapshot(t, fmt.Sprintf("step %d, after a refused rollback", step), snapshot(t, tt.fsys, ""), history[latest], table)
	}
	if _, err := tt.w.Rollback(ctx, latest); err != nil {
		// Without the latest write, the table must not lack files the
		// cleaner removed, nor read without the writes archival moved.
		if errors.Is(err, ErrRefused) && (!sure && strings.Contains(err.Error(), "was cleaned since") || strings.Contains(err.Error(), "the only write left on the active timeline")) {
			checkSnapshot(t, fmt.Sprintf("step %d, after a refused rollback", step), snapshot(t, tt.fsys, ""), history[latest], table)
			return instants, history[latest]
		}
		t.Fatalf("step %d: roll back %s: %v", step, latest, err)
	}
	delete(history, latest)
	instants = instants[:len(instants)-1]
	model := map[string]modelRecord{}
	if len(instants) > 0 {
		model = history[instants[len(instants)-1]]
	}
	checkSnapshot(t, fmt.Sprintf("step %d, after the rollback of %s", step, latest), snapshot(t, tt.fsys, ""), model, table)
	return instants, model
}

// serviceStep runs the cleaner, savepoints the latest commit, or deletes a
// savepoint, at random.
func serviceStep(t *testing.T, tt *testTable, rng *rand.Rand, step int, instants []string, savepoints map[string]bool) {
	t.Helper()
	ctx := context.Background()
	switch rng.IntN(3) {
	case 0:
		if _, err := tt.w.Clean(ctx); err != nil {
			t.Fatalf("step %d: clean: %v", step, err)
		}
	case 1:
		latest := instants[len(instants)-1]
		_, err := tt.w.Savepoint(ctx, latest, "model")
		// Hudi's rule: no savepoint older than the earliest commit the
		// last clean retained, which may be a write rolled back since.
		if err != nil && !savepoints[latest] && strings.Contains(err.Error(), "the last clean retained commits from") {
			return
		}
		if savepoints[latest] != (err != nil) {
			t.Fatalf("step %d: savepoint %s (savepointed already: %v): %v", step, latest, savepoints[latest], err)
		}
		savepoints[latest] = true
	default:
		for in := range savepoints {
			if err := tt.w.DeleteSavepoint(ctx, in); err != nil {
				t.Fatalf("step %d: delete savepoint %s: %v", step, in, err)
			}
			delete(savepoints, in)
			break
		}
	}
}

// pastSnapshot is snapshot, as of asOf, with the error of a view that
// cannot be loaded.
func pastSnapshot(t testing.TB, fsys storage.FS, asOf string) (map[string][]any, error) {
	tl, err := timeline.Load(context.Background(), fsys)
	if err != nil {
		return nil, err
	}
	if _, err := read.LoadView(context.Background(), fsys, tl, asOf); err != nil {
		return nil, err
	}
	return snapshot(t, fsys, asOf), nil
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
	checkSnapshot(t, fmt.Sprintf("step %d, after %s", step, what), snapshot(t, tt.fsys, ""), model, table)
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
	if op.Overwrites() {
		return applyOverwrite(model, op, latest, order)
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

// applyOverwrite returns the model after an insert overwrite of the
// records latest (in order), precombined: the partitions they go to (all
// for a table overwrite) hold just their records that are not deleted. A
// key the model holds in a partition not replaced is refused.
func applyOverwrite(model map[string]modelRecord, op Operation, latest map[string]modelRow, order []string) (next map[string]modelRecord, wantErr bool) {
	replaced := map[string]bool{}
	for _, k := range order {
		replaced[latest[k].partition] = true
	}
	for _, k := range order {
		if stored, ok := model[k]; ok && !latest[k].deleted && !replaced[stored.partition] && op == OpInsertOverwrite {
			return nil, true
		}
	}
	next = map[string]modelRecord{}
	for k, v := range model {
		if op == OpInsertOverwrite && !replaced[v.partition] {
			next[k] = v
		}
	}
	for _, k := range order {
		if r := latest[k]; !r.deleted {
			next[k] = modelRecord{partition: r.partition, ts: r.ts, rider: r.rider, fare: r.fare}
		}
	}
	return next, false
}

// deletePartitionStep deletes a partition the model holds records of, and
// checks the snapshot, returning the instant and the model after it; or,
// one time in four, tries to delete a partition the table never had, which
// must be refused with nothing changed, and returns "".
func deletePartitionStep(t *testing.T, tt *testTable, rng *rand.Rand, step int, model map[string]modelRecord, table modelTable) (string, map[string]modelRecord) {
	t.Helper()
	ctx := context.Background()
	if rng.IntN(4) == 0 {
		_, err := tt.w.DeletePartitions(ctx, []string{"nowhere/at-all"})
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("step %d: delete of a partition the table does not have: got %v, want it refused", step, err)
		}
		checkSnapshot(t, fmt.Sprintf("step %d, after a refused delete-partition", step), snapshot(t, tt.fsys, ""), model, table)
		return "", model
	}
	var held []string
	for _, r := range model {
		held = append(held, r.partition)
	}
	sort.Strings(held)
	// The partition path: partition values may share one.
	partition := table.folder(held[rng.IntN(len(held))])
	res, err := tt.w.DeletePartitions(ctx, []string{partition})
	if err != nil {
		t.Fatalf("step %d: delete-partition %s: %v", step, partition, err)
	}
	next := map[string]modelRecord{}
	for k, r := range model {
		if table.folder(r.partition) != partition {
			next[k] = r
		}
	}
	checkSnapshot(t, fmt.Sprintf("step %d delete-partition %s", step, partition), snapshot(t, tt.fsys, ""), next, table)
	return res.Instant, next
}

package read_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

func tripsInput(ts []trips.Trip) *write.Input {
	return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

// tripsTable is a trips table in a folder, written by the write package.
type tripsTable struct {
	t    testing.TB
	dir  string
	fsys storage.FS
	w    *write.Writer
}

func newTripsTable(t testing.TB, dir string) *tripsTable {
	t.Helper()
	return newTripsTableWith(t, dir, func(*config.Table) {})
}

// newTripsTableWith is newTripsTable with the table's configuration
// changed by edit before the table is created.
func newTripsTableWith(t testing.TB, dir string, edit func(*config.Table)) *tripsTable {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("trips", []string{trips.ColUUID}, trips.ColTS, []string{trips.ColPartitionPath}, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	if err := config.CreateTable(context.Background(), fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	tt := newTripsTableAt(t, dir)
	tt.w = write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir})
	return tt
}

// newTripsTableAt opens the trips table written in dir.
func newTripsTableAt(t testing.TB, dir string) *tripsTable {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &tripsTable{t: t, dir: dir, fsys: fsys}
}

// write commits op with ts and returns the instant.
func (tt *tripsTable) write(op write.Operation, ts []trips.Trip) string {
	tt.t.Helper()
	res, err := tt.w.Write(context.Background(), op, tripsInput(ts))
	if err != nil {
		tt.t.Fatalf("%s: %v", op, err)
	}
	return res.Instant
}

// scan opens a scan of the table.
func (tt *tripsTable) scan(opts read.Options) (*read.Scan, error) {
	return openScan(tt.t, tt.fsys, opts)
}

func openScan(t testing.TB, fsys storage.FS, opts read.Options) (*read.Scan, error) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	return read.NewScan(ctx, fsys, cfg, tl, opts)
}

// readAll returns every record of a scan, and its stats.
func readAll(t testing.TB, s *read.Scan) ([][]any, read.Stats) {
	t.Helper()
	defer s.Close()
	var rows [][]any
	for {
		row, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return rows, s.Stats()
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
}

// byKey indexes rows by their string column col.
func byKey(rows [][]any, col int) map[string][]any {
	m := make(map[string][]any, len(rows))
	for _, r := range rows {
		m[r[col].(string)] = r
	}
	return m
}

func TestScanWrittenTable(t *testing.T) {
	tt := newTripsTable(t, t.TempDir())
	gen := trips.NewGenerator(7)
	first := gen.Inserts(300)
	i1 := tt.write(write.OpInsert, first)
	updates := gen.Updates(first, 50)
	i2 := tt.write(write.OpUpsert, updates)
	more := gen.Inserts(100)
	i3 := tt.write(write.OpInsert, more)
	i4 := tt.write(write.OpDelete, first[:10])

	cols := []string{basefile.MetaCommitTime, trips.ColUUID, trips.ColTS, trips.ColFare, trips.ColPartitionPath, basefile.MetaRecordKey}
	want := map[string]trips.Trip{}
	commit := map[string]string{}
	apply := func(instant string, ts []trips.Trip) {
		for _, tr := range ts {
			want[tr.UUID], commit[tr.UUID] = tr, instant
		}
	}
	check := func(name string, opts read.Options, wantKeys map[string]bool) {
		t.Helper()
		opts.Columns = cols
		for _, parallelism := range []int{1, 4} {
			opts.Parallelism = parallelism
			checkScan(t, tt, fmt.Sprintf("%s (parallelism %d)", name, parallelism), opts, wantKeys, want, commit)
		}
	}
	keys := func(groups ...[]trips.Trip) map[string]bool {
		m := map[string]bool{}
		for _, g := range groups {
			for _, tr := range g {
				m[tr.UUID] = true
			}
		}
		return m
	}
	apply(i1, first)
	check("as of the first insert", read.Options{AsOf: i1}, keys(first))
	apply(i2, updates)
	check("as of the upsert", read.Options{AsOf: i2}, keys(first))
	check("incremental upsert", read.Options{Begin: i1, End: i2}, keys(updates))
	apply(i3, more)
	check("incremental from the upsert", read.Options{Begin: i1}, keys(updates, more))
	snapshot := keys(first[10:], more)
	check("latest", read.Options{}, snapshot)
	check("incremental from the start", read.Options{Begin: "000"}, snapshot)
	check("incremental after the delete", read.Options{Begin: i4}, nil)
	check("filtered", read.Options{Where: "partitionpath = '" + trips.Chennai + "'"}, filterTrips(snapshot, want, func(tr trips.Trip) bool { return tr.PartitionPath == trips.Chennai }))
	check("fare range", read.Options{Where: "fare >= 20 AND fare < 30.5"}, filterTrips(snapshot, want, func(tr trips.Trip) bool { return tr.Fare >= 20 && tr.Fare < 30.5 }))
	k := more[3].UUID
	check("one key", read.Options{Where: "uuid = '" + k + "'"}, map[string]bool{k: true})
	check("meta key", read.Options{Where: "_hoodie_record_key IN ('" + k + "', 'nope')"}, map[string]bool{k: true})
}

// checkScan checks that a scan returns exactly the trips of wantKeys, with
// their commit times.
func checkScan(t *testing.T, tt *tripsTable, name string, opts read.Options, wantKeys map[string]bool, want map[string]trips.Trip, commit map[string]string) {
	t.Helper()
	s, err := tt.scan(opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rows, _ := readAll(t, s)
	got := byKey(rows, 1)
	if len(rows) != len(wantKeys) || len(got) != len(rows) {
		t.Fatalf("%s: %d records (%d keys), want %d", name, len(rows), len(got), len(wantKeys))
	}
	for k := range wantKeys {
		r, tr := got[k], want[k]
		if r == nil {
			t.Fatalf("%s: key %s missing", name, k)
		}
		if r[1] != tr.UUID || r[2] != tr.TS || r[3] != tr.Fare || r[4] != tr.PartitionPath || r[5] != tr.UUID || r[0] != commit[k] {
			t.Errorf("%s: record %v, want %+v committed at %s", name, r, tr, commit[k])
		}
	}
}

func filterTrips(keys map[string]bool, all map[string]trips.Trip, keep func(trips.Trip) bool) map[string]bool {
	out := map[string]bool{}
	for k := range keys {
		if keep(all[k]) {
			out[k] = true
		}
	}
	return out
}

// TestScanStopsEarly closes scans and cancels their contexts part way
// through, with files read in parallel.
func TestScanStopsEarly(t *testing.T) {
	tt := newTripsTable(t, t.TempDir())
	gen := trips.NewGenerator(11)
	for range 3 {
		tt.write(write.OpInsert, gen.Inserts(200))
	}
	ctx := context.Background()
	for _, parallelism := range []int{1, 3} {
		s, err := tt.scan(read.Options{BatchSize: 5, Parallelism: parallelism})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := s.NextBatch(ctx); err != nil || b.Len() != 5 {
			t.Fatalf("parallelism %d: first batch %v, %v", parallelism, b, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("parallelism %d: Close: %v", parallelism, err)
		}
		if _, err := s.NextBatch(ctx); err != io.EOF {
			t.Errorf("parallelism %d: after Close: %v, want io.EOF", parallelism, err)
		}

		cctx, cancel := context.WithCancel(ctx)
		cfg, err := config.Load(ctx, tt.fsys)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := timeline.Load(ctx, tt.fsys)
		if err != nil {
			t.Fatal(err)
		}
		s, err = read.NewScan(cctx, tt.fsys, cfg, tl, read.Options{BatchSize: 5, Parallelism: parallelism})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.NextBatch(cctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		for err == nil {
			_, err = s.NextBatch(cctx)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("parallelism %d: after cancel: %v", parallelism, err)
		}
		s.Close()
	}
}

// TestScanBytesKeyAndPartition checks filters on a bytes record key column
// and a bytes partition column: the key is the base64 text of the bytes,
// not their value, so it cannot prune a filter on the column; and an empty
// value shares the default partition folder with null, so that folder
// cannot be pruned as null.
func TestScanBytesKeyAndPartition(t *testing.T) {
	ctx := context.Background()
	bytesType := basefile.Nullable(basefile.Primitive(basefile.KindBytes))
	schema := &basefile.Schema{Name: "b", Fields: []basefile.Field{
		{Name: "k", Type: basefile.Primitive(basefile.KindBytes)},
		{Name: "by", Type: bytesType},
		{Name: "id", Type: basefile.Primitive(basefile.KindString)},
	}}
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("b", []string{"k"}, "", []string{"by"}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(ctx, fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	w := write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir})
	rows := [][]any{{[]byte("a"), []byte{}, "a"}, {[]byte("z"), []byte("x"), "z"}, {[]byte("é"), nil, "é"}}
	if _, err := w.Write(ctx, write.OpInsert, &write.Input{Name: "b", Schema: schema, Rows: rows}); err != nil {
		t.Fatal(err)
	}
	for where, want := range map[string]string{
		"k = 'z'":                "z",
		"k = 'é'":                "é",
		"by = ''":                "a",
		"by IS NULL":             "é",
		"by = 'x'":               "z",
		"k IN ('a')":             "a",
		"by <> 'x'":              "a",
		"k < 'b'":                "a",
		"id = 'a'":               "a",
		"by IS NULL AND k = 'é'": "é",
	} {
		s, err := openScan(t, fsys, read.Options{Columns: []string{"id"}, Where: where})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := readAll(t, s)
		if len(got) != 1 || got[0][0] != want {
			t.Errorf("where %s: %v, want [%s]", where, got, want)
		}
	}
}

// vanishingFS is a table's file system on which a partition disappears
// between the listing of the partitions and the listing of its files, as
// when a rollback removes the partition a dead write created.
type vanishingFS struct {
	storage.FS
	partition string
	listed    *int // how many times the partition was listed
}

func (v vanishingFS) ReadDir(ctx context.Context, name string) ([]storage.FileInfo, error) {
	if name == v.partition {
		// Listing the partitions looks into it once; the next look is the
		// view's, for its files.
		if *v.listed++; *v.listed == 2 {
			if err := v.FS.RemoveAll(ctx, name); err != nil {
				return nil, err
			}
		}
	}
	return v.FS.ReadDir(ctx, name)
}

// TestLoadViewPartitionRemovedMeanwhile checks that a view loads while a
// rollback removes a partition that a dead write created: a reader never
// fails because of a rollback.
func TestLoadViewPartitionRemovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, t.TempDir())
	tt.write(write.OpInsert, trips.NewGenerator(3).Inserts(30))
	// The dead write's partition: its metadata, no base file.
	if err := config.EnsurePartitionMetadata(ctx, tt.fsys, "new_partition", "20240101000000000", time.Now()); err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	want, err := read.LoadView(ctx, tt.fsys, tl, "")
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	got, err := read.LoadView(ctx, vanishingFS{tt.fsys, "new_partition", &listed}, tl, "")
	if err != nil {
		t.Fatalf("LoadView while the partition is removed: %v", err)
	}
	if listed != 2 {
		t.Fatalf("the partition was listed %d times, want 2: the test no longer removes it in between", listed)
	}
	if len(got.LatestSlices()) != len(want.LatestSlices()) {
		t.Fatalf("%d slices, want %d", len(got.LatestSlices()), len(want.LatestSlices()))
	}
}

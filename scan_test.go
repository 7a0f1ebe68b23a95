package hoodie_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

// tripsTable is a trips table of several file groups per partition, written
// in three commits: inserts, an upsert (updates, one of them moving its trip
// to another partition, and new trips) and a delete.
type tripsTable struct {
	t              *hoodie.Table
	first, last    string       // the first and the last commit
	live           []trips.Trip // the trips of the latest snapshot
	moved, deleted trips.Trip
}

func newTripsTable(t *testing.T, dir string, opts ...hoodie.Option) *tripsTable {
	t.Helper()
	ctx := context.Background()
	tbl, err := hoodie.Create(ctx, dir, triptable.Spec(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	settings := write.DefaultSettings()
	settings.MaxFileSize, settings.SmallFileLimit = 48<<10, 0
	g := trips.NewGenerator(7)
	base := g.Inserts(3000)
	mustWrite := func(op write.Operation, ts []trips.Trip) *write.Result {
		t.Helper()
		res, err := tbl.Write(ctx, op, &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}, hoodie.WriteOptions{Settings: settings})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res
	}
	tt := &tripsTable{t: tbl}
	tt.first = mustWrite(write.OpInsert, base).Instant
	updates := g.Updates(base, 100)
	moved := updates[0]
	for _, p := range trips.Partitions() {
		if p != moved.PartitionPath {
			updates[0].PartitionPath = p
			break
		}
	}
	tt.moved = updates[0]
	upsert := append(updates, g.Inserts(100)...)
	mustWrite(write.OpUpsert, upsert)
	tt.deleted = base[len(base)-1]
	tt.last = mustWrite(write.OpDelete, []trips.Trip{tt.deleted}).Instant

	latest := map[string]trips.Trip{}
	for _, tr := range base {
		latest[tr.UUID] = tr
	}
	for _, tr := range upsert {
		latest[tr.UUID] = tr
	}
	delete(latest, tt.deleted.UUID)
	for _, tr := range latest {
		tt.live = append(tt.live, tr)
	}
	slices, err := tbl.FileSlices(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices); n < 2*len(trips.Partitions()) {
		t.Fatalf("the test table has %d file groups, want several per partition", n)
	}
	return tt
}

// scanKeys scans tbl with opts and returns the uuid and fare of each
// record, sorted, and the scan's counters.
func scanKeys(t *testing.T, tbl *hoodie.Table, opts hoodie.ScanOptions) ([]string, read.Stats) {
	t.Helper()
	ctx := context.Background()
	opts.Columns = []string{trips.ColUUID, trips.ColPartitionPath}
	s, err := tbl.Scan(ctx, opts)
	if err != nil {
		t.Fatalf("scan %+v: %v", opts, err)
	}
	defer s.Close()
	var out []string
	for rec, err := range s.Rows() {
		if err != nil {
			t.Fatalf("scan %+v: %v", opts, err)
		}
		out = append(out, rec[0].(string)+"@"+rec[1].(string))
	}
	slices.Sort(out)
	return out, s.Stats()
}

func TestScanLocatesKeysWithTheIndex(t *testing.T) {
	tt := newTripsTable(t, t.TempDir())
	present, other := tt.live[len(tt.live)/2], tt.live[len(tt.live)/3]
	absent := "00000000-0000-4000-8000-000000000000"
	quote := func(s string) string { return "'" + s + "'" }
	for _, tc := range []struct {
		name        string
		where       string
		wantRecords int
		wantLocated int
		wantFiles   int // files read, when the index answers
	}{
		{"one key", "uuid = " + quote(present.UUID), 1, 1, 1},
		{"the meta key column", "_hoodie_record_key = " + quote(present.UUID), 1, 1, 1},
		{"an absent key", "uuid = " + quote(absent), 0, 1, 0},
		{"a deleted key", "uuid = " + quote(tt.deleted.UUID), 0, 1, 0},
		{"a key moved to another partition", "uuid = " + quote(tt.moved.UUID), 1, 1, 1},
		{"IN", "uuid IN (" + quote(present.UUID) + ", " + quote(other.UUID) + ", " + quote(absent) + ")", 2, 3, -1},
		{"a key and another column", "uuid = " + quote(present.UUID) + " AND fare >= 0", 1, 1, 1},
		{"a key or another column", "uuid = " + quote(present.UUID) + " OR fare < 1", -1, 1, -1},
		{"NOT pins nothing", "NOT uuid = " + quote(present.UUID), len(tt.live) - 1, 0, -1},
		{"a range pins nothing", "uuid >= " + quote(present.UUID), -1, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: tc.where})
			want, footerStats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: tc.where, NoIndex: true})
			if !slices.Equal(got, want) {
				t.Fatalf("with the index: %d records %v; by footers: %d records %v", len(got), got, len(want), want)
			}
			if tc.wantRecords >= 0 && len(got) != tc.wantRecords {
				t.Errorf("%d records, want %d", len(got), tc.wantRecords)
			}
			if stats.KeysLocated != tc.wantLocated || footerStats.KeysLocated != 0 {
				t.Errorf("KeysLocated = %d (by footers %d), want %d (0)", stats.KeysLocated, footerStats.KeysLocated, tc.wantLocated)
			}
			if tc.wantFiles >= 0 && stats.FilesRead != tc.wantFiles {
				t.Errorf("read %d files, want %d", stats.FilesRead, tc.wantFiles)
			}
			if stats.FilesRead > footerStats.FilesRead {
				t.Errorf("read %d files with the index, %d without", stats.FilesRead, footerStats.FilesRead)
			}
		})
	}
	if got, _ := scanKeys(t, tt.t, hoodie.ScanOptions{Where: "uuid = " + quote(tt.moved.UUID)}); !slices.Equal(got, []string{tt.moved.UUID + "@" + tt.moved.PartitionPath}) {
		t.Errorf("the moved trip reads as %v, want it once in %s", got, tt.moved.PartitionPath)
	}
}

// TestScanFallsBackToFooters checks the cases where the index must not
// answer: the scan then prunes by footers and still returns the right
// records.
func TestScanFallsBackToFooters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tt := newTripsTable(t, dir)
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := tt.live[0]
	where := "uuid = '" + key.UUID + "'"
	want := []string{key.UUID + "@" + key.PartitionPath}

	check := func(t *testing.T, opts hoodie.ScanOptions, want []string) {
		t.Helper()
		got, stats := scanKeys(t, tt.t, opts)
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
		if stats.KeysLocated != 0 {
			t.Errorf("KeysLocated = %d, want 0: the index answered", stats.KeysLocated)
		}
	}
	t.Run("time travel to an older commit", func(t *testing.T) {
		first := []string{tt.deleted.UUID + "@" + tt.deleted.PartitionPath}
		check(t, hoodie.ScanOptions{Where: "uuid = '" + tt.deleted.UUID + "'", AsOf: tt.first}, first)
	})
	t.Run("a writer holds the lock", func(t *testing.T) {
		unlock, err := storage.Lock(ctx, fsys, storage.LockFile, storage.LockOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		check(t, hoodie.ScanOptions{Where: where}, want)
	})
	t.Run("the index is behind the timeline", func(t *testing.T) {
		// A write through another index folder leaves the table's index
		// one commit behind.
		other, err := hoodie.Open(ctx, dir, hoodie.WithIndexDir(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		moved := key
		moved.Fare = 1234
		if _, err := other.Write(ctx, write.OpUpsert, &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows([]trips.Trip{moved})}, hoodie.WriteOptions{Settings: write.DefaultSettings()}); err != nil {
			t.Fatal(err)
		}
		check(t, hoodie.ScanOptions{Where: where}, want)
		// The next write through the table's own index catches it up.
		if err := tt.t.RebuildIndex(ctx); err != nil {
			t.Fatal(err)
		}
		if _, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where}); stats.KeysLocated != 1 {
			t.Errorf("after the rebuild KeysLocated = %d, want 1", stats.KeysLocated)
		}
	})
	t.Run("a commit completed before the watermark", func(t *testing.T) {
		// Another writer, whose clock is behind, completes a commit with
		// an earlier time than the index's watermark: the index lacks the
		// file group it writes (a copy of one without the key).
		tl, err := timeline.Load(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		last, _ := tl.CompletedCommits().Last()
		at, err := timeline.ParseInstantTime(last.Time)
		if err != nil {
			t.Fatal(err)
		}
		early := timeline.FormatInstantTime(at.Add(-time.Millisecond))
		view, err := read.LoadView(ctx, fsys, tl, "")
		if err != nil {
			t.Fatal(err)
		}
		var src read.FileSlice
		// A file of another partition, whose folder is the partition path,
		// URL-encoded or not.
		for _, s := range view.LatestSlices() {
			if s.Partition != key.PartitionPath && s.Partition != config.EscapePartitionValue(key.PartitionPath) {
				src = s
				break
			}
		}
		if src.Path == "" {
			t.Fatal("every file group is in the key's partition")
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src.Path)))
		if err != nil {
			t.Fatal(err)
		}
		const fileID = "00000000-0000-0000-0000-000000000001-0"
		rel := src.Partition + "/" + fileID + "_0-1-1_" + early + ".parquet"
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		meta := filepath.Join(dir, ".hoodie")
		for name, data := range map[string]string{
			early + ".commit.requested": "",
			early + ".inflight":         "",
			early + ".commit": `{"partitionToWriteStats":{"` + src.Partition + `":[{"fileId":"` + fileID + `","path":"` + rel +
				`","prevCommit":"null","partitionPath":"` + src.Partition + `"}]},"compacted":false,"extraMetadata":{},"operationType":"UPSERT"}`,
		} {
			if err := os.WriteFile(filepath.Join(meta, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		check(t, hoodie.ScanOptions{Where: where}, want)
	})
	t.Run("no index", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(hoodie.DefaultIndexFolder))); err != nil {
			t.Fatal(err)
		}
		check(t, hoodie.ScanOptions{Where: where}, want)
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(hoodie.DefaultIndexFolder))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a scan created the index folder: %v", err)
		}
	})
}

// TestScanLocatorMatchesFootersOnEveryKey compares, key by key, the
// index-backed lookups with the footer-pruned ones over every live,
// deleted and moved trip of the table.
func TestScanLocatorMatchesFootersOnEveryKey(t *testing.T) {
	tt := newTripsTable(t, t.TempDir())
	keys := []string{tt.deleted.UUID, tt.moved.UUID}
	for i := 0; i < len(tt.live); i += 97 {
		// tt.live is in map order: the moved trip, live too, may come up.
		if k := tt.live[i].UUID; k != tt.moved.UUID {
			keys = append(keys, k)
		}
	}
	where := "uuid IN ('" + strings.Join(keys, "', '") + "')"
	got, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where})
	want, _ := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where, NoIndex: true})
	if !slices.Equal(got, want) || len(got) != len(keys)-1 {
		t.Fatalf("with the index %d records, by footers %d, want %d", len(got), len(want), len(keys)-1)
	}
	if stats.KeysLocated != len(keys) {
		t.Errorf("KeysLocated = %d, want %d", stats.KeysLocated, len(keys))
	}
}

// BenchmarkScanOneKey looks one key up in a 1M-record trips table (9 files)
// with the record index, and by the files' footers alone.
func BenchmarkScanOneKey(b *testing.B) {
	ctx := context.Background()
	d := tripbench.NewData(1_000_000)
	tbl, err := hoodie.Create(ctx, filepath.Join(b.TempDir(), "trips"), triptable.Spec())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tbl.Write(ctx, write.OpBulkInsert, &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(d.Base)}, hoodie.WriteOptions{Settings: write.DefaultSettings()}); err != nil {
		b.Fatal(err)
	}
	opts := hoodie.ScanOptions{Where: "uuid = '" + d.Lookup.UUID + "'", Columns: []string{trips.ColUUID, trips.ColFare}}
	for _, bc := range []struct {
		name    string
		noIndex bool
		located int
	}{{"index", false, 1}, {"footers", true, 0}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := opts
			opts.NoIndex = bc.noIndex
			for b.Loop() {
				s, err := tbl.Scan(ctx, opts)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for batch, err := range s.Batches() {
					if err != nil {
						b.Fatal(err)
					}
					n += batch.Len()
				}
				if st := s.Stats(); n != 1 || st.KeysLocated != bc.located {
					b.Fatalf("%d records, %d keys located; want 1 and %d", n, st.KeysLocated, bc.located)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package tripbench

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

func TestNewData(t *testing.T) {
	d := NewData(3000)
	base := map[string]trips.Trip{}
	for _, tr := range d.Base {
		base[tr.UUID] = tr
	}
	if len(d.Base) != 3000 || len(base) != 3000 {
		t.Fatalf("%d base trips, %d keys", len(d.Base), len(base))
	}
	for name, b := range map[string]Batch{"upsert 1k": d.Upsert1k, "upsert 100k": d.Upsert100k, "tag": d.Tag} {
		want := min(len(b.Trips)/2, len(d.Base))
		if b.Updates != want {
			t.Errorf("%s: %d updates, want %d", name, b.Updates, want)
		}
		for i, tr := range b.Trips {
			if _, ok := base[tr.UUID]; ok != (i < b.Updates) {
				t.Fatalf("%s: trip %d: key in the base %v, want %v", name, i, ok, i < b.Updates)
			}
		}
	}
	if len(d.Upsert1k.Trips) != 1000 || len(d.Upsert100k.Trips) != 100_000 || len(d.Tag.Trips) != 100_000 {
		t.Errorf("batches of %d, %d and %d trips", len(d.Upsert1k.Trips), len(d.Upsert100k.Trips), len(d.Tag.Trips))
	}
	if d.Upsert100k.Inserts() != 97_000 {
		t.Errorf("upsert 100k: %d inserts, want 97000", d.Upsert100k.Inserts())
	}
	for _, tr := range d.Deletes {
		if _, ok := base[tr.UUID]; !ok {
			t.Fatalf("delete of key %s, not in the base", tr.UUID)
		}
	}
	if len(d.Deletes) != 1000 || d.Lookup != d.Base[1500] {
		t.Errorf("%d deletes, lookup %v", len(d.Deletes), d.Lookup)
	}
	if again := NewData(3000); !slices.Equal(again.Tag.Trips, d.Tag.Trips) {
		t.Error("NewData is not deterministic")
	}
}

func TestWriteParquet(t *testing.T) {
	ts := NewData(1000).Base
	dir := t.TempDir()
	files := map[string]int{trips.SanFrancisco: 2, trips.SaoPaulo: 1, trips.Chennai: 3}
	paths, err := WriteParquet(dir, "20240101000000000", ts, files, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 6 {
		t.Fatalf("%d files: %v", len(paths), paths)
	}
	perPartition := map[string]int64{}
	keys := map[string]bool{}
	for _, p := range paths {
		n, err := ParquetRows(p)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := parquet.ReadFile[baseRow](p)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(rows)) != n {
			t.Fatalf("%s: footer states %d rows, read %d", p, n, len(rows))
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		partition := filepath.ToSlash(rel)
		perPartition[partition] += n
		for _, r := range rows {
			if r.PartitionPath != partition || r.PartitionMeta != partition || r.RecordKey != r.UUID ||
				r.FileName != filepath.Base(p) || r.CommitTime != "20240101000000000" {
				t.Fatalf("%s: row %+v", p, r)
			}
			keys[r.UUID] = true
		}
	}
	want := map[string]int64{}
	for _, tr := range ts {
		want[tr.PartitionPath]++
	}
	if !maps.Equal(perPartition, want) || len(keys) != len(ts) {
		t.Errorf("rows per partition %v, want %v; %d keys, want %d", perPartition, want, len(keys), len(ts))
	}
	if _, err := WriteParquet(filepath.Join(dir, "none"), "20240101000000000", ts, map[string]int{trips.Chennai: 1}, 1); err == nil {
		t.Error("no error for partitions without a file count")
	}
	if _, err := ParquetRows(filepath.Join(dir, "missing.parquet")); err == nil {
		t.Error("ParquetRows of a missing file: no error")
	}
}

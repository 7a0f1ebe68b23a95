package write

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

// withSparkMetadataTable gives a table what a Spark write with Hudi's
// defaults leaves: a metadata table folder and its partitions declared in
// hoodie.properties.
func withSparkMetadataTable(t *testing.T, fsys storage.FS) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Extra.Set(keyMetadataPartitions, "files")
	cfg.Extra.Set(keyMetadataPartitionsInflight, "")
	if err := config.Update(ctx, fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{metadataTableFolder + "/.hoodie/hoodie.properties", metadataTableFolder + "/files/files-0000-0_0-1-1_00000000000000010.hfile"} {
		if err := fsys.WriteFile(ctx, name, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
}

// metadataTableState reports whether hoodie.properties declares metadata
// partitions and whether the metadata table folder exists.
func metadataTableState(t *testing.T, fsys storage.FS) (declared, folder bool) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatalf("table unreadable: %v", err)
	}
	p, _ := cfg.Extra.Get(keyMetadataPartitions)
	_, err = fsys.Stat(ctx, metadataTableFolder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return p != "", err == nil
}

// TestWriteDropsSparkMetadataTable: a write into a table with a metadata
// table removes it before committing, so Spark cannot list a stale one.
func TestWriteDropsSparkMetadataTable(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	gen := trips.NewGenerator(1)
	tt.write(OpInsert, tripsInput(gen.Inserts(5)))
	withSparkMetadataTable(t, tt.fsys)
	tt.write(OpUpsert, tripsInput(gen.Inserts(3)))
	if declared, folder := metadataTableState(t, tt.fsys); declared || folder {
		t.Errorf("after the write: partitions declared %v, folder %v; want neither", declared, folder)
	}
}

// TestDropMetadataTableCrash fails every step of the removal in turn: a
// metadata table that readers may use (declared in hoodie.properties) is
// never one that lost files, and the next write finishes the removal.
func TestDropMetadataTableCrash(t *testing.T) {
	ctx := context.Background()
	setup := func() *storage.MemFS {
		mem := newMemTripsTable(t)
		withSparkMetadataTable(t, mem)
		return mem
	}
	load := func(fsys storage.FS) *config.Table {
		cfg, err := config.Load(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	probe := faultfs.New(setup(), 0)
	if _, err := dropMetadataTable(ctx, probe, load(probe), time.Now()); err != nil {
		t.Fatal(err)
	}
	if probe.Steps() < 2 {
		t.Fatalf("the removal took %d steps, want at least 2", probe.Steps())
	}
	for failAt := 1; failAt <= probe.Steps(); failAt++ {
		mem := setup()
		_, err := dropMetadataTable(ctx, faultfs.New(mem, failAt), load(mem), time.Now())
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d: got %v, want the injected failure", failAt, err)
		}
		declared, _ := metadataTableState(t, mem)
		if declared {
			for _, name := range []string{metadataTableFolder + "/.hoodie/hoodie.properties", metadataTableFolder + "/files/files-0000-0_0-1-1_00000000000000010.hfile"} {
				if _, err := mem.Stat(ctx, name); err != nil {
					t.Fatalf("step %d: the metadata table is still declared but lost %s: %v", failAt, name, err)
				}
			}
		}
		if _, err := dropMetadataTable(ctx, mem, load(mem), time.Now()); err != nil {
			t.Fatalf("step %d: removal after the crash: %v", failAt, err)
		}
		if declared, folder := metadataTableState(t, mem); declared || folder {
			t.Fatalf("step %d: after the next removal: declared %v, folder %v", failAt, declared, folder)
		}
	}
}

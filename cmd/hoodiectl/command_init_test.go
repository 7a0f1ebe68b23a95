package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
)

func TestInitCreatesTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	r := hoodiectl(t, "", "init", dir, "--name", "trips", "--record-key", "uuid", "--precombine", "ts",
		"--partition-by", "region,city", "--hive-style").mustSucceed(t)
	if r.stdout == "" {
		t.Error("init printed nothing")
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := storage.LoadTableConfig(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "trips" || !reflect.DeepEqual(cfg.PartitionFields, []string{"region", "city"}) ||
		!cfg.HiveStylePartitioning || cfg.PrecombineField != "ts" || cfg.MergeMode() != storage.MergeEventTime ||
		cfg.KeyGeneratorClass != storage.ComplexKeyGenerator {
		t.Errorf("config %+v", cfg)
	}
	// The timeline of a new table is empty.
	if out := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; out != "" {
		t.Errorf("timeline of a new table: %q", out)
	}
}

func TestInitRefusesExistingTable(t *testing.T) {
	dir := t.TempDir()
	hoodiectl(t, "", "init", dir, "--name", "a", "--record-key", "id").mustSucceed(t)
	before, err := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
	if err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, "", "init", dir, "--name", "b", "--record-key", "id").mustFail(t, exitError, "already exists", "nothing was changed")
	after, _ := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
	if string(before) != string(after) {
		t.Error("a refused init changed hoodie.properties")
	}
}

func TestInitRefusesObjectStoreURL(t *testing.T) {
	hoodiectl(t, "", "init", "s3://bucket/trips", "--name", "a", "--record-key", "id").mustFail(t, exitError, "s3:// paths are not supported")
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

func TestInitCreatesTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	r := hoodiectl(t, "", "init", dir, "--name", "trips", "--record-key", "uuid", "--precombine", "ts",
		"--partition-by", "region,city", "--hive-style").mustSucceed(t)
	if r.stdout == "" {
		t.Error("init printed nothing")
	}
	cfg := loadConfig(t, dir)
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

// TestInitTimelineZoneUTC checks that init says the table's instant times
// are UTC (hoodie.table.timeline.timezone=UTC), so that Spark, whose default
// is its local zone, writes UTC instants to the table too, and that Hoodie's
// writes to it are UTC.
func TestInitTimelineZoneUTC(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	hoodiectl(t, "", "init", dir, "--name", "trips", "--record-key", "id").mustSucceed(t)
	props, err := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(props), "\nhoodie.table.timeline.timezone=UTC\n") {
		t.Fatalf("hoodie.properties lacks hoodie.table.timeline.timezone=UTC:\n%s", props)
	}
	if zone := loadConfig(t, dir).TimelineZone(); zone != storage.TimelineUTC {
		t.Errorf("timeline zone %s, want UTC", zone)
	}
	before := time.Now()
	out := hoodiectl(t, `{"id":"a"}`+"\n", "insert", dir).mustSucceed(t).stdout
	lines := strings.Split(strings.TrimSpace(out), "\n")
	instant := lines[len(lines)-1]
	at, err := timeline.ParseInstantTimeIn(instant, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("instant %s is %v read as UTC, not the time of the write (%v)", instant, at, before.UTC())
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

// TestInitWithoutMetaFields creates a table with --no-meta-fields and
// writes, upserts and reads it through the CLI.
func TestInitWithoutMetaFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	hoodiectl(t, "", "init", dir, "--name", "logs", "--record-key", "id", "--precombine", "ts", "--no-meta-fields").mustSucceed(t)
	cfg := loadConfig(t, dir)
	if cfg.PopulateMetaFields {
		t.Fatalf("%s = true after --no-meta-fields", storage.KeyPopulateMetaFields)
	}
	hoodiectl(t, `{"id":"a","ts":1,"v":"one"}
{"id":"b","ts":1,"v":"two"}
`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"id":"a","ts":2,"v":"uno"}
{"id":"c","ts":2,"v":"tres"}
`, "upsert", dir).mustSucceed(t)
	out := hoodiectl(t, "", "read", dir, "--columns", "id,v", "--format", "csv", "--where", "id IN ('a', 'b', 'c')").mustSucceed(t).stdout
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines[1:])
	if want := []string{"id,v", "a,uno", "b,two", "c,tres"}; !reflect.DeepEqual(lines, want) {
		t.Errorf("read printed %q, want %q", lines, want)
	}
}

// loadConfig reads the hoodie.properties of the table in dir.
func loadConfig(t *testing.T, dir string) *storage.TableConfig {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := storage.LoadTableConfig(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

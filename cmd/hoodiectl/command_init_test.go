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
	"github.com/hoodie-dev/hoodie/storage/config"
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
		!cfg.HiveStylePartitioning || cfg.PrecombineField != "ts" || cfg.MergeMode() != config.MergeEventTime ||
		cfg.KeyGeneratorClass != config.ComplexKeyGenerator {
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
	if zone := loadConfig(t, dir).TimelineZone(); zone != config.TimelineUTC {
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
		t.Fatalf("%s = true after --no-meta-fields", config.KeyPopulateMetaFields)
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
func loadConfig(t *testing.T, dir string) *config.Table {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ordersSchema is an Avro schema with types inference never gives.
const ordersSchema = `{"type":"record","name":"orders","fields":[
 {"name":"id","type":"int"},
 {"name":"ts","type":"long"},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"qty","type":["null","float"],"default":null},
 {"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null}
]}`

// TestInitSchema checks that init --schema gives the table its schema:
// writes take its types, and refuse, with the record, values that do not
// fit them.
func TestInitSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	file := filepath.Join(t.TempDir(), "orders.avsc")
	if err := os.WriteFile(file, []byte(ordersSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, "", "init", dir, "--name", "orders", "--record-key", "id", "--precombine", "ts", "--schema", file).mustSucceed(t)
	if cfg := loadConfig(t, dir); !strings.Contains(cfg.CreateSchema, `"logicalType":"decimal"`) {
		t.Fatalf("hoodie.table.create.schema = %q", cfg.CreateSchema)
	}
	hoodiectl(t, `{"id":1,"ts":5,"price":12.3,"qty":2.5,"day":"2026-11-29"}`+"\n"+`{"id":2,"ts":5,"price":"7"}`, "insert", dir).mustSucceed(t)
	out := hoodiectl(t, "", "query", dir, "select typeof(id) as i, typeof(price) as p, typeof(qty) as q, typeof(day) as d, price from orders order by id", "--format", "csv").mustSucceed(t).stdout
	want := "i,p,q,d,price\nINTEGER,\"DECIMAL(10,2)\",FLOAT,DATE,12.30\nINTEGER,\"DECIMAL(10,2)\",FLOAT,DATE,7.00\n"
	if out != want {
		t.Errorf("query:\n%s\nwant\n%s", out, want)
	}
	hoodiectl(t, `{"id":3,"ts":5,"price":1.234}`, "insert", dir).mustFail(t, exitError, "line 1", `column "price"`, "more than 2 digits after the point")
	hoodiectl(t, `{"id":4,"ts":5}`, "insert", dir).mustFail(t, exitError, "line 1", `column "price" is required`)
	if n := len(readKeys(t, dir)); n != 2 {
		t.Fatalf("%d records after refused writes, want 2", n)
	}

	// A schema that does not fit the table's columns creates nothing.
	refused := []struct {
		name, schema string
		want         string
	}{
		{"no key column", `{"type":"record","name":"r","fields":[{"name":"ts","type":"long"}]}`, `record key column "id" is not in the schema`},
		{"no precombine column", `{"type":"record","name":"r","fields":[{"name":"id","type":"int"}]}`, `precombine column "ts" is not in the schema`},
		{"a string _hoodie_is_deleted", `{"type":"record","name":"r","fields":[{"name":"id","type":"int"},{"name":"ts","type":"long"},{"name":"_hoodie_is_deleted","type":"string"}]}`, "must be a boolean"},
		{"not Avro", `{"type":"record"`, "--schema"},
	}
	for _, tt := range refused {
		if err := os.WriteFile(file, []byte(tt.schema), 0o644); err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(t.TempDir(), "t")
		hoodiectl(t, "", "init", other, "--name", "t", "--record-key", "id", "--precombine", "ts", "--schema", file).mustFail(t, exitError, tt.want)
		if _, err := os.Stat(filepath.Join(other, ".hoodie")); !os.IsNotExist(err) {
			t.Errorf("%s: init left %s/.hoodie: %v", tt.name, other, err)
		}
	}
	hoodiectl(t, "", "init", filepath.Join(t.TempDir(), "t"), "--name", "t", "--record-key", "id", "--schema", filepath.Join(t.TempDir(), "missing.avsc")).mustFail(t, exitError, "missing.avsc")
}

// TestInitInsideATableIsRefused checks that init refuses a folder inside
// another table's folders, its .hoodie folder and links into it included,
// and creates nothing there.
func TestInitInsideATableIsRefused(t *testing.T) {
	root := t.TempDir()
	outer := filepath.Join(root, "trips")
	hoodiectl(t, "", "init", outer, "--name", "trips", "--record-key", "id").mustSucceed(t)
	if err := os.Symlink(outer, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, inner := range []string{
		filepath.Join(outer, "inner"),
		filepath.Join(outer, "a", "b", "c"),
		filepath.Join(outer, ".hoodie"),
		filepath.Join(outer, ".hoodie", "inner"),
		filepath.Join(root, "link", "inner"),
	} {
		hoodiectl(t, "", "init", inner, "--name", "inner", "--record-key", "id").
			mustFail(t, exitError, "hoodiectl: init "+inner+": inside another Hudi table at "+outer, "nothing was changed")
	}
	for _, made := range []string{"inner", "a", filepath.Join(".hoodie", "inner")} {
		if _, err := os.Stat(filepath.Join(outer, made)); !os.IsNotExist(err) {
			t.Errorf("refused init left %s: %v", made, err)
		}
	}
	hoodiectl(t, "", "init", filepath.Join(root, "other"), "--name", "other", "--record-key", "id").mustSucceed(t)
}

// TestInitTimestampKeygen checks init --set: a table of Hudi's
// timestamp-based key generator, its settings kept, whose writes need no
// settings and put records in the folders of their date-times; and the
// settings init refuses, with nothing created.
func TestInitTimestampKeygen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clicks")
	hoodiectl(t, "", "init", dir, "--name", "clicks", "--record-key", "id", "--partition-by", "at",
		"--set", "hoodie.keygen.timebased.timestamp.type=DATE_STRING",
		"--set", "hoodie.keygen.timebased.input.dateformat=yyyy-MM-dd HH:mm:ss",
		"--set", "hoodie.keygen.timebased.output.dateformat=yyyyMMdd",
		"--set", "hoodie.keygen.timebased.timezone=UTC").mustSucceed(t)
	cfg := loadConfig(t, dir)
	if cfg.KeyGeneratorClass != config.TimestampBasedKeyGenerator {
		t.Errorf("key generator %s", cfg.KeyGeneratorClass)
	}
	if v, _ := cfg.Extra.Get("hoodie.keygen.timebased.timestamp.type"); v != "DATE_STRING" {
		t.Errorf("timestamp type %q kept", v)
	}
	hoodiectl(t, `{"id": 1, "at": "2024-01-02 03:04:05"}
{"id": 2, "at": "2024-01-02 23:00:00"}
{"id": 3, "at": "2023-12-31 00:00:00"}
`, "upsert", dir).mustSucceed(t)
	for _, folder := range []string{"20240102", "20231231"} {
		if files, _ := filepath.Glob(filepath.Join(dir, folder, "*.parquet")); len(files) != 1 {
			t.Errorf("folder %s holds %d base files, want 1", folder, len(files))
		}
	}
	hoodiectl(t, `{"id": 4, "at": "2024-01-02"}`+"\n", "upsert", dir).mustFail(t, exitError, `line 1 (key "4"): partition column "at": "2024-01-02" does not match date-time pattern "yyyy-MM-dd HH:mm:ss"`)
	hoodiectl(t, `{"id": 4, "at": "2024-01-02 00:00:00"}`+"\n", "upsert", dir, "--set", "hoodie.keygen.timebased.output.dateformat=yyyy").
		mustFail(t, exitError, "the table has hoodie.keygen.timebased.output.dateformat=yyyyMMdd")

	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"hoodie.keygen.timebased.timestamp.type=DATE_STRING", "hoodie.keygen.timebased.output.dateformat=yyyy GGG"}, `"GGG" is not a pattern letter Hoodie translates`},
		{[]string{"hoodie.keygen.timebased.output.dateformat=yyyy"}, "hoodie.keygen.timebased.timestamp.type is not set"},
		{[]string{"hoodie.keygen.timebased.timestamp.type=UNIX_TIMESTAMP", "hoodie.keygen.timebased.output.dateformat=yyyy", "hoodie.parquet.max.file.size=1"}, "is not a setting of the timestamp-based key generator"},
	} {
		other := filepath.Join(t.TempDir(), "t")
		args := []string{"init", other, "--name", "t", "--record-key", "id", "--partition-by", "at"}
		for _, s := range tt.sets {
			args = append(args, "--set", s)
		}
		hoodiectl(t, "", args...).mustFail(t, exitError, tt.want, "nothing was created")
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Errorf("%v: the folder was created", tt.sets)
		}
	}
}

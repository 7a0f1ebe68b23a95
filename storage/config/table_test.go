package config_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newTripsConfig(t *testing.T) *config.Table {
	t.Helper()
	cfg, err := config.NewTable("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestFixtureTableConfigs(t *testing.T) {
	tests := []struct {
		table      string
		keys       []string
		partitions []string
		keygen     string
		hive       bool
		precombine string
	}{
		{"v6_complexkeygen_hivestyle", []string{"id", "name"}, []string{"byteField", "shortField"}, config.ComplexKeyGenerator, true, "longField"},
		{"v6_empty", []string{"id"}, nil, config.NonpartitionedKeyGenerator, true, ""},
		{"v6_nonpartitioned", []string{"id"}, nil, config.NonpartitionedKeyGenerator, true, "longField"},
		{"v6_simplekeygen_nonhivestyle", []string{"id"}, []string{"byteField"}, config.SimpleKeyGenerator, false, "longField"},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			fsys, err := storage.NewLocalFS(fixtures.Unzip(t, tt.table))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(context.Background(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Name != tt.table || cfg.DatabaseName != "default" || cfg.Type != config.TableTypeCopyOnWrite ||
				cfg.Version != 6 || cfg.TimelineLayoutVersion != 1 || cfg.ArchiveLogFolder != "archived" {
				t.Errorf("unexpected config %+v", cfg)
			}
			if !reflect.DeepEqual(cfg.RecordKeyFields, tt.keys) || !reflect.DeepEqual(cfg.PartitionFields, tt.partitions) {
				t.Errorf("keys %v partitions %v, want %v %v", cfg.RecordKeyFields, cfg.PartitionFields, tt.keys, tt.partitions)
			}
			if cfg.KeyGeneratorClass != tt.keygen || cfg.HiveStylePartitioning != tt.hive || cfg.PrecombineField != tt.precombine {
				t.Errorf("keygen %s hive %v precombine %q", cfg.KeyGeneratorClass, cfg.HiveStylePartitioning, cfg.PrecombineField)
			}
			if !strings.Contains(cfg.CreateSchema, `"type":"record"`) {
				t.Errorf("create schema not unescaped: %.80s", cfg.CreateSchema)
			}
			// Spark 0.14 left hoodie.table.timeline.timezone out: Hudi's
			// default, LOCAL (the instants are CDT wall-clock times).
			if cfg.TimelineTimezone != "" || cfg.TimelineZone() != config.TimelineLocal {
				t.Errorf("timeline zone %q (%s), want absent (LOCAL)", cfg.TimelineTimezone, cfg.TimelineZone())
			}
			if _, ok := cfg.Properties().Get(config.KeyTimelineTimezone); ok {
				t.Errorf("re-rendering added %s to a table without it", config.KeyTimelineTimezone)
			}
			if v, _ := cfg.Extra.Get(config.KeyDropPartitionColumns); v != "" {
				t.Errorf("drop.partition.columns should be typed, found in Extra")
			}
			// Re-rendering keeps the checksum Spark wrote.
			again, err := config.ParseTable(cfg.Marshal(testNow))
			if err != nil {
				t.Fatalf("re-parse: %v", err)
			}
			if again.Checksum() != cfg.Checksum() || again.CreateSchema != cfg.CreateSchema {
				t.Errorf("round trip changed the config")
			}
		})
	}
}

func TestChecksumMatchesHudi(t *testing.T) {
	// Values from hoodie.properties files written by Spark.
	cfg := &config.Table{Name: "v6_simplekeygen_nonhivestyle", DatabaseName: "default"}
	if got := cfg.Checksum(); got != 616688896 {
		t.Errorf("checksum %d, want 616688896", got)
	}
}

func TestNewTableConfigKeyGenerator(t *testing.T) {
	tests := []struct {
		keys, parts []string
		want        string
	}{
		{[]string{"id"}, nil, config.NonpartitionedKeyGenerator},
		{[]string{"id"}, []string{"p"}, config.SimpleKeyGenerator},
		{[]string{"id", "name"}, []string{"p"}, config.ComplexKeyGenerator},
		{[]string{"id"}, []string{"p", "q"}, config.ComplexKeyGenerator},
	}
	for _, tt := range tests {
		cfg, err := config.NewTable("t", tt.keys, "", tt.parts, false, "")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.KeyGeneratorClass != tt.want {
			t.Errorf("keys %v parts %v: got %s, want %s", tt.keys, tt.parts, cfg.KeyGeneratorClass, tt.want)
		}
		if cfg.MergeMode() != config.MergeCommitTime {
			t.Errorf("no precombine must merge by commit time, got %s", cfg.MergeMode())
		}
	}
	if _, err := config.NewTable("t", []string{"id"}, "", nil, false, config.MergeEventTime); err == nil {
		t.Error("event-time without a precombine column was accepted")
	}
	if _, err := config.NewTable("t", []string{"id"}, "ts", nil, false, "latest"); err == nil {
		t.Error("unknown merge mode was accepted")
	}
	if _, err := config.NewTable("", []string{"id"}, "ts", nil, false, ""); err == nil {
		t.Error("empty table name was accepted")
	}
}

func TestLoadTableConfigErrors(t *testing.T) {
	valid := string(newTripsConfigForErrors().Marshal(testNow))
	tests := []struct {
		name    string
		content string
		wantErr string
	}{
		{"wrong checksum", strings.Replace(valid, "hoodie.table.checksum=", "hoodie.table.checksum=1", 1), "checksum mismatch"},
		{"missing checksum", dropLine(valid, "hoodie.table.checksum"), "hoodie.table.checksum is missing"},
		{"unknown version", strings.Replace(valid, "hoodie.table.version=6", "hoodie.table.version=9", 1), "hoodie.table.version 9 is not supported"},
		{"merge on read", strings.Replace(valid, "COPY_ON_WRITE", "MERGE_ON_READ", 1), "MERGE_ON_READ is not supported"},
		{"unknown type", strings.Replace(valid, "COPY_ON_WRITE", "SOMETHING", 1), `"SOMETHING" is not a Hudi table type`},
		{"bad version", strings.Replace(valid, "hoodie.table.version=6", "hoodie.table.version=six", 1), `"six" is not a number`},
		{"no record key", dropLine(valid, "hoodie.table.recordkey.fields"), "needs a record key"},
		{"bad escape", valid + "x=\\u12", `malformed \u escape`},
		{"no key generator", dropLine(valid, "hoodie.table.keygenerator.class"), "hoodie.table.keygenerator.class is missing"},
		{"bad boolean", strings.Replace(valid, "hive_style_partitioning=false", "hive_style_partitioning=maybe", 1), `"maybe" is not true or false`},
		// Hudi's HoodieTimelineTimeZone.valueOf takes only LOCAL and UTC.
		{"lower-case timeline zone", strings.Replace(valid, "timeline.timezone=UTC", "timeline.timezone=utc", 1), `hoodie.table.timeline.timezone "utc" is not a timeline zone`},
		{"unknown timeline zone", strings.Replace(valid, "timeline.timezone=UTC", "timeline.timezone=America/Chicago", 1), `"America/Chicago" is not a timeline zone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fsys := storage.NewMemFS()
			if err := fsys.WriteFile(ctx, storage.PropertiesFile, []byte(tt.content)); err != nil {
				t.Fatal(err)
			}
			_, err := config.Load(ctx, fsys)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), storage.PropertiesFile) {
				t.Fatalf("got %v, want an error naming %s and containing %q", err, storage.PropertiesFile, tt.wantErr)
			}
		})
	}
}

func newTripsConfigForErrors() *config.Table {
	cfg, _ := config.NewTable("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, config.MergeEventTime)
	return cfg
}

func dropLine(s, prefix string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, prefix) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func TestLoadMissingTable(t *testing.T) {
	_, err := config.Load(context.Background(), storage.NewMemFS())
	if !errors.Is(err, config.ErrNotATable) {
		t.Fatalf("got %v, want ErrNotATable", err)
	}
}

func TestCreateTable(t *testing.T) {
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := newTripsConfig(t)
	if err := config.CreateTable(ctx, fsys, cfg, testNow); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".hoodie/.temp", ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.schema", ".hoodie/archived"} {
		if fi, err := fsys.Stat(ctx, dir); err != nil || !fi.IsDir {
			t.Errorf("folder %s: %v", dir, err)
		}
	}
	got, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "trips" || got.MergeMode() != config.MergeEventTime || got.PayloadClass != config.EventTimePayload {
		t.Errorf("loaded %+v", got)
	}
	before, _ := fsys.ReadFile(ctx, storage.PropertiesFile)
	err = config.CreateTable(ctx, fsys, newTripsConfig(t), testNow.Add(time.Hour))
	if !errors.Is(err, config.ErrTableExists) {
		t.Fatalf("second create: got %v, want ErrTableExists", err)
	}
	after, _ := fsys.ReadFile(ctx, storage.PropertiesFile)
	if string(before) != string(after) {
		t.Error("a refused create modified hoodie.properties")
	}
}

// TestUpdateTableConfigCrash fails every step of a config update in turn and
// checks that the table always loads, as either the old or the new config.
func TestUpdateTableConfigCrash(t *testing.T) {
	ctx := context.Background()
	setup := func() *storage.MemFS {
		mem := storage.NewMemFS()
		if err := config.CreateTable(ctx, mem, newTripsConfig(t), testNow); err != nil {
			t.Fatal(err)
		}
		return mem
	}
	updated := newTripsConfig(t)
	updated.CreateSchema = `{"type":"record","name":"trips_record","fields":[]}`

	probe := faultfs.New(setup(), 0)
	if err := config.Update(ctx, probe, updated, testNow); err != nil {
		t.Fatal(err)
	}
	steps := probe.Steps()
	if steps < 3 {
		t.Fatalf("update took %d steps, want at least 3 (backup, replace, remove backup)", steps)
	}
	for failAt := 1; failAt <= steps; failAt++ {
		mem := setup()
		err := config.Update(ctx, faultfs.New(mem, failAt), updated, testNow)
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("step %d: got %v, want the injected failure", failAt, err)
		}
		cfg, err := config.Load(ctx, mem)
		if err != nil {
			t.Fatalf("step %d: table unreadable after crash: %v", failAt, err)
		}
		if cfg.CreateSchema != "" && cfg.CreateSchema != updated.CreateSchema {
			t.Fatalf("step %d: config is neither old nor new: %q", failAt, cfg.CreateSchema)
		}
		// The next update recovers and succeeds.
		if err := config.Update(ctx, mem, updated, testNow); err != nil {
			t.Fatalf("step %d: update after crash: %v", failAt, err)
		}
		if _, err := mem.Stat(ctx, storage.PropertiesBackupFile); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("step %d: backup left behind after a successful update", failAt)
		}
	}
}

// TestUpdateTableConfigRemovesHadoopChecksums checks that an update removes
// the .crc files Spark's Hadoop file system leaves beside hoodie.properties:
// once the file changes they no longer match it, and Hudi then refuses to
// load the table.
func TestUpdateTableConfigRemovesHadoopChecksums(t *testing.T) {
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(ctx, fsys, newTripsConfig(t), testNow); err != nil {
		t.Fatal(err)
	}
	crcs := []string{".hoodie/.hoodie.properties.crc", ".hoodie/.hoodie.properties.backup.crc"}
	for _, name := range crcs {
		if err := fsys.WriteFile(ctx, name, []byte("crc\x00\x00\x00\x02\x00stale")); err != nil {
			t.Fatal(err)
		}
	}
	updated := newTripsConfig(t)
	updated.CreateSchema = `{"type":"record","name":"trips_record","fields":[]}`
	if err := config.Update(ctx, fsys, updated, testNow); err != nil {
		t.Fatal(err)
	}
	for _, name := range crcs {
		if _, err := fsys.Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: got %v, want it removed", name, err)
		}
	}
	if got := config.HadoopChecksumFile(storage.PropertiesFile); got != crcs[0] {
		t.Errorf("HadoopChecksumFile(%q) = %q, want %q", storage.PropertiesFile, got, crcs[0])
	}
	// A table without them updates as before.
	if err := config.Update(ctx, fsys, updated, testNow); err != nil {
		t.Fatal(err)
	}
}

// TestCreateTableCrash fails every step of a table creation in turn: the
// table either does not exist or loads, and creation can be run again.
func TestCreateTableCrash(t *testing.T) {
	ctx := context.Background()
	probe := faultfs.New(storage.NewMemFS(), 0)
	if err := config.CreateTable(ctx, probe, newTripsConfig(t), testNow); err != nil {
		t.Fatal(err)
	}
	for failAt := 1; failAt <= probe.Steps(); failAt++ {
		mem := storage.NewMemFS()
		if err := config.CreateTable(ctx, faultfs.New(mem, failAt), newTripsConfig(t), testNow); err == nil {
			t.Fatalf("step %d: no error", failAt)
		}
		if _, err := config.Load(ctx, mem); !errors.Is(err, config.ErrNotATable) {
			t.Fatalf("step %d: got %v, want no table", failAt, err)
		}
		if err := config.CreateTable(ctx, mem, newTripsConfig(t), testNow); err != nil {
			t.Fatalf("step %d: create after crash: %v", failAt, err)
		}
	}
}

func TestLoadFallsBackToBackup(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemFS()
	cfg := newTripsConfig(t)
	if err := mem.WriteFile(ctx, storage.PropertiesBackupFile, cfg.Marshal(testNow)); err != nil {
		t.Fatal(err)
	}
	// A primary file a crashed non-atomic writer left half written.
	if err := mem.WriteFile(ctx, storage.PropertiesFile, cfg.Marshal(testNow)[:40]); err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "trips" {
		t.Errorf("got %q", got.Name)
	}
}

func FuzzParseTableConfig(f *testing.F) {
	f.Add(newTripsConfigForErrors().Marshal(testNow))
	f.Add([]byte("hoodie.table.name=x\nhoodie.table.checksum=1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.ParseTable(data)
		if err != nil {
			return
		}
		again, err := config.ParseTable(cfg.Marshal(testNow))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !reflect.DeepEqual(again.Properties().Marshal(), cfg.Properties().Marshal()) {
			t.Fatalf("round trip changed the config")
		}
	})
}

// TestTimelineTimezone reads hoodie.table.timeline.timezone: absent means
// LOCAL, Hudi's default, and stays absent when the file is written back.
func TestTimelineTimezone(t *testing.T) {
	valid := string(newTripsConfigForErrors().Marshal(testNow))
	local := time.FixedZone("CDT", -5*3600)
	tests := []struct {
		name     string
		content  string
		field    config.TimelineTimezone
		zone     config.TimelineTimezone
		location *time.Location
	}{
		{"UTC", valid, config.TimelineUTC, config.TimelineUTC, time.UTC},
		{"LOCAL", strings.Replace(valid, "timeline.timezone=UTC", "timeline.timezone=LOCAL", 1), config.TimelineLocal, config.TimelineLocal, local},
		{"absent", dropLine(valid, config.KeyTimelineTimezone), "", config.TimelineLocal, local},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.ParseTable([]byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.TimelineTimezone != tt.field || cfg.TimelineZone() != tt.zone {
				t.Errorf("TimelineTimezone %q, TimelineZone %q; want %q, %q", cfg.TimelineTimezone, cfg.TimelineZone(), tt.field, tt.zone)
			}
			if got := cfg.TimelineZone().Location(local); got != tt.location {
				t.Errorf("Location = %v, want %v", got, tt.location)
			}
			v, ok := cfg.Properties().Get(config.KeyTimelineTimezone)
			if v != string(tt.field) || ok != (tt.field != "") {
				t.Errorf("written back as %q (present %v), want %q", v, ok, tt.field)
			}
			if _, ok := cfg.Extra.Get(config.KeyTimelineTimezone); ok {
				t.Errorf("%s left in Extra", config.KeyTimelineTimezone)
			}
		})
	}
	if got := config.TimelineLocal.Location(nil); got != time.Local {
		t.Errorf("TimelineLocal.Location(nil) = %v, want time.Local", got)
	}
}

// TestCreateTableTimelineZone checks that a table Hoodie creates says its
// instant times are UTC, so Spark makes UTC instants on it too, and that an
// explicit LOCAL is kept.
func TestCreateTableTimelineZone(t *testing.T) {
	tests := []struct {
		name string
		zone config.TimelineTimezone
		want string
	}{
		{"NewTable's zone", config.TimelineUTC, "UTC"},
		{"zone left unset", "", "UTC"},
		{"explicit LOCAL", config.TimelineLocal, "LOCAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fsys, err := storage.NewLocalFS(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cfg := newTripsConfig(t)
			cfg.TimelineTimezone = tt.zone
			if err := config.CreateTable(ctx, fsys, cfg, testNow); err != nil {
				t.Fatal(err)
			}
			if cfg.TimelineTimezone != tt.zone {
				t.Errorf("CreateTable changed the caller's config to %q", cfg.TimelineTimezone)
			}
			data, err := fsys.ReadFile(ctx, storage.PropertiesFile)
			if err != nil {
				t.Fatal(err)
			}
			if line := config.KeyTimelineTimezone + "=" + tt.want + "\n"; !strings.Contains(string(data), line) {
				t.Errorf("hoodie.properties lacks %q:\n%s", line, data)
			}
		})
	}
}

// TestCreateTableInsideATable checks that a table is not created below
// another table's base path; a folder beside it is fine.
func TestCreateTableInsideATable(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	create := func(dir string) error {
		fsys, err := storage.NewLocalFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		return config.CreateTable(ctx, fsys, newTripsConfig(t), testNow)
	}
	if err := create(filepath.Join(root, "outer")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"outer/x", "outer/.hoodie", "outer/.hoodie/.temp/x", "outer/2024/01/01"} {
		err := create(filepath.Join(root, dir))
		if !errors.Is(err, config.ErrInsideTable) || !strings.Contains(err.Error(), filepath.Join(root, "outer")) {
			t.Errorf("create %s: %v, want ErrInsideTable naming the outer table", dir, err)
		}
	}
	if err := create(filepath.Join(root, "beside")); err != nil {
		t.Errorf("create beside a table: %v", err)
	}
}

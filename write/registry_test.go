package write

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TestSettingKinds checks what ParseSettings does with the keys users copy
// from Hudi's docs: honoured and ignored ones pass, refused ones fail naming
// the key, unless their value asks for what Hoodie does anyway.
func TestSettingKinds(t *testing.T) {
	tests := []struct {
		key, value string
		want       string // "" when accepted; else a part of the error
	}{
		{"hoodie.upsert.shuffle.parallelism", "200", ""},
		{"hoodie.insert.shuffle.parallelism", "2", ""},
		{"hoodie.cleaner.parallelism", "2", ""},
		{"hoodie.memory.merge.max.size", "1073741824", ""},
		{"hoodie.embed.timeline.server", "false", ""},
		{"hoodie.datasource.hive_sync.database", "default", ""},
		{"hoodie.write.lock.zookeeper.url", "zk", ""},
		{"hoodie.compact.inline", "true", ""},
		{"hoodie.datasource.write.operation", "upsert", ""},
		{"hoodie.datasource.write.operation", "insert_overwrite_table", ""}, // checked against the command when the write runs
		{"hoodie.datasource.write.operation", "bootstrap", "hoodie.datasource.write.operation=\"bootstrap\": want insert, bulk_insert, upsert, delete, insert_overwrite, insert_overwrite_table or delete_partition"},
		{"hoodie.datasource.write.payload.class", config.CommitTimePayload, ""},
		{"hoodie.datasource.write.payload.class", "org.apache.hudi.common.model.PartialUpdateAvroPayload", "PartialUpdateAvroPayload\": want org.apache.hudi.common.model.DefaultHoodieRecordPayload"},
		{"hoodie.compaction.payload.class", "org.apache.hudi.common.model.OverwriteNonDefaultsWithLatestAvroPayload", "hoodie.compaction.payload.class"},
		{"hoodie.clean.automatic", "false", ""},
		{"hoodie.clean.automatic", "true", ""},
		{"hoodie.clean.automatic", "sometimes", `hoodie.clean.automatic="sometimes": want true or false`},
		{"hoodie.cleaner.commits.retained", "5", ""},
		{"hoodie.cleaner.commits.retained", "-1", "hoodie.cleaner.commits.retained=\"-1\": want a whole number of commits from 0 to 1000000"},
		{"hoodie.cleaner.policy", "keep_latest_file_versions", ""},
		{"hoodie.cleaner.policy", "KEEP_NOTHING", "want KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_BY_HOURS"},
		{"hoodie.clean.trigger.strategy", "NUM_COMMITS", ""},
		{"hoodie.clean.trigger.strategy", "HOURLY", "want NUM_COMMITS"},
		{"hoodie.clean.async", "true", "hoodie.clean.async=true is refused: Hoodie cleans inline"},
		{"hoodie.cleaner.incremental.mode", "false", ""},
		{"hoodie.clean.some.future.knob", "1", "hoodie.clean.some.future.knob=1 is refused: a cleaner setting Hoodie does not implement"},
		{"hoodie.table.services.enabled", "false", ""},
		{"hoodie.cleaner.policy.failed.writes", "eager", ""},
		{"hoodie.cleaner.policy.failed.writes", "LAZY", "hoodie.cleaner.policy.failed.writes=LAZY is refused"},
		{"hoodie.keep.min.commits", "20", ""},
		{"hoodie.keep.min.commits", "0", "hoodie.keep.min.commits"},
		{"hoodie.archive.beyond.savepoint", "true", "hoodie.archive.beyond.savepoint=true is refused: Hoodie never archives past the oldest savepoint"},
		{"hoodie.archive.automatic", "false", ""},
		{"hoodie.archive.merge.enable", "true", "hoodie.archive.merge.enable=true is refused"},
		{"hoodie.clustering.inline", "false", ""},
		{"hoodie.clustering.inline", "true", "hoodie.clustering.inline=true is refused"},
		{"hoodie.clustering.plan.strategy.sort.columns", "ts", ""},
		{"hoodie.clustering.plan.strategy.max.num.groups", "0", "hoodie.clustering.plan.strategy.max.num.groups=\"0\": want a whole number of groups from 1"},
		{"hoodie.clustering.plan.strategy.single.group.clustering.enabled", "true", "is refused: Hoodie's clustering has Hudi's size-based plan strategy"},
		{"hoodie.metadata.enable", "false", ""},
		{"hoodie.metadata.enable", "true", "hoodie.metadata.enable=true is refused: Hoodie does not write Hudi's metadata table"},
		{"hoodie.metadata.record.index.enable", "true", "hoodie.metadata.record.index.enable=true is refused"},
		{"hoodie.index.type", "GLOBAL_BLOOM", ""},
		{"hoodie.index.type", "BLOOM", "hoodie.index.type=BLOOM is refused: Hoodie's record index is global"},
		{"hoodie.index.type", "BUCKET", "hoodie.index.type=BUCKET is refused"},
		{"hoodie.simple.index.update.partition.path", "false", "hoodie.simple.index.update.partition.path=false is refused"},
		{"hoodie.write.concurrency.mode", "single_writer", ""},
		{"hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL", "hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL is refused"},
		{"hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.InProcessLockProvider", "hoodie.write.lock.provider="},
		{"hoodie.datasource.hive_sync.enable", "true", "hoodie.datasource.hive_sync.enable=true is refused"},
		{"hoodie.write.commit.callback.on", "true", "hoodie.write.commit.callback.on=true is refused"},
		{"hoodie.combine.before.insert", "false", "hoodie.combine.before.insert=false is refused"},
		{"hoodie.bootstrap.base.path", "/data", "hoodie.bootstrap.base.path=/data is refused"},
		{"hoodie.keygen.timebased.timestamp.type", "EPOCHMILLISECONDS", ""}, // checked against the table when the write runs
		{"hoodie.keygen.timebased.timestamp.type", "epochmilliseconds", "want UNIX_TIMESTAMP"},
		{"hoodie.keygen.timebased.output.dateformat", "yyyy/MM/dd GGG", `"GGG" is not a pattern letter Hoodie translates`},
		{"hoodie.keygen.timebased.timezone", "PST", `zone "PST" is not one Hoodie resolves as Java does`},
		{"hoodie.keygen.datetime.parser.class", "com.acme.Parser", "want org.apache.hudi.keygen.parser.HoodieDateTimeParser"},
		{"hoodie.keygen.custom.field", "x", "is refused"},
		{"hoodie.datasource.write.recordkey.field", "uuid", ""},
		{"hoodie.table.type", "MERGE_ON_READ", ""}, // checked against the table when the write runs
		{"hoodie.datasource.write.precombine.feild", "ts", "(did you mean hoodie.datasource.write.precombine.field?)"},
		{"hoodie.datasource.write.partitionpath.fields", "city", "did you mean hoodie.datasource.write.partitionpath.field?"},
	}
	for _, tt := range tests {
		props := config.NewProperties()
		props.Set(tt.key, tt.value)
		_, err := ParseSettings(props)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s=%s: %v, want it accepted", tt.key, tt.value, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s=%s: %v, want an error with %q", tt.key, tt.value, err, tt.want)
		}
	}
}

// TestRegistryDeclarations checks the registry itself: defaults that parse,
// refused settings whose default is accepted, a doc for every key, and
// docs/cli.md naming every key.
func TestRegistryDeclarations(t *testing.T) {
	docs, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range SettingsRegistry() {
		if s.Doc == "" {
			t.Errorf("%s has no doc", s.Key)
		}
		if s.Kind == Refused && s.Default != "" && !slices.ContainsFunc(s.Accepted, func(a string) bool { return strings.EqualFold(a, s.Default) }) {
			t.Errorf("%s: default %s is refused", s.Key, s.Default)
		}
		if s.parse != nil && s.Default != "" {
			if err := s.parse(&Settings{}, s.Default); err != nil {
				t.Errorf("%s: default %s: %v", s.Key, s.Default, err)
			}
		}
		name := s.Key
		if name == parallelismFamily {
			name = "hoodie.*.parallelism"
		} else if s.family() {
			name += "*"
		}
		if !strings.Contains(string(docs), "`"+name+"`") {
			t.Errorf("docs/cli.md does not list `%s`", name)
		}
		if got, ok := LookupSetting(s.Key + "x"); s.family() && s.Key != parallelismFamily && (!ok || got.Key != s.Key) {
			t.Errorf("a key of family %s finds %q", s.Key, got.Key)
		}
	}
}

// TestWriteRefusesSettingsThatDisagree checks the settings a write checks
// against its operation and table: one that disagrees refuses the write
// before anything is written; one that agrees lets it commit.
func TestWriteRefusesSettingsThatDisagree(t *testing.T) {
	tests := []struct {
		key, value string
		op         Operation
		want       string // "" when the write commits
	}{
		{KeyOperation, "upsert", OpUpsert, ""},
		{KeyOperation, "upsert", OpSoftDelete, ""},
		{KeyOperation, "BULK_INSERT", OpBulkInsert, ""},
		{KeyOperation, "insert", OpUpsert, "hoodie.datasource.write.operation=insert is refused: this write is upsert, whose operation is upsert"},
		{"hoodie.datasource.write.recordkey.field", "uuid", OpUpsert, ""},
		{"hoodie.datasource.write.recordkey.field", "id", OpUpsert, "hoodie.datasource.write.recordkey.field=id is refused: the table has hoodie.table.recordkey.fields=uuid"},
		{"hoodie.datasource.write.partitionpath.field", "city", OpInsert, "the table has hoodie.table.partition.fields=partitionpath"},
		{"hoodie.datasource.write.precombine.field", "ts", OpInsert, ""},
		{"hoodie.datasource.write.precombine.field", "fare", OpInsert, "the table has hoodie.table.precombine.field=ts"},
		{"hoodie.payload.ordering.field", "fare", OpUpsert, "hoodie.payload.ordering.field=fare is refused"},
		{"hoodie.datasource.write.table.type", "COPY_ON_WRITE", OpUpsert, ""},
		{"hoodie.datasource.write.table.type", "MERGE_ON_READ", OpUpsert, "the table has hoodie.table.type=COPY_ON_WRITE"},
		{"hoodie.table.type", "MERGE_ON_READ", OpUpsert, "hoodie.table.type=MERGE_ON_READ is refused"},
		{"hoodie.table.cdc.enabled", "true", OpUpsert, "hoodie.table.cdc.enabled=true is refused"},
		{"hoodie.datasource.write.keygenerator.class", config.SimpleKeyGenerator, OpUpsert, ""},
		{"hoodie.datasource.write.keygenerator.class", config.ComplexKeyGenerator, OpUpsert, "the table has hoodie.table.keygenerator.class=" + config.SimpleKeyGenerator},
		{"hoodie.datasource.write.keygenerator.type", "SIMPLE", OpUpsert, ""},
		{"hoodie.datasource.write.keygenerator.type", "COMPLEX", OpUpsert, "hoodie.datasource.write.keygenerator.type=COMPLEX is refused"},
		{"hoodie.datasource.write.hive_style_partitioning", "true", OpUpsert, "the table has hoodie.datasource.write.hive_style_partitioning=false"},
		{"hoodie.table.name", "trips", OpUpsert, ""},
		{"hoodie.datasource.write.table.name", "rides", OpUpsert, "the table has hoodie.table.name=trips"},
		{"hoodie.archivelog.folder", "archived", OpUpsert, ""},
		{"hoodie.timeline.layout.version", "2", OpUpsert, "the table has hoodie.timeline.layout.version=1"},
		{KeyPayloadClass, config.EventTimePayload, OpUpsert, ""},
		{KeyPayloadClass, config.CommitTimePayload, OpUpsert, "the table's merge mode is event-time"},
		// A Go caller may fill Props without ParseSettings: the write
		// checks them too.
		{"hoodie.clean.async", "true", OpUpsert, "hoodie.clean.async=true is refused"},
		{"hoodie.parquet.max.filesize", "5", OpUpsert, "did you mean hoodie.parquet.max.file.size?"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value+"/"+tt.op.String(), func(t *testing.T) {
			settings := DefaultSettings()
			settings.Props.Set(tt.key, tt.value)
			table := newTripsTable(t, config.MergeEventTime, settings)
			in := tripsInput(trips.NewGenerator(1).Inserts(5))
			if tt.op == OpSoftDelete {
				newTestWriter(table.fsys, table.dir, DefaultSettings()).Write(context.Background(), OpInsert, in)
			}
			_, err := table.w.Write(context.Background(), tt.op, in)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("write refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("write: %v, want an error with %q", err, tt.want)
			}
			tl, err := timeline.Load(context.Background(), table.fsys)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tl.Instants()); n != 0 {
				t.Errorf("the refused write left %d instant(s)", n)
			}
		})
	}
}

// TestSeveralSettingProblems checks that several problems make one error
// that names every key, grouped by problem.
func TestSeveralSettingProblems(t *testing.T) {
	props := config.NewProperties()
	props.Set("hoodie.clean.async", "true")
	props.Set("hoodie.parquet.max.filesize", "5")
	props.Set(KeyMaxFileSize, "1")
	props.Set("hoodie.metadata.enable", "true")
	_, err := ParseSettings(props)
	want := `write settings: 4 refused; Hoodie does not do what these ask (docs/cli.md says why; remove them): hoodie.clean.async, hoodie.metadata.enable; ` +
		`unknown keys: hoodie.parquet.max.filesize (did you mean hoodie.parquet.max.file.size?); ` +
		`impossible values: hoodie.parquet.max.file.size="1": want a whole number of bytes from 1048576 to 1099511627776`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// TestTableSettingsAgreeTogether checks several hoodie.table.* keys in one
// write, each compared with its own value in hoodie.properties.
func TestTableSettingsAgreeTogether(t *testing.T) {
	settings := DefaultSettings()
	settings.Props.Set("hoodie.table.type", "COPY_ON_WRITE")
	settings.Props.Set("hoodie.table.precombine.field", "ts")
	settings.Props.Set("hoodie.table.recordkey.fields", "uuid")
	table := newTripsTable(t, config.MergeEventTime, settings)
	table.write(OpInsert, tripsInput(trips.NewGenerator(1).Inserts(3)))
}

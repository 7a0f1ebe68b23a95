package timeline

import (
	"reflect"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
)

func TestCleanerPlanRoundTrip(t *testing.T) {
	plan := &CleanerPlan{
		EarliestInstantToRetain: Instant{Time: "20240101000000005", Action: ActionCommit, State: StateCompleted},
		LastCompletedCommit:     "20240101000000009",
		Policy:                  "KEEP_LATEST_COMMITS",
		FilesToDelete: map[string][]string{
			"p=1": {"p=1/f1_0-1-1_20240101000000001.parquet"},
			"p=2": {},
		},
		PartitionsToDelete: []string{},
		Extra:              map[string]string{SavepointedTimestampsKey: "20240101000000002"},
	}
	data, err := MarshalCleanerPlan(plan, "file:/data/t")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCleanerPlan(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, plan) {
		t.Errorf("got  %+v\nwant %+v", got, plan)
	}
	if got.FileCount() != 1 {
		t.Errorf("FileCount %d, want 1", got.FileCount())
	}
}

func TestCleanMetadataRoundTrip(t *testing.T) {
	meta := &CleanMetadata{
		StartCleanTime: "20240101000000010", TimeTakenMillis: 12, TotalFilesDeleted: 1,
		EarliestCommitToRetain: "20240101000000005", LastCompletedCommit: "20240101000000009",
		Partitions: map[string]CleanPartitionMetadata{
			"p=1": {Partition: "p=1", Policy: "KEEP_LATEST_COMMITS", DeletePatterns: []string{"a.parquet", "b.parquet"}, Deleted: []string{"a.parquet"}, Failed: []string{"b.parquet"}},
		},
		Extra: map[string]string{},
	}
	data, err := MarshalCleanMetadata(meta)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCleanMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, meta) {
		t.Errorf("got  %+v\nwant %+v", got, meta)
	}
}

func TestSavepointMetadataRoundTrip(t *testing.T) {
	meta := &SavepointMetadata{By: "hoodie", At: time.UnixMilli(1700000000123).UTC(), Comment: "before the migration",
		Files: map[string][]string{"p=1": {"f1_0-1-1_20240101000000001.parquet"}, "p=2": {}}}
	data, err := MarshalSavepointMetadata(meta)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSavepointMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, meta) {
		t.Errorf("got  %+v\nwant %+v", got, meta)
	}
}

// TestParseCleanerPlanVersion1 reads a plan of Hudi's version 1, which
// names the files to delete within their partition.
func TestParseCleanerPlanVersion1(t *testing.T) {
	schema := avro.MustParse(`{"type":"record","name":"HoodieCleanerPlan","namespace":"org.apache.hudi.avro.model","fields":[
{"name":"earliestInstantToRetain","type":["null",{"type":"record","name":"HoodieActionInstant","fields":[
 {"name":"timestamp","type":"string"},{"name":"action","type":"string"},{"name":"state","type":"string"}]}],"default":null},
{"name":"policy","type":"string"},
{"name":"filesToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":"string"}}],"default":null},
{"name":"version","type":["int","null"],"default":1}]}`)
	data, err := encodeAvro(schema, map[string]any{
		"earliestInstantToRetain":      map[string]any{"org.apache.hudi.avro.model.HoodieActionInstant": map[string]any{"timestamp": "20240101000000005", "action": "commit", "state": "COMPLETED"}},
		"policy":                       "KEEP_LATEST_COMMITS",
		"filesToBeDeletedPerPartition": map[string]any{"map": map[string]any{"p=1": []any{"f1_0-1-1_20240101000000001.parquet"}}},
		"version":                      map[string]any{"int": int32(1)},
	}, "plan")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCleanerPlan(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"p=1": {"p=1/f1_0-1-1_20240101000000001.parquet"}}
	if got.EarliestInstantToRetain.Time != "20240101000000005" || !reflect.DeepEqual(got.FilesToDelete, want) {
		t.Errorf("got %+v", got)
	}
}

package timeline

import (
	"reflect"
	"testing"
	"time"
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

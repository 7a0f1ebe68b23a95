package avrofiletest

import (
	"bytes"
	"testing"

	"github.com/hamba/avro/v2/ocf"
)

// CleanMetadataSchema is the layout of Hudi's HoodieCleanMetadata (part of
// its fields), the content of a completed clean instant.
const CleanMetadataSchema = `{"type":"record","name":"HoodieCleanMetadata","namespace":"org.apache.hudi.avro.model","fields":[
 {"name":"startCleanTime","type":"string"},{"name":"timeTakenInMillis","type":"long"},{"name":"totalFilesDeleted","type":"int"},
 {"name":"earliestCommitToRetain","type":"string"},{"name":"lastCompletedCommitTimestamp","type":"string","default":""},
 {"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieCleanPartitionMetadata","fields":[
  {"name":"partitionPath","type":"string"},{"name":"policy","type":"string"},{"name":"deletePathPatterns","type":{"type":"array","items":"string"}},
  {"name":"successDeleteFiles","type":{"type":"array","items":"string"}},{"name":"failedDeleteFiles","type":{"type":"array","items":"string"}},
  {"name":"isPartitionDeleted","type":["null","boolean"],"default":null}]}}},
 {"name":"version","type":["int","null"],"default":1}]}`

// CleanMetadata returns the content of a completed clean instant of time
// cleanTime that retains the commits from earliestCommitToRetain on, and
// deleted one file of partition p1.
func CleanMetadata(t testing.TB, cleanTime, earliestCommitToRetain string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(CleanMetadataSchema, &buf)
	if err != nil {
		t.Fatal(err)
	}
	err = enc.Encode(map[string]any{
		"startCleanTime": cleanTime, "timeTakenInMillis": int64(12), "totalFilesDeleted": int32(1),
		"earliestCommitToRetain": earliestCommitToRetain, "lastCompletedCommitTimestamp": earliestCommitToRetain,
		"partitionMetadata": map[string]any{"p1": map[string]any{"partitionPath": "p1", "policy": "KEEP_LATEST_COMMITS",
			"deletePathPatterns": []any{"a.parquet"}, "successDeleteFiles": []any{"a.parquet"}, "failedDeleteFiles": []any{}, "isPartitionDeleted": map[string]any{"boolean": false}}},
		"version": map[string]any{"int": int32(2)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

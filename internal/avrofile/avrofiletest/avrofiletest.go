// Package avrofiletest writes Avro object container files for tests, with
// hamba/avro, an encoder independent of package avrofile's decoder: in
// particular the requested replacecommit files of Hudi's clustering.
package avrofiletest

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/flate"
)

// RequestedReplaceSchema is the layout of Hudi's HoodieRequestedReplaceMetadata
// (part of its fields), without the clustering plan's default null, which
// Hudi gives although it is not of the union's first branch and strict Avro
// libraries, hamba/avro among them, refuse it.
const RequestedReplaceSchema = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieRequestedReplaceMetadata","fields":[
 {"name":"operationType","type":["null","string"],"default":null},
 {"name":"clusteringPlan","type":[{"type":"record","name":"HoodieClusteringPlan","fields":[
   {"name":"inputGroups","type":["null",{"type":"array","items":{"type":"record","name":"HoodieClusteringGroup","fields":[
     {"name":"slices","type":["null",{"type":"array","items":{"type":"record","name":"HoodieSliceInfo","fields":[
       {"name":"dataFilePath","type":["null","string"],"default":null},
       {"name":"fileId","type":["null","string"]},
       {"name":"partitionPath","type":["null","string"],"default":null}]}}],"default":null},
     {"name":"metrics","type":["null",{"type":"map","values":"double"}],"default":null},
     {"name":"numOutputFileGroups","type":["int","null"],"default":1}]}}],"default":null},
   {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
   {"name":"digest","type":{"type":"fixed","name":"Digest","size":4}},
   {"name":"ratio","type":"float"},
   {"name":"flag","type":"boolean"}]},"null"]},
 {"name":"extraMetadata","type":["null",{"type":"map","values":"string"}],"default":null},
 {"name":"version","type":["int","null"],"default":1}]}`

// HudiRequestedReplaceSchema is RequestedReplaceSchema as Hudi writes it,
// with the clustering plan's default null.
var HudiRequestedReplaceSchema = strings.Replace(RequestedReplaceSchema,
	`{"name":"flag","type":"boolean"}]},"null"]}`, `{"name":"flag","type":"boolean"}]},"null"],"default":null}`, 1)

// Slice is a file slice of a clustering plan.
type Slice struct {
	Partition, FileID string
}

// RequestedReplace returns a value of RequestedReplaceSchema, in the form
// hamba/avro takes, holding a clustering plan of one input group per entry
// of groups, or no plan for nil groups (an insert overwrite).
func RequestedReplace(groups [][]Slice) map[string]any {
	v := map[string]any{"operationType": "CLUSTER", "extraMetadata": map[string]any{"map": map[string]any{"k": "v"}}, "version": int32(1)}
	if groups == nil {
		v["operationType"], v["clusteringPlan"] = "INSERT_OVERWRITE", nil
		return v
	}
	var inputs []any
	for _, g := range groups {
		var slices []any
		for _, s := range g {
			slices = append(slices, map[string]any{"dataFilePath": s.Partition + "/" + s.FileID + "_0-1-1_20240101000000000.parquet", "fileId": s.FileID, "partitionPath": s.Partition})
		}
		inputs = append(inputs, map[string]any{"slices": slices, "metrics": map[string]any{"map": map[string]any{"TOTAL_IO": 1.5}}, "numOutputFileGroups": int32(1)})
	}
	v["clusteringPlan"] = map[string]any{"org.apache.hudi.avro.model.HoodieClusteringPlan": map[string]any{
		"inputGroups": inputs, "kind": "B", "digest": [4]byte{1, 2, 3, 4}, "ratio": float32(0.25), "flag": true,
	}}
	return v
}

// ContainerFile returns an object container file of one block holding
// objects of RequestedReplaceSchema, with schema as the file's schema text
// and the codec ("null" or "deflate"; another is only named).
func ContainerFile(t testing.TB, schema, codec string, objects ...any) []byte {
	t.Helper()
	valid := avro.MustParse(RequestedReplaceSchema)
	var block []byte
	for _, o := range objects {
		b, err := avro.Marshal(valid, o)
		if err != nil {
			t.Fatal(err)
		}
		block = append(block, b...)
	}
	if codec == "deflate" {
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, flate.BestSpeed)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(block); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		block = buf.Bytes()
	}
	long := func(b []byte, v int64) []byte { return binary.AppendUvarint(b, uint64(v<<1^v>>63)) }
	str := func(b []byte, s string) []byte { return append(long(b, int64(len(s))), s...) }
	sync := []byte("0123456789abcdef")
	f := []byte{'O', 'b', 'j', 1}
	f = long(f, 2)
	f = str(str(f, "avro.schema"), schema)
	f = str(str(f, "avro.codec"), codec)
	f = long(f, 0)
	f = append(f, sync...)
	f = long(f, int64(len(objects)))
	f = long(f, int64(len(block)))
	f = append(append(f, block...), sync...)
	return f
}

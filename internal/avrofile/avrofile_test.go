package avrofile

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
)

// planValue is a requested replacecommit as Read gives it back: the value
// of avrofiletest.RequestedReplace for two groups.
func planValue() map[string]any {
	slice := func(id string) any {
		return map[string]any{"dataFilePath": "p/" + id + "_0-1-1_20240101000000000.parquet", "fileId": id, "partitionPath": "p"}
	}
	return map[string]any{
		"operationType": "CLUSTER",
		"clusteringPlan": map[string]any{
			"inputGroups": []any{
				map[string]any{"slices": []any{slice("f1"), slice("f2")}, "metrics": map[string]any{"TOTAL_IO": 1.5}, "numOutputFileGroups": int32(1)},
				map[string]any{"slices": []any{slice("f3")}, "metrics": map[string]any{"TOTAL_IO": 1.5}, "numOutputFileGroups": int32(1)},
			},
			"kind":   "B",
			"digest": []byte{1, 2, 3, 4},
			"ratio":  float32(0.25),
			"flag":   true,
		},
		"extraMetadata": map[string]any{"k": "v"},
		"version":       int32(1),
	}
}

// planFile is a requested replacecommit of planValue, with Hudi's schema
// text and the codec.
func planFile(t testing.TB, codec string, n int) []byte {
	groups := [][]avrofiletest.Slice{{{Partition: "p", FileID: "f1"}, {Partition: "p", FileID: "f2"}}, {{Partition: "p", FileID: "f3"}}}
	var objects []any
	for range n {
		objects = append(objects, avrofiletest.RequestedReplace(groups))
	}
	return avrofiletest.ContainerFile(t, avrofiletest.HudiRequestedReplaceSchema, codec, objects...)
}

func TestRead(t *testing.T) {
	if _, err := avro.Parse(avrofiletest.HudiRequestedReplaceSchema); err == nil {
		t.Fatal("hamba/avro takes Hudi's schema: the test no longer shows that Read must not check defaults")
	}
	for _, codec := range []string{"null", "deflate"} {
		got, err := Read(planFile(t, codec, 2))
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		if want := []any{planValue(), planValue()}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", codec, got, want)
		}
	}
}

func TestReadRefusesDamage(t *testing.T) {
	good := planFile(t, "null", 1)
	tests := map[string][]byte{
		"not Avro":        []byte("{\"json\": true}"),
		"cut in a block":  good[:len(good)-30],
		"bad sync marker": append(append([]byte{}, good[:len(good)-1]...), 'X'),
		"unknown codec":   planFile(t, "zstandard", 1),
		"no schema":       bytes.Replace(good, []byte("avro.schema"), []byte("avro.schemX"), 1),
	}
	for name, data := range tests {
		if _, err := Read(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(planFile(f, "null", 1))
	f.Add(planFile(f, "deflate", 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		Read(data) // must not panic or hang
	})
}

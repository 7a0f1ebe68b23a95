package timeline

import (
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
)

// planGroups reads the file groups of the clustering plan in data.
func planGroups(data []byte) ([]FileGroupID, bool, error) {
	plan, ok, err := ReadClusteringPlan(data)
	if !ok || err != nil {
		return nil, ok, err
	}
	return plan.FileGroups(), true, nil
}

func TestClusteringPlanGroups(t *testing.T) {
	groups := [][]avrofiletest.Slice{
		{{Partition: "americas/brazil/sao_paulo", FileID: "f1"}, {Partition: "americas/brazil/sao_paulo", FileID: "f2"}},
		{{Partition: "", FileID: "f3"}},
	}
	tests := []struct {
		name   string
		data   []byte
		want   []FileGroupID
		wantOK bool
	}{
		{"clustering", avrofiletest.ContainerFile(t, avrofiletest.HudiRequestedReplaceSchema, "null", avrofiletest.RequestedReplace(groups)),
			[]FileGroupID{{"americas/brazil/sao_paulo", "f1"}, {"americas/brazil/sao_paulo", "f2"}, {"", "f3"}}, true},
		{"clustering, deflate", avrofiletest.ContainerFile(t, avrofiletest.HudiRequestedReplaceSchema, "deflate", avrofiletest.RequestedReplace(groups)),
			[]FileGroupID{{"americas/brazil/sao_paulo", "f1"}, {"americas/brazil/sao_paulo", "f2"}, {"", "f3"}}, true},
		{"insert overwrite", avrofiletest.ContainerFile(t, avrofiletest.HudiRequestedReplaceSchema, "null", avrofiletest.RequestedReplace(nil)), nil, false},
		{"empty file", nil, nil, false},
	}
	for _, tt := range tests {
		got, ok, err := planGroups(tt.data)
		if err != nil || ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, %v, %v; want %v, %v", tt.name, got, ok, err, tt.want, tt.wantOK)
		}
	}
	if _, _, err := planGroups([]byte("not Avro")); err == nil {
		t.Error("a file that is not Avro: no error")
	}
}

func TestMarshalRequestedReplace(t *testing.T) {
	plan := &ClusteringPlan{
		Groups: []ClusteringGroup{
			{Slices: []ClusteringSlice{{DataFilePath: "p/f1_0-1-0_1.parquet", FileID: "f1", PartitionPath: "p"}, {DataFilePath: "p/f2_0-1-0_1.parquet", FileID: "f2", PartitionPath: "p"}}, Metrics: map[string]float64{"TOTAL_FILE_SIZE": 20}, NumOutputFileGroups: 1},
			{Slices: []ClusteringSlice{{DataFilePath: "f3_0-1-0_1.parquet", FileID: "f3"}}, Metrics: map[string]float64{"TOTAL_FILE_SIZE": 10}, NumOutputFileGroups: 1},
		},
		StrategyClass:    "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
		StrategyParams:   map[string]string{"hoodie.clustering.plan.strategy.sort.columns": "ts"},
		PreserveMetadata: true,
	}
	data, err := MarshalRequestedReplace(RequestedReplace{Operation: OperationCluster, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := planGroups(data)
	want := []FileGroupID{{"p", "f1"}, {"p", "f2"}, {"", "f3"}}
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("clustering plan reads back as %v, %v, %v; want %v", got, ok, err, want)
	}
	read, ok, err := ReadClusteringPlan(data)
	if err != nil || !ok || !reflect.DeepEqual(read, plan) {
		t.Errorf("ReadClusteringPlan: %+v, %v, %v; want %+v", read, ok, err, plan)
	}
	for _, op := range []Operation{"", OperationDeletePartition} {
		data, err := MarshalRequestedReplace(RequestedReplace{Operation: op})
		if err != nil {
			t.Fatal(err)
		}
		if got, ok, err := planGroups(data); err != nil || ok || got != nil {
			t.Errorf("%q: reads as a clustering plan: %v, %v, %v", op, got, ok, err)
		}
	}
}

package timeline

import (
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
)

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
		got, ok, err := ClusteringPlanGroups(tt.data)
		if err != nil || ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, %v, %v; want %v, %v", tt.name, got, ok, err, tt.want, tt.wantOK)
		}
	}
	if _, _, err := ClusteringPlanGroups([]byte("not Avro")); err == nil {
		t.Error("a file that is not Avro: no error")
	}
}

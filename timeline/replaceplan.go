package timeline

import (
	"bytes"
	"fmt"

	"github.com/hamba/avro/v2/ocf"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
)

// FileGroupID names a file group of a table: its partition path and file
// id.
type FileGroupID struct {
	Partition string
	FileID    string
}

// FileGroups returns the file groups the plan rewrites, in plan order.
func (p *ClusteringPlan) FileGroups() []FileGroupID {
	var groups []FileGroupID
	for _, g := range p.Groups {
		for _, s := range g.Slices {
			groups = append(groups, FileGroupID{Partition: s.PartitionPath, FileID: s.FileID})
		}
	}
	return groups
}

// ReadClusteringPlan returns the clustering plan in data, the content of a
// .replacecommit.requested file: Hudi's HoodieRequestedReplaceMetadata as
// an Avro object container file (clusteringPlan.inputGroups[].slices[],
// each naming a file id and a partition path). ok is false when data holds
// no clustering plan: an insert overwrite's requested file is empty or
// holds none, and the file groups it replaces are known only once it
// completes. Fields Hoodie does not use are left out.
func ReadClusteringPlan(data []byte) (plan *ClusteringPlan, ok bool, err error) {
	if len(data) == 0 {
		return nil, false, nil
	}
	objects, err := avrofile.Read(data)
	if err != nil {
		return nil, false, fmt.Errorf("requested replacecommit: %w", err)
	}
	if len(objects) != 1 {
		return nil, false, fmt.Errorf("requested replacecommit: %d objects, want 1", len(objects))
	}
	meta, _ := objects[0].(map[string]any)
	p, _ := meta["clusteringPlan"].(map[string]any)
	if p == nil {
		return nil, false, nil
	}
	plan = &ClusteringPlan{}
	if strategy, _ := p["strategy"].(map[string]any); strategy != nil {
		plan.StrategyClass, _ = strategy["strategyClassName"].(string)
		plan.StrategyParams = stringMap(strategy["strategyParams"])
	}
	plan.PreserveMetadata, _ = p["preserveHoodieMetadata"].(bool)
	inputGroups, _ := p["inputGroups"].([]any)
	for _, g := range inputGroups {
		group, _ := g.(map[string]any)
		out := ClusteringGroup{NumOutputFileGroups: 1}
		if n, ok := group["numOutputFileGroups"].(int32); ok {
			out.NumOutputFileGroups = int(n)
		}
		if m, ok := group["metrics"].(map[string]any); ok {
			out.Metrics = map[string]float64{}
			for k, v := range m {
				out.Metrics[k], _ = v.(float64)
			}
		}
		slices, _ := group["slices"].([]any)
		for _, s := range slices {
			slice, _ := s.(map[string]any)
			var info ClusteringSlice
			info.FileID, _ = slice["fileId"].(string)
			info.PartitionPath, _ = slice["partitionPath"].(string)
			info.DataFilePath, _ = slice["dataFilePath"].(string)
			if info.FileID == "" {
				return nil, false, fmt.Errorf("requested replacecommit: a slice of the clustering plan has no file id")
			}
			out.Slices = append(out.Slices, info)
		}
		plan.Groups = append(plan.Groups, out)
	}
	return plan, true, nil
}

// stringMap returns v, an Avro map of strings, as a Go map; nil for null.
func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// RequestedReplace is Hudi's HoodieRequestedReplaceMetadata, the content of
// a .replacecommit.requested file: what a replacecommit is (its operation
// type) and, for a clustering, its plan.
type RequestedReplace struct {
	// Operation is the operation type; "" is written as null, as Hudi's
	// insert overwrite does.
	Operation Operation
	// Plan is the clustering plan; nil for any other replacecommit.
	Plan *ClusteringPlan
	// ExtraMetadata is written as null when nil.
	ExtraMetadata map[string]string
}

// ClusteringPlan is Hudi's HoodieClusteringPlan: the file groups a
// clustering rewrites, in groups that each become one or more new file
// groups, and the strategy that rewrites them.
type ClusteringPlan struct {
	Groups []ClusteringGroup
	// StrategyClass is the execution strategy's Java class, and
	// StrategyParams its parameters (the sort columns, for one).
	StrategyClass  string
	StrategyParams map[string]string
	// PreserveMetadata says that the rewritten records keep their commit
	// times (hoodie.clustering.preserve.commit.metadata).
	PreserveMetadata bool
}

// ClusteringGroup is Hudi's HoodieClusteringGroup: file slices of one
// partition rewritten together into NumOutputFileGroups file groups.
type ClusteringGroup struct {
	Slices              []ClusteringSlice
	Metrics             map[string]float64
	NumOutputFileGroups int
}

// ClusteringSlice is Hudi's HoodieSliceInfo: one file slice a clustering
// rewrites. DataFilePath is the base file's path relative to the table's
// base path.
type ClusteringSlice struct {
	DataFilePath, FileID, PartitionPath string
}

// requestedReplaceSchema is Hudi's HoodieRequestedReplaceMetadata with the
// records it holds, as of Hudi 0.15, but for the clustering plan's default
// null, which is not of its union's first branch: strict Avro libraries
// refuse it, and Hudi's reader takes the file's schema without it.
const requestedReplaceSchema = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieRequestedReplaceMetadata","fields":[
 {"name":"operationType","type":["null","string"],"default":null},
 {"name":"clusteringPlan","type":[{"type":"record","name":"HoodieClusteringPlan","fields":[
   {"name":"inputGroups","type":["null",{"type":"array","items":{"type":"record","name":"HoodieClusteringGroup","fields":[
     {"name":"slices","type":["null",{"type":"array","items":{"type":"record","name":"HoodieSliceInfo","fields":[
       {"name":"dataFilePath","type":["null","string"],"default":null},
       {"name":"deltaFilePaths","type":["null",{"type":"array","items":"string"}],"default":null},
       {"name":"fileId","type":["null","string"]},
       {"name":"partitionPath","type":["null","string"],"default":null},
       {"name":"bootstrapFilePath","type":["null","string"],"default":null},
       {"name":"version","type":["int","null"],"default":1}]}}],"default":null},
     {"name":"metrics","type":["null",{"type":"map","values":"double"}],"default":null},
     {"name":"numOutputFileGroups","type":["int","null"],"default":1},
     {"name":"extraMetadata","type":["null",{"type":"map","values":"string"}],"default":null},
     {"name":"version","type":["int","null"],"default":1}]}}],"default":null},
   {"name":"strategy","type":[{"type":"record","name":"HoodieClusteringStrategy","fields":[
     {"name":"strategyClassName","type":["null","string"],"default":null},
     {"name":"strategyParams","type":["null",{"type":"map","values":"string"}],"default":null},
     {"name":"version","type":["int","null"],"default":1}]},"null"]},
   {"name":"extraMetadata","type":["null",{"type":"map","values":"string"}],"default":null},
   {"name":"version","type":["int","null"],"default":1},
   {"name":"preserveHoodieMetadata","type":["null","boolean"],"default":null}]},"null"]},
 {"name":"extraMetadata","type":["null",{"type":"map","values":"string"}],"default":null},
 {"name":"version","type":["int","null"],"default":1}]}`

// The Avro forms of the records above, for hamba/avro: a pointer is a
// union with null.
type (
	avroRequestedReplace struct {
		OperationType  *string             `avro:"operationType"`
		ClusteringPlan *avroClusteringPlan `avro:"clusteringPlan"`
		ExtraMetadata  *map[string]string  `avro:"extraMetadata"`
		Version        *int32              `avro:"version"`
	}
	avroClusteringPlan struct {
		InputGroups            *[]avroClusteringGroup  `avro:"inputGroups"`
		Strategy               *avroClusteringStrategy `avro:"strategy"`
		ExtraMetadata          *map[string]string      `avro:"extraMetadata"`
		Version                *int32                  `avro:"version"`
		PreserveHoodieMetadata *bool                   `avro:"preserveHoodieMetadata"`
	}
	avroClusteringGroup struct {
		Slices              *[]avroSliceInfo    `avro:"slices"`
		Metrics             *map[string]float64 `avro:"metrics"`
		NumOutputFileGroups *int32              `avro:"numOutputFileGroups"`
		ExtraMetadata       *map[string]string  `avro:"extraMetadata"`
		Version             *int32              `avro:"version"`
	}
	avroSliceInfo struct {
		DataFilePath      *string   `avro:"dataFilePath"`
		DeltaFilePaths    *[]string `avro:"deltaFilePaths"`
		FileID            *string   `avro:"fileId"`
		PartitionPath     *string   `avro:"partitionPath"`
		BootstrapFilePath *string   `avro:"bootstrapFilePath"`
		Version           *int32    `avro:"version"`
	}
	avroClusteringStrategy struct {
		StrategyClassName *string            `avro:"strategyClassName"`
		StrategyParams    *map[string]string `avro:"strategyParams"`
		Version           *int32             `avro:"version"`
	}
)

// MarshalRequestedReplace encodes r as Hudi writes a .replacecommit.requested
// file: one HoodieRequestedReplaceMetadata in an Avro object container file
// without compression. An insert overwrite's (the zero RequestedReplace) has
// every field null, as Hudi's new HoodieRequestedReplaceMetadata().
func MarshalRequestedReplace(r RequestedReplace) ([]byte, error) {
	v := avroRequestedReplace{ExtraMetadata: nullableMap(r.ExtraMetadata)}
	if r.Operation != "" {
		op := string(r.Operation)
		v.OperationType, v.Version = &op, some(int32(1))
	}
	if p := r.Plan; p != nil {
		groups := make([]avroClusteringGroup, len(p.Groups))
		for i, g := range p.Groups {
			slices := make([]avroSliceInfo, len(g.Slices))
			for j, s := range g.Slices {
				slices[j] = avroSliceInfo{DataFilePath: some(s.DataFilePath), DeltaFilePaths: &[]string{}, FileID: some(s.FileID),
					PartitionPath: some(s.PartitionPath), BootstrapFilePath: some(""), Version: some(int32(1))}
			}
			groups[i] = avroClusteringGroup{Slices: &slices, Metrics: &g.Metrics, NumOutputFileGroups: some(int32(g.NumOutputFileGroups)), Version: some(int32(1))}
			if g.Metrics == nil {
				groups[i].Metrics = &map[string]float64{}
			}
		}
		params := p.StrategyParams
		if params == nil {
			params = map[string]string{}
		}
		v.ClusteringPlan = &avroClusteringPlan{
			InputGroups:   &groups,
			Strategy:      &avroClusteringStrategy{StrategyClassName: some(p.StrategyClass), StrategyParams: &params, Version: some(int32(1))},
			ExtraMetadata: &map[string]string{}, Version: some(int32(1)), PreserveHoodieMetadata: some(p.PreserveMetadata),
		}
	}
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(requestedReplaceSchema, &buf)
	if err != nil {
		return nil, fmt.Errorf("requested replacecommit: %w", err)
	}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("requested replacecommit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("requested replacecommit: %w", err)
	}
	return buf.Bytes(), nil
}

func some[T any](v T) *T { return &v }

func nullableMap(m map[string]string) *map[string]string {
	if m == nil {
		return nil
	}
	return &m
}

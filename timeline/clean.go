package timeline

import (
	"context"
	"fmt"
	"path"

	"github.com/hamba/avro/v2"
)

// The schemas of Hudi 0.15's clean models (hudi-common's
// HoodieCleanerPlan.avsc and HoodieCleanMetadata.avsc), as its generated
// classes hold them.
const (
	cleanerPlanSchemaText = `{"type":"record","name":"HoodieCleanerPlan","namespace":"org.apache.hudi.avro.model","fields":[
{"name":"earliestInstantToRetain","type":["null",{"type":"record","name":"HoodieActionInstant","fields":[
 {"name":"timestamp","type":{"type":"string","avro.java.string":"String"}},
 {"name":"action","type":{"type":"string","avro.java.string":"String"}},
 {"name":"state","type":{"type":"string","avro.java.string":"String"}}]}],"default":null},
{"name":"lastCompletedCommitTimestamp","type":{"type":"string","avro.java.string":"String"},"default":""},
{"name":"policy","type":{"type":"string","avro.java.string":"String"}},
{"name":"filesToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"type":"string","avro.java.string":"String"}},"avro.java.string":"String"}],"default":null},
{"name":"version","type":["int","null"],"default":1},
{"name":"filePathsToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"HoodieCleanFileInfo","fields":[
 {"name":"filePath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},
 {"name":"isBootstrapBaseFile","type":["null","boolean"],"default":null}]}},"avro.java.string":"String"}],"doc":"This field replaces the field filesToBeDeletedPerPartition","default":null},
{"name":"partitionsToBeDeleted","type":["null",{"type":"array","items":{"type":"string","avro.java.string":"String"}}],"doc":"partitions to be deleted","default":null},
{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null}]}`

	cleanMetadataSchemaText = `{"type":"record","name":"HoodieCleanMetadata","namespace":"org.apache.hudi.avro.model","fields":[
{"name":"startCleanTime","type":{"type":"string","avro.java.string":"String"}},
{"name":"timeTakenInMillis","type":"long"},
{"name":"totalFilesDeleted","type":"int"},
{"name":"earliestCommitToRetain","type":{"type":"string","avro.java.string":"String"}},
{"name":"lastCompletedCommitTimestamp","type":{"type":"string","avro.java.string":"String"},"default":""},
{"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieCleanPartitionMetadata","fields":[
 {"name":"partitionPath","type":{"type":"string","avro.java.string":"String"}},
 {"name":"policy","type":{"type":"string","avro.java.string":"String"}},
 {"name":"deletePathPatterns","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},
 {"name":"successDeleteFiles","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},
 {"name":"failedDeleteFiles","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},
 {"name":"isPartitionDeleted","type":["null","boolean"],"default":null}]},"avro.java.string":"String"}},
{"name":"version","type":["int","null"],"default":1},
{"name":"bootstrapPartitionMetadata","type":["null",{"type":"map","values":"HoodieCleanPartitionMetadata","avro.java.string":"String"}],"default":null},
{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null}]}`
)

var (
	cleanerPlanSchema   = avro.MustParse(cleanerPlanSchemaText)
	cleanMetadataSchema = avro.MustParse(cleanMetadataSchemaText)
)

// CleanPlanVersion and CleanMetadataVersion are the versions Hudi 0.15
// writes (CleanPlanner.LATEST_CLEAN_PLAN_VERSION,
// CleanerUtils.CLEAN_METADATA_VERSION_2).
const (
	CleanPlanVersion     = 2
	CleanMetadataVersion = 2
)

// SavepointedTimestampsKey is the key of a clean plan's extra metadata
// listing the savepoints the clean kept, comma-separated
// (CleanPlanner.SAVEPOINTED_TIMESTAMPS).
const SavepointedTimestampsKey = "savepointed_timestamps"

// CleanerPlan is what a clean will delete: Hudi's HoodieCleanerPlan, the
// content of a .clean.requested (and .clean.inflight) file. File paths are
// relative to the table's base path.
type CleanerPlan struct {
	// EarliestInstantToRetain is the oldest commit whose files the clean
	// keeps whole; the zero Instant when the policy keeps file versions.
	EarliestInstantToRetain Instant
	// LastCompletedCommit is the latest completed commit when the clean
	// was planned; the next clean counts commits after it.
	LastCompletedCommit string
	// Policy is hoodie.cleaner.policy's value, e.g. KEEP_LATEST_COMMITS.
	Policy string
	// FilesToDelete maps each partition the clean looked at to the files
	// it deletes there (paths relative to the base path; the list may be
	// empty).
	FilesToDelete map[string][]string
	// PartitionsToDelete are partitions the clean removes whole.
	PartitionsToDelete []string
	// Extra is the plan's extra metadata (SavepointedTimestampsKey).
	Extra map[string]string
}

// FileCount is the number of files the plan deletes.
func (p *CleanerPlan) FileCount() int {
	n := 0
	for _, files := range p.FilesToDelete {
		n += len(files)
	}
	return n
}

type avroActionInstant struct {
	Timestamp string `avro:"timestamp"`
	Action    string `avro:"action"`
	State     string `avro:"state"`
}

type avroCleanFileInfo struct {
	FilePath            *string `avro:"filePath"`
	IsBootstrapBaseFile *bool   `avro:"isBootstrapBaseFile"`
}

type avroCleanerPlan struct {
	EarliestInstantToRetain          *avroActionInstant              `avro:"earliestInstantToRetain"`
	LastCompletedCommitTimestamp     string                          `avro:"lastCompletedCommitTimestamp"`
	Policy                           string                          `avro:"policy"`
	FilesToBeDeletedPerPartition     *map[string][]string            `avro:"filesToBeDeletedPerPartition"`
	Version                          *int32                          `avro:"version"`
	FilePathsToBeDeletedPerPartition *map[string][]avroCleanFileInfo `avro:"filePathsToBeDeletedPerPartition"`
	PartitionsToBeDeleted            *[]string                       `avro:"partitionsToBeDeleted"`
	ExtraMetadata                    *map[string]string              `avro:"extraMetadata"`
}

// MarshalCleanerPlan encodes p as Hudi writes a cleaner plan. Hudi keeps
// absolute file paths in a plan: each relative path is written as
// basePath + "/" + path, basePath being the table's base path as Hudi would
// name it (such as "file:/data/trips"), or as it is when basePath is "".
func MarshalCleanerPlan(p *CleanerPlan, basePath string) ([]byte, error) {
	version := int32(CleanPlanVersion)
	partitions := append([]string{}, p.PartitionsToDelete...)
	byPartition := make(map[string][]avroCleanFileInfo, len(p.FilesToDelete))
	extra := make(map[string]string, len(p.Extra))
	v := avroCleanerPlan{
		LastCompletedCommitTimestamp:     p.LastCompletedCommit,
		Policy:                           p.Policy,
		FilesToBeDeletedPerPartition:     &map[string][]string{},
		Version:                          &version,
		FilePathsToBeDeletedPerPartition: &byPartition,
		PartitionsToBeDeleted:            &partitions,
		ExtraMetadata:                    &extra,
	}
	if p.EarliestInstantToRetain.Time != "" {
		v.EarliestInstantToRetain = &avroActionInstant{
			Timestamp: p.EarliestInstantToRetain.Time,
			Action:    string(p.EarliestInstantToRetain.Action),
			State:     javaStateName(p.EarliestInstantToRetain.State),
		}
	}
	for part, files := range p.FilesToDelete {
		infos := make([]avroCleanFileInfo, len(files))
		for i, f := range files {
			full := f
			if basePath != "" {
				full = basePath + "/" + f
			}
			no := false
			infos[i] = avroCleanFileInfo{FilePath: &full, IsBootstrapBaseFile: &no}
		}
		byPartition[part] = infos
	}
	for k, x := range p.Extra {
		extra[k] = x
	}
	return encodeAvro(cleanerPlanSchema, v, "cleaner plan")
}

// ParseCleanerPlan reads a cleaner plan that Hudi (any version writing
// plan version 1 or 2) or MarshalCleanerPlan wrote. A file to delete is
// given back relative to the base path: its partition, then its name (the
// last element of the path the plan holds).
func ParseCleanerPlan(data []byte) (*CleanerPlan, error) {
	m, err := decodeAvro(data, "cleaner plan")
	if err != nil {
		return nil, err
	}
	p := &CleanerPlan{
		LastCompletedCommit: avroString(m, "lastCompletedCommitTimestamp"),
		Policy:              avroString(m, "policy"),
		FilesToDelete:       map[string][]string{},
		PartitionsToDelete:  avroStrings(m["partitionsToBeDeleted"]),
		Extra:               avroStringMap(m["extraMetadata"]),
	}
	if e, ok := m["earliestInstantToRetain"].(map[string]any); ok {
		p.EarliestInstantToRetain = Instant{Time: avroString(e, "timestamp"), Action: Action(avroString(e, "action")), State: StateCompleted}
	}
	rel := func(part, file string) string { return path.Join(part, path.Base(file)) }
	if byPart, ok := m["filePathsToBeDeletedPerPartition"].(map[string]any); ok {
		for part, infos := range byPart {
			files := []string{}
			for _, x := range avroRecords(infos) {
				if f := avroString(x, "filePath"); f != "" {
					files = append(files, rel(part, f))
				}
			}
			p.FilesToDelete[part] = files
		}
	} else if byPart, ok := m["filesToBeDeletedPerPartition"].(map[string]any); ok {
		// Plan version 1: file names within their partition.
		for part, names := range byPart {
			files := []string{}
			for _, n := range avroStrings(names) {
				files = append(files, rel(part, n))
			}
			p.FilesToDelete[part] = files
		}
	}
	return p, nil
}

// avroRecords returns an array-of-records value.
func avroRecords(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// javaStateName is the name of Hudi's HoodieInstant.State constant.
func javaStateName(s State) string {
	switch s {
	case StateRequested:
		return "REQUESTED"
	case StateInflight:
		return "INFLIGHT"
	}
	return "COMPLETED"
}

// CleanPartitionMetadata is what a clean did in one partition (Hudi's
// HoodieCleanPartitionMetadata). Files are named without their folder, as
// Hudi names them.
type CleanPartitionMetadata struct {
	Partition        string
	Policy           string
	DeletePatterns   []string
	Deleted          []string
	Failed           []string
	PartitionDeleted bool
}

// CleanMetadata is what a completed clean did: Hudi's HoodieCleanMetadata,
// the content of a .clean file.
type CleanMetadata struct {
	StartCleanTime         string
	TimeTakenMillis        int64
	TotalFilesDeleted      int
	EarliestCommitToRetain string
	// LastCompletedCommit is the plan's LastCompletedCommit.
	LastCompletedCommit string
	Partitions          map[string]CleanPartitionMetadata
	Extra               map[string]string
}

type avroCleanPartitionMetadata struct {
	PartitionPath      string   `avro:"partitionPath"`
	Policy             string   `avro:"policy"`
	DeletePathPatterns []string `avro:"deletePathPatterns"`
	SuccessDeleteFiles []string `avro:"successDeleteFiles"`
	FailedDeleteFiles  []string `avro:"failedDeleteFiles"`
	IsPartitionDeleted *bool    `avro:"isPartitionDeleted"`
}

type avroCleanMetadata struct {
	StartCleanTime               string                                 `avro:"startCleanTime"`
	TimeTakenInMillis            int64                                  `avro:"timeTakenInMillis"`
	TotalFilesDeleted            int32                                  `avro:"totalFilesDeleted"`
	EarliestCommitToRetain       string                                 `avro:"earliestCommitToRetain"`
	LastCompletedCommitTimestamp string                                 `avro:"lastCompletedCommitTimestamp"`
	PartitionMetadata            map[string]avroCleanPartitionMetadata  `avro:"partitionMetadata"`
	Version                      *int32                                 `avro:"version"`
	BootstrapPartitionMetadata   *map[string]avroCleanPartitionMetadata `avro:"bootstrapPartitionMetadata"`
	ExtraMetadata                *map[string]string                     `avro:"extraMetadata"`
}

// MarshalCleanMetadata encodes m as Hudi writes a completed clean.
func MarshalCleanMetadata(m *CleanMetadata) ([]byte, error) {
	version := int32(CleanMetadataVersion)
	extra := make(map[string]string, len(m.Extra))
	for k, x := range m.Extra {
		extra[k] = x
	}
	v := avroCleanMetadata{
		StartCleanTime:               m.StartCleanTime,
		TimeTakenInMillis:            m.TimeTakenMillis,
		TotalFilesDeleted:            int32(m.TotalFilesDeleted),
		EarliestCommitToRetain:       m.EarliestCommitToRetain,
		LastCompletedCommitTimestamp: m.LastCompletedCommit,
		PartitionMetadata:            make(map[string]avroCleanPartitionMetadata, len(m.Partitions)),
		Version:                      &version,
		BootstrapPartitionMetadata:   &map[string]avroCleanPartitionMetadata{},
		ExtraMetadata:                &extra,
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	for part, pm := range m.Partitions {
		deleted := pm.PartitionDeleted
		v.PartitionMetadata[part] = avroCleanPartitionMetadata{
			PartitionPath: pm.Partition, Policy: pm.Policy,
			DeletePathPatterns: nonNil(pm.DeletePatterns), SuccessDeleteFiles: nonNil(pm.Deleted), FailedDeleteFiles: nonNil(pm.Failed),
			IsPartitionDeleted: &deleted,
		}
	}
	return encodeAvro(cleanMetadataSchema, v, "clean metadata")
}

// ParseCleanMetadata reads the metadata of a completed clean, as Hudi or
// MarshalCleanMetadata wrote it.
func ParseCleanMetadata(data []byte) (*CleanMetadata, error) {
	m, err := decodeAvro(data, "clean metadata")
	if err != nil {
		return nil, err
	}
	total, _ := m["totalFilesDeleted"].(int32)
	took, _ := m["timeTakenInMillis"].(int64)
	out := &CleanMetadata{
		StartCleanTime:         avroString(m, "startCleanTime"),
		TimeTakenMillis:        took,
		TotalFilesDeleted:      int(total),
		EarliestCommitToRetain: avroString(m, "earliestCommitToRetain"),
		LastCompletedCommit:    avroString(m, "lastCompletedCommitTimestamp"),
		Partitions:             map[string]CleanPartitionMetadata{},
		Extra:                  avroStringMap(m["extraMetadata"]),
	}
	parts, _ := m["partitionMetadata"].(map[string]any)
	for part, x := range parts {
		pm, _ := x.(map[string]any)
		deleted, _ := pm["isPartitionDeleted"].(bool)
		out.Partitions[part] = CleanPartitionMetadata{
			Partition: avroString(pm, "partitionPath"), Policy: avroString(pm, "policy"),
			DeletePatterns: avroStrings(pm["deletePathPatterns"]), Deleted: avroStrings(pm["successDeleteFiles"]),
			Failed: avroStrings(pm["failedDeleteFiles"]), PartitionDeleted: deleted,
		}
	}
	return out, nil
}

// ReadCleanerPlan reads the plan of a clean instant in any state: Hudi
// reads it from the requested file, which every clean has.
func (t *Timeline) ReadCleanerPlan(ctx context.Context, in Instant) (*CleanerPlan, error) {
	if in.Action != ActionClean {
		return nil, fmt.Errorf("read cleaner plan of %s: %w: not a clean", in, ErrInvalidInstant)
	}
	return readAvroInstant(ctx, t, in.withState(StateRequested), ParseCleanerPlan)
}

// ReadCleanMetadata reads the metadata of a completed clean.
func (t *Timeline) ReadCleanMetadata(ctx context.Context, in Instant) (*CleanMetadata, error) {
	if in.Action != ActionClean || in.State != StateCompleted {
		return nil, fmt.Errorf("read clean metadata of %s: %w: not a completed clean", in, ErrInvalidInstant)
	}
	return readAvroInstant(ctx, t, in, ParseCleanMetadata)
}

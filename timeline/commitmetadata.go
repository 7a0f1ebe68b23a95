package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// SchemaKey is the ExtraMetadata key under which a commit stores the
// writer's Avro schema (HoodieCommitMetadata.SCHEMA_KEY).
const SchemaKey = "schema"

// NullCommit is the PrevCommit of a file group's first version: the string
// "null", not a JSON null (HoodieWriteStat.NULL_COMMIT).
const NullCommit = "null"

// CommitMetadata is the content of a completed commit, deltacommit or
// replacecommit file, and of the workload profile in an inflight file: Hudi's
// HoodieCommitMetadata as JSON.
//
// It parses leniently as Hudi does: unknown fields are ignored, a JSON null
// leaves a field at its zero value, and an empty file is empty metadata.
// MarshalJSON writes Hudi's field order and layout.
type CommitMetadata struct {
	// PartitionToWriteStats lists, by partition path ("" for a table
	// without partitions), one WriteStat per file group written.
	PartitionToWriteStats map[string][]WriteStat `json:"partitionToWriteStats"`
	// Compacted is true for the commit that completes a compaction.
	Compacted bool `json:"compacted"`
	// ExtraMetadata holds the writer's Avro schema under SchemaKey and any
	// other key/value pairs the writer adds (checkpoints...).
	ExtraMetadata map[string]string `json:"extraMetadata"`
	// OperationType is the write operation; "" is written as null, so
	// writers should set it.
	OperationType Operation `json:"operationType"`
}

// ReplaceCommitMetadata is the content of a completed replacecommit: commit
// metadata that also names, by partition path, the file groups the commit
// replaces (Hudi's HoodieReplaceCommitMetadata).
type ReplaceCommitMetadata struct {
	CommitMetadata
	// PartitionToReplaceFileIDs lists the replaced file ids by partition
	// path.
	PartitionToReplaceFileIDs map[string][]string `json:"partitionToReplaceFileIds"`
}

// WriteStat describes the writing of one file group in one commit: Hudi's
// HoodieWriteStat, with all of its JSON fields. Nullable strings (Path,
// TempPath, PrevCommit) are "" where the JSON has null, and are written
// back as null when "".
type WriteStat struct {
	// FileID is the file group's id; "" in the workload profile's entry
	// for a partition's new inserts.
	FileID string `json:"fileId"`
	// Path is the written file's path relative to the base path.
	Path string `json:"path"`
	// CDCStats maps change-data-capture log files to their sizes.
	CDCStats map[string]int64 `json:"cdcStats"`
	// PrevCommit is the instant time of the file group's previous version,
	// or NullCommit for a new file group.
	PrevCommit string `json:"prevCommit"`
	// NumWrites is the number of records in the written file.
	NumWrites int64 `json:"numWrites"`
	// NumDeletes is the number of records deleted.
	NumDeletes int64 `json:"numDeletes"`
	// NumUpdateWrites is the number of records updated.
	NumUpdateWrites int64 `json:"numUpdateWrites"`
	// NumInserts is the number of records inserted.
	NumInserts int64 `json:"numInserts"`
	// TotalWriteBytes is the number of bytes written.
	TotalWriteBytes int64 `json:"totalWriteBytes"`
	// TotalWriteErrors is the number of records that failed to be written.
	TotalWriteErrors int64 `json:"totalWriteErrors"`
	// TempPath is the path of a temporary file, if one was used.
	TempPath string `json:"tempPath"`
	// PartitionPath is the file group's partition path. It is written as
	// null when Path is "" too, as in Hudi's workload profile.
	PartitionPath string `json:"partitionPath"`
	// TotalLogRecords is the number of log records read (merge-on-read).
	TotalLogRecords int64 `json:"totalLogRecords"`
	// TotalLogFilesCompacted is the number of log files compacted.
	TotalLogFilesCompacted int64 `json:"totalLogFilesCompacted"`
	// TotalLogSizeCompacted is the size of the log files compacted.
	TotalLogSizeCompacted int64 `json:"totalLogSizeCompacted"`
	// TotalUpdatedRecordsCompacted is the number of records updated by
	// compaction.
	TotalUpdatedRecordsCompacted int64 `json:"totalUpdatedRecordsCompacted"`
	// TotalLogBlocks is the number of log blocks read.
	TotalLogBlocks int64 `json:"totalLogBlocks"`
	// TotalCorruptLogBlock is the number of corrupt log blocks met.
	TotalCorruptLogBlock int64 `json:"totalCorruptLogBlock"`
	// TotalRollbackBlocks is the number of rollback blocks met.
	TotalRollbackBlocks int64 `json:"totalRollbackBlocks"`
	// FileSizeInBytes is the size of the written file.
	FileSizeInBytes int64 `json:"fileSizeInBytes"`
	// MinEventTime is the least event time written, if tracked.
	MinEventTime *int64 `json:"minEventTime"`
	// MaxEventTime is the greatest event time written, if tracked.
	MaxEventTime *int64 `json:"maxEventTime"`
	// RuntimeStats holds the write's timings, if recorded.
	RuntimeStats *RuntimeStats `json:"runtimeStats"`
}

// RuntimeStats are the timings of one file group's write, in milliseconds
// (HoodieWriteStat.RuntimeStats).
type RuntimeStats struct {
	// TotalScanTime is the time spent reading the previous version.
	TotalScanTime int64 `json:"totalScanTime"`
	// TotalUpsertTime is the time spent merging updates.
	TotalUpsertTime int64 `json:"totalUpsertTime"`
	// TotalCreateTime is the time spent writing a new file.
	TotalCreateTime int64 `json:"totalCreateTime"`
}

// ParseCommitMetadata parses commit metadata: JSON, or the Avro container
// file of timeline layout 2 (Hudi 1.x). Empty data is empty metadata, as in
// Hudi.
func ParseCommitMetadata(data []byte) (*CommitMetadata, error) {
	m := new(CommitMetadata)
	if err := decodeMetadata(data, m); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseReplaceCommitMetadata parses replace commit metadata as
// ParseCommitMetadata does. Empty data is empty metadata, as in Hudi.
func ParseReplaceCommitMetadata(data []byte) (*ReplaceCommitMetadata, error) {
	m := new(ReplaceCommitMetadata)
	if err := decodeMetadata(data, m); err != nil {
		return nil, err
	}
	return m, nil
}

// unmarshalMetadata parses data, a JSON object or nothing, into m.
func unmarshalMetadata(data []byte, m any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, m); err != nil {
		return fmt.Errorf("parse commit metadata: %w", err)
	}
	return nil
}

// AddWriteStat appends a write stat to a partition's list.
func (m *CommitMetadata) AddWriteStat(partition string, ws WriteStat) {
	if m.PartitionToWriteStats == nil {
		m.PartitionToWriteStats = make(map[string][]WriteStat)
	}
	m.PartitionToWriteStats[partition] = append(m.PartitionToWriteStats[partition], ws)
}

// Partitions returns the partition paths written, sorted.
func (m *CommitMetadata) Partitions() []string {
	parts := make([]string, 0, len(m.PartitionToWriteStats))
	for p := range m.PartitionToWriteStats {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return parts
}

// WriteStats returns all write stats, by partition path in sorted order and
// then in the order each partition lists them.
func (m *CommitMetadata) WriteStats() []WriteStat {
	var out []WriteStat
	for _, p := range m.Partitions() {
		out = append(out, m.PartitionToWriteStats[p]...)
	}
	return out
}

// WrittenPaths returns the paths, relative to the base path, of the files
// the commit wrote, in WriteStats order.
func (m *CommitMetadata) WrittenPaths() []string {
	var out []string
	for _, ws := range m.WriteStats() {
		if ws.Path != "" {
			out = append(out, ws.Path)
		}
	}
	return out
}

// FileIDsByPartition returns the ids of the file groups written, by
// partition path, in the order each partition lists them.
func (m *CommitMetadata) FileIDsByPartition() map[string][]string {
	out := make(map[string][]string, len(m.PartitionToWriteStats))
	for p, stats := range m.PartitionToWriteStats {
		for _, ws := range stats {
			if ws.FileID != "" {
				out[p] = append(out[p], ws.FileID)
			}
		}
	}
	return out
}

// WriteTotals are record and byte counts summed over a commit's write stats.
type WriteTotals struct {
	// Written is the number of records in the files written (numWrites).
	Written int64
	// Inserted is the number of records inserted (numInserts).
	Inserted int64
	// Updated is the number of records updated (numUpdateWrites).
	Updated int64
	// Deleted is the number of records deleted (numDeletes).
	Deleted int64
	// Errors is the number of records that failed (totalWriteErrors).
	Errors int64
	// Bytes is the number of bytes written (totalWriteBytes).
	Bytes int64
}

// Totals sums the commit's write stats.
func (m *CommitMetadata) Totals() WriteTotals {
	var t WriteTotals
	for _, stats := range m.PartitionToWriteStats {
		for _, ws := range stats {
			t.Written += ws.NumWrites
			t.Inserted += ws.NumInserts
			t.Updated += ws.NumUpdateWrites
			t.Deleted += ws.NumDeletes
			t.Errors += ws.TotalWriteErrors
			t.Bytes += ws.TotalWriteBytes
		}
	}
	return t
}

// Schema returns the writer's Avro schema JSON stored with the commit, or ""
// if there is none.
func (m *CommitMetadata) Schema() string {
	return m.ExtraMetadata[SchemaKey]
}

// FileGroupWork is the planned work on one existing file group, for the
// workload profile.
type FileGroupWork struct {
	// FileID is the file group's id.
	FileID string
	// PrevCommit is the instant time of the file group's latest version.
	PrevCommit string
	// Updates is the number of records to update in it.
	Updates int64
	// Inserts is the number of new records to add to it (small-file
	// handling).
	Inserts int64
}

// NewWorkloadProfile returns the metadata Hudi writes into a commit's
// inflight file before writing data (BaseCommitActionExecutor's
// saveWorkloadProfileMetadataToInflight): for each partition, an entry with
// FileID "" counting the records to insert into new file groups, then one
// entry per existing file group to be written, in the order given. inserts
// holds the new-file-group insert counts by partition path; fileGroups the
// existing file groups by partition path. A partition in only one of the two
// maps gets a zero count or no file-group entries.
func NewWorkloadProfile(op Operation, inserts map[string]int64, fileGroups map[string][]FileGroupWork) *CommitMetadata {
	m := &CommitMetadata{
		PartitionToWriteStats: make(map[string][]WriteStat),
		ExtraMetadata:         map[string]string{},
		OperationType:         op,
	}
	add := func(p string) {
		if _, done := m.PartitionToWriteStats[p]; done {
			return
		}
		m.AddWriteStat(p, WriteStat{PrevCommit: NullCommit, NumInserts: inserts[p]})
		for _, fg := range fileGroups[p] {
			m.AddWriteStat(p, WriteStat{
				FileID:          fg.FileID,
				PrevCommit:      fg.PrevCommit,
				NumUpdateWrites: fg.Updates,
				NumInserts:      fg.Inserts,
			})
		}
	}
	for p := range inserts {
		add(p)
	}
	for p := range fileGroups {
		add(p)
	}
	return m
}

// MarshalJSON writes the metadata as Hudi does (HoodieCommitMetadata's
// toJsonString): Jackson's pretty printing, fields in Hudi's order, map
// entries in java.util.HashMap order. A commit file Hudi wrote comes back
// byte for byte when parsed and marshalled again.
func (m CommitMetadata) MarshalJSON() ([]byte, error) {
	return appendJackson(nil, m.jsonValue(), 0), nil
}

// MarshalJSON writes the metadata as Hudi does, partitionToReplaceFileIds
// last; see CommitMetadata.MarshalJSON.
func (m ReplaceCommitMetadata) MarshalJSON() ([]byte, error) {
	replaced := jsonMap(m.PartitionToReplaceFileIDs, func(ids []string) any { return jsonList(ids, jsonString) })
	obj := append(m.CommitMetadata.jsonValue(), jsonField{"partitionToReplaceFileIds", replaced})
	return appendJackson(nil, obj, 0), nil
}

func (m *CommitMetadata) jsonValue() jsonObject {
	return jsonObject{
		{"partitionToWriteStats", jsonMap(m.PartitionToWriteStats, func(stats []WriteStat) any {
			return jsonList(stats, WriteStat.jsonValue)
		})},
		{"compacted", m.Compacted},
		{"extraMetadata", jsonMap(m.ExtraMetadata, jsonString)},
		{"operationType", nullIfEmpty(string(m.OperationType))},
	}
}

func (ws WriteStat) jsonValue() any {
	var runtime any
	if r := ws.RuntimeStats; r != nil {
		runtime = jsonObject{
			{"totalScanTime", r.TotalScanTime},
			{"totalUpsertTime", r.TotalUpsertTime},
			{"totalCreateTime", r.TotalCreateTime},
		}
	}
	partitionPath := any(ws.PartitionPath)
	if ws.PartitionPath == "" && ws.Path == "" {
		partitionPath = nil
	}
	return jsonObject{
		{"fileId", ws.FileID},
		{"path", nullIfEmpty(ws.Path)},
		{"cdcStats", jsonMap(ws.CDCStats, func(n int64) any { return n })},
		{"prevCommit", nullIfEmpty(ws.PrevCommit)},
		{"numWrites", ws.NumWrites},
		{"numDeletes", ws.NumDeletes},
		{"numUpdateWrites", ws.NumUpdateWrites},
		{"numInserts", ws.NumInserts},
		{"totalWriteBytes", ws.TotalWriteBytes},
		{"totalWriteErrors", ws.TotalWriteErrors},
		{"tempPath", nullIfEmpty(ws.TempPath)},
		{"partitionPath", partitionPath},
		{"totalLogRecords", ws.TotalLogRecords},
		{"totalLogFilesCompacted", ws.TotalLogFilesCompacted},
		{"totalLogSizeCompacted", ws.TotalLogSizeCompacted},
		{"totalUpdatedRecordsCompacted", ws.TotalUpdatedRecordsCompacted},
		{"totalLogBlocks", ws.TotalLogBlocks},
		{"totalCorruptLogBlock", ws.TotalCorruptLogBlock},
		{"totalRollbackBlocks", ws.TotalRollbackBlocks},
		{"fileSizeInBytes", ws.FileSizeInBytes},
		{"minEventTime", optionalInt(ws.MinEventTime)},
		{"maxEventTime", optionalInt(ws.MaxEventTime)},
		{"runtimeStats", runtime},
	}
}

// jsonMap is m as a JSON object in java.util.HashMap order, each value
// converted by value; a nil map is JSON null.
func jsonMap[V any](m map[string]V, value func(V) any) any {
	if m == nil {
		return nil
	}
	obj := make(jsonObject, 0, len(m))
	for _, k := range hashMapKeys(m) {
		obj = append(obj, jsonField{k, value(m[k])})
	}
	return obj
}

// jsonList is l as a JSON array, each element converted by value; a nil
// slice is JSON null.
func jsonList[E any](l []E, value func(E) any) any {
	if l == nil {
		return nil
	}
	arr := make(jsonArray, len(l))
	for i, e := range l {
		arr[i] = value(e)
	}
	return arr
}

func jsonString(s string) any { return s }

// nullIfEmpty is s, or JSON null for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// optionalInt is *p, or JSON null for nil.
func optionalInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

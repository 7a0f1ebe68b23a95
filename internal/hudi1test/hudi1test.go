// Package hudi1test makes tables of table version 8 laid out as Apache
// Hudi 1.0.2 lays them out, for tests: Go tests cannot run Spark, so they
// write a table with Hoodie and turn it into the table Hudi 1.0.2 would have
// written. The layout follows what Spark with Hudi 1.0.2 wrote in the
// interop suite (interop/hudi1_tables.py): hoodie.properties with the keys
// of version 8, the active timeline in .hoodie/timeline, completed instant
// files named <requested>_<completion>.<action>, and commit metadata (of
// completed and inflight files) as Avro object container files, uncompressed,
// holding one HoodieCommitMetadata record. It uses hamba/avro, an encoder
// independent of Hoodie's decoder.
package hudi1test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// CommitMetadataSchema is the Avro schema of HoodieCommitMetadata exactly as
// Hudi 1.0.2 embeds it in a commit file.
const CommitMetadataSchema = `{"type":"record","name":"HoodieCommitMetadata","namespace":"org.apache.hudi.avro.model","fields":[{"name":"partitionToWriteStats","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"HoodieWriteStat","fields":[{"name":"fileId","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"path","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"prevCommit","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"numWrites","type":["null","long"],"default":null},{"name":"numDeletes","type":["null","long"],"default":null},{"name":"numUpdateWrites","type":["null","long"],"default":null},{"name":"totalWriteBytes","type":["null","long"],"default":null},{"name":"totalWriteErrors","type":["null","long"],"default":null},{"name":"partitionPath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"totalLogRecords","type":["null","long"],"default":null},{"name":"totalLogFiles","type":["null","long"],"default":null},{"name":"totalUpdatedRecordsCompacted","type":["null","long"],"default":null},{"name":"numInserts","type":["null","long"],"default":null},{"name":"totalLogBlocks","type":["null","long"],"default":null},{"name":"totalCorruptLogBlock","type":["null","long"],"default":null},{"name":"totalRollbackBlocks","type":["null","long"],"default":null},{"name":"fileSizeInBytes","type":["null","long"],"default":null},{"name":"logVersion","type":["null","int"],"default":null},{"name":"logOffset","type":["null","long"],"default":null},{"name":"baseFile","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"logFiles","type":["null",{"type":"array","items":{"type":"string","avro.java.string":"String"},"default":null}],"default":null},{"name":"cdcStats","type":["null",{"type":"map","values":"long","avro.java.string":"String","default":null}],"default":null},{"name":"prevBaseFile","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"minEventTime","type":["null","long"],"default":null},{"name":"maxEventTime","type":["null","long"],"default":null},{"name":"runtimeStats","type":["null",{"type":"record","name":"HoodieRuntimeStats","fields":[{"name":"totalScanTime","type":["null","long"],"default":null},{"name":"totalCreateTime","type":["null","long"],"default":null},{"name":"totalUpsertTime","type":["null","long"],"default":null}]}],"default":null},{"name":"totalLogFilesCompacted","type":["null","long"],"default":null},{"name":"totalLogReadTimeMs","type":["null","long"],"default":null},{"name":"totalLogSizeCompacted","type":["null","long"],"default":null},{"name":"tempPath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"numUpdates","type":["null","long"],"default":null}]}},"avro.java.string":"String"}],"default":null},{"name":"compacted","type":["null","boolean"],"default":null},{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String","default":null}],"default":null},{"name":"version","type":["int","null"],"default":1},{"name":"operationType","type":["null",{"type":"string","avro.java.string":"String"}],"default":null}]}`

// ReplaceCommitMetadataSchema is the Avro schema of
// HoodieReplaceCommitMetadata exactly as Hudi 1.0.2 embeds it in a
// completed replacecommit's file: HoodieCommitMetadata's fields and
// partitionToReplaceFileIds.
const ReplaceCommitMetadataSchema = `{"type":"record","name":"HoodieReplaceCommitMetadata","namespace":"org.apache.hudi.avro.model","fields":[{"name":"partitionToWriteStats","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"HoodieWriteStat","fields":[{"name":"fileId","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"path","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"prevCommit","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"numWrites","type":["null","long"],"default":null},{"name":"numDeletes","type":["null","long"],"default":null},{"name":"numUpdateWrites","type":["null","long"],"default":null},{"name":"totalWriteBytes","type":["null","long"],"default":null},{"name":"totalWriteErrors","type":["null","long"],"default":null},{"name":"partitionPath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"totalLogRecords","type":["null","long"],"default":null},{"name":"totalLogFiles","type":["null","long"],"default":null},{"name":"totalUpdatedRecordsCompacted","type":["null","long"],"default":null},{"name":"numInserts","type":["null","long"],"default":null},{"name":"totalLogBlocks","type":["null","long"],"default":null},{"name":"totalCorruptLogBlock","type":["null","long"],"default":null},{"name":"totalRollbackBlocks","type":["null","long"],"default":null},{"name":"fileSizeInBytes","type":["null","long"],"default":null},{"name":"logVersion","type":["null","int"],"default":null},{"name":"logOffset","type":["null","long"],"default":null},{"name":"baseFile","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"logFiles","type":["null",{"type":"array","items":{"type":"string","avro.java.string":"String"},"default":null}],"default":null},{"name":"cdcStats","type":["null",{"type":"map","values":"long","avro.java.string":"String","default":null}],"default":null},{"name":"prevBaseFile","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"minEventTime","type":["null","long"],"default":null},{"name":"maxEventTime","type":["null","long"],"default":null},{"name":"runtimeStats","type":["null",{"type":"record","name":"HoodieRuntimeStats","fields":[{"name":"totalScanTime","type":["null","long"],"default":null},{"name":"totalCreateTime","type":["null","long"],"default":null},{"name":"totalUpsertTime","type":["null","long"],"default":null}]}],"default":null},{"name":"totalLogFilesCompacted","type":["null","long"],"default":null},{"name":"totalLogReadTimeMs","type":["null","long"],"default":null},{"name":"totalLogSizeCompacted","type":["null","long"],"default":null},{"name":"tempPath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"numUpdates","type":["null","long"],"default":null}]}},"avro.java.string":"String"}],"default":null},{"name":"compacted","type":["null","boolean"],"default":null},{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1},{"name":"operationType","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"partitionToReplaceFileIds","type":["null",{"type":"map","values":{"type":"array","items":{"type":"string","avro.java.string":"String"}},"avro.java.string":"String"}],"default":null}]}`

// writeStat is HoodieWriteStat, with the JSON names of table version 6's
// commit metadata and the Avro names of version 8's (the same).
type writeStat struct {
	FileID                       *string           `json:"fileId" avro:"fileId"`
	Path                         *string           `json:"path" avro:"path"`
	PrevCommit                   *string           `json:"prevCommit" avro:"prevCommit"`
	NumWrites                    *int64            `json:"numWrites" avro:"numWrites"`
	NumDeletes                   *int64            `json:"numDeletes" avro:"numDeletes"`
	NumUpdateWrites              *int64            `json:"numUpdateWrites" avro:"numUpdateWrites"`
	TotalWriteBytes              *int64            `json:"totalWriteBytes" avro:"totalWriteBytes"`
	TotalWriteErrors             *int64            `json:"totalWriteErrors" avro:"totalWriteErrors"`
	PartitionPath                *string           `json:"partitionPath" avro:"partitionPath"`
	TotalLogRecords              *int64            `json:"totalLogRecords" avro:"totalLogRecords"`
	TotalLogFiles                *int64            `json:"totalLogFiles" avro:"totalLogFiles"`
	TotalUpdatedRecordsCompacted *int64            `json:"totalUpdatedRecordsCompacted" avro:"totalUpdatedRecordsCompacted"`
	NumInserts                   *int64            `json:"numInserts" avro:"numInserts"`
	TotalLogBlocks               *int64            `json:"totalLogBlocks" avro:"totalLogBlocks"`
	TotalCorruptLogBlock         *int64            `json:"totalCorruptLogBlock" avro:"totalCorruptLogBlock"`
	TotalRollbackBlocks          *int64            `json:"totalRollbackBlocks" avro:"totalRollbackBlocks"`
	FileSizeInBytes              *int64            `json:"fileSizeInBytes" avro:"fileSizeInBytes"`
	LogVersion                   *int32            `json:"logVersion" avro:"logVersion"`
	LogOffset                    *int64            `json:"logOffset" avro:"logOffset"`
	BaseFile                     *string           `json:"baseFile" avro:"baseFile"`
	LogFiles                     *[]string         `json:"logFiles" avro:"logFiles"`
	CDCStats                     *map[string]int64 `json:"cdcStats" avro:"cdcStats"`
	PrevBaseFile                 *string           `json:"prevBaseFile" avro:"prevBaseFile"`
	MinEventTime                 *int64            `json:"minEventTime" avro:"minEventTime"`
	MaxEventTime                 *int64            `json:"maxEventTime" avro:"maxEventTime"`
	RuntimeStats                 *runtimeStats     `json:"runtimeStats" avro:"runtimeStats"`
	TotalLogFilesCompacted       *int64            `json:"totalLogFilesCompacted" avro:"totalLogFilesCompacted"`
	TotalLogReadTimeMs           *int64            `json:"totalLogReadTimeMs" avro:"totalLogReadTimeMs"`
	TotalLogSizeCompacted        *int64            `json:"totalLogSizeCompacted" avro:"totalLogSizeCompacted"`
	TempPath                     *string           `json:"tempPath" avro:"tempPath"`
	NumUpdates                   *int64            `json:"numUpdates" avro:"numUpdates"`
}

type runtimeStats struct {
	TotalScanTime   *int64 `json:"totalScanTime" avro:"totalScanTime"`
	TotalCreateTime *int64 `json:"totalCreateTime" avro:"totalCreateTime"`
	TotalUpsertTime *int64 `json:"totalUpsertTime" avro:"totalUpsertTime"`
}

// commitMetadata is HoodieCommitMetadata.
type commitMetadata struct {
	PartitionToWriteStats *map[string][]writeStat `json:"partitionToWriteStats" avro:"partitionToWriteStats"`
	Compacted             *bool                   `json:"compacted" avro:"compacted"`
	ExtraMetadata         *map[string]string      `json:"extraMetadata" avro:"extraMetadata"`
	Version               *int32                  `json:"version" avro:"version"`
	OperationType         *string                 `json:"operationType" avro:"operationType"`
}

// replaceCommitMetadata is HoodieReplaceCommitMetadata.
type replaceCommitMetadata struct {
	commitMetadata
	PartitionToReplaceFileIDs *map[string][]string `json:"partitionToReplaceFileIds" avro:"partitionToReplaceFileIds"`
}

// AvroCommitMetadata turns commit metadata JSON, as table version 6 holds
// it, into the Avro container file that Hudi 1.0.2 writes for the same
// commit: one HoodieCommitMetadata record, no codec. Empty JSON (a
// requested commit's) stays empty.
func AvroCommitMetadata(js []byte) ([]byte, error) {
	var m commitMetadata
	return avroMetadata(js, &m, CommitMetadataSchema)
}

// AvroReplaceCommitMetadata is AvroCommitMetadata for the metadata of a
// completed replacecommit: one HoodieReplaceCommitMetadata record.
func AvroReplaceCommitMetadata(js []byte) ([]byte, error) {
	var m replaceCommitMetadata
	return avroMetadata(js, &m, ReplaceCommitMetadataSchema)
}

// avroMetadata decodes js into m and encodes m with the Avro schema text.
func avroMetadata(js []byte, m any, schemaText string) ([]byte, error) {
	if len(bytes.TrimSpace(js)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(js, m); err != nil {
		return nil, fmt.Errorf("commit metadata JSON: %w", err)
	}
	schema, err := avro.Parse(schemaText)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(schema, &buf)
	if err != nil {
		return nil, err
	}
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// instantFile matches the instant files Hoodie writes in table version 6.
var instantFile = regexp.MustCompile(`^(\d{17})(\.commit\.requested|\.inflight|\.commit)$`)

// Upgrade turns the copy-on-write table of version 6 on fsys, as Hoodie
// writes it (commits only), into the table of version 8 that Hudi 1.0.2
// would have written: hoodie.properties gets version 8's keys as Spark
// writes them (hoodie.table.keygenerator.type instead of the class, the
// timeline and history paths, the merge mode), and each instant file moves
// to .hoodie/timeline, its JSON metadata turned into Avro, a completed
// commit's file named <requested>_<completion>.commit with the completion
// time completion(requested) gives. An instant of another action fails.
func Upgrade(ctx context.Context, fsys storage.FS, completion func(requested string) string) error {
	props, err := upgradeProperties(ctx, fsys)
	if err != nil {
		return err
	}
	timeline := path.Join(storage.MetaFolder, "timeline")
	if err := fsys.MkdirAll(ctx, path.Join(timeline, "history")); err != nil {
		return err
	}
	entries, err := fsys.ReadDir(ctx, storage.MetaFolder)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir || e.Name[0] < '0' || e.Name[0] > '9' {
			continue
		}
		m := instantFile.FindStringSubmatch(e.Name)
		if m == nil {
			return fmt.Errorf("hudi1test: instant file %s: only commits are upgraded", e.Name)
		}
		from := path.Join(storage.MetaFolder, e.Name)
		data, err := fsys.ReadFile(ctx, from)
		if err != nil {
			return err
		}
		name := e.Name
		if m[2] != ".commit.requested" {
			if data, err = AvroCommitMetadata(data); err != nil {
				return fmt.Errorf("hudi1test: %s: %w", from, err)
			}
		}
		if m[2] == ".commit" {
			name = m[1] + "_" + completion(m[1]) + ".commit"
		}
		if err := fsys.WriteFile(ctx, path.Join(timeline, name), data); err != nil {
			return err
		}
		if err := fsys.Remove(ctx, from); err != nil {
			return err
		}
	}
	if err := fsys.Remove(ctx, path.Join(storage.MetaFolder, storage.DefaultArchiveFolder)); err != nil {
		return fmt.Errorf("hudi1test: remove the empty archive folder of version 6: %w", err)
	}
	return fsys.WriteFile(ctx, storage.PropertiesFile, props)
}

// upgradeProperties returns the table's hoodie.properties with the keys of
// version 8, as Spark with Hudi 1.0.2 writes them.
func upgradeProperties(ctx context.Context, fsys storage.FS) ([]byte, error) {
	data, err := fsys.ReadFile(ctx, storage.PropertiesFile)
	if err != nil {
		return nil, err
	}
	p, err := config.ParseProperties(data)
	if err != nil {
		return nil, err
	}
	class, _ := p.Get(config.KeyKeyGeneratorClass)
	types := map[string]string{
		config.SimpleKeyGenerator:         "SIMPLE",
		config.ComplexKeyGenerator:        "COMPLEX",
		config.NonpartitionedKeyGenerator: "NON_PARTITION",
	}
	if types[class] == "" {
		return nil, fmt.Errorf("hudi1test: key generator %q", class)
	}
	p.Delete(config.KeyKeyGeneratorClass)
	p.Set(config.KeyKeyGeneratorType, types[class])
	mode := "EVENT_TIME_ORDERING"
	if payload, _ := p.Get(config.KeyPayloadClass); payload == config.CommitTimePayload {
		mode = "COMMIT_TIME_ORDERING"
	}
	for k, v := range map[string]string{
		config.KeyTableVersion:          "8",
		"hoodie.table.initial.version":  "8",
		config.KeyTimelineLayoutVersion: "2",
		"hoodie.timeline.path":          "timeline",
		"hoodie.timeline.history.path":  "history",
		config.KeyArchiveLogFolder:      "history",
		"hoodie.record.merge.mode":      mode,
	} {
		p.Set(k, v)
	}
	return p.Marshal(), nil
}

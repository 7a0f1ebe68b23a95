package timeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/hoodie-dev/hoodie/storage"
)

// The layouts of Hudi 0.15's rollback plan and metadata (HoodieRollbackPlan,
// HoodieRollbackMetadata and the records they hold), as its Avro schemas
// give them. Hudi reads the files with its own schemas and resolves them
// against these by field name.
const (
	instantInfoSchema = `{"type":"record","name":"HoodieInstantInfo","fields":[
 {"name":"commitTime","type":"string"},
 {"name":"action","type":"string"}]}`

	rollbackPartitionMetadataSchema = `{"type":"record","name":"HoodieRollbackPartitionMetadata","fields":[
 {"name":"partitionPath","type":"string"},
 {"name":"successDeleteFiles","type":{"type":"array","items":"string"}},
 {"name":"failedDeleteFiles","type":{"type":"array","items":"string"}},
 {"name":"rollbackLogFiles","type":["null",{"type":"map","values":"long"}],"default":null},
 {"name":"logFilesFromFailedCommit","type":["null",{"type":"map","values":"long"}],"default":null}]}`

	rollbackPlanSchema = `{"type":"record","name":"HoodieRollbackPlan","namespace":"org.apache.hudi.avro.model","fields":[
 {"name":"instantToRollback","type":["null",` + instantInfoSchema + `],"default":null},
 {"name":"RollbackRequests","type":["null",{"type":"array","items":{"type":"record","name":"HoodieRollbackRequest","fields":[
   {"name":"partitionPath","type":"string"},
   {"name":"fileId","type":["null","string"],"default":null},
   {"name":"latestBaseInstant","type":["null","string"],"default":null},
   {"name":"filesToBeDeleted","type":{"type":"array","items":"string"},"default":[]},
   {"name":"logBlocksToBeDeleted","type":["null",{"type":"map","values":"long"}],"default":null}]}}],"default":null},
 {"name":"version","type":["int","null"],"default":1}]}`

	rollbackMetadataFields = `
 {"name":"startRollbackTime","type":"string"},
 {"name":"timeTakenInMillis","type":"long"},
 {"name":"totalFilesDeleted","type":"int"},
 {"name":"commitsRollback","type":{"type":"array","items":"string"}},
 {"name":"partitionMetadata","type":{"type":"map","values":` + rollbackPartitionMetadataSchema + `}},
 {"name":"version","type":["int","null"],"default":1},`

	rollbackMetadataSchema = `{"type":"record","name":"HoodieRollbackMetadata","namespace":"org.apache.hudi.avro.model","fields":[` +
		rollbackMetadataFields + `
 {"name":"instantsRollback","type":{"type":"array","items":` + instantInfoSchema + `},"default":[]}]}`
)

// rollbackPlanVersion and rollbackMetadataVersion are the versions Hudi
// 0.15 writes (LATEST_ROLLBACK_PLAN_VERSION, the metadata's default).
const (
	rollbackPlanVersion     = 1
	rollbackMetadataVersion = 1
)

// InstantInfo names an instant by its time and action (Hudi's
// HoodieInstantInfo).
type InstantInfo struct {
	CommitTime string `avro:"commitTime"`
	Action     string `avro:"action"`
}

// RollbackRequest is what a rollback deletes in one partition (Hudi's
// HoodieRollbackRequest). A marker-based request names one file group and
// the instant of its base file; a listing-based one leaves both empty.
// Files are full paths, as Hudi writes them.
type RollbackRequest struct {
	PartitionPath        string            `avro:"partitionPath"`
	FileID               *string           `avro:"fileId"`
	LatestBaseInstant    *string           `avro:"latestBaseInstant"`
	FilesToBeDeleted     []string          `avro:"filesToBeDeleted"`
	LogBlocksToBeDeleted *map[string]int64 `avro:"logBlocksToBeDeleted"`
}

// RollbackPlan is the content of a .rollback.requested file (Hudi's
// HoodieRollbackPlan): the instant to roll back and the files to delete.
type RollbackPlan struct {
	InstantToRollback *InstantInfo       `avro:"instantToRollback"`
	RollbackRequests  *[]RollbackRequest `avro:"RollbackRequests"`
	Version           *int32             `avro:"version"`
}

// NewRollbackPlan returns the plan of a rollback of in deleting what
// requests name, at the version Hudi 0.15 writes.
func NewRollbackPlan(in Instant, requests []RollbackRequest) *RollbackPlan {
	v := int32(rollbackPlanVersion)
	if requests == nil {
		requests = []RollbackRequest{}
	}
	return &RollbackPlan{
		InstantToRollback: &InstantInfo{CommitTime: in.Time, Action: string(in.Action)},
		RollbackRequests:  &requests,
		Version:           &v,
	}
}

// Requests returns the plan's requests; nil when it has none.
func (p *RollbackPlan) Requests() []RollbackRequest {
	if p.RollbackRequests == nil {
		return nil
	}
	return *p.RollbackRequests
}

// RollbackPartitionMetadata is what a rollback deleted in one partition
// (Hudi's HoodieRollbackPartitionMetadata).
type RollbackPartitionMetadata struct {
	PartitionPath            string            `avro:"partitionPath"`
	SuccessDeleteFiles       []string          `avro:"successDeleteFiles"`
	FailedDeleteFiles        []string          `avro:"failedDeleteFiles"`
	RollbackLogFiles         *map[string]int64 `avro:"rollbackLogFiles"`
	LogFilesFromFailedCommit *map[string]int64 `avro:"logFilesFromFailedCommit"`
}

// RollbackMetadata is the content of a completed .rollback file (Hudi's
// HoodieRollbackMetadata): the instants rolled back and the files deleted,
// by partition.
type RollbackMetadata struct {
	StartRollbackTime string                               `avro:"startRollbackTime"`
	TimeTakenInMillis int64                                `avro:"timeTakenInMillis"`
	TotalFilesDeleted int32                                `avro:"totalFilesDeleted"`
	CommitsRollback   []string                             `avro:"commitsRollback"`
	PartitionMetadata map[string]RollbackPartitionMetadata `avro:"partitionMetadata"`
	Version           *int32                               `avro:"version"`
	InstantsRollback  []InstantInfo                        `avro:"instantsRollback"`
}

// NewRollbackMetadata returns the metadata of the rollback at instant time
// start of the instants rolledBack, which deleted the files deleted lists
// by partition, having taken took milliseconds.
func NewRollbackMetadata(start string, took int64, rolledBack []Instant, deleted map[string][]string) *RollbackMetadata {
	v := int32(rollbackMetadataVersion)
	m := &RollbackMetadata{
		StartRollbackTime: start,
		TimeTakenInMillis: took,
		CommitsRollback:   []string{},
		PartitionMetadata: map[string]RollbackPartitionMetadata{},
		Version:           &v,
		InstantsRollback:  []InstantInfo{},
	}
	for _, in := range rolledBack {
		m.CommitsRollback = append(m.CommitsRollback, in.Time)
		m.InstantsRollback = append(m.InstantsRollback, InstantInfo{CommitTime: in.Time, Action: string(in.Action)})
	}
	for part, files := range deleted {
		m.TotalFilesDeleted += int32(len(files))
		m.PartitionMetadata[part] = RollbackPartitionMetadata{
			PartitionPath:      part,
			SuccessDeleteFiles: append([]string{}, files...),
			FailedDeleteFiles:  []string{},
		}
	}
	return m
}

var (
	rollbackPlanAvro     = avro.MustParse(rollbackPlanSchema)
	rollbackMetadataAvro = avro.MustParse(rollbackMetadataSchema)
)

// MarshalAvro encodes the plan as Hudi writes it: an Avro object container
// file holding one HoodieRollbackPlan.
func (p *RollbackPlan) MarshalAvro() ([]byte, error) {
	return avroContainer(rollbackPlanAvro, p)
}

// MarshalAvro encodes the metadata as Hudi writes it: an Avro object
// container file holding one HoodieRollbackMetadata.
func (m *RollbackMetadata) MarshalAvro() ([]byte, error) {
	return avroContainer(rollbackMetadataAvro, m)
}

// ParseRollbackPlan decodes the content of a .rollback.requested file.
func ParseRollbackPlan(data []byte) (*RollbackPlan, error) {
	return avroObject[RollbackPlan](data, "HoodieRollbackPlan")
}

// ParseRollbackMetadata decodes the content of a completed .rollback file.
func ParseRollbackMetadata(data []byte) (*RollbackMetadata, error) {
	return avroObject[RollbackMetadata](data, "HoodieRollbackMetadata")
}

// avroContainer writes v as the one object of an Avro object container file
// of schema, uncompressed, as Hudi's TimelineMetadataUtils serializes its
// timeline metadata.
func avroContainer(schema avro.Schema, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(schema, &buf)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", schema.(avro.NamedSchema).Name(), err)
	}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", schema.(avro.NamedSchema).Name(), err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode %s: %w", schema.(avro.NamedSchema).Name(), err)
	}
	return buf.Bytes(), nil
}

// avroObject reads the one object of an Avro object container file, a
// Hudi record named name, into its Go form T, with the schema the file
// holds.
func avroObject[T any](data []byte, name string) (*T, error) {
	dec, err := ocf.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !dec.HasNext() {
		if err := dec.Error(); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		return nil, fmt.Errorf("read %s: the file holds no object", name)
	}
	v := new(T)
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if dec.HasNext() {
		return nil, fmt.Errorf("read %s: the file holds more than one object", name)
	}
	if err := dec.Error(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return v, nil
}

// RevertToInflight takes a completed instant back to inflight, as Hudi's
// revertToInflight does before a rollback deletes its files: it makes sure
// the instant's requested and inflight files exist (empty if they were
// missing), then deletes its completed file, after which no reader sees
// the instant's data. An instant that is not completed is left as it is,
// so that a rollback run again does not bring back an instant it already
// deleted.
func RevertToInflight(ctx context.Context, fsys storage.FS, in Instant) error {
	done, err := in.withState(StateCompleted).Path()
	if err != nil {
		return err
	}
	completed, err := storage.Exists(ctx, fsys, done)
	if err != nil || !completed {
		return err
	}
	for _, s := range []State{StateRequested, StateInflight} {
		p, err := in.withState(s).Path()
		if err != nil {
			continue // the action has no such state
		}
		if err := fsys.CreateIfAbsent(ctx, p, nil); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("revert %s to inflight: create %s: %w", in, p, err)
		}
	}
	if err := fsys.Remove(ctx, done); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("revert %s to inflight: remove %s: %w", in, done, err)
	}
	return nil
}

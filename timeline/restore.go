package timeline

import "github.com/hamba/avro/v2"

// The layouts of Hudi 0.15's restore plan and metadata (HoodieRestorePlan,
// HoodieRestoreMetadata).
const (
	restorePlanSchema = `{"type":"record","name":"HoodieRestorePlan","namespace":"org.apache.hudi.avro.model","fields":[
 {"name":"instantsToRollback","type":{"type":"array","items":` + instantInfoSchema + `},"default":[]},
 {"name":"version","type":["int","null"],"default":2},
 {"name":"savepointToRestoreTimestamp","type":["null","string"],"default":null}]}`

	restoreMetadataSchema = `{"type":"record","name":"HoodieRestoreMetadata","namespace":"org.apache.hudi.avro.model","fields":[
 {"name":"startRestoreTime","type":"string"},
 {"name":"timeTakenInMillis","type":"long"},
 {"name":"instantsToRollback","type":{"type":"array","items":"string"}},
 {"name":"hoodieRestoreMetadata","type":{"type":"map","values":{"type":"array","items":["null",` + rollbackMetadataSchema + `]}}},
 {"name":"version","type":["int","null"],"default":1},
 {"name":"restoreInstantInfo","type":{"type":"array","items":"HoodieInstantInfo"},"default":[]}]}`
)

// restorePlanVersion and restoreMetadataVersion are the versions Hudi 0.15
// writes (LATEST_RESTORE_PLAN_VERSION, the metadata's default).
const (
	restorePlanVersion     = 2
	restoreMetadataVersion = 1
)

// RestorePlan is the content of a .restore.requested file (Hudi's
// HoodieRestorePlan): the instants to roll back, newest first, to take the
// table back to a savepoint.
type RestorePlan struct {
	InstantsToRollback          []InstantInfo `avro:"instantsToRollback"`
	Version                     *int32        `avro:"version"`
	SavepointToRestoreTimestamp *string       `avro:"savepointToRestoreTimestamp"`
}

// NewRestorePlan returns the plan of a restore to the savepoint at instant
// time savepoint that rolls back instants, in their order.
func NewRestorePlan(savepoint string, instants []Instant) *RestorePlan {
	v := int32(restorePlanVersion)
	p := &RestorePlan{InstantsToRollback: []InstantInfo{}, Version: &v, SavepointToRestoreTimestamp: &savepoint}
	for _, in := range instants {
		p.InstantsToRollback = append(p.InstantsToRollback, InstantInfo{CommitTime: in.Time, Action: string(in.Action)})
	}
	return p
}

// Savepoint returns the instant time of the savepoint the plan restores
// to; "" for a plan of version 1, which does not say.
func (p *RestorePlan) Savepoint() string {
	if p.SavepointToRestoreTimestamp == nil {
		return ""
	}
	return *p.SavepointToRestoreTimestamp
}

// RestoreMetadata is the content of a completed .restore file (Hudi's
// HoodieRestoreMetadata): the instants rolled back and, by instant, the
// metadata of its rollback.
type RestoreMetadata struct {
	StartRestoreTime      string                         `avro:"startRestoreTime"`
	TimeTakenInMillis     int64                          `avro:"timeTakenInMillis"`
	InstantsToRollback    []string                       `avro:"instantsToRollback"`
	HoodieRestoreMetadata map[string][]*RollbackMetadata `avro:"hoodieRestoreMetadata"`
	Version               *int32                         `avro:"version"`
	RestoreInstantInfo    []InstantInfo                  `avro:"restoreInstantInfo"`
}

// NewRestoreMetadata returns the metadata of the restore at instant time
// start, which rolled back the instants rolledBack with the rollbacks
// rollbacks (by instant time), having taken took milliseconds.
func NewRestoreMetadata(start string, took int64, rolledBack []Instant, rollbacks map[string]*RollbackMetadata) *RestoreMetadata {
	v := int32(restoreMetadataVersion)
	m := &RestoreMetadata{
		StartRestoreTime:      start,
		TimeTakenInMillis:     took,
		InstantsToRollback:    []string{},
		HoodieRestoreMetadata: map[string][]*RollbackMetadata{},
		Version:               &v,
		RestoreInstantInfo:    []InstantInfo{},
	}
	for _, in := range rolledBack {
		m.InstantsToRollback = append(m.InstantsToRollback, in.Time)
		m.RestoreInstantInfo = append(m.RestoreInstantInfo, InstantInfo{CommitTime: in.Time, Action: string(in.Action)})
		if rb := rollbacks[in.Time]; rb != nil {
			m.HoodieRestoreMetadata[in.Time] = []*RollbackMetadata{rb}
		}
	}
	return m
}

var (
	restorePlanAvro     = avro.MustParse(restorePlanSchema)
	restoreMetadataAvro = avro.MustParse(restoreMetadataSchema)
)

// MarshalAvro encodes the plan as Hudi writes it: an Avro object container
// file holding one HoodieRestorePlan.
func (p *RestorePlan) MarshalAvro() ([]byte, error) {
	return avroContainer(restorePlanAvro, p)
}

// MarshalAvro encodes the metadata as Hudi writes it: an Avro object
// container file holding one HoodieRestoreMetadata.
func (m *RestoreMetadata) MarshalAvro() ([]byte, error) {
	return avroContainer(restoreMetadataAvro, m)
}

// ParseRestorePlan decodes the content of a .restore.requested file.
func ParseRestorePlan(data []byte) (*RestorePlan, error) {
	return avroObject[RestorePlan](data, "HoodieRestorePlan")
}

// ParseRestoreMetadata decodes the content of a completed .restore file.
func ParseRestoreMetadata(data []byte) (*RestoreMetadata, error) {
	return avroObject[RestoreMetadata](data, "HoodieRestoreMetadata")
}

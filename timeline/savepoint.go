package timeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/hamba/avro/v2"

	"github.com/hoodie-dev/hoodie/storage"
)

// savepointMetadataSchemaText is Hudi 0.15's HoodieSavepointMetadata.avsc,
// as its generated class holds it.
const savepointMetadataSchemaText = `{"type":"record","name":"HoodieSavepointMetadata","namespace":"org.apache.hudi.avro.model","fields":[
{"name":"savepointedBy","type":{"type":"string","avro.java.string":"String"}},
{"name":"savepointedAt","type":"long"},
{"name":"comments","type":{"type":"string","avro.java.string":"String"}},
{"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieSavepointPartitionMetadata","fields":[
 {"name":"partitionPath","type":{"type":"string","avro.java.string":"String"}},
 {"name":"savepointDataFile","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}}]},"avro.java.string":"String"}},
{"name":"version","type":["int","null"],"default":1}]}`

var savepointMetadataSchema = avro.MustParse(savepointMetadataSchemaText)

// SavepointMetadata is what a savepoint keeps: Hudi's
// HoodieSavepointMetadata, the content of a .savepoint file.
type SavepointMetadata struct {
	// By names who made the savepoint; At is when.
	By string
	At time.Time
	// Comment is the savepoint's comment.
	Comment string
	// Files maps each partition to the names (without folder) of the base
	// files the savepointed commit's snapshot reads there.
	Files map[string][]string
}

// FileNames returns every file the savepoint keeps, by name.
func (m *SavepointMetadata) FileNames() []string {
	var out []string
	for _, files := range m.Files {
		out = append(out, files...)
	}
	sort.Strings(out)
	return out
}

type avroSavepointPartition struct {
	PartitionPath     string   `avro:"partitionPath"`
	SavepointDataFile []string `avro:"savepointDataFile"`
}

type avroSavepointMetadata struct {
	SavepointedBy     string                            `avro:"savepointedBy"`
	SavepointedAt     int64                             `avro:"savepointedAt"`
	Comments          string                            `avro:"comments"`
	PartitionMetadata map[string]avroSavepointPartition `avro:"partitionMetadata"`
	Version           *int32                            `avro:"version"`
}

// MarshalSavepointMetadata encodes m as Hudi writes a savepoint (version 1,
// savepointedAt in milliseconds since the epoch).
func MarshalSavepointMetadata(m *SavepointMetadata) ([]byte, error) {
	version := int32(1)
	v := avroSavepointMetadata{
		SavepointedBy: m.By, SavepointedAt: m.At.UnixMilli(), Comments: m.Comment,
		PartitionMetadata: make(map[string]avroSavepointPartition, len(m.Files)), Version: &version,
	}
	for part, files := range m.Files {
		if files == nil {
			files = []string{}
		}
		v.PartitionMetadata[part] = avroSavepointPartition{PartitionPath: part, SavepointDataFile: files}
	}
	return encodeAvro(savepointMetadataSchema, v, "savepoint metadata")
}

// ParseSavepointMetadata reads a savepoint's metadata, as Hudi or
// MarshalSavepointMetadata wrote it.
func ParseSavepointMetadata(data []byte) (*SavepointMetadata, error) {
	m, err := decodeAvro(data, "savepoint metadata")
	if err != nil {
		return nil, err
	}
	at, _ := m["savepointedAt"].(int64)
	out := &SavepointMetadata{By: avroString(m, "savepointedBy"), At: time.UnixMilli(at).UTC(), Comment: avroString(m, "comments"), Files: map[string][]string{}}
	parts, _ := m["partitionMetadata"].(map[string]any)
	for part, x := range parts {
		pm, _ := x.(map[string]any)
		out.Files[part] = avroStrings(pm["savepointDataFile"])
	}
	return out, nil
}

// Savepoints returns the completed savepoints.
func (t *Timeline) Savepoints() *Timeline {
	return t.Filter(func(in Instant) bool { return in.Action == ActionSavepoint && in.State == StateCompleted })
}

// ReadSavepointMetadata reads the metadata of a completed savepoint.
func (t *Timeline) ReadSavepointMetadata(ctx context.Context, in Instant) (*SavepointMetadata, error) {
	if in.Action != ActionSavepoint || in.State != StateCompleted {
		return nil, fmt.Errorf("read savepoint metadata of %s: %w: not a completed savepoint", in, ErrInvalidInstant)
	}
	return readAvroInstant(ctx, t, in, ParseSavepointMetadata)
}

// CreateSavepoint saves the commit of instant time ts as Hudi's
// SavepointActionExecutor does: an empty .savepoint.inflight file, then the
// .savepoint file holding data (the Avro metadata). An inflight file left
// by an earlier attempt is reused. It fails with fs.ErrExist if the
// savepoint exists. The caller holds the table's writer lock and has
// checked that ts is a completed commit.
func CreateSavepoint(ctx context.Context, fsys storage.FS, ts string, data []byte) (Instant, error) {
	inflight := Instant{Time: ts, Action: ActionSavepoint, State: StateInflight}
	p, err := inflight.Path()
	if err != nil {
		return Instant{}, err
	}
	if err := fsys.CreateIfAbsent(ctx, p, nil); err != nil && !errors.Is(err, fs.ErrExist) {
		return Instant{}, fmt.Errorf("create savepoint %s: %w", ts, err)
	}
	return Complete(ctx, fsys, inflight, data)
}

// DeleteSavepoint removes the savepoint of instant time ts as Hudi's
// deleteSavepoint does: its completed file, then its inflight file; a
// crash between leaves a pending savepoint, which keeps nothing and which
// the next CreateSavepoint or DeleteSavepoint of ts reuses or removes.
func DeleteSavepoint(ctx context.Context, fsys storage.FS, ts string) error {
	for _, s := range []State{StateCompleted, StateInflight} {
		if err := removeState(ctx, fsys, Instant{Time: ts, Action: ActionSavepoint}, s); err != nil {
			return fmt.Errorf("delete savepoint %s: %w", ts, err)
		}
	}
	return nil
}

package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
)

// avroMagic starts an Avro object container file.
var avroMagic = []byte{'O', 'b', 'j', 1}

// decodeMetadata parses commit metadata data into m (a *CommitMetadata or
// a *ReplaceCommitMetadata): JSON, as table version 6 writes it, nothing
// (empty metadata), or an Avro object container file holding one
// HoodieCommitMetadata or HoodieReplaceCommitMetadata record, as Hudi 1.x
// writes the completed and inflight files of timeline layout 2
// (CommitMetadataSerDeV2). The Avro record's fields have the names of the
// JSON's, so the record is read as the JSON object it stands for: unknown
// fields are ignored and nulls leave zero values, as in JSON.
func decodeMetadata(data []byte, m any) error {
	if !bytes.HasPrefix(data, avroMagic) {
		return unmarshalMetadata(data, m)
	}
	objects, err := avrofile.Read(data)
	if err != nil {
		return fmt.Errorf("parse Avro commit metadata: %w", err)
	}
	if len(objects) != 1 {
		return fmt.Errorf("parse Avro commit metadata: the file holds %d records, want 1", len(objects))
	}
	if _, ok := objects[0].(map[string]any); !ok {
		return fmt.Errorf("parse Avro commit metadata: the file holds a %T, want a HoodieCommitMetadata record", objects[0])
	}
	js, err := json.Marshal(objects[0])
	if err != nil {
		return fmt.Errorf("parse Avro commit metadata: %w", err)
	}
	return unmarshalMetadata(js, m)
}

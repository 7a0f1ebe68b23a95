package timeline

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
)

// encodeAvro writes v as an Avro object container file of one object, as
// Hudi's TimelineMetadataUtils.serializeAvroMetadata does: the writer schema
// in the header, no compression. what names the object in errors.
func encodeAvro(schema avro.Schema, v any, what string) ([]byte, error) {
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(schema, &buf, ocf.WithCodec(ocf.Null))
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return buf.Bytes(), nil
}

// decodeAvro reads the one object of an Avro object container file, with
// the schema the file holds (so files of older Hudi versions read too).
func decodeAvro(data []byte, what string) (map[string]any, error) {
	objects, err := avrofile.Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(objects) != 1 {
		return nil, fmt.Errorf("%s: %d objects, want 1", what, len(objects))
	}
	m, ok := objects[0].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the object is no record", what)
	}
	return m, nil
}

// readAvroInstant reads the file of in and parses it with parse; a parse
// error names the instant.
func readAvroInstant[T any](ctx context.Context, t *Timeline, in Instant, parse func([]byte) (*T, error)) (*T, error) {
	data, err := t.ReadDetails(ctx, in)
	if err != nil {
		return nil, err
	}
	v, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("instant %s: %w", in, err)
	}
	return v, nil
}

// avroString returns the string field of a decoded record, "" when absent
// or null.
func avroString(m map[string]any, field string) string {
	s, _ := m[field].(string)
	return s
}

// avroStrings returns the array-of-strings field of a decoded record.
func avroStrings(v any) []string {
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// avroStringMap returns the map-of-strings field of a decoded record; nil
// when absent or null.
func avroStringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

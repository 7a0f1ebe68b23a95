// Package avrofile reads Avro object container files into generic values:
// the format of the plans on Hudi's timeline (a requested replacecommit's
// clustering plan, cleaner and rollback plans).
//
// Hudi's own schemas are not always valid Avro (a union whose default is
// not of its first branch), so the writer schema each file embeds is taken
// as it is, without checking defaults, which decoding never uses.
package avrofile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
)

// magic starts every Avro object container file.
var magic = []byte{'O', 'b', 'j', 1}

// maxDepth bounds the nesting of schemas and values.
const maxDepth = 64

// maxBlock bounds the size of a file's blocks once decompressed, all
// together: timeline plans are small, and a few bytes of deflate can claim
// gigabytes.
const maxBlock = 64 << 20

// Read decodes every object of the Avro object container file data, with
// the schema the file holds. Values take these Go types: null nil, boolean
// bool, int int32, long int64, float float32, double float64, bytes and
// fixed []byte, string string, enum its symbol as a string, array []any,
// map map[string]any, record map[string]any by field name, and a union
// the value of its branch.
func Read(data []byte) ([]any, error) {
	d := newDecoder(data)
	if !bytes.HasPrefix(data, magic) {
		return nil, errors.New("avro: not an object container file (no Obj\\x01 magic)")
	}
	d.pos = len(magic)
	meta, err := d.bytesMap()
	if err != nil {
		return nil, fmt.Errorf("avro: file header: %w", err)
	}
	sync, err := d.fixed(16)
	if err != nil {
		return nil, fmt.Errorf("avro: file header: %w", err)
	}
	schema, err := parseSchema(meta["avro.schema"])
	if err != nil {
		return nil, fmt.Errorf("avro: the file's schema: %w", err)
	}
	codec := string(meta["avro.codec"])
	room := maxBlock // decompressed bytes left for the file's blocks
	var out []any
	for d.pos < len(d.data) {
		count, err := d.long()
		if err != nil {
			return nil, fmt.Errorf("avro: block header: %w", err)
		}
		size, err := d.long()
		if err != nil {
			return nil, fmt.Errorf("avro: block header: %w", err)
		}
		raw, err := d.fixed(size)
		if err != nil {
			return nil, fmt.Errorf("avro: block of %d bytes: %w", size, err)
		}
		if marker, err := d.fixed(16); err != nil || !bytes.Equal(marker, sync) {
			return nil, errors.New("avro: a block does not end with the file's sync marker")
		}
		block, err := decompress(codec, raw, room)
		if err != nil {
			return nil, err
		}
		room -= len(block)
		if count < 0 || count > int64(len(block))+1 {
			return nil, fmt.Errorf("avro: a block of %d bytes claims %d objects", len(block), count)
		}
		bd := newDecoder(block)
		for range count {
			v, err := bd.value(schema, 0)
			if err != nil {
				return nil, fmt.Errorf("avro: object %d: %w", len(out)+1, err)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// decompress returns the data of a block written with codec, of at most
// limit bytes.
func decompress(codec string, raw []byte, limit int) ([]byte, error) {
	switch codec {
	case "", "null":
		return raw, nil
	case "deflate":
		b, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), int64(limit)+1))
		if err != nil {
			return nil, fmt.Errorf("avro: deflate block: %w", err)
		}
		if len(b) > limit {
			return nil, fmt.Errorf("avro: the blocks hold more than %d bytes", maxBlock)
		}
		return b, nil
	case "snappy":
		if len(raw) < 4 {
			return nil, errors.New("avro: snappy block without its checksum")
		}
		if n, err := snappy.DecodedLen(raw[:len(raw)-4]); err != nil || n > limit {
			return nil, fmt.Errorf("avro: a snappy block of %d bytes (%v); the blocks may hold %d", n, err, maxBlock)
		}
		b, err := snappy.Decode(nil, raw[:len(raw)-4])
		if err != nil {
			return nil, fmt.Errorf("avro: snappy block: %w", err)
		}
		if crc32.ChecksumIEEE(b) != binary.BigEndian.Uint32(raw[len(raw)-4:]) {
			return nil, errors.New("avro: snappy block: checksum mismatch")
		}
		return b, nil
	}
	return nil, fmt.Errorf("avro: codec %q is not supported (null, deflate, snappy)", codec)
}

// node is one type of a schema.
type node struct {
	kind     string // a primitive's name, or record, enum, array, map, union, fixed
	fields   []field
	symbols  []string
	items    *node // of an array, or the values of a map
	branches []*node
	size     int64
}

type field struct {
	name string
	typ  *node
}

// parseSchema parses a schema's JSON.
func parseSchema(text []byte) (*node, error) {
	if len(text) == 0 {
		return nil, errors.New("missing")
	}
	var raw any
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, err
	}
	p := &schemaParser{named: map[string]*node{}}
	return p.parse(raw, "", 0)
}

type schemaParser struct {
	named map[string]*node // by full name
}

var primitives = map[string]bool{"null": true, "boolean": true, "int": true, "long": true, "float": true, "double": true, "bytes": true, "string": true}

func (p *schemaParser) parse(raw any, namespace string, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deep")
	}
	switch x := raw.(type) {
	case string:
		if primitives[x] {
			return &node{kind: x}, nil
		}
		if n := p.named[fullName(x, namespace)]; n != nil {
			return n, nil
		}
		if n := p.named[x]; n != nil {
			return n, nil
		}
		return nil, fmt.Errorf("unknown type %q", x)
	case []any:
		u := &node{kind: "union"}
		for _, b := range x {
			n, err := p.parse(b, namespace, depth+1)
			if err != nil {
				return nil, err
			}
			u.branches = append(u.branches, n)
		}
		return u, nil
	case map[string]any:
		return p.parseObject(x, namespace, depth)
	}
	return nil, fmt.Errorf("a type must be a name, a union or an object, not %v", raw)
}

func (p *schemaParser) parseObject(x map[string]any, namespace string, depth int) (*node, error) {
	kind, _ := x["type"].(string)
	name, _ := x["name"].(string)
	if ns, ok := x["namespace"].(string); ok {
		namespace = ns
	}
	full := fullName(name, namespace)
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		namespace = full[:i]
	}
	switch kind {
	case "record", "error":
		n := &node{kind: "record"}
		p.named[full] = n
		fields, _ := x["fields"].([]any)
		for _, f := range fields {
			fm, ok := f.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("record %s: a field is not an object", full)
			}
			fname, _ := fm["name"].(string)
			t, err := p.parse(fm["type"], namespace, depth+1)
			if err != nil {
				return nil, fmt.Errorf("record %s field %s: %w", full, fname, err)
			}
			n.fields = append(n.fields, field{fname, t})
		}
		return n, nil
	case "enum":
		n := &node{kind: "enum"}
		symbols, _ := x["symbols"].([]any)
		for _, s := range symbols {
			str, _ := s.(string)
			n.symbols = append(n.symbols, str)
		}
		p.named[full] = n
		return n, nil
	case "fixed":
		size, _ := x["size"].(float64)
		if size < 0 || size > math.MaxInt32 || size != math.Trunc(size) {
			return nil, fmt.Errorf("fixed %s: size %v", full, x["size"])
		}
		n := &node{kind: "fixed", size: int64(size)}
		p.named[full] = n
		return n, nil
	case "array", "map":
		key := "items"
		if kind == "map" {
			key = "values"
		}
		items, err := p.parse(x[key], namespace, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		return &node{kind: kind, items: items}, nil
	}
	// {"type": "long", "logicalType": ...} and the like.
	return p.parse(x["type"], namespace, depth+1)
}

// fullName resolves a name against a namespace.
func fullName(name, namespace string) string {
	if strings.Contains(name, ".") || namespace == "" {
		return name
	}
	return namespace + "." + name
}

// decoder reads Avro's binary encoding.
type decoder struct {
	data []byte
	pos  int
	// values is how many more values the decoder may decode: values that
	// take no bytes (nulls, empty records) in arrays of arrays would
	// otherwise let a small file claim exponentially many.
	values int
}

// newDecoder returns a decoder of data.
func newDecoder(data []byte) *decoder {
	return &decoder{data: data, values: 64*len(data) + 4096}
}

var errShort = errors.New("the data ends early")

func (d *decoder) long() (int64, error) {
	u, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		return 0, errShort
	}
	d.pos += n
	return int64(u>>1) ^ -int64(u&1), nil
}

func (d *decoder) fixed(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(d.data)-d.pos) {
		return nil, errShort
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	return d.fixed(n)
}

// bytesMap reads the file header's map of bytes.
func (d *decoder) bytesMap() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := d.blocks(func() error {
		k, err := d.bytes()
		if err != nil {
			return err
		}
		v, err := d.bytes()
		out[string(k)] = v
		return err
	})
	return out, err
}

// blocks reads the blocks of an array or a map, calling item for each of
// their items.
func (d *decoder) blocks(item func() error) error {
	for {
		count, err := d.long()
		if err != nil {
			return err
		}
		if count == 0 {
			return nil
		}
		if count < 0 {
			count = -count
			if _, err := d.long(); err != nil { // the block's size in bytes
				return err
			}
		}
		if count > int64(len(d.data)-d.pos)+1 {
			return fmt.Errorf("a block claims %d items in %d bytes", count, len(d.data)-d.pos)
		}
		for range count {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

func (d *decoder) value(n *node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deep")
	}
	if d.values--; d.values < 0 {
		return nil, fmt.Errorf("more values than %d bytes can hold", len(d.data))
	}
	switch n.kind {
	case "null":
		return nil, nil
	case "boolean":
		b, err := d.fixed(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case "int":
		v, err := d.long()
		return int32(v), err
	case "long":
		return d.long()
	case "float":
		b, err := d.fixed(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case "double":
		b, err := d.fixed(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case "bytes":
		b, err := d.bytes()
		return bytes.Clone(b), err
	case "string":
		b, err := d.bytes()
		return string(b), err
	case "fixed":
		b, err := d.fixed(n.size)
		return bytes.Clone(b), err
	case "enum":
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(n.symbols)) {
			return nil, fmt.Errorf("enum index %d of %d symbols", i, len(n.symbols))
		}
		return n.symbols[i], nil
	case "union":
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(n.branches)) {
			return nil, fmt.Errorf("union branch %d of %d", i, len(n.branches))
		}
		return d.value(n.branches[i], depth+1)
	case "record":
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			v, err := d.value(f.typ, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.name, err)
			}
			m[f.name] = v
		}
		return m, nil
	case "array":
		out := []any{}
		err := d.blocks(func() error {
			v, err := d.value(n.items, depth+1)
			out = append(out, v)
			return err
		})
		return out, err
	case "map":
		out := map[string]any{}
		err := d.blocks(func() error {
			k, err := d.bytes()
			if err != nil {
				return err
			}
			v, err := d.value(n.items, depth+1)
			out[string(k)] = v
			return err
		})
		return out, err
	}
	return nil, fmt.Errorf("type %q", n.kind)
}

// Schema is a parsed Avro schema, for decoding datums written without an
// object container file around them (as Hudi's log blocks hold records,
// with the schema in the block's header).
type Schema struct{ root *node }

// ParseSchema parses an Avro schema in its JSON form, taken as it is (see
// the package documentation).
func ParseSchema(text []byte) (*Schema, error) {
	root, err := parseSchema(text)
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	return &Schema{root: root}, nil
}

// Decode decodes one datum of the schema from data, in Avro's binary
// encoding, into the Go types Read gives. The datum must take all of data.
func (s *Schema) Decode(data []byte) (any, error) {
	d := newDecoder(data)
	v, err := d.value(s.root, 0)
	if err != nil {
		return nil, fmt.Errorf("avro: %w", err)
	}
	if d.pos != len(data) {
		return nil, fmt.Errorf("avro: %d bytes left after the datum", len(data)-d.pos)
	}
	return v, nil
}

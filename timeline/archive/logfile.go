package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The framing of Hudi's log files (HoodieLogFormat version 1, as
// HoodieLogFormatWriter.appendBlock writes a block):
//
//	magic "#HUDI#"
//	int64  block length: the bytes that follow, up to and with the reverse pointer
//	int32  log format version (1)
//	int32  block type (HoodieLogBlockType ordinal; 3 is an Avro data block)
//	header: int32 count, then per entry int32 key (HeaderMetadataType
//	        ordinal), int32 length, UTF-8 value
//	int64  content length, then the content
//	footer: as the header
//	int64  reverse pointer: the block's length from its magic, without itself
//
// All integers are big-endian, as Java's DataOutputStream writes them. An
// Avro data block's content (HoodieAvroDataBlock.serializeRecords) is an
// int32 data block version (3), an int32 record count, then per record an
// int32 length and the record in Avro's binary encoding, with the schema of
// the header's SCHEMA entry.
var magic = []byte("#HUDI#")

const (
	logFormatVersion = 1
	avroDataBlock    = 3 // HoodieLogBlockType.AVRO_DATA_BLOCK
	headerSchema     = 2 // HeaderMetadataType.SCHEMA
	dataBlockVersion = 3 // HoodieLogBlock.version
	// maxHeaderEntries bounds a header's entries: Hudi has seven keys.
	maxHeaderEntries = 64
)

// block is one log block: its type, header and content.
type block struct {
	kind    int32
	header  map[int32]string
	content []byte
}

// appendBlock appends the framed block to dst.
func appendBlock(dst []byte, b block) []byte {
	header := appendMetadata(nil, b.header)
	footer := appendMetadata(nil, nil)
	start := len(dst)
	dst = append(dst, magic...)
	length := 4 + 4 + len(header) + 8 + len(b.content) + len(footer) + 8
	dst = binary.BigEndian.AppendUint64(dst, uint64(length))
	dst = binary.BigEndian.AppendUint32(dst, logFormatVersion)
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.kind))
	dst = append(dst, header...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(b.content)))
	dst = append(dst, b.content...)
	dst = append(dst, footer...)
	return binary.BigEndian.AppendUint64(dst, uint64(len(dst)-start))
}

// appendMetadata appends a header or footer, its keys in order.
func appendMetadata(dst []byte, m map[int32]string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(m)))
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = binary.BigEndian.AppendUint32(dst, uint32(k))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(m[k])))
		dst = append(dst, m[k]...)
	}
	return dst
}

// errCorrupt marks a block whose framing does not hold together. Hudi's
// HoodieLogFileReader reads such a block as a corrupt block and goes on at
// the next magic; so does readBlocks.
var errCorrupt = errors.New("corrupt block")

// readBlocks splits a log file into its blocks. A block whose framing does
// not hold together (a writer killed while appending it leaves a short
// one) is skipped up to the next magic, as Hudi skips corrupt blocks;
// skipped counts them.
func readBlocks(data []byte) (blocks []block, skipped int) {
	pos := 0
	for pos < len(data) {
		if !bytes.HasPrefix(data[pos:], magic) {
			next := bytes.Index(data[pos:], magic)
			if next < 0 {
				return blocks, skipped + 1
			}
			pos += next
			skipped++
			continue
		}
		b, n, err := parseBlock(data[pos:])
		if err != nil {
			skipped++
			next := bytes.Index(data[pos+len(magic):], magic)
			if next < 0 {
				return blocks, skipped
			}
			pos += len(magic) + next
			continue
		}
		blocks = append(blocks, b)
		pos += n
	}
	return blocks, skipped
}

// parseBlock parses the block at the start of data (which starts with the
// magic) and returns it with its length in bytes.
func parseBlock(data []byte) (block, int, error) {
	r := reader{data: data, pos: len(magic)}
	length := r.int64()
	if r.err != nil || length < 0 || length > int64(len(data)-r.pos) {
		return block{}, 0, fmt.Errorf("%w: a block length of %d with %d bytes left", errCorrupt, length, len(data)-r.pos)
	}
	end := r.pos + int(length)
	r.data = data[:end]
	if v := r.int32(); v != logFormatVersion && r.err == nil {
		return block{}, 0, fmt.Errorf("%w: log format version %d", errCorrupt, v)
	}
	b := block{kind: r.int32()}
	b.header = r.metadata()
	contentLen := r.int64()
	b.content = r.bytes(contentLen)
	r.metadata() // the footer: Hudi writes none
	back := r.int64()
	if r.err != nil {
		return block{}, 0, fmt.Errorf("%w: %v", errCorrupt, r.err)
	}
	if r.pos != end || back != int64(end-8) {
		return block{}, 0, fmt.Errorf("%w: a block of %d bytes whose reverse pointer says %d", errCorrupt, end-8, back)
	}
	return b, end, nil
}

// reader reads big-endian integers and byte runs, remembering the first
// error.
type reader struct {
	data []byte
	pos  int
	err  error
}

func (r *reader) take(n int64) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > int64(len(r.data)-r.pos) {
		r.err = fmt.Errorf("%d bytes wanted at offset %d of %d", n, r.pos, len(r.data))
		return nil
	}
	b := r.data[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b
}

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.take(8); b != nil {
		u := binary.BigEndian.Uint64(b)
		if u > math.MaxInt64 {
			r.err = fmt.Errorf("a length of %d", u)
			return 0
		}
		return int64(u)
	}
	return 0
}

func (r *reader) bytes(n int64) []byte { return r.take(n) }

func (r *reader) metadata() map[int32]string {
	n := r.int32()
	if r.err == nil && (n < 0 || n > maxHeaderEntries) {
		r.err = fmt.Errorf("a header of %d entries", n)
	}
	if r.err != nil {
		return nil
	}
	m := make(map[int32]string, n)
	for range n {
		k := r.int32()
		v := r.bytes(int64(r.int32()))
		if r.err != nil {
			return nil
		}
		m[k] = string(v)
	}
	return m
}

// dataBlockRecords splits the content of an Avro data block into its
// records' encodings.
func dataBlockRecords(content []byte) ([][]byte, error) {
	r := reader{data: content}
	version := r.int32()
	if r.err == nil && version < 2 {
		// Version 1 blocks (Hudi before 0.5) put a compressed schema
		// first; no table version 6 writer wrote them.
		return nil, fmt.Errorf("avro data block version %d is not supported", version)
	}
	count := r.int32()
	if r.err == nil && (count < 0 || int64(count)*4 > int64(len(content))) {
		return nil, fmt.Errorf("avro data block claims %d records in %d bytes", count, len(content))
	}
	records := make([][]byte, 0, count)
	for range count {
		rec := r.bytes(int64(r.int32()))
		if r.err != nil {
			return nil, fmt.Errorf("avro data block record %d: %w", len(records)+1, r.err)
		}
		records = append(records, rec)
	}
	if r.err != nil {
		return nil, fmt.Errorf("avro data block: %w", r.err)
	}
	if r.pos != len(content) {
		return nil, fmt.Errorf("avro data block: %d bytes after its %d records", len(content)-r.pos, count)
	}
	return records, nil
}

// appendDataBlockContent appends the content of an Avro data block holding
// the encoded records.
func appendDataBlockContent(dst []byte, records [][]byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, dataBlockVersion)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(records)))
	for _, rec := range records {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(rec)))
		dst = append(dst, rec...)
	}
	return dst
}

package index

import (
	"encoding/binary"
	"errors"
)

// Location is where a record lives: the file group, named by its partition
// path and file id, whose latest file slice holds the record.
type Location struct {
	// PartitionPath is the partition's path relative to the table root, with
	// '/' separators; empty for a non-partitioned table.
	PartitionPath string
	// FileID is the file group's id (a UUID and a suffix such as "-0" in
	// Hudi). It is never empty.
	FileID string
}

// String returns "partition/fileID", or just the file id when the partition
// path is empty.
func (l Location) String() string {
	if l.PartitionPath == "" {
		return l.FileID
	}
	return l.PartitionPath + "/" + l.FileID
}

// errBadPair reports a stored pair of strings that does not decode.
var errBadPair = errors.New("malformed string pair")

// appendPair appends the encoding of the strings a and b to dst: the
// uvarint length of a, a, then b (whose length is what remains). It encodes
// a Location (partition path, file id) and the table identity (name, id).
func appendPair(dst []byte, a, b string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(a)))
	return append(append(dst, a...), b...)
}

// decodePair decodes what appendPair encoded.
func decodePair(v []byte) (a, b string, err error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)-w) {
		return "", "", errBadPair
	}
	v = v[w:]
	return string(v[:n]), string(v[n:]), nil
}

// decodeLocation decodes a location encoded by appendPair.
func decodeLocation(v []byte) (Location, error) {
	p, f, err := decodePair(v)
	return Location{PartitionPath: p, FileID: f}, err
}

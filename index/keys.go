package index

import "encoding/binary"

// Every Pebble key of an index starts with a one-byte namespace. The
// namespaces sort in this order, so each is one contiguous key range.
const (
	nsGroup  byte = 'g' // 'g' + big-endian uint32 id -> encoded Location (file-group dictionary)
	nsMeta   byte = 'm' // 'm' + name -> metadata value
	nsRecord byte = 'r' // 'r' + record key -> uvarint file-group id
	nsVerify byte = 'v' // 'v' + record key -> encoded Location (Verify's scratch space)
)

// Metadata keys.
var (
	metaFormat     = []byte{nsMeta, 'f', 'o', 'r', 'm', 'a', 't'}
	metaTable      = []byte{nsMeta, 't', 'a', 'b', 'l', 'e'}
	metaWatermark  = []byte{nsMeta, 'w', 'a', 't', 'e', 'r', 'm', 'a', 'r', 'k'}
	metaRebuilding = []byte{nsMeta, 'r', 'e', 'b', 'u', 'i', 'l', 'd', 'i', 'n', 'g'}
)

// allLower and allUpper bound every key any format of the index writes:
// Rebuild deletes this whole range.
var (
	allLower = []byte{0x00}
	allUpper = []byte{0xff}
)

// span returns the key range [lower, upper) of namespace ns.
func span(ns byte) (lower, upper []byte) {
	return []byte{ns}, []byte{ns + 1}
}

// appendKey appends the Pebble key of name in namespace ns to dst.
func appendKey(dst []byte, ns byte, name string) []byte {
	return append(append(dst, ns), name...)
}

// groupKey returns the Pebble key of file-group id.
func groupKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{nsGroup}, id)
}

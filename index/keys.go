package index

import (
	"encoding/binary"
	"encoding/hex"
)

// Every Pebble key of an index starts with a one-byte namespace. The
// namespaces sort in this order, so each is one contiguous key range.
const (
	nsGroup  byte = 'g' // 'g' + big-endian uint32 id -> encoded Location (file-group dictionary)
	nsMeta   byte = 'm' // 'm' + name -> metadata value
	nsRecord byte = 'r' // 'r' + record key -> uvarint file-group id
	nsUUID   byte = 'u' // 'u' + 16 bytes of a UUID record key -> uvarint file-group id
)

// Metadata keys.
var (
	metaFormat     = []byte{nsMeta, 'f', 'o', 'r', 'm', 'a', 't'}
	metaTable      = []byte{nsMeta, 't', 'a', 'b', 'l', 'e'}
	metaWatermark  = []byte{nsMeta, 'w', 'a', 't', 'e', 'r', 'm', 'a', 'r', 'k'}
	metaRebuilding = []byte{nsMeta, 'r', 'e', 'b', 'u', 'i', 'l', 'd', 'i', 'n', 'g'}
	// metaView is the view digest stored with the watermark; it sorts
	// before metaWatermark, as the tables Apply ingests need.
	metaView = []byte{nsMeta, 'v', 'i', 'e', 'w'}
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

// recordSpan returns the key range [lower, upper) of the records, in both
// their namespaces.
func recordSpan() (lower, upper []byte) {
	return []byte{nsRecord}, []byte{nsUUID + 1}
}

// appendKey appends the Pebble key of name in namespace ns to dst.
func appendKey(dst []byte, ns byte, name string) []byte {
	return append(append(dst, ns), name...)
}

// groupKey returns the Pebble key of file-group id.
func groupKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{nsGroup}, id)
}

// uuidLen is the length of a UUID in canonical form, and uuidPairs the
// positions of its 16 pairs of hex digits.
const uuidLen = 36

var uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue maps a lowercase hex digit to its value, and any other byte to
// 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range []byte("0123456789abcdef") {
		t[c] = byte(i)
	}
	return t
}()

// appendRecordKey appends the Pebble key of record key k to dst: 'u' and
// the 16 bytes of k if k is a UUID in canonical form (see parseUUID), else
// 'r' and k.
func appendRecordKey(dst []byte, k string) []byte {
	// Parsing a copy is faster than parsing k when Tag encodes many keys
	// scattered in memory: the copies overlap their cache misses better.
	n := len(dst)
	dst = appendKey(dst, nsRecord, k)
	if u, ok := parseUUID(dst[n+1:]); ok {
		dst = append(append(dst[:n], nsUUID), u[:]...)
	}
	return dst
}

// recordKey returns the record key of a record's Pebble key.
func recordKey(key []byte) string {
	if key[0] == nsUUID && len(key) == 1+16 {
		return formatUUID(key[1:])
	}
	return string(key[1:])
}

// parseUUID decodes s if it is a UUID in canonical form: 36 characters,
// lowercase hex digits in groups of 8, 4, 4, 4 and 12 joined by dashes.
// Other spellings (upper case, braces, no dashes) are not UUIDs to the
// index, since they would not format back as they were given.
func parseUUID(s []byte) (u [16]byte, ok bool) {
	if len(s) != uuidLen || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	for i, p := range uuidPairs {
		hi, lo := hexValue[s[p]], hexValue[s[p+1]]
		if hi|lo > 0xf {
			return u, false
		}
		u[i] = hi<<4 | lo
	}
	return u, true
}

// formatUUID returns the canonical form of the 16 bytes of a UUID.
func formatUUID(u []byte) string {
	var s [uuidLen]byte
	hex.Encode(s[0:8], u[0:4])
	hex.Encode(s[9:13], u[4:6])
	hex.Encode(s[14:18], u[6:8])
	hex.Encode(s[19:23], u[8:10])
	hex.Encode(s[24:36], u[10:16])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return string(s[:])
}

package read

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// Digest identifies the view's live file groups and the instant of each
// one's latest slice: two views with the same groups, each at the same
// latest instant, have the same digest, and any other two, in all
// likelihood, different ones. It is a SHA-256 over the partition, file id
// and instant of every latest slice, in partition and file id order.
func (v *View) Digest() []byte { return DigestSlices(v.LatestSlices()) }

// DigestSlices is the Digest of a view whose file groups' latest slices
// are latest, given in any order.
func DigestSlices(latest []FileSlice) []byte {
	byGroup := func(a, b FileSlice) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.FileID, b.FileID))
	}
	sorted := latest
	if !slices.IsSortedFunc(latest, byGroup) {
		// A view's slices come sorted; a replay's map does not.
		sorted = slices.Clone(latest)
		slices.SortFunc(sorted, byGroup)
	}
	h := sha256.New()
	var buf []byte
	for _, s := range sorted {
		buf = buf[:0]
		for _, f := range []string{s.Partition, s.FileID, s.Instant} {
			// Length-prefixed, so that no two lists of fields hash alike.
			buf = binary.AppendUvarint(buf, uint64(len(f)))
			buf = append(buf, f...)
		}
		h.Write(buf)
	}
	return h.Sum(nil)
}

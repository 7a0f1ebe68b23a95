package index

import "bytes"

// ViewDigest returns what the caller stored with the watermark to identify
// the table's file-system view as of it (see ChangeSet.ViewDigest), or nil
// when nothing is stored: an index made before digests were recorded, or by
// Apply or Rebuild without one. A caller that finds the table's view as of
// the watermark different, such as a commit older than the watermark that
// completed after the index reached it, knows the index lacks its changes.
func (ix *Index) ViewDigest() []byte {
	ix.stateMu.RLock()
	defer ix.stateMu.RUnlock()
	if ix.stale != nil {
		return nil
	}
	return ix.viewDigest
}

// storedDigest is the stored form of a digest: nil is stored as the empty
// value, which reads back as nil.
func storedDigest(digest []byte) []byte {
	return append([]byte{}, digest...)
}

// keptDigest is the copy of a digest the Index keeps in memory: nil when
// digest is empty, as when it is read back.
func keptDigest(digest []byte) []byte {
	if len(digest) == 0 {
		return nil
	}
	return bytes.Clone(digest)
}

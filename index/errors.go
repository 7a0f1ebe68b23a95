package index

import "errors"

// Errors an index reports. They are wrapped with context; test with errors.Is.
var (
	// ErrStale reports an index that cannot be trusted: made for another
	// table or by another format version, left behind by an interrupted
	// rebuild, or holding data that does not decode. The caller rebuilds it
	// with Rebuild.
	ErrStale = errors.New("index is stale and must be rebuilt")

	// ErrBroken reports an index whose store failed: a file of it does not
	// read back as written (corruption), Pebble panicked, or a write to it
	// failed where Pebble cannot go on (a full disk). The index then fails
	// every use with the same error; the caller closes it and rebuilds it
	// with Recreate, which does not read the old store.
	ErrBroken = errors.New("index store failed")

	// ErrOutOfOrder reports an Apply whose instant is older than the
	// watermark.
	ErrOutOfOrder = errors.New("instant is older than the index watermark")

	// ErrEmptyKey reports an empty record key, which the index refuses.
	ErrEmptyKey = errors.New("empty record key")

	// ErrClosed reports the use of a closed index.
	ErrClosed = errors.New("index is closed")

	// ErrPrepared reports a Prepare or Apply while another change set is
	// prepared and neither committed nor discarded, or the Commit of a
	// Prepared that no longer is (committed, discarded, or dropped by a
	// Rebuild or Close).
	ErrPrepared = errors.New("another change set is prepared")
)

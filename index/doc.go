// Package index is Hoodie's global record index: a map from record key to
// the file group (partition path, file id) whose latest file slice holds the
// record. A write tags its incoming keys with Tag. After its commit, it
// records what moved with Apply.
//
// The index is a Pebble database in a folder of its own. For a local table
// that is <table>/.hoodie/.index/. docs/index.md describes its design; the
// figures behind it are in docs/performance.md.
//
// # A cache of the timeline
//
// The timeline is the truth and the index a cache of it. This package does
// not read the timeline or the table: the caller hands it change sets and
// snapshot scans.
//
//   - The watermark is the latest completed instant whose changes the index
//     holds ("" for none).
//   - ViewDigest is the caller's digest of the table's files as of the
//     watermark, stored with it in the same atomic step. It is opaque bytes
//     to the index.
//   - The caller catches the index up on the commits after the watermark,
//     or rebuilds it (Rebuild, RebuildDigest) from a snapshot when it cannot
//     trust it.
//   - If the timeline loses an instant the index holds (a rollback of a
//     completed commit, a restore), the index cannot undo it: the caller
//     rebuilds.
//
// # Keys
//
// Any non-empty string is a record key; the empty key is refused
// (ErrEmptyKey). A complex key (col1:v1,col2:v2) is one string. Keys are
// kept in index order: keys that are not UUIDs in canonical lowercase form,
// as Go strings sort, then UUIDs. Scan and Verify's examples come in that
// order.
//
// # Writes
//
// Apply(instant, changes) writes the puts, the deletes, the new watermark
// and the view digest atomically and durably. It is Prepare then Commit:
// a writer may prepare a change set while it writes its files, and commit
// it after its commit point.
//
//   - An instant older than the watermark is refused (ErrOutOfOrder).
//   - An instant equal to it is taken as applied: Apply does nothing, so
//     replaying the last commit is harmless.
//   - While a change set is prepared, the index refuses to prepare or apply
//     another (ErrPrepared). Rebuild and Close discard it.
//
// # Crashes
//
// A crash during Apply leaves the index with all of the changes or none.
// The next open finds the older watermark, and the caller catches up. A
// crash during Rebuild leaves an index that Open reports stale. Tables
// written for an ingestion that never happened are removed by the next
// Open. Verify writes nothing.
//
// # Failures
//
// Nothing about the index may stop a process, hold a table's lock for good,
// or keep a table's data from being read or written.
//
//   - A store that fails (corruption, a full disk, a Pebble panic) makes
//     every later use fail with an error wrapping ErrBroken, one line long.
//     Pebble then changes no file of the folder any more, and its folder
//     lock is released.
//   - Recreate builds a new index beside the folder and puts it in its
//     place, without opening the old one. The caller decides when.
//   - Nothing is printed unless Options.Logger is set.
//   - A flipped bit in a file of the store gives an error, or the records as
//     of the watermark; never another record's location.
//
// A store abandoned after ErrBroken keeps some memory and goroutines until
// the process exits.
//
// # Staleness
//
// Open still opens an index it cannot trust, and Stale then reports why,
// with an error wrapping ErrStale. An index is stale when:
//
//   - it was made for another table (name or id);
//   - it was made by another format version;
//   - a rebuild of it did not finish;
//   - its metadata or dictionary does not decode.
//
// A stale index refuses every read and Apply until Rebuild succeeds. Tag,
// Scan and Verify also wrap ErrStale when they meet a record naming no file
// group.
package index

// Package index is Hoodie's global record index: a map from record key to
// the location of the record, the file group (partition path, file id) whose
// latest file slice holds it. A write tags its incoming keys with Tag, and
// after its commit records what moved with Apply.
//
// The index is stored in a Pebble database in a folder of its own, by
// default <table>/.hoodie/.index/ for a local table. The timeline is the
// truth and the index a cache of it: it records the latest completed instant
// whose changes it contains (its watermark), a caller catches it up on the
// commits after that instant, and rebuilds it from a snapshot of the table
// when it cannot be trusted. This package does not read the timeline or the
// table itself; the caller hands it change sets and snapshot scans.
//
// # Keys
//
// Every Pebble key starts with a one-byte namespace:
//
//	'g' + uint32 id (big endian)  -> location     file-group dictionary
//	'm' + name                    -> value        metadata
//	'r' + record key              -> uvarint id   records
//	'u' + 16 bytes                -> uvarint id   records whose key is a UUID
//
// A record key that is a UUID in canonical form (36 characters: lowercase
// hex digits in groups of 8, 4, 4, 4 and 12 joined by dashes, a common form
// of record keys) is stored under 'u' as its 16 bytes. Any other
// key, other spellings of a UUID included, is stored under 'r' as its
// bytes, unescaped: the namespace byte keeps the record range apart, and
// Pebble keys may hold any byte. A complex key (col1:v1,col2:v2) is one
// string to the index. The empty key is refused.
//
// Records are therefore in index order: the keys under 'r' as Go strings
// sort, then the UUIDs, whose bytes sort as their text does. Tag sorts the
// keys it is given in that order to walk one iterator through them; Scan
// and Verify's examples follow it too. On 1M UUID records the store takes
// 24 MB against 42 MB with the keys as text, which nearly halves what a Tag
// of many keys reads (see Tagging).
//
// The metadata names are "format" (the format version, "2"; version 1
// stored UUIDs as text under 'r', and its stores read as stale), "table"
// (the table name and id given to Open), "watermark" (an instant, or empty
// when the index contains no instant), "view" (the caller's digest of the
// table's file-system view as of the watermark, opaque bytes; empty or
// absent when not known) and
// "rebuilding" (present only while a rebuild is under way; its value is the
// instant being rebuilt to).
//
// # Values
//
// A location is encoded as the uvarint length of the partition path, the
// partition path, then the file id. Record values do not hold it: partition
// paths and file ids repeat across millions of records, so each file group
// gets a dense small integer, stored once under 'g' and held in memory (one
// entry per file group), and a record's value is the uvarint of that id,
// one to three bytes. A new group's dictionary entry commits in the batch
// of the first record that names it. Entries of groups no record names any
// more stay until the next rebuild.
//
// Measured on 1M records over 1000 file groups (2-core VM, format 1): the
// dictionary store took 18 MB after compaction against 49 MB with the
// location inline in every value, loaded in 0.74 s against 1.83 s, and
// tagged 100k keys 2-3 times as fast, since a hit yields the dictionary's
// strings instead of decoding two new ones.
//
// # Tagging
//
// Tag turns the keys it is given into Pebble keys, sorts them in index
// order (with their positions, to answer in input order) and walks one
// Pebble iterator forward through them: a SeekGE per key, skipped when the
// iterator already stands at or past the key, so that Pebble reuses its
// position in the block it is reading. Keys that are all UUIDs
// are parsed into 20-byte entries (the 16 bytes and the key's position)
// and sorted in place by a radix sort on the fewest bytes that tell them
// apart; the walk reads the entries in order. Other keys are encoded into
// one buffer, and their positions sorted by a radix sort on each key's
// first 8 bytes after the prefix all the keys share, ties broken by
// comparing keys. Large calls parse and sort on a few goroutines, then
// share the sorted keys out in chunks of 4096 among a few goroutines, each
// walking a clone of the iterator over the same state; a goroutine takes
// the next chunk when done with its last, so one slowed down by other work
// takes fewer. Each copies its chunk's keys out before walking them
// (copying keys scattered in memory overlaps the cache misses that the
// walk, waiting on each lookup, would take one at a time) and writes the
// chunk's answers when done with it. Memory is the answers (Matches: 4
// bytes per key, the id of the key's file group), Pebble's block cache
// (Options.CacheSize) and, for UUIDs, 20 bytes per key and as many for the
// largest bucket the sort splits them into; for other keys, a copy of the
// keys and about 40 bytes per key. The index is never loaded whole.
//
// A Tag of many keys on a freshly opened index, as a writer opens it for
// each commit, reads nearly every data block: 100k keys on 1M records touch
// all of them. Measured there (2-core VM, block cache cold, OS page cache
// warm; BenchmarkTagSorted and hoodiectl bench's tag line), a Tag of 100k
// keys, half present, takes about 40% less time and CPU than with format 1,
// 4 KB blocks and a comparison sort: 16 KB blocks (see blockSize) and the
// 16-byte UUIDs save about a fifth of the CPU each, the radix sort, the
// copied chunks and the deferred answers most of the rest. What remains is
// mostly Pebble's: reading the blocks (allocating, copying, checksumming)
// and seeking in them, and, in a new process, the page faults of the
// memory the blocks are read into: a cache that keeps every block it reads
// takes as much new memory as the index's store, so the default cache is
// small (see DefaultCacheSize), which halved the time of this Tag in a new
// process. BenchmarkTagSorted does not show it: its process reuses the
// memory of the index it opened before. Block compression does not
// matter: Pebble stores a block as is when Snappy saves too little, as it
// does on these keys, and zstd, which shrank the store by a third, made
// Tag 50% slower. Stepping the iterator with Next before seeking, bloom
// filters with SeekPrefixGE, seeks with a limit and compacting the bulk
// insert's L0 tables into one level did not help.
//
// # Watermark
//
// Apply(instant, changes) writes the puts, the deletes and the new watermark
// in one synced batch, or, for a change set of 64k changes or more, into
// sorted tables that one Pebble ingestion adds (see Ingestion). An instant
// older than the watermark is refused (ErrOutOfOrder); one equal to it is
// taken as already applied, and Apply does nothing, so replaying the last
// commit is harmless.
//
// Apply is Prepare then Commit. Prepare does the work: it checks the
// changes, sorts their keys and, for an ingestion, writes the record
// tables; Commit writes the dictionary entries, the view digest and the
// watermark and adds it all at once. A writer whose plan fixes the changes
// (an insert puts each new record in the file group its task writes)
// prepares them while it writes its base files, so that after its commit
// point only the Commit is left. While changes are prepared, the index
// refuses to prepare or apply others (ErrPrepared); Rebuild and Close
// discard them.
//
// The keys of a change set usually come a file group at a time, each
// group's in key order, so they form a few ascending runs: up to 64 runs are
// merged (reading each in sequence) rather than sorted, which made the
// Apply of a sorting bulk insert's 1M keys, three runs, about 5% faster.
// Other changes are sorted as Tag sorts its keys: UUIDs in place as
// 20-byte entries (which took 12% less memory than sorting their
// positions), other keys by their positions. Rebuild sets the
// watermark to the snapshot's instant, older or newer. If the timeline loses
// a completed instant the index contains (a rollback of a completed commit,
// a restore), the index cannot undo it: the caller rebuilds.
//
// With the watermark, in the same atomic step, Apply and RebuildDigest store
// the caller's digest of the table's file-system view as of the watermark
// (ViewDigest; package write hashes the partition, file id and latest
// instant of every file group). A commit whose instant time is earlier than
// the watermark but which completed after it (a writer whose clock or time
// zone is behind, a long write) changes that view, whether or not it is
// still on the active timeline: the caller, finding the view's digest
// different from the stored one, rebuilds. Archiving does not change the
// view.
//
// # Crashes
//
// A write commits when its <t>.commit file exists, and commits its changes
// to the index afterwards. A crash before or during that leaves the index at
// an older watermark with none of the changes, which the next open catches
// up on: Pebble's batch, and its ingestion of several tables, are atomic and
// synced. Tables written for an ingestion that did not happen (prepared
// changes whose commit never came) are removed by the next Open.
//
// Rebuild first commits, synced, one batch that deletes every key, writes
// the table identity and format version, and sets the "rebuilding" mark. It
// then loads the scan in batches of about 16 MB without waiting for syncs
// (Pebble's log is ordered, so the final synced batch makes them all
// durable), and ends with one synced batch that sets the watermark and
// deletes the mark. An index opened with the mark present is stale, as is one
// whose rebuild failed, until a rebuild completes. Loading through batches
// was measured against ingesting sorted SSTs built from chunks of the scan
// (0.8 s against 0.9 s to 9 s for 1M records, the ingested tables
// overlapping in L0) and kept, being no slower and much simpler.
//
// Verify writes nothing: it compares the index with the snapshot one key
// range at a time, holding at most about 1M of the snapshot's records in
// memory. (Earlier versions staged the snapshot under 'v'; a crash could
// leave records there, which no read looks at and Rebuild deletes.)
//
// # Ingestion
//
// A batch is written three times: to Pebble's log, to its memtable, and,
// when the memtable is flushed, to a table. For a large change set Apply
// writes the tables itself, and Pebble links them into the store: the
// dictionary entries and the watermark in one table, the records split into
// key ranges written concurrently in others (tombstones for the deletes),
// all added by one ingestion, so that the watermark commits with the records.
// An ingested key gets a sequence number above every key in the store, so a
// put replaces a key's value and a tombstone deletes it, as in a batch. The
// records of a bulk insert into an empty index overlap nothing, and land in
// the bottom level, where no compaction rewrites them.
//
// Measured on a 2-core VM shared with other work (BenchmarkApplyBulkLoad,
// BenchmarkApplyUpsert; Apply, then the memtable flush a batch that large
// brings on), an Apply of 1M new keys into an empty index took 0.44 times
// as long as with a batch (0.35 s against 0.80 s; the Apply alone 0.73
// times), and one of 100k puts and 20k deletes into 1M records 0.72 times
// (the Apply alone as long, the flush being the time saved). At 10k puts
// the batch's Apply took 0.75 times as long as an ingestion, whose syncs
// and forced memtable flush cost more than the batch saves, hence the
// threshold of 64k changes. The bottom-level layout did not change the
// speed of Tag.
//
// # Failures
//
// The index is a cache of the timeline: nothing about it may stop a
// process, hold a table's lock for good, or keep a table's data from being
// read or written. Pebble, made for servers that restart, treats a write
// it cannot complete in its log or manifest (a full disk) and corruption
// it finds as fatal to the process: it exits through its logger, panics,
// or retries a failed flush forever while writes wait. An index watches
// its store for all of these (see monitor): the first one, or a
// corruption error Pebble returns, makes the index fail every later use
// with an error wrapping ErrBroken, one line long; the Pebble goroutine
// that met it stops for good, its folder lock is released, and Pebble may
// change no file of the folder any more. Nothing is printed unless
// Options.Logger is set. Recreate then builds a new index beside the
// folder and puts it in its place, without opening the old one; the
// caller decides when (Hoodie's writer does at once and says so; a reader
// falls back to the files' footers). A store abandoned this way keeps
// some memory and goroutines until the process exits.
//
// A flipped bit in any file of the store is caught by Pebble's checksums
// (of blocks, log records, manifest records) or by the decoding of its
// options: an index that opens and reads returns what it held as of its
// watermark, or an error, never another record's location. A log whose
// tail does not check is cut there, as after a crash: the index then
// holds an earlier watermark, which the caller catches up on.
//
// # Staleness
//
// Open reports through Stale, with an error wrapping ErrStale, an index that
// was made for another table (name or id), by another format version, or by
// an unfinished rebuild, or whose metadata or dictionary does not decode.
// Such an index refuses every read and Apply until Rebuild succeeds. Tag,
// Scan and Verify also wrap ErrStale when they meet a record naming no file
// group.
package index

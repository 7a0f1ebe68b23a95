// Package timeline is a table's commit log: the instants in its .hoodie
// folder, laid out as Apache Hudi's timeline layout version 1 (table version
// 6), so that Hudi, Spark, Trino and hudi-rs read what Hoodie writes and
// Hoodie reads what they write. It also reads timeline layout 2 (table
// version 8, Hudi 1.x), which Hoodie does not write: see Layout.
//
// # Layout
//
// Every change to a table is an instant: an action (commit, deltacommit,
// replacecommit, clean, rollback, savepoint, restore, compaction,
// logcompaction, indexing, schemacommit) at an instant time, 17 digits
// yyyyMMddHHmmssSSS (Hoodie generates them in UTC; tables written before Hudi
// 0.9 have 14-digit times). An instant passes through up to three states,
// each marked by a file of its own directly in .hoodie:
//
//	20240418172802262.commit.requested   requested: empty for a commit
//	20240418172802262.inflight           inflight: the workload profile JSON
//	20240418172802262.commit             completed: the commit metadata JSON
//
// Other actions name their files <time>.<action>.requested,
// <time>.<action>.inflight and <time>.<action>; a commit's inflight file is
// <time>.inflight for compatibility with old tables, a compaction completes
// as <time>.commit and a log compaction as <time>.deltacommit, and a
// savepoint (which takes the time of the commit it saves) has no requested
// file. Hudi keeps the requested and inflight files after an instant
// completes, so an instant's state is that of its latest file. Folders in
// .hoodie (archived, .temp, .aux, .schema, .heartbeat, metadata...) and files
// whose names do not start with a digit (hoodie.properties and its backup)
// are not instants. Instants order by time compared as strings, then by
// action.
//
// The commit metadata (CommitMetadata) is Hudi's HoodieCommitMetadata as JSON:
// for each partition the write stats of the file groups written, the writer's
// Avro schema under extraMetadata's "schema" key, and the write operation.
// Hoodie writes it byte for byte as Hudi's Jackson does. The Avro contents of
// clean, rollback and replacecommit plans are not read here. In layout 2 the
// same metadata is an Avro container file, which reads into the same types.
//
// # Protocol
//
// A writer holding the table's writer lock makes an instant in three steps,
// each of which creates one file with storage.FS.CreateIfAbsent, which
// publishes a whole file or nothing and never replaces a file:
//
//  1. CreateRequested takes a new instant time from a Generator (later than
//     every instant on the timeline, even if the clock stands still or steps
//     back) and creates the requested file, retrying with a later time if the
//     file exists.
//  2. TransitionToInflight creates the inflight file with the workload
//     profile, once the requested file exists. The writer then writes its
//     data files.
//  3. Complete creates the completed file with the commit metadata, once the
//     inflight file exists. This is the commit point.
//
// A failed or abandoned instant is removed by DeletePending (after its data
// files), inflight file first, then requested file; it never deletes a
// completed instant.
//
// # Crash safety
//
// The completed file is the commit point: a reader treats an instant as
// completed only if its completed file exists and its metadata parses, and
// reads data files only of completed instants. Until Complete succeeds the
// instant is pending and readers ignore it and every file it wrote; after
// that it is completed for good. A crash at any step therefore leaves the
// table as it was before the instant or with the instant whole:
//
//   - before or during step 1 or 2: at most a requested or inflight file,
//     which readers ignore and the next writer rolls back;
//   - during step 3: create-if-absent publishes the whole completed file or
//     none, and Complete checks that the metadata parses before writing it,
//     so a completed file that exists always parses;
//   - after step 3: the instant is completed; leftover markers do not change
//     what readers see.
//
// Because create-if-absent never replaces a file, two writers racing to
// create or complete the same instant cannot both succeed: exactly one
// completes it and the other gets an error satisfying
// errors.Is(err, fs.ErrExist).
package timeline

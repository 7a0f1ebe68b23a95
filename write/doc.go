// Package write changes a copy-on-write Hoodie table. A Writer applies one
// operation (insert, bulk insert, upsert, delete, soft delete) with a batch
// of records as one commit on the table's timeline. Spark, Trino and
// hudi-rs read the result as an Apache Hudi table (table version 6).
//
// The package also keeps the table's record index in step with the
// timeline (SyncIndex, RebuildIndex, RecreateIndex, VerifyIndex), and
// declares every hoodie.* write setting once (SettingsRegistry), with its
// default and whether Hoodie honours it.
//
// # A write
//
// Writer.Write takes a batch of rows under the input's own schema:
//
//	w := write.NewWriter(fsys, write.Options{IndexDir: dir, TableID: id})
//	res, err := w.Write(ctx, write.OpUpsert, &write.Input{Schema: schema, Rows: rows})
//
// It works in this order:
//
//  1. Take the table's writer lock (storage.Lock). Readers never wait.
//  2. Reload hoodie.properties and check the write's settings.
//  3. Roll back every commit a dead writer left pending.
//  4. Evolve the table schema for the input, convert the rows to it, and
//     compute each record's key and partition path.
//  5. Sort the records by key and precombine records of one key: the
//     greatest precombine value wins, the later record on a tie.
//  6. Catch the record index up with the timeline, or rebuild it, and tag
//     each key with its file group.
//  7. Plan: updates and deletes by file group, inserts by partition,
//     filling small file groups first.
//  8. Run the commit protocol below.
//  9. After the commit point: drop the markers and give the index the
//     commit's key changes.
//
// # Commit protocol
//
// A commit is an instant on the timeline (see package timeline):
//
//  1. <t>.commit.requested is created.
//  2. <t>.inflight is created, with the workload profile.
//  3. Each touched file group gets a marker, then a new base file, in
//     parallel.
//  4. The pre-commit hook (Options.Hook) sees the files before and after.
//     An error from it aborts the write.
//  5. <t>.commit is created with the commit metadata. This is the commit
//     point.
//
// Before the commit point, any failure rolls the instant back and leaves
// the table as it was. After it, the commit stands: a failure to tidy up
// is a warning in Result.Warnings, which the next write repairs.
//
// # Crash safety
//
// Every instant file is published with storage.FS.CreateIfAbsent: whole or
// not at all, and never over an existing file. Readers see only completed
// instants, and only the files those instants name. A crash therefore leaves
// the table as it was before the write, or with the write whole.
//
// The next write cleans up what a crash left. First it completes the
// rollbacks and the restore that stopped half way, from the plans on the
// timeline (see Writer.Rollback and Writer.Restore, which undo completed
// writes with rollback and restore instants as Hudi writes them). Then it
// rolls back each pending commit, without a rollback instant, in this
// order:
//
//  1. the inflight file, so that the commit can no longer complete;
//  2. the files its markers name, or, without markers, the base files
//     that carry its instant time;
//  3. the partitions it created and left empty;
//  4. its markers, then its requested file.
//
// Each step can be repeated, so a rollback that dies half way is finished
// by the next one. A rollback never deletes anything of a completed
// instant.
//
// Two kinds of pending instant are left alone, as Hudi leaves them:
//
//   - a commit whose writer keeps a fresh heartbeat (a Spark writer with
//     the multi-writer setting, which does not take Hoodie's lock);
//   - a replacecommit (a clustering or an insert overwrite).
//
// A write keeps a heartbeat of its own, .hoodie/.heartbeat/<instant>, from
// its requested file until its commit is complete or rolled back, so that
// such a Spark writer leaves it alone. Another Hoodie writer never counts
// it alive: it holds the table lock.
//
// # The record index
//
// The index is a cache of the timeline. A write never fails because of
// it. An index that cannot be trusted is rebuilt from the latest snapshot;
// one that is damaged, or broken by a full disk, is recreated beside the
// old one, and Options.Notify is told. An update or delete whose tagged
// file does not hold its key fails the write, with nothing committed, and
// says to rebuild the index.
//
// # What is refused
//
// A write that is refused commits nothing and returns an error for which
// errors.Is(err, ErrRefused) is true (a *RefusedError):
//
//   - an insert of keys that already exist;
//   - a schema change other than new columns and numeric widenings (see
//     EvolveSchema), or a widening that would round values the table holds;
//   - a change to a file group that a pending replacecommit may replace;
//   - a failed pre-commit validator;
//   - a table another writer kept locked past the lock timeout
//     (hoodie.write.lock.wait_time_ms, Settings.LockTimeout);
//   - a rollback of a write that is not the latest, or that a savepoint
//     keeps, and a restore to an instant that is not a savepoint.
//
// Other errors also commit nothing:
//
//   - a bad record is a *RecordError naming the input, the record and the
//     cause;
//   - a hoodie.* setting that would change the result and that Hoodie does
//     not honour is refused before anything is written;
//   - a table Hoodie does not write (merge-on-read, or a key generator it
//     does not compute) is an error naming the setting.
package write

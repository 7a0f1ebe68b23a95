// Package hoodie is the embedding API of Hoodie, a copy-on-write lakehouse
// table engine whose tables are Apache Hudi tables (table version 6).
//
// # Basics
//
// A Table is one table: a folder holding the data files and the .hoodie
// metadata folder. Open opens one; Create makes an empty one from a
// TableSpec. Both take the local folder path, or any storage.FS with
// WithFS.
//
// Table.Write applies one operation (write.OpInsert, write.OpUpsert,
// write.OpDelete, ...) to a batch of records as one commit. Either the
// whole batch commits, under a new instant, or nothing does.
//
// Table.Scan reads a snapshot: the latest, one as of an instant (time
// travel), or the records committed between two instants (incremental).
// ScanOptions choose the columns and filter the records. Scan.Batches
// yields typed column vectors; Scan.Rows yields one record at a time.
//
//	t, err := hoodie.Open(ctx, "/data/trips")
//	...
//	res, err := t.Write(ctx, write.OpUpsert, input, hoodie.WriteOptions{})
//	...
//	scan, err := t.Scan(ctx, hoodie.ScanOptions{AsOf: res.Instant, Where: "fare > 10"})
//	...
//	defer scan.Close()
//	for batch, err := range scan.Batches() {
//		...
//	}
//
// Table.Instants lists the instants of the timeline, Table.FileSlices the
// data files of a snapshot. VerifyIndex and RebuildIndex check and repair the record index.
//
// # Caveats
//
// One Write runs at a time per table: each takes the table's writer lock,
// so writers in several processes take turns. Scans never wait for it.
//
// A write holds its whole input in memory. Split large inputs into several
// writes.
//
// The record index, which maps each record key to its file group, lives in
// a local folder (DefaultIndexFolder, or WithIndexDir). It is a cache of
// the table's files: a write catches it up or rebuilds it, and a scan that
// cannot use it reads the files' footers instead. A table off the local
// file system needs WithIndexDir.
//
// Tables are copy-on-write: Open refuses a merge-on-read table. Hoodie does
// not clean a table yet: old file versions stay, and time travel reaches
// them.
package hoodie

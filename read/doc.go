// Package read is what a reader of a Hoodie table sees: the file-system view
// of the table as of an instant (LoadView), and the snapshot, time-travel and
// incremental scans built on it (NewScan).
//
// This package never takes the writer lock and never waits for a writer.
// A reader sees completed instants only: the files of a write in progress,
// or of one that failed, are invisible.
//
// # Scans
//
// A Scan reads the records of a table given its file system, configuration
// and timeline:
//
//	tl, _ := timeline.Load(ctx, fsys)
//	cfg, _ := config.Load(ctx, fsys)
//	scan, err := read.NewScan(ctx, fsys, cfg, tl, read.Options{
//		AsOf:    "2024-04-18 17:35:51",        // time travel; "" for the latest
//		Columns: []string{"id", "structField.field2"},
//		Where:   "byteField >= 10 AND name != 'Alice'",
//	})
//	defer scan.Close()
//	for {
//		b, err := scan.NextBatch(ctx) // or scan.Next(ctx) for one []any row
//		if err == io.EOF {
//			break
//		}
//		ids := b.Column(0).Int32s() // typed, columnar
//		...
//	}
//
// What a scan reads (Options):
//
//   - The latest snapshot: the newest file slice of every live file group.
//   - As of an instant (AsOf, any form of timeline.ParseInstantOrTime): the
//     table after the last completed commit at or before it. Before the
//     first commit there are no records, and no error.
//   - Incremental (Begin, End): the records of the snapshot as of End
//     (default: the latest commit) whose _hoodie_commit_time lies in
//     (Begin, End]. Files whose instant is at or before Begin are not read.
//     In a table of version 8 (timeline layout 2, Hudi 1.x) the range
//     picks commits by completion time, as Hudi 1.x does: the records of
//     the commits that completed in [Begin, End], both ends included,
//     read from the snapshot as of the latest of them.
//   - Columns: the five Hudi meta columns, then the table's columns, unless
//     Options.Columns names some, top-level or nested in records
//     ("structField.field2"). Unknown names are an *UnknownColumnError.
//   - A filter (Where) in the language ParseFilter documents.
//
// The schema of the records is the table schema as of the snapshot (the
// writer's schema in the last commit's metadata, else
// hoodie.table.create.schema). Files written under an older schema are read
// into it: a column a file lacks is null, a column stored narrower (int for
// long, float for double, a decimal of smaller scale) is widened.
//
// # Values
//
// A Batch holds up to Options.BatchSize records column by column in Vectors
// of typed slices (Int32s, Int64s, Float64s, Bytes, Decimals...), decoded
// straight from Parquet pages, dictionaries included, without building rows.
// Records, arrays and maps are assembled from their leaf columns' levels.
// Vector.Value and Batch.Row give values in the storage value model
// (storage/basefile/value.go). Timestamps of both units are held in microseconds.
//
// # Pruning
//
// A filter is evaluated in SQL's three-valued logic: a comparison with null
// is unknown, and only records for which the filter is true are returned.
// Before any row is read, the filter rules out, in turn:
//
//   - partitions, from the partition columns' values in partition paths
//     (config.ParsePartitionPath; hive-style or not; the default partition
//     __HIVE_DEFAULT_PARTITION__ holds nulls, and for string columns also
//     empty strings). Only tables whose key generator writes the values
//     themselves (simple, complex, non-partitioned) are pruned this way;
//   - file groups, for comparisons with = and IN of _hoodie_record_key, or
//     of the single record-key column of a simple key generator. When
//     Options.Locator (a KeyLocator, such as Hoodie's record index) answers
//     for the snapshot's instant, a file group it does not place a pinned
//     key in is never opened. Otherwise the record-key range and bloom
//     filter of the files' footers decide;
//   - row groups, by the min, max and null count statistics of their column
//     chunks (floating-point columns allow for NaN, which statistics leave
//     out);
//   - runs of pages, by the column index (per-page min, max and null
//     counts) of the filter's columns outside lists and maps: rows whose
//     pages rule the filter out are skipped in every column, never
//     decompressed. This pays on columns whose values are clustered, such
//     as the record key of files Hoodie writes, sorted by key.
//
// Within the row groups that remain, the filter's columns are decoded
// first; the other columns are decoded only for the rows that pass, and
// pages that hold none of them are skipped through the offset index
// (columns outside lists and maps) or never loaded. A selective filter thus
// reads little more than its own columns.
//
// Stats counts the files, row groups and pages read and skipped.
//
// # Tables without meta fields
//
// With hoodie.populate.meta.fields=false, or for a file without the meta
// columns, the meta columns that the file determines are computed:
//
//   - _hoodie_partition_path and _hoodie_file_name from the file;
//   - _hoodie_commit_time as the instant of the file, the latest time its
//     records could have been written. Records an update carried over keep
//     no older time, so an incremental scan of such a table may return
//     unchanged records of rewritten files;
//   - _hoodie_record_key and _hoodie_commit_seqno are null (as stored, when
//     the file has the columns).
package read

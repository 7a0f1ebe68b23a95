// Package archive is a table's archived timeline: the instants Hudi's
// archiver (and Hoodie's, package write) moved out of .hoodie into
// .hoodie/archived, in the format of Hudi 0.15 for table version 6.
//
// Each archival writes one Hudi log file, .commits_.archive.<N>_1-0-1, of
// Avro data blocks whose records are HoodieArchivedMetaEntry: an instant's
// time, action and state, with the content of its state's file (commit
// metadata, clean and rollback metadata, plans) as Avro records. Encode and
// Append write such files, Decode and Load read them, Hudi's and Hoodie's
// alike. docs/format.md describes the layout.
//
// Readers of a table list its archived and active timelines together with
// Merged: an instant on both (an archival that died before it removed what
// it archived) is the active one.
package archive

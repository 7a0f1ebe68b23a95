// Package ingest reads records to write to a table: it decodes JSON lines,
// CSV and Parquet into a write.Input, inferring the schema of loosely typed
// records and converting them to rows of the value model (see
// basefile.Type).
//
// # Decoders
//
// Decode reads an input in a Format: DecodeJSONL one JSON object a line,
// DecodeCSV a header line then one record a row (RFC 4180), DecodeParquet
// a Parquet file, whose values keep their types. JSON and CSV values are
// loose values: nil, bool, json.Number, string, []any of loose values, or
// *Object. An Inferrer infers the schema of whole records, preferring the
// types of the table they are written to, and converts them to rows;
// CoerceValue converts one value to a given type. The five Hudi meta
// columns are dropped.
//
// # Exactness
//
// A value is converted exactly or refused, with one error naming the
// input, the line, the column path, the value and why. Nothing is rounded,
// truncated, replaced or guessed:
//
//   - text that is not valid (invalid UTF-8, a lone UTF-16 surrogate
//     escape) is refused, not replaced with U+FFFD;
//   - a whole number out of the range of a long is refused, not made a
//     double: two keys could become one;
//   - a float or double column refuses a number written in full that it
//     cannot hold exactly, and one that it would make zero;
//   - a decimal column refuses digits beyond its scale or precision;
//   - a date or timestamp column refuses a number (its unit would be a
//     guess), and a timestamp refuses digits below the column's unit;
//   - two types that do not join (a string and a long in one column) are
//     an error naming both;
//   - a quoted CSV field keeps its bytes, "\r\n" included.
//
// A value that does not fit its table column but widens it along
// int -> long -> float -> double has its type inferred instead, so that
// the writer can widen the column.
//
// # Memory
//
// A decoder holds the whole input as rows in memory: the write.Input it
// returns. JSON lines and CSV are read in blocks of 4 MiB or so, decoded on
// all cores and merged in input order; at most 16 blocks are read ahead of
// the merge. A column whose strings repeat shares one value among its
// rows. Parquet is read in place from a regular file, and copied to a
// temporary file from any other reader.
package ingest

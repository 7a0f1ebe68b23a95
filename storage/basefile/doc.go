// Package basefile reads and writes a table's Parquet base files, and holds
// the table schema and the values they are written with.
//
// It holds:
//
//   - the table schema (Schema, Type, Field), as Avro JSON (ParseSchema,
//     Schema.MarshalJSON) and in its Parquet form (Schema.ParquetSchema,
//     SchemaFromParquet);
//   - the value model: how one value of a schema is held in Go (Decimal,
//     Date; see value.go), and rows of values to and from Parquet rows
//     (Schema.AppendRow, Schema.DecodeRow);
//   - base files: Writer (new records, Parquet rows, row groups carried
//     whole), File and Open, the bloom filter in their footer, their names
//     (Name, ParseName).
//
// The schema lives here, with the Parquet code, because the two are one
// piece: a schema is valid only if Parquet can hold it, it compiles its
// Parquet form and the plan converting rows once, and the writer walks
// that plan column by column.
//
// A base file's footer carries what Hudi's readers look for: the Avro
// schema, the record key range and the bloom filter (the Footer keys).
package basefile

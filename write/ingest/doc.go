// Package ingest infers the schema of loosely typed records and converts
// them to rows of the value model (see storage.Type), ready for a write.
//
// # Loose values
//
// A loose value is what a JSON or CSV decoder yields before any schema
// applies: nil, bool, json.Number, string, []any of loose values, or
// *Object. CoerceValue converts one to a value of a given type. An Inferrer
// infers the schema of whole records, preferring the types of the table
// they are written to, and converts them to rows.
//
// # Exactness
//
// A value is converted exactly or refused, with an error naming the column
// path, the value and why. Nothing is rounded, truncated or guessed:
//
//   - a whole number out of the range of a long is refused, not made a
//     double: two keys could become one;
//   - a float or double column refuses a number written in full that it
//     cannot hold exactly, and one that it would make zero;
//   - a decimal column refuses digits beyond its scale or precision;
//   - a date or timestamp column refuses a number (its unit would be a
//     guess), and a timestamp refuses digits below the column's unit;
//   - two types that do not join (a string and a long in one column) are
//     an error naming both.
//
// A value that does not fit its table column but widens it along
// int -> long -> float -> double has its type inferred instead, so that
// the writer can widen the column.
package ingest

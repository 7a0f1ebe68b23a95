package basefile

import (
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkAppendRow converts rows of values to Parquet rows: the flat
// six-column table with meta fields, and the nested trips table.
func BenchmarkAppendRow(b *testing.B) {
	for _, bc := range rowBenchCases(b) {
		b.Run(bc.name, func(b *testing.B) {
			var row parquet.Row
			b.ReportAllocs()
			for i := range b.N {
				var err error
				if row, err = bc.schema.AppendRow(row[:0], bc.rows[i%len(bc.rows)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeRow converts Parquet rows back to values.
func BenchmarkDecodeRow(b *testing.B) {
	for _, bc := range rowBenchCases(b) {
		rows := make([]parquet.Row, len(bc.rows))
		for i, values := range bc.rows {
			var err error
			if rows[i], err = bc.schema.AppendRow(nil, values); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				if _, err := bc.schema.DecodeRow(rows[i%len(rows)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type rowBenchCase struct {
	name   string
	schema *Schema
	rows   [][]any
}

func rowBenchCases(b *testing.B) []rowBenchCase {
	keys := benchKeys(1000)
	flat := make([][]any, len(keys))
	for i := range flat {
		flat[i] = benchValues(i, keys)
	}
	return []rowBenchCase{
		{"flat", benchSchema(b), flat},
		{"nested", tripsWithMeta(b), tripsRows(b)},
	}
}

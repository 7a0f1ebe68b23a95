package basefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
)

// benchRows is the number of rows each benchmark iteration writes.
const benchRows = 1_000_000

// benchSchema is a six-column table schema, as Hudi stores it, with the meta
// fields.
func benchSchema(tb testing.TB) *Schema {
	tb.Helper()
	s, err := ParseSchema([]byte(`{"type":"record","name":"bench_record","namespace":"hoodie.bench","fields":[
		{"name":"id","type":["null","long"],"default":null},
		{"name":"name","type":["null","string"],"default":null},
		{"name":"price","type":["null","double"],"default":null},
		{"name":"qty","type":["null","int"],"default":null},
		{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
		{"name":"active","type":["null","boolean"],"default":null}]}`))
	if err != nil {
		tb.Fatal(err)
	}
	return s.WithMetaFields()
}

// benchValues returns row i of the benchmark table as values.
func benchValues(i int, keys []string) []any {
	key := keys[i%len(keys)]
	return []any{"20240101000000000", "20240101000000000_0_" + key, key, "", "f-0_0-1-1_20240101000000000.parquet",
		int64(i), "name " + key, float64(i) / 3, int32(i % 1000), time.UnixMicro(1700000000000000 + int64(i)).UTC(), i%2 == 0}
}

// benchKeys returns distinct record keys.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%09d", i)
	}
	return keys
}

// plainRow converts benchmark values to a Parquet row as a program using
// parquet-go alone would: a type switch per value, every field optional.
func plainRow(row parquet.Row, values []any) parquet.Row {
	for i, v := range values {
		switch x := v.(type) {
		case nil:
			row = append(row, parquet.Value{}.Level(0, 0, i))
		case time.Time:
			row = append(row, parquet.Int64Value(x.UnixMicro()).Level(0, 1, i))
		default:
			row = append(row, parquet.ValueOf(x).Level(0, 1, i))
		}
	}
	return row
}

// BenchmarkBaseFileWriter writes 1M six-column rows (eleven columns with the
// meta fields) with the base file writer and with plain parquet-go, with the
// same Parquet schema and settings: from Parquet rows, and from values.
// Compare hoodie-rows with parquet-go-rows, hoodie-values with
// parquet-go-values; the base file writer also tracks keys and builds the
// bloom filter. hoodie-new and hoodie-new-columnar write the values as new
// records (WriteNew) through parquet-go's writer and through the columnar
// writer of NewRecordsOnly.
func BenchmarkBaseFileWriter(b *testing.B) {
	schema := benchSchema(b)
	ps, err := schema.ParquetSchema()
	if err != nil {
		b.Fatal(err)
	}
	keys := benchKeys(benchRows)
	values := make([][]any, benchRows)
	rows := make([]parquet.Row, benchRows)
	for i := range values {
		values[i] = benchValues(i, keys)
		rows[i] = plainRow(nil, values[i])
	}
	ctx := context.Background()
	codec, err := CompressionCodec(DefaultCompression)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 64

	// plain writes rows with parquet-go, converting values first if given.
	plain := func(b *testing.B, fromValues bool) {
		dir := b.TempDir()
		buf := make([]parquet.Row, batch)
		for i := range b.N {
			f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
			if err != nil {
				b.Fatal(err)
			}
			w := parquet.NewWriter(f, writerOptions(ps, codec, &parquet.DeltaLengthByteArray, DefaultPageSize)...)
			for j := 0; j < benchRows; j += batch {
				chunk := rows[j:min(j+batch, benchRows)]
				if fromValues {
					for k := range chunk {
						buf[k] = plainRow(buf[k][:0], values[j+k])
					}
					chunk = buf[:len(chunk)]
				}
				if _, err := w.WriteRows(chunk); err != nil {
					b.Fatal(err)
				}
			}
			closeAll(b, w, f)
		}
		b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
	}
	// hoodie writes rows with the base file writer.
	hoodie := func(b *testing.B, fromValues bool) {
		fsys := newBenchFS(b)
		for i := range b.N {
			w, err := NewWriter(ctx, fsys, fmt.Sprint(i), schema, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for j := 0; j < benchRows; j += batch {
				if fromValues {
					for _, v := range values[j:min(j+batch, benchRows)] {
						if err := w.WriteRow(v); err != nil {
							b.Fatal(err)
						}
					}
				} else if _, err := w.WriteRows(rows[j:min(j+batch, benchRows)]); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
	}
	// newRecords writes the values as new records with WriteNew, by the
	// columnar writer or by parquet-go's.
	newRecords := func(b *testing.B, columnar bool) {
		fsys := newBenchFS(b)
		meta := &NewRecordMeta{CommitTime: "20240101000000000", SeqNoPrefix: "20240101000000000_0_", FileName: "f-0_0-1-1_20240101000000000.parquet"}
		data := make([][]any, len(values))
		for i, v := range values {
			data[i] = v[NumMetaFields:]
		}
		b.ResetTimer()
		for i := range b.N {
			w, err := NewWriter(ctx, fsys, fmt.Sprint(i), schema, Options{NewRecordsOnly: columnar})
			if err != nil {
				b.Fatal(err)
			}
			const chunk = 4096 // as the merger hands them over
			for j := 0; j < benchRows; j += chunk {
				end := min(j+chunk, benchRows)
				if err := w.WriteNew(meta, int64(j), keys[j:end], data[j:end]); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("parquet-go-rows", func(b *testing.B) { plain(b, false) })
	b.Run("hoodie-rows", func(b *testing.B) { hoodie(b, false) })
	b.Run("parquet-go-values", func(b *testing.B) { plain(b, true) })
	b.Run("hoodie-values", func(b *testing.B) { hoodie(b, true) })
	b.Run("hoodie-new", func(b *testing.B) { newRecords(b, false) })
	b.Run("hoodie-new-columnar", func(b *testing.B) { newRecords(b, true) })
}

func closeAll(b *testing.B, closers ...io.Closer) {
	for _, c := range closers {
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func newBenchFS(b *testing.B) storage.FS {
	fsys, err := storage.NewLocalFS(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return fsys
}

// BenchmarkBaseFileCarry rewrites a base file of a ninth of benchRows rows,
// as a copy-on-write merge of random keys does, taking out one row in 1,000:
// by reading and writing Parquet rows (rows), and by CarryRowGroup (columns).
func BenchmarkBaseFileCarry(b *testing.B) {
	const numRows = benchRows / 9
	schema := benchSchema(b)
	keys := benchKeys(numRows)
	fsys := newBenchFS(b)
	ctx := context.Background()
	w, err := NewWriter(ctx, fsys, "src.parquet", schema, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range numRows {
		if err := w.WriteRow(benchValues(i, keys)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		b.Fatal(err)
	}
	src, err := Open(ctx, fsys, "src.parquet")
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	bloom, err := src.BloomFilter()
	if err != nil {
		b.Fatal(err)
	}
	taken := make(map[string]bool)
	for i := 0; i < numRows; i += 1000 {
		taken[keys[i]] = true
	}
	take := func(key []byte) bool { return taken[string(key)] }
	const name = "dst.parquet"

	run := func(b *testing.B, carry func(w *Writer) error) {
		for range b.N {
			w, err := NewWriter(ctx, fsys, name, schema, Options{SeedBloom: bloom})
			if err != nil {
				b.Fatal(err)
			}
			if err := carry(w); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
			if err := fsys.Remove(ctx, name); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*numRows)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("rows", func(b *testing.B) {
		fileName := parquet.ByteArrayValue([]byte(name)).Level(0, 1, MetaFileNamePos)
		run(b, func(w *Writer) error {
			rows := src.Rows(ctx)
			defer rows.Close()
			batch := make([]parquet.Row, 1024)
			for {
				n, err := rows.ReadRows(batch)
				carried := batch[:0]
				for _, row := range batch[:n] {
					if !take(RowRecordKey(row)) {
						row[MetaFileNamePos] = fileName
						carried = append(carried, row)
					}
				}
				if _, err := w.CarryRows(carried); err != nil {
					return err
				}
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
			}
		})
	})
	b.Run("columns", func(b *testing.B) {
		run(b, func(w *Writer) error {
			for _, rg := range src.RowGroups() {
				if _, err := w.CarryRowGroup(rg, name, take); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

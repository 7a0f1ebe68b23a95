package ingest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// benchTripLines returns n JSON lines of six columns, as the Hudi quickstart's
// trips: uuid, ts, rider, driver, fare and partitionpath.
func benchTripLines(n int) []byte {
	var b bytes.Buffer
	cities := []string{"americas/united_states/san_francisco", "americas/brazil/sao_paulo", "asia/india/chennai"}
	for i := range n {
		fmt.Fprintf(&b, `{"uuid":"%08x-4b1c-4c3e-9f0a-%012x","ts":%d,"rider":"rider-%03d","driver":"driver-%03d","fare":%d.%02d,"partitionpath":"%s"}`+"\n",
			i, i*7919, 1695159649087+int64(i), i%1000, i%997, i%100, i%37, cities[i%len(cities)])
	}
	return b.Bytes()
}

// benchTripTable is the schema of a table the trips were written to.
func benchTripTable(b *testing.B) *basefile.Schema {
	s, err := basefile.ParseSchema([]byte(`{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[
		{"name":"uuid","type":["null","string"],"default":null},
		{"name":"ts","type":["null","long"],"default":null},
		{"name":"rider","type":["null","string"],"default":null},
		{"name":"driver","type":["null","string"],"default":null},
		{"name":"fare","type":["null","double"],"default":null},
		{"name":"partitionpath","type":["null","string"],"default":null}]}`))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkDecodeJSONL(b *testing.B) {
	benchmarkDecode(b, "jsonl", benchTripLines(1_000_000))
}

func BenchmarkDecodeCSV(b *testing.B) {
	benchmarkDecode(b, "csv", benchTripCSV(1_000_000))
}

// benchmarkDecode decodes data, a million trips in format, without a table
// and with the trips' table.
func benchmarkDecode(b *testing.B, format string, data []byte) {
	const n = 1_000_000
	for _, bc := range []struct {
		name  string
		table *basefile.Schema
	}{{"inferred", nil}, {"table", benchTripTable(b)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				in, err := Decode(context.Background(), bytes.NewReader(data), "trips."+format, Format(format), bc.table)
				if err != nil {
					b.Fatal(err)
				}
				if len(in.Rows) != n {
					b.Fatalf("%d rows, want %d", len(in.Rows), n)
				}
			}
		})
	}
}

// benchTripCSV returns the n trips of benchTripLines as CSV.
func benchTripCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("uuid,ts,rider,driver,fare,partitionpath\n")
	cities := []string{"americas/united_states/san_francisco", "americas/brazil/sao_paulo", "asia/india/chennai"}
	for i := range n {
		fmt.Fprintf(&b, "%08x-4b1c-4c3e-9f0a-%012x,%d,rider-%03d,driver-%03d,%d.%02d,%s\n",
			i, i*7919, 1695159649087+int64(i), i%1000, i%997, i%100, i%37, cities[i%len(cities)])
	}
	return b.Bytes()
}

// BenchmarkDecodeSmall decodes inputs of three trips, which take no
// goroutines.
func BenchmarkDecodeSmall(b *testing.B) {
	for _, format := range []string{"jsonl", "csv"} {
		data := benchTripLines(3)
		if format == "csv" {
			data = benchTripCSV(3)
		}
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(context.Background(), bytes.NewReader(data), "trips."+format, Format(format), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package hoodie_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// The README's "From Go" snippet is the body of this example from ctx on;
// TestREADMEShowsTheExample keeps the two the same.
func Example() {
	dir, err := os.MkdirTemp("", "hoodie-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "trips")

	ctx := context.Background()
	t, err := hoodie.Create(ctx, path, hoodie.TableSpec{
		Name:        "trips",
		RecordKey:   []string{"uuid"},
		Precombine:  "ts",
		PartitionBy: []string{"city"},
	})
	if err != nil {
		log.Fatal(err)
	}
	schema, err := basefile.ParseSchema([]byte(`{"type": "record", "name": "trip", "fields": [
		{"name": "uuid", "type": "string"}, {"name": "ts", "type": "long"},
		{"name": "fare", "type": "double"}, {"name": "city", "type": "string"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	rows := [][]any{{"t1", int64(1), 12.5, "sf"}, {"t2", int64(1), 7.0, "sf"}, {"t3", int64(1), 31.0, "nyc"}}
	res, err := t.Write(ctx, write.OpUpsert, &write.Input{Name: "trips", Schema: schema, Rows: rows}, hoodie.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	scan, err := t.Scan(ctx, hoodie.ScanOptions{AsOf: res.Instant, Columns: []string{"uuid", "fare"}, Where: "fare > 10"})
	if err != nil {
		log.Fatal(err)
	}
	defer scan.Close()
	for row, err := range scan.Rows() { // or scan.Batches(), for typed column vectors
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row...)
	}
	// Unordered output:
	// t1 12.5
	// t3 31
}

// newExampleTable creates a trips table keyed by uuid, not partitioned, in
// a new temporary folder, and upserts rows into it: the last write of a key
// wins, as the table has no precombine column. It returns the table and the folder, for the caller
// to remove.
func newExampleTable(ctx context.Context, rows [][]any) (*hoodie.Table, string) {
	dir, err := os.MkdirTemp("", "hoodie-example")
	if err != nil {
		log.Fatal(err)
	}
	t, err := hoodie.Create(ctx, filepath.Join(dir, "trips"), hoodie.TableSpec{Name: "trips", RecordKey: []string{"uuid"}})
	if err != nil {
		log.Fatal(err)
	}
	upsert(ctx, t, rows)
	return t, dir
}

// printRows scans t with opts and prints each record's values.
func printRows(ctx context.Context, t *hoodie.Table, opts hoodie.ScanOptions) {
	scan, err := t.Scan(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer scan.Close()
	for row, err := range scan.Rows() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row...)
	}
}

// tripAvro is the Avro schema of the trips of Example.
const tripAvro = `{"type": "record", "name": "trip", "fields": [
	{"name": "uuid", "type": "string"}, {"name": "ts", "type": "long"},
	{"name": "fare", "type": "double"}, {"name": "city", "type": "string"}]}`

// upsert upserts rows of uuid, ts, fare and city into t, and returns the
// commit's instant.
func upsert(ctx context.Context, t *hoodie.Table, rows [][]any) string {
	schema, err := basefile.ParseSchema([]byte(tripAvro))
	if err != nil {
		log.Fatal(err)
	}
	res, err := t.Write(ctx, write.OpUpsert, &write.Input{Name: "trips", Schema: schema, Rows: rows}, hoodie.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	return res.Instant
}

// A scan as of an earlier instant reads the table as that commit left it.
func ExampleScanOptions_timeTravel() {
	ctx := context.Background()
	t, dir := newExampleTable(ctx, [][]any{{"t1", int64(1), 12.5, "sf"}})
	defer os.RemoveAll(dir)
	commits, err := t.Instants(ctx)
	if err != nil {
		log.Fatal(err)
	}
	first := commits[len(commits)-1].Time
	upsert(ctx, t, [][]any{{"t1", int64(2), 14.0, "sf"}})

	printRows(ctx, t, hoodie.ScanOptions{AsOf: first, Columns: []string{"uuid", "fare"}})
	printRows(ctx, t, hoodie.ScanOptions{Columns: []string{"uuid", "fare"}})
	// Output:
	// t1 12.5
	// t1 14
}

// Batches yield typed column vectors: here the fares, summed.
func ExampleScan_Batches() {
	ctx := context.Background()
	t, dir := newExampleTable(ctx, [][]any{{"t1", int64(1), 12.5, "sf"}, {"t2", int64(1), 7.5, "sf"}, {"t3", int64(1), 31.0, "nyc"}})
	defer os.RemoveAll(dir)

	scan, err := t.Scan(ctx, hoodie.ScanOptions{Columns: []string{"fare"}, Where: "city = 'sf'"})
	if err != nil {
		log.Fatal(err)
	}
	defer scan.Close()
	var sum float64
	for batch, err := range scan.Batches() {
		if err != nil {
			log.Fatal(err)
		}
		for _, fare := range batch.Column(0).Float64s() {
			sum += fare
		}
	}
	fmt.Println("fares in sf:", sum)
	// Output:
	// fares in sf: 20
}

// A table on another file system than the local one, here in memory, keeps
// its record index in a local folder of its own.
func ExampleWithFS() {
	ctx := context.Background()
	indexDir, err := os.MkdirTemp("", "hoodie-index")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(indexDir)
	mem := storage.NewMemFS()

	t, err := hoodie.Create(ctx, "mem:trips", hoodie.TableSpec{Name: "trips", RecordKey: []string{"uuid"}},
		hoodie.WithFS(mem), hoodie.WithIndexDir(indexDir))
	if err != nil {
		log.Fatal(err)
	}
	upsert(ctx, t, [][]any{{"t1", int64(1), 12.5, "sf"}})

	t, err = hoodie.Open(ctx, "mem:trips", hoodie.WithFS(mem), hoodie.WithIndexDir(indexDir))
	if err != nil {
		log.Fatal(err)
	}
	printRows(ctx, t, hoodie.ScanOptions{Columns: []string{"uuid", "city"}})
	// Output:
	// t1 sf
}

package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// TestQueryReadsDictionaryChunks checks that DuckDB reads the string
// columns Hoodie's columnar writer dictionary-encodes as Hoodie's reader
// does: a chunk all of dictionary pages, and one whose dictionary passed
// 1 MiB and whose later pages hold plain values.
func TestQueryReadsDictionaryChunks(t *testing.T) {
	const rows = 12000
	var lines strings.Builder
	for i := range rows {
		// growing repeats each 200-byte value once: a dictionary pays on
		// the first page, and passes 1 MiB after about 5,000 values.
		growing := fmt.Sprintf(`"%0200d"`, i/2)
		if i%11 == 0 {
			growing = "null"
		}
		fmt.Fprintf(&lines, `{"id":"key-%05d","ts":%d,"color":"%s","growing":%s}`+"\n", i, i, []string{"red", "green", "blue"}[i%3], growing)
	}
	dir := t.TempDir()
	hoodiectl(t, "", "init", dir, "--name", "dicts", "--record-key", "id", "--precombine", "ts").mustSucceed(t)
	hoodiectl(t, lines.String(), "bulk-insert", dir, "--format", "jsonl", "--set", "hoodie.parquet.page.size=2048").mustSucceed(t)

	// The file must hold the chunks the test is about.
	var files []string
	if err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".parquet") {
			files = append(files, path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d base files, want 1: %v", len(files), files)
	}
	fsys, err := storage.NewLocalFS(filepath.Dir(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	bf, err := basefile.Open(t.Context(), fsys, filepath.Base(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	pages := map[string]map[format.Encoding]bool{}
	for _, c := range bf.Parquet().Metadata().RowGroups[0].Columns {
		encodings := map[format.Encoding]bool{}
		for _, s := range c.MetaData.EncodingStats {
			if s.PageType == format.DataPage {
				encodings[s.Encoding] = true
			}
		}
		pages[c.MetaData.PathInSchema[0]] = encodings
	}
	if want := map[format.Encoding]bool{format.RLEDictionary: true}; !reflect.DeepEqual(pages["color"], want) {
		t.Errorf("color's pages are %v, want dictionary pages only", pages["color"])
	}
	if want := map[format.Encoding]bool{format.RLEDictionary: true, format.DeltaLengthByteArray: true}; !reflect.DeepEqual(pages["growing"], want) {
		t.Errorf("growing's pages are %v, want dictionary pages, then plain ones", pages["growing"])
	}

	columns := "id,color,growing"
	want := rowsByID(t, hoodiectl(t, "", "read", dir, "--columns", columns, "--format", "jsonl").mustSucceed(t).stdout)
	got := rowsByID(t, hoodiectl(t, "", "query", dir, "select "+columns+" from <TABLE_NAME>", "--format", "jsonl").mustSucceed(t).stdout)
	if len(want) != rows {
		t.Fatalf("read gave %d records, want %d", len(want), rows)
	}
	for key, w := range want {
		if !reflect.DeepEqual(got[key], w) {
			t.Fatalf("key %s: DuckDB read %v, Hoodie %v", key, got[key], w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("DuckDB read %d records, Hoodie %d", len(got), len(want))
	}
}

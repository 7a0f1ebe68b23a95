package basefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
)

// unzipFixture extracts the Spark-written table name into a temporary folder
// and returns the table's path (see internal/fixtures).
func unzipFixture(t *testing.T, name string) string {
	t.Helper()
	return fixtures.Unzip(t, name)
}

// fixtureTables are the non-empty fixture tables.
var fixtureTables = []string{"v6_nonpartitioned", "v6_simplekeygen_nonhivestyle", "v6_complexkeygen_hivestyle"}

// fixtureFileCounts is how many base files each non-empty fixture table has.
var fixtureFileCounts = map[string]int{"v6_nonpartitioned": 2, "v6_simplekeygen_nonhivestyle": 4, "v6_complexkeygen_hivestyle": 4}

// commitMetadata is the part of a .commit file these tests read.
type commitMetadata struct {
	PartitionToWriteStats map[string][]struct {
		Path      string `json:"path"`
		NumWrites int64  `json:"numWrites"`
	} `json:"partitionToWriteStats"`
	ExtraMetadata struct {
		Schema string `json:"schema"`
	} `json:"extraMetadata"`
}

// fixtureCommits reads a table's completed commits by instant.
func fixtureCommits(t *testing.T, table string) map[string]commitMetadata {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(table, ".hoodie", "*.commit"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no commits in %s: %v", table, err)
	}
	commits := map[string]commitMetadata{}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var c commitMetadata
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		commits[strings.TrimSuffix(filepath.Base(m), ".commit")] = c
	}
	return commits
}

// fixtureBaseFiles lists a table's base files, slash-separated and relative
// to the table.
func fixtureBaseFiles(t *testing.T, table string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(table, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			rel, _ := filepath.Rel(table, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFixtureBaseFiles opens every base file of the Spark-written tables and
// checks it against its commit, and our writer against it.
func TestFixtureBaseFiles(t *testing.T) {
	for _, name := range fixtureTables {
		t.Run(name, func(t *testing.T) {
			table := unzipFixture(t, name)
			fsys, err := storage.NewLocalFS(table)
			if err != nil {
				t.Fatal(err)
			}
			commits := fixtureCommits(t, table)
			files := fixtureBaseFiles(t, table)
			if len(files) != fixtureFileCounts[name] {
				t.Fatalf("%d base files: %v", len(files), files)
			}
			for _, file := range files {
				t.Run(path.Base(file), func(t *testing.T) {
					checkFixtureBaseFile(t, fsys, table, file, commits)
				})
			}
		})
	}
}

func checkFixtureBaseFile(t *testing.T, fsys storage.FS, table, file string, commits map[string]commitMetadata) {
	name, err := ParseName(file)
	if err != nil {
		t.Fatal(err)
	}
	commit, ok := commits[name.InstantTime]
	if !ok {
		t.Fatalf("no commit %s", name.InstantTime)
	}
	var numWrites int64 = -1
	for _, stats := range commit.PartitionToWriteStats {
		for _, s := range stats {
			if s.Path == file {
				numWrites = s.NumWrites
			}
		}
	}
	bf := mustOpenBaseFile(t, fsys, file)
	md := bf.Metadata()

	// The schema: the commit's with meta fields, emitted exactly as Spark
	// wrote it, and mapped to exactly the Parquet schema Spark wrote.
	commitSchema := mustParseSchema(t, commit.ExtraMetadata.Schema)
	if !bf.Schema().Equal(commitSchema.WithMetaFields()) {
		t.Errorf("footer schema differs from the commit's:\n%s\n%s", md[FooterAvroSchema], commit.ExtraMetadata.Schema)
	}
	if got := mustMarshal(t, bf.Schema()); got != md[FooterAvroSchema] {
		t.Errorf("MarshalJSON of the footer schema =\n%s\nwant\n%s", got, md[FooterAvroSchema])
	}
	ps, err := bf.Schema().ParquetSchema()
	if err != nil {
		t.Fatal(err)
	}
	sparkParquet := openPlainParquet(t, filepath.Join(table, file)).Schema().String()
	if ps.String() != sparkParquet {
		t.Errorf("ParquetSchema() =\n%s\nSpark wrote\n%s", ps, sparkParquet)
	}

	// The rows: as many as the commit wrote, with their meta fields.
	rows := readAllValues(t, bf)
	if int64(len(rows)) != numWrites || bf.NumRows() != numWrites {
		t.Errorf("%d rows (NumRows %d), the commit wrote %d", len(rows), bf.NumRows(), numWrites)
	}
	partition := path.Dir(file)
	if partition == "." {
		partition = ""
	}
	var keys []string
	for _, row := range rows {
		if row[4] != path.Base(file) || row[3] != partition {
			t.Errorf("row meta fields %v, want file %s in partition %q", row[:5], path.Base(file), partition)
		}
		keys = append(keys, row[2].(string))
	}

	// The footer: our bloom filter of the keys and key range are Spark's.
	bloom, err := NewBloomFilter(DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		bloom.Add(k)
	}
	if bloom.String() != md[FooterBloomFilter] || md[FooterBloomFilterType] != "DYNAMIC_V0" {
		t.Error("the bloom filter of the file's keys differs from the footer's")
	}
	slices.SortFunc(keys, compareUTF16)
	if minKey, maxKey, ok := bf.RecordKeyRange(); !ok || minKey != keys[0] || maxKey != keys[len(keys)-1] {
		t.Errorf("RecordKeyRange() = %q, %q, %v; keys %v", minKey, maxKey, ok, keys)
	}

	// Our writer, given the file's rows, writes the same schema, footer and
	// values; from values as from Parquet rows.
	out := storage.NewMemFS()
	copyFixtureRows(t, bf, out)
	again := writeBaseFile(t, out, "values.parquet", bf.Schema(), Options{Compression: "gzip"}, rows)
	minKey, maxKey, _ := bf.RecordKeyRange()
	if again.NumRows != numWrites || again.MinRecordKey != minKey || again.MaxRecordKey != maxKey {
		t.Errorf("rewritten stats %+v", again)
	}
	for _, p := range []string{"rows.parquet", "values.parquet"} {
		copied := mustOpenBaseFile(t, out, p)
		assertRowsEqual(t, readAllValues(t, copied), rows)
		for _, key := range []string{FooterAvroSchema, FooterWriterModel, FooterMinRecordKey, FooterMaxRecordKey, FooterBloomFilter, FooterBloomFilterType} {
			if copied.Metadata()[key] != md[key] {
				t.Errorf("%s: footer %s differs from Spark's", p, key)
			}
		}
		if got := copied.Parquet().Schema().String(); got != sparkParquet {
			t.Errorf("%s: Parquet schema =\n%s\nSpark wrote\n%s", p, got, sparkParquet)
		}
	}
}

// copyFixtureRows copies the Parquet rows of bf into rows.parquet on out.
func copyFixtureRows(t *testing.T, bf *File, out storage.FS) {
	t.Helper()
	w, err := NewWriter(t.Context(), out, "rows.parquet", bf.Schema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range bf.RowGroups() {
		rows := rg.Rows()
		copyRows(t, w, rows, 16)
		rows.Close()
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyRows writes every row rows reads into w, n at a time.
func copyRows(t *testing.T, w *Writer, rows interface {
	ReadRows([]parquet.Row) (int, error)
}, n int) {
	t.Helper()
	buf := make([]parquet.Row, n)
	for {
		n, err := rows.ReadRows(buf)
		if _, werr := w.WriteRows(buf[:n]); werr != nil {
			t.Fatal(werr)
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureRows reads a base file's rows by their id field, as maps from
// field name to value.
func fixtureRows(t *testing.T, table, file string) map[int32]map[string]any {
	t.Helper()
	fsys, err := storage.NewLocalFS(table)
	if err != nil {
		t.Fatal(err)
	}
	bf := mustOpenBaseFile(t, fsys, file)
	byID := map[int32]map[string]any{}
	for _, row := range readAllValues(t, bf) {
		named := map[string]any{}
		for i, f := range bf.Schema().Fields {
			named[f.Name] = row[i]
		}
		byID[named["id"].(int32)] = named
	}
	return byID
}

// TestFixtureValues checks values the fixture README lists, and how every
// type decodes.
func TestFixtureValues(t *testing.T) {
	table := unzipFixture(t, "v6_nonpartitioned")
	latest := fixtureRows(t, table, "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet")
	first := fixtureRows(t, table, "a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet")
	if len(latest) != 4 || len(first) != 3 {
		t.Fatalf("%d rows after commit 2, %d after commit 1", len(latest), len(first))
	}
	tests := []struct {
		id                   int32
		name                 string
		activeFirst, active  bool
		shortField, structF2 int32
		commitTime           string
		inFirstCommit        bool
	}{
		{1, "Alice", true, false, 300, 30, "20240418173551906", true},
		{2, "Bob", false, false, 100, 40, "20240418173550988", true},
		{3, "Carol", true, true, 200, 25, "20240418173550988", true},
		{4, "Diana", false, true, 500, 50, "20240418173551906", false},
	}
	for _, tt := range tests {
		row := latest[tt.id]
		if row["name"] != tt.name || row["isActive"] != tt.active || row["shortField"] != tt.shortField ||
			row["structField"].([]any)[1] != tt.structF2 || row[MetaCommitTime] != tt.commitTime || row[MetaRecordKey] != fmt.Sprint(tt.id) {
			t.Errorf("id %d after commit 2: %v", tt.id, row)
		}
		if f, ok := first[tt.id]; ok != tt.inFirstCommit || ok && f["isActive"] != tt.activeFirst {
			t.Errorf("id %d after commit 1: %v", tt.id, f)
		}
	}

	alice := latest[1]
	for field, want := range map[string]any{
		"intField":       int32(15000),
		"longField":      int64(1234567890),
		"floatField":     float32(1),
		"doubleField":    3.14159,
		"decimalField":   mustDecimal(t, "12345.67890"),
		"dateField":      Date(19448),
		"timestampField": time.Date(2023, 4, 1, 17, 1, 0, 0, time.UTC),
		"binaryField":    []byte("binary data"),
		"arrayField":     []any{[]any{"red", int32(100)}, []any{"blue", int32(200)}, []any{"green", int32(300)}},
		"mapField":       map[string]any{"key1": []any{123.456, true}, "key2": []any{789.012, false}},
		"structField":    []any{"Alice", int32(30), []any{123.456, true}},
	} {
		if !reflect.DeepEqual(alice[field], want) {
			t.Errorf("Alice's %s = %s, want %s", field, describe(alice[field]), describe(want))
		}
	}
	if got := alice["decimalField"].(Decimal).String(); got != "12345.67890" {
		t.Errorf("decimalField = %s", got)
	}
	if got := alice["dateField"].(Date).String(); got != "2023-04-01" {
		t.Errorf("dateField = %s", got)
	}
}

// TestFixturePartitions checks that the partitioned tables' files hold the
// rows the fixture README lists.
func TestFixturePartitions(t *testing.T) {
	simple := unzipFixture(t, "v6_simplekeygen_nonhivestyle")
	hive := unzipFixture(t, "v6_complexkeygen_hivestyle")
	type want struct {
		active bool
		key    string
	}
	tests := []struct {
		table, file string
		byteField   int32
		rows        map[int32]want
	}{
		{simple, "10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet", 10,
			map[int32]want{1: {false, "1"}, 3: {true, "3"}}},
		{simple, "10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_1-98-142_20240418172802262.parquet", 10,
			map[int32]want{1: {true, "1"}, 3: {true, "3"}}},
		{simple, "20/76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet", 20,
			map[int32]want{2: {false, "2"}}},
		{simple, "30/6db57019-98ee-480e-8eb1-fb3de48e1c24-0_1-119-167_20240418172804498.parquet", 30,
			map[int32]want{4: {true, "4"}}},
		{hive, "byteField=10/shortField=300/a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet", 10,
			map[int32]want{1: {false, "id:1,name:Alice"}, 3: {true, "id:3,name:Carol"}}},
	}
	for _, tt := range tests {
		rows := fixtureRows(t, tt.table, tt.file)
		if len(rows) != len(tt.rows) {
			t.Errorf("%s: ids %v", tt.file, slices.Sorted(maps.Keys(rows)))
		}
		for id, w := range tt.rows {
			row := rows[id]
			if row["isActive"] != w.active || row[MetaRecordKey] != w.key || row["byteField"] != tt.byteField ||
				row[MetaPartitionPath] != path.Dir(tt.file) {
				t.Errorf("%s: id %d: %v", tt.file, id, row)
			}
		}
	}
}

// TestFixtureTableSchemas parses the schemas of hoodie.properties and of
// the commits of every fixture table.
func TestFixtureTableSchemas(t *testing.T) {
	for _, name := range append([]string{"v6_empty"}, fixtureTables...) {
		table := unzipFixture(t, name)
		props, err := os.ReadFile(filepath.Join(table, ".hoodie", "hoodie.properties"))
		if err != nil {
			t.Fatal(err)
		}
		var createSchema string
		for line := range strings.Lines(string(props)) {
			if v, ok := strings.CutPrefix(line, "hoodie.table.create.schema="); ok {
				// Java properties escape ':' as '\:'.
				createSchema = strings.ReplaceAll(strings.TrimSpace(v), `\:`, ":")
			}
		}
		s := mustParseSchema(t, createSchema)
		if s.FullName() != "hoodie."+name+"."+name+"_record" || s.HasMetaFields() {
			t.Errorf("%s: create schema %s", name, mustMarshal(t, s))
		}
		for _, f := range s.Fields {
			if !f.Type.Nullable {
				t.Errorf("%s: field %s is not nullable", name, f.Name)
			}
		}
		if !mustParseSchema(t, mustMarshal(t, s)).Equal(s) {
			t.Errorf("%s: the emitted create schema parses differently", name)
		}
		if name == "v6_empty" {
			want := `{"type":"record","name":"v6_empty_record","namespace":"hoodie.v6_empty","fields":[` +
				`{"name":"id","type":["null","int"],"default":null},` +
				`{"name":"name","type":["null","string"],"default":null},` +
				`{"name":"isActive","type":["null","boolean"],"default":null}]}`
			if got := mustMarshal(t, s); got != want {
				t.Errorf("v6_empty schema %s", got)
			}
			continue
		}
		for instant, c := range fixtureCommits(t, table) {
			cs := mustParseSchema(t, c.ExtraMetadata.Schema)
			if got := mustMarshal(t, cs); got != c.ExtraMetadata.Schema {
				t.Errorf("%s %s: MarshalJSON of the commit schema =\n%s\nwant\n%s", name, instant, got, c.ExtraMetadata.Schema)
			}
			if f, _ := cs.Field("decimalField"); f.Type.Kind != KindFixed || f.Type.Precision != 10 || f.Type.Scale != 5 || f.Type.Size != 5 {
				t.Errorf("%s: decimalField %+v", name, f.Type)
			}
		}
	}
}

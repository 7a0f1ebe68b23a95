package basefile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage"
)

func TestBaseFileName(t *testing.T) {
	const name = "a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet"
	n, err := ParseName("2024/01/" + name)
	if err != nil {
		t.Fatal(err)
	}
	want := Name{FileID: "a079bdb3-731c-4894-b855-abfcd6921007-0", WriteToken: "0-182-253", InstantTime: "20240418173550988"}
	if n != want {
		t.Errorf("ParseName = %+v, want %+v", n, want)
	}
	if n.String() != name {
		t.Errorf("String() = %s", n)
	}
	if _, err := ParseName("f-0_1-2-3_20240418173550.parquet"); err != nil {
		t.Errorf("a 14-digit instant of an old table: %v", err)
	}
	bad := []struct{ name, want string }{
		{"f-0_0-1-1_20240418173550988.log", "does not end in .parquet"},
		{"f-0_0-1-1.parquet", "want <fileId>_<writeToken>_<instantTime>.parquet"},
		{"f-0_0-1-1_x_20240418173550988.parquet", "want <fileId>_<writeToken>_<instantTime>.parquet"},
		{"_0-1-1_20240418173550988.parquet", `bad file id ""`},
		{"f.0_0-1-1_20240418173550988.parquet", `bad file id "f.0"`},
		{"f-0_0-1_20240418173550988.parquet", `bad write token "0-1"`},
		{"f-0_0-a-1_20240418173550988.parquet", `bad write token "0-a-1"`},
		{"f-0_0-1-1_2024041817355098.parquet", `bad instant time "2024041817355098"`},
		{"f-0_0-1-1_2024041817355098x.parquet", `bad instant time`},
	}
	for _, tt := range bad {
		_, err := ParseName(tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("ParseName(%q) error %v, want one naming the file and containing %q", tt.name, err, tt.want)
		}
	}
}

func FuzzParseBaseFileName(f *testing.F) {
	f.Add("a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet")
	f.Add("x_1-2-3_20240418173550.parquet")
	f.Add("a_b_c.parquet")
	f.Fuzz(func(t *testing.T, name string) {
		n, err := ParseName(name)
		if err != nil {
			return
		}
		if strings.Contains(name, "/") {
			return // parsed by its last element
		}
		if n.String() != name {
			t.Fatalf("ParseName(%q).String() = %q", name, n)
		}
	})
}

func TestNewFileID(t *testing.T) {
	a, b := NewFileID(), NewFileID()
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-0$`).MatchString(a) || a == b {
		t.Errorf("NewFileID() = %q, %q", a, b)
	}
	n := Name{FileID: a, WriteToken: "0-1-2", InstantTime: "20240101000000000"}
	if back, err := ParseName(n.String()); err != nil || back != n {
		t.Errorf("ParseName(%s) = %+v, %v", n, back, err)
	}
}

func newTestFS(t testing.TB) (*storage.LocalFS, string) {
	t.Helper()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fsys, dir
}

// writeBaseFile writes rows of values to a new base file and returns its stats.
func writeBaseFile(t testing.TB, fsys storage.FS, path string, schema *Schema, opts Options, rows [][]any) Stats {
	t.Helper()
	w, err := NewWriter(t.Context(), fsys, path, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, values := range rows {
		if err := w.WriteRow(values); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

func mustOpenBaseFile(t testing.TB, fsys storage.FS, path string) *File {
	t.Helper()
	bf, err := Open(t.Context(), fsys, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bf.Close() })
	return bf
}

// openPlainParquet opens a file with parquet-go alone.
func openPlainParquet(t testing.TB, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

func TestBaseFileRoundTrip(t *testing.T) {
	fsys, dir := newTestFS(t)
	schema := mustParseSchema(t, tripsSchemaJSON) // the writer adds the meta fields
	rows := tripsRows(t)
	const path = "2024/04/18/f-0_0-1-1_20240418173550988.parquet"
	stats := writeBaseFile(t, fsys, path, schema, Options{}, rows)

	st, err := os.Stat(filepath.Join(dir, path))
	if err != nil {
		t.Fatal(err)
	}
	if stats != (Stats{NumRows: 3, FileSize: st.Size(), MinRecordKey: "1", MaxRecordKey: "3"}) {
		t.Errorf("stats %+v, file size %d", stats, st.Size())
	}

	bf := mustOpenBaseFile(t, fsys, path)
	if !bf.Schema().Equal(schema.WithMetaFields()) {
		t.Errorf("schema read back:\n%s", mustMarshal(t, bf.Schema()))
	}
	if bf.NumRows() != 3 || bf.Size() != st.Size() || bf.Path() != path {
		t.Errorf("NumRows %d Size %d Path %s", bf.NumRows(), bf.Size(), bf.Path())
	}
	assertRowsEqual(t, readAllValues(t, bf), rows)
	if minKey, maxKey, ok := bf.RecordKeyRange(); !ok || minKey != "1" || maxKey != "3" {
		t.Errorf("RecordKeyRange() = %q, %q, %v", minKey, maxKey, ok)
	}
	bloom, err := bf.BloomFilter()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"1", "2", "3"} {
		if !bloom.MightContain(key) {
			t.Errorf("bloom filter misses key %q", key)
		}
	}

	// What plain parquet-go sees: parquet-avro's layout and Hudi's footer.
	pf := openPlainParquet(t, filepath.Join(dir, path))
	if got := pf.Schema().String(); got != tripsParquetSchema {
		t.Errorf("Parquet schema =\n%s\nwant\n%s", got, tripsParquetSchema)
	}
	md := bf.Metadata()
	for key, want := range map[string]string{
		FooterAvroSchema:      mustMarshal(t, schema.WithMetaFields()),
		FooterWriterModel:     "avro",
		FooterMinRecordKey:    "1",
		FooterMaxRecordKey:    "3",
		FooterBloomFilterType: "DYNAMIC_V0",
	} {
		if got, _ := pf.Lookup(key); got != want || md[key] != want {
			t.Errorf("footer %s = %q (Metadata: %q), want %q", key, got, md[key], want)
		}
	}
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		if c.MetaData.Codec != format.Zstd {
			t.Errorf("column %v compressed with %v, want ZSTD", c.MetaData.PathInSchema, c.MetaData.Codec)
		}
	}
}

func TestBaseFileWriteRows(t *testing.T) {
	fsys, _ := newTestFS(t)
	schema := tripsWithMeta(t)
	writeBaseFile(t, fsys, "a.parquet", schema, Options{}, tripsRows(t))
	src := mustOpenBaseFile(t, fsys, "a.parquet")

	// Copy the Parquet rows as they are into a new file.
	w, err := NewWriter(t.Context(), fsys, "b.parquet", src.Schema(), Options{Compression: "SNAPPY"})
	if err != nil {
		t.Fatal(err)
	}
	rows := src.Rows(t.Context())
	defer rows.Close()
	copyRows(t, w, rows, 2)
	if w.NumRows() != 3 || w.Size() <= 0 {
		t.Errorf("NumRows %d Size %d", w.NumRows(), w.Size())
	}
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stats.NumRows != 3 || stats.MinRecordKey != "1" || stats.MaxRecordKey != "3" {
		t.Errorf("stats %+v", stats)
	}
	dst := mustOpenBaseFile(t, fsys, "b.parquet")
	assertRowsEqual(t, readAllValues(t, dst), tripsRows(t))
	srcBloom := src.Metadata()[FooterBloomFilter]
	if dst.Metadata()[FooterBloomFilter] != srcBloom {
		t.Error("the copy has a different bloom filter")
	}

	// Rows without a record key are refused, all of them.
	w, err = NewWriter(t.Context(), fsys, "c.parquet", schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	good, err := schema.AppendRow(nil, tripsRows(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	noKey := good.Clone()
	noKey[2] = parquet.Value{}.Level(0, 0, 2)
	if n, err := w.WriteRows([]parquet.Row{good, noKey}); n != 0 || err == nil || !strings.Contains(err.Error(), "row 1 of the batch") {
		t.Errorf("WriteRows with a keyless row = %d, %v", n, err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
}

func TestBaseFileRowGroups(t *testing.T) {
	fsys, dir := newTestFS(t)
	schema := benchSchema(t)
	keys := benchKeys(20000)
	var rows [][]any
	for i := range keys {
		rows = append(rows, benchValues(i, keys))
	}
	stats := writeBaseFile(t, fsys, "big.parquet", schema, Options{BlockSize: 64 << 10, PageSize: 8 << 10, Compression: "uncompressed"}, rows)
	pf := openPlainParquet(t, filepath.Join(dir, "big.parquet"))
	groups := pf.Metadata().RowGroups
	if len(groups) < 3 {
		t.Fatalf("%d row groups, want several of at most about 64 KiB", len(groups))
	}
	for i, rg := range groups[:len(groups)-1] {
		if rg.TotalByteSize > 96<<10 {
			t.Errorf("row group %d holds %d bytes", i, rg.TotalByteSize)
		}
		if rg.Columns[0].MetaData.Codec != format.Uncompressed {
			t.Errorf("row group %d compressed with %v", i, rg.Columns[0].MetaData.Codec)
		}
	}
	bf := mustOpenBaseFile(t, fsys, "big.parquet")
	if len(bf.RowGroups()) != len(groups) || bf.NumRows() != int64(len(rows)) || stats.NumRows != int64(len(rows)) {
		t.Errorf("%d row groups, %d rows, stats %+v", len(bf.RowGroups()), bf.NumRows(), stats)
	}
	assertRowsEqual(t, readAllValues(t, bf), rows)
	if stats.MinRecordKey != keys[0] || stats.MaxRecordKey != keys[len(keys)-1] {
		t.Errorf("key range %q..%q", stats.MinRecordKey, stats.MaxRecordKey)
	}
}

func TestBaseFileCompression(t *testing.T) {
	fsys, dir := newTestFS(t)
	schema := benchSchema(t)
	rows := [][]any{benchValues(0, []string{"k"})}
	for name, codec := range map[string]format.CompressionCodec{
		"": format.Zstd, "zstd": format.Zstd, "snappy": format.Snappy, "GZIP": format.Gzip, "uncompressed": format.Uncompressed,
	} {
		path := "f" + name + ".parquet"
		writeBaseFile(t, fsys, path, schema, Options{Compression: name}, rows)
		pf := openPlainParquet(t, filepath.Join(dir, path))
		if got := pf.Metadata().RowGroups[0].Columns[0].MetaData.Codec; got != codec {
			t.Errorf("compression %q wrote %v, want %v", name, got, codec)
		}
	}
	_, err := NewWriter(t.Context(), fsys, "lz4.parquet", schema, Options{Compression: "lz4"})
	if err == nil || !strings.Contains(err.Error(), `"lz4"`) || !strings.Contains(err.Error(), "lz4.parquet") {
		t.Errorf("lz4: error %v", err)
	}
	if ok, _ := storage.Exists(t.Context(), fsys, "lz4.parquet"); ok {
		t.Error("a refused writer left a file")
	}
}

func TestBaseFileStringEncoding(t *testing.T) {
	fsys, dir := newTestFS(t)
	schema := benchSchema(t)
	keys := benchKeys(3000)
	rows := make([][]any, len(keys))
	for i := range rows {
		rows[i] = benchValues(i, keys)
	}
	// Columns 2 (_hoodie_record_key) and 6 (name) are strings without a
	// dictionary; 0 (_hoodie_commit_time) has one, 5 (id) is a long.
	for _, tt := range []struct{ name, want string }{
		{"", "DELTA_LENGTH_BYTE_ARRAY"}, {"delta_length_byte_array", "DELTA_LENGTH_BYTE_ARRAY"}, {"PLAIN", "PLAIN"},
	} {
		path := "enc" + tt.name + ".parquet"
		writeBaseFile(t, fsys, path, schema, Options{StringEncoding: tt.name, PageSize: 16 << 10}, rows)
		columns := openPlainParquet(t, filepath.Join(dir, path)).Metadata().RowGroups[0].Columns
		for _, c := range []struct {
			column int
			want   string
		}{{2, tt.want}, {6, tt.want}, {0, "RLE_DICTIONARY"}, {5, "PLAIN"}} {
			if got := fmt.Sprint(columns[c.column].MetaData.Encoding); !strings.Contains(got, c.want) {
				t.Errorf("encoding %q: column %d has %s, want %s", tt.name, c.column, got, c.want)
			}
		}
		if got := readAllValues(t, mustOpenBaseFile(t, fsys, path)); !reflect.DeepEqual(got, rows) {
			t.Errorf("encoding %q: the rows read back differ", tt.name)
		}
	}
	_, err := NewWriter(t.Context(), fsys, "rle.parquet", schema, Options{StringEncoding: "RLE"})
	if err == nil || !strings.Contains(err.Error(), `"RLE"`) {
		t.Errorf("RLE: error %v", err)
	}
	if ok, _ := storage.Exists(t.Context(), fsys, "rle.parquet"); ok {
		t.Error("a refused writer left a file")
	}
}

func TestBaseFileEmpty(t *testing.T) {
	fsys, _ := newTestFS(t)
	stats := writeBaseFile(t, fsys, "empty.parquet", benchSchema(t), Options{}, nil)
	if stats.NumRows != 0 || stats.MinRecordKey != "" || stats.FileSize == 0 {
		t.Errorf("stats %+v", stats)
	}
	bf := mustOpenBaseFile(t, fsys, "empty.parquet")
	if _, _, ok := bf.RecordKeyRange(); ok {
		t.Error("an empty file has a key range")
	}
	if bloom, err := bf.BloomFilter(); err != nil || bloom.MightContain("k") {
		t.Errorf("BloomFilter() = %v, %v", bloom, err)
	}
	if rows := readAllValues(t, bf); len(rows) != 0 {
		t.Errorf("%d rows", len(rows))
	}
}

func TestBaseFileWriterErrors(t *testing.T) {
	fsys, _ := newTestFS(t)
	schema := benchSchema(t)
	w, err := NewWriter(t.Context(), fsys, "w.parquet", schema, Options{NoBloomFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	good := benchValues(1, []string{"k1"})
	noKey := append([]any(nil), good...)
	noKey[2] = ""
	badType := append([]any(nil), good...)
	badType[6] = 5
	for _, tt := range []struct {
		values []any
		want   string
	}{
		{noKey, `row 0: field _hoodie_record_key must be a non-empty string`},
		{good[:2], `row 0: field _hoodie_record_key must be a non-empty string`},
		{badType, `row 0: storage: field "name": int does not match`},
	} {
		if err := w.WriteRow(tt.values); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "w.parquet") {
			t.Errorf("WriteRow error %v, want one naming the file and containing %q", err, tt.want)
		}
	}
	// Refused rows leave the writer usable.
	if err := w.WriteRow(good); err != nil {
		t.Fatal(err)
	}
	stats, err := w.Close()
	if err != nil || stats.NumRows != 1 {
		t.Fatalf("Close() = %+v, %v", stats, err)
	}
	if _, err := w.Close(); err == nil {
		t.Error("a second Close succeeded")
	}
	if err := w.WriteRow(good); err == nil {
		t.Error("WriteRow after Close succeeded")
	}
	bf := mustOpenBaseFile(t, fsys, "w.parquet")
	if _, err := bf.BloomFilter(); err == nil {
		t.Error("a file written without a bloom filter has one")
	}

	// Abort removes the file; a new writer cannot replace an existing file.
	w, err = NewWriter(t.Context(), fsys, "aborted.parquet", schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(good); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := storage.Exists(t.Context(), fsys, "aborted.parquet"); ok {
		t.Error("Abort left the file")
	}
	if _, err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if _, err := NewWriter(t.Context(), fsys, "w.parquet", schema, Options{}); err == nil {
		t.Error("a writer replaced an existing file")
	}

	// A cancelled context fails the write and removes the file.
	ctx, cancel := context.WithCancel(t.Context())
	w, err = NewWriter(ctx, fsys, "cancelled.parquet", schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w.Close(); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Close with a cancelled context: %v", err)
	}
	if ok, _ := storage.Exists(t.Context(), fsys, "cancelled.parquet"); ok {
		t.Error("a cancelled write left its file")
	}
}

func TestOpenBaseFileErrors(t *testing.T) {
	fsys, dir := newTestFS(t)
	writeBaseFile(t, fsys, "good.parquet", mustParseSchema(t, tripsSchemaJSON), Options{}, tripsRows(t))
	data, err := os.ReadFile(filepath.Join(dir, "good.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cut := range []int{0, 3, 100, len(data) / 2, len(data) - 9, len(data) - 1} {
		write(fmt.Sprintf("cut%d.parquet", cut), data[:cut])
	}
	write("garbage.parquet", bytes.Repeat([]byte("PAR1"), 100))
	footerLen := int(data[len(data)-8]) | int(data[len(data)-7])<<8 | int(data[len(data)-6])<<16
	corrupt := bytes.Clone(data)
	for i := len(data) - 8 - footerLen; i < len(data)-8; i += 7 {
		corrupt[i] ^= 0x5a
	}
	write("corrupt.parquet", corrupt)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(entries, nil) {
		name := "missing.parquet"
		if e != nil {
			name = e.Name()
		}
		if name == "good.parquet" {
			continue
		}
		bf, err := Open(t.Context(), fsys, name)
		if err == nil {
			// The corruption may spare the footer's structure; reading then fails.
			var rerr error
			rows := bf.Rows(t.Context())
			for rerr == nil {
				_, rerr = rows.Next()
			}
			rows.Close()
			bf.Close()
			if errors.Is(rerr, io.EOF) {
				t.Errorf("%s: opened and read without an error", name)
			}
			err = rerr
		}
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func TestOpenBaseFileSchemaMismatch(t *testing.T) {
	// A footer Avro schema that does not describe the Parquet columns.
	fsys, dir := newTestFS(t)
	f, err := os.Create(filepath.Join(dir, "odd.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		A int64 `parquet:"a"`
	}
	w := parquet.NewGenericWriter[row](f, parquet.KeyValueMetadata(FooterAvroSchema,
		`{"type":"record","name":"row","fields":[{"name":"a","type":"string"}]}`))
	if _, err := w.Write([]row{{A: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Open(t.Context(), fsys, "odd.parquet")
	if err == nil || !strings.Contains(err.Error(), "odd.parquet") || !strings.Contains(err.Error(), `field "a"`) {
		t.Errorf("Open error %v", err)
	}
}

func TestBloomFilter(t *testing.T) {
	f, err := NewBloomFilter(DefaultBloomNumEntries, DefaultBloomFPP, DefaultBloomMaxEntries)
	if err != nil {
		t.Fatal(err)
	}
	// Hudi's sizing for its defaults, as in Spark-written footers.
	if f.vectorSize != 2587966 || f.numHashes != 30 {
		t.Errorf("vector size %d, %d hashes", f.vectorSize, f.numHashes)
	}
	keys := []string{"1", "id:1,name:Alice", "héllo", "\xff\xfe", "a key of some length, longer than sixty-four bytes, to use more blocks"}
	for _, k := range keys {
		f.Add(k)
	}
	parsed, err := ParseBloomFilter(f.String())
	if err != nil {
		t.Fatal(err)
	}
	if parsed.String() != f.String() {
		t.Error("ParseBloomFilter(f.String()).String() differs")
	}
	falsePositives := 0
	for _, k := range keys {
		if !parsed.MightContain(k) {
			t.Errorf("MightContain(%q) = false", k)
		}
	}
	for i := range 1000 {
		if parsed.MightContain(fmt.Sprint("absent-", i)) {
			falsePositives++
		}
	}
	if falsePositives > 0 || parsed.MightContain("") {
		t.Errorf("%d false positives", falsePositives)
	}

	// Growth: a new standard filter per 10 keys until 25 keys are covered,
	// then round robin.
	small, err := NewBloomFilter(10, 0.01, 25)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 45 {
		small.Add(fmt.Sprint("key", i))
	}
	if len(small.rows) != 3 || !small.reachedMax || small.current != 25 {
		t.Errorf("%d rows, reachedMax %v, current %d", len(small.rows), small.reachedMax, small.current)
	}
	back, err := ParseBloomFilter(small.String())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 45 {
		if !back.MightContain(fmt.Sprint("key", i)) {
			t.Errorf("grown filter misses key%d", i)
		}
	}

	for _, bad := range []string{"", "!!", "AAAA", f.String()[:100], f.String() + "AAAA"} {
		if _, err := ParseBloomFilter(bad); err == nil {
			t.Errorf("ParseBloomFilter(%.20q...) succeeded", bad)
		}
	}
	if _, err := NewBloomFilter(0, 0.1, 1); err == nil {
		t.Error("NewBloomFilter(0 entries) succeeded")
	}
	if _, err := NewBloomFilter(10, 1, 1); err == nil {
		t.Error("NewBloomFilter(fpp 1) succeeded")
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1},
		{"ab", "a", 1},
		{"", "", 0},
		{"id:1", "id:10", -1},
		{"é", "z", 1},
		// U+1F600 is a surrogate pair (D83D DE00) and sorts below U+FF21 in
		// Java, above it in byte order.
		{"\U0001F600", "\uFF21", -1},
		{"x\U0001F600", "x\uFF21", -1},
		{"\U0001F600", "\u00e9", 1},
		{"\U0001F600", "\U0001F601", -1},
	}
	for _, tt := range tests {
		if got := compareUTF16(tt.a, tt.b); got != tt.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := compareUTF16(tt.b, tt.a); got != -tt.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// FuzzOpenBaseFile reads damaged base files: errors, never panics, and
// errors name the file.
func FuzzOpenBaseFile(f *testing.F) {
	fsys := storage.NewMemFS()
	for i, opts := range []Options{{NoBloomFilter: true, Compression: "uncompressed"}, {NoBloomFilter: true, Compression: "snappy"}} {
		name := fmt.Sprint("seed", i, ".parquet")
		writeBaseFile(f, fsys, name, mustParseSchema(f, tripsSchemaJSON), opts, tripsRows(f))
		data, err := fsys.ReadFile(f.Context(), name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := storage.NewMemFS()
		if err := fsys.WriteFile(t.Context(), "f.parquet", data); err != nil {
			t.Fatal(err)
		}
		bf, err := Open(t.Context(), fsys, "f.parquet")
		if err != nil {
			if !strings.Contains(err.Error(), "f.parquet") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		defer bf.Close()
		rows := bf.Rows(t.Context())
		defer rows.Close()
		for {
			_, err := rows.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !strings.Contains(err.Error(), "f.parquet") {
					t.Fatalf("error %q does not name the file", err)
				}
				return
			}
		}
	})
}

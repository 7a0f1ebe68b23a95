package basefile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestColumnarWriterDictionaries checks which string columns the columnar
// writer dictionary-encodes: those whose first page the dictionary
// shrinks, until the dictionary reaches 1 MiB, and none with NoDictionary.
// Every file must read back as written.
func TestColumnarWriterDictionaries(t *testing.T) {
	schema := mustParseSchema(t, `{"type":"record","name":"dict_record","fields":[
		{"name":"few","type":"string"},
		{"name":"distinct","type":"string"},
		{"name":"growing","type":["null","string"],"default":null},
		{"name":"n","type":"long"}]}`)
	const rows = 30000
	var keys []string
	var data [][]any
	for i := range rows {
		keys = append(keys, fmt.Sprintf("key-%06d", i))
		// growing repeats each value once, so a dictionary pays on the
		// first page, but its 200-byte values pass 1 MiB of dictionary
		// after about 5,000 of them.
		var growing any = fmt.Sprintf("%0200d", i/2)
		if i%7 == 0 {
			growing = nil
		}
		data = append(data, []any{[]string{"red", "green", "blue"}[i%3], fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15), growing, int64(i)})
	}
	// Pages hold the encodings each column's chunk used: the dictionary's
	// data pages, the plain ones.
	type pages struct{ dict, plain bool }
	cases := []struct {
		name string
		opts Options
		want map[string]pages
	}{
		{name: "dictionaries where they pay", opts: Options{PageSize: 64 << 10},
			want: map[string]pages{
				MetaCommitTime: {dict: true}, MetaCommitSeqNo: {plain: true}, MetaRecordKey: {plain: true},
				"few": {dict: true}, "distinct": {plain: true}, "growing": {dict: true, plain: true}, "n": {plain: true},
			}},
		{name: "no dictionaries", opts: Options{PageSize: 64 << 10, NoDictionary: true},
			want: map[string]pages{
				MetaCommitTime: {dict: true}, MetaCommitSeqNo: {plain: true}, MetaRecordKey: {plain: true},
				"few": {plain: true}, "distinct": {plain: true}, "growing": {plain: true}, "n": {plain: true},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, _ := newTestFS(t)
			opts := tc.opts
			opts.NewRecordsOnly = true
			w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, opts)
			if err != nil {
				t.Fatal(err)
			}
			if w.columnar == nil {
				t.Fatal("a flat schema's NewRecordsOnly writer is not the columnar writer")
			}
			for start := 0; start < rows; start += 4096 {
				end := min(start+4096, rows)
				if err := w.WriteNew(tripsMeta, int64(start), keys[start:end], data[start:end]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			bf := mustOpenBaseFile(t, fsys, "f.parquet")
			got := readAllValues(t, bf)
			if len(got) != rows {
				t.Fatalf("%d rows read back, want %d", len(got), rows)
			}
			for i, row := range got {
				if !slices.Equal(row[NumMetaFields:], data[i]) || row[MetaRecordKeyPos] != keys[i] {
					t.Fatalf("row %d reads back as %v, want key %s and %v", i, row, keys[i], data[i])
				}
			}
			meta := bf.Parquet().Metadata()
			if len(meta.RowGroups) != 1 {
				t.Fatalf("%d row groups, want 1", len(meta.RowGroups))
			}
			for _, c := range meta.RowGroups[0].Columns {
				name := c.MetaData.PathInSchema[0]
				want, ok := tc.want[name]
				if !ok {
					continue
				}
				var got pages
				for _, s := range c.MetaData.EncodingStats {
					switch {
					case s.PageType == format.DataPage && s.Encoding == format.RLEDictionary:
						got.dict = true
					case s.PageType == format.DataPage:
						got.plain = true
					}
				}
				if got != want {
					t.Errorf("column %s: pages %+v, want %+v (encoding stats %+v)", name, got, want, c.MetaData.EncodingStats)
				}
				if hasDictPage := c.MetaData.DictionaryPageOffset != 0; hasDictPage != want.dict {
					t.Errorf("column %s: a dictionary page %v, want %v", name, hasDictPage, want.dict)
				}
			}
		})
	}
}

// TestColumnarWriterEndsPagesAmidRecords checks that a page of large
// values ends once it reaches the page size, within the records of one
// WriteNew chunk, and that the file reads back.
func TestColumnarWriterEndsPagesAmidRecords(t *testing.T) {
	schema := mustParseSchema(t, `{"type":"record","name":"big_record","fields":[
		{"name":"blob","type":["null","bytes"],"default":null},
		{"name":"n","type":"long"}]}`)
	const rows, size = 40, 100 << 10
	keys := make([]string, rows)
	data := make([][]any, rows)
	for i := range data {
		keys[i] = fmt.Sprintf("key-%03d", i)
		blob := make([]byte, size)
		for j := range blob {
			blob[j] = byte(i*31 + j*7)
		}
		data[i] = []any{blob, int64(i)}
	}
	fsys, dir := newTestFS(t)
	opts := Options{NewRecordsOnly: true, PageSize: 64 << 10, Compression: "uncompressed"}
	w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteNew(tripsMeta, 0, keys, data); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readAllValues(t, mustOpenBaseFile(t, fsys, "f.parquet"))
	if len(got) != rows {
		t.Fatalf("%d rows read back, want %d", len(got), rows)
	}
	for i, row := range got {
		if b, _ := row[NumMetaFields].([]byte); !slices.Equal(b, data[i][0].([]byte)) {
			t.Fatalf("row %d: blob of %d bytes differs", i, len(b))
		}
	}
	offsets := openParquet(t, filepath.Join(dir, "f.parquet")).OffsetIndexes()
	blob := offsets[NumMetaFields]
	if len(blob.PageLocations) != rows {
		t.Errorf("the blob column has %d pages, want one per value (%d)", len(blob.PageLocations), rows)
	}
	for _, loc := range blob.PageLocations {
		if loc.CompressedPageSize > size+1024 {
			t.Errorf("a page of %d bytes holds more than one value", loc.CompressedPageSize)
		}
	}
}

// TestMetaNamedColumnsOfOtherTypes checks a table without meta fields
// whose columns take the names of the dictionary-encoded meta fields with
// other types than string: both writers must write them as the values
// they are, and a writer with meta fields refuses meta fields that are not
// strings.
func TestMetaNamedColumnsOfOtherTypes(t *testing.T) {
	schema := mustParseSchema(t, `{"type":"record","name":"r","fields":[
		{"name":"_hoodie_commit_time","type":"long"},
		{"name":"_hoodie_partition_path","type":["null","double"],"default":null},
		{"name":"_hoodie_file_name","type":"boolean"},
		{"name":"x","type":"int"}]}`)
	var rows [][]any
	for i := range 3000 {
		var d any = float64(i) / 4
		if i%5 == 0 {
			d = nil
		}
		rows = append(rows, []any{int64(i * 7), d, i%3 == 0, int32(i)})
	}
	for _, columnar := range []bool{false, true} {
		t.Run(fmt.Sprintf("columnar=%v", columnar), func(t *testing.T) {
			fsys, dir := newTestFS(t)
			w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{NoMetaFields: true, NewRecordsOnly: columnar, PageSize: 1 << 10})
			if err != nil {
				t.Fatal(err)
			}
			if (w.columnar != nil) != columnar {
				t.Fatalf("the columnar writer: %v, want %v", w.columnar != nil, columnar)
			}
			if err := w.WriteNew(nil, 0, nil, rows); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			assertSameRows(t, "values read back", readAllValues(t, mustOpenBaseFile(t, fsys, "f.parquet")), rows)
			checkPageIndexes(t, filepath.Join(dir, "f.parquet"))
		})
	}
	keyed := mustParseSchema(t, `{"type":"record","name":"r","fields":[
		{"name":"_hoodie_commit_time","type":"long"},
		{"name":"_hoodie_commit_seqno","type":"string"},
		{"name":"_hoodie_record_key","type":"string"},
		{"name":"_hoodie_partition_path","type":"string"},
		{"name":"_hoodie_file_name","type":"string"},
		{"name":"x","type":"int"}]}`)
	fsys, _ := newTestFS(t)
	_, err := NewWriter(t.Context(), fsys, "f.parquet", keyed, Options{NewRecordsOnly: true})
	if err == nil || !strings.Contains(err.Error(), "meta field _hoodie_commit_time must be a string") {
		t.Errorf("a long _hoodie_commit_time meta field: error %v", err)
	}
	if _, statErr := fsys.Stat(t.Context(), "f.parquet"); statErr == nil {
		t.Error("the refused writer left a file")
	}
}

// TestBaseFileWriterRefusesPageSizes checks that a page size Parquet's
// 32-bit page sizes cannot hold, or a negative one, is refused up front,
// with nothing left behind.
func TestBaseFileWriterRefusesPageSizes(t *testing.T) {
	schema := mustParseSchema(t, `{"type":"record","name":"r","fields":[{"name":"x","type":"long"}]}`)
	for _, size := range []int{-1, MaxPageSize + 1, 3 << 30} {
		fsys, _ := newTestFS(t)
		_, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{PageSize: size, NewRecordsOnly: true})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("bad page size %d", size)) {
			t.Errorf("page size %d: error %v", size, err)
		}
		if _, statErr := fsys.Stat(t.Context(), "f.parquet"); statErr == nil {
			t.Errorf("page size %d: the refused writer left a file", size)
		}
	}
}

// TestOrderOfBytes checks the boundary order of byte array bounds as
// parquet-go's indexers decide it.
func TestOrderOfBytes(t *testing.T) {
	b := func(values ...string) [][]byte {
		var out [][]byte
		for _, v := range values {
			out = append(out, []byte(v))
		}
		return out
	}
	cases := []struct {
		values [][]byte
		want   int
	}{
		{nil, 0},
		{b("a"), 0},
		{b("a", "a", "a"), 1},
		{b("a", "b", "b", "c"), 1},
		{b("c", "b", "b", "a"), -1},
		{b("b", "b", "a"), -1},
		{b("a", "c", "b"), 0},
		{b("", "a", "b"), 1},
		{b("a", "", "b"), 0},
	}
	for _, tc := range cases {
		if got := orderOfBytes(tc.values); got != tc.want {
			t.Errorf("orderOfBytes(%q) = %d, want %d", tc.values, got, tc.want)
		}
	}
}

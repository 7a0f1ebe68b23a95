package timeline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/hudi1test"
)

func TestParseCommitMetadataLenient(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *CommitMetadata
	}{
		{"empty file", "", &CommitMetadata{}},
		{"blank file", " \n", &CommitMetadata{}},
		{"JSON null", "null", &CommitMetadata{}},
		{"empty object", "{}", &CommitMetadata{}},
		{
			name: "unknown fields are ignored",
			in:   `{"operationType":"INSERT","totalRecordsDeleted":0,"writePartitionPaths":["a"],"nested":{"x":[1,{"y":null}]}}`,
			want: &CommitMetadata{OperationType: OperationInsert},
		},
		{
			name: "nulls leave zero values",
			in: `{"partitionToWriteStats":{"p":[{"fileId":null,"path":null,"prevCommit":null,"numWrites":null,
				"cdcStats":null,"minEventTime":null,"runtimeStats":null}],"q":null},
				"compacted":null,"extraMetadata":null,"operationType":null}`,
			want: &CommitMetadata{PartitionToWriteStats: map[string][]WriteStat{"p": {{}}, "q": nil}},
		},
		{
			name: "all write stat fields",
			in: `{"partitionToWriteStats":{"2024/01/01":[{"fileId":"f","path":"2024/01/01/f.parquet","cdcStats":{"c.cdc":12},
				"prevCommit":"20240101000000000","numWrites":1,"numDeletes":2,"numUpdateWrites":3,"numInserts":4,
				"totalWriteBytes":5,"totalWriteErrors":6,"tempPath":"t","partitionPath":"2024/01/01","totalLogRecords":7,
				"totalLogFilesCompacted":8,"totalLogSizeCompacted":9,"totalUpdatedRecordsCompacted":10,"totalLogBlocks":11,
				"totalCorruptLogBlock":12,"totalRollbackBlocks":13,"fileSizeInBytes":14,"minEventTime":15,"maxEventTime":16,
				"runtimeStats":{"totalScanTime":17,"totalUpsertTime":18,"totalCreateTime":19}}]},
				"compacted":true,"extraMetadata":{"schema":"{}","checkpoint":"7"},"operationType":"BULK_INSERT"}`,
			want: &CommitMetadata{
				PartitionToWriteStats: map[string][]WriteStat{"2024/01/01": {{
					FileID: "f", Path: "2024/01/01/f.parquet", CDCStats: map[string]int64{"c.cdc": 12},
					PrevCommit: "20240101000000000", NumWrites: 1, NumDeletes: 2, NumUpdateWrites: 3, NumInserts: 4,
					TotalWriteBytes: 5, TotalWriteErrors: 6, TempPath: "t", PartitionPath: "2024/01/01", TotalLogRecords: 7,
					TotalLogFilesCompacted: 8, TotalLogSizeCompacted: 9, TotalUpdatedRecordsCompacted: 10, TotalLogBlocks: 11,
					TotalCorruptLogBlock: 12, TotalRollbackBlocks: 13, FileSizeInBytes: 14, MinEventTime: ptr(int64(15)),
					MaxEventTime: ptr(int64(16)), RuntimeStats: &RuntimeStats{17, 18, 19},
				}}},
				Compacted:     true,
				ExtraMetadata: map[string]string{"schema": "{}", "checkpoint": "7"},
				OperationType: OperationBulkInsert,
			},
		},
	}
	for _, tt := range tests {
		got, err := ParseCommitMetadata([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestParseCommitMetadataRejects(t *testing.T) {
	for _, in := range []string{
		"PAR1",
		"{",
		`{"partitionToWriteStats":[]}`,
		`{"partitionToWriteStats":{"p":{}}}`,
		`{"partitionToWriteStats":{"p":[{"numWrites":"3"}]}}`,
		`{"partitionToWriteStats":{"p":[{"numWrites":1.5}]}}`,
		`{"partitionToWriteStats":{"p":[{"fileId":7}]}}`,
		`{"compacted":"false"}`,
		`{"extraMetadata":{"schema":{}}}`,
		`{"operationType":1}`,
		`[]`,
		`"commit"`,
		`{} trailing`,
	} {
		if m, err := ParseCommitMetadata([]byte(in)); err == nil {
			t.Errorf("ParseCommitMetadata(%s) = %+v, want an error", in, m)
		}
	}
}

func TestCommitMetadataHelpers(t *testing.T) {
	m := &CommitMetadata{ExtraMetadata: map[string]string{SchemaKey: `{"type":"record"}`}}
	m.AddWriteStat("b", WriteStat{FileID: "b1", Path: "b/b1.parquet", NumWrites: 5, NumInserts: 5, TotalWriteBytes: 100})
	m.AddWriteStat("a", WriteStat{FileID: "a1", Path: "a/a1.parquet", NumWrites: 10, NumUpdateWrites: 2, NumDeletes: 1, TotalWriteBytes: 200})
	m.AddWriteStat("a", WriteStat{FileID: "a2", Path: "a/a2.parquet", NumWrites: 3, NumInserts: 3, TotalWriteErrors: 1})
	m.AddWriteStat("c", WriteStat{PrevCommit: NullCommit, NumInserts: 9}) // a workload profile entry

	if got, want := m.Partitions(), []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Partitions() = %v, want %v", got, want)
	}
	if got, want := m.WrittenPaths(), []string{"a/a1.parquet", "a/a2.parquet", "b/b1.parquet"}; !reflect.DeepEqual(got, want) {
		t.Errorf("WrittenPaths() = %v, want %v", got, want)
	}
	if got, want := m.FileIDsByPartition(), map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("FileIDsByPartition() = %v, want %v", got, want)
	}
	if got := len(m.WriteStats()); got != 4 {
		t.Errorf("WriteStats() has %d stats, want 4", got)
	}
	want := WriteTotals{Written: 18, Inserted: 17, Updated: 2, Deleted: 1, Errors: 1, Bytes: 300}
	if got := m.Totals(); got != want {
		t.Errorf("Totals() = %+v, want %+v", got, want)
	}
	if got := m.Schema(); got != `{"type":"record"}` {
		t.Errorf("Schema() = %q", got)
	}
	if got := (&CommitMetadata{}).Schema(); got != "" {
		t.Errorf("Schema() of empty metadata = %q", got)
	}
}

func TestNewWorkloadProfile(t *testing.T) {
	m := NewWorkloadProfile(OperationUpsert,
		map[string]int64{"a": 4, "b": 0},
		map[string][]FileGroupWork{
			"a": {{FileID: "a1", PrevCommit: "20240101000000000", Updates: 2}, {FileID: "a2", PrevCommit: "20240101000000001", Inserts: 7}},
			"c": {{FileID: "c1", PrevCommit: "20240101000000002", Updates: 1, Inserts: 1}},
		})
	want := &CommitMetadata{
		PartitionToWriteStats: map[string][]WriteStat{
			"a": {
				{PrevCommit: NullCommit, NumInserts: 4},
				{FileID: "a1", PrevCommit: "20240101000000000", NumUpdateWrites: 2},
				{FileID: "a2", PrevCommit: "20240101000000001", NumInserts: 7},
			},
			"b": {{PrevCommit: NullCommit}},
			"c": {
				{PrevCommit: NullCommit},
				{FileID: "c1", PrevCommit: "20240101000000002", NumUpdateWrites: 1, NumInserts: 1},
			},
		},
		ExtraMetadata: map[string]string{},
		OperationType: OperationUpsert,
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("NewWorkloadProfile:\n got %+v\nwant %+v", m, want)
	}
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"extraMetadata" : { }`, `"fileId" : "",`, `"path" : null,`, `"partitionPath" : null,`, `"prevCommit" : "null",`} {
		if !strings.Contains(string(out), frag) {
			t.Errorf("workload profile JSON lacks %s:\n%s", frag, out)
		}
	}
}

func TestMarshalCommitMetadata(t *testing.T) {
	m := &CommitMetadata{
		PartitionToWriteStats: map[string][]WriteStat{"": {{
			FileID: "f", Path: "f.parquet", PrevCommit: NullCommit, NumWrites: 1,
			CDCStats: map[string]int64{}, MinEventTime: ptr(int64(-3)),
		}}},
		ExtraMetadata: map[string]string{SchemaKey: "{\"a\":\"<\\u00e9>\"}\n\t\x01"},
		OperationType: OperationInsert,
	}
	want := `{
  "partitionToWriteStats" : {
    "" : [ {
      "fileId" : "f",
      "path" : "f.parquet",
      "cdcStats" : { },
      "prevCommit" : "null",
      "numWrites" : 1,
      "numDeletes" : 0,
      "numUpdateWrites" : 0,
      "numInserts" : 0,
      "totalWriteBytes" : 0,
      "totalWriteErrors" : 0,
      "tempPath" : null,
      "partitionPath" : "",
      "totalLogRecords" : 0,
      "totalLogFilesCompacted" : 0,
      "totalLogSizeCompacted" : 0,
      "totalUpdatedRecordsCompacted" : 0,
      "totalLogBlocks" : 0,
      "totalCorruptLogBlock" : 0,
      "totalRollbackBlocks" : 0,
      "fileSizeInBytes" : 0,
      "minEventTime" : -3,
      "maxEventTime" : null,
      "runtimeStats" : null
    } ]
  },
  "compacted" : false,
  "extraMetadata" : {
    "schema" : "{\"a\":\"<\\u00e9>\"}\n\t\u0001"
  },
  "operationType" : "INSERT"
}`
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("MarshalJSON:\n got %s\nwant %s", out, want)
	}
	// The empty metadata has nulls where Hudi's Java fields would be null.
	out, err = (&CommitMetadata{}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"partitionToWriteStats\" : null,\n  \"compacted\" : false,\n  \"extraMetadata\" : null,\n  \"operationType\" : null\n}"; string(out) != want {
		t.Errorf("MarshalJSON of empty metadata:\n got %s\nwant %s", out, want)
	}
	// encoding/json uses MarshalJSON, compacting it, for values and pointers.
	compact, err := json.Marshal(CommitMetadata{OperationType: OperationDelete})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"partitionToWriteStats":null,"compacted":false,"extraMetadata":null,"operationType":"DELETE"}`; string(compact) != want {
		t.Errorf("json.Marshal = %s, want %s", compact, want)
	}
}

func TestReplaceCommitMetadataRoundTrip(t *testing.T) {
	m := &ReplaceCommitMetadata{
		CommitMetadata: CommitMetadata{ExtraMetadata: map[string]string{}, OperationType: OperationInsertOverwrite},
		PartitionToReplaceFileIDs: map[string][]string{
			"2023-04-24/04/sg/appsdk": {},
			"2023-04-24/04/jp/appsdk": {"f1", "f2"},
		},
	}
	m.AddWriteStat("2023-04-24/04/jp/appsdk", WriteStat{FileID: "f3", Path: "2023-04-24/04/jp/appsdk/f3.parquet", PartitionPath: "2023-04-24/04/jp/appsdk"})
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	// Hudi writes the replaced file ids last, after the inherited fields.
	if i, j := strings.Index(s, `"operationType" : "INSERT_OVERWRITE"`), strings.Index(s, `"partitionToReplaceFileIds" : {`); i < 0 || j < i {
		t.Errorf("field order wrong:\n%s", s)
	}
	for _, frag := range []string{`"2023-04-24/04/sg/appsdk" : [ ]`, `"2023-04-24/04/jp/appsdk" : [ "f1", "f2" ]`} {
		if !strings.Contains(s, frag) {
			t.Errorf("replace JSON lacks %s:\n%s", frag, s)
		}
	}
	back, err := ParseReplaceCommitMetadata(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, m)
	}
	viaJSON, err := json.Marshal(*m)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseReplaceCommitMetadata(viaJSON); err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("json.Marshal round trip: %+v, %v", back, err)
	}
	// Read as plain commit metadata, the replaced ids are ignored.
	plain, err := ParseCommitMetadata(out)
	if err != nil || !reflect.DeepEqual(plain, &m.CommitMetadata) {
		t.Errorf("as commit metadata: %+v, %v", plain, err)
	}
}

func TestOperationValue(t *testing.T) {
	for op, want := range map[Operation]string{
		OperationUpsert: "upsert", OperationBulkInsert: "bulk_insert", OperationInsertOverwriteTable: "insert_overwrite_table",
		OperationLogCompact: "log_compact",
	} {
		if got := op.Value(); got != want {
			t.Errorf("%s.Value() = %q, want %q", op, got, want)
		}
	}
}

func FuzzParseCommitMetadata(f *testing.F) {
	for _, s := range []string{
		"", "null", "{}", "[]", "PAR1",
		`{"partitionToWriteStats":{"p":[{"fileId":"f","path":"p/f.parquet","prevCommit":"null","numWrites":1,"cdcStats":{"x":1},"minEventTime":3,"runtimeStats":{"totalScanTime":1}}]},"compacted":true,"extraMetadata":{"schema":"{}"},"operationType":"UPSERT"}`,
		`{"partitionToWriteStats":{"":[{"fileId":"","path":null,"partitionPath":null}],"q":null,"r":[]},"extraMetadata":{},"operationType":null}`,
		`{"partitionToReplaceFileIds":{"p":["a","b"],"q":[]}}`,
		`{"partitionToWriteStats":{"p":[{"numWrites":"x"}]}}`,
		"{\"extraMetadata\":{\"k\":\"\\u0000\\ud800\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	// Table version 8's Avro container files, whole and cut short.
	js := []byte(`{"partitionToWriteStats":{"p":[{"fileId":"f","path":"p/f.parquet","prevCommit":"null","numWrites":1,"runtimeStats":{"totalScanTime":1}}]},"extraMetadata":{"schema":"{}"},"operationType":"UPSERT","partitionToReplaceFileIds":{"p":["g"]}}`)
	for _, encode := range []func([]byte) ([]byte, error){hudi1test.AvroCommitMetadata, hudi1test.AvroReplaceCommitMetadata} {
		data, err := encode(js)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)-20])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseReplaceCommitMetadata(data)
		if err != nil {
			return
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON of parsed %q: %v", data, err)
		}
		if !json.Valid(out) {
			t.Fatalf("MarshalJSON of parsed %q is not JSON: %s", data, out)
		}
		again, err := ParseReplaceCommitMetadata(out)
		if err != nil {
			t.Fatalf("marshalled metadata does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("round trip of %q changed the metadata\n got %+v\nwant %+v", data, again, m)
		}
	})
}

package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// The two commits of v6_nonpartitioned.
const (
	commit1 = "20240418173550988"
	commit2 = "20240418173551906"
)

// aliceJSON is Alice's record of v6_nonpartitioned after commit 2: a value
// of every type the fixtures have, as `read` prints it.
const aliceJSON = `{"_hoodie_commit_time":"20240418173551906","_hoodie_commit_seqno":"20240418173551906_0_2",` +
	`"_hoodie_record_key":"1","_hoodie_partition_path":"",` +
	`"_hoodie_file_name":"a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet",` +
	`"id":1,"name":"Alice","isActive":false,"byteField":1,"shortField":300,"intField":15000,"longField":1234567890,` +
	`"floatField":1,"doubleField":3.14159,"decimalField":"12345.67890","dateField":"2023-04-01",` +
	`"timestampField":"2023-04-01T17:01:00Z","binaryField":"YmluYXJ5IGRhdGE=",` +
	`"arrayField":[{"arr_struct_f1":"red","arr_struct_f2":100},{"arr_struct_f1":"blue","arr_struct_f2":200},{"arr_struct_f1":"green","arr_struct_f2":300}],` +
	`"mapField":{"key1":{"map_field_value_struct_f1":123.456,"map_field_value_struct_f2":true},"key2":{"map_field_value_struct_f1":789.012,"map_field_value_struct_f2":false}},` +
	`"structField":{"field1":"Alice","field2":30,"child_struct":{"child_field1":123.456,"child_field2":true}}}` + "\n"

const aliceCSV = `_hoodie_commit_time,_hoodie_commit_seqno,_hoodie_record_key,_hoodie_partition_path,_hoodie_file_name,id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField,dateField,timestampField,binaryField,arrayField,mapField,structField
20240418173551906,20240418173551906_0_2,1,,a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet,1,Alice,false,1,300,15000,1234567890,1,3.14159,12345.67890,2023-04-01,2023-04-01T17:01:00Z,YmluYXJ5IGRhdGE=,"[{""arr_struct_f1"":""red"",""arr_struct_f2"":100},{""arr_struct_f1"":""blue"",""arr_struct_f2"":200},{""arr_struct_f1"":""green"",""arr_struct_f2"":300}]","{""key1"":{""map_field_value_struct_f1"":123.456,""map_field_value_struct_f2"":true},""key2"":{""map_field_value_struct_f1"":789.012,""map_field_value_struct_f2"":false}}","{""field1"":""Alice"",""field2"":30,""child_struct"":{""child_field1"":123.456,""child_field2"":true}}"
`

const aliceTable = `id  name   floatField  decimalField  dateField   timestampField        binaryField       mapField                                                                                                                                                        structField.child_struct
1   Alice  1           12345.67890   2023-04-01  2023-04-01T17:01:00Z  YmluYXJ5IGRhdGE=  {"key1":{"map_field_value_struct_f1":123.456,"map_field_value_struct_f2":true},"key2":{"map_field_value_struct_f1":789.012,"map_field_value_struct_f2":false}}  {"child_field1":123.456,"child_field2":true}
`

func TestReadFormats(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--where", "id = 1"}, aliceJSON},
		{[]string{"--where", "name = 'Alice'", "--format", "jsonl"}, aliceJSON},
		{[]string{"--where", "id = 1", "--format", "csv"}, aliceCSV},
		{[]string{"--where", "id = 1", "--format", "table", "--columns",
			"id,name,floatField,decimalField,dateField,timestampField,binaryField,mapField,structField.child_struct"}, aliceTable},
		{[]string{"--where", "id >= 2 AND structField.field2 > 30", "--columns", "structField.field2,name", "--format", "csv"},
			"structField.field2,name\n40,Bob\n50,Diana\n"},
	}
	for _, tt := range tests {
		got := hoodiectl(t, "", append([]string{"read", dir}, tt.args...)...).mustSucceed(t).stdout
		if got != tt.want && !sameLines(got, tt.want) {
			t.Errorf("read %q:\n got %s\nwant %s", tt.args, got, tt.want)
		}
	}
}

// sameLines reports whether a and b hold the same lines, a header line
// first, in any order after it (record order is not specified).
func sameLines(a, b string) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) || la[0] != lb[0] {
		return false
	}
	slices.Sort(la[1:])
	slices.Sort(lb[1:])
	return slices.Equal(la, lb)
}

// readIDs runs read and returns the ids of the jsonl records, sorted.
func readIDs(t *testing.T, args ...string) []int {
	t.Helper()
	out := hoodiectl(t, "", append([]string{"read"}, args...)...).mustSucceed(t).stdout
	var ids []int
	for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ ID int }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		ids = append(ids, rec.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestReadSnapshotsAndRanges(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		args []string
		want []int
	}{
		{nil, []int{1, 2, 3, 4}},
		{[]string{"--as-of", "20240418173551905"}, []int{1, 2, 3}},
		{[]string{"--as-of", "2024-04-18 17:35:51.000"}, []int{1, 2, 3}},
		{[]string{"--as-of", "19700101000000"}, nil},
		{[]string{"--begin", commit1}, []int{1, 4}},
		{[]string{"--begin", commit1, "--end", commit2}, []int{1, 4}},
		{[]string{"--begin", "000", "--end", commit1}, []int{1, 2, 3}},
		{[]string{"--begin", commit2}, nil},
		{[]string{"--columns", "id", "--where", "isActive"}, []int{3, 4}},
	}
	for _, tt := range tests {
		if got := readIDs(t, append([]string{dir}, tt.args...)...); !slices.Equal(got, tt.want) {
			t.Errorf("read %q: ids %v, want %v", tt.args, got, tt.want)
		}
	}
	// Time travel keeps the values of then.
	out := hoodiectl(t, "", "read", dir, "--as-of", commit1, "--where", "id = 1", "--columns", "isActive,_hoodie_commit_time").mustSucceed(t).stdout
	if want := `{"isActive":true,"_hoodie_commit_time":"20240418173550988"}` + "\n"; out != want {
		t.Errorf("as of commit 1: %s, want %s", out, want)
	}
}

func TestReadEmptyTable(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_empty")
	if out := hoodiectl(t, "", "read", dir).mustSucceed(t).stdout; out != "" {
		t.Errorf("jsonl: %q, want nothing", out)
	}
	want := "_hoodie_commit_time,_hoodie_commit_seqno,_hoodie_record_key,_hoodie_partition_path,_hoodie_file_name,id,name,isActive\n"
	if out := hoodiectl(t, "", "read", dir, "--format", "csv").mustSucceed(t).stdout; out != want {
		t.Errorf("csv: %q, want %q", out, want)
	}
}

func TestReadErrors(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"read"}, exitUsage, []string{"expected TABLE"}},
		{[]string{"read", dir, dir}, exitUsage, []string{"expected TABLE"}},
		{[]string{"read", dir, "--bogus"}, exitUsage, []string{"unknown flag: --bogus"}},
		{[]string{"read", dir, "--format", "xml"}, exitUsage, []string{`--format "xml"`}},
		{[]string{"read", dir, "--end", commit2}, exitUsage, []string{"--end needs --begin"}},
		{[]string{"read", dir, "--as-of", commit2, "--begin", commit1}, exitUsage, []string{"--as-of cannot be combined with --begin"}},
		{[]string{"read", t.TempDir()}, exitError, []string{"not a Hudi table"}},
		{[]string{"read", filepath.Join(t.TempDir(), "missing")}, exitError, []string{"missing"}},
		{[]string{"read", dir, "--columns", "id,nope"}, exitError, []string{`unknown column "nope"`, "the table's columns are"}},
		{[]string{"read", dir, "--where", "nope = 1"}, exitError, []string{`unknown column "nope"`}},
		{[]string{"read", dir, "--where", "structField.nope IS NULL"}, exitError, []string{`unknown column "structField.nope"`}},
		{[]string{"read", dir, "--where", "id % 2 = 0"}, exitError, []string{`filter "id % 2 = 0": position 4`, `found "%"`}},
		{[]string{"read", dir, "--where", "name > 3"}, exitError, []string{`column "name": it is a string`}},
		{[]string{"read", dir, "--as-of", "tomorrow"}, exitError, []string{`instant "tomorrow"`}},
		{[]string{"read", dir, "--as-of", "2024-02-30"}, exitError, []string{`instant "2024-02-30"`}},
		{[]string{"read", dir, "--begin", commit2, "--end", commit1}, exitError, []string{"begin instant 20240418173551906 is after end instant 20240418173550988"}},
	}
	for _, tt := range tests {
		r := hoodiectl(t, "", tt.args...)
		r.mustFail(t, tt.code, tt.want...)
		if r.stdout != "" {
			t.Errorf("hoodiectl %q printed %q", tt.args, r.stdout)
		}
	}
}

func TestReadCorruptBaseFile(t *testing.T) {
	const base = "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet"
	for _, damage := range []func([]byte) []byte{
		func(data []byte) []byte { return data[:len(data)-100] }, // truncated
		func(data []byte) []byte { // pages overwritten
			footer := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			for i := 4; i < len(data)-8-footer; i += 5 {
				data[i] = 0xff
			}
			return data
		},
	} {
		dir := fixtures.Unzip(t, "v6_nonpartitioned")
		file := filepath.Join(dir, base)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, damage(data), 0o644); err != nil {
			t.Fatal(err)
		}
		hoodiectl(t, "", "read", dir).mustFail(t, exitError, base)
		// The old file of the group is intact: time travel still reads it.
		if ids := readIDs(t, dir, "--as-of", commit1); !slices.Equal(ids, []int{1, 2, 3}) {
			t.Errorf("as of commit 1: %v", ids)
		}
	}
}

// TestReadWrittenTable reads a table the write package wrote.
func TestReadWrittenTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("trips", []string{trips.ColUUID}, trips.ColTS, []string{trips.ColPartitionPath}, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(ctx, fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	schema := &basefile.Schema{Name: "trips_record", Fields: []basefile.Field{
		{Name: trips.ColUUID, Type: str}, {Name: trips.ColTS, Type: basefile.Primitive(basefile.KindLong)},
		{Name: trips.ColRider, Type: str}, {Name: trips.ColDriver, Type: str},
		{Name: trips.ColFare, Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))}, {Name: trips.ColPartitionPath, Type: str},
	}}
	ts := trips.NewGenerator(3).Inserts(50)
	in := &write.Input{Name: "trips", Schema: schema}
	for _, tr := range ts {
		in.Rows = append(in.Rows, tr.Values())
	}
	w := write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir})
	if _, err := w.Write(ctx, write.OpInsert, in); err != nil {
		t.Fatal(err)
	}
	target := ts[17]
	out := hoodiectl(t, "", "read", dir, "--where", "uuid = '"+target.UUID+"'", "--columns", "uuid,ts,fare,partitionpath,_hoodie_record_key", "--format", "csv").mustSucceed(t).stdout
	want := "uuid,ts,fare,partitionpath,_hoodie_record_key\n" + strings.Join([]string{
		target.UUID, strconvI(target.TS), valuefmt.FormatFloat(target.Fare, 64), target.PartitionPath, target.UUID,
	}, ",") + "\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	lines := strings.Count(hoodiectl(t, "", "read", dir, "--where", "partitionpath = '"+trips.Chennai+"'").mustSucceed(t).stdout, "\n")
	chennai := 0
	for _, tr := range ts {
		if tr.PartitionPath == trips.Chennai {
			chennai++
		}
	}
	if lines != chennai {
		t.Errorf("%d records in %s, want %d", lines, trips.Chennai, chennai)
	}
}

func strconvI(n int64) string {
	return string(valuefmt.AppendJSON(nil, basefile.Primitive(basefile.KindLong), n))
}

// TestReadTableOfOtherKeyGenerator checks that a Spark table of a key
// generator other than simple, complex and non-partitioned (custom, with
// Hudi's "field:type" partition fields, or timestamp-based) reads whole, as
// Spark reads it from its stored keys and folders; that a write to a
// custom one is refused (exit 1), and one to a timestamp-based one without
// the timestamp type, which Spark 0.15 does not keep in the table, fails
// naming the setting (exit 3), nothing written either way.
func TestReadTableOfOtherKeyGenerator(t *testing.T) {
	for _, tc := range []struct {
		class, fields string
		code          int
		wants         []string
	}{
		{"org.apache.hudi.keygen.CustomKeyGenerator", "byteField:simple", exitRefused, []string{"does not write", "write to this table with Spark"}},
		{"org.apache.hudi.keygen.TimestampBasedKeyGenerator", "byteField", exitError, []string{"hoodie.keygen.timebased.timestamp.type is not set", "nothing was committed"}},
	} {
		dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
		props := filepath.Join(dir, ".hoodie", "hoodie.properties")
		data, err := os.ReadFile(props)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(data), "keygenerator.class=org.apache.hudi.keygen.SimpleKeyGenerator", "keygenerator.class="+tc.class, 1)
		s = strings.Replace(s, "hoodie.table.partition.fields=byteField", "hoodie.table.partition.fields="+tc.fields, 1)
		if s == string(data) {
			t.Fatal("the fixture's hoodie.properties did not change")
		}
		if err := os.WriteFile(props, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		out := hoodiectl(t, "", "read", dir).mustSucceed(t).stdout
		if n := strings.Count(out, "\n"); n != 4 {
			t.Errorf("%s: %d records read, want the fixture's 4", tc.class, n)
		}
		hoodiectl(t, `{"id":1,"name":"x"}`, "upsert", dir).mustFail(t, tc.code, append([]string{tc.class}, tc.wants...)...)
		before, after := strings.Split(out, "\n"), strings.Split(hoodiectl(t, "", "read", dir).mustSucceed(t).stdout, "\n")
		sort.Strings(before)
		sort.Strings(after)
		if !slices.Equal(before, after) {
			t.Errorf("%s: the failed write changed the table:\n%s\nthen\n%s", tc.class, before, after)
		}
	}
}

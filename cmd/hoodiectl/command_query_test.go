package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// readmeQuery is the query of the fixtures' README, whose answer is the
// same on every fixture table with records.
const readmeQuery = "select id, name, isActive, structField.field2 from <TABLE_NAME> " +
	"where id % 2 = 0 and name != 'Alice' and structField.field2 > 30 order by name"

func TestQueryFixtures(t *testing.T) {
	want := `{"id":2,"name":"Bob","isActive":false,"field2":40}
{"id":4,"name":"Diana","isActive":true,"field2":50}
`
	for _, table := range []string{"v6_nonpartitioned", "v6_simplekeygen_nonhivestyle", "v6_complexkeygen_hivestyle"} {
		t.Run(table, func(t *testing.T) {
			dir := fixtures.Unzip(t, table)
			if got := hoodiectl(t, "", "query", dir, readmeQuery).mustSucceed(t).stdout; got != want {
				t.Errorf("got\n%swant\n%s", got, want)
			}
		})
	}
}

func TestQueryAsOf(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	query := "select count(*) as n, string_agg(name || ':' || isActive, ',' order by id) as who from <TABLE_NAME>"
	tests := []struct {
		asOf, want string
	}{
		{"", `{"n":4,"who":"Alice:false,Bob:false,Carol:true,Diana:true"}`},
		{"20240418173551906", `{"n":4,"who":"Alice:false,Bob:false,Carol:true,Diana:true"}`},
		{"20240418173551905", `{"n":3,"who":"Alice:true,Bob:false,Carol:true"}`},
		{"2024-04-18 17:35:51.000", `{"n":3,"who":"Alice:true,Bob:false,Carol:true"}`},
		{"2024-04-18 17:35:51", `{"n":4,"who":"Alice:false,Bob:false,Carol:true,Diana:true"}`},
		{"20240418173550988", `{"n":3,"who":"Alice:true,Bob:false,Carol:true"}`},
		{"19700101000000", `{"n":0,"who":null}`},
	}
	for _, tt := range tests {
		args := []string{"query", dir, query}
		if tt.asOf != "" {
			args = append(args, "--as-of", tt.asOf)
		}
		if got := strings.TrimSpace(hoodiectl(t, "", args...).mustSucceed(t).stdout); got != tt.want {
			t.Errorf("as of %q: %s, want %s", tt.asOf, got, tt.want)
		}
	}
}

func TestQueryWithoutRecordsHasTheTableColumns(t *testing.T) {
	meta := strings.Join(basefile.MetaFieldNames[:], ",")
	nonpartitioned := fixtures.Unzip(t, "v6_nonpartitioned")
	// A table created without a schema has only the meta columns.
	bare := t.TempDir()
	hoodiectl(t, "", "init", bare, "--name", "bare", "--record-key", "id").mustSucceed(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no commits", []string{fixtures.Unzip(t, "v6_empty")}, meta + ",id,name,isActive\n"},
		{"before the first commit", []string{nonpartitioned, "--as-of", "19700101000000"},
			meta + ",id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField," +
				"dateField,timestampField,binaryField,arrayField,mapField,structField\n"},
		{"no schema", []string{bare}, meta + "\n"},
	}
	for _, tt := range tests {
		args := append([]string{"query", tt.args[0], "select * from <TABLE_NAME>", "--format", "csv"}, tt.args[1:]...)
		if got := hoodiectl(t, "", args...).mustSucceed(t).stdout; got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// The columns have the types of the base files.
	query := "select column_type from (describe <TABLE_NAME>) where column_name in ('decimalField', 'timestampField', 'structField')"
	got := hoodiectl(t, "", "query", nonpartitioned, query, "--as-of", "19700101000000", "--format", "csv").mustSucceed(t).stdout
	want := hoodiectl(t, "", "query", nonpartitioned, query, "--format", "csv").mustSucceed(t).stdout
	if got != want || !strings.Contains(got, "DECIMAL(10,5)") {
		t.Errorf("column types before the first commit:\n%s\nwant\n%s", got, want)
	}
}

func TestQueryFormats(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_empty")
	query := `select 1.50::DECIMAL(5,2) as d, DATE '2024-01-02' as dt, TIMESTAMP '2024-01-02 03:04:05.5' as ts,
		'a"b' as s, 'ab'::BLOB as b, [1, 2] as l, {'x': 1, 'y': 'z'} as st, MAP {1: 'one'} as m, NULL as n,
		'nan'::DOUBLE as f, 123456789012345678901234::HUGEINT as h, 2.5::FLOAT as r, 'line
two' as nl`
	tests := []struct {
		format, want string
	}{
		{"jsonl", `{"d":"1.50","dt":"2024-01-02","ts":"2024-01-02T03:04:05.500000Z","s":"a\"b","b":"YWI=","l":[1,2],` +
			`"st":{"x":1,"y":"z"},"m":{"1":"one"},"n":null,"f":"NaN","h":123456789012345678901234,"r":2.5,"nl":"line\ntwo"}` + "\n"},
		{"csv", `d,dt,ts,s,b,l,st,m,n,f,h,r,nl
1.50,2024-01-02,2024-01-02T03:04:05.500000Z,"a""b",YWI=,"[1,2]","{""x"":1,""y"":""z""}","{""1"":""one""}",,NaN,123456789012345678901234,2.5,"line
two"
`},
		{"table", `d     dt          ts                           s    b     l      st               m            n     f    h                         r    nl
1.50  2024-01-02  2024-01-02T03:04:05.500000Z  a"b  YWI=  [1,2]  {"x":1,"y":"z"}  {"1":"one"}  NULL  NaN  123456789012345678901234  2.5  line\ntwo
`},
	}
	for _, tt := range tests {
		if got := hoodiectl(t, "", "query", dir, query, "--format", tt.format).mustSucceed(t).stdout; got != tt.want {
			t.Errorf("--format %s:\n%s\nwant\n%s", tt.format, got, tt.want)
		}
	}
}

func TestQueryErrors(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"query", dir, "selec 1"}, exitError, []string{"query " + dir, "DuckDB: Parser Error", "selec"}},
		{[]string{"query", dir, "select nope from <TABLE_NAME>"}, exitError, []string{`Binder Error: Referenced column "nope" not found`}},
		{[]string{"query", dir, "select * from missing_table"}, exitError, []string{"Catalog Error", "missing_table"}},
		{[]string{"query", dir, "select 1", "--as-of", "yesterday"}, exitError, []string{"--as-of", `"yesterday"`, "invalid instant time"}},
		{[]string{"query", dir, "select 1", "--as-of", "20241340000000000"}, exitError, []string{"--as-of", "no such date"}},
		{[]string{"query", filepath.Join(dir, "nope"), "select 1"}, exitError, []string{"not a Hudi table"}},
		{[]string{"query", dir, "select 1", "--format", "xml"}, exitUsage, []string{`--format "xml"`}},
		{[]string{"query", dir}, exitUsage, []string{"expected TABLE and SQL"}},
		{[]string{"query", dir, "select 1", "--bogus"}, exitUsage, []string{"unknown flag: --bogus"}},
	}
	for _, tt := range tests {
		hoodiectl(t, "", tt.args...).mustFail(t, tt.code, tt.want...)
	}
}

// tripsTable writes n trips into a new table under dir with bulk-insert,
// as one commit of files of up to 120 MB.
func tripsTable(tb testing.TB, dir string, n int) {
	tb.Helper()
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.NewTable("trips", []string{trips.ColUUID}, trips.ColTS, []string{trips.ColPartitionPath}, false, config.MergeEventTime)
	if err != nil {
		tb.Fatal(err)
	}
	if err := config.CreateTable(ctx, fsys, cfg, time.Now()); err != nil {
		tb.Fatal(err)
	}
	ts := trips.NewGenerator(1).Inserts(n)
	in := &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
	w := write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir})
	if _, err := w.Write(ctx, write.OpBulkInsert, in); err != nil {
		tb.Fatal(err)
	}
}

func TestQueryTripsTable(t *testing.T) {
	dir := t.TempDir()
	tripsTable(t, dir, 3000)
	got := hoodiectl(t, "", "query", dir, "select count(*) as n, count(distinct partitionpath) as p, "+
		"bool_and(fare >= 0 and fare < 100) as fares from <TABLE_NAME>").mustSucceed(t).stdout
	if want := `{"n":3000,"p":3,"fares":true}` + "\n"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// BenchmarkQueryCountSum compares `hoodiectl query` with DuckDB reading the
// table's base files directly, on a table of a million trips: the query
// command should take at most twice as long.
func BenchmarkQueryCountSum(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	tripsTable(b, dir, n)
	const query = "select count(*) as n, sum(fare) as fares from %s"
	ctx := context.Background()
	b.Run("hoodiectl", func(b *testing.B) {
		for b.Loop() {
			var out, errOut bytes.Buffer
			args := []string{"query", dir, fmt.Sprintf(query, "<TABLE_NAME>")}
			if code := run(ctx, args, strings.NewReader(""), &out, &errOut); code != exitOK {
				b.Fatalf("exit %d: %s", code, errOut.String())
			}
			var got struct{ N int64 }
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.N != n {
				b.Fatalf("hoodiectl query: %s (%v)", out.String(), err)
			}
		}
	})
	b.Run("duckdb-direct", func(b *testing.B) {
		glob := filepath.Join(dir, "**", "*.parquet")
		for b.Loop() {
			e, err := sqlengine.Open(ctx, sqlengine.ExternalAccess)
			if err != nil {
				b.Fatal(err)
			}
			rows, err := e.Query(ctx, fmt.Sprintf(query, "read_parquet('"+glob+"')"))
			if err != nil {
				b.Fatal(err)
			}
			if !rows.Next() || rows.Values()[0] != int64(n) {
				b.Fatalf("DuckDB: %v %v", rows.Values(), rows.Err())
			}
			if err := errors.Join(rows.Close(), e.Close()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, out := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "pipe": w, "file": file} {
		if isTerminal(out) {
			t.Errorf("isTerminal(%s) = true", name)
		}
	}
}

// TestQueryReadsHoodieStrings checks that DuckDB reads the string columns of
// the files Hoodie writes, meta columns included, as Hoodie's own reader
// does: with either string encoding, over many pages.
func TestQueryReadsHoodieStrings(t *testing.T) {
	var lines strings.Builder
	for i := range 3000 {
		rider := fmt.Sprintf(`"rider %d é✓"`, i)
		switch i % 7 {
		case 0:
			rider = "null"
		case 1:
			rider = `""`
		}
		fmt.Fprintf(&lines, `{"id":"key-%05d","ts":%d,"rider":%s,"city":"city-%d"}`+"\n", i*7919%3000, i, rider, i%3)
	}
	columns := "id,rider,city,_hoodie_record_key,_hoodie_commit_seqno,_hoodie_partition_path,_hoodie_file_name"
	for _, encoding := range []string{"PLAIN", "DELTA_LENGTH_BYTE_ARRAY"} {
		t.Run(encoding, func(t *testing.T) {
			dir := t.TempDir()
			hoodiectl(t, "", "init", dir, "--name", "strings", "--record-key", "id", "--precombine", "ts", "--partition-by", "city").mustSucceed(t)
			hoodiectl(t, lines.String(), "bulk-insert", dir, "--format", "jsonl",
				"--set", "hoodie.parquet.page.size=2048", "--set", "hoodie.parquet.string.encoding="+encoding).mustSucceed(t)
			read := hoodiectl(t, "", "read", dir, "--columns", columns, "--format", "jsonl").mustSucceed(t).stdout
			query := hoodiectl(t, "", "query", dir, "select "+columns+" from <TABLE_NAME>", "--format", "jsonl").mustSucceed(t).stdout
			got, want := rowsByID(t, query), rowsByID(t, read)
			if len(want) != 3000 {
				t.Fatalf("read gave %d records, want 3000", len(want))
			}
			if !reflect.DeepEqual(got, want) {
				for key, w := range want {
					if !reflect.DeepEqual(got[key], w) {
						t.Fatalf("key %s: DuckDB read %v, Hoodie %v", key, got[key], w)
					}
				}
				t.Fatalf("DuckDB read %d records, Hoodie %d", len(got), len(want))
			}
		})
	}
}

// everyLeafSchema is a flat table schema with a field of every leaf kind
// of the value model, most of them nullable: the write package writes the
// new file groups of such a table with the columnar writer.
func everyLeafSchema() *basefile.Schema {
	n := basefile.Nullable
	return &basefile.Schema{Name: "leaves", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Primitive(basefile.KindString)},
		{Name: "ts", Type: basefile.Primitive(basefile.KindLong)},
		{Name: "part", Type: basefile.Primitive(basefile.KindString)},
		{Name: "b", Type: n(basefile.Primitive(basefile.KindBoolean))},
		{Name: "i", Type: basefile.Primitive(basefile.KindInt)},
		{Name: "l", Type: n(basefile.Primitive(basefile.KindLong))},
		{Name: "f", Type: n(basefile.Primitive(basefile.KindFloat))},
		{Name: "d", Type: basefile.Primitive(basefile.KindDouble)},
		{Name: "s", Type: n(basefile.Primitive(basefile.KindString))},
		{Name: "bs", Type: n(basefile.Primitive(basefile.KindBytes))},
		{Name: "e", Type: n(basefile.EnumType("suit", "HEARTS", "SPADES", "CLUBS"))},
		{Name: "fx", Type: n(basefile.FixedType("six", 6))},
		{Name: "dec", Type: n(basefile.DecimalType(20, 4))},
		{Name: "decf", Type: n(basefile.FixedDecimalType("dec9", 4, 9, 2))},
		{Name: "dt", Type: n(basefile.DateType())},
		{Name: "tmu", Type: n(basefile.TimestampMicrosType())},
		{Name: "tms", Type: n(basefile.TimestampMillisType())},
		{Name: "u", Type: n(basefile.UUIDType())},
	}}
}

// everyLeafRows returns n rows of everyLeafSchema, a null in every nullable
// field now and then, with extremes and special values.
func everyLeafRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		x := int64(i)*2654435761%1000003 - 500000
		row := []any{
			fmt.Sprintf("key-%05d", i), int64(i), fmt.Sprintf("p%d", i%3),
			i%2 == 0, int32(x), x * 1e9, float32(x) / 8, float64(x) / 3,
			fmt.Sprintf("s%d é✓ %s", i, strings.Repeat("x", i%40)), []byte(fmt.Sprintf("b\x00\xff%d", i)),
			[]string{"HEARTS", "SPADES", "CLUBS"}[i%3], []byte{byte(i), 0, 0xff, byte(i >> 8), 1, 2},
			basefile.NewDecimalInt64(x*12345, 4), basefile.NewDecimalInt64(x, 2),
			basefile.Date(x / 10), time.UnixMicro(x * 1e7).UTC(), time.UnixMilli(x * 1e4).UTC(),
			fmt.Sprintf("%08x-0000-4000-8000-%012x", i, x&0xffffffffffff),
		}
		switch i % 50 {
		case 1:
			row[5], row[7], row[8] = int64(math.MaxInt64), math.Inf(1), ""
		case 2:
			row[4], row[5], row[7] = int32(math.MinInt32), int64(math.MinInt64), math.Inf(-1)
		case 3:
			row[6], row[7], row[9] = float32(math.Copysign(0, -1)), math.MaxFloat64, []byte{}
		}
		if i%7 == 0 {
			for j, f := range everyLeafSchema().Fields {
				if f.Type.Nullable && (i/7+j)%3 != 0 {
					row[j] = nil
				}
			}
		}
		rows[i] = row
	}
	return rows
}

// TestQueryReadsColumnarFiles bulk-inserts a flat table of every leaf kind,
// whose new file groups the columnar writer writes, and checks that DuckDB
// (through `hoodiectl query`) reads every value as `hoodiectl read` does.
func TestQueryReadsColumnarFiles(t *testing.T) {
	for _, encoding := range []string{"PLAIN", "DELTA_LENGTH_BYTE_ARRAY"} {
		t.Run(encoding, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			fsys, err := storage.NewLocalFS(dir)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.NewTable("leaves", []string{"id"}, "ts", []string{"part"}, false, config.MergeEventTime)
			if err != nil {
				t.Fatal(err)
			}
			if err := config.CreateTable(ctx, fsys, cfg, time.Now()); err != nil {
				t.Fatal(err)
			}
			const n = 3000
			in := &write.Input{Name: "leaves", Schema: everyLeafSchema(), Rows: everyLeafRows(n)}
			settings := write.DefaultSettings()
			settings.PageSize, settings.StringEncoding = 2048, encoding
			w := write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(dir, ".hoodie", ".index"), TableID: dir, Settings: settings})
			if _, err := w.Write(ctx, write.OpBulkInsert, in); err != nil {
				t.Fatal(err)
			}
			checkColumnarQuery(t, dir, n)
			// An upsert of some of the records rewrites the file groups
			// with parquet-go's writer, which must write them alike.
			in.Rows = in.Rows[:500]
			if _, err := w.Write(ctx, write.OpUpsert, in); err != nil {
				t.Fatal(err)
			}
			checkColumnarQuery(t, dir, n)
		})
	}
}

// checkColumnarQuery checks that DuckDB reads every column of the table of
// everyLeafSchema in dir, n records, as hoodiectl read does.
func checkColumnarQuery(t *testing.T, dir string, n int) {
	t.Helper()
	var names []string
	for _, f := range everyLeafSchema().Fields {
		if f.Name != "dec" {
			names = append(names, f.Name)
		}
	}
	// The bytes decimal gets a query of its own, so that a column DuckDB
	// cannot read would not hide how it reads the others.
	for _, columns := range []string{
		strings.Join(append(names, "_hoodie_record_key", "_hoodie_commit_seqno", "_hoodie_partition_path", "_hoodie_file_name"), ","),
		"id,dec",
	} {
		read := hoodiectl(t, "", "read", dir, "--columns", columns, "--format", "jsonl").mustSucceed(t).stdout
		query := hoodiectl(t, "", "query", dir, "select "+columns+" from <TABLE_NAME>", "--format", "jsonl")
		if query.code != exitOK {
			t.Errorf("DuckDB cannot read columns %s: %s", columns, query.stderr)
			continue
		}
		got, want := rowsByID(t, query.stdout), rowsByID(t, read)
		if len(want) != n || len(got) != n {
			t.Fatalf("read gave %d records, query %d, want %d", len(want), len(got), n)
		}
		bad := 0
		for key, w := range want {
			for col, v := range w {
				if !reflect.DeepEqual(got[key][col], v) {
					t.Errorf("key %s column %s: DuckDB read %v, Hoodie %v", key, col, got[key][col], v)
					if bad++; bad == 10 {
						t.FailNow()
					}
				}
			}
		}
	}
}

// rowsByID parses JSON lines of records into a map of records by their
// "id" field.
func rowsByID(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	rows := map[string]map[string]any{}
	for line := range strings.Lines(out) {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		rows[row["id"].(string)] = row
	}
	return rows
}

// TestQueryMetaColumnsAsReadGivesThem checks that query's view has the
// columns read returns, in its order and with its values, the meta columns
// of a table without meta fields included, which read computes: the
// commit time, partition path and file name of each record's file, and
// nulls for the record key and sequence number.
func TestQueryMetaColumnsAsReadGivesThem(t *testing.T) {
	for _, tt := range []struct {
		name string
		init []string
	}{
		{"meta fields", nil},
		{"no meta fields", []string{"--no-meta-fields"}},
		{"no meta fields, hive-style", []string{"--no-meta-fields", "--hive-style"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			hoodiectl(t, "", append([]string{"init", dir, "--name", "t", "--record-key", "id", "--partition-by", "p"}, tt.init...)...).mustSucceed(t)
			first := lastLine(hoodiectl(t, `{"id": "1", "p": "a", "v": 1}`+"\n"+`{"id": "2", "p": "b'c", "v": 2}`+"\n", "insert", dir).mustSucceed(t).stdout)
			second := lastLine(hoodiectl(t, `{"id": "1", "p": "a", "v": 10}`+"\n", "upsert", dir).mustSucceed(t).stdout)
			for _, asOf := range []string{"", first, second} {
				var flags []string
				if asOf != "" {
					flags = []string{"--as-of", asOf}
				}
				readCSV := hoodiectl(t, "", append([]string{"read", dir, "--format", "csv"}, flags...)...).mustSucceed(t).stdout
				queryCSV := hoodiectl(t, "", append([]string{"query", dir, "select * from <TABLE_NAME>", "--format", "csv"}, flags...)...).mustSucceed(t).stdout
				readHeader, _, _ := strings.Cut(readCSV, "\n")
				queryHeader, _, _ := strings.Cut(queryCSV, "\n")
				if queryHeader != readHeader {
					t.Errorf("as of %q: query's columns %s, read's %s", asOf, queryHeader, readHeader)
				}
				read := rowsByID(t, hoodiectl(t, "", append([]string{"read", dir}, flags...)...).mustSucceed(t).stdout)
				query := rowsByID(t, hoodiectl(t, "", append([]string{"query", dir, "select * from <TABLE_NAME>", "--format", "jsonl"}, flags...)...).mustSucceed(t).stdout)
				if !reflect.DeepEqual(query, read) {
					t.Errorf("as of %q: query's rows\n%v\nread's\n%v", asOf, query, read)
				}
			}
			// The commit time tells the file of each record, as read says.
			got := hoodiectl(t, "", "query", dir, "select id, _hoodie_commit_time from <TABLE_NAME> order by id", "--format", "csv").mustSucceed(t).stdout
			if want := "id,_hoodie_commit_time\n1," + second + "\n2," + first + "\n"; got != want {
				t.Errorf("commit times: %q, want %q", got, want)
			}
		})
	}
}

// Zeros are Hudi's "from the start" for every command that takes --as-of:
// before the first commit, no records.
func TestAsOfZerosIsBeforeEveryCommit(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"region":"eu"}`, "insert", dir).mustSucceed(t)
	if out := hoodiectl(t, "", "read", dir, "--as-of", "000").mustSucceed(t).stdout; out != "" {
		t.Errorf("read --as-of 000: %q", out)
	}
	out := hoodiectl(t, "", "query", dir, "select count(*) as n from <TABLE_NAME>", "--as-of", "000", "--format", "csv").mustSucceed(t).stdout
	if out != "n\n0\n" {
		t.Errorf("query --as-of 000: %q", out)
	}
}

// TestQueryFindsNaN checks that SQL filters find the NaN rows of a double
// column, in new files and in files an upsert rewrote: their chunks carry
// no bounds that leave NaN out, which DuckDB would skip the rows by.
func TestQueryFindsNaN(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	schema := filepath.Join(t.TempDir(), "m.avsc")
	if err := os.WriteFile(schema, []byte(`{"type":"record","name":"m","fields":[{"name":"id","type":"long"},{"name":"v","type":["null","double"],"default":null}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, "", "init", dir, "--name", "m", "--record-key", "id", "--schema", schema).mustSucceed(t)
	hoodiectl(t, "id,v\n1,1\n2,2\n3,NaN\n", "insert", dir, "--format", "csv").mustSucceed(t)
	count := func(where string) string {
		out := hoodiectl(t, "", "query", dir, "select count(*) as n from m where "+where, "--format", "csv").mustSucceed(t).stdout
		return strings.TrimSpace(strings.TrimPrefix(out, "n\n"))
	}
	for _, step := range []string{"new files", "after an upsert"} {
		for where, want := range map[string]string{"v > 2": "1", "isnan(v)": "1", "v >= 1": "3", "v < 2": "1"} {
			if got := count(where); got != want {
				t.Errorf("%s: where %s: %s rows, want %s", step, where, got, want)
			}
		}
		hoodiectl(t, "id,v\n1,1.5\n", "upsert", dir, "--format", "csv").mustSucceed(t)
	}
}

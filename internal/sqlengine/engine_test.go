package sqlengine

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// openEngine opens a locked-down engine, as the query command and the
// validators do.
func openEngine(t testing.TB) *Engine {
	t.Helper()
	return openEngineWith(t, LockedDown)
}

func openEngineWith(t testing.TB, access Access) *Engine {
	t.Helper()
	e, err := Open(context.Background(), access)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// queryAll runs query and returns its columns and rows.
func queryAll(t testing.TB, e *Engine, query string) ([]Column, [][]any) {
	t.Helper()
	rows, err := e.Query(context.Background(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		out = append(out, append([]any(nil), rows.Values()...))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	return rows.Columns(), out
}

func TestValues(t *testing.T) {
	e := openEngine(t)
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	tests := []struct {
		expr     string
		wantType string
		want     any
	}{
		{"true", "BOOLEAN", true},
		{"CAST(-5 AS TINYINT)", "TINYINT", int64(-5)},
		{"CAST(7 AS SMALLINT)", "SMALLINT", int64(7)},
		{"CAST(8 AS INTEGER)", "INTEGER", int64(8)},
		{"CAST(9 AS BIGINT)", "BIGINT", int64(9)},
		{"CAST(200 AS UTINYINT)", "UTINYINT", int64(200)},
		{"CAST(4000000000 AS UINTEGER)", "UINTEGER", int64(4000000000)},
		{"CAST(18446744073709551615 AS UBIGINT)", "UBIGINT", uint64(18446744073709551615)},
		{"CAST('170141183460469231731687303715884105727' AS HUGEINT)", "HUGEINT", huge},
		{"CAST(1.5 AS FLOAT)", "FLOAT", float32(1.5)},
		{"CAST(2.25 AS DOUBLE)", "DOUBLE", 2.25},
		{"CAST('12345.67800' AS DECIMAL(10,5))", "DECIMAL(10,5)", basefile.NewDecimalInt64(1234567800, 5)},
		{"CAST('-0.5' AS DECIMAL(38,10))", "DECIMAL(38,10)", basefile.NewDecimalInt64(-5000000000, 10)},
		{"'héllo'", "VARCHAR", "héllo"},
		{"CAST('a' AS ENUM('a', 'b'))", "ENUM", "a"},
		{"CAST('\\x00\\xFFab' AS BLOB)", "BLOB", []byte{0, 0xff, 'a', 'b'}},
		{"DATE '2024-02-29'", "DATE", mustDate(t, "2024-02-29")},
		{"DATE '1969-12-31'", "DATE", mustDate(t, "1969-12-31")},
		{"TIMESTAMP '2023-04-01 17:01:00.123456'", "TIMESTAMP", time.Date(2023, 4, 1, 17, 1, 0, 123456000, time.UTC)},
		{"TIMESTAMPTZ '2023-04-01 17:01:00+02'", "TIMESTAMPTZ", time.Date(2023, 4, 1, 15, 1, 0, 0, time.UTC)},
		{"CAST('2023-04-01 17:01:00.123456789' AS TIMESTAMP_NS)", "TIMESTAMP_NS", time.Date(2023, 4, 1, 17, 1, 0, 123456789, time.UTC)},
		{"TIME '13:14:15.5'", "TIME", "13:14:15.5"},
		{"INTERVAL 14 MONTH + INTERVAL 3 DAY + INTERVAL 4500 MILLISECOND", "INTERVAL", "P14M3DT4.5S"},
		{"INTERVAL 0 SECOND", "INTERVAL", "PT0S"},
		{"CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS UUID)", "UUID", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"[1, NULL, 3]", "INTEGER[]", []any{int64(1), nil, int64(3)}},
		{"CAST([1.5, 2] AS DECIMAL(3,1)[2])", "DECIMAL(3,1)[2]", []any{basefile.NewDecimalInt64(15, 1), basefile.NewDecimalInt64(20, 1)}},
		{"{'z': DATE '2024-01-02', 'a': [true]}", `STRUCT(z DATE, a BOOLEAN[])`, Struct{{"z", mustDate(t, "2024-01-02")}, {"a", []any{true}}}},
		{"MAP {'k2': 1, 'k1': NULL}", "MAP(VARCHAR, INTEGER)", Map{{"k2", int64(1)}, {"k1", nil}}},
		{"union_value(num := 2)", "UNION(num INTEGER)", int64(2)},
		{"CAST('{\"b\": [1, 2]}' AS JSON)", "JSON", json.RawMessage(`{"b":[1,2]}`)},
		{"CAST(NULL AS INTEGER)", "INTEGER", nil},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			cols, rows := queryAll(t, e, "SELECT "+tt.expr+" AS v")
			if len(cols) != 1 || cols[0].Name != "v" || !strings.EqualFold(stripQuotes(cols[0].Type), tt.wantType) {
				t.Errorf("columns = %+v, want v of type %s", cols, tt.wantType)
			}
			if len(rows) != 1 || !reflect.DeepEqual(rows[0][0], tt.want) {
				t.Errorf("value = %#v, want %#v", rows, tt.want)
			}
		})
	}
}

// stripQuotes drops the double quotes DuckDB may put around struct field
// names in type names.
func stripQuotes(s string) string { return strings.ReplaceAll(s, `"`, "") }

func mustDate(t testing.TB, s string) basefile.Date {
	t.Helper()
	d, err := basefile.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestQueryManyStatements(t *testing.T) {
	e := openEngineWith(t, ExternalAccess)
	_, rows := queryAll(t, e, "CREATE TABLE t AS SELECT 41 AS x; SELECT x + 1 FROM t")
	if !reflect.DeepEqual(rows, [][]any{{int64(42)}}) {
		t.Errorf("rows = %v, want 42", rows)
	}
	// Locked down, several queries run too.
	_, rows = queryAll(t, openEngine(t), "SELECT 41; SELECT 42")
	if !reflect.DeepEqual(rows, [][]any{{int64(42)}}) {
		t.Errorf("locked down: rows = %v, want 42", rows)
	}
}

func TestQueryErrors(t *testing.T) {
	e := openEngine(t)
	if err := e.CreateView(context.Background(), "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  string
	}{
		{"SELEC 1", "Parser Error"},
		{"SELECT nope FROM t", `Binder Error: Referenced column "nope" not found`},
		{"SELECT * FROM missing", "Catalog Error"},
		{"SELECT CAST('x' AS INTEGER)", "Conversion Error"},
		{"", "empty"},
	}
	for _, tt := range tests {
		rows, err := e.Query(context.Background(), tt.query)
		if err == nil {
			// Some errors only show when the rows are read.
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Query(%q) = %v, want an error containing %q", tt.query, err, tt.want)
		}
	}
	// The engine stays usable after errors.
	if _, rows := queryAll(t, e, "SELECT 1"); len(rows) != 1 {
		t.Errorf("SELECT 1 after errors: %v", rows)
	}
}

func TestQueryCancelled(t *testing.T) {
	e := openEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Query(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Query with a cancelled context: %v, want context.Canceled", err)
	}

	// A long query is interrupted.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	rows, err := e.Query(ctx, "SELECT count(*) FROM range(1000000000000) a")
	if err == nil {
		rows.Close()
		t.Fatal("a query of 10^12 rows finished")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("interrupted query: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("interrupting took %v", d)
	}

	// Reading rows stops once the context is done.
	ctx, cancel = context.WithCancel(context.Background())
	rows, err = e.Query(ctx, "SELECT * FROM range(10)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	cancel()
	if rows.Next() || !errors.Is(rows.Err(), context.Canceled) {
		t.Errorf("Next after cancel: err %v, want context.Canceled", rows.Err())
	}
}

func TestExpandTableName(t *testing.T) {
	tests := []struct{ query, view, want string }{
		{"select * from <TABLE_NAME>", "trips", `select * from "trips"`},
		{"select a.x from <TABLE_NAME> a join <TABLE_NAME> b using (x)", "t", `select a.x from "t" a join "t" b using (x)`},
		{"select 1", "t", "select 1"},
		{"from <TABLE_NAME>", `we"ird`, `from "we""ird"`},
	}
	for _, tt := range tests {
		if got := ExpandTableName(tt.query, tt.view); got != tt.want {
			t.Errorf("ExpandTableName(%q, %q) = %q, want %q", tt.query, tt.view, got, tt.want)
		}
	}
}

// allTypesSchema has a column of every kind and logical type a table may
// have, nested ones included.
func allTypesSchema() *basefile.Schema {
	opt := basefile.Nullable
	str := opt(basefile.Primitive(basefile.KindString))
	return &basefile.Schema{Name: "all_record", Namespace: "hoodie.all", Fields: []basefile.Field{
		{Name: "id", Type: str},
		{Name: "b", Type: opt(basefile.Primitive(basefile.KindBoolean))},
		{Name: "i", Type: opt(basefile.Primitive(basefile.KindInt))},
		{Name: "l", Type: basefile.Primitive(basefile.KindLong)},
		{Name: "f", Type: opt(basefile.Primitive(basefile.KindFloat))},
		{Name: "d", Type: opt(basefile.Primitive(basefile.KindDouble))},
		{Name: "bytes", Type: opt(basefile.Primitive(basefile.KindBytes))},
		{Name: "fixed", Type: opt(basefile.FixedType("fx", 4))},
		{Name: "enum", Type: opt(basefile.EnumType("color", "red", "green"))},
		{Name: "uuid", Type: opt(basefile.UUIDType())},
		{Name: "dec_bytes", Type: opt(basefile.DecimalType(20, 4))},
		{Name: "dec_fixed", Type: opt(basefile.FixedDecimalType("dfx", 5, 10, 5))},
		{Name: "dec_wide", Type: opt(basefile.DecimalType(40, 2))},
		{Name: "date", Type: opt(basefile.DateType())},
		{Name: "ts_micros", Type: opt(basefile.TimestampMicrosType())},
		{Name: "ts_millis", Type: opt(basefile.TimestampMillisType())},
		{Name: "list", Type: opt(basefile.ArrayType(basefile.RecordType("item",
			basefile.Field{Name: "x", Type: str}, basefile.Field{Name: "y", Type: opt(basefile.Primitive(basefile.KindInt))})))},
		{Name: "map", Type: opt(basefile.MapType(opt(basefile.ArrayType(basefile.Primitive(basefile.KindLong)))))},
		{Name: "rec", Type: opt(basefile.RecordType("rec",
			basefile.Field{Name: "a", Type: str},
			basefile.Field{Name: "inner", Type: opt(basefile.RecordType("inner", basefile.Field{Name: "z", Type: opt(basefile.DateType())}))}))},
	}}
}

// writeBaseFile writes rows (without meta values) of schema into a new
// base file at name under dir and returns its local path.
func writeBaseFile(t testing.TB, dir, name string, schema *basefile.Schema, rows ...[]any) string {
	t.Helper()
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := basefile.NewWriter(ctx, fsys, name, schema, basefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		meta := []any{"20240101000000000", "20240101000000000_0_" + string(rune('0'+i)), row[0], "", filepath.Base(name)}
		if err := w.WriteRow(append(meta, row...)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.FromSlash(name))
}

// pathFiles returns files at paths that compute no column.
func pathFiles(paths ...string) []File {
	files := make([]File, len(paths))
	for i, p := range paths {
		files[i].Path = p
	}
	return files
}

func describe(t testing.TB, e *Engine, view string) [][]any {
	t.Helper()
	_, rows := queryAll(t, e, "SELECT column_name, column_type FROM (DESCRIBE "+QuoteIdent(view)+")")
	return rows
}

func TestEmptyViewHasTheColumnsOfABaseFile(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	schema := allTypesSchema()
	file := writeBaseFile(t, t.TempDir(), "f1_0-1-1_20240101000000000.parquet", schema, []any{
		"k1", true, int32(1), int64(2), float32(3), 4.0, []byte("b"), []byte("four"), "red",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", basefile.NewDecimalInt64(1, 4), basefile.NewDecimalInt64(2, 5),
		basefile.NewDecimalInt64(3, 2), basefile.Date(1), time.UnixMicro(5).UTC(), time.UnixMilli(6).UTC(),
		[]any{[]any{"x", int32(1)}}, map[string]any{"k": []any{int64(1)}}, []any{"a", []any{basefile.Date(2)}},
	})
	if err := e.CreateView(ctx, "files", pathFiles(file), nil); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateView(ctx, "empty", nil, schema); err != nil {
		t.Fatal(err)
	}
	fromFile, empty := describe(t, e, "files"), describe(t, e, "empty")
	if !reflect.DeepEqual(fromFile, empty) {
		t.Errorf("columns of the empty view differ from a base file's:\nempty: %v\nfile:  %v", empty, fromFile)
	}
	if _, rows := queryAll(t, e, "SELECT * FROM empty"); len(rows) != 0 {
		t.Errorf("empty view has rows: %v", rows)
	}
	if _, rows := queryAll(t, e, "SELECT id, rec.inner.z FROM files"); !reflect.DeepEqual(rows, [][]any{{"k1", basefile.Date(2)}}) {
		t.Errorf("rows of the file view: %v", rows)
	}
}

func TestEmptyViewWithoutSchema(t *testing.T) {
	e := openEngine(t)
	if err := e.CreateView(context.Background(), "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range describe(t, e, "t") {
		names = append(names, row[0].(string))
	}
	if !reflect.DeepEqual(names, basefile.MetaFieldNames[:]) {
		t.Errorf("columns = %v, want the meta columns", names)
	}
}

func TestViewOverFiles(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	dir := t.TempDir()
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	v1 := &basefile.Schema{Name: "r", Fields: []basefile.Field{{Name: "id", Type: str}, {Name: "n", Type: basefile.Nullable(basefile.Primitive(basefile.KindInt))}}}
	v2 := &basefile.Schema{Name: "r", Fields: append(append([]basefile.Field(nil), v1.Fields...), basefile.Field{Name: "added", Type: str})}
	files := []string{
		// A hive-style folder is not a column; glob characters are literal.
		writeBaseFile(t, dir, "p=1/f1_0-1-1_20240101000000000.parquet", v1, []any{"a", int32(1)}),
		writeBaseFile(t, dir, "we*ird?[x]/f2_0-1-1_20240101000000000.parquet", v2, []any{"b", int32(2), "new"}),
	}
	// A file the glob characters would match must not be read.
	writeBaseFile(t, dir, "weXirdY[x]/f2_0-1-1_20240101000000000.parquet", v2, []any{"c", int32(3), "wrong"})
	writeBaseFile(t, dir, "weirdYx/f2_0-1-1_20240101000000000.parquet", v2, []any{"d", int32(4), "wrong"})
	if err := e.CreateView(ctx, "t", pathFiles(files...), nil); err != nil {
		t.Fatal(err)
	}
	cols, rows := queryAll(t, e, "SELECT * EXCLUDE (_hoodie_commit_time, _hoodie_commit_seqno, _hoodie_partition_path, _hoodie_file_name) FROM t ORDER BY id")
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if want := []string{"_hoodie_record_key", "id", "n", "added"}; !reflect.DeepEqual(names, want) {
		t.Errorf("columns = %v, want %v", names, want)
	}
	want := [][]any{{"a", "a", int64(1), nil}, {"b", "b", int64(2), "new"}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}

	// A view can be replaced.
	if err := e.CreateView(ctx, "t", pathFiles(files[0]), nil); err != nil {
		t.Fatal(err)
	}
	if _, rows := queryAll(t, e, "SELECT count(*) FROM t"); !reflect.DeepEqual(rows, [][]any{{int64(1)}}) {
		t.Errorf("count after replacing the view: %v", rows)
	}

	// A missing file is an error.
	if err := e.CreateView(ctx, "gone", pathFiles(filepath.Join(dir, "nope.parquet")), nil); err == nil {
		t.Error("CreateView over a missing file succeeded")
	}
}

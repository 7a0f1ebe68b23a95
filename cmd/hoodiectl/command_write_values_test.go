package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newValuesCLITable makes a table keyed by keys (comma-separated) with the
// precombine column ts, and writes first into it with insert.
func newValuesCLITable(t *testing.T, keys, first string, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", append([]string{"init", dir, "--name", "t", "--record-key", keys, "--precombine", "ts"}, extra...)...).mustSucceed(t)
	if first != "" {
		hoodiectl(t, first, "insert", dir).mustSucceed(t)
	}
	return dir
}

// mustBeUnchanged fails unless the table's files are before.
func mustBeUnchanged(t *testing.T, dir string, before []string) {
	t.Helper()
	if after := listTable(t, dir); !slices.Equal(before, after) {
		t.Fatalf("a refused write changed the table's files:\nbefore %v\nafter  %v", before, after)
	}
}

// TestLossyWideningIsRefused checks the widening: an upsert whose
// 0.5 would widen a long column holding 9007199254740993 to double is
// refused (exit 1) naming the column and the value, with nothing written,
// and goes through with the setting that says it loses precision. The
// precombine column is guarded alike.
func TestLossyWideningIsRefused(t *testing.T) {
	dir := newValuesCLITable(t, "id", `{"id":"a","ts":1,"n":9007199254740993}`+"\n"+`{"id":"b","ts":9223372036854775807,"n":1}`)
	before := listTable(t, dir)
	hoodiectl(t, `{"id":"c","ts":1,"n":0.5}`, "upsert", dir).mustFail(t, exitRefused, `column "n"`, "9007199254740993", "would become 9007199254740992", "hoodie.write.schema.widening.lossy.allowed")
	hoodiectl(t, `{"id":"c","ts":0.5,"n":1}`, "upsert", dir).mustFail(t, exitRefused, `column "ts"`, "9223372036854775807")
	mustBeUnchanged(t, dir, before)
	if out := hoodiectl(t, "", "read", dir, "--columns", "n").mustSucceed(t).stdout; !strings.Contains(out, `"n":9007199254740993`) {
		t.Fatalf("read back %s, want n 9007199254740993 whole", out)
	}
	hoodiectl(t, `{"id":"c","ts":1,"n":0.5}`, "upsert", dir, "--set", "hoodie.write.schema.widening.lossy.allowed=true").mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 3 || recs["c"]["n"] != 0.5 {
		t.Fatalf("after the lossy widening: %v", recs)
	}
	hoodiectl(t, `{"id":"d","ts":1}`, "upsert", dir, "--set", "hoodie.write.schema.widening.lossy.allowed=maybe").mustFail(t, exitError, "hoodie.write.schema.widening.lossy.allowed")
	// A widening every stored value survives goes through.
	exact := newValuesCLITable(t, "id", `{"id":"a","ts":1,"n":9007199254740992}`)
	hoodiectl(t, `{"id":"b","ts":1,"n":0.5}`, "upsert", exact).mustSucceed(t)
}

// TestValuesConvertExactly checks values converted on the way in: a number
// for a date or a timestamp, and fraction digits a column's unit would
// drop, are bad input (exit 3) naming the line and the column, in JSON
// lines and CSV.
func TestValuesConvertExactly(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "t.avsc")
	if err := os.WriteFile(schema, []byte(`{"type":"record","name":"t","fields":[
		{"name":"id","type":"string"},{"name":"ts","type":"long"},
		{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
		{"name":"at","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
		{"name":"ms","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := newValuesCLITable(t, "id", "", "--schema", schema)
	good := `{"id":"a","ts":1,"day":"2024-01-01","at":"2024-01-01T00:00:00.1234560Z","ms":"2024-01-01T00:00:00.123000Z"}` + "\n"
	cases := []struct {
		name, bad string
		wants     []string
	}{
		{"a number for a date", `{"id":"b","ts":1,"day":20240101}`, []string{`column "day"`, "20240101 does not fit date", "a number is not a date"}},
		{"a number for a timestamp", `{"id":"b","ts":1,"at":1700000000}`, []string{`column "at"`, "a number is not a timestamp"}},
		{"seven fraction digits", `{"id":"b","ts":1,"at":"2024-01-01T00:00:00.1234567Z"}`, []string{`column "at"`, "more fraction digits than the column's microseconds keep"}},
		{"microseconds into milliseconds", `{"id":"b","ts":1,"ms":"2024-01-01T00:00:00.123456Z"}`, []string{`column "ms"`, "milliseconds"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hoodiectl(t, good+tc.bad, "upsert", dir).mustFail(t, exitError, append(tc.wants, "line 2")...)
		})
	}
	hoodiectl(t, "id,ts,day\nb,1,2024-01-02\nc,1,19000\n", "upsert", dir, "--format", "csv").mustFail(t, exitError, "line 3", `column "day"`, "a number is not a date")
	hoodiectl(t, good, "upsert", dir).mustSucceed(t)
	rec := readKeys(t, dir)["a"]
	if rec["day"] != "2024-01-01" || rec["at"] != "2024-01-01T00:00:00.123456Z" || rec["ms"] != "2024-01-01T00:00:00.123Z" {
		t.Fatalf("read back %v", rec)
	}
}

// TestNaNPrecombineIsRefused checks that NaN, in JSON lines and CSV, is
// refused as a precombine value as null is, naming the line and key.
func TestNaNPrecombineIsRefused(t *testing.T) {
	dir := newValuesCLITable(t, "id", `{"id":"a","ts":1.5}`)
	before := listTable(t, dir)
	hoodiectl(t, `{"id":"b","ts":2.5}`+"\n"+`{"id":"a","ts":"NaN"}`, "upsert", dir).mustFail(t, exitError, "line 2", `key "a"`, `precombine column "ts" is NaN`)
	hoodiectl(t, "id,ts\na,nan\n", "upsert", dir, "--format", "csv").mustFail(t, exitError, "line 2", `precombine column "ts" is NaN`)
	mustBeUnchanged(t, dir, before)
	hoodiectl(t, "id,ts\na,Infinity\n", "upsert", dir, "--format", "csv").mustSucceed(t)
}

// TestColumnsDifferingInCaseAreRefused checks the v and V: against
// the table's column the write is refused (exit 1), within one input it is
// bad input (exit 3), both naming the two columns.
func TestColumnsDifferingInCaseAreRefused(t *testing.T) {
	dir := newValuesCLITable(t, "id", `{"id":"a","ts":1,"v":1}`)
	before := listTable(t, dir)
	hoodiectl(t, `{"id":"a","ts":2,"V":9}`, "upsert", dir).mustFail(t, exitRefused, `input column "V" differs from the table's column "v" only in case`)
	hoodiectl(t, `{"id":"a","ts":2,"w":1,"W":9}`, "upsert", dir).mustFail(t, exitError, `columns "w" and "W" differ only in case`)
	hoodiectl(t, "id,ts,_Hoodie_Commit_Time\na,2,x\n", "upsert", dir, "--format", "csv").mustFail(t, exitError, `"_Hoodie_Commit_Time" differs from Hudi's meta column "_hoodie_commit_time"`)
	mustBeUnchanged(t, dir, before)
}

// TestAmbiguousComplexKeysAreRefused checks the two records, which
// became one: each is bad input (exit 3) naming its line and column, and
// so is a null key part, while separators that do not make a key ambiguous
// are kept.
func TestAmbiguousComplexKeysAreRefused(t *testing.T) {
	dir := newValuesCLITable(t, "k1,k2", `{"k1":"a,b","k2":"c:d","ts":1}`)
	before := listTable(t, dir)
	hoodiectl(t, `{"k1":"x,k2:y","k2":"z","ts":1}`, "upsert", dir).mustFail(t, exitError, "line 1", `record key column "k1"`, `",k2:"`)
	hoodiectl(t, `{"k1":"x","k2":"y","ts":1}`+"\n"+`{"k1":"x","k2":"y,k2:z","ts":1}`, "upsert", dir).mustFail(t, exitError, "line 2", `record key column "k2"`)
	hoodiectl(t, `{"k1":"x","k2":null,"ts":1}`, "upsert", dir).mustFail(t, exitError, "line 1", `record key column "k2" is null`)
	hoodiectl(t, `{"k1":"x","k2":"","ts":1}`, "upsert", dir).mustFail(t, exitError, "line 1", `record key column "k2" is empty`)
	hoodiectl(t, `{"k1":"__null__","k2":"y","ts":1}`, "upsert", dir).mustFail(t, exitError, "line 1", `"__null__"`)
	mustBeUnchanged(t, dir, before)
	if recs := readKeys(t, dir); len(recs) != 1 || recs["k1:a,b,k2:c:d"] == nil {
		t.Fatalf("read back %v", recs)
	}
}

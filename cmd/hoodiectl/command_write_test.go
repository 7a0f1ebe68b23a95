package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
)

var instantLine = regexp.MustCompile(`^\d{17}$`)

// newTripsCLITable makes a table with hoodiectl init.
func newTripsCLITable(t *testing.T, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "trips")
	args := append([]string{"init", dir, "--name", "trips", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "region"}, extra...)
	hoodiectl(t, "", args...).mustSucceed(t)
	return dir
}

// lastLine returns the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// readKeys reads a table's records as JSON objects by record key.
func readKeys(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	out := hoodiectl(t, "", "read", dir).mustSucceed(t).stdout
	recs := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		recs[m["_hoodie_record_key"].(string)] = m
	}
	return recs
}

func TestWriteCommandsEndToEnd(t *testing.T) {
	dir := newTripsCLITable(t)
	r := hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}
{"uuid":"b","ts":1,"fare":2.5,"region":"us"}
{"uuid":"a","ts":2,"fare":9.5,"region":"eu"}
`, "insert", dir).mustSucceed(t)
	if !instantLine.MatchString(lastLine(r.stdout)) {
		t.Fatalf("insert: last line %q is not an instant", lastLine(r.stdout))
	}
	recs := readKeys(t, dir)
	if len(recs) != 2 || recs["a"]["fare"] != 9.5 {
		t.Fatalf("precombine within the input: %v", recs)
	}
	// CSV upsert: one update, one move to another partition, one insert.
	hoodiectl(t, "uuid,ts,fare,region\na,3,7.5,eu\nb,3,3.5,asia\nc,1,4.0,us\n", "upsert", dir, "--format", "csv").mustSucceed(t)
	recs = readKeys(t, dir)
	if len(recs) != 3 || recs["a"]["fare"] != 7.5 || recs["b"]["region"] != "asia" || recs["b"]["_hoodie_partition_path"] != "asia" {
		t.Fatalf("after upsert: %v", recs)
	}
	// An older version loses under event-time merging.
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":0.5,"region":"eu"}`, "upsert", dir).mustSucceed(t)
	if readKeys(t, dir)["a"]["fare"] != 7.5 {
		t.Fatal("an older record replaced a newer one")
	}
	// _hoodie_is_deleted deletes.
	hoodiectl(t, `{"uuid":"c","ts":5,"region":"us","_hoodie_is_deleted":true}`, "upsert", dir).mustSucceed(t)
	if _, ok := readKeys(t, dir)["c"]; ok {
		t.Fatal("_hoodie_is_deleted did not delete")
	}
	// Soft delete keeps key, partition and precombine.
	hoodiectl(t, `{"uuid":"a"}`, "soft-delete", dir).mustSucceed(t)
	a := readKeys(t, dir)["a"]
	if a["fare"] != nil || a["ts"] != 3.0 || a["region"] != "eu" {
		t.Fatalf("soft-deleted record: %v", a)
	}
	// Hard delete; a missing key is ignored.
	hoodiectl(t, `{"uuid":"b"}`+"\n"+`{"uuid":"zzz"}`, "delete", dir).mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 1 {
		t.Fatalf("after delete: %v", recs)
	}
	// Deleting only absent keys commits nothing and prints no instant.
	if r := hoodiectl(t, `{"uuid":"zzz"}`, "delete", dir).mustSucceed(t); r.stdout != "" {
		t.Fatalf("a write that committed nothing printed %q", r.stdout)
	}
	// The index agrees with the table.
	hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)
	hoodiectl(t, "", "index", "rebuild", dir).mustSucceed(t)
	hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)
}

// TestWriteBadInput checks that each kind of bad input gets one clear error
// with the contract's exit status, and changes nothing.
func TestWriteBadInput(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"count":3,"region":"eu"}`, "insert", dir).mustSucceed(t)
	timelineBefore := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	bad := t.TempDir()
	parquetFile := filepath.Join(bad, "bad.parquet")
	os.WriteFile(parquetFile, []byte("PAR1 not really"), 0o644)
	good := `{"uuid":"b","ts":1,"region":"eu","rider":"Bo"}` + "\n"
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		wants []string
	}{
		{"malformed json", "{\"uuid\":\"b\",\"ts\":1}\n{\"uuid\":", []string{"upsert", dir}, exitError, []string{"standard input", "line 2"}},
		{"not an object", `[1,2]`, []string{"upsert", dir}, exitError, []string{"line 1"}},
		{"csv field count", "uuid,ts,region\nb,1\n", []string{"upsert", dir, "--format", "csv"}, exitError, []string{"line 2"}},
		{"corrupt parquet", "", []string{"upsert", dir, parquetFile, "--format", "parquet"}, exitError, []string{"bad.parquet"}},
		{"no key", `{"ts":1,"region":"eu"}`, []string{"upsert", dir}, exitError, []string{"line 1", `record key column "uuid" is null`}},
		{"null precombine", `{"uuid":"b","region":"eu"}`, []string{"upsert", dir}, exitError, []string{"line 1", `key "b"`, `precombine column "ts" is null`}},
		{"type does not fit", `{"uuid":"b","ts":1,"count":"many","region":"eu"}`, []string{"upsert", dir}, exitError, []string{"line 1", `column "count"`, `"many" does not fit long`}},
		{"existing key on insert", `{"uuid":"a","ts":2,"region":"eu"}`, []string{"insert", dir}, exitRefused, []string{`"a"`, "already exist", "--drop-duplicates"}},
		{"empty input", "", []string{"upsert", dir}, exitError, []string{"no records"}},
		{"text that is not UTF-8", "uuid,ts,region,note\nb,1,eu,caf\xe9\n", []string{"upsert", dir, "--format", "csv"}, exitError, []string{"line 2", `column "note"`, "not valid UTF-8"}},
		{"json text that is not UTF-8", good + "{\"uuid\":\"c\",\"ts\":1,\"region\":\"eu\",\"rider\":\"caf\xe9\"}", []string{"upsert", dir}, exitError,
			[]string{`standard input: line 2: member "rider": invalid UTF-8 (byte 0xe9) in a string at column 46`}},
		{"a lone surrogate in the key", good + `{"uuid":"c\ud800","ts":1,"region":"eu"}`, []string{"upsert", dir}, exitError,
			[]string{`standard input: line 2: member "uuid": lone UTF-16 surrogate \ud800 in a string at column 11`}},
		{"a lone surrogate in a member name", good + `{"uuid":"c","ts":1,"region":"eu","\udc00":1}`, []string{"upsert", dir}, exitError,
			[]string{`standard input: line 2: lone UTF-16 surrogate \udc00 in a member name at column 35`}},
		{"missing file", "", []string{"upsert", dir, filepath.Join(bad, "missing.jsonl")}, exitError, []string{"missing.jsonl"}},
		{"missing table", "{}", []string{"upsert", filepath.Join(bad, "nowhere")}, exitError, []string{"not a Hudi table"}},
		{"bad setting", `{"uuid":"b","ts":1}`, []string{"upsert", dir, "--set", "hoodie.parquet.max.file.size=big"}, exitError, []string{"hoodie.parquet.max.file.size"}},
		{"bad --set", `{"uuid":"b","ts":1}`, []string{"upsert", dir, "--set", "novalue"}, exitUsage, []string{"KEY=VALUE"}},
		{"bad --format", `{"uuid":"b","ts":1}`, []string{"upsert", dir, "--format", "xml"}, exitUsage, []string{`--format "xml"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := hoodiectl(t, tt.stdin, tt.args...)
			r.mustFail(t, tt.code, tt.wants...)
			if r.stdout != "" {
				t.Errorf("a failed write printed %q on stdout", r.stdout)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
				t.Errorf("more than one error line:\n%s", r.stderr)
			}
		})
	}
	if after := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; after != timelineBefore {
		t.Errorf("failed writes changed the timeline:\n%s\nwas\n%s", after, timelineBefore)
	}
	// --drop-duplicates skips the existing key and inserts the rest.
	hoodiectl(t, `{"uuid":"a","ts":2,"region":"eu"}`+"\n"+`{"uuid":"b","ts":2,"region":"eu"}`, "insert", dir, "--drop-duplicates").mustSucceed(t)
	recs := readKeys(t, dir)
	if len(recs) != 2 || recs["a"]["ts"] != 1.0 {
		t.Errorf("after --drop-duplicates: %v", recs)
	}
}

func TestSchemaEvolution(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"n":1,"region":"eu"}`, "insert", dir).mustSucceed(t)
	// A new nullable column, and n widened from long to double.
	hoodiectl(t, `{"uuid":"b","ts":1,"n":2.5,"city":"paris","region":"eu"}`, "upsert", dir).mustSucceed(t)
	recs := readKeys(t, dir)
	if recs["a"]["n"] != 1.0 || recs["a"]["city"] != nil || recs["b"]["n"] != 2.5 || recs["b"]["city"] != "paris" {
		t.Fatalf("after evolution: %v", recs)
	}
	// A string where a double is refused, and nothing changes.
	hoodiectl(t, `{"uuid":"c","ts":1,"n":"x","region":"eu"}`, "upsert", dir).mustFail(t, exitError, "line 1", `"n"`)
	if len(readKeys(t, dir)) != 2 {
		t.Fatal("a refused write changed the table")
	}
}

// TestUpsertIntoSparkTables writes into copies of the Spark-written
// fixtures and reads the result back.
func TestUpsertIntoSparkTables(t *testing.T) {
	for _, table := range []string{"v6_nonpartitioned", "v6_simplekeygen_nonhivestyle", "v6_complexkeygen_hivestyle"} {
		t.Run(table, func(t *testing.T) {
			dir := fixtures.Unzip(t, table)
			// Update Bob (id 2, byteField 20, shortField 100) with a greater
			// precombine value than Spark stored, insert Eve.
			input := `{"id":2,"name":"Bob","isActive":true,"longField":9999999999,"byteField":20,"shortField":100}
{"id":5,"name":"Eve","isActive":true,"longField":1,"byteField":20,"shortField":100}
`
			r := hoodiectl(t, input, "upsert", dir).mustSucceed(t)
			if !strings.Contains(r.stderr, "1 inserted, 1 updated") {
				t.Errorf("summary: %s", r.stderr)
			}
			out := hoodiectl(t, "", "read", dir, "--columns", "id,name,isActive,longField,intField").mustSucceed(t).stdout
			if got := strings.Split(strings.TrimSpace(out), "\n"); len(got) != 5 {
				t.Fatalf("%d records, want 5:\n%s", len(got), out)
			}
			if !strings.Contains(out, `{"id":2,"name":"Bob","isActive":true,"longField":9999999999,"intField":null}`) {
				t.Errorf("Bob not updated:\n%s", out)
			}
			if !strings.Contains(out, `"id":1,"name":"Alice","isActive":false`) {
				t.Errorf("Alice changed:\n%s", out)
			}
			// Time travel to before the upsert still gives Spark's rows.
			tl := strings.Split(strings.TrimSpace(hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout), "\n")
			if len(tl) != 3 {
				t.Fatalf("timeline has %d instants, want 3", len(tl))
			}
			var second instantRow
			json.Unmarshal([]byte(tl[1]), &second)
			old := hoodiectl(t, "", "read", dir, "--as-of", second.Instant, "--columns", "id,isActive").mustSucceed(t).stdout
			if strings.Count(old, "\n") != 4 || !strings.Contains(old, `{"id":2,"isActive":false}`) {
				t.Errorf("as of %s:\n%s", second.Instant, old)
			}
			hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)
		})
	}
}

func TestPreCommitValidators(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`, "insert", dir).mustSucceed(t)
	props := filepath.Join(t.TempDir(), "validators.properties")
	os.WriteFile(props, []byte("hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator\n"+
		"hoodie.precommit.validators.single.value.sql.queries=select count(*) from <TABLE_NAME> where fare < 0#0\n"), 0o644)
	hoodiectl(t, `{"uuid":"b","ts":1,"fare":2.5,"region":"eu"}`, "upsert", dir, "--props", props).mustSucceed(t)
	r := hoodiectl(t, `{"uuid":"c","ts":1,"fare":-1,"region":"eu"}`, "upsert", dir, "--props", props)
	r.mustFail(t, exitRefused, "pre-commit validation failed", "returned 1, expected 0", "nothing was committed")
	if recs := readKeys(t, dir); len(recs) != 2 {
		t.Fatalf("a refused write changed the table: %v", recs)
	}
	hoodiectl(t, `{"uuid":"c","ts":1,"fare":1,"region":"eu"}`, "upsert", dir, "--props", props,
		"--set", "hoodie.precommit.validators=com.example.Custom").mustFail(t, exitError, "unknown validator")
}

// Hudi compares a single-result validator's expected text with the
// result's Java toString: settings written for Hudi work unchanged.
func TestSingleResultValidatorsExpectJavaText(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":2.0,"region":"eu"}`, "insert", dir).mustSucceed(t)
	queries := "select max(fare) from <TABLE_NAME>#2.0;" +
		"select count(*) from <TABLE_NAME>#2;" +
		"select max(fare) > 1 from <TABLE_NAME>#true;" +
		// Not Java's text, but a nested result is compared, not a crash.
		`select list(uuid order by uuid) from <TABLE_NAME>#["a","b"]`
	hoodiectl(t, `{"uuid":"b","ts":1,"fare":1.5,"region":"eu"}`, "upsert", dir,
		"--set", "hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator",
		"--set", "hoodie.precommit.validators.single.value.sql.queries="+queries).mustSucceed(t)
}

// A partition value starting with a dot is written to an encoded folder,
// never a hidden one (".hoodie" above all), and reads back.
func TestDotPartitionValues(t *testing.T) {
	for _, value := range []string{".net", ".hoodie"} {
		t.Run(value, func(t *testing.T) {
			dir := newTripsCLITable(t)
			in := `{"uuid":"a","ts":1,"region":"` + value + `"}` + "\n" + `{"uuid":"b","ts":1,"region":"eu"}` + "\n"
			hoodiectl(t, in, "insert", dir).mustSucceed(t)
			if _, err := os.Stat(filepath.Join(dir, "%2E"+value[1:], ".hoodie_partition_metadata")); err != nil {
				t.Errorf("no encoded partition folder: %v", err)
			}
			recs := readKeys(t, dir)
			if len(recs) != 2 || recs["a"]["region"] != value {
				t.Fatalf("read back %v", recs)
			}
			hoodiectl(t, `{"uuid":"a","ts":2,"region":"`+value+`"}`, "upsert", dir).mustSucceed(t)
			if recs := readKeys(t, dir); len(recs) != 2 || recs["a"]["ts"] != 2.0 {
				t.Fatalf("after an upsert: %v", recs)
			}
		})
	}
}

// A partition folder starting with a dot, as Spark writes for such a value,
// is read like any other: only .hoodie is not a partition.
func TestReadsDotPartitionFolders(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	before := hoodiectl(t, "", "read", dir, "--columns", "_hoodie_record_key").mustSucceed(t).stdout
	if err := os.Rename(filepath.Join(dir, "20"), filepath.Join(dir, ".20")); err != nil {
		t.Fatal(err)
	}
	// The commits name the files by their paths: move them there too.
	entries, err := os.ReadDir(filepath.Join(dir, ".hoodie"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".commit") || strings.HasSuffix(e.Name(), ".replacecommit") {
			p := filepath.Join(dir, ".hoodie", e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.ReplaceAll(strings.ReplaceAll(string(data), `"20/`, `".20/`), `"partitionPath" : "20"`, `"partitionPath" : ".20"`))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The files keep their stored partition path; the records are the same.
	after := hoodiectl(t, "", "read", dir, "--columns", "_hoodie_record_key").mustSucceed(t).stdout
	sorted := func(s string) []string { lines := strings.Split(s, "\n"); slices.Sort(lines); return lines }
	if !slices.Equal(sorted(after), sorted(before)) {
		t.Errorf("read with the partition in .20:\n%s\nwant:\n%s", after, before)
	}
}

// Whole numbers beyond a long would lose digits as doubles, and two keys
// become one: the write is refused, naming the line and the column.
func TestWholeNumbersBeyondALongAreRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", "init", dir, "--name", "t", "--record-key", "id").mustSucceed(t)
	in := `{"id":12345678901234567890,"v":1}` + "\n" + `{"id":12345678901234567891,"v":2}` + "\n"
	hoodiectl(t, in, "insert", dir).mustFail(t, exitError, "line 1", `"id"`, "out of the range of a long")
	// Written as strings, they keep every digit.
	in = `{"id":"12345678901234567890","v":1}` + "\n" + `{"id":"12345678901234567891","v":2}` + "\n"
	hoodiectl(t, in, "insert", dir).mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 2 || recs["12345678901234567891"] == nil {
		t.Fatalf("read back %v", recs)
	}
}

// A key or partition column may not widen beyond int -> long: 5 would
// become "5.0", and the stored record 5 would get a second live copy.
func TestKeyColumnsDoNotWiden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", "init", dir, "--name", "t", "--record-key", "id", "--partition-by", "p").mustSucceed(t)
	hoodiectl(t, `{"id":5,"p":1,"v":1}`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"id":5,"p":1,"v":2}`+"\n"+`{"id":2.5,"p":1,"v":3}`+"\n", "upsert", dir).mustFail(t, exitRefused, `column "id"`, "record keys or partition paths")
	hoodiectl(t, `{"id":6,"p":1.5,"v":3}`, "upsert", dir).mustFail(t, exitRefused, `column "p"`)
	hoodiectl(t, `{"id":5,"p":1,"v":2}`, "upsert", dir).mustSucceed(t)
	recs := readKeys(t, dir)
	if len(recs) != 1 || recs["5"]["v"] != 2.0 {
		t.Fatalf("read back %v", recs)
	}
}

// As in Hudi, the equality validator reads the table before the write with
// the schema after it: a query may name a column the write adds, null
// before it, and a widened column compares equal.
func TestEqualityValidatorsSeeTheSchemaAfterTheWrite(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"fare":1.5,"n":1,"region":"eu"}`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"b","ts":1,"fare":2.5,"n":2.5,"tip":1.0,"region":"eu"}`, "upsert", dir,
		"--set", "hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQueryEqualityPreCommitValidator",
		"--set", "hoodie.precommit.validators.equality.sql.queries=select count(*) from <TABLE_NAME> where tip > 100;"+
			"select n from <TABLE_NAME> where uuid = 'a'").mustSucceed(t)
}

// listTable lists a table's files and folders, but for the record index and
// the writer lock, which are Hoodie's own and not part of the Hudi table.
func listTable(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch rel {
		case filepath.Join(".hoodie", ".index"):
			return filepath.SkipDir
		case filepath.Join(".hoodie", ".lock"):
			return nil
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A refused write into new partitions leaves no trace of them: the table's
// files are as they were.
func TestRefusedWriteLeavesNoNewPartition(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", "init", dir, "--name", "t", "--record-key", "id", "--partition-by", "country,city").mustSucceed(t)
	hoodiectl(t, `{"id":1,"country":"fr","city":"paris","v":1}`, "insert", dir).mustSucceed(t)
	before := listTable(t, dir)
	in := `{"id":2,"country":"us","city":"nyc","v":-1}` + "\n" + `{"id":3,"country":"fr","city":"lyon","v":-1}` + "\n"
	hoodiectl(t, in, "insert", dir,
		"--set", "hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator",
		"--set", "hoodie.precommit.validators.single.value.sql.queries=select count(*) from <TABLE_NAME> where v < 0#0").mustFail(t, exitRefused, "pre-commit validation failed")
	if after := listTable(t, dir); !slices.Equal(before, after) {
		t.Fatalf("a refused write changed the table's files:\nbefore %v\nafter  %v", before, after)
	}
}

// TestTypeMisfitNamesTheRecord checks that a value that does not fit its
// table column is refused as bad input (exit 3) naming its line, alone,
// after a record that fits, and in CSV.
func TestTypeMisfitNamesTheRecord(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"count":3,"region":"eu"}`, "insert", dir).mustSucceed(t)
	cases := []struct {
		name, input, line string
		args              []string
	}{
		{"alone", `{"uuid":"b","ts":1,"count":"many","region":"eu"}`, "line 1", nil},
		{"after a record that fits", `{"uuid":"c","ts":1,"count":4,"region":"eu"}` + "\n" + `{"uuid":"b","ts":1,"count":"many","region":"eu"}`, "line 2", nil},
		{"csv", "uuid,ts,count,region\nc,1,4,eu\nb,1,many,eu\n", "line 3", []string{"--format", "csv"}},
	}
	for _, tc := range cases {
		hoodiectl(t, tc.input, append([]string{"upsert", dir}, tc.args...)...).mustFail(t, exitError, tc.line, `column "count"`, `"many" does not fit long`)
	}
}

// TestIsDeletedColumnIsBoolean checks that _hoodie_is_deleted is a boolean
// even when a first write holds only nulls in it, so that a later true
// deletes, and that values of another type are refused.
func TestIsDeletedColumnIsBoolean(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"region":"eu","_hoodie_is_deleted":null}`+"\n"+`{"uuid":"b","ts":1,"region":"eu","_hoodie_is_deleted":null}`, "upsert", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"a","ts":2,"region":"eu","_hoodie_is_deleted":true}`, "upsert", dir).mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 1 || recs["b"] == nil {
		t.Fatalf("after deleting a: %v", recs)
	}
	other := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"region":"eu","_hoodie_is_deleted":"true"}`, "upsert", other).mustFail(t, exitError, "_hoodie_is_deleted", "must hold booleans")
	hoodiectl(t, "uuid,ts,region,_hoodie_is_deleted\na,1,eu,\nb,1,eu,\n", "upsert", other, "--format", "csv").mustSucceed(t)
	hoodiectl(t, "uuid,ts,region,_hoodie_is_deleted\na,2,eu,true\n", "upsert", other, "--format", "csv").mustSucceed(t)
	if recs := readKeys(t, other); len(recs) != 1 || recs["b"] == nil {
		t.Fatalf("csv: after deleting a: %v", recs)
	}
}

// TestWholeNumbersADoubleLoses checks that a whole number a double column
// would round is refused with its line, rather than two keys becoming one.
func TestWholeNumbersADoubleLoses(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		dir := newTripsCLITable(t)
		in := `{"uuid":9007199254740993,"ts":1,"region":"eu"}` + "\n" + `{"uuid":9007199254740992,"ts":1,"region":"eu"}` + "\n" + `{"uuid":0.5,"ts":1,"region":"eu"}` + "\n"
		line := "line 1"
		if format == "csv" {
			in = "uuid,ts,region\n9007199254740993,1,eu\n9007199254740992,1,eu\n0.5,1,eu\n"
			line = "line 2"
		}
		hoodiectl(t, in, "insert", dir, "--format", format).mustFail(t, exitError, line, "9007199254740993", "cannot hold exactly")
	}
}

// TestDeleteNeedsOnlyKeyColumns checks that deletes and soft deletes take
// only the key and partition columns of their input: other columns, of any
// type, do not refuse them.
func TestDeleteNeedsOnlyKeyColumns(t *testing.T) {
	dir := newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":5,"region":"eu"}`+"\n"+`{"uuid":"b","ts":5,"region":"eu","note":"x"}`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"a","ts":2.5,"other":{"x":1}}`, "delete", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"b","ts":"yesterday","note":[1]}`, "soft-delete", dir).mustSucceed(t)
	recs := readKeys(t, dir)
	if _, ok := recs["a"]; ok || len(recs) != 1 || recs["b"]["note"] != nil || recs["b"]["ts"] != 5.0 {
		t.Fatalf("after the deletes: %v", recs)
	}
}

// TestSingleKeyIsTheValue checks the contract's record key of one column,
// the column's value, in a table whose several partition columns give it
// Hudi's complex key generator.
func TestSingleKeyIsTheValue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", "init", dir, "--name", "t", "--record-key", "id", "--partition-by", "a,b").mustSucceed(t)
	hoodiectl(t, `{"id":1,"a":"x","b":"y"}`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"id":1,"a":"x","b":"y","v":2}`, "upsert", dir).mustSucceed(t)
	recs := readKeys(t, dir)
	if len(recs) != 1 || recs["1"] == nil || recs["1"]["v"] != 2.0 {
		t.Fatalf("records by key: %v, want key \"1\" updated", recs)
	}
}

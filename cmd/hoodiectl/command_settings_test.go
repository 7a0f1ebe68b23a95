package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/validate"
	"github.com/hoodie-dev/hoodie/write"
)

// TestSparkPropertiesFile writes with a properties file of common Spark
// settings: the keys Hoodie refuses are named, all in one line, and nothing
// is written; without them the same file writes.
func TestSparkPropertiesFile(t *testing.T) {
	dir := newTripsCLITable(t)
	data, err := os.ReadFile("testdata/spark-quickstart.properties")
	if err != nil {
		t.Fatal(err)
	}
	var refused, kept []string
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		key, _, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if i+1 < len(lines) && lines[i+1] == "#refused" {
			refused = append(refused, key)
		} else {
			kept = append(kept, line)
		}
	}
	const input = `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`
	r := hoodiectl(t, input, "upsert", dir, "--props", "testdata/spark-quickstart.properties")
	r.mustFail(t, exitError)
	named := map[string]bool{}
	for _, key := range strings.FieldsFunc(r.stderr, func(c rune) bool { return strings.ContainsRune(" ,;:\n", c) }) {
		named[key] = true
	}
	for _, key := range refused {
		if !named[key] {
			t.Errorf("refused %s not named:\n%s", key, r.stderr)
		}
	}
	for _, line := range kept {
		if key, _, _ := strings.Cut(line, "="); named[key] {
			t.Errorf("%s named as refused:\n%s", key, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("write settings: %d refused; Hoodie does not do what these ask", len(refused))) {
		t.Errorf("stderr does not count the refused settings:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "\n"); n != 1 {
		t.Errorf("stderr has %d lines, want 1:\n%s", n, r.stderr)
	}
	if recs := readKeys(t, dir); len(recs) != 0 {
		t.Fatalf("the refused write wrote %d record(s)", len(recs))
	}

	props := filepath.Join(t.TempDir(), "kept.properties")
	if err := os.WriteFile(props, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hoodiectl(t, input, "upsert", dir, "--props", props).mustSucceed(t)
	if recs := readKeys(t, dir); len(recs) != 1 {
		t.Fatalf("%d record(s), want 1", len(recs))
	}
	// The same file used on an insert, or on another table, disagrees with
	// the write: refused when the write runs, with nothing written.
	hoodiectl(t, `{"uuid":"b","ts":1,"fare":1.5,"region":"eu"}`, "insert", dir, "--props", props).
		mustFail(t, exitError, "hoodie.datasource.write.operation=upsert is refused: this write is insert, whose operation is insert", "nothing was committed")
	other := newTripsCLITable(t, "--hive-style")
	hoodiectl(t, input, "upsert", other, "--props", props).
		mustFail(t, exitError, "hoodie.datasource.write.hive_style_partitioning=false is refused: the table has hoodie.datasource.write.hive_style_partitioning=true")
	if recs := readKeys(t, other); len(recs) != 0 {
		t.Fatalf("the refused write wrote %d record(s)", len(recs))
	}
}

// TestSettingsErrors checks single settings on the command line: an
// impossible value with its range, a refused key with why, a typo with the
// key meant.
func TestSettingsErrors(t *testing.T) {
	dir := newTripsCLITable(t)
	const input = `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`
	for _, tt := range []struct {
		set  string
		want string
	}{
		{"hoodie.parquet.max.file.size=1", `hoodie.parquet.max.file.size="1": want a whole number of bytes from 1048576 to 1099511627776`},
		{"hoodie.parquet.block.size=-5", `hoodie.parquet.block.size="-5": want a whole number of bytes from 65536`},
		{"hoodie.parquet.compression.codec=lzo", `want zstd, snappy, gzip, uncompressed`},
		{"hoodie.datasource.write.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload", "PartialUpdateAvroPayload\": want org.apache.hudi.common.model.DefaultHoodieRecordPayload"},
		{"hoodie.datasource.write.operation=insert_overwrite_table", `hoodie.datasource.write.operation=insert_overwrite_table is refused: this write is upsert, whose operation is upsert`},
		{"hoodie.datasource.write.operation=bootstrap", `hoodie.datasource.write.operation="bootstrap": want insert, bulk_insert, upsert, delete, insert_overwrite, insert_overwrite_table or delete_partition`},
		{"hoodie.cleaner.commits.retained=-5", `hoodie.cleaner.commits.retained="-5": want a whole number of commits from 0 to 1000000`},
		{"hoodie.clean.async=true", "hoodie.clean.async=true is refused: Hoodie cleans inline"},
		{"hoodie.datasource.write.table.type=MERGE_ON_READ", "hoodie.datasource.write.table.type=MERGE_ON_READ is refused: the table has hoodie.table.type=COPY_ON_WRITE"},
		{"hoodie.parquet.max.filesize=1048576", "did you mean hoodie.parquet.max.file.size?"},
	} {
		hoodiectl(t, input, "upsert", dir, "--set", tt.set).mustFail(t, exitError, tt.want)
	}
	if recs := readKeys(t, dir); len(recs) != 0 {
		t.Fatalf("refused writes wrote %d record(s)", len(recs))
	}
	hoodiectl(t, input, "upsert", dir, "--set", "hoodie.clean.async=false", "--set", "hoodie.metadata.enable=false").mustSucceed(t)
}

// TestValidatorSettingsAreDeclared checks that the validate package's keys
// are the registry's honoured ones.
func TestValidatorSettingsAreDeclared(t *testing.T) {
	for _, key := range []string{validate.KeyValidators, validate.KeySingleValueQueries, validate.KeyEqualityQueries, validate.KeyInequalityQueries} {
		if s, ok := write.LookupSetting(key); !ok || s.Key != key || s.Kind != write.Honoured {
			t.Errorf("%s: declared as %+v", key, s)
		}
	}
}

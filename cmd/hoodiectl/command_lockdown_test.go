package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
)

// newLockdownTable makes a trips table with one commit, and a secret file
// beside it; it returns the table's folder, its hoodie.properties and the
// secret file.
func newLockdownTable(t *testing.T) (dir, props, secret string) {
	t.Helper()
	dir = newTripsCLITable(t)
	hoodiectl(t, `{"uuid":"a","ts":1,"rider":"ann","fare":12.5,"region":"eu"}
{"uuid":"b","ts":1,"rider":"bob","fare":30.0,"region":"us"}
`, "insert", dir).mustSucceed(t)
	secret = filepath.Join(filepath.Dir(dir), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cr3t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, ".hoodie", "hoodie.properties"), secret
}

func TestQueryRunsLockedDown(t *testing.T) {
	dir, props, secret := newLockdownTable(t)
	before, err := os.ReadFile(props)
	if err != nil {
		t.Fatal(err)
	}
	q := sqlengine.QuoteString
	for _, sql := range []string{
		"select * from read_text('/etc/passwd')",
		"select * from read_csv(" + q(secret) + ")",
		"select * from glob(" + q(filepath.Join(dir, "*", "*")) + ")",
		"copy (select 'broken' as x) to " + q(props) + " (format csv)",
		"select 1; copy <TABLE_NAME> to " + q(filepath.Join(dir, "dump.parquet")),
		"export database " + q(filepath.Join(dir, "export")),
		"attach " + q(filepath.Join(dir, "new.duckdb")) + " as d",
		"install httpfs",
		"load httpfs",
		"set enable_external_access = true",
		"reset lock_configuration",
	} {
		r := hoodiectl(t, "", "query", dir, sql)
		r.mustFail(t, exitError, "hoodiectl: query "+dir+": DuckDB runs locked down: ", "--unsafe-external-access")
		if strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: the error is not one line:\n%s", sql, r.stderr)
		}
	}
	after, _ := os.ReadFile(props)
	if string(after) != string(before) {
		t.Errorf("hoodie.properties changed:\n%s", after)
	}
	for _, name := range []string{"dump.parquet", "export", "new.duckdb"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written", name)
		}
	}
	// The table's own files read as ever.
	if got := hoodiectl(t, "", "query", dir, "select count(*) as n from <TABLE_NAME>").mustSucceed(t).stdout; got != "{\"n\":2}\n" {
		t.Errorf("count after the attacks: %q", got)
	}
}

func TestQueryUnsafeExternalAccess(t *testing.T) {
	dir, props, secret := newLockdownTable(t)
	got := hoodiectl(t, "", "query", dir, "select content from read_text("+sqlengine.QuoteString(secret)+")", "--unsafe-external-access").mustSucceed(t).stdout
	if got != "{\"content\":\"s3cr3t\\n\"}\n" {
		t.Errorf("read_text with --unsafe-external-access: %q", got)
	}
	dump := filepath.Join(t.TempDir(), "dump.csv")
	hoodiectl(t, "", "query", dir, "set threads = 1; copy (select uuid from <TABLE_NAME> order by 1) to "+sqlengine.QuoteString(dump)+"; select 1 as done",
		"--unsafe-external-access").mustSucceed(t)
	if b, _ := os.ReadFile(dump); string(b) != "uuid\na\nb\n" {
		t.Errorf("COPY with --unsafe-external-access wrote %q", b)
	}
	if _, err := os.Stat(props); err != nil {
		t.Fatal(err)
	}
}

// TestValidatorFromPropertiesRunsLockedDown checks that a pre-commit
// validator query that writes a file refuses the write: exit 1, no instant,
// the table as it was.
func TestValidatorFromPropertiesRunsLockedDown(t *testing.T) {
	dir, props, secret := newLockdownTable(t)
	before, _ := os.ReadFile(props)
	timeline := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout
	q := sqlengine.QuoteString
	for _, query := range []string{
		"copy (select 'broken' as x) to " + q(props) + " (format csv)#1",
		"select count(*) from read_text(" + q(secret) + ")#1",
	} {
		propsFile := filepath.Join(t.TempDir(), "validators.properties")
		text := "hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator\n" +
			"hoodie.precommit.validators.single.value.sql.queries=" + strings.ReplaceAll(query, `\`, `\\`) + "\n"
		if err := os.WriteFile(propsFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := hoodiectl(t, `{"uuid":"c","ts":2,"rider":"cy","fare":7.0,"region":"eu"}`+"\n", "upsert", dir, "--props", propsFile)
		r.mustFail(t, exitRefused, "DuckDB runs locked down")
		if r.stdout != "" {
			t.Errorf("a refused write printed %q", r.stdout)
		}
	}
	if after, _ := os.ReadFile(props); string(after) != string(before) {
		t.Errorf("hoodie.properties changed:\n%s", after)
	}
	if got := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; got != timeline {
		t.Errorf("timeline changed:\n%s\nwas\n%s", got, timeline)
	}
	if got := hoodiectl(t, "", "query", dir, "select count(*) as n from <TABLE_NAME>").mustSucceed(t).stdout; got != "{\"n\":2}\n" {
		t.Errorf("count after the refused writes: %q", got)
	}
}

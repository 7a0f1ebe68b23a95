package sqlengine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lockedTable is a folder holding a Parquet file, a hoodie.properties and,
// beside the folder, a secret file, with a locked-down engine whose view t
// reads the Parquet file.
type lockedTable struct {
	dir, file, props, secret string
	engine                   *Engine
}

func newLockedTable(t *testing.T) *lockedTable {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	lt := &lockedTable{dir: filepath.Join(root, "table")}
	lt.file = filepath.Join(lt.dir, "part[1].parquet")
	lt.props = filepath.Join(lt.dir, "hoodie.properties")
	lt.secret = filepath.Join(root, "secret.txt")
	if err := os.MkdirAll(lt.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{lt.props: "hoodie.table.name=t\n", lt.secret: "s3cr3t\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writer := openEngineWith(t, ExternalAccess)
	queryAll(t, writer, "COPY (SELECT 7 AS x) TO "+QuoteString(lt.file)+" (FORMAT parquet)")
	lt.engine = openEngine(t)
	if err := lt.engine.CreateView(ctx, "t", []File{{Path: lt.file}}, nil); err != nil {
		t.Fatal(err)
	}
	return lt
}

// files returns the contents of every file under the table's parent
// folder, by path.
func (lt *lockedTable) files(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(filepath.Dir(lt.dir), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// run runs query to its end and returns its error.
func run(e *Engine, query string) error {
	rows, err := e.Query(context.Background(), query)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Err(), rows.Close())
}

func TestLockedDownRefusesWhatReachesBeyondTheViews(t *testing.T) {
	lt := newLockedTable(t)
	before := lt.files(t)
	home, _ := os.UserHomeDir()
	if err := run(lt.engine, "SELECT 1"); err != nil { // locks the engine down
		t.Fatal(err)
	}
	q := QuoteString
	attacks := []struct{ name, sql string }{
		{"read_text of a system file", "SELECT * FROM read_text('/etc/passwd')"},
		{"read_text of a file beside the table", "SELECT * FROM read_text(" + q(lt.secret) + ")"},
		{"read_csv", "SELECT * FROM read_csv(" + q(lt.secret) + ")"},
		{"read_blob", "SELECT * FROM read_blob(" + q(lt.props) + ")"},
		{"read_parquet of a file beside the table", "SELECT * FROM read_parquet(" + q(lt.secret) + ")"},
		{"read_json", "SELECT * FROM read_json(" + q(lt.secret) + ")"},
		{"read_parquet of a glob", "SELECT * FROM read_parquet(" + q(filepath.Join(lt.dir, "*.parquet")) + ")"},
		{"glob", "SELECT * FROM glob(" + q(filepath.Join(lt.dir, "*")) + ")"},
		{"COPY TO the table's properties", "COPY (SELECT 'broken' AS x) TO " + q(lt.props) + " (FORMAT csv)"},
		{"COPY TO a file of the view", "COPY (SELECT 1 AS x) TO " + q(lt.file) + " (FORMAT csv, USE_TMP_FILE false)"},
		{"COPY TO a new file", "COPY t TO " + q(filepath.Join(lt.dir, "new.parquet"))},
		{"COPY after a query", "SELECT 1; COPY t TO " + q(filepath.Join(lt.dir, "new.csv"))},
		{"EXPORT DATABASE", "EXPORT DATABASE " + q(filepath.Join(lt.dir, "export"))},
		{"ATTACH a new database", "ATTACH " + q(filepath.Join(lt.dir, "new.duckdb")) + " AS d"},
		{"ATTACH a file of the view", "ATTACH " + q(lt.file) + " AS d"},
		{"INSTALL", "INSTALL httpfs"},
		{"LOAD", "LOAD httpfs"},
		{"LOAD a file", "LOAD " + q(filepath.Join(home, "evil.duckdb_extension"))},
		{"an extension autoloaded", "SELECT * FROM read_parquet('https://example.com/x.parquet')"},
		{"a file through the temporary folder", "SELECT * FROM read_text(" + q(lt.engine.tempDir+"/../../../../../../etc/passwd") + ")"},
		{"a file in the temporary folder", "COPY (SELECT 1) TO " + q(lt.engine.tempDir+"/x.csv")},
		{"a file through a file of the view", "SELECT * FROM read_text(" + q(lt.file+"/../../secret.txt") + ")"},
		{"SET external access", "SET enable_external_access = true"},
		{"RESET the lock", "RESET lock_configuration"},
		{"SET allowed paths", "SET allowed_directories = ['/']"},
		{"PRAGMA", "PRAGMA enable_profiling"},
		{"CALL", "CALL enable_logging(storage = 'file', storage_path = " + q(lt.dir) + ")"},
		{"logging enabled by a query", `SELECT * FROM "ENABLE_LOGGING"(storage => 'file', storage_path => ` + q(lt.dir) + ")"},
		{"SQL run from text", "SELECT * FROM query('COP' || 'Y t TO ' || " + q(q(lt.props)) + ")"},
		{"a macro", "CREATE MACRO m() AS TABLE SELECT * FROM read_text('/etc/passwd')"},
		{"PREPARE", "PREPARE p AS SELECT 1"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			err := run(lt.engine, a.sql)
			if !errors.Is(err, ErrLockedDown) {
				t.Fatalf("%s: error %v, want one wrapping ErrLockedDown", a.sql, err)
			}
		})
	}
	// DuckDB does not take a file for a table when locked down.
	if err := run(lt.engine, "SELECT * FROM "+q(lt.secret)); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a file as a table: %v, want an error", err)
	}
	// The table's view still reads, nothing was written, and the engine
	// closes cleanly.
	_, rows := queryAll(t, lt.engine, "SELECT x FROM t")
	if len(rows) != 1 || rows[0][0] != int64(7) {
		t.Errorf("view after the attacks: %v, want 7", rows)
	}
	after := lt.files(t)
	for path, b := range before {
		if !bytes.Equal(after[path], b) {
			t.Errorf("%s changed", path)
		}
	}
	for path := range after {
		if before[path] == nil {
			t.Errorf("%s was written", path)
		}
	}
	// The engine's cleanup closes it: DuckDB does not abort the process.
}

// An engine with external access does what a locked-down one refuses: the
// attacks above are real.
func TestExternalAccessReachesFiles(t *testing.T) {
	lt := newLockedTable(t)
	e := openEngineWith(t, ExternalAccess)
	_, rows := queryAll(t, e, "SELECT content FROM read_text("+QuoteString(lt.secret)+")")
	if len(rows) != 1 || rows[0][0] != "s3cr3t\n" {
		t.Errorf("read_text with external access: %v", rows)
	}
	queryAll(t, e, "COPY (SELECT 'broken' AS x) TO "+QuoteString(lt.props)+" (FORMAT csv, HEADER false)")
	if b, _ := os.ReadFile(lt.props); string(b) != "broken\n" {
		t.Errorf("COPY TO with external access wrote %q", b)
	}
	queryAll(t, e, "SET threads = 1")
}

func TestLockedDownQueriesStillWork(t *testing.T) {
	lt := newLockedTable(t)
	for _, query := range []string{
		"SELECT x FROM t",
		"WITH a AS (SELECT x FROM t) SELECT max(x) FROM a",
		"FROM t SELECT x",
		"SELECT x FROM t UNION ALL SELECT 7 ORDER BY 1 LIMIT 1",
		"SELECT 1; SELECT x FROM t",
		"SELECT count(*) FROM (VALUES (1), (2)) v(a) WHERE a IN (SELECT x - 6 FROM t)",
		// A column or string that names a denied function is fine.
		"SELECT 'enable_logging' AS query FROM t",
	} {
		if err := run(lt.engine, query); err != nil {
			t.Errorf("%s: %v", query, err)
		}
	}
	// A view over a query checks it as Query does.
	ctx := context.Background()
	if err := lt.engine.CreateQueryView(ctx, "u", "SELECT x + 1 AS y FROM t"); err != nil {
		t.Fatal(err)
	}
	if _, rows := queryAll(t, lt.engine, "SELECT y FROM u"); len(rows) != 1 || rows[0][0] != int64(8) {
		t.Errorf("view u: %v", rows)
	}
	for _, query := range []string{
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM t UNION ALL SELECT * FROM query('SELECT 2')",
	} {
		if err := lt.engine.CreateQueryView(ctx, "v", query); err == nil || !strings.Contains(err.Error(), "locked down") {
			t.Errorf("CreateQueryView(%q) = %v, want it refused", query, err)
		}
	}
	if err := lt.engine.CreateQueryView(ctx, "v", "SELECT 1; SELECT 2"); err == nil {
		t.Error("CreateQueryView of two statements succeeded")
	}
	// Once locked down, a view over new files is an error, not a way out.
	if err := lt.engine.CreateView(ctx, "w", []File{{Path: lt.secret}}, nil); err == nil {
		t.Error("CreateView of a new file after the lockdown succeeded")
	}
	if err := lt.engine.CreateGlobView(ctx, "w", lt.secret); err == nil {
		t.Error("CreateGlobView after the lockdown succeeded")
	}
	if err := lt.engine.CreateView(ctx, "t2", []File{{Path: lt.file}}, nil); err != nil {
		t.Errorf("CreateView over the same file after the lockdown: %v", err)
	}
}

func TestCreateGlobView(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writer := openEngineWith(t, ExternalAccess)
	for i, sub := range []string{"k=1", "k=2"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		queryAll(t, writer, "COPY (SELECT "+string(rune('1'+i))+" AS x) TO "+QuoteString(filepath.Join(dir, sub, "f.parquet"))+" (FORMAT parquet)")
	}
	e := openEngine(t)
	if err := e.CreateGlobView(ctx, "g", filepath.Join(dir, "*", "*.parquet")); err != nil {
		t.Fatal(err)
	}
	_, rows := queryAll(t, e, "SELECT x, k FROM g ORDER BY x")
	if len(rows) != 2 || rows[1][0] != int64(2) || rows[1][1] != int64(2) {
		t.Errorf("glob view: %v, want x and the hive partition k", rows)
	}
	// The files matched are readable, others are not.
	if err := run(e, "SELECT * FROM read_text('/etc/passwd')"); !errors.Is(err, ErrLockedDown) {
		t.Errorf("read_text after a glob view: %v", err)
	}
	if err := e.CreateGlobView(ctx, "h", filepath.Join(dir, "none*.parquet")); err == nil {
		t.Error("a glob matching nothing made a view")
	}
}

// TestEveryTableFunctionIsClassified fails when the linked DuckDB has a
// table function that deniedFunctions does not deny and this test does not
// know to be harmless in a locked-down engine: review it on a DuckDB
// upgrade.
func TestEveryTableFunctionIsClassified(t *testing.T) {
	harmless := strings.Fields(`duckdb_approx_database_count duckdb_columns duckdb_connection_count
		duckdb_constraints duckdb_coordinate_systems duckdb_databases duckdb_dependencies duckdb_extensions
		duckdb_external_file_cache duckdb_functions duckdb_indexes duckdb_keywords duckdb_log_contexts
		duckdb_logs duckdb_logs_parsed duckdb_memory duckdb_optimizers duckdb_prepared_statements
		duckdb_profiling_settings duckdb_schemas duckdb_secret_types duckdb_secrets duckdb_sequences
		duckdb_settings duckdb_table_sample duckdb_tables duckdb_temporary_files duckdb_types duckdb_variables
		duckdb_views generate_series glob histogram histogram_values icu_calendar_names json_each json_tree
		parquet_bloom_probe parquet_file_metadata parquet_full_metadata parquet_kv_metadata parquet_metadata
		parquet_scan parquet_schema pg_timezone_names pragma_collations pragma_database_size
		pragma_metadata_info pragma_platform pragma_show pragma_storage_info pragma_table_info
		pragma_user_agent pragma_version query_table range read_blob read_csv read_csv_auto read_duckdb
		read_json read_json_auto read_json_objects read_json_objects_auto read_ndjson read_ndjson_auto
		read_ndjson_objects read_parquet read_text repeat repeat_row seq_scan sniff_csv sql_auto_complete
		summary test_all_types test_vector_types unnest which_secret`)
	_, rows := queryAll(t, openEngine(t), "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN ('table', 'table_macro') ORDER BY 1")
	for _, r := range rows {
		name := r[0].(string)
		if !deniedFunctions[name] && !slices.Contains(harmless, name) {
			t.Errorf("table function %s is neither denied nor known to be harmless", name)
		}
	}
}

// TestLockedDownTemporaryFolder checks that a locked-down engine spills to
// a temporary folder of its own, allowed to DuckDB, which it removes on
// Close, rather than to DuckDB's default .tmp in the working folder.
func TestLockedDownTemporaryFolder(t *testing.T) {
	ctx := context.Background()
	t.Chdir(t.TempDir())
	e, err := Open(ctx, LockedDown)
	if err != nil {
		t.Fatal(err)
	}
	_, rows := queryAll(t, e, "SELECT count(*), current_setting('temp_directory') FROM (SELECT md5(range::varchar) AS s FROM range(100000) ORDER BY s)")
	tmp := e.tempDir
	if len(rows) != 1 || rows[0][0] != int64(100000) || tmp == "" || rows[0][1] != tmp {
		t.Errorf("rows and temporary folder: %v, want 100000 and %s", rows, tmp)
	}
	if info, err := os.Stat(tmp); err != nil || !info.IsDir() {
		t.Fatalf("temporary folder %s: %v", tmp, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary folder %s left behind: %v", tmp, err)
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		t.Errorf("DuckDB wrote into the working folder: %v", entries)
	}
}

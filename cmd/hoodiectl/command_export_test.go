package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/read/export"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// files lists the files under dir, relative to it, sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestExportHudiCopyAnswersQueries(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_complexkeygen_hivestyle")
	target := filepath.Join(t.TempDir(), "copy")
	r := hoodiectl(t, "", "export", dir, target, "--format", "hudi").mustSucceed(t)
	if want := "copied snapshot 20240418173235694 (3 base files"; !strings.HasPrefix(r.stdout, want) || r.stderr != "" {
		t.Errorf("stdout %q, stderr %q: want %q and no progress off a terminal", r.stdout, r.stderr, want)
	}
	for _, query := range []string{readmeQuery, "select _hoodie_record_key, _hoodie_file_name from <TABLE_NAME> order by 1"} {
		got := hoodiectl(t, "", "query", target, query).mustSucceed(t).stdout
		want := hoodiectl(t, "", "query", dir, query).mustSucceed(t).stdout
		if got != want {
			t.Errorf("%s on the copy:\n%s\nwant\n%s", query, got, want)
		}
	}
	got := hoodiectl(t, "", "timeline", target).mustSucceed(t).stdout
	if want := hoodiectl(t, "", "timeline", dir).mustSucceed(t).stdout; got != want {
		t.Errorf("copy's timeline:\n%s\nwant\n%s", got, want)
	}
}

func TestExportRecordFormats(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	tests := []struct {
		args  []string
		files []string
		out   string
	}{
		{[]string{"--format", "parquet"}, []string{
			"_SUCCESS",
			"part-00000-97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0.parquet",
			"part-00001-76e0556b-390d-4249-b7ad-9059e2bc2cbd-0.parquet",
			"part-00002-6db57019-98ee-480e-8eb1-fb3de48e1c24-0.parquet",
		}, "exported 4 records of snapshot 20240418172804498 (3 base files) to 3 parquet files"},
		{[]string{"--format", "json", "--partition-by", "isActive", "--as-of", "2024-04-18 17:28:03"}, []string{
			"_SUCCESS",
			"isActive=false/part-00001-76e0556b-390d-4249-b7ad-9059e2bc2cbd-0.json",
			"isActive=true/part-00000-97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0.json",
		}, "exported 3 records of snapshot 20240418172802262 (2 base files) to 2 json files"},
	}
	for _, tt := range tests {
		target := filepath.Join(t.TempDir(), "out")
		r := hoodiectl(t, "", append([]string{"export", dir, target}, tt.args...)...).mustSucceed(t)
		if !strings.HasPrefix(r.stdout, tt.out) {
			t.Errorf("%v: stdout %q, want %q", tt.args, r.stdout, tt.out)
		}
		if got := files(t, target); !slices.Equal(got, tt.files) {
			t.Errorf("%v: files %v, want %v", tt.args, got, tt.files)
		}
	}
}

func TestExportErrors(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	existing := t.TempDir()
	if err := os.WriteFile(filepath.Join(existing, "keep"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "out")
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"export", dir, existing, "--format", "parquet"}, exitError, []string{existing + " already exists", "nothing was written"}},
		{[]string{"export", dir, target, "--format", "json", "--partition-by", "nope"}, exitError, []string{`partition column "nope"`, "no such column", "its columns: id, name"}},
		{[]string{"export", dir, target, "--format", "json", "--partition-by", "mapField"}, exitError, []string{`partition column "mapField" is of type map`}},
		{[]string{"export", dir, target, "--format", "parquet", "--as-of", "last week"}, exitError, []string{"--as-of", `"last week"`}},
		{[]string{"export", filepath.Join(dir, "nope"), target, "--format", "parquet"}, exitError, []string{"not a Hudi table"}},
		{[]string{"export", dir, filepath.Join(dir, "out"), "--format", "hudi"}, exitError, []string{"inside the table's folder"}},
		{[]string{"export", dir, target}, exitUsage, []string{"needs --format parquet, json or hudi"}},
		{[]string{"export", dir, target, "--format", "orc"}, exitUsage, []string{`--format "orc"`}},
		{[]string{"export", dir, target, "--format", "hudi", "--partition-by", "id"}, exitUsage, []string{"--partition-by does not apply to --format hudi"}},
		{[]string{"export", dir, "--format", "hudi"}, exitUsage, []string{"expected TABLE and TARGET"}},
	}
	for _, tt := range tests {
		hoodiectl(t, "", tt.args...).mustFail(t, tt.code, tt.want...)
		if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("hoodiectl %s created the target", strings.Join(tt.args, " "))
		}
	}
	if got := files(t, existing); !slices.Equal(got, []string{"keep"}) {
		t.Errorf("the existing target was touched: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an export into the table's folder wrote there: %v", err)
	}
}

func TestExportFailureNamesTheIncompleteTarget(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	// The partition metadata, which a hudi export copies after the base
	// files, cannot be read.
	meta := filepath.Join(dir, ".hoodie_partition_metadata")
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), meta); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "out")
	hoodiectl(t, "", "export", dir, target, "--format", "hudi").mustFail(t, exitError,
		".hoodie_partition_metadata", target+" holds an incomplete export (no _SUCCESS): remove it")
	got := files(t, target)
	if len(got) != 1 || !strings.HasSuffix(got[0], ".parquet") {
		t.Errorf("target holds %v, want the base file copied before the failure and no %s", got, export.SuccessFile)
	}
}

// TestExportFilesShareTheTableSchema exports a table whose upsert added
// column tip and widened n from long to double in partition us only: the
// file of partition eu, which the upsert left alone, must be exported with
// tip and with n a double too, as `hoodiectl read` shows its record. A
// reader that takes one part file's schema for the whole dataset (Spark's
// Parquet reader by default) then sees every column.
func TestExportFilesShareTheTableSchema(t *testing.T) {
	dir := newTripsCLITable(t)
	insert := hoodiectl(t, `{"uuid":"a","ts":1,"n":1,"region":"eu"}`+"\n"+`{"uuid":"b","ts":1,"n":2,"region":"us"}`, "insert", dir).mustSucceed(t)
	hoodiectl(t, `{"uuid":"c","ts":1,"n":3.5,"region":"us","tip":1.0}`, "upsert", dir).mustSucceed(t)
	ctx := context.Background()
	t.Run("parquet", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "out")
		hoodiectl(t, "", "export", dir, target, "--format", "parquet").mustSucceed(t)
		fsys, err := storage.NewLocalFS(target)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]any{}
		names := parquetFiles(t, target)
		if len(names) != 2 {
			t.Fatalf("exported %v: want a file for each partition", names)
		}
		for _, name := range names {
			bf, err := basefile.Open(ctx, fsys, name)
			if err != nil {
				t.Fatal(err)
			}
			var columns []string
			for _, f := range bf.Schema().Fields {
				columns = append(columns, f.Name)
			}
			if want := []string{"uuid", "ts", "n", "region", "tip"}; !slices.Equal(columns, want) {
				t.Errorf("%s has columns %v, want the table's %v", name, columns, want)
			}
			if f, ok := bf.Schema().Field("n"); !ok || f.Type.Kind != basefile.KindDouble {
				t.Errorf("%s: column n is %+v, want a double", name, f.Type)
			}
			rows := bf.Rows(ctx)
			for {
				row, err := rows.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got[row[0].(string)] = row
			}
			rows.Close()
			bf.Close()
		}
		want := map[string][]any{
			"a": {"a", int64(1), 1.0, "eu", nil},
			"b": {"b", int64(1), 2.0, "us", nil},
			"c": {"c", int64(1), 3.5, "us", 1.0},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("exported records %v, want %v", got, want)
		}
	})
	t.Run("json", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "out")
		hoodiectl(t, "", "export", dir, target, "--format", "json").mustSucceed(t)
		var lines []string
		for _, name := range files(t, target) {
			if !strings.HasSuffix(name, ".json") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(target, name))
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Split(strings.TrimSpace(string(data)), "\n")...)
		}
		slices.Sort(lines)
		// As `hoodiectl read` prints the records, less the meta columns.
		want := []string{
			`{"uuid":"a","ts":1,"n":1,"region":"eu","tip":null}`,
			`{"uuid":"b","ts":1,"n":2,"region":"us","tip":null}`,
			`{"uuid":"c","ts":1,"n":3.5,"region":"us","tip":1}`,
		}
		if !slices.Equal(lines, want) {
			t.Errorf("exported lines:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})
	// As of the insert, the table had no column tip to partition by.
	target := filepath.Join(t.TempDir(), "out")
	hoodiectl(t, "", "export", dir, target, "--format", "json", "--as-of", lastLine(insert.stdout), "--partition-by", "tip").mustFail(t, exitError,
		`partition column "tip"`, "no such column", "its columns: uuid, ts, n, region")
}

// parquetFiles lists the Parquet files under dir, relative to it, sorted.
func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, name := range files(t, dir) {
		if strings.HasSuffix(name, ".parquet") {
			out = append(out, name)
		}
	}
	return out
}

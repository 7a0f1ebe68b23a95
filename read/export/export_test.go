package export

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/basefiletest"
	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
	"github.com/hoodie-dev/hoodie/timeline"
	"github.com/hoodie-dev/hoodie/write"
)

// The fixture tables with records, and the instant of their first commit.
var fixtureTables = []struct {
	name, firstCommit string
}{
	{"v6_nonpartitioned", "20240418173550988"},
	{"v6_simplekeygen_nonhivestyle", "20240418172802262"},
	{"v6_complexkeygen_hivestyle", "20240418173213674"},
}

func localFS(t testing.TB, dir string) *storage.LocalFS {
	t.Helper()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// mustExport exports the table at dir into a new target and returns the
// target's folder and the result.
func mustExport(t testing.TB, dir string, opts Options) (string, *Result) {
	t.Helper()
	target := filepath.Join(t.TempDir(), "export")
	res, err := Export(context.Background(), localFS(t, dir), localFS(t, target), opts)
	if err != nil {
		t.Fatalf("export %s as %s: %v", dir, opts.Format, err)
	}
	if _, err := os.Stat(filepath.Join(target, SuccessFile)); err != nil {
		t.Errorf("complete export has no %s: %v", SuccessFile, err)
	}
	return target, res
}

func loadView(t testing.TB, fsys storage.FS, asOf string) (*timeline.Timeline, *read.View) {
	t.Helper()
	ctx := context.Background()
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	v, err := read.LoadView(ctx, fsys, tl, asOf)
	if err != nil {
		t.Fatal(err)
	}
	return tl, v
}

// snapshot returns the records of the table's snapshot as of asOf by
// record key, with their meta values.
func snapshot(t testing.TB, fsys storage.FS, asOf string) map[string][]any {
	t.Helper()
	_, view := loadView(t, fsys, asOf)
	out := map[string][]any{}
	for _, s := range view.LatestSlices() {
		for _, row := range basefiletest.Rows(t, fsys, s.Path) {
			out[row[2].(string)] = row
		}
	}
	return out
}

func TestExportHudiCopiesTheSnapshot(t *testing.T) {
	for _, table := range fixtureTables {
		for _, asOf := range []string{"", table.firstCommit, "19700101000000000"} {
			t.Run(table.name+"@"+asOf, func(t *testing.T) {
				dir := fixtures.Unzip(t, table.name)
				src := localFS(t, dir)
				target, res := mustExport(t, dir, Options{Format: FormatHudi, AsOf: asOf})
				dst := localFS(t, target)

				srcTL, srcView := loadView(t, src, asOf)
				dstTL, dstView := loadView(t, dst, "")
				if res.Instant != srcView.AsOf() || res.BaseFiles != len(srcView.LatestSlices()) || res.Files != res.BaseFiles {
					t.Errorf("result %+v, want instant %q and %d files", res, srcView.AsOf(), len(srcView.LatestSlices()))
				}
				if dstView.AsOf() != srcView.AsOf() {
					t.Errorf("copy's latest instant %q, want %q", dstView.AsOf(), srcView.AsOf())
				}
				if got, want := dstView.LatestSlices(), srcView.LatestSlices(); !reflect.DeepEqual(got, want) {
					t.Errorf("copy's slices:\n%+v\nwant\n%+v", got, want)
				}
				if got, want := snapshot(t, dst, ""), snapshot(t, src, asOf); !reflect.DeepEqual(got, want) {
					t.Errorf("copy's snapshot differs:\n%v\nwant\n%v", got, want)
				}
				// The copy's timeline is the source's completed instants up to
				// the snapshot.
				var want []timeline.Instant
				if srcView.AsOf() != "" {
					want = srcTL.Completed().AtOrBefore(srcView.AsOf()).Instants()
				}
				if got := dstTL.Instants(); !slices.Equal(got, want) {
					t.Errorf("copy's timeline %v, want %v", got, want)
				}
				srcCfg, err := config.Load(context.Background(), src)
				if err != nil {
					t.Fatal(err)
				}
				dstCfg, err := config.Load(context.Background(), dst)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(dstCfg, srcCfg) {
					t.Errorf("copy's config %+v, want %+v", dstCfg, srcCfg)
				}
			})
		}
	}
}

func TestExportHudiLeavesOutPendingAndLaterInstants(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	// A failed write after the first commit: its instant and file must not
	// be copied, nor the second commit when exporting as of the first.
	pending := filepath.Join(dir, ".hoodie", "20240418173551000.inflight")
	if err := os.WriteFile(pending, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	leftover := "a079bdb3-731c-4894-b855-abfcd6921007-0_0-1-1_20240418173551000.parquet"
	data, err := os.ReadFile(filepath.Join(dir, "a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, leftover), data, 0o644); err != nil {
		t.Fatal(err)
	}
	target, _ := mustExport(t, dir, Options{Format: FormatHudi, AsOf: "20240418173551500"})
	var got []string
	err = filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(target, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".hoodie/20240418173550988.commit",
		".hoodie/20240418173550988.commit.requested",
		".hoodie/20240418173550988.inflight",
		".hoodie/hoodie.properties",
		".hoodie_partition_metadata",
		SuccessFile,
		"a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet",
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("exported files:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// withoutMeta returns the snapshot's records without their meta values, by
// keyOf.
func withoutMeta(records map[string][]any) map[string][]any {
	out := make(map[string][]any, len(records))
	for _, row := range records {
		out[keyOf(row[basefile.NumMetaFields:])] = row[basefile.NumMetaFields:]
	}
	return out
}

func TestExportParquet(t *testing.T) {
	for _, table := range fixtureTables {
		for _, asOf := range []string{"", table.firstCommit} {
			t.Run(table.name+"@"+asOf, func(t *testing.T) {
				dir := fixtures.Unzip(t, table.name)
				src := localFS(t, dir)
				target, res := mustExport(t, dir, Options{Format: FormatParquet, AsOf: asOf})
				want := withoutMeta(snapshot(t, src, asOf))
				got := map[string][]any{}
				files := exportedFiles(t, target, ".parquet")
				for _, name := range files {
					for _, row := range basefiletest.Rows(t, localFS(t, target), name) {
						got[keyOf(row)] = row
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("exported records:\n%v\nwant\n%v", got, want)
				}
				if res.Records != int64(len(want)) || res.Files != len(files) {
					t.Errorf("result %+v, want %d records in %d files", res, len(want), len(files))
				}
			})
		}
	}
}

// keyOf identifies a fixture record without meta values by its id, which
// is unique in every fixture table.
func keyOf(row []any) string {
	return strconv.Itoa(int(row[0].(int32)))
}

// exportedFiles lists the files with the extension under target, relative
// to it.
func exportedFiles(t testing.TB, target, ext string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ext) {
			rel, _ := filepath.Rel(target, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExportJSON(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	target, res := mustExport(t, dir, Options{Format: FormatJSON})
	files := exportedFiles(t, target, ".json")
	if len(files) != 1 || res.Records != 4 {
		t.Fatalf("exported %v, result %+v: want one file of 4 records", files, res)
	}
	data, err := os.ReadFile(filepath.Join(target, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	sort.Strings(lines)
	// Alice, after the second commit, as the contract prints values.
	want := `{"id":1,"name":"Alice","isActive":false,"byteField":1,"shortField":300,"intField":15000,` +
		`"longField":1234567890,"floatField":1,"doubleField":3.14159,"decimalField":"12345.67890",` +
		`"dateField":"2023-04-01","timestampField":"2023-04-01T17:01:00Z","binaryField":"YmluYXJ5IGRhdGE=",` +
		`"arrayField":[{"arr_struct_f1":"red","arr_struct_f2":100},{"arr_struct_f1":"blue","arr_struct_f2":200},{"arr_struct_f1":"green","arr_struct_f2":300}],` +
		`"mapField":{"key1":{"map_field_value_struct_f1":123.456,"map_field_value_struct_f2":true},"key2":{"map_field_value_struct_f1":789.012,"map_field_value_struct_f2":false}},` +
		`"structField":{"field1":"Alice","field2":30,"child_struct":{"child_field1":123.456,"child_field2":true}}}`
	if len(lines) != 4 || lines[0] != want {
		t.Errorf("first line:\n%s\nwant\n%s", lines[0], want)
	}
	for _, line := range lines {
		if strings.Contains(line, "_hoodie_") {
			t.Errorf("exported record has meta columns: %s", line)
		}
	}
}

func TestExportPartitionBy(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	for _, format := range []Format{FormatParquet, FormatJSON} {
		t.Run(string(format), func(t *testing.T) {
			target, _ := mustExport(t, dir, Options{Format: format, PartitionBy: "byteField"})
			got := map[string][]string{}
			for _, name := range exportedFiles(t, target, "."+string(format)) {
				folder := filepath.Dir(filepath.FromSlash(name))
				var ids []string
				if format == FormatParquet {
					for _, row := range basefiletest.Rows(t, localFS(t, target), name) {
						ids = append(ids, keyOf(row))
					}
				} else {
					data, err := os.ReadFile(filepath.Join(target, name))
					if err != nil {
						t.Fatal(err)
					}
					for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
						ids = append(ids, strings.TrimPrefix(line, `{"id":`)[:1])
						if strings.Contains(line, "byteField") {
							t.Errorf("%s: the partition column is in the file: %s", name, line)
						}
					}
				}
				got[folder] = append(got[folder], ids...)
			}
			for _, ids := range got {
				sort.Strings(ids)
			}
			want := map[string][]string{"byteField=10": {"1", "3"}, "byteField=20": {"2"}, "byteField=30": {"4"}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("records by folder %v, want %v", got, want)
			}
		})
	}
}

// newTable creates a non-partitioned table with record key id at a new
// folder and writes each batch of rows of schema as an upsert.
func newTable(t testing.TB, schema *basefile.Schema, batches ...[][]any) string {
	t.Helper()
	var inputs []*write.Input
	for _, rows := range batches {
		inputs = append(inputs, &write.Input{Name: "test", Schema: schema, Rows: rows})
	}
	return newTableOf(t, nil, inputs...)
}

// newTableOf creates a table with record key id, partitioned by the
// partition fields, at a new folder and writes each input as an upsert.
func newTableOf(t testing.TB, partitionFields []string, inputs ...*write.Input) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	fsys := localFS(t, dir)
	cfg, err := config.NewTable("people", []string{"id"}, "", partitionFields, false, config.MergeCommitTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(ctx, fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	w := write.NewWriter(fsys, write.Options{IndexDir: filepath.Join(t.TempDir(), "index"), TableID: dir})
	for _, in := range inputs {
		if _, err := w.Write(ctx, write.OpUpsert, in); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExportFilesHaveTheSnapshotSchema exports a table whose second write
// widened column x and added column tip, leaving the file group of
// partition eu as the first write left it: every exported file must have
// the snapshot's schema, its values widened, and null for tip where the
// base file lacks it, as a scan reads them.
func TestExportFilesHaveTheSnapshotSchema(t *testing.T) {
	str := basefile.Primitive(basefile.KindString)
	nullable := func(k basefile.Kind) *basefile.Type { return basefile.Nullable(basefile.Primitive(k)) }
	tests := []struct {
		from, to basefile.Kind
		old, new any // x written as from, then as to
		oldAs    any // old read as to
	}{
		{basefile.KindInt, basefile.KindLong, int32(7), int64(1 << 40), int64(7)},
		{basefile.KindInt, basefile.KindDouble, int32(-7), 2.25, float64(-7)},
		{basefile.KindLong, basefile.KindDouble, int64(1 << 40), 2.25, float64(1 << 40)},
		{basefile.KindFloat, basefile.KindDouble, float32(1.5), 2.25, float64(1.5)},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+" to "+tt.to.String(), func(t *testing.T) {
			first := &basefile.Schema{Name: "people_record", Fields: []basefile.Field{
				{Name: "id", Type: str}, {Name: "region", Type: str}, {Name: "x", Type: nullable(tt.from)},
			}}
			second := &basefile.Schema{Name: "people_record", Fields: []basefile.Field{
				{Name: "id", Type: str}, {Name: "region", Type: str}, {Name: "x", Type: nullable(tt.to)},
				{Name: "tip", Type: nullable(basefile.KindDouble)},
			}}
			dir := newTableOf(t, []string{"region"},
				&write.Input{Name: "first", Schema: first, Rows: [][]any{{"a", "eu", tt.old}, {"b", "us", tt.old}}},
				&write.Input{Name: "second", Schema: second, Rows: [][]any{{"c", "us", tt.new, 0.5}}})
			src := localFS(t, dir)
			tl, view := loadView(t, src, "")
			cfg, err := config.Load(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			schema, err := read.SnapshotSchema(context.Background(), cfg, tl, view)
			if err != nil {
				t.Fatal(err)
			}
			wantSchema, err := schema.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			target, _ := mustExport(t, dir, Options{Format: FormatParquet})
			dst := localFS(t, target)
			got := map[string][]any{}
			files := exportedFiles(t, target, ".parquet")
			if len(files) < 2 {
				t.Fatalf("exported %v: want a file per partition at least", files)
			}
			for _, name := range files {
				bf, err := basefile.Open(context.Background(), dst, name)
				if err != nil {
					t.Fatal(err)
				}
				fileSchema, err := bf.Schema().MarshalJSON()
				bf.Close()
				if err != nil {
					t.Fatal(err)
				}
				if string(fileSchema) != string(wantSchema) {
					t.Errorf("%s has schema\n%s\nwant the snapshot's\n%s", name, fileSchema, wantSchema)
				}
				for _, row := range basefiletest.Rows(t, dst, name) {
					got[row[0].(string)] = row
				}
			}
			want := map[string][]any{
				"a": {"a", "eu", tt.oldAs, nil},
				"b": {"b", "us", tt.oldAs, nil},
				"c": {"c", "us", tt.new, 0.5},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("exported records %v, want %v", got, want)
			}
		})
	}
}

func TestExportPartitionByEscapesValues(t *testing.T) {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	schema := &basefile.Schema{Name: "people_record", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Primitive(basefile.KindString)},
		{Name: "city", Type: str},
		{Name: "seen", Type: basefile.Nullable(basefile.TimestampMicrosType())},
	}}
	seen := time.Date(2024, 5, 6, 7, 8, 9, 500000000, time.UTC)
	dir := newTable(t, schema, [][]any{
		{"a", "São Paulo", seen}, {"b", "a/b", seen}, {"c", nil, nil}, {"d", "", seen}, {"e", "..", seen},
	})
	tests := []struct {
		column string
		want   map[string][]string
	}{
		{"city", map[string][]string{
			"city=São Paulo": {"a"}, "city=a%2Fb": {"b"}, "city=__HIVE_DEFAULT_PARTITION__": {"c", "d"}, "city=%2E%2E": {"e"},
		}},
		{"seen", map[string][]string{
			"seen=2024-05-06 07%3A08%3A09.5": {"a", "b", "d", "e"}, "seen=__HIVE_DEFAULT_PARTITION__": {"c"},
		}},
	}
	for _, tt := range tests {
		target, _ := mustExport(t, dir, Options{Format: FormatParquet, PartitionBy: tt.column})
		got := map[string][]string{}
		for _, name := range exportedFiles(t, target, ".parquet") {
			folder := filepath.ToSlash(filepath.Dir(filepath.FromSlash(name)))
			for _, row := range basefiletest.Rows(t, localFS(t, target), name) {
				got[folder] = append(got[folder], row[0].(string))
				if len(row) != 2 {
					t.Errorf("%s: row %v: want id and the other column", name, row)
				}
			}
		}
		for _, ids := range got {
			sort.Strings(ids)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("partition by %s: %v, want %v", tt.column, got, tt.want)
		}
	}
}

func TestExportEmptyTable(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_empty")
	for _, format := range Formats {
		target, res := mustExport(t, dir, Options{Format: format})
		if res.Instant != "" || res.Files != 0 || res.Records != 0 {
			t.Errorf("%s export of an empty table: %+v", format, res)
		}
		if format == FormatHudi {
			_, view := loadView(t, localFS(t, target), "")
			if len(view.LatestSlices()) != 0 {
				t.Errorf("copy of an empty table has slices %v", view.LatestSlices())
			}
		}
	}
}

func TestExportRefusesBadInput(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		name   string
		table  string
		opts   Options
		exists bool // the target exists, as an empty folder
		is     error
		want   string
	}{
		{name: "target exists", table: dir, opts: Options{Format: FormatParquet}, exists: true, is: ErrTargetExists},
		{name: "unknown format", table: dir, opts: Options{Format: "csv"}, want: `unknown format "csv"`},
		{name: "hudi partitioned", table: dir, opts: Options{Format: FormatHudi, PartitionBy: "id"}, want: "takes no partition column"},
		{name: "unknown column", table: dir, opts: Options{Format: FormatJSON, PartitionBy: "nope"}, is: ErrUnknownColumn, want: "its columns: id, name"},
		{name: "meta column", table: dir, opts: Options{Format: FormatJSON, PartitionBy: basefile.MetaRecordKey}, is: ErrUnknownColumn},
		{name: "struct column", table: dir, opts: Options{Format: FormatJSON, PartitionBy: "structField"}, want: "of type record"},
		{name: "binary column", table: dir, opts: Options{Format: FormatJSON, PartitionBy: "binaryField"}, want: "of type bytes"},
		{name: "bad instant", table: dir, opts: Options{Format: FormatParquet, AsOf: "2024"}, is: timeline.ErrInvalidInstantTime},
		{name: "not a table", table: t.TempDir(), opts: Options{Format: FormatParquet}, is: config.ErrNotATable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "export")
			if tt.exists {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Export(context.Background(), localFS(t, tt.table), localFS(t, target), tt.opts)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Export: %v, want an error (is %v) containing %q", err, tt.is, tt.want)
			}
			entries, statErr := os.ReadDir(target)
			switch {
			case tt.exists && (statErr != nil || len(entries) != 0):
				t.Errorf("the existing target was touched: %v %v", entries, statErr)
			case !tt.exists && !errors.Is(statErr, fs.ErrNotExist):
				t.Errorf("a refused export created the target: %v %v", entries, statErr)
			}
		})
	}
}

func TestExportReportsProgress(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	var got []Progress
	_, res := mustExport(t, dir, Options{Format: FormatJSON, Progress: func(p Progress) { got = append(got, p) }})
	if len(got) != 3 {
		t.Fatalf("progress %+v, want one report per base file", got)
	}
	for i, p := range got {
		if p.Done != i+1 || p.Total != 3 || (i > 0 && p.Bytes <= got[i-1].Bytes) {
			t.Errorf("progress report %d: %+v", i, p)
		}
	}
	if last := got[len(got)-1]; last.Bytes != res.Bytes {
		t.Errorf("last progress %+v, result %+v", last, res)
	}
}

func TestInterruptedExportHasNoSuccessFile(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_simplekeygen_nonhivestyle")
	for _, format := range Formats {
		t.Run(string(format)+"/cancelled", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			target := filepath.Join(t.TempDir(), "export")
			_, err := Export(ctx, localFS(t, dir), localFS(t, target), Options{Format: format, Progress: func(Progress) { cancel() }})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Export cancelled after a file: %v, want context.Canceled", err)
			}
			if _, err := os.Stat(filepath.Join(target, SuccessFile)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("cancelled export has %s: %v", SuccessFile, err)
			}
		})
		t.Run(string(format)+"/failures", func(t *testing.T) {
			counter := faultfs.New(localFS(t, filepath.Join(t.TempDir(), "export")), 0)
			if _, err := Export(context.Background(), localFS(t, dir), counter, Options{Format: format}); err != nil {
				t.Fatal(err)
			}
			steps := counter.Steps()
			if steps < 5 {
				t.Fatalf("an export took %d steps: %v", steps, counter.Trace())
			}
			for step := 1; step <= steps; step++ {
				target := filepath.Join(t.TempDir(), "export")
				failing := faultfs.New(localFS(t, target), step)
				_, err := Export(context.Background(), localFS(t, dir), failing, Options{Format: format})
				if !errors.Is(err, faultfs.ErrInjected) {
					t.Errorf("step %d of %d failed: Export returned %v", step, steps, err)
				}
				if _, err := os.Stat(filepath.Join(target, SuccessFile)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("export failing at step %d of %d (%v) has %s: %v", step, steps, failing.Trace()[step-1], SuccessFile, err)
				}
			}
		})
	}
}

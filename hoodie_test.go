package hoodie_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// TestTableOnMemFS runs a table on an in-memory file system through the
// facade: writes, scans that the record index answers, the index's
// verification and rebuild, and reopening; nothing lands in a local
// folder but the index's.
func TestTableOnMemFS(t *testing.T) {
	ctx := context.Background()
	const path = "mem:trips"
	mem := storage.NewMemFS()
	indexDir := t.TempDir()
	tt := newTripsTable(t, path, hoodie.WithFS(mem), hoodie.WithIndexDir(indexDir))
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a table on a MemFS wrote to the local folder %s: %v", path, err)
	}
	if entries, err := os.ReadDir(indexDir); err != nil || len(entries) == 0 {
		t.Fatalf("the record index folder holds %d files, %v", len(entries), err)
	}

	key := tt.live[len(tt.live)/2]
	where := "uuid = '" + key.UUID + "'"
	want := []string{key.UUID + "@" + key.PartitionPath}
	got, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: where})
	if !slices.Equal(got, want) || stats.KeysLocated != 1 {
		t.Errorf("got %v with %d keys located, want %v from the index", got, stats.KeysLocated, want)
	}
	if report, err := tt.t.VerifyIndex(ctx); err != nil || !report.OK() || report.Indexed != int64(len(tt.live)) {
		t.Errorf("verify: %+v, %v; want %d records indexed", report, err, len(tt.live))
	}
	if err := tt.t.RebuildIndex(ctx); err != nil {
		t.Fatal(err)
	}

	reopened, err := hoodie.Open(ctx, path, hoodie.WithFS(mem), hoodie.WithIndexDir(indexDir))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := scanKeys(t, reopened, hoodie.ScanOptions{})
	if len(all) != len(tt.live) {
		t.Errorf("the reopened table holds %d records, want %d", len(all), len(tt.live))
	}
	if got, stats := scanKeys(t, reopened, hoodie.ScanOptions{Where: where}); !slices.Equal(got, want) || stats.KeysLocated != 1 {
		t.Errorf("after the rebuild: got %v with %d keys located, want %v from the index", got, stats.KeysLocated, want)
	}
}

// TestLocalFSThroughWithFS checks that a local table reached through
// WithFS is the table its folder path opens: the same base path, and so
// the same record index, which answers its key lookups.
func TestLocalFSThroughWithFS(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := hoodie.Create(ctx, dir, triptable.Spec())
	if err != nil {
		t.Fatal(err)
	}
	ts := trips.NewGenerator(3).Inserts(20)
	if _, err := tbl.Write(ctx, write.OpInsert, &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}, hoodie.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	same, err := hoodie.Open(ctx, "trips", hoodie.WithFS(fsys))
	if err != nil {
		t.Fatal(err)
	}
	if same.Path() != tbl.Path() {
		t.Errorf("Path() = %q through WithFS, %q through the folder path", same.Path(), tbl.Path())
	}
	want := []string{ts[7].UUID + "@" + ts[7].PartitionPath}
	if got, stats := scanKeys(t, same, hoodie.ScanOptions{Where: "uuid = '" + ts[7].UUID + "'"}); !slices.Equal(got, want) || stats.KeysLocated != 1 {
		t.Errorf("got %v with %d keys located, want %v from the index", got, stats.KeysLocated, want)
	}
}

// TestNonLocalFSNeedsIndexDir checks that a table off the local file
// system is refused without a folder for its record index, which is local.
func TestNonLocalFSNeedsIndexDir(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemFS()
	if _, err := hoodie.Create(ctx, "mem:trips", triptable.Spec(), hoodie.WithFS(mem)); err == nil || !strings.Contains(err.Error(), "WithIndexDir") {
		t.Fatalf("Create without WithIndexDir: %v, want it refused", err)
	}
	if _, err := config.Load(ctx, mem); err == nil {
		t.Error("the refused Create created a table")
	}
	if _, err := hoodie.Create(ctx, "mem:trips", triptable.Spec(), hoodie.WithFS(mem), hoodie.WithIndexDir(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	if _, err := hoodie.Open(ctx, "mem:trips", hoodie.WithFS(mem)); err == nil || !strings.Contains(err.Error(), "WithIndexDir") {
		t.Errorf("Open without WithIndexDir: %v, want it refused", err)
	}
}

// TestCreateFromSpec checks that a TableSpec's named fields reach
// hoodie.properties, and that a spec that is no table creates nothing.
func TestCreateFromSpec(t *testing.T) {
	ctx := context.Background()
	schema := tripbench.Schema()
	spec := hoodie.TableSpec{
		Name:         "rides",
		RecordKey:    []string{trips.ColUUID, trips.ColRider},
		PartitionBy:  []string{trips.ColPartitionPath},
		HiveStyle:    true,
		MergeMode:    config.MergeCommitTime,
		Schema:       schema,
		NoMetaFields: true,
	}
	tbl, err := hoodie.Create(ctx, t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tbl.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "rides" || !slices.Equal(cfg.RecordKeyFields, spec.RecordKey) || cfg.PrecombineField != "" ||
		!slices.Equal(cfg.PartitionFields, spec.PartitionBy) || !cfg.HiveStylePartitioning ||
		cfg.MergeMode() != config.MergeCommitTime || cfg.PopulateMetaFields || cfg.KeyGeneratorClass != config.ComplexKeyGenerator {
		t.Errorf("hoodie.properties says %+v for %+v", cfg, spec)
	}
	got, err := tbl.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := fieldNames(got); !slices.Equal(names, fieldNames(schema)) {
		t.Errorf("the table's schema has columns %v, want %v", names, fieldNames(schema))
	}

	for _, tt := range []struct {
		bad       hoodie.TableSpec
		schemaBad bool
	}{
		{bad: hoodie.TableSpec{Name: "trips"}},
		{bad: hoodie.TableSpec{Name: "trips", RecordKey: []string{"uuid"}, MergeMode: config.MergeEventTime}},
		{bad: hoodie.TableSpec{Name: "trips", RecordKey: []string{"nope"}, Schema: schema}, schemaBad: true},
	} {
		bad := tt.bad
		dir := t.TempDir()
		_, err := hoodie.Create(ctx, dir, bad)
		var ce *hoodie.CreateError
		var se *hoodie.SpecError
		if !errors.As(err, &ce) || ce.Path != dir || !errors.As(err, &se) || se.Schema != tt.schemaBad {
			t.Errorf("Create(%+v) = %v, want a *CreateError at %s holding a *SpecError with Schema %v", bad, err, dir, tt.schemaBad)
		}
		if check := bad.Check(); check == nil || !errors.As(check, &se) || check.Error() != ce.Err.Error() {
			t.Errorf("Check(%+v) = %v, want the *SpecError Create gave: %v", bad, check, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("Create(%+v) failed and left %d files", bad, len(entries))
		}
	}

	// A table that is there already is no fault of the spec.
	_, err = hoodie.Create(ctx, tbl.Path(), spec)
	var ce *hoodie.CreateError
	var se *hoodie.SpecError
	if !errors.As(err, &ce) || errors.As(err, &se) || !errors.Is(err, config.ErrTableExists) {
		t.Errorf("Create over a table = %v, want a *CreateError for config.ErrTableExists, no *SpecError", err)
	}
}

// fieldNames returns the names of the fields of s.
func fieldNames(s *basefile.Schema) []string {
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	return names
}

// TestREADMEShowsTheExample checks that the README's "From Go" snippet is
// the body of Example, line for line, so that it compiles and runs.
func TestREADMEShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "From Go:\n\n```go\n")
	snippet, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal(`the README has no "From Go:" Go block`)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(example), "\nfunc Example() {\n")
	body, _, _ = strings.Cut(body, "\n}\n")
	if !strings.Contains(dedent(body), snippet) {
		t.Errorf("the README's snippet is not in Example:\n%s", snippet)
	}
}

// dedent removes one level of indentation from each line of s.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}

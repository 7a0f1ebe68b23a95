package read

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// The commits of the fixture tables (see shared/fixtures/hudi-v6/README.md).
var fixtureCommits = map[string][2]string{
	"v6_nonpartitioned":            {"20240418173550988", "20240418173551906"},
	"v6_simplekeygen_nonhivestyle": {"20240418172802262", "20240418172804498"},
	"v6_complexkeygen_hivestyle":   {"20240418173213674", "20240418173235694"},
}

// nonEmptyFixtures are the fixture tables with records.
var nonEmptyFixtures = []string{"v6_nonpartitioned", "v6_simplekeygen_nonhivestyle", "v6_complexkeygen_hivestyle"}

// scanDir opens a scan of the table in dir.
func scanDir(t testing.TB, dir string, opts Options) (*Scan, error) {
	t.Helper()
	ctx := context.Background()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	return NewScan(ctx, fsys, cfg, tl, opts)
}

// drain reads every record of s.
func drain(t testing.TB, s *Scan) [][]any {
	t.Helper()
	defer s.Close()
	var rows [][]any
	for {
		row, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
}

// scanRows scans the table in dir and returns its records sorted by their
// first column, and the scan's stats.
func scanRows(t testing.TB, dir string, opts Options) ([][]any, Stats) {
	t.Helper()
	s, err := scanDir(t, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	rows := drain(t, s)
	sortRows(rows)
	return rows, s.Stats()
}

// sortRows sorts rows by their first column, an int32, int64 or string.
func sortRows(rows [][]any) {
	sort.Slice(rows, func(i, j int) bool {
		switch a := rows[i][0].(type) {
		case int32:
			return a < rows[j][0].(int32)
		case int64:
			return a < rows[j][0].(int64)
		}
		return rows[i][0].(string) < rows[j][0].(string)
	})
}

// person is the part of a fixture record the README lists.
type person struct {
	id       int32
	name     string
	isActive bool
	field2   int32
}

// readmeColumns are the columns of a person.
var readmeColumns = []string{"id", "name", "isActive", "structField.field2"}

func persons(t *testing.T, rows [][]any) []person {
	t.Helper()
	out := make([]person, len(rows))
	for i, r := range rows {
		p, ok := person{}, true
		p.id, ok = r[0].(int32)
		p.name, _ = r[1].(string)
		p.isActive, _ = r[2].(bool)
		p.field2, _ = r[3].(int32)
		if !ok {
			t.Fatalf("row %v", r)
		}
		out[i] = p
	}
	return out
}

var (
	alice  = person{1, "Alice", false, 30}
	bob    = person{2, "Bob", false, 40}
	carol  = person{3, "Carol", true, 25}
	diana  = person{4, "Diana", true, 50}
	alice1 = person{1, "Alice", true, 30} // before commit 2
)

func TestFixtureSnapshotsAndTimeTravel(t *testing.T) {
	tests := []struct {
		table, asOf string
		want        []person
	}{
		{"v6_nonpartitioned", "", []person{alice, bob, carol, diana}},
		{"v6_nonpartitioned", "20240418173551905", []person{alice1, bob, carol}},
		{"v6_nonpartitioned", "19700101000000", nil},
		{"v6_nonpartitioned", "2024-04-18 17:35:51", []person{alice, bob, carol, diana}}, // ...51.999
		{"v6_nonpartitioned", "2024-04-18 17:35:51.000", []person{alice1, bob, carol}},
		{"v6_nonpartitioned", "2024-04-18", nil},
		{"v6_nonpartitioned", "000", nil},
		{"v6_simplekeygen_nonhivestyle", "", []person{alice, bob, carol, diana}},
		{"v6_simplekeygen_nonhivestyle", "20240418172802262", []person{alice1, bob, carol}},
		{"v6_complexkeygen_hivestyle", "", []person{alice, bob, carol, diana}},
		{"v6_complexkeygen_hivestyle", "20240418173213674", []person{alice1, bob, carol}},
		{"v6_complexkeygen_hivestyle", "20240418173235693", []person{alice1, bob, carol}},
		{"v6_empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.table+"@"+tt.asOf, func(t *testing.T) {
			dir := fixtures.Unzip(t, tt.table)
			if tt.table == "v6_empty" {
				rows, _ := scanRows(t, dir, Options{AsOf: tt.asOf})
				if len(rows) != 0 {
					t.Fatalf("rows %v", rows)
				}
				return
			}
			rows, _ := scanRows(t, dir, Options{AsOf: tt.asOf, Columns: readmeColumns})
			if got := persons(t, rows); !reflect.DeepEqual(got, tt.want) && (len(got) != 0 || len(tt.want) != 0) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestFixtureEmptyTableSchema(t *testing.T) {
	s, err := scanDir(t, fixtures.Unzip(t, "v6_empty"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for _, f := range s.Schema().Fields {
		got = append(got, f.Name+" "+typeName(f.Type))
	}
	want := []string{
		"_hoodie_commit_time string", "_hoodie_commit_seqno string", "_hoodie_record_key string",
		"_hoodie_partition_path string", "_hoodie_file_name string",
		"id int", "name string", "isActive boolean",
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema %q, want %q", got, want)
	}
	if _, err := s.NextBatch(context.Background()); err != io.EOF {
		t.Errorf("NextBatch: %v, want io.EOF", err)
	}
}

// TestFixtureMetaColumns checks keys, partitions and files of the latest
// snapshots against the README.
func TestFixtureMetaColumns(t *testing.T) {
	meta := []string{"id", basefile.MetaRecordKey, basefile.MetaPartitionPath, basefile.MetaFileName, "byteField", "shortField"}
	tests := []struct {
		table string
		want  [][]any
	}{
		{"v6_simplekeygen_nonhivestyle", [][]any{
			{int32(1), "1", "10", "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet", int32(10), int32(300)},
			{int32(2), "2", "20", "76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet", int32(20), int32(100)},
			{int32(3), "3", "10", "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet", int32(10), int32(200)},
			{int32(4), "4", "30", "6db57019-98ee-480e-8eb1-fb3de48e1c24-0_1-119-167_20240418172804498.parquet", int32(30), int32(500)},
		}},
		{"v6_complexkeygen_hivestyle", [][]any{
			{int32(1), "id:1,name:Alice", "byteField=10/shortField=300", "a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet", int32(10), int32(300)},
			{int32(2), "id:2,name:Bob", "byteField=20/shortField=100", "bb7c3a45-387f-490d-aab2-981c3f1a8ada-0_0-140-198_20240418173213674.parquet", int32(20), int32(100)},
			{int32(3), "id:3,name:Carol", "byteField=10/shortField=300", "a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet", int32(10), int32(300)},
			{int32(4), "id:4,name:Diana", "byteField=30/shortField=100", "4668e35e-bff8-4be9-9ff2-e7fb17ecb1a7-0_1-161-224_20240418173235694.parquet", int32(30), int32(100)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			rows, _ := scanRows(t, fixtures.Unzip(t, tt.table), Options{Columns: meta})
			if !reflect.DeepEqual(rows, tt.want) {
				t.Errorf("got  %v\nwant %v", rows, tt.want)
			}
		})
	}
}

func TestFixtureFilters(t *testing.T) {
	tests := []struct {
		name, table, where string
		want               []person
		filesRead, skipped int
	}{
		{"partition 10", "v6_simplekeygen_nonhivestyle", "byteField = 10", []person{alice, carol}, 1, 2},
		{"partition path 10", "v6_simplekeygen_nonhivestyle", "_hoodie_partition_path = '10'", []person{alice, carol}, 1, 2},
		{"README pruning", "v6_complexkeygen_hivestyle", "byteField >= 10 AND byteField < 20 AND shortField != 100", []person{alice, carol}, 1, 2},
		{"not in partitions", "v6_complexkeygen_hivestyle", "NOT (byteField IN (20, 30))", []person{alice, carol}, 1, 2},
		{"complex key", "v6_complexkeygen_hivestyle", "_hoodie_record_key = 'id:2,name:Bob'", []person{bob}, 1, 2},
		{"record key", "v6_simplekeygen_nonhivestyle", "_hoodie_record_key IN ('3', '4')", []person{carol, diana}, 2, 1},
		{"nested", "v6_nonpartitioned", "structField.child_struct.child_field2 AND NOT isActive", []person{alice}, 1, 0},
		{"date", "v6_nonpartitioned", "dateField >= '2023-04-03'", []person{carol, diana}, 1, 0},
		{"timestamp", "v6_nonpartitioned", "timestampField < '2023-04-02T18:02:00.000001Z'", []person{alice, bob}, 1, 0},
		{"timestamp space", "v6_nonpartitioned", "timestampField = '2023-04-03 19:03:00'", []person{carol}, 1, 0},
		{"decimal", "v6_nonpartitioned", "decimalField >= 12345.6789 AND decimalField <= 65432.12345", []person{alice, diana}, 1, 0},
		{"float", "v6_nonpartitioned", "floatField = 2 OR doubleField < 1.5", []person{bob, carol}, 1, 0},
		{"long", "v6_nonpartitioned", "longField > 1234567890.5", []person{carol, bob}, 1, 0},
		{"string range", "v6_nonpartitioned", "name > 'Bob' AND name <= 'Carol'", []person{carol}, 1, 0},
		{"binary", "v6_nonpartitioned", "binaryField = 'binary data'", []person{alice}, 1, 0},
		{"is null", "v6_nonpartitioned", "name IS NULL OR id IS NULL", nil, 0, 1},
		{"nested is null", "v6_nonpartitioned", "mapField IS NULL", nil, 1, 0},
		{"is not null", "v6_nonpartitioned", "arrayField IS NOT NULL AND id <> 3", []person{alice, bob, diana}, 1, 0},
		{"stats rule out", "v6_nonpartitioned", "id > 4", nil, 0, 1},
		{"never equal", "v6_nonpartitioned", "id = 1.5", nil, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, stats := scanRows(t, fixtures.Unzip(t, tt.table), Options{Columns: readmeColumns, Where: tt.where})
			got := persons(t, rows)
			want := slices.Clone(tt.want)
			slices.SortFunc(want, func(a, b person) int { return int(a.id - b.id) })
			if !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if stats.FilesRead != tt.filesRead || stats.FilesSkipped != tt.skipped {
				t.Errorf("files read %d, skipped %d; want %d, %d (%+v)", stats.FilesRead, stats.FilesSkipped, tt.filesRead, tt.skipped, stats)
			}
		})
	}
}

// TestFixtureReadmeQuery runs the README's query without its "id % 2 = 0",
// which the filter language lacks, on every non-empty table.
func TestFixtureReadmeQuery(t *testing.T) {
	for _, table := range nonEmptyFixtures {
		t.Run(table, func(t *testing.T) {
			rows, _ := scanRows(t, fixtures.Unzip(t, table), Options{
				Columns: []string{"name", "id", "isActive", "structField.field2"},
				Where:   "name != 'Alice' AND structField.field2 > 30",
			})
			want := [][]any{{"Bob", int32(2), false, int32(40)}, {"Diana", int32(4), true, int32(50)}}
			if !reflect.DeepEqual(rows, want) {
				t.Errorf("got %v, want %v", rows, want)
			}
		})
	}
}

func TestFixtureIncremental(t *testing.T) {
	for _, table := range nonEmptyFixtures {
		c := fixtureCommits[table]
		tests := []struct {
			begin, end string
			want       []person
		}{
			{c[0], c[1], []person{alice, diana}},
			{c[0], "", []person{alice, diana}},
			{"000", c[0], []person{alice1, bob, carol}},
			{"000", "", []person{alice, bob, carol, diana}},
			{c[1], "", nil},
			{c[0], c[0], nil},
			{"19700101000000", "2024-04-18", nil},
		}
		for _, tt := range tests {
			t.Run(table+"/"+tt.begin+".."+tt.end, func(t *testing.T) {
				rows, stats := scanRows(t, fixtures.Unzip(t, table), Options{Begin: tt.begin, End: tt.end, Columns: readmeColumns})
				if got := persons(t, rows); !slices.Equal(got, tt.want) {
					t.Errorf("got %v\nwant %v", got, tt.want)
				}
				if tt.begin == c[1] && stats.FilesRead != 0 {
					t.Errorf("read %d files after the last commit", stats.FilesRead)
				}
			})
		}
	}
}

// TestFixtureAllTypes checks every value of a record with every type.
func TestFixtureAllTypes(t *testing.T) {
	for _, table := range nonEmptyFixtures {
		t.Run(table, func(t *testing.T) {
			rows, _ := scanRows(t, fixtures.Unzip(t, table), Options{
				Columns: []string{"id", "name", "isActive", "intField", "longField", "floatField", "doubleField",
					"decimalField", "dateField", "timestampField", "binaryField", "arrayField", "mapField", "structField"},
			})
			want := []any{
				int32(1), "Alice", false, int32(15000), int64(1234567890), float32(1), 3.14159,
				basefile.NewDecimal(big.NewInt(1234567890), 5), basefile.Date(19448),
				time.Date(2023, 4, 1, 17, 1, 0, 0, time.UTC), []byte("binary data"),
				[]any{[]any{"red", int32(100)}, []any{"blue", int32(200)}, []any{"green", int32(300)}},
				map[string]any{"key1": []any{123.456, true}, "key2": []any{789.012, false}},
				[]any{"Alice", int32(30), []any{123.456, true}},
			}
			if !reflect.DeepEqual(rows[0], want) {
				t.Errorf("got  %#v\nwant %#v", rows[0], want)
			}
		})
	}
}

func TestFixtureProjectionSchema(t *testing.T) {
	s, err := scanDir(t, fixtures.Unzip(t, "v6_nonpartitioned"), Options{
		Columns: []string{"structField.child_struct.child_field1", basefile.MetaCommitTime, "mapField", "structField.child_struct"},
		Where:   "id = 4",
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Schema().Fields {
		names = append(names, f.Name+" "+typeName(f.Type))
	}
	want := []string{"structField.child_struct.child_field1 double", "_hoodie_commit_time string", "mapField map", "structField.child_struct record child_struct"}
	if !slices.Equal(names, want) {
		t.Errorf("schema %q, want %q", names, want)
	}
	rows := drain(t, s)
	wantRows := [][]any{{987.654, "20240418173551906", map[string]any{"key7": []any{456.789, true}, "key8": []any{123.456, false}}, []any{987.654, true}}}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("rows %v, want %v", rows, wantRows)
	}
}

func TestScanErrors(t *testing.T) {
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	tests := []struct {
		name string
		opts Options
		want string
		is   any // an error type errors.As must find
	}{
		{"unknown column", Options{Columns: []string{"id", "nope"}}, `unknown column "nope": the table's columns are _hoodie_commit_time,`, new(*UnknownColumnError)},
		{"unknown field", Options{Columns: []string{"structField.nope"}}, `unknown column "structField.nope": "structField" has no field "nope"; its fields are field1, field2, child_struct`, new(*UnknownColumnError)},
		{"field of an array", Options{Columns: []string{"arrayField.arr_struct_f1"}}, `"arrayField" is an array, not a record`, new(*UnknownColumnError)},
		{"unknown filter column", Options{Where: "id = 1 OR bogus > 2"}, `unknown column "bogus"`, new(*UnknownColumnError)},
		{"twice", Options{Columns: []string{"id", "name", "id"}}, `column "id" is listed twice`, nil},
		{"syntax", Options{Where: "id % 2 = 0"}, `filter "id % 2 = 0": position 4: expected a comparison operator, IN, IS, AND, OR or the end of the filter after column "id", found "%"`, new(*SyntaxError)},
		{"type", Options{Where: "name = 5"}, `filter: column "name": it is a string: compare it with a 'string', not 5`, new(*FilterError)},
		{"date", Options{Where: "dateField > '2023-13-01'"}, `compare it with a 'YYYY-MM-DD' string`, new(*FilterError)},
		{"record", Options{Where: "structField = 1"}, `filter: column "structField": it is a record structField, which cannot be compared`, new(*FilterError)},
		{"bad instant", Options{AsOf: "2024-02-30"}, `as-of: instant "2024-02-30": invalid instant time`, nil},
		{"bad begin", Options{Begin: "yesterday"}, `begin: instant "yesterday"`, nil},
		{"end alone", Options{End: "20240418173551906"}, "an end instant needs a begin instant", nil},
		{"as of and begin", Options{AsOf: "20240418173551906", Begin: "000"}, "cannot also be as of", nil},
		{"begin after end", Options{Begin: "20240418173551906", End: "20240418173550988"}, "begin instant 20240418173551906 is after end instant 20240418173550988", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scanDir(t, dir, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.As(err, tt.is) {
				t.Errorf("error %T is not %T", err, tt.is)
			}
		})
	}
}

// TestCorruptBaseFile damages the latest base file of a table: reading it
// fails with an error naming the file, and never panics.
func TestCorruptBaseFile(t *testing.T) {
	const base = "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet"
	tests := []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"truncated", func(data []byte) []byte { return data[:len(data)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"garbled pages", func(data []byte) []byte {
			// The pages lie between the leading magic and the footer, which
			// ends with its length and the trailing magic.
			footer := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			for i := 4; i < len(data)-8-footer; i += 3 {
				data[i] ^= 0x5a
			}
			return data
		}},
		{"garbled values", func(data []byte) []byte {
			footer := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			for i := 4; i < len(data)-8-footer; i += 97 {
				data[i] ^= 0xff
			}
			return data
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtures.Unzip(t, "v6_nonpartitioned")
			file := filepath.Join(dir, base)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, tt.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := scanDir(t, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for err == nil {
				_, err = s.NextBatch(context.Background())
			}
			if err == io.EOF || !strings.Contains(err.Error(), base) {
				t.Fatalf("error %v, want one naming %s", err, base)
			}
			t.Log(err)
			if _, again := s.NextBatch(context.Background()); again == nil || again == io.EOF {
				t.Errorf("after an error NextBatch returned %v", again)
			}
		})
	}
}

// TestCorruptPagesNeverPanic flips random bytes of a base file's pages:
// each scan ends in records or an error naming the file, never a panic.
func TestCorruptPagesNeverPanic(t *testing.T) {
	const base = "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet"
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	file := filepath.Join(dir, base)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pages := len(orig) - 8 - int(binary.LittleEndian.Uint32(orig[len(orig)-8:]))
	rng := rand.New(rand.NewPCG(3, 4))
	failed := 0
	for range 300 {
		data := slices.Clone(orig)
		for range 1 + rng.IntN(4) {
			data[4+rng.IntN(pages-4)] ^= byte(1 + rng.IntN(255))
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := scanDir(t, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = s.NextBatch(context.Background())
		}
		if err != io.EOF {
			failed++
			if !strings.Contains(err.Error(), base) {
				t.Fatalf("error %v does not name %s", err, base)
			}
		}
	}
	t.Logf("%d of 300 damaged files failed to read", failed)
}

// TestReadSlice reads every file slice of a snapshot at once, each in a
// goroutine of its own, and gets the records a scan returns, each slice's
// from its own file.
func TestReadSlice(t *testing.T) {
	for _, table := range nonEmptyFixtures {
		for _, asOf := range []string{"", fixtureCommits[table][0]} {
			t.Run(table+"@"+asOf, func(t *testing.T) {
				dir := fixtures.Unzip(t, table)
				opts := Options{AsOf: asOf, Columns: append(slices.Clone(readmeColumns), basefile.MetaFileName), BatchSize: 1}
				want, _ := scanRows(t, dir, opts)
				s, err := scanDir(t, dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				files := s.View().LatestSlices()
				bySlice := make([][][]any, len(files))
				errs := make([]error, len(files))
				var wg sync.WaitGroup
				for i, slice := range files {
					wg.Go(func() {
						errs[i] = s.ReadSlice(context.Background(), slice, func(b *Batch) error {
							for r := range b.Len() {
								bySlice[i] = append(bySlice[i], b.Row(r))
							}
							return nil
						})
					})
				}
				wg.Wait()
				var got [][]any
				for i, rows := range bySlice {
					if errs[i] != nil {
						t.Fatalf("ReadSlice %s: %v", files[i].Path, errs[i])
					}
					for _, row := range rows {
						if file := row[len(row)-1]; file != filepath.Base(files[i].Path) {
							t.Errorf("ReadSlice %s returned a record of %v", files[i].Path, file)
						}
					}
					got = append(got, rows...)
				}
				sortRows(got)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ReadSlice of every slice:\n%v\nwant the scan's\n%v", got, want)
				}
				// A slice of no partition of the snapshot is refused.
				err = s.ReadSlice(context.Background(), FileSlice{Partition: "nope", Path: "nope/f.parquet"}, func(*Batch) error { return nil })
				if err == nil || !strings.Contains(err.Error(), "not a file of the scan's snapshot") {
					t.Errorf("ReadSlice of a foreign slice: %v", err)
				}
			})
		}
	}
}

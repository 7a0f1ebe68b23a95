package read

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// rawTable is a table whose base files and commits a test writes itself,
// for layouts the write package does not make: small row groups, files
// without meta fields, dropped partition columns, the default partition.
type rawTable struct {
	t    *testing.T
	dir  string
	fsys storage.FS
	cfg  *config.Table
	gen  *timeline.Generator
}

func newRawTable(t *testing.T, keys, partitions []string, hiveStyle bool, edit func(*config.Table)) *rawTable {
	t.Helper()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("raw", keys, "", partitions, hiveStyle, "")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	if err := config.CreateTable(context.Background(), fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	return &rawTable{t: t, dir: dir, fsys: fsys, cfg: cfg, gen: timeline.NewGenerator(time.Now)}
}

// rawFile is a base file of a commit.
type rawFile struct {
	partition string
	fileID    string           // "" for a new file group
	rows      [][]any          // values of the data columns
	noMeta    bool             // no meta columns in the file
	schema    *basefile.Schema // the file's schema, if not the commit's
	opts      basefile.Options
	// parquet, if not nil, writes the whole file instead.
	parquet func(io.Writer) error
}

// commit writes files and commits them with schema as the table schema.
// It returns the instant.
func (r *rawTable) commit(schema *basefile.Schema, files ...rawFile) string {
	r.t.Helper()
	ctx := context.Background()
	req, err := timeline.CreateRequested(ctx, r.fsys, r.gen, timeline.ActionCommit, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	inflight, err := timeline.TransitionToInflight(ctx, r.fsys, req, []byte("{}"))
	if err != nil {
		r.t.Fatal(err)
	}
	schemaJSON, err := schema.MarshalJSON()
	if err != nil {
		r.t.Fatal(err)
	}
	meta := &timeline.CommitMetadata{OperationType: timeline.OperationUpsert, ExtraMetadata: map[string]string{timeline.SchemaKey: string(schemaJSON)}}
	for _, f := range files {
		if err := config.EnsurePartitionMetadata(ctx, r.fsys, f.partition, req.Time, time.Now()); err != nil {
			r.t.Fatal(err)
		}
		fileID := f.fileID
		if fileID == "" {
			fileID = basefile.NewFileID()
		}
		p := path.Join(f.partition, basefile.Name{FileID: fileID, WriteToken: "0-1-1", InstantTime: req.Time}.String())
		fs := f.schema
		if fs == nil {
			fs = schema
		}
		switch {
		case f.parquet != nil:
			out, err := r.fsys.Create(ctx, p)
			if err != nil {
				r.t.Fatal(err)
			}
			if err := errors.Join(f.parquet(out), out.Close()); err != nil {
				r.t.Fatal(err)
			}
		case f.noMeta:
			r.writePlain(p, fs, f.rows)
		default:
			r.writeBaseFile(p, fs, f, req.Time)
		}
		meta.AddWriteStat(f.partition, timeline.WriteStat{FileID: fileID, Path: p, PrevCommit: "null", NumWrites: int64(len(f.rows))})
	}
	data, err := json.Marshal(meta)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := timeline.Complete(ctx, r.fsys, inflight, data); err != nil {
		r.t.Fatal(err)
	}
	return req.Time
}

// writeBaseFile writes a base file with meta fields, the record key being
// the first key column's value.
func (r *rawTable) writeBaseFile(p string, schema *basefile.Schema, f rawFile, instant string) {
	r.t.Helper()
	w, err := basefile.NewWriter(context.Background(), r.fsys, p, schema, f.opts)
	if err != nil {
		r.t.Fatal(err)
	}
	key := schema.FieldIndex(r.cfg.RecordKeyFields[0])
	for i, row := range f.rows {
		values := []any{instant, fmt.Sprintf("%s_0_%d", instant, i), fmt.Sprint(row[key]), f.partition, path.Base(p)}
		if err := w.WriteRow(append(values, row...)); err != nil {
			r.t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
}

// writePlain writes a Parquet file of schema, without meta fields.
func (r *rawTable) writePlain(p string, schema *basefile.Schema, rows [][]any) {
	r.t.Helper()
	out, err := r.fsys.Create(context.Background(), p)
	if err != nil {
		r.t.Fatal(err)
	}
	ps, err := schema.ParquetSchema()
	if err != nil {
		r.t.Fatal(err)
	}
	avro, err := schema.MarshalJSON()
	if err != nil {
		r.t.Fatal(err)
	}
	w := parquet.NewWriter(out, ps, parquet.KeyValueMetadata(basefile.FooterAvroSchema, string(avro)))
	for _, row := range rows {
		pr, err := schema.AppendRow(nil, row)
		if err != nil {
			r.t.Fatal(err)
		}
		if _, err := w.WriteRows([]parquet.Row{pr}); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		r.t.Fatal(err)
	}
}

// scan reads the table.
func (r *rawTable) scan(opts Options) ([][]any, Stats) {
	r.t.Helper()
	return scanRows(r.t, r.dir, opts)
}

func field(name string, t *basefile.Type) basefile.Field { return basefile.Field{Name: name, Type: t} }

func nullable(k basefile.Kind) *basefile.Type { return basefile.Nullable(basefile.Primitive(k)) }

// allTypesSchema has a column of every type the value model knows,
// nested ones included.
func allTypesSchema() *basefile.Schema {
	point := basefile.RecordType("point", field("x", nullable(basefile.KindInt)), field("y", basefile.Primitive(basefile.KindString)))
	rec := basefile.RecordType("rec",
		field("a", nullable(basefile.KindInt)),
		field("inner", basefile.Nullable(basefile.ArrayType(point))),
		field("m", basefile.Nullable(basefile.MapType(basefile.ArrayType(basefile.Primitive(basefile.KindInt))))),
	)
	return &basefile.Schema{Name: "raw_record", Namespace: "hoodie.raw", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindInt)),
		field("b", nullable(basefile.KindBoolean)),
		field("i", nullable(basefile.KindInt)),
		field("l", nullable(basefile.KindLong)),
		field("f", nullable(basefile.KindFloat)),
		field("d", nullable(basefile.KindDouble)),
		field("s", nullable(basefile.KindString)),
		field("e", basefile.Nullable(basefile.EnumType("color", "red", "green", "blue"))),
		field("u", basefile.Nullable(basefile.UUIDType())),
		field("by", nullable(basefile.KindBytes)),
		field("fx", basefile.Nullable(basefile.FixedType("four", 4))),
		field("dec", basefile.Nullable(basefile.DecimalType(20, 3))),
		field("decf", basefile.Nullable(basefile.FixedDecimalType("fixed", 5, 10, 2))),
		field("dt", basefile.Nullable(basefile.DateType())),
		field("tsm", basefile.Nullable(basefile.TimestampMillisType())),
		field("tsu", basefile.Nullable(basefile.TimestampMicrosType())),
		field("tags", basefile.Nullable(basefile.ArrayType(nullable(basefile.KindString)))),
		field("nums", basefile.ArrayType(basefile.Primitive(basefile.KindInt))),
		field("attrs", basefile.Nullable(basefile.MapType(nullable(basefile.KindLong)))),
		field("rec", basefile.Nullable(rec)),
		field("grid", basefile.Nullable(basefile.ArrayType(basefile.ArrayType(nullable(basefile.KindInt))))),
	}}
}

// randomValue returns a random value of type t in the value model.
func randomValue(r *rand.Rand, t *basefile.Type) any {
	if t.Nullable && r.IntN(6) == 0 {
		return nil
	}
	return randomPresent(r, t)
}

// randomPresent returns a random value of type t other than null. Array
// elements are never null: the two-level lists of parquet-avro cannot hold
// null elements.
func randomPresent(r *rand.Rand, t *basefile.Type) any {
	switch {
	case t.Logical == basefile.LogicalDecimal:
		limit := int64(1e9)
		return basefile.NewDecimalInt64(r.Int64N(2*limit)-limit, t.Scale)
	case t.Logical == basefile.LogicalDate:
		return basefile.Date(r.Int32N(40000) - 20000)
	case t.Logical == basefile.LogicalTimestampMillis:
		return time.UnixMilli(r.Int64N(4e12) - 2e12).UTC()
	case t.Logical == basefile.LogicalTimestampMicros:
		return time.UnixMicro(r.Int64N(4e15) - 2e15).UTC()
	case t.Logical == basefile.LogicalUUID:
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), r.Uint64()&0xffffffffffff)
	}
	switch t.Kind {
	case basefile.KindBoolean:
		return r.IntN(2) == 0
	case basefile.KindInt:
		return r.Int32() - 1<<30
	case basefile.KindLong:
		return r.Int64() - 1<<62
	case basefile.KindFloat:
		return float32(r.NormFloat64())
	case basefile.KindDouble:
		return r.NormFloat64() * 1e6
	case basefile.KindString:
		return strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(4))
	case basefile.KindEnum:
		return t.Symbols[r.IntN(len(t.Symbols))]
	case basefile.KindBytes:
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case basefile.KindFixed:
		b := make([]byte, t.Size)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case basefile.KindArray:
		list := []any{}
		for range r.IntN(4) {
			list = append(list, randomPresent(r, t.Items))
		}
		return list
	case basefile.KindMap:
		m := map[string]any{}
		for i := range r.IntN(4) {
			m[fmt.Sprint("k", i)] = randomValue(r, t.Values)
		}
		return m
	}
	rec := make([]any, len(t.Fields))
	for i, f := range t.Fields {
		rec[i] = randomValue(r, f.Type)
	}
	return rec
}

// allTypesTable writes 700 random records of allTypesSchema, with ids 0
// to 699 in order and random values from seed, into one base file written
// with opts.
func allTypesTable(t *testing.T, seed uint64, opts basefile.Options) (*basefile.Schema, [][]any, *rawTable) {
	t.Helper()
	schema := allTypesSchema()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var rows [][]any
	for id := range 700 {
		row := []any{int32(id)}
		for _, f := range schema.Fields[1:] {
			row = append(row, randomValue(rng, f.Type))
		}
		rows = append(rows, row)
	}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	tbl.commit(schema, rawFile{rows: rows, opts: opts})
	return schema, rows, tbl
}

// TestScanRoundTrip writes random records of every type into a file of
// many small pages and row groups and reads them back, whole and in
// projections, with odd batch sizes.
func TestScanRoundTrip(t *testing.T) {
	schema, rows, tbl := allTypesTable(t, 1, basefile.Options{BlockSize: 8 << 10, PageSize: 512, Compression: "snappy"})

	var names []string
	for _, f := range schema.Fields {
		names = append(names, f.Name)
	}
	for _, batch := range []int{1, 7, 64, 1000} {
		got, stats := tbl.scan(Options{Columns: names, BatchSize: batch})
		if stats.RowGroupsRead < 3 {
			t.Fatalf("only %d row groups: the test wants several", stats.RowGroupsRead)
		}
		if len(got) != len(rows) {
			t.Fatalf("batch %d: %d rows, want %d", batch, len(got), len(rows))
		}
		for i := range rows {
			if !reflect.DeepEqual(got[i], rows[i]) {
				t.Fatalf("batch %d: row %d\n got %#v\nwant %#v", batch, i, got[i], rows[i])
			}
		}
	}
	// Nested projections.
	recIdx := schema.FieldIndex("rec")
	got, _ := tbl.scan(Options{Columns: []string{"id", "rec.inner", "rec.a", "rec.m"}, BatchSize: 13})
	for i, row := range rows {
		want := []any{row[0], nil, nil, nil}
		if rec, ok := row[recIdx].([]any); ok {
			want = []any{row[0], rec[1], rec[0], rec[2]}
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d: got %#v, want %#v", i, got[i], want)
		}
	}
}

// TestRowGroupPruning checks that statistics rule out row groups, and that
// what is left is filtered exactly.
func TestRowGroupPruning(t *testing.T) {
	schema := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindLong)),
		field("score", nullable(basefile.KindDouble)),
		field("day", basefile.Nullable(basefile.DateType())),
		field("tag", nullable(basefile.KindString)),
	}}
	var rows [][]any
	for id := range 640 {
		var score any = float64(id) / 10
		if id >= 600 {
			score = nil // the last row groups hold the nulls
		}
		rows = append(rows, []any{int64(id), score, basefile.Date(19000 + id/64), fmt.Sprintf("t%03d", id)})
	}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	// A row group per 64 rows: the writer checks the size every 64 rows.
	tbl.commit(schema, rawFile{rows: rows, opts: basefile.Options{BlockSize: 1}})
	_, all := tbl.scan(Options{})
	if all.RowGroupsRead != 10 {
		t.Fatalf("%d row groups, want 10", all.RowGroupsRead)
	}
	tests := []struct {
		where      string
		count      int
		read, skip int
	}{
		{"id >= 100 AND id < 200", 100, 3, 7},
		{"id = 639", 1, 1, 9},
		{"id IN (0, 5, 700)", 2, 1, 9},
		{"id NOT IN (1, 2)", 638, 10, 0},
		{"score IS NULL", 40, 1, 9},
		{"score IS NOT NULL AND score > 59.5", 4, 1, 9},
		{"NOT (id <= 635)", 4, 1, 9},
		{"NOT (score <= 59.5)", 4, 10, 0}, // a NaN, which statistics leave out, is not <= 59.5
		{"day = '2022-01-08'", 64, 1, 9},
		{"day > '2022-01-13' OR tag = 't000'", 64*4 + 1, 5, 5},
		{"tag >= 't630'", 10, 1, 9},
		{"id > 1000 OR score = 1.25", 0, 1, 9},
	}
	for _, tt := range tests {
		got, stats := tbl.scan(Options{Where: tt.where, Columns: []string{"id"}})
		if len(got) != tt.count || stats.RowGroupsRead != tt.read || stats.RowGroupsSkipped != tt.skip {
			t.Errorf("%s: %d rows, %d row groups read, %d skipped; want %d, %d, %d", tt.where, len(got), stats.RowGroupsRead, stats.RowGroupsSkipped, tt.count, tt.read, tt.skip)
		}
	}
}

// TestTableWithoutMetaFields reads a table with
// hoodie.populate.meta.fields=false whose files have no meta columns.
func TestTableWithoutMetaFields(t *testing.T) {
	schema := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindInt)),
		field("part", basefile.Primitive(basefile.KindString)),
		field("v", nullable(basefile.KindLong)),
	}}
	tbl := newRawTable(t, []string{"id"}, []string{"part"}, false, func(c *config.Table) { c.PopulateMetaFields = false })
	c1 := tbl.commit(schema,
		rawFile{partition: "a", fileID: "aaaa-0", noMeta: true, rows: [][]any{{int32(1), "a", int64(10)}, {int32(2), "a", int64(20)}}},
		rawFile{partition: "b", fileID: "bbbb-0", noMeta: true, rows: [][]any{{int32(3), "b", int64(30)}}},
	)
	c2 := tbl.commit(schema, rawFile{partition: "a", fileID: "aaaa-0", noMeta: true, rows: [][]any{{int32(1), "a", int64(11)}, {int32(2), "a", int64(20)}}})
	fileA := "aaaa-0_0-1-1_" + c2 + ".parquet"
	fileB := "bbbb-0_0-1-1_" + c1 + ".parquet"

	got, _ := tbl.scan(Options{})
	want := [][]any{
		{c2, nil, nil, "a", fileA, int32(1), "a", int64(11)},
		{c2, nil, nil, "a", fileA, int32(2), "a", int64(20)},
		{c1, nil, nil, "b", fileB, int32(3), "b", int64(30)},
	}
	sortByColumn(got, 5)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot\n got %v\nwant %v", got, want)
	}
	// An incremental read returns every record of the files rewritten in
	// the range: the unchanged record 2 too.
	got, stats := tbl.scan(Options{Begin: c1, Columns: []string{"id", basefile.MetaCommitTime}})
	if want := [][]any{{int32(1), c2}, {int32(2), c2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("incremental: got %v, want %v", got, want)
	}
	if stats.FilesSkipped != 1 {
		t.Errorf("incremental: %+v, want file b skipped", stats)
	}
	got, stats = tbl.scan(Options{Where: "_hoodie_commit_time = '" + c1 + "' OR _hoodie_file_name = 'x'", Columns: []string{"id"}})
	if want := [][]any{{int32(3)}}; !reflect.DeepEqual(got, want) || stats.FilesSkipped != 1 {
		t.Errorf("by commit time: got %v, want %v; %+v", got, want, stats)
	}
	got, _ = tbl.scan(Options{AsOf: c1, Columns: []string{"id", "v", basefile.MetaCommitTime}})
	if want := [][]any{{int32(1), int64(10), c1}, {int32(2), int64(20), c1}, {int32(3), int64(30), c1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("as of c1: got %v, want %v", got, want)
	}
}

// sortByColumn sorts rows by an int32 column.
func sortByColumn(rows [][]any, col int) {
	slices.SortFunc(rows, func(a, b []any) int { return int(a[col].(int32) - b[col].(int32)) })
}

// TestPartitionPruning covers hive-style and plain folders, the default
// partition of nulls, and partition columns the files do not store.
func TestPartitionPruning(t *testing.T) {
	schema := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindInt)),
		field("bucket", nullable(basefile.KindInt)),
		field("label", nullable(basefile.KindString)),
	}}
	dropped := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{schema.Fields[0], schema.Fields[2]}}
	for _, hive := range []bool{false, true} {
		t.Run(fmt.Sprint("hive=", hive), func(t *testing.T) {
			tbl := newRawTable(t, []string{"id"}, []string{"bucket", "label"}, hive, nil)
			part := func(bucket, label string) string {
				return config.PartitionPath([]string{"bucket", "label"}, []string{bucket, label}, hive, true)
			}
			tbl.commit(schema,
				rawFile{partition: part("1", "x"), rows: [][]any{{int32(1), int32(1), "x"}}},
				rawFile{partition: part("2", "x"), rows: [][]any{{int32(2), int32(2), "x"}}},
				rawFile{partition: part("", "x"), rows: [][]any{{int32(3), nil, "x"}}},
				rawFile{partition: part("3", ""), rows: [][]any{{int32(4), int32(3), ""}}},
				rawFile{partition: part("4", "x/y"), schema: dropped, rows: [][]any{{int32(5), "x/y"}}},
			)
			tests := []struct {
				where      string
				want       []int32
				read, skip int
			}{
				{"bucket = 1", []int32{1}, 1, 4},
				{"bucket IS NULL", []int32{3}, 1, 4},
				{"bucket IS NOT NULL AND bucket < 3", []int32{1, 2}, 2, 3},
				{"bucket IN (2, 4)", []int32{2, 5}, 2, 3},
				{"NOT bucket = 2", []int32{1, 4, 5}, 3, 2},
				{"label = ''", []int32{4}, 1, 4}, // the default partition may hold ''
				{"label = 'x/y'", []int32{5}, 1, 4},
				{"label IS NULL", nil, 0, 5}, // the default partition's file is opened, its statistics rule it out
			}
			for _, tt := range tests {
				got, stats := tbl.scan(Options{Where: tt.where, Columns: []string{"id", "bucket", "label"}})
				var ids []int32
				for _, r := range got {
					ids = append(ids, r[0].(int32))
				}
				if !slices.Equal(ids, tt.want) || stats.FilesRead != tt.read || stats.FilesSkipped != tt.skip {
					t.Errorf("%s: ids %v, files read %d, skipped %d; want %v, %d, %d", tt.where, ids, stats.FilesRead, stats.FilesSkipped, tt.want, tt.read, tt.skip)
				}
			}
			got, _ := tbl.scan(Options{Where: "id = 5", Columns: []string{"bucket", "label"}})
			if want := [][]any{{int32(4), "x/y"}}; !reflect.DeepEqual(got, want) {
				t.Errorf("dropped partition column: got %v, want %v", got, want)
			}
		})
	}
}

// TestSchemaEvolution reads files written under older schemas into the
// latest one, and old snapshots in their own.
func TestSchemaEvolution(t *testing.T) {
	v1 := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindInt)),
		field("n", nullable(basefile.KindInt)),
		field("x", nullable(basefile.KindFloat)),
		field("amount", basefile.Nullable(basefile.DecimalType(10, 2))),
	}}
	v2 := &basefile.Schema{Name: "raw_record", Fields: []basefile.Field{
		field("id", basefile.Primitive(basefile.KindInt)),
		field("n", nullable(basefile.KindLong)),
		field("x", nullable(basefile.KindDouble)),
		field("amount", basefile.Nullable(basefile.DecimalType(12, 4))),
		field("extra", nullable(basefile.KindString)),
	}}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	c1 := tbl.commit(v1, rawFile{rows: [][]any{{int32(1), int32(7), float32(1.5), basefile.NewDecimalInt64(125, 2)}}})
	tbl.commit(v2, rawFile{rows: [][]any{{int32(2), int64(1) << 40, 2.25, basefile.NewDecimalInt64(10001, 4), "new"}}})

	got, _ := tbl.scan(Options{Columns: []string{"id", "n", "x", "amount", "extra"}, Where: "n > 5 AND amount >= 1"})
	want := [][]any{
		{int32(1), int64(7), 1.5, basefile.NewDecimalInt64(12500, 4), nil},
		{int32(2), int64(1) << 40, 2.25, basefile.NewDecimalInt64(10001, 4), "new"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("latest\n got %#v\nwant %#v", got, want)
	}
	s, err := scanDir(t, tbl.dir, Options{AsOf: c1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Schema().Fields); n != 5+4 {
		t.Errorf("as of c1: %d columns, want 9", n)
	}
	if _, err := scanDir(t, tbl.dir, Options{AsOf: c1, Columns: []string{"extra"}}); err == nil {
		t.Error("as of c1: the later column extra resolved")
	}
}

// threeLevel is a record that parquet-go writes with a three-level LIST of
// nullable elements, as writers other than parquet-avro do.
type threeLevel struct {
	ID   int32     `parquet:"id"`
	Tags []*string `parquet:"tags,list"`
}

// TestThreeLevelLists reads a file whose list has three levels and null
// elements, which parquet-avro's two-level lists cannot hold.
func TestThreeLevelLists(t *testing.T) {
	schema, err := basefile.ParseSchema([]byte(`{"type":"record","name":"threeLevel","fields":[
		{"name":"id","type":"int"},
		{"name":"tags","type":{"type":"array","items":["null","string"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	records := []threeLevel{{1, []*string{str("a"), nil, str("b")}}, {2, nil}, {3, []*string{nil}}}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	tbl.commit(schema, rawFile{parquet: func(w io.Writer) error {
		avro, err := schema.MarshalJSON()
		if err != nil {
			return err
		}
		pw := parquet.NewGenericWriter[threeLevel](w, parquet.KeyValueMetadata(basefile.FooterAvroSchema, string(avro)))
		if _, err := pw.Write(records); err != nil {
			return err
		}
		return pw.Close()
	}})
	got, _ := tbl.scan(Options{Columns: []string{"id", "tags"}, BatchSize: 2})
	want := [][]any{{int32(1), []any{"a", nil, "b"}}, {int32(2), []any{}}, {int32(3), []any{nil}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

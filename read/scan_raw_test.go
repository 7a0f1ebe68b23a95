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
	"github.com/hoodie-dev/hoodie/timeline"
)

// rawTable is a table whose base files and commits a test writes itself,
// for layouts the write package does not make: small row groups, files
// without meta fields, dropped partition columns, the default partition.
type rawTable struct {
	t    *testing.T
	dir  string
	fsys storage.FS
	cfg  *storage.TableConfig
	gen  *timeline.Generator
}

func newRawTable(t *testing.T, keys, partitions []string, hiveStyle bool, edit func(*storage.TableConfig)) *rawTable {
	t.Helper()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := storage.NewTableConfig("raw", keys, "", partitions, hiveStyle, "")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	if err := storage.CreateTable(context.Background(), fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	return &rawTable{t: t, dir: dir, fsys: fsys, cfg: cfg, gen: timeline.NewGenerator(time.Now)}
}

// rawFile is a base file of a commit.
type rawFile struct {
	partition string
	fileID    string          // "" for a new file group
	rows      [][]any         // values of the data columns
	noMeta    bool            // no meta columns in the file
	schema    *storage.Schema // the file's schema, if not the commit's
	opts      storage.BaseFileOptions
	// parquet, if not nil, writes the whole file instead.
	parquet func(io.Writer) error
}

// commit writes files and commits them with schema as the table schema.
// It returns the instant.
func (r *rawTable) commit(schema *storage.Schema, files ...rawFile) string {
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
		if err := storage.EnsurePartitionMetadata(ctx, r.fsys, f.partition, req.Time, time.Now()); err != nil {
			r.t.Fatal(err)
		}
		fileID := f.fileID
		if fileID == "" {
			fileID = storage.NewFileID()
		}
		p := path.Join(f.partition, storage.BaseFileName{FileID: fileID, WriteToken: "0-1-1", InstantTime: req.Time}.String())
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
func (r *rawTable) writeBaseFile(p string, schema *storage.Schema, f rawFile, instant string) {
	r.t.Helper()
	w, err := storage.NewBaseFileWriter(context.Background(), r.fsys, p, schema, f.opts)
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
func (r *rawTable) writePlain(p string, schema *storage.Schema, rows [][]any) {
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
	w := parquet.NewWriter(out, ps, parquet.KeyValueMetadata(storage.FooterAvroSchema, string(avro)))
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

func field(name string, t *storage.Type) storage.Field { return storage.Field{Name: name, Type: t} }

func nullable(k storage.Kind) *storage.Type { return storage.Nullable(storage.Primitive(k)) }

// allTypesSchema has a column of every type the value model knows,
// nested ones included.
func allTypesSchema() *storage.Schema {
	point := storage.RecordType("point", field("x", nullable(storage.KindInt)), field("y", storage.Primitive(storage.KindString)))
	rec := storage.RecordType("rec",
		field("a", nullable(storage.KindInt)),
		field("inner", storage.Nullable(storage.ArrayType(point))),
		field("m", storage.Nullable(storage.MapType(storage.ArrayType(storage.Primitive(storage.KindInt))))),
	)
	return &storage.Schema{Name: "raw_record", Namespace: "hoodie.raw", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindInt)),
		field("b", nullable(storage.KindBoolean)),
		field("i", nullable(storage.KindInt)),
		field("l", nullable(storage.KindLong)),
		field("f", nullable(storage.KindFloat)),
		field("d", nullable(storage.KindDouble)),
		field("s", nullable(storage.KindString)),
		field("e", storage.Nullable(storage.EnumType("color", "red", "green", "blue"))),
		field("u", storage.Nullable(storage.UUIDType())),
		field("by", nullable(storage.KindBytes)),
		field("fx", storage.Nullable(storage.FixedType("four", 4))),
		field("dec", storage.Nullable(storage.DecimalType(20, 3))),
		field("decf", storage.Nullable(storage.FixedDecimalType("fixed", 5, 10, 2))),
		field("dt", storage.Nullable(storage.DateType())),
		field("tsm", storage.Nullable(storage.TimestampMillisType())),
		field("tsu", storage.Nullable(storage.TimestampMicrosType())),
		field("tags", storage.Nullable(storage.ArrayType(nullable(storage.KindString)))),
		field("nums", storage.ArrayType(storage.Primitive(storage.KindInt))),
		field("attrs", storage.Nullable(storage.MapType(nullable(storage.KindLong)))),
		field("rec", storage.Nullable(rec)),
		field("grid", storage.Nullable(storage.ArrayType(storage.ArrayType(nullable(storage.KindInt))))),
	}}
}

// randomValue returns a random value of type t in the value model.
func randomValue(r *rand.Rand, t *storage.Type) any {
	if t.Nullable && r.IntN(6) == 0 {
		return nil
	}
	return randomPresent(r, t)
}

// randomPresent returns a random value of type t other than null. Array
// elements are never null: the two-level lists of parquet-avro cannot hold
// null elements.
func randomPresent(r *rand.Rand, t *storage.Type) any {
	switch {
	case t.Logical == storage.LogicalDecimal:
		limit := int64(1e9)
		return storage.NewDecimalInt64(r.Int64N(2*limit)-limit, t.Scale)
	case t.Logical == storage.LogicalDate:
		return storage.Date(r.Int32N(40000) - 20000)
	case t.Logical == storage.LogicalTimestampMillis:
		return time.UnixMilli(r.Int64N(4e12) - 2e12).UTC()
	case t.Logical == storage.LogicalTimestampMicros:
		return time.UnixMicro(r.Int64N(4e15) - 2e15).UTC()
	case t.Logical == storage.LogicalUUID:
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), r.Uint64()&0xffffffffffff)
	}
	switch t.Kind {
	case storage.KindBoolean:
		return r.IntN(2) == 0
	case storage.KindInt:
		return r.Int32() - 1<<30
	case storage.KindLong:
		return r.Int64() - 1<<62
	case storage.KindFloat:
		return float32(r.NormFloat64())
	case storage.KindDouble:
		return r.NormFloat64() * 1e6
	case storage.KindString:
		return strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(4))
	case storage.KindEnum:
		return t.Symbols[r.IntN(len(t.Symbols))]
	case storage.KindBytes:
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case storage.KindFixed:
		b := make([]byte, t.Size)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case storage.KindArray:
		list := []any{}
		for range r.IntN(4) {
			list = append(list, randomPresent(r, t.Items))
		}
		return list
	case storage.KindMap:
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
func allTypesTable(t *testing.T, seed uint64, opts storage.BaseFileOptions) (*storage.Schema, [][]any, *rawTable) {
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
	schema, rows, tbl := allTypesTable(t, 1, storage.BaseFileOptions{BlockSize: 8 << 10, PageSize: 512, Compression: "snappy"})

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
	schema := &storage.Schema{Name: "raw_record", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindLong)),
		field("score", nullable(storage.KindDouble)),
		field("day", storage.Nullable(storage.DateType())),
		field("tag", nullable(storage.KindString)),
	}}
	var rows [][]any
	for id := range 640 {
		var score any = float64(id) / 10
		if id >= 600 {
			score = nil // the last row groups hold the nulls
		}
		rows = append(rows, []any{int64(id), score, storage.Date(19000 + id/64), fmt.Sprintf("t%03d", id)})
	}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	// A row group per 64 rows: the writer checks the size every 64 rows.
	tbl.commit(schema, rawFile{rows: rows, opts: storage.BaseFileOptions{BlockSize: 1}})
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
	schema := &storage.Schema{Name: "raw_record", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindInt)),
		field("part", storage.Primitive(storage.KindString)),
		field("v", nullable(storage.KindLong)),
	}}
	tbl := newRawTable(t, []string{"id"}, []string{"part"}, false, func(c *storage.TableConfig) { c.PopulateMetaFields = false })
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
	got, stats := tbl.scan(Options{Begin: c1, Columns: []string{"id", storage.MetaCommitTime}})
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
	got, _ = tbl.scan(Options{AsOf: c1, Columns: []string{"id", "v", storage.MetaCommitTime}})
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
	schema := &storage.Schema{Name: "raw_record", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindInt)),
		field("bucket", nullable(storage.KindInt)),
		field("label", nullable(storage.KindString)),
	}}
	dropped := &storage.Schema{Name: "raw_record", Fields: []storage.Field{schema.Fields[0], schema.Fields[2]}}
	for _, hive := range []bool{false, true} {
		t.Run(fmt.Sprint("hive=", hive), func(t *testing.T) {
			tbl := newRawTable(t, []string{"id"}, []string{"bucket", "label"}, hive, nil)
			part := func(bucket, label string) string {
				return storage.PartitionPath([]string{"bucket", "label"}, []string{bucket, label}, hive, true)
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
	v1 := &storage.Schema{Name: "raw_record", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindInt)),
		field("n", nullable(storage.KindInt)),
		field("x", nullable(storage.KindFloat)),
		field("amount", storage.Nullable(storage.DecimalType(10, 2))),
	}}
	v2 := &storage.Schema{Name: "raw_record", Fields: []storage.Field{
		field("id", storage.Primitive(storage.KindInt)),
		field("n", nullable(storage.KindLong)),
		field("x", nullable(storage.KindDouble)),
		field("amount", storage.Nullable(storage.DecimalType(12, 4))),
		field("extra", nullable(storage.KindString)),
	}}
	tbl := newRawTable(t, []string{"id"}, nil, false, nil)
	c1 := tbl.commit(v1, rawFile{rows: [][]any{{int32(1), int32(7), float32(1.5), storage.NewDecimalInt64(125, 2)}}})
	tbl.commit(v2, rawFile{rows: [][]any{{int32(2), int64(1) << 40, 2.25, storage.NewDecimalInt64(10001, 4), "new"}}})

	got, _ := tbl.scan(Options{Columns: []string{"id", "n", "x", "amount", "extra"}, Where: "n > 5 AND amount >= 1"})
	want := [][]any{
		{int32(1), int64(7), 1.5, storage.NewDecimalInt64(12500, 4), nil},
		{int32(2), int64(1) << 40, 2.25, storage.NewDecimalInt64(10001, 4), "new"},
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
	schema, err := storage.ParseSchema([]byte(`{"type":"record","name":"threeLevel","fields":[
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
		pw := parquet.NewGenericWriter[threeLevel](w, parquet.KeyValueMetadata(storage.FooterAvroSchema, string(avro)))
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

package basefile

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/hoodie-dev/hoodie/storage"
)

// flatTripsSchema is tripsSchemaJSON without its nested fields: every
// field a leaf column, as the columnar writer takes them.
func flatTripsSchema(t testing.TB) (*Schema, []int) {
	t.Helper()
	full := mustParseSchema(t, tripsSchemaJSON)
	flat := &Schema{Name: full.Name, Namespace: full.Namespace}
	var keep []int
	for i, f := range full.Fields {
		switch f.Type.Kind {
		case KindArray, KindMap, KindRecord:
			continue
		}
		flat.Fields = append(flat.Fields, f)
		keep = append(keep, i)
	}
	return flat, keep
}

// flatTripsRows returns n rows of flatTripsSchema with meta fields, drawn
// from tripsRows with their nested values left out and keyed key-000000 on.
func flatTripsRows(t testing.TB, n int, keep []int) [][]any {
	base := tripsRows(t)
	rows := make([][]any, n)
	for i := range rows {
		src := base[i%len(base)]
		row := append([]any(nil), src[:NumMetaFields]...)
		for _, f := range keep {
			row = append(row, src[NumMetaFields+f])
		}
		row[MetaRecordKeyPos] = fmt.Sprintf("key-%06d", i)
		rows[i] = row
	}
	return rows
}

// TestColumnarWriterMatchesParquetGo writes the same new records with the
// columnar writer and with parquet-go's, and checks that the files hold
// the same rows and describe them alike: schema, statistics, page indexes
// and footer metadata.
func TestColumnarWriterMatchesParquetGo(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	cases := []struct {
		name string
		n    int
		opts Options
	}{
		{name: "three records", n: 3},
		{name: "pages and row groups", n: 20000, opts: Options{BlockSize: 64 << 10, PageSize: 8 << 10}},
		{name: "plain strings, snappy", n: 5000, opts: Options{StringEncoding: "PLAIN", Compression: "snappy", PageSize: 4 << 10}},
		{name: "uncompressed", n: 2000, opts: Options{Compression: "uncompressed"}},
		{name: "no meta fields", n: 3000, opts: Options{NoMetaFields: true, PageSize: 16 << 10}},
		{name: "empty", n: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys, dir := newTestFS(t)
			rows := flatTripsRows(t, tc.n, keep)
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			keys, data := newRecordsOf(rows)
			meta := tripsMeta
			if tc.opts.NoMetaFields {
				keys, meta = nil, nil
			}
			write := func(path string, newOnly bool) Stats {
				opts := tc.opts
				opts.NewRecordsOnly = newOnly
				w, err := NewWriter(t.Context(), fsys, path, schema, opts)
				if err != nil {
					t.Fatal(err)
				}
				if (w.columnar != nil) != newOnly {
					t.Fatalf("NewRecordsOnly %v: columnar writer %v", newOnly, w.columnar != nil)
				}
				for start := 0; start < len(data); start += 1500 {
					end := min(start+1500, len(data))
					var part []string
					if keys != nil {
						part = keys[start:end]
					}
					if err := w.WriteNew(meta, int64(start), part, data[start:end]); err != nil {
						t.Fatal(err)
					}
				}
				stats, err := w.Close()
				if err != nil {
					t.Fatal(err)
				}
				return stats
			}
			got, want := write("got.parquet", true), write("want.parquet", false)
			if got.NumRows != want.NumRows || got.MinRecordKey != want.MinRecordKey || got.MaxRecordKey != want.MaxRecordKey {
				t.Errorf("stats %+v, want %+v", got, want)
			}
			gotFile, wantFile := mustOpenBaseFile(t, fsys, "got.parquet"), mustOpenBaseFile(t, fsys, "want.parquet")
			assertRowsEqual(t, readAllValues(t, gotFile), readAllValues(t, wantFile))
			if !reflect.DeepEqual(gotFile.Metadata(), wantFile.Metadata()) {
				t.Errorf("footer metadata differs")
			}
			gm, wm := gotFile.Parquet().Metadata(), wantFile.Parquet().Metadata()
			if !reflect.DeepEqual(gm.Schema, wm.Schema) || gm.CreatedBy != wm.CreatedBy || !reflect.DeepEqual(gm.ColumnOrders, wm.ColumnOrders) {
				t.Errorf("schema or writer differ:\n%+v\n%+v", gm.Schema, wm.Schema)
			}
			if gm.NumRows != wm.NumRows {
				t.Errorf("%d rows in the footer, want %d", gm.NumRows, wm.NumRows)
			}
			compareRowGroups(t, filepath.Join(dir, "got.parquet"), filepath.Join(dir, "want.parquet"))
			checkPageIndexes(t, filepath.Join(dir, "got.parquet"))
		})
	}
}

// decimalColumns tells, by leaf column, which columns of a Parquet file are
// decimals.
func decimalColumns(pf *parquet.File) []bool {
	var decimals []bool
	for _, path := range pf.Schema().Columns() {
		leaf, _ := pf.Schema().Lookup(path...)
		decimals = append(decimals, isDecimal(leaf.Node.Type()))
	}
	return decimals
}

// columnarLeafTypes makes a type of every leaf kind of the value model, the
// i-th field's: named types get names of their own.
var columnarLeafTypes = []struct {
	name string
	make func(rng *rand.Rand, i int) *Type
}{
	{"boolean", func(*rand.Rand, int) *Type { return Primitive(KindBoolean) }},
	{"int", func(*rand.Rand, int) *Type { return Primitive(KindInt) }},
	{"long", func(*rand.Rand, int) *Type { return Primitive(KindLong) }},
	{"float", func(*rand.Rand, int) *Type { return Primitive(KindFloat) }},
	{"double", func(*rand.Rand, int) *Type { return Primitive(KindDouble) }},
	{"string", func(*rand.Rand, int) *Type { return Primitive(KindString) }},
	{"bytes", func(*rand.Rand, int) *Type { return Primitive(KindBytes) }},
	{"enum", func(_ *rand.Rand, i int) *Type {
		return EnumType(fmt.Sprintf("e%d", i), "A", "B", "C_LONGER_SYMBOL", "Z")
	}},
	{"fixed", func(rng *rand.Rand, i int) *Type { return FixedType(fmt.Sprintf("x%d", i), 1+rng.IntN(24)) }},
	{"decimal bytes", func(rng *rand.Rand, _ int) *Type {
		p := 1 + rng.IntN(maxDecimalPrecision)
		return DecimalType(p, rng.IntN(p+1))
	}},
	{"decimal fixed", func(rng *rand.Rand, i int) *Type {
		p := 1 + rng.IntN(maxDecimalPrecision)
		return FixedDecimalType(fmt.Sprintf("d%d", i), decimalBytes(p)+rng.IntN(3), p, rng.IntN(p+1))
	}},
	{"date", func(*rand.Rand, int) *Type { return DateType() }},
	{"timestamp-micros", func(*rand.Rand, int) *Type { return TimestampMicrosType() }},
	{"timestamp-millis", func(*rand.Rand, int) *Type { return TimestampMillisType() }},
	{"uuid", func(*rand.Rand, int) *Type { return UUIDType() }},
}

// randomFlatSchema returns a schema of 1 to 10 leaf fields of random kinds,
// each nullable or not, and for each field the share of nulls its values get.
func randomFlatSchema(rng *rand.Rand) (*Schema, []float64) {
	s := &Schema{Name: "flat", Namespace: "hoodie.test"}
	n := 1 + rng.IntN(10)
	nullRates := make([]float64, n)
	for i := range n {
		t := columnarLeafTypes[rng.IntN(len(columnarLeafTypes))].make(rng, i)
		if rng.IntN(2) == 0 {
			t = Nullable(t)
			nullRates[i] = []float64{0, 0.05, 0.5, 0.97, 1}[rng.IntN(5)]
		}
		s.Fields = append(s.Fields, Field{Name: fmt.Sprintf("f%d_%s", i, strings.ReplaceAll(t.Kind.String(), "-", "_")), Type: t})
	}
	return s, nullRates
}

// randomText returns a random string: empty, short ASCII, multi-byte UTF-8,
// a shared-prefix key, or now and then one longer than a page.
func randomText(rng *rand.Rand, pageSize int) string {
	switch k := rng.IntN(1000); {
	case k < 2:
		// Longer than a page: a page then holds a single value.
		return strings.Repeat("long-é-", (pageSize+rng.IntN(pageSize))/8+1)
	case k < 80:
		return ""
	case k < 250:
		var b strings.Builder
		for range rng.IntN(12) {
			runes := []rune("aé世界🎉ß\u0000\uFFFD\U0010FFFF")
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		return b.String()
	case k < 500:
		return fmt.Sprintf("prefix-%08d", rng.IntN(100000))
	default:
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(' ' + rng.IntN(95))
		}
		return string(b)
	}
}

// randomBytes returns random bytes of length n, often 0x00 or 0xff.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xff
		default:
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// randomLeafValue returns a random value of the leaf type t in the value
// model, extremes and special values often.
func randomLeafValue(rng *rand.Rand, t *Type, nullRate float64, pageSize int) any {
	if t.Nullable && rng.Float64() < nullRate {
		return nil
	}
	switch t.Kind {
	case KindBoolean:
		return rng.IntN(2) == 0
	case KindInt:
		if t.Logical == LogicalDate {
			if rng.IntN(20) == 0 {
				return Date([]int32{math.MinInt32, math.MaxInt32, 0, -1}[rng.IntN(4)])
			}
			return Date(rng.Int32N(200000) - 100000)
		}
		if rng.IntN(8) == 0 {
			return []int32{math.MinInt32, math.MaxInt32, 0, -1, 1}[rng.IntN(5)]
		}
		return int32(rng.Uint32())
	case KindLong:
		var x int64
		if rng.IntN(8) == 0 {
			x = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[rng.IntN(5)]
		} else {
			x = int64(rng.Uint64()) >> rng.IntN(64)
		}
		switch t.Logical {
		case LogicalTimestampMicros:
			return time.UnixMicro(x).UTC()
		case LogicalTimestampMillis:
			return time.UnixMilli(x).UTC()
		}
		return x
	case KindFloat:
		if rng.IntN(6) == 0 {
			return []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)),
				math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}[rng.IntN(8)]
		}
		return float32(rng.NormFloat64() * 1000)
	case KindDouble:
		if rng.IntN(6) == 0 {
			return []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1),
				math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}[rng.IntN(8)]
		}
		return rng.NormFloat64() * 1e6
	case KindString:
		if t.Logical == LogicalUUID {
			b := randomBytes(rng, 16)
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
		}
		return randomText(rng, pageSize)
	case KindEnum:
		return t.Symbols[rng.IntN(len(t.Symbols))]
	case KindBytes:
		if t.Logical == LogicalDecimal {
			return randomDecimal(rng, t)
		}
		return []byte(randomText(rng, pageSize))
	case KindFixed:
		if t.Logical == LogicalDecimal {
			return randomDecimal(rng, t)
		}
		return randomBytes(rng, t.Size)
	}
	panic(fmt.Sprintf("no random values of %s", t.Kind))
}

// randomDecimal returns a decimal that fits t, at its scale: the extremes
// of its precision now and then.
func randomDecimal(rng *rand.Rand, t *Type) Decimal {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
	var u *big.Int
	switch rng.IntN(6) {
	case 0:
		u = new(big.Int).Sub(limit, big.NewInt(1)) // 99...9
	case 1:
		u = new(big.Int).Sub(big.NewInt(1), limit) // -99...9
	case 2:
		u = big.NewInt(int64(rng.IntN(3) - 1))
	default:
		digits := make([]byte, 1+rng.IntN(t.Precision))
		for i := range digits {
			digits[i] = byte('0' + rng.IntN(10))
		}
		u, _ = new(big.Int).SetString(string(digits), 10)
		if rng.IntN(2) == 0 {
			u.Neg(u)
		}
	}
	return NewDecimal(u, t.Scale)
}

// columnarCase is a random base file to write with both writers: its
// schema (without meta fields), options, records and how WriteNew gets
// them.
type columnarCase struct {
	schema     *Schema
	opts       Options
	metas      []*NewRecordMeta // of each WriteNew call
	firstSeqNo int64
	keys       []string
	rows       [][]any
	calls      []int // the number of records of each WriteNew call
}

// randomColumnarCase draws a columnarCase from rng: schema, values,
// options, call sizes and sequence numbers.
func randomColumnarCase(rng *rand.Rand) columnarCase {
	schema, nullRates := randomFlatSchema(rng)
	c := columnarCase{schema: schema}
	c.opts = Options{
		PageSize:       []int{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 0}[rng.IntN(6)],
		BlockSize:      []int64{4 << 10, 8 << 10, 32 << 10, 128 << 10, 0}[rng.IntN(5)],
		Compression:    []string{"zstd", "snappy", "gzip", "uncompressed", ""}[rng.IntN(5)],
		StringEncoding: []string{"PLAIN", "delta_length_byte_array", ""}[rng.IntN(3)],
		NoMetaFields:   rng.IntN(3) == 0,
		NoDictionary:   rng.IntN(3) == 0,
	}
	pageSize := c.opts.PageSize
	if pageSize == 0 {
		pageSize = 16 << 10 // long strings of a default page would be slow
	}
	n := []int{0, 1, 1 + rng.IntN(100), 1 + rng.IntN(3000), 1 + rng.IntN(3000), 1 + rng.IntN(7000), 1 + rng.IntN(7000), 1 + rng.IntN(7000)}[rng.IntN(8)]
	c.firstSeqNo = []int64{0, 1, rng.Int64N(1 << 40), math.MaxInt64 - int64(n)}[rng.IntN(4)]
	// Unique keys, ASCII and not, some outside the BMP: their order by
	// UTF-16 code units differs from their byte order.
	for i := range n {
		key := []string{"key-%06d", "ключ-%d", "\uFFFD%d", "😀%d", "%d"}[rng.IntN(5)]
		c.keys = append(c.keys, fmt.Sprintf(key, i))
	}
	for range n {
		row := make([]any, len(schema.Fields))
		for j, f := range schema.Fields {
			row[j] = randomLeafValue(rng, f.Type, nullRates[j], pageSize)
		}
		c.rows = append(c.rows, row)
	}
	// The meta fields of most files are the same for every record; some
	// change them between calls, so that the dictionaries of their
	// columns hold several values.
	newMeta := func() *NewRecordMeta {
		m := &NewRecordMeta{
			CommitTime:    fmt.Sprintf("2026%013d", rng.Int64N(1e13)),
			PartitionPath: []string{"", "2026/11/29", "région=été/日=1"}[rng.IntN(3)],
			FileName:      fmt.Sprintf("%08x-0_0-1-1_x.parquet", rng.Uint32()),
		}
		m.SeqNoPrefix = m.CommitTime + "_" + strconv.Itoa(rng.IntN(4)) + "_"
		return m
	}
	meta, varies := newMeta(), rng.IntN(3) == 0
	for left := n; left > 0; {
		k := min(left, []int{1, 1 + rng.IntN(5), 1 + rng.IntN(200), 1 + rng.IntN(3000)}[rng.IntN(4)])
		c.calls = append(c.calls, k)
		left -= k
		if varies && rng.IntN(2) == 0 {
			meta = newMeta()
		}
		c.metas = append(c.metas, meta)
	}
	// The writer adds the meta fields to a schema that lacks them; some
	// schemas have them already.
	if !c.opts.NoMetaFields && rng.IntN(3) == 0 {
		c.schema = schema.WithMetaFields()
	}
	// A file without meta fields of a schema that has them (a copy of a
	// Hudi file's rows) takes them as data: the dictionary columns then
	// get their values from the rows.
	if c.opts.NoMetaFields && rng.IntN(3) == 0 {
		c.schema = schema.WithMetaFields()
		for i, row := range c.rows {
			meta := make([]any, NumMetaFields)
			for j := range meta {
				if rng.IntN(10) != 0 {
					meta[j] = []string{"a", "b", "é", "", "a long value of more than sixteen bytes"}[rng.IntN(5)] + strconv.Itoa(rng.IntN(1+i%40))
				}
			}
			c.rows[i] = append(meta, row...)
		}
	}
	return c
}

// write writes the case's records to a new base file at path, with the
// columnar writer when newOnly is set and with parquet-go's otherwise,
// and returns its stats.
func (c *columnarCase) write(t *testing.T, fsys storage.FS, path string, newOnly bool) Stats {
	t.Helper()
	opts := c.opts
	opts.NewRecordsOnly = newOnly
	w, err := NewWriter(t.Context(), fsys, path, c.schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if (w.columnar != nil) != newOnly {
		t.Fatalf("NewRecordsOnly %v: columnar writer %v", newOnly, w.columnar != nil)
	}
	start := 0
	for call, k := range c.calls {
		var keys []string
		meta := c.metas[call]
		switch {
		case !c.opts.NoMetaFields:
			keys = c.keys[start : start+k]
		case k%3 == 0:
			// A writer without meta fields ignores meta and takes keys
			// only to name records in errors.
			keys = c.keys[start : start+k]
		case k%3 == 1:
			meta = nil
		}
		if err := w.WriteNew(meta, c.firstSeqNo+int64(start), keys, c.rows[start:start+k]); err != nil {
			t.Fatal(err)
		}
		start += k
	}
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

// wantRows returns the rows the case's file must read back as: with the
// meta fields WriteNew gives them, unless the file has none.
func (c *columnarCase) wantRows() [][]any {
	var rows [][]any
	call, end := 0, 0
	for i, row := range c.rows {
		if c.opts.NoMetaFields {
			rows = append(rows, row)
			continue
		}
		for i >= end+c.calls[call] {
			end += c.calls[call]
			call++
		}
		m := c.metas[call]
		seqNo := m.SeqNoPrefix + strconv.FormatInt(c.firstSeqNo+int64(i), 10)
		rows = append(rows, append([]any{m.CommitTime, seqNo, c.keys[i], m.PartitionPath, m.FileName}, row...))
	}
	return rows
}

// sameValue reports whether two values of the value model are the same:
// floats bit for bit (NaN is NaN, -0 is not 0), times as instants,
// anything else by reflect.DeepEqual.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case float32:
		b, ok := b.(float32)
		return ok && math.Float32bits(a) == math.Float32bits(b)
	case float64:
		b, ok := b.(float64)
		return ok && math.Float64bits(a) == math.Float64bits(b)
	case time.Time:
		b, ok := b.(time.Time)
		return ok && a.Equal(b)
	case Decimal:
		b, ok := b.(Decimal)
		return ok && a.Scale() == b.Scale() && a.Unscaled().Cmp(b.Unscaled()) == 0
	}
	return reflect.DeepEqual(a, b)
}

// assertSameRows checks that got holds the rows of want, value by value as
// sameValue compares them, and reports at most a few differences.
func assertSameRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	errs := 0
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s: row %d has %d values, want %d", what, i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !sameValue(got[i][j], want[i][j]) {
				t.Errorf("%s: row %d value %d = %.200s, want %.200s", what, i, j, describe(got[i][j]), describe(want[i][j]))
				if errs++; errs == 5 {
					t.FailNow()
				}
			}
		}
	}
}

// columnarSeeds returns the seeds of the randomized tests: n seeds from
// base on, or the one in HOODIE_COLUMNAR_SEED, to replay a failure.
func columnarSeeds(t *testing.T, base uint64, n int) []uint64 {
	if s := os.Getenv("HOODIE_COLUMNAR_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HOODIE_COLUMNAR_SEED: %v", err)
		}
		return []uint64{seed}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = base + uint64(i)
	}
	return seeds
}

// TestColumnarWriterRandomized writes random flat schemas, values, options
// and WriteNew call sizes with the columnar writer and with parquet-go's,
// and checks that both files read back the records written, that the
// writers' stats agree, and that the footers agree: schema elements,
// writer, column orders, key-value metadata, and column chunks wherever
// both writers ended row groups (and pages, for bounds that depend on
// them) at the same rows. A failure names its seed; set
// HOODIE_COLUMNAR_SEED to replay it alone.
func TestColumnarWriterRandomized(t *testing.T) {
	for _, seed := range columnarSeeds(t, 1, 60) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			// In parallel: writers share pooled buffers, which must not
			// leak from one file into another.
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
			c := randomColumnarCase(rng)
			fsys, dir := newTestFS(t)
			got, want := c.write(t, fsys, "got.parquet", true), c.write(t, fsys, "want.parquet", false)
			for name, stats := range map[string]Stats{"got.parquet": got, "want.parquet": want} {
				info, err := os.Stat(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if info.Size() != stats.FileSize {
					t.Errorf("%s: stats give %d bytes, the file has %d", name, stats.FileSize, info.Size())
				}
			}
			got.FileSize, want.FileSize = 0, 0 // pages differ
			if got != want {
				t.Errorf("stats %+v, parquet-go's %+v", got, want)
			}
			gotFile, wantFile := mustOpenBaseFile(t, fsys, "got.parquet"), mustOpenBaseFile(t, fsys, "want.parquet")
			gotRows := readAllValues(t, gotFile)
			assertSameRows(t, "columnar file", gotRows, c.wantRows())
			assertSameRows(t, "columnar file against parquet-go's", gotRows, readAllValues(t, wantFile))
			gm, wm := gotFile.Parquet().Metadata(), wantFile.Parquet().Metadata()
			if !reflect.DeepEqual(gm.KeyValueMetadata, wm.KeyValueMetadata) {
				t.Errorf("footer key-value metadata:\ngot  %.300v\nwant %.300v", gm.KeyValueMetadata, wm.KeyValueMetadata)
			}
			if !reflect.DeepEqual(gm.Schema, wm.Schema) || gm.CreatedBy != wm.CreatedBy || !reflect.DeepEqual(gm.ColumnOrders, wm.ColumnOrders) || gm.Version != wm.Version {
				t.Errorf("schema elements or writer differ:\ngot  %+v\nwant %+v", gm.Schema, wm.Schema)
			}
			if gm.NumRows != wm.NumRows || gm.NumRows != int64(len(c.rows)) {
				t.Errorf("%d rows in the footer, parquet-go's %d, want %d", gm.NumRows, wm.NumRows, len(c.rows))
			}
			compareRowGroups(t, filepath.Join(dir, "got.parquet"), filepath.Join(dir, "want.parquet"))
			checkPageIndexes(t, filepath.Join(dir, "got.parquet"))
		})
	}
}

// withoutNullPageBounds returns ci with the bounds of its null pages
// empty, as the format wants them: parquet-go's writer puts zeros there.
func withoutNullPageBounds(ci format.ColumnIndex) format.ColumnIndex {
	ci.MinValues, ci.MaxValues = slices.Clone(ci.MinValues), slices.Clone(ci.MaxValues)
	for i, null := range ci.NullPages {
		if null && i < len(ci.MinValues) && i < len(ci.MaxValues) {
			ci.MinValues[i], ci.MaxValues[i] = []byte{}, []byte{}
		}
	}
	return ci
}

// sameColumnIndex tells whether the column index got of the columnar
// writer is want, parquet-go's, but where they may differ: parquet-go's
// writer puts zeros in the bounds of null pages and calls pages of nulls
// alone ascending, and a greatest value
// beginning with 16 0xff bytes, which no cut bound exceeds, is the page's
// in one file and the chunk's in the other.
func sameColumnIndex(got, want format.ColumnIndex) bool {
	got, want = withoutNullPageBounds(got), withoutNullPageBounds(want)
	if !slices.Contains(want.NullPages, false) {
		// Pages of nulls alone have no order; either name is right.
		got.BoundaryOrder = want.BoundaryOrder
	}
	allOnes := bytes.Repeat([]byte{0xff}, columnIndexSizeLimit)
	for i := range min(len(got.MaxValues), len(want.MaxValues)) {
		if bytes.HasPrefix(want.MaxValues[i], allOnes) && bytes.HasPrefix(got.MaxValues[i], allOnes) {
			want.MaxValues[i] = got.MaxValues[i]
		}
	}
	return reflect.DeepEqual(got, want)
}

// compareRowGroups compares the row groups of two files of the same rows,
// the columnar writer's at got and parquet-go's at want, where both ended
// them at the same rows: the column chunks' types, codecs, encodings, value
// and null counts and size statistics, and their bounds and column indexes
// where both also ended the pages at the same rows (float bounds depend on
// the pages: see TestColumnarChunkBoundsIgnoreNaNPages).
func compareRowGroups(t *testing.T, got, want string) {
	t.Helper()
	gf, wf := openParquet(t, got), openParquet(t, want)
	gm, wm := gf.Metadata(), wf.Metadata()
	if !slices.EqualFunc(gm.RowGroups, wm.RowGroups, func(a, b format.RowGroup) bool { return a.NumRows == b.NumRows }) {
		t.Logf("row groups end at other rows: %d and %d groups", len(gm.RowGroups), len(wm.RowGroups))
		return
	}
	gi, wi := gf.ColumnIndexes(), wf.ColumnIndexes()
	gofs, wofs := gf.OffsetIndexes(), wf.OffsetIndexes()
	decimals := decimalColumns(gf)
	samePages, compared := 0, 0
	for i := range wm.RowGroups {
		for j := range wm.RowGroups[i].Columns {
			g, w := gm.RowGroups[i].Columns[j].MetaData, wm.RowGroups[i].Columns[j].MetaData
			at := fmt.Sprintf("row group %d column %d (%v)", i, j, w.PathInSchema)
			// The columnar writer may give a byte array column a dictionary
			// where parquet-go's gives none, and parquet-go counts no
			// unencoded bytes in dictionary pages.
			gotDict, wantDict := slices.Contains(g.Encoding, format.RLEDictionary), slices.Contains(w.Encoding, format.RLEDictionary)
			sameEncodings := gotDict && !wantDict && g.Type == format.ByteArray ||
				slices.Equal(g.Encoding, w.Encoding) && slices.EqualFunc(g.EncodingStats, w.EncodingStats, func(a, b format.PageEncodingStats) bool {
					return a.PageType == b.PageType && a.Encoding == b.Encoding
				})
			sameSizes := reflect.DeepEqual(g.SizeStatistics.DefinitionLevelHistogram, w.SizeStatistics.DefinitionLevelHistogram) &&
				(gotDict || wantDict || g.SizeStatistics.UnencodedByteArrayDataBytes == w.SizeStatistics.UnencodedByteArrayDataBytes)
			if g.Type != w.Type || g.Codec != w.Codec || !sameEncodings || !slices.Equal(g.PathInSchema, w.PathInSchema) ||
				g.NumValues != w.NumValues || g.Statistics.NullCount != w.Statistics.NullCount || !sameSizes {
				t.Errorf("%s:\ngot  %+v\nwant %+v", at, g, w)
			}
			k := i*len(wm.RowGroups[i].Columns) + j
			pagesAlike := slices.EqualFunc(gofs[k].PageLocations, wofs[k].PageLocations, func(a, b format.PageLocation) bool { return a.FirstRowIndex == b.FirstRowIndex })
			// The bounds of decimals differ: parquet-go's are widened to
			// every value (widenDecimalBounds).
			pagesAlike = pagesAlike && !decimals[j]
			if !decimals[j] && (pagesAlike || (w.Type != format.Float && w.Type != format.Double)) {
				compared++
				if !reflect.DeepEqual(g.Statistics, w.Statistics) {
					t.Errorf("%s: statistics %+v, want %+v", at, g.Statistics, w.Statistics)
				}
			}
			if pagesAlike {
				samePages++
				if !sameColumnIndex(gi[k], wi[k]) {
					t.Errorf("%s: column index\ngot  %+v\nwant %+v", at, gi[k], wi[k])
				}
			}
		}
	}
	t.Logf("%d row groups; bounds of %d chunks and column indexes of %d compared", len(wm.RowGroups), compared, samePages)
}

// TestColumnarReleaseClearsValues checks that a columnar writer done keeps
// none of the values it wrote alive: the slots of its row values, the
// longest batch's included, are cleared before its memory goes to the pool
// for the next writer.
func TestColumnarReleaseClearsValues(t *testing.T) {
	schema, keep := flatTripsSchema(t)
	fsys, _ := newTestFS(t)
	keys, data := newRecordsOf(flatTripsRows(t, 300, keep))
	w, err := NewWriter(t.Context(), fsys, "f.parquet", schema, Options{NewRecordsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if w.columnar == nil {
		t.Fatal("no columnar writer for a flat schema")
	}
	// A long batch, then a short one: the slots past the short one's values
	// still hold the long one's.
	for _, b := range [][2]int{{0, 250}, {250, 300}} {
		if err := w.WriteNew(tripsMeta, int64(b[0]), keys[b[0]:b[1]], data[b[0]:b[1]]); err != nil {
			t.Fatal(err)
		}
	}
	slots := w.columnar.flat[:cap(w.columnar.flat)]
	held := 0
	for _, v := range slots {
		if v != nil {
			held++
		}
	}
	if held <= len(w.columnar.flat) {
		t.Fatalf("%d of %d slots hold values before Close, want the long batch's beyond the %d of the last", held, len(slots), len(w.columnar.flat))
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for i, v := range slots {
		if v != nil {
			t.Fatalf("slot %d of %d still holds %v after Close", i, len(slots), v)
		}
	}
}

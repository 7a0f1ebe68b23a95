package basefile

import (
	"context"
	"math/big"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
)

const bytesDecimalsSchemaJSON = `{"type":"record","name":"r","namespace":"hoodie.t","fields":[` +
	`{"name":"small","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},` +
	`{"name":"tiny","type":{"type":"bytes","logicalType":"decimal","precision":1,"scale":0}},` +
	`{"name":"wide","type":["null",{"type":"bytes","logicalType":"decimal","precision":30,"scale":4}],"default":null}]}`

// TestSmallBytesDecimalIsFixed checks the physical type of Avro bytes
// decimals: a fixed of Spark's size up to 18 digits, whose BINARY form
// Spark's vectorized reader refuses ("Expected: decimal(10,2), Found:
// BINARY"), and BINARY beyond, as Spark reads it; and that values read back.
func TestSmallBytesDecimalIsFixed(t *testing.T) {
	ctx := context.Background()
	fsys := storage.NewMemFS()
	schema := mustParseSchema(t, bytesDecimalsSchemaJSON)
	rows := [][]any{
		{mustDecimal(t, "-99999999.99"), mustDecimal(t, "9"), mustDecimal(t, "-12345678901234567890123456.7890")},
		{nil, mustDecimal(t, "-9"), nil},
		{mustDecimal(t, "0.01"), mustDecimal(t, "0"), mustDecimal(t, "0.0000")},
	}
	// TestColumnarWriterRandomized checks that the columnar writer
	// makes the same file.
	w, err := NewWriter(ctx, fsys, "f.parquet", schema, Options{NoMetaFields: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	bf, err := Open(ctx, fsys, "f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind parquet.Kind
		size int
	}{"small": {parquet.FixedLenByteArray, 5}, "tiny": {parquet.FixedLenByteArray, 1}, "wide": {parquet.ByteArray, 0}}
	for name, w := range want {
		leaf, ok := bf.pf.Schema().Lookup(name)
		if !ok {
			t.Fatalf("no column %q", name)
		}
		typ := leaf.Node.Type()
		if typ.Kind() != w.kind || (w.kind == parquet.FixedLenByteArray && typ.Length() != w.size) {
			t.Errorf("column %q: Parquet %s (length %d), want %s of %d", name, typ.Kind(), typ.Length(), w.kind, w.size)
		}
	}
	got := readAllValues(t, bf)
	if err := bf.Close(); err != nil {
		t.Fatal(err)
	}
	assertRowsEqual(t, got, rows)
}

// TestBinaryBytesDecimalStillReads checks that files Hoodie wrote before,
// with a small bytes decimal as BINARY, still read.
func TestBinaryBytesDecimalStillReads(t *testing.T) {
	ctx := context.Background()
	fsys := storage.NewMemFS()
	node := parquet.Group{"small": parquet.Optional(parquet.Encoded(parquet.Decimal(2, 10, parquet.ByteArrayType), &parquet.Plain))}
	f, err := fsys.Create(ctx, "old.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pw := parquet.NewWriter(f, parquet.NewSchema("r", node),
		parquet.KeyValueMetadata(FooterAvroSchema, `{"type":"record","name":"r","fields":[{"name":"small","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null}]}`))
	unscaled := big.NewInt(-12345)
	if _, err := pw.WriteRows([]parquet.Row{
		{parquet.ByteArrayValue(bigTwosComplement(unscaled)).Level(0, 1, 0)},
		{parquet.NullValue().Level(0, 0, 0)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	bf, err := Open(ctx, fsys, "old.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	assertRowsEqual(t, readAllValues(t, bf), [][]any{{mustDecimal(t, "-123.45")}, {nil}})
}

package write

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestRecordKeysAndPartitions(t *testing.T) {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	schema := &basefile.Schema{Name: "r", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Nullable(basefile.Primitive(basefile.KindInt))},
		{Name: "name", Type: str},
		{Name: "score", Type: basefile.Nullable(basefile.Primitive(basefile.KindDouble))},
		{Name: "day", Type: basefile.Nullable(basefile.DateType())},
		{Name: "at", Type: basefile.Nullable(basefile.TimestampMicrosType())},
		{Name: "amount", Type: basefile.Nullable(basefile.DecimalType(10, 2))},
	}}
	day, _ := basefile.ParseDate("2024-04-01")
	at := time.Date(2024, 4, 1, 17, 1, 0, 123000, time.UTC)
	amount := basefile.NewDecimal(big.NewInt(12345), 2)
	tests := []struct {
		name       string
		keys, part []string
		hive       bool
		row        []any
		wantKey    string
		wantPart   string
		wantErr    string
	}{
		{"simple", []string{"id"}, []string{"name"}, false, []any{int32(1), "Alice", nil, nil, nil, nil}, "1", "Alice", ""},
		{"complex", []string{"id", "name"}, []string{"day"}, true, []any{int32(1), "Alice", nil, day, nil, nil}, "id:1,name:Alice", "day=2024-04-01", ""},
		{"complex with null and empty parts", []string{"id", "name"}, nil, false, []any{nil, "", nil, nil, nil, nil}, "", "", "all null or empty"},
		{"complex with a null part", []string{"id", "name"}, nil, false, []any{int32(7), nil, nil, nil, nil, nil}, "id:7,name:__null__", "", ""},
		{"integral double as Java prints it", []string{"score"}, nil, false, []any{nil, nil, 3.0, nil, nil, nil}, "3.0", "", ""},
		// Hudi renders a timestamp as its number since the epoch, in the
		// column's unit (microseconds here).
		{"timestamp and decimal", []string{"at"}, []string{"amount"}, false, []any{nil, nil, nil, nil, at, amount}, "1711990860000123", "123.45", ""},
		{"timestamp partition", []string{"id"}, []string{"at"}, true, []any{int32(1), nil, nil, nil, at, nil}, "1", "at=1711990860000123", ""},
		{"null key", []string{"name"}, nil, false, []any{int32(1), nil, nil, nil, nil, nil}, "", "", "is null"},
		{"null partition", []string{"id"}, []string{"name"}, true, []any{int32(1), nil, nil, nil, nil, nil}, "1", "name=__HIVE_DEFAULT_PARTITION__", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Table{RecordKeyFields: tt.keys, PartitionFields: tt.part, HiveStylePartitioning: tt.hive}
			g, err := NewKeyGenerator(cfg, schema)
			if err != nil {
				t.Fatal(err)
			}
			key, err := g.RecordKey(tt.row)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got key %q, error %v; want an error with %q", key, err, tt.wantErr)
				}
				return
			}
			if err != nil || key != tt.wantKey {
				t.Fatalf("key %q, %v; want %q", key, err, tt.wantKey)
			}
			if p, err := g.PartitionPath(tt.row); p != tt.wantPart || err != nil {
				t.Fatalf("partition %q, %v; want %q", p, err, tt.wantPart)
			}
			if p, err := newPartitionCache(g).path(tt.row); p != tt.wantPart || err != nil {
				t.Fatalf("cached partition %q, %v; want %q", p, err, tt.wantPart)
			}
		})
	}
	if _, err := NewKeyGenerator(&config.Table{RecordKeyFields: []string{"missing"}}, schema); err == nil {
		t.Error("a key column missing from the schema was accepted")
	}
}

// Hudi's key generators render floats with Java's Double.toString and
// Float.toString, and decimals with BigDecimal.toString: keys and partition
// paths must be the text Spark writes for the same value.
func TestKeyValuesRenderAsJava(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{1234567.5, "1234567.5"},
		{1e6, "1000000.0"},
		{100.0, "100.0"},
		{0.5, "0.5"},
		{0.001, "0.001"},
		{9999999.0, "9999999.0"},
		{1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"},
		{1e-4, "1.0E-4"},
		{-2.5e-10, "-2.5E-10"},
		{1.5e300, "1.5E300"},
		{0.0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{float32(1.1), "1.1"},
		{float32(3e10), "3.0E10"},
		{float32(0.25), "0.25"},
		{basefile.NewDecimal(big.NewInt(12345), 2), "123.45"},
		{basefile.NewDecimal(big.NewInt(1), 6), "0.000001"},
		{basefile.NewDecimal(big.NewInt(1), 7), "1E-7"},
		{basefile.NewDecimal(big.NewInt(-15), 8), "-1.5E-7"},
		{basefile.NewDecimal(big.NewInt(0), 10), "0E-10"},
		{basefile.NewDecimal(big.NewInt(0), 2), "0.00"},
	}
	for _, tt := range tests {
		if got := valueString(tt.v, basefile.LogicalNone); got != tt.want {
			t.Errorf("valueString(%v) = %q, Hudi renders %q", tt.v, got, tt.want)
		}
	}
}

// A timestamp-millis column renders in milliseconds, as Hudi's Avro path
// gives the stored long.
func TestTimestampMillisKeys(t *testing.T) {
	schema := &basefile.Schema{Name: "r", Fields: []basefile.Field{
		{Name: "at", Type: basefile.TimestampMillisType()},
	}}
	g, err := NewKeyGenerator(&config.Table{Name: "t", RecordKeyFields: []string{"at"}, PartitionFields: []string{"at"}}, schema)
	if err != nil {
		t.Fatal(err)
	}
	row := []any{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)}
	if key, err := g.RecordKey(row); err != nil || key != "-1000" {
		t.Errorf("key %q, %v; want -1000", key, err)
	}
	if p, _ := g.PartitionPath(row); p != "-1000" {
		t.Errorf("partition %q, want -1000", p)
	}
}

// TestComplexKeyOfOneColumn checks the record keys of one column under
// Hudi's complex key generator: the column's value in a new table, as the
// contract says, and "col:value" in a table whose stored keys have that
// form (as Spark writes them by default), so that an upsert updates the
// stored records instead of inserting them again.
func TestComplexKeyOfOneColumn(t *testing.T) {
	ctx := context.Background()
	gen := trips.NewGenerator(9)
	initial := gen.Inserts(20)
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprint("stored keys named: ", named), func(t *testing.T) {
			tt := newTripsTable(t, config.MergeEventTime, Settings{})
			cfg, err := config.Load(ctx, tt.fsys)
			if err != nil {
				t.Fatal(err)
			}
			stored := slices.Clone(initial)
			if named {
				// Keys "uuid:<uuid>", written under the simple key generator
				// from values that read so, stand for Spark's named keys.
				for i := range stored {
					stored[i].UUID = "uuid:" + stored[i].UUID
				}
				tt.write(OpInsert, tripsInput(stored))
			}
			cfg.KeyGeneratorClass = config.ComplexKeyGenerator
			if err := config.Update(ctx, tt.fsys, cfg, time.Now()); err != nil {
				t.Fatal(err)
			}
			if !named {
				tt.write(OpInsert, tripsInput(stored))
			}
			res := tt.write(OpUpsert, tripsInput(gen.Updates(initial, 5)))
			if res.Updated != 5 || res.Inserted != 0 {
				t.Fatalf("upsert of 5 stored keys: %d updated, %d inserted", res.Updated, res.Inserted)
			}
			snap := snapshot(t, tt.fsys, "")
			if len(snap) != len(initial) {
				t.Fatalf("%d records, want %d", len(snap), len(initial))
			}
			for _, tr := range stored {
				if _, ok := snap[tr.UUID]; !ok {
					t.Fatalf("no record with key %q", tr.UUID)
				}
			}
		})
	}
}

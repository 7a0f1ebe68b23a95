package basefile

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// tripsRows returns rows of tripsSchemaJSON with meta fields, covering every
// type with values, nulls, empty and nested collections.
func tripsRows(t testing.TB) [][]any {
	t.Helper()
	huge, _ := new(big.Int).SetString("-12345678901234567890", 10)
	ts := time.Date(2024, 4, 18, 17, 35, 50, 988123000, time.UTC)
	meta := func(key string) []any {
		return []any{"20240418173550988", "20240418173550988_0_" + key, key, "2024/04/18", "f-0_0-1-1_20240418173550988.parquet"}
	}
	row := func(key string, values ...any) []any { return append(meta(key), values...) }
	return [][]any{
		row("1", int64(1), "Alice", true, int32(3), float32(1.5), 12.25,
			mustDecimal(t, "12345678.90"), mustDecimal(t, "-0.0001"), Date(19831), ts, ts.Truncate(time.Millisecond),
			"123e4567-e89b-12d3-a456-426614174000", []byte("blob"), []byte("0123456789abcdef"), "BIKE",
			[]any{[]any{1.5, -2.5}, []any{nil, nil}},
			[]any{"a", "b", ""},
			map[string]any{"x": int64(1), "y": nil, "": int64(-1)},
			[]any{[]any{int32(1), int32(2)}, []any{}, []any{int32(3)}},
			[]any{"Bob", []any{"XY-1"}},
			[]byte("fedcba9876543210")),
		row("2", int64(2), nil, nil, nil, nil, nil,
			nil, NewDecimal(huge, 4), nil, nil, nil,
			nil, nil, nil, "CAR",
			nil, nil, nil,
			[]any{},
			[]any{"Eve", nil},
			nil),
		row("3", int64(-3), "", false, int32(-2147483648), float32(0), math.Copysign(0, -1),
			mustDecimal(t, "-99999999.99"), mustDecimal(t, "0.0000"), Date(-1), time.Unix(-1, 0).UTC(), time.UnixMilli(-1).UTC(),
			"", []byte{}, make([]byte, 16), "CAR",
			[]any{}, []any{}, map[string]any{},
			[]any{[]any{}},
			[]any{"", []any{nil}},
			nil),
	}
}

func tripsWithMeta(t testing.TB) *Schema {
	return mustParseSchema(t, tripsSchemaJSON).WithMetaFields()
}

func TestRowRoundTrip(t *testing.T) {
	s := tripsWithMeta(t)
	rows := tripsRows(t)
	var got [][]any
	for i, values := range rows {
		row, err := s.AppendRow(nil, values)
		if err != nil {
			t.Fatalf("row %d: AppendRow: %v", i, err)
		}
		decoded, err := s.DecodeRow(row)
		if err != nil {
			t.Fatalf("row %d: DecodeRow: %v", i, err)
		}
		got = append(got, decoded)
	}
	assertRowsEqual(t, got, rows)
}

type level struct {
	col, rep, def int
	value         any // nil for a null
}

func levelsOf(row parquet.Row) []level {
	out := make([]level, len(row))
	for i, v := range row {
		out[i] = level{col: v.Column(), rep: v.RepetitionLevel(), def: v.DefinitionLevel()}
		switch {
		case v.IsNull():
		case v.Kind() == parquet.ByteArray:
			out[i].value = string(v.ByteArray())
		default:
			out[i].value = v.Int64()
		}
	}
	return out
}

func TestAppendRowLevels(t *testing.T) {
	s := &Schema{Name: "r", Fields: []Field{
		{Name: "a", Type: Nullable(Primitive(KindLong))},
		{Name: "l", Type: Nullable(ArrayType(RecordType("l",
			Field{Name: "x", Type: Nullable(Primitive(KindLong))},
			Field{Name: "y", Type: Primitive(KindString)})))},
		{Name: "m", Type: MapType(Nullable(Primitive(KindLong)))},
	}}
	tests := []struct {
		name   string
		values []any
		want   []level
	}{
		{
			name:   "values",
			values: []any{int64(5), []any{[]any{int64(1), "p"}, []any{nil, "q"}}, map[string]any{"k2": nil, "k1": int64(10)}},
			want: []level{
				{0, 0, 1, int64(5)},
				{1, 0, 3, int64(1)}, {1, 1, 2, nil},
				{2, 0, 2, "p"}, {2, 1, 2, "q"},
				{3, 0, 1, "k1"}, {3, 1, 1, "k2"},
				{4, 0, 2, int64(10)}, {4, 1, 1, nil},
			},
		},
		{
			name:   "nulls and empty map",
			values: []any{nil, nil, map[string]any{}},
			want:   []level{{0, 0, 0, nil}, {1, 0, 0, nil}, {2, 0, 0, nil}, {3, 0, 0, nil}, {4, 0, 0, nil}},
		},
		{
			name:   "empty list",
			values: []any{nil, []any{}, map[string]any{"k": nil}},
			want:   []level{{0, 0, 0, nil}, {1, 0, 1, nil}, {2, 0, 1, nil}, {3, 0, 1, "k"}, {4, 0, 1, nil}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, err := s.AppendRow(nil, tt.values)
			if err != nil {
				t.Fatal(err)
			}
			got := levelsOf(row)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("levels\n got %v\nwant %v", got, tt.want)
			}
			back, err := s.DecodeRow(row)
			if err != nil {
				t.Fatal(err)
			}
			assertRowsEqual(t, [][]any{back}, [][]any{tt.values})
		})
	}
}

func TestAppendRowErrors(t *testing.T) {
	s := tripsWithMeta(t)
	good := tripsRows(t)[0]
	index := func(name string) int { return s.FieldIndex(name) }
	tests := []struct {
		field string
		value any
		want  string
	}{
		{"id", nil, `field "id": null value for a non-null field`},
		{"id", int32(1), `field "id": int32 does not match Avro type long`},
		{"seats", 3, `field "seats": int does not match Avro type nullable int`},
		{"weight", 1.5, `field "weight": float64 does not match`},
		{"rider", []byte("x"), `field "rider": []uint8 does not match`},
		{"blob", "x", `field "blob": string does not match`},
		{"price", 1.5, `field "price": float64 does not match Avro type nullable decimal`},
		{"price", mustDecimal(t, "1.234"), `field "price": storage: rescale 1.234 to scale 2 would lose digits`},
		{"price", mustDecimal(t, "123456789"), `field "price": 123456789.00 does not fit decimal(10,2)`},
		{"day", int32(5), `field "day": int32 does not match Avro type nullable date`},
		{"ts", "2024-01-01", `field "ts": string does not match`},
		{"ts", time.Date(2024, 1, 1, 0, 0, 0, 1234567, time.UTC), `field "ts": 2024-01-01T00:00:00.001234567Z has digits below the column's microseconds`},
		{"ts_ms", time.Date(2024, 1, 1, 0, 0, 0, 1234000, time.UTC), `field "ts_ms": 2024-01-01T00:00:00.001234Z has digits below the column's milliseconds`},
		{"hash", []byte("short"), `field "hash": 5 bytes for a fixed of size 16`},
		{"kind", "PLANE", `field "kind": "PLANE" is not a symbol of enum kind`},
		{"stops", []any{nil}, `field "stops[]": null value for a non-null field`},
		{"stops", []any{[]any{1.5}}, `field "stops[]": []interface {} of length 1 does not match a record of 2 fields`},
		{"stops", "x", `field "stops": string does not match an array`},
		{"tags", []any{int64(1)}, `field "tags[]": int64 does not match`},
		{"tags", []any{"a", nil}, `field "tags[]": null element: an array is written as Hudi's two-level Parquet list`},
		{"scores", map[string]int64{}, `field "scores": map[string]int64 does not match a map`},
		{"scores", map[string]any{"a": "b"}, `field "scores{}": string does not match`},
		{"matrix", nil, `field "matrix": null value for a non-null field`},
		{"matrix", []any{[]any{int32(1), nil}}, `field "matrix[][]": null value`},
		{"driver", []any{nil, nil}, `field "driver.name": null value for a non-null field`},
		{"driver", []any{"x", []any{int64(1)}}, `field "driver.car.plate": int64 does not match`},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			values := append([]any(nil), good...)
			values[index(tt.field)] = tt.value
			dst := parquet.Row{parquet.Int32Value(7)}
			got, err := s.AppendRow(dst, values)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AppendRow error %v, want one containing %q", err, tt.want)
			}
			if len(got) != 1 {
				t.Errorf("AppendRow returned %d values on error, want dst unchanged", len(got))
			}
		})
	}
	if _, err := s.AppendRow(nil, good[:3]); err == nil || !strings.Contains(err.Error(), "3 values") {
		t.Errorf("short row: error %v", err)
	}
}

func TestDecodeRowErrors(t *testing.T) {
	s := &Schema{Name: "r", Fields: []Field{
		{Name: "a", Type: Primitive(KindLong)},
		{Name: "l", Type: ArrayType(Primitive(KindInt))},
	}}
	tests := []struct {
		name string
		row  parquet.Row
		want string
	}{
		{"missing column", parquet.Row{parquet.Int64Value(1).Level(0, 0, 0)}, "no value for column 1"},
		{"unknown column", parquet.Row{parquet.Int64Value(1).Level(0, 0, 0), parquet.Int32Value(1).Level(0, 1, 1), parquet.Int32Value(1).Level(0, 0, 2)}, "value 2 is of column 2"},
		{"out of order", parquet.Row{parquet.Int32Value(1).Level(0, 1, 1), parquet.Int64Value(1).Level(0, 0, 0)}, "no value for column 0"},
		{"extra value", parquet.Row{parquet.Int64Value(1).Level(0, 0, 0), parquet.Int64Value(2).Level(0, 0, 0), parquet.Int32Value(1).Level(0, 1, 1)}, "column 0 has 1 values too many"},
		{"null in required", parquet.Row{parquet.Value{}.Level(0, 0, 0), parquet.Int32Value(1).Level(0, 1, 1)}, `field "a": null value in a non-null column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.DecodeRow(tt.row)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DecodeRow error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestTwosComplement(t *testing.T) {
	tests := []struct {
		unscaled string
		size     int
		want     []byte
	}{
		{"0", 0, []byte{0}},
		{"127", 0, []byte{0x7f}},
		{"128", 0, []byte{0, 0x80}},
		{"-1", 0, []byte{0xff}},
		{"-128", 0, []byte{0x80}},
		{"-129", 0, []byte{0xff, 0x7f}},
		{"1234567890", 5, []byte{0, 0x49, 0x96, 0x02, 0xd2}},
		{"-1", 5, []byte{0xff, 0xff, 0xff, 0xff, 0xff}},
		{"18446744073709551616", 0, []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"-18446744073709551616", 0, []byte{0xff, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"-9223372036854775809", 10, []byte{0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, tt := range tests {
		u, _ := new(big.Int).SetString(tt.unscaled, 10)
		d := NewDecimal(u, 2)
		got := appendTwosComplement(nil, d, tt.size)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s in %d bytes = %x, want %x", tt.unscaled, tt.size, got, tt.want)
		}
		if back := decodeTwosComplement(got, 2); back.Cmp(d) != 0 || back.Scale() != 2 {
			t.Errorf("%x decodes to %s, want %s", got, back, d)
		}
	}
}

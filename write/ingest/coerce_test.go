package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

func TestCoerceValue(t *testing.T) {
	record := basefile.RecordType("r",
		basefile.Field{Name: "a", Type: basefile.Primitive(basefile.KindInt)},
		basefile.Field{Name: "b", Type: basefile.Nullable(basefile.Primitive(basefile.KindString))},
		basefile.Field{Name: "items", Type: basefile.Nullable(basefile.ArrayType(basefile.RecordType("item", basefile.Field{Name: "q", Type: basefile.Primitive(basefile.KindInt)})))})
	bigUnscaled, _ := new(big.Int).SetString("12345678901234567890", 10)
	tests := []struct {
		value   string // JSON
		typ     *basefile.Type
		want    any
		wantErr string
	}{
		{`3`, basefile.Primitive(basefile.KindInt), int32(3), ""},
		{`"-3"`, basefile.Primitive(basefile.KindInt), int32(-3), ""},
		{`3.0`, basefile.Primitive(basefile.KindInt), int32(3), ""},
		{`1e2`, basefile.Primitive(basefile.KindInt), int32(100), ""},
		{`3.5`, basefile.Primitive(basefile.KindInt), nil, `column "c": 3.5 does not fit int: not a whole number`},
		{`2147483648`, basefile.Primitive(basefile.KindInt), nil, "out of range"},
		{`2.147483648e9`, basefile.Primitive(basefile.KindInt), nil, "out of range"},
		{`"abc"`, basefile.Primitive(basefile.KindInt), nil, `"abc" does not fit int: not a number`},
		{`"+3"`, basefile.Primitive(basefile.KindInt), nil, "not a number"},
		{`true`, basefile.Primitive(basefile.KindInt), nil, "not a number"},
		{`null`, basefile.Primitive(basefile.KindInt), nil, "null does not fit int: the column is not nullable"},
		{`null`, basefile.Nullable(basefile.Primitive(basefile.KindInt)), nil, ""},
		{`9223372036854775807`, basefile.Primitive(basefile.KindLong), int64(math.MaxInt64), ""},
		{`9223372036854775808`, basefile.Primitive(basefile.KindLong), nil, "out of range"},
		{`1e20`, basefile.Primitive(basefile.KindLong), nil, "out of range"},
		{`1.5`, basefile.Primitive(basefile.KindFloat), float32(1.5), ""},
		{`1e39`, basefile.Primitive(basefile.KindFloat), nil, "out of range"},
		{`7`, basefile.Primitive(basefile.KindDouble), float64(7), ""},
		{`"-Infinity"`, basefile.Primitive(basefile.KindDouble), math.Inf(-1), ""},
		{`1e400`, basefile.Primitive(basefile.KindDouble), nil, "1e400 does not fit double: out of range"},
		{`"0x10"`, basefile.Primitive(basefile.KindDouble), nil, "not a number"},
		{`1.5`, basefile.DecimalType(5, 2), basefile.NewDecimalInt64(150, 2), ""},
		{`"123.45"`, basefile.DecimalType(5, 2), basefile.NewDecimalInt64(12345, 2), ""},
		{`1.230`, basefile.DecimalType(5, 2), basefile.NewDecimalInt64(123, 2), ""},
		{`-7`, basefile.DecimalType(5, 2), basefile.NewDecimalInt64(-700, 2), ""},
		{`1234.5`, basefile.DecimalType(5, 2), nil, "1234.5 does not fit decimal(5,2): more than 5 digits"},
		{`1.234`, basefile.DecimalType(5, 2), nil, "more than 2 digits after the point"},
		{`"1,5"`, basefile.DecimalType(5, 2), nil, "not a number"},
		{`12345678901234567890`, basefile.FixedDecimalType("f", 9, 20, 0), basefile.NewDecimal(bigUnscaled, 0), ""},
		{`"2024-02-29"`, basefile.DateType(), basefile.Date(19782), ""},
		// A number is a guess about its unit: 20240101 would be year 57385.
		{`20240101`, basefile.DateType(), nil, "20240101 does not fit date: a number is not a date"},
		{`19000`, basefile.DateType(), nil, "a number is not a date"},
		{`"19000"`, basefile.DateType(), nil, "a number is not a date"},
		{`"2023-02-29"`, basefile.DateType(), nil, "not a YYYY-MM-DD date"},
		{`1.5`, basefile.DateType(), nil, "a number is not a date"},
		{`"2023-04-01T17:01:00.123456000Z"`, basefile.TimestampMicrosType(), utcTime("2023-04-01T17:01:00.123456Z"), ""},
		{`"2023-04-01T17:01:00.1234567Z"`, basefile.TimestampMicrosType(), nil, "more fraction digits than the column's microseconds keep"},
		{`"2023-04-01T17:01:00.123456789Z"`, basefile.TimestampMicrosType(), nil, "more fraction digits than the column's microseconds keep"},
		{`"2023-04-01T19:01:00+02:00"`, basefile.TimestampMicrosType(), utcTime("2023-04-01T17:01:00Z"), ""},
		{`"2023-04-01 17:01:00.5"`, basefile.TimestampMicrosType(), utcTime("2023-04-01T17:01:00.5Z"), ""},
		{`1680368460123456`, basefile.TimestampMicrosType(), nil, "a number is not a timestamp"},
		{`"1680368460123"`, basefile.TimestampMillisType(), nil, "a number is not a timestamp"},
		{`"2023-04-01T17:01:00.123000Z"`, basefile.TimestampMillisType(), utcTime("2023-04-01T17:01:00.123Z"), ""},
		{`"2023-04-01T17:01:00.123456Z"`, basefile.TimestampMillisType(), nil, "more fraction digits than the column's milliseconds keep"},
		{`"yesterday"`, basefile.TimestampMillisType(), nil, "not an RFC 3339 timestamp"},
		{`"aGVsbG8="`, basefile.Primitive(basefile.KindBytes), []byte("hello"), ""},
		{`""`, basefile.Primitive(basefile.KindBytes), []byte{}, ""},
		{`"!!"`, basefile.Primitive(basefile.KindBytes), nil, "not base64 text"},
		{`"AAECAw=="`, basefile.FixedType("f", 4), []byte{0, 1, 2, 3}, ""},
		{`"AAE="`, basefile.FixedType("f", 4), nil, "2 bytes, not 4"},
		{`"x"`, basefile.Primitive(basefile.KindString), "x", ""},
		{`5.10`, basefile.Primitive(basefile.KindString), "5.10", ""},
		{`true`, basefile.Primitive(basefile.KindString), "true", ""},
		{`{}`, basefile.Primitive(basefile.KindString), nil, "an object does not fit string: not a string"},
		{`"0b3e5c36-1b5f-4f6e-8c1a-2f0f3f5a9c11"`, basefile.UUIDType(), "0b3e5c36-1b5f-4f6e-8c1a-2f0f3f5a9c11", ""},
		{`"B"`, basefile.EnumType("e", "A", "B"), "B", ""},
		{`"Z"`, basefile.EnumType("e", "A", "B"), nil, `"Z" does not fit enum "e": not a symbol of the enum`},
		{`true`, basefile.Primitive(basefile.KindBoolean), true, ""},
		{`"FALSE"`, basefile.Primitive(basefile.KindBoolean), false, ""},
		{`"yes"`, basefile.Primitive(basefile.KindBoolean), nil, "not a boolean"},
		{`{"a": 1}`, record, []any{int32(1), nil, nil}, ""},
		{`{"items": [{"q": 2}], "b": "x", "a": 1}`, record, []any{int32(1), "x", []any{[]any{int32(2)}}}, ""},
		{`{"b": "x"}`, record, nil, `column "c.a": null does not fit int: the field is missing and not nullable`},
		{`{"a": 1, "z": 2}`, record, nil, `the record has no field "z"`},
		{`{"a": 1, "a": 2}`, record, nil, `the object has member "a" twice`},
		{`{"a": 1, "items": [{"q": 1}, {"q": "z"}]}`, record, nil, `column "c.items[1].q": "z" does not fit int`},
		{`[1, 2]`, basefile.ArrayType(basefile.Primitive(basefile.KindInt)), []any{int32(1), int32(2)}, ""},
		{`[]`, basefile.ArrayType(basefile.Primitive(basefile.KindInt)), []any{}, ""},
		{`[1, 2.5]`, basefile.ArrayType(basefile.Primitive(basefile.KindInt)), nil, `column "c[1]": 2.5 does not fit int`},
		{`{"x": 1}`, basefile.MapType(basefile.Primitive(basefile.KindLong)), map[string]any{"x": int64(1)}, ""},
		{`{}`, basefile.MapType(basefile.Primitive(basefile.KindLong)), map[string]any{}, ""},
		{`{"x": "y"}`, basefile.MapType(basefile.Primitive(basefile.KindLong)), nil, `column "c[\"x\"]": "y" does not fit long`},
		{`[1]`, basefile.MapType(basefile.Primitive(basefile.KindLong)), nil, "an array does not fit map of long: not an object"},
	}
	for _, tt := range tests {
		got, err := CoerceValue(mustLoose(t, tt.value), tt.typ, "c")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("CoerceValue(%s, %s) = %#v, %v; want error %q", tt.value, typeString(tt.typ), got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !valuesEqual(got, tt.want) {
			t.Errorf("CoerceValue(%s, %s) = %#v, %v; want %#v", tt.value, typeString(tt.typ), got, err, tt.want)
		}
	}
}

func TestCoerceValueSpecialFloats(t *testing.T) {
	for _, s := range []string{"NaN", "nan", "Inf", "+Infinity", "-inf"} {
		got, err := CoerceValue(s, basefile.Primitive(basefile.KindFloat), "c")
		f, ok := got.(float32)
		if err != nil || !ok || !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			t.Errorf("CoerceValue(%q, float) = %#v, %v", s, got, err)
		}
	}
}

// fuzzTypes are the types FuzzCoerceValue coerces to.
var fuzzTypes = []*basefile.Type{
	basefile.Primitive(basefile.KindBoolean), basefile.Primitive(basefile.KindInt), basefile.Primitive(basefile.KindLong), basefile.Primitive(basefile.KindFloat), basefile.Primitive(basefile.KindDouble),
	basefile.Primitive(basefile.KindString), basefile.Primitive(basefile.KindBytes), basefile.FixedType("f", 3), basefile.EnumType("e", "A", "B"), basefile.UUIDType(),
	basefile.DecimalType(9, 3), basefile.FixedDecimalType("fd", 16, 38, 10), basefile.DateType(), basefile.TimestampMicrosType(), basefile.TimestampMillisType(),
	basefile.ArrayType(basefile.Nullable(basefile.Primitive(basefile.KindInt))), basefile.MapType(basefile.DecimalType(5, 1)),
	basefile.RecordType("r", basefile.Field{Name: "a", Type: basefile.Primitive(basefile.KindLong)}, basefile.Field{Name: "b", Type: basefile.Nullable(basefile.ArrayType(basefile.Primitive(basefile.KindDouble)))}),
}

func FuzzCoerceValue(f *testing.F) {
	for _, s := range []string{`1`, `-1.5e3`, `"2024-01-01"`, `"2024-01-01T00:00:00.1234567Z"`, `"AAEC"`, `true`, `null`,
		`[1, null]`, `{"x": 1.5}`, `{"a": 1, "b": [1, 2]}`, `"NaN"`, `1e400`, `"1e-400"`, `99999999999999999999999999999`} {
		for i := range fuzzTypes {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		v, err := loose(text)
		if err != nil {
			return
		}
		typ := fuzzTypes[int(which)%len(fuzzTypes)]
		got, err := CoerceValue(v, typ, "c")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		checkModelRows(t, &basefile.Schema{Name: "row", Fields: []basefile.Field{{Name: "c", Type: typ}}}, [][]any{{got}})
	})
}

func TestInexactFloat(t *testing.T) {
	tests := []struct {
		s       string
		bitSize int
		want    bool
	}{
		{"16777216", 32, true},
		{"16777217", 32, false},
		{"16777218", 32, true},
		{"-16777217", 32, false},
		{"16777217", 64, true},
		{"9007199254740992", 64, true},
		{"9007199254740993", 64, false},
		{"9223372036854775807", 64, false},
		{"100000000000000000000", 64, true},
		{"100000000000000000001", 64, false},
		{"2.5", 64, true},
		{"0.1", 64, true},
		{"1e300", 64, true},
		// Written in full, a fraction beyond 2^53 is held exactly or lost.
		{"9007199254740993.0", 64, false},
		{"9007199254740992.5", 64, false},
		{"9007199254740992.0", 64, true},
		{"16777217.0", 32, false},
		{"9.007199254740993e15", 64, true}, // an exponent says the value is approximate
		// A number that is not zero must not become zero.
		{"1e-400", 64, false},
		{"1e-50", 32, false},
		{"-0.0", 64, true},
		{"0e-500", 64, true},
	}
	for _, tt := range tests {
		f, _ := strconv.ParseFloat(tt.s, tt.bitSize)
		if got := inexactFloat(tt.s, f, tt.bitSize) == ""; got != tt.want {
			t.Errorf("inexactFloat(%s, %d bits) = %q, want exact %v", tt.s, tt.bitSize, inexactFloat(tt.s, f, tt.bitSize), tt.want)
		}
	}
}

func TestScanNumber(t *testing.T) {
	for _, tt := range []struct {
		s         string
		ok, whole bool
	}{
		{"0", true, true}, {"-12", true, true}, {"1.5", true, false}, {"1e5", true, false}, {"-0.0E-0", true, false},
		{"", false, false}, {"-", false, false}, {"01", false, true}, {"1.", false, false}, {".5", false, false},
		{"+1", false, false}, {"1e", false, false}, {"0x1", false, true}, {"NaN", false, false}, {"1 ", false, true},
	} {
		ok, whole := scanNumber(tt.s)
		if ok != tt.ok || ok && whole != tt.whole {
			t.Errorf("scanNumber(%q) = %v, %v; want %v, %v", tt.s, ok, whole, tt.ok, tt.whole)
		}
		if ok != json.Valid([]byte(tt.s)) && !bytes.ContainsAny([]byte(tt.s), " ") {
			t.Errorf("scanNumber(%q) disagrees with encoding/json", tt.s)
		}
	}
}

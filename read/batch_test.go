package read

import (
	"reflect"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// vectorCases are values of every representation, nulls included.
var vectorCases = []struct {
	typ    *basefile.Type
	values []any
}{
	{nullable(basefile.KindBoolean), []any{true, nil, false, true}},
	{nullable(basefile.KindInt), []any{int32(1), int32(-2), nil, int32(4)}},
	{basefile.Nullable(basefile.DateType()), []any{basefile.Date(1), nil, basefile.Date(-3), basefile.Date(19448)}},
	{nullable(basefile.KindLong), []any{nil, int64(2), int64(3), int64(-4)}},
	{basefile.Nullable(basefile.TimestampMicrosType()), []any{time.UnixMicro(-1).UTC(), time.UnixMicro(2).UTC(), nil, time.UnixMicro(4).UTC()}},
	{nullable(basefile.KindFloat), []any{float32(1.5), nil, float32(3), float32(4)}},
	{nullable(basefile.KindDouble), []any{1.5, 2.5, 3.5, nil}},
	{nullable(basefile.KindString), []any{"a", "", nil, "dddd"}},
	{nullable(basefile.KindBytes), []any{[]byte("a"), []byte{}, []byte("ccc"), nil}},
	{basefile.Nullable(basefile.DecimalType(5, 2)), []any{basefile.NewDecimalInt64(1, 2), nil, basefile.NewDecimalInt64(-3, 2), basefile.NewDecimalInt64(4, 2)}},
	{basefile.Nullable(basefile.ArrayType(basefile.Primitive(basefile.KindInt))), []any{[]any{int32(1)}, []any{}, nil, []any{int32(4), int32(5)}}},
}

func vectorOf(t *testing.T, typ *basefile.Type, values []any) *Vector {
	t.Helper()
	v := newVector(typ)
	for _, x := range values {
		if err := v.appendValue(x); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func vectorValues(v *Vector) []any {
	out := make([]any, v.Len())
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}

func TestVectorKeepAndFill(t *testing.T) {
	for _, tt := range vectorCases {
		t.Run(typeName(tt.typ), func(t *testing.T) {
			v := vectorOf(t, tt.typ, tt.values)
			if got := vectorValues(v); !reflect.DeepEqual(got, tt.values) {
				t.Fatalf("values %v, want %v", got, tt.values)
			}
			v.keep([]int32{1, 2, 3})
			if got := vectorValues(v); !reflect.DeepEqual(got, tt.values[1:]) {
				t.Errorf("after keep: %v, want %v", got, tt.values[1:])
			}
			v.keep(nil)
			if v.Len() != 0 {
				t.Errorf("kept nothing, %d left", v.Len())
			}
			v.reset()
			for i := range tt.values {
				v.fill(vectorOf(t, tt.typ, tt.values[i:i+1]), 2)
			}
			var want []any
			for _, x := range tt.values {
				want = append(want, x, x)
			}
			if got := vectorValues(v); !reflect.DeepEqual(got, want) {
				t.Errorf("filled: %v, want %v", got, want)
			}
		})
	}
}

func TestVectorAppendValueChecksTypes(t *testing.T) {
	for _, tt := range []struct {
		typ *basefile.Type
		v   any
	}{
		{nullable(basefile.KindLong), int32(1)},
		{nullable(basefile.KindString), 5},
		{nullable(basefile.KindBoolean), "true"},
		{basefile.Nullable(basefile.DecimalType(5, 2)), 1.5},
	} {
		if err := newVector(tt.typ).appendValue(tt.v); err == nil {
			t.Errorf("%s accepted %T", typeName(tt.typ), tt.v)
		}
	}
}

func TestVectorAppendIndexedChecksIndexes(t *testing.T) {
	dict := vectorOf(t, nullable(basefile.KindString), []any{"a", "b"})
	v := newVector(nullable(basefile.KindString))
	if err := v.appendIndexed(dict, []int32{1, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := vectorValues(v), []any{"b", "a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if err := v.appendIndexed(dict, []int32{2}); err == nil {
		t.Error("index 2 of a dictionary of 2 accepted")
	}
}

func TestBatchRowAndKeep(t *testing.T) {
	b := &Batch{n: 4}
	for _, tt := range vectorCases {
		b.cols = append(b.cols, vectorOf(t, tt.typ, tt.values))
	}
	b.keep([]int32{0, 3})
	if b.Len() != 2 {
		t.Fatalf("Len %d", b.Len())
	}
	for i, tt := range vectorCases {
		if got := b.Row(1)[i]; !reflect.DeepEqual(got, tt.values[3]) {
			t.Errorf("column %d: %v, want %v", i, got, tt.values[3])
		}
	}
}

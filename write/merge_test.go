package write

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// TestCompareOrderingFloats checks that float precombine values order as
// Hudi orders them (Java's compareTo): NaN equal to itself and above every
// number, so that a stored NaN is not replaced by a smaller incoming value.
func TestCompareOrderingFloats(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		a, b any
		want int
	}{
		{1.0, 2.0, -1},
		{2.0, 1.0, 1},
		{nan, 5.0, 1},
		{5.0, nan, -1},
		{nan, nan, 0},
		{math.Inf(1), nan, -1},
		{math.Copysign(0, -1), 0.0, 0},
		{float32(nan), float32(1e38), 1},
		{float32(1), float32(nan), -1},
	}
	for _, tt := range tests {
		got, err := compareOrdering(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("compareOrdering(%v, %v) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
}

// TestInputRowOfWrongWidth checks that an Input row with fewer or more
// values than its schema has columns is refused with the record named, not
// a panic.
func TestInputRowOfWrongWidth(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	for _, cut := range []int{1, -1} {
		in := tripsInput(trips.NewGenerator(3).Inserts(5))
		if cut > 0 {
			in.Rows[3] = in.Rows[3][:len(in.Rows[3])-cut]
		} else {
			in.Rows[3] = append(in.Rows[3], "extra")
		}
		_, err := tt.w.Write(context.Background(), OpInsert, in)
		if err == nil || !strings.Contains(err.Error(), "record 4") || !strings.Contains(err.Error(), "values") {
			t.Errorf("a row of %d values: %v, want an error naming record 4", len(in.Rows[3]), err)
		}
	}
}

// TestIsDeletedColumnOfAnotherType checks that a _hoodie_is_deleted column
// that is not a boolean (an earlier Hoodie made it a string when a first
// write held nulls alone) takes inputs whose values in it are all null, and
// refuses, naming the record, one that holds a value in it.
func TestIsDeletedColumnOfAnotherType(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	gen := trips.NewGenerator(5)
	withColumn := func(ts []trips.Trip, value any) *Input {
		in := tripsInput(ts)
		in.Schema = &basefile.Schema{Name: in.Schema.Name, Namespace: in.Schema.Namespace,
			Fields: append(slices.Clone(in.Schema.Fields), basefile.Field{Name: IsDeletedColumn, Type: basefile.Nullable(basefile.Primitive(basefile.KindString))})}
		for i := range in.Rows {
			in.Rows[i] = append(in.Rows[i], value)
		}
		return in
	}
	tt.write(OpUpsert, withColumn(gen.Inserts(3), nil))
	tt.write(OpUpsert, withColumn(gen.Inserts(3), nil))
	_, err := tt.w.Write(ctx, OpUpsert, withColumn(gen.Inserts(2), "true"))
	if err == nil || !strings.Contains(err.Error(), "record 1") || !strings.Contains(err.Error(), "must hold booleans") {
		t.Fatalf("a string true in _hoodie_is_deleted: %v, want a refusal naming record 1", err)
	}
}

// TestInvalidText checks the UTF-8 check of values, nested ones included.
func TestInvalidText(t *testing.T) {
	tests := []struct {
		v    any
		want string
		bad  bool
	}{
		{"café", "", false},
		{"caf\xe9", "caf\xe9", true},
		{[]any{"a", []any{int64(1), "b\xff"}}, "b\xff", true},
		{map[string]any{"k": []any{"ok"}}, "", false},
		{map[string]any{"k\xff": "v"}, "k\xff", true},
		{map[string]any{"k": "v\xff"}, "v\xff", true},
		{[]byte("\xff"), "", false}, // bytes are not text
		{nil, "", false},
	}
	for _, tt := range tests {
		if s, bad := invalidText(tt.v); bad != tt.bad || (bad && s != tt.want) {
			t.Errorf("invalidText(%q) = %q, %v; want %q, %v", tt.v, s, bad, tt.want, tt.bad)
		}
	}
}

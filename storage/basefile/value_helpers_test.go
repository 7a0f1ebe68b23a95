package basefile

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// readAllValues reads every row of a base file as values.
func readAllValues(t testing.TB, bf *File) [][]any {
	t.Helper()
	rows := bf.Rows(t.Context())
	defer rows.Close()
	var out [][]any
	for {
		v, err := rows.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
}

// assertRowsEqual compares rows of values, reporting the first difference.
func assertRowsEqual(t testing.TB, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("row %d has %d values, want %d:\n%v", i, len(got[i]), len(want[i]), got[i])
		}
		for j := range want[i] {
			if !reflect.DeepEqual(got[i][j], want[i][j]) {
				t.Errorf("row %d value %d = %s, want %s", i, j, describe(got[i][j]), describe(want[i][j]))
			}
		}
	}
}

func describe(v any) string { return fmt.Sprintf("%#v", v) }

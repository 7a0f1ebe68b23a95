// Package basefiletest reads base files back for tests.
package basefiletest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Rows returns every row of the base file at path in fsys, in file order
// and in the value model, meta fields included if the file has them. It
// fails tb on any error.
func Rows(tb testing.TB, fsys storage.FS, path string) [][]any {
	tb.Helper()
	ctx := context.Background()
	bf, err := basefile.Open(ctx, fsys, path)
	if err != nil {
		tb.Fatal(err)
	}
	defer bf.Close()
	it := bf.Rows(ctx)
	defer it.Close()
	var rows [][]any
	for {
		values, err := it.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
		rows = append(rows, values)
	}
}

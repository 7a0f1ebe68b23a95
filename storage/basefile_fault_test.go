package storage_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

// TestBaseFileWriterFaults fails each file-system step of writing a base
// file in turn: the writer must report the failure, naming the file, and
// leave no file that reads as complete.
func TestBaseFileWriterFaults(t *testing.T) {
	schema, err := storage.ParseSchema([]byte(`{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	const rows = 3000
	write := func(fsys storage.FS) error {
		w, err := storage.NewBaseFileWriter(t.Context(), fsys, "p/f.parquet", schema, storage.BaseFileOptions{BlockSize: 16 << 10, PageSize: 4 << 10})
		if err != nil {
			return err
		}
		for i := range rows {
			key := strings.Repeat("k", i%7+1) + string(rune('a'+i%26))
			if err := w.WriteRow([]any{"c", "s", key, "p", "f.parquet", int64(i), []any{key, key}}); err != nil {
				return errors.Join(err, w.Abort())
			}
		}
		_, err = w.Close()
		return err
	}
	counter := faultfs.New(storage.NewMemFS(), 0)
	if err := write(counter); err != nil {
		t.Fatal(err)
	}
	steps := counter.Steps()
	if steps < 4 {
		t.Fatalf("writing took %d steps, want several writes", steps)
	}
	for step := 1; step <= steps; step++ {
		inner := storage.NewMemFS()
		err := write(faultfs.New(inner, step))
		if !errors.Is(err, faultfs.ErrInjected) || !strings.Contains(err.Error(), "f.parquet") {
			t.Fatalf("step %d: error %v, want the injected failure naming the file", step, err)
		}
		// Whatever is left must not read as a whole file.
		bf, err := storage.OpenBaseFile(t.Context(), inner, "p/f.parquet")
		if err != nil {
			continue
		}
		n := 0
		r := bf.Rows(t.Context())
		for {
			if _, err = r.Next(); err != nil {
				break
			}
			n++
		}
		r.Close()
		bf.Close()
		if errors.Is(err, io.EOF) && n == rows {
			// Only the final close may fail after the whole file is written.
			if step != steps {
				t.Errorf("step %d of %d failed, yet the file reads whole", step, steps)
			}
		}
	}
}

package basefile_test

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

// TestBaseFileWriterFaults fails each file-system step of writing a base
// file in turn: the writer must report the failure, naming the file, and
// leave no file that reads as complete.
func TestBaseFileWriterFaults(t *testing.T) {
	schema, err := basefile.ParseSchema([]byte(`{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Enough rows that parquet-go's 256 KiB write buffer fills before the
	// file's tail, which the writer mends in memory.
	const rows = 40000
	write := func(fsys storage.FS) error {
		w, err := basefile.NewWriter(t.Context(), fsys, "p/f.parquet", schema, basefile.Options{BlockSize: 16 << 10, PageSize: 4 << 10})
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
	_, steps := countSteps(t, write, 4)
	for step := 1; step <= steps; step++ {
		inner := storage.NewMemFS()
		err := write(faultfs.New(inner, step))
		if !errors.Is(err, faultfs.ErrInjected) || !strings.Contains(err.Error(), "f.parquet") {
			t.Fatalf("step %d: error %v, want the injected failure naming the file", step, err)
		}
		// Whatever is left must not read as a whole file.
		bf, err := basefile.Open(t.Context(), inner, "p/f.parquet")
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

// TestColumnarWriterFaults fails each file-system step of writing a base
// file with the columnar writer in turn (a flat schema, NewRecordsOnly):
// WriteNew or Close must report the failure, naming the file, and what is
// left must not read as a whole file; without a failure the file reads
// back every record.
func TestColumnarWriterFaults(t *testing.T) {
	schema, err := basefile.ParseSchema([]byte(`{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"name","type":["null","string"]},{"name":"x","type":"double"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	const rows = 3000
	meta := &basefile.NewRecordMeta{CommitTime: "20261129000000000", SeqNoPrefix: "20261129000000000_0_", PartitionPath: "p", FileName: "f.parquet"}
	keys := make([]string, rows)
	data := make([][]any, rows)
	for i := range rows {
		keys[i] = strings.Repeat("k", i%7+1) + strconv.Itoa(i)
		var name any
		if i%3 != 0 {
			name = keys[i]
		}
		data[i] = []any{int64(i), name, float64(i) / 3}
	}
	write := func(fsys storage.FS) error {
		w, err := basefile.NewWriter(t.Context(), fsys, "p/f.parquet", schema, basefile.Options{BlockSize: 16 << 10, PageSize: 4 << 10, NewRecordsOnly: true})
		if err != nil {
			return err
		}
		if !basefile.IsColumnarWriter(w) {
			t.Fatal("not the columnar writer")
		}
		for start := 0; start < rows; start += 700 {
			end := min(start+700, rows)
			if err := w.WriteNew(meta, int64(start), keys[start:end], data[start:end]); err != nil {
				return errors.Join(err, w.Abort())
			}
		}
		_, err = w.Close()
		return err
	}
	counter, steps := countSteps(t, write, 6)
	bf, err := basefile.Open(t.Context(), counter, "p/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, bf); n != rows {
		t.Fatalf("the file written without faults reads %d rows, want %d", n, rows)
	}
	for step := 1; step <= steps; step++ {
		inner := storage.NewMemFS()
		fsys := faultfs.New(inner, step)
		err := write(fsys)
		if !errors.Is(err, faultfs.ErrInjected) || !strings.Contains(err.Error(), "f.parquet") {
			t.Fatalf("step %d: error %v, want the injected failure naming the file", step, err)
		}
		// The writer must try to remove what it wrote.
		if trace := fsys.Trace(); step > 1 && !slices.Contains(trace, "remove p/f.parquet") {
			t.Errorf("step %d: the partial file was not removed: %v", step, trace[max(0, len(trace)-3):])
		}
		// The file cannot be removed either (every step after the fault
		// fails), but what is left must not read as a whole file.
		bf, err := basefile.Open(t.Context(), inner, "p/f.parquet")
		if err != nil {
			continue
		}
		if n := countRows(t, bf); n == rows && step != steps {
			t.Errorf("step %d of %d failed, yet the file reads whole", step, steps)
		}
	}
}

// countRows returns how many rows of bf read before the first error, and
// closes it.
func countRows(t *testing.T, bf *basefile.File) int {
	t.Helper()
	defer bf.Close()
	r := bf.Rows(t.Context())
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				return -1 - n
			}
			return n
		}
		n++
	}
}

// countSteps runs write without faults and returns its file system and the
// number of file-system steps it took, which must be at least least.
func countSteps(t *testing.T, write func(storage.FS) error, least int) (*faultfs.FS, int) {
	t.Helper()
	counter := faultfs.New(storage.NewMemFS(), 0)
	if err := write(counter); err != nil {
		t.Fatal(err)
	}
	steps := counter.Steps()
	if steps < least {
		t.Fatalf("writing took %d steps, want %d or more", steps, least)
	}
	return counter, steps
}

package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/write"
)

// DecodeParquet reads a Parquet file, a Hudi base file or any other. Its
// schema comes from its parquet.avro.schema footer, or is derived from its
// Parquet schema; its values keep their types. name and table are as for
// Decode. Parquet needs random access: r is read in place if it is a
// regular *os.File, and copied to a temporary file otherwise.
func DecodeParquet(ctx context.Context, r io.Reader, name string, table *basefile.Schema) (in *write.Input, err error) {
	path, cleanup, err := localFile(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer cleanup()
	fsys, err := storage.NewLocalFS(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	bf, err := basefile.Open(ctx, fsys, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if cerr := bf.Close(); cerr != nil && err == nil {
			in, err = nil, fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	schema, keep := parquetInputSchema(bf.Schema(), table)
	if len(keep) == 0 {
		return nil, fmt.Errorf("%s: the file has no columns besides Hudi's meta columns", name)
	}
	rows := make([][]any, 0, bf.NumRows())
	it := bf.Rows(ctx)
	defer it.Close()
	for {
		values, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &write.RecordError{Input: name, Line: len(rows) + 1, ByPosition: true, Err: err}
		}
		if len(keep) < len(values) {
			for i, k := range keep {
				values[i] = values[k]
			}
			values = values[:len(keep):len(keep)]
		}
		rows = append(rows, values)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	return &write.Input{Name: name, Schema: schema, Rows: rows}, nil
}

// parquetInputSchema returns the input schema of a file of schema file: its
// fields other than meta fields, made nullable, in a record named after
// table ("record" when nil). keep holds the index in file of each field kept.
func parquetInputSchema(file, table *basefile.Schema) (*basefile.Schema, []int) {
	s := &basefile.Schema{Name: "record"}
	if table != nil {
		s.Name, s.Namespace = table.Name, table.Namespace
	}
	var keep []int
	for i, f := range file.Fields {
		if basefile.IsMetaField(f.Name) {
			continue
		}
		f.Type = basefile.Nullable(f.Type)
		s.Fields = append(s.Fields, f)
		keep = append(keep, i)
	}
	return s, keep
}

// localFile returns the path of a local file holding what r reads: r's own
// file when it is a regular file, otherwise a temporary copy (Parquet needs
// random access), which cleanup removes.
func localFile(ctx context.Context, r io.Reader) (path string, cleanup func(), err error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return f.Name(), func() {}, nil
		}
	}
	dir, err := os.MkdirTemp("", "hoodie-ingest-")
	if err != nil {
		return "", nil, fmt.Errorf("buffer the input: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	// Errors name the copy by its base name: keep it short.
	path = filepath.Join(dir, "input.parquet")
	tmp, err := os.Create(path)
	if err == nil {
		_, err = io.Copy(tmp, contextReader{ctx, r})
		err = errors.Join(err, tmp.Close())
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("buffer the input: %w", err)
	}
	return path, cleanup, nil
}

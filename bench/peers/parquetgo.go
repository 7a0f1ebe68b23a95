package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

// parquetTrip is a trip with the Parquet column names of trips.Columns.
type parquetTrip struct {
	UUID          string  `parquet:"uuid"`
	TS            int64   `parquet:"ts"`
	Rider         string  `parquet:"rider"`
	Driver        string  `parquet:"driver"`
	Fare          float64 `parquet:"fare"`
	PartitionPath string  `parquet:"partitionpath"`
}

// runParquetGo times writing ts with parquet-go, zstd-compressed, into one
// file per partition, the three files written concurrently, and checks the
// files' row counts. Splitting the trips by partition is part of the timed
// work.
func runParquetGo(ts []trips.Trip, work string, run int, keep bool, t *timings) error {
	dir := filepath.Join(work, fmt.Sprintf("parquet-go-%d", run))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("making the folder: %w", err)
	}
	if !keep {
		defer os.RemoveAll(dir)
	}

	start := t.startTimer(wlParquetGo)
	parts := map[string][]parquetTrip{}
	for _, tr := range ts {
		parts[tr.PartitionPath] = append(parts[tr.PartitionPath], parquetTrip(tr))
	}
	errs := make(chan error, len(parts))
	paths := map[string]string{}
	for p, rows := range parts {
		path := filepath.Join(dir, strings.ReplaceAll(p, "/", "_")+".parquet")
		paths[p] = path
		go func() { errs <- writeParquet(path, rows) }()
	}
	var err error
	for range parts {
		err = errors.Join(err, <-errs)
	}
	if err != nil {
		return err
	}
	t.add(wlParquetGo, len(ts), start.stop())

	for p, path := range paths {
		n, err := parquetRows(path)
		if err != nil {
			return err
		}
		if n != int64(len(parts[p])) {
			return fmt.Errorf("%s: %d rows, want %d", path, n, len(parts[p]))
		}
	}
	return nil
}

// writeParquet writes rows to a new zstd-compressed Parquet file at path.
func writeParquet(path string, rows []parquetTrip) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the file: %w", err)
	}
	w := parquet.NewGenericWriter[parquetTrip](f, parquet.Compression(&parquet.Zstd))
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("closing the writer of %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	return nil
}

// parquetRows returns the number of rows the Parquet file at path holds.
func parquetRows(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("opening the written file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("reading the written file: %w", err)
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return pf.NumRows(), nil
}

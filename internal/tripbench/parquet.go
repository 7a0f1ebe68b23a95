package tripbench

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// baseRow is a trip as a Hudi base file holds it, the five meta columns
// first, every column optional, for parquet-go to write from Go structs.
type baseRow struct {
	CommitTime    string  `parquet:"_hoodie_commit_time,optional"`
	CommitSeqNo   string  `parquet:"_hoodie_commit_seqno,optional"`
	RecordKey     string  `parquet:"_hoodie_record_key,optional"`
	PartitionMeta string  `parquet:"_hoodie_partition_path,optional"`
	FileName      string  `parquet:"_hoodie_file_name,optional"`
	UUID          string  `parquet:"uuid,optional"`
	TS            int64   `parquet:"ts,optional"`
	Rider         string  `parquet:"rider,optional"`
	Driver        string  `parquet:"driver,optional"`
	Fare          float64 `parquet:"fare,optional"`
	PartitionPath string  `parquet:"partitionpath,optional"`
}

// fileJob is one file of WriteParquet: its path, its number among the
// files, and its trips.
type fileJob struct {
	path  string
	num   int
	trips []trips.Trip
}

// WriteParquet is the baseline of a bulk insert: plain parquet-go writing ts
// from Go structs with the five Hudi meta columns (commit time instant, a
// sequence number, key, partition path and file name), zstd-compressed,
// into files[p] files under dir/p for each partition p of the trips, each
// file holding an equal share of its partition's trips. At most parallelism
// files are written at once. Splitting the trips by partition and building
// the rows is part of the work, as it is for a bulk insert. It returns the
// paths of the files, partition by partition in sorted order.
func WriteParquet(dir, instant string, ts []trips.Trip, files map[string]int, parallelism int) ([]string, error) {
	byPartition := map[string][]trips.Trip{}
	for _, t := range ts {
		byPartition[t.PartitionPath] = append(byPartition[t.PartitionPath], t)
	}
	var jobs []fileJob
	for _, p := range slices.Sorted(maps.Keys(byPartition)) {
		n := files[p]
		if n < 1 {
			return nil, fmt.Errorf("parquet-go baseline: no file count for partition %s", p)
		}
		folder := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return nil, fmt.Errorf("parquet-go baseline: %w", err)
		}
		part := byPartition[p]
		for i := range n {
			jobs = append(jobs, fileJob{
				path:  filepath.Join(folder, strconv.Itoa(len(jobs))+".parquet"),
				num:   len(jobs),
				trips: part[len(part)*i/n : len(part)*(i+1)/n],
			})
		}
	}
	errs := make([]error, len(jobs))
	slots := make(chan struct{}, max(parallelism, 1))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = writeFile(job, instant)
		})
	}
	wg.Wait()
	paths := make([]string, len(jobs))
	for i, job := range jobs {
		paths[i] = job.path
	}
	return paths, errors.Join(errs...)
}

// writeFile writes the trips of job, with their meta columns, to a new
// zstd-compressed Parquet file.
func writeFile(job fileJob, instant string) error {
	name := filepath.Base(job.path)
	seqPrefix := instant + "_" + strconv.Itoa(job.num) + "_"
	rows := make([]baseRow, len(job.trips))
	for i, t := range job.trips {
		rows[i] = baseRow{
			CommitTime: instant, CommitSeqNo: seqPrefix + strconv.Itoa(i), RecordKey: t.UUID,
			PartitionMeta: t.PartitionPath, FileName: name,
			UUID: t.UUID, TS: t.TS, Rider: t.Rider, Driver: t.Driver, Fare: t.Fare, PartitionPath: t.PartitionPath,
		}
	}
	// The codec of base files (zstd at its fastest level), so that both
	// sides compress alike.
	codec, err := basefile.CompressionCodec("")
	if err != nil {
		return fmt.Errorf("parquet-go baseline: %w", err)
	}
	f, err := os.Create(job.path)
	if err != nil {
		return fmt.Errorf("parquet-go baseline: %w", err)
	}
	w := parquet.NewGenericWriter[baseRow](f, parquet.Compression(codec))
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return fmt.Errorf("parquet-go baseline: write %s: %w", job.path, err)
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("parquet-go baseline: finish %s: %w", job.path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("parquet-go baseline: close %s: %w", job.path, err)
	}
	return nil
}

// ParquetRows returns the number of rows the footer of the Parquet file at
// path states.
func ParquetRows(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		return 0, fmt.Errorf("read the footer of %s: %w", path, err)
	}
	return pf.NumRows(), nil
}

package write

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// partitionMetadataFailingFS fails every write of a partition metadata
// file (see failCreateFS) once the first base file of the write has been
// created, or after a second: the write's files and its partitions'
// folders then exist without the metadata, as when a slow store fails it.
type partitionMetadataFailingFS struct {
	failCreateFS
	once    sync.Once
	created chan struct{}
}

func (f *partitionMetadataFailingFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	w, err := f.FS.Create(ctx, name)
	if strings.HasSuffix(name, ".parquet") {
		f.once.Do(func() { close(f.created) })
	}
	return w, err
}

func (f *partitionMetadataFailingFS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if strings.HasSuffix(name, f.suffix) {
		select {
		case <-f.created:
		case <-time.After(time.Second):
		}
	}
	return f.failCreateFS.CreateIfAbsent(ctx, name, data)
}

// TestFailedWriteLeavesNoPartitionFolders checks that a write whose
// partition metadata fails while its files are being written leaves no
// folder behind: its files create their partitions' folders before the
// metadata, which the rollback cannot then find the partitions by.
func TestFailedWriteLeavesNoPartitionFolders(t *testing.T) {
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	fsys := &partitionMetadataFailingFS{failCreateFS: failCreateFS{FS: tt.fsys, suffix: config.PartitionMetadataFile}, created: make(chan struct{})}
	w := newTestWriter(fsys, tt.dir, Settings{})
	_, err := w.Write(context.Background(), OpInsert, tripsInput(trips.NewGenerator(1).Inserts(30)))
	if !errors.Is(err, errAfterCreate) {
		t.Fatalf("write: %v, want the injected error", err)
	}
	var left []string
	err = filepath.WalkDir(tt.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(tt.dir, p)
		if err != nil {
			return err
		}
		switch rel {
		case storage.MetaFolder:
			return filepath.SkipDir
		case ".":
			return nil
		}
		left = append(left, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the rolled back write left %v in the table folder", left)
	}
}

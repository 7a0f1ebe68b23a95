package export

import (
	"context"
	"fmt"
	"io"
	"path"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// copyTable makes dst a copy of the table whose latest snapshot is view, as
// Hudi's exporter does for its HUDI format: the latest base files, the
// partition metadata files of their partitions, hoodie.properties, and the
// files of every instant completed at or before the snapshot (its
// requested and inflight files too, which Hudi keeps). Pending instants,
// older file versions and later instants are left out.
func (e *exporter) copyTable(ctx context.Context, tl *timeline.Timeline, view *read.View) error {
	err := e.eachSlice(ctx, func(ctx context.Context, _ int, s read.FileSlice) error {
		n, err := copyFile(ctx, e.src, e.dst, s.Path, s.Path)
		if err != nil {
			return err
		}
		e.fileDone(1, 0, n)
		return nil
	})
	if err != nil {
		return err
	}
	for _, part := range view.Partitions() {
		name, ok, err := config.FindPartitionMetadata(ctx, e.src, part)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("partition %q has no %s file", part, config.PartitionMetadataFile)
		}
		if err := e.copyMeta(ctx, name, name); err != nil {
			return err
		}
	}
	props := storage.PropertiesFile
	if ok, err := storage.Exists(ctx, e.src, props); err != nil {
		return fmt.Errorf("check %s: %w", props, err)
	} else if !ok {
		// A writer died updating it; Hudi's readers use the backup then.
		props = storage.PropertiesBackupFile
	}
	if err := e.copyMeta(ctx, props, storage.PropertiesFile); err != nil {
		return err
	}
	names, err := instantFiles(ctx, e.src, tl, view.AsOf())
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := e.copyMeta(ctx, name, name); err != nil {
			return err
		}
	}
	return nil
}

// copyMeta copies a metadata file, counting its bytes.
func (e *exporter) copyMeta(ctx context.Context, from, to string) error {
	n, err := copyFile(ctx, e.src, e.dst, from, to)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.res.Bytes += n
	e.mu.Unlock()
	return nil
}

// instantFiles lists the timeline files of the instants completed at or
// before asOf, in the timeline's folder (.hoodie, or .hoodie/timeline in
// table version 8), in the order of their names (by instant time, then the
// requested, inflight and completed files of one instant by their
// suffixes); nothing when asOf is "".
func instantFiles(ctx context.Context, fsys storage.FS, tl *timeline.Timeline, asOf string) ([]string, error) {
	if asOf == "" {
		return nil, nil
	}
	completed := map[string]bool{}
	for _, in := range tl.Completed().AtOrBefore(asOf).Instants() {
		completed[in.Time] = true
	}
	layout := tl.Layout()
	entries, err := fsys.ReadDir(ctx, layout.Folder)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", layout.Folder, err)
	}
	var names []string
	for _, entry := range entries {
		if entry.IsDir {
			continue
		}
		in, _, ok, err := layout.ParseFileName(entry.Name)
		if err != nil {
			return nil, err
		}
		if ok && completed[in.Time] {
			names = append(names, path.Join(layout.Folder, entry.Name))
		}
	}
	return names, nil
}

// copyFile streams the file from on src to the new file to on dst and
// returns its size.
func copyFile(ctx context.Context, src, dst storage.FS, from, to string) (int64, error) {
	in, err := src.Open(ctx, from)
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", from, err)
	}
	defer in.Close()
	out, err := dst.Create(ctx, to)
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", from, err)
	}
	n, err := io.Copy(out, &ctxReader{ctx: ctx, r: io.NewSectionReader(in, 0, in.Size())})
	if err != nil {
		out.Close()
		return n, fmt.Errorf("copy %s: %w", from, err)
	}
	if err := out.Close(); err != nil {
		return n, fmt.Errorf("copy %s: %w", from, err)
	}
	return n, nil
}

// ctxReader stops reading once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

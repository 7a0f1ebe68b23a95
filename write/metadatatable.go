package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// Hudi's metadata table: its folder, and the hoodie.properties keys that
// tell readers which of its partitions they may use.
const (
	metadataTableFolder           = storage.MetaFolder + "/metadata"
	keyMetadataPartitions         = "hoodie.table.metadata.partitions"
	keyMetadataPartitionsInflight = "hoodie.table.metadata.partitions.inflight"
)

// dropMetadataTable removes the metadata table a Spark writer left, as Hudi
// does for a writer that runs with the metadata table disabled: Hoodie does
// not maintain one, and a metadata table that misses Hoodie's commits makes
// Spark, which lists files from it by default, read and merge into file
// slices older than Hoodie's (it reverts Hoodie's updates on its next
// write).
//
// First hoodie.table.metadata.partitions (and .inflight) are cleared, an
// atomic update of hoodie.properties; readers then no longer use the
// metadata table. Only then is its folder removed. A crash in between
// leaves a folder that no reader uses, which the next write removes; no
// crash leaves a metadata table that readers trust and that misses a
// commit, since this runs before the write's instant is requested. A
// Spark writer with the metadata table on builds it anew from the files.
//
// It returns cfg as it is now.
func dropMetadataTable(ctx context.Context, fsys storage.FS, cfg *config.Table, now time.Time) (*config.Table, error) {
	partitions, _ := cfg.Extra.Get(keyMetadataPartitions)
	inflight, _ := cfg.Extra.Get(keyMetadataPartitionsInflight)
	if partitions != "" || inflight != "" {
		updated := *cfg
		updated.Extra = cfg.Extra.Clone()
		updated.Extra.Set(keyMetadataPartitions, "")
		updated.Extra.Set(keyMetadataPartitionsInflight, "")
		if err := config.Update(ctx, fsys, &updated, now); err != nil {
			return nil, fmt.Errorf("disable the metadata table: %w", err)
		}
		cfg = &updated
	}
	if _, err := fsys.Stat(ctx, metadataTableFolder); errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	} else if err != nil {
		return nil, fmt.Errorf("look for the metadata table: %w", err)
	}
	if err := fsys.RemoveAll(ctx, metadataTableFolder); err != nil {
		return nil, fmt.Errorf("remove the metadata table %s: %w", metadataTableFolder, err)
	}
	return cfg, nil
}

package write

import (
	"context"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// CheckTableVersion refuses a table of a version Hoodie reads but does not
// write (storage.ReadOnlyTableVersion, Hudi 1.x) with a *RefusedError
// wrapping storage.ErrVersionReadOnly that says what to do instead. Writers
// call it before they take the writer lock, whose file would be the first
// thing they write to the table.
func CheckTableVersion(ctx context.Context, fsys storage.FS) error {
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		return err
	}
	if cfg.Version != config.TableVersion {
		return &RefusedError{fmt.Errorf("table %s: %w", cfg.Name, cfg.CheckWritable())}
	}
	return nil
}

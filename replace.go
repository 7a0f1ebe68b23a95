package hoodie

import (
	"context"

	"github.com/hoodie-dev/hoodie/write"
)

// DeletePartitions removes whole partitions, given as partition paths, as
// one replacecommit (Hudi's delete_partition), or commits nothing and
// returns an error. A partition the table does not hold refuses the delete
// (an error wrapping write.ErrRefused), and so may opts.Hook. Insert
// overwrites go through Write, with write.OpInsertOverwrite and
// write.OpInsertOverwriteTable.
func (t *Table) DeletePartitions(ctx context.Context, opts WriteOptions, partitions ...string) (*write.Result, error) {
	return t.writer(opts).DeletePartitions(ctx, partitions)
}

package hoodie

import (
	"context"

	"github.com/hoodie-dev/hoodie/write"
)

// Cluster rewrites the table's small file groups into full ones, sorted by
// the sort columns the settings name, as one replacecommit holding Hudi's
// clustering plan, or completes a clustering left pending (see
// write.Writer.Cluster). A table with nothing to cluster commits nothing:
// the result's Instant is "". opts.Hook may refuse the clustering.
func (t *Table) Cluster(ctx context.Context, opts WriteOptions) (*write.Result, error) {
	return t.writer(opts).Cluster(ctx)
}

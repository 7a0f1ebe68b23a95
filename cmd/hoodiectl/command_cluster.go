package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/write"
)

func newClusterCommand(io streams) *cobra.Command {
	var flags writeFlags
	cmd := &cobra.Command{
		Use:   "cluster TABLE",
		Short: "Rewrite small file groups into full, optionally sorted ones",
		Long: `cluster rewrites the small file groups of each partition into file groups of
the target size, as one replacecommit holding Hudi's clustering plan (Hudi's
size-based plan strategy and sort-and-size execution). Records keep their
meta fields but _hoodie_file_name, commit times included. The settings:
hoodie.clustering.plan.strategy.small.file.limit (300 MiB),
hoodie.clustering.plan.strategy.target.file.max.bytes (1 GiB),
hoodie.clustering.plan.strategy.max.bytes.per.group (2 GiB),
hoodie.clustering.plan.strategy.max.num.groups (30) and
hoodie.clustering.plan.strategy.sort.columns (none: record key order).

A clustering left pending (a killed cluster, or one Spark scheduled) is
completed instead. Writes meanwhile leave its file groups alone. The
instant time is printed as the last line of standard output; a table with
nothing to cluster commits nothing and prints none.`,
		Example: `  hoodiectl cluster /tmp/trips
  hoodiectl cluster /tmp/trips --set hoodie.clustering.plan.strategy.sort.columns=rider,ts`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("expected TABLE, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, opts, err := openForWrite(cmd.Context(), io, args[0], &flags)
			if err != nil {
				return err
			}
			res, err := t.Cluster(cmd.Context(), opts)
			if err == nil && res.Instant == "" {
				fmt.Fprintln(io.err, "cluster: no file groups to cluster; nothing committed")
				return nil
			}
			return reportWrite(io, write.OpCluster, res, err)
		},
	}
	flags.registerSettings(cmd)
	return cmd
}

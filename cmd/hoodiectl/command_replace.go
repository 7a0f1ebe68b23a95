package main

import (
	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/write"
)

// replaceCommands are the insert overwrites, write commands whose commit
// is a replacecommit.
var replaceCommands = []writeCommandSpec{
	{write.OpInsertOverwrite, "Replace the partitions the input touches with the input's records",
		`insert-overwrite replaces every file group of each partition that a record of
FILE goes to with new file groups holding the input's records, as one
replacecommit (Hudi's insert_overwrite). Partitions the input does not touch
stay as they are. A key the table holds in a partition that is not replaced
refuses the write (exit 1), as a key lives in one partition, unless
--drop-duplicates skips such records. An empty input is refused (exit 1):
delete-partition removes partitions.`,
		`  hoodiectl insert-overwrite /tmp/trips trips_2024_06_01.jsonl`},
	{write.OpInsertOverwriteTable, "Replace the whole table with the input's records",
		`insert-overwrite-table replaces every file group of the table with new file
groups holding the input's records, as one replacecommit (Hudi's
insert_overwrite_table). An empty input is refused (exit 1).`,
		`  hoodiectl insert-overwrite-table /tmp/trips trips.parquet --format parquet`},
}

func newReplaceCommands(io streams) []*cobra.Command {
	out := make([]*cobra.Command, 0, len(replaceCommands)+1)
	for _, spec := range replaceCommands {
		out = append(out, newWriteCommand(io, spec))
	}
	return append(out, newDeletePartitionCommand(io))
}

func newDeletePartitionCommand(io streams) *cobra.Command {
	var flags writeFlags
	cmd := &cobra.Command{
		Use:   "delete-partition TABLE PARTITION...",
		Short: "Remove whole partitions",
		Long: `delete-partition removes whole partitions, given as their partition paths (as
_hoodie_partition_path holds them: "americas/brazil/sao_paulo", or
"region=americas" in a table with hive-style partitions), as one replacecommit
(Hudi's delete_partition). A partition the table does not hold refuses the
delete (exit 1), with nothing committed. The instant time is printed as the
last line of standard output. --props and --set take Hudi's write settings,
the pre-commit validators among them.`,
		Example: `  hoodiectl delete-partition /tmp/trips americas/brazil/sao_paulo asia/india/chennai`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("expected TABLE PARTITION..., got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, opts, err := openForWrite(cmd.Context(), io, args[0], &flags)
			if err != nil {
				return err
			}
			res, err := t.DeletePartitions(cmd.Context(), opts, args[1:]...)
			return reportWrite(io, write.OpDeletePartition, res, err)
		},
	}
	flags.registerSettings(cmd)
	return cmd
}

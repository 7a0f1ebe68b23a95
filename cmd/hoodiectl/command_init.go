package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func newInitCommand(io streams) *cobra.Command {
	var (
		name, recordKey, precombine, partitionBy, mergeMode, schemaFile string
		hiveStyle, noMetaFields                                         bool
		sets                                                            []string
	)
	cmd := &cobra.Command{
		Use:   "init TABLE --name NAME --record-key COL[,COL...] [flags]",
		Short: "Create an empty table (Hudi table version 6, copy-on-write)",
		Long: `init creates an empty copy-on-write table at the folder TABLE: the .hoodie
metadata folder and hoodie.properties, as Apache Hudi 0.14+ (table version 6)
lays them out. It refuses to touch a folder that already holds a table, or
one inside another table's folders (its .hoodie folder included). The
table's instant times are UTC (hoodie.table.timeline.timezone=UTC), for every
writer, Spark included, wherever it runs.

The record key is one column, or several (Hudi's complex key "c1:v1,c2:v2").
The precombine column decides between two versions of a record. Partition
columns name the folders records are written to: "value" folders, or
"col=value" with --hive-style.

With --no-meta-fields (hoodie.populate.meta.fields=false) the base files hold
the data columns alone, without Hudi's five meta columns and the footer's
bloom filter: smaller files and faster writes, but Spark's bloom index cannot
use them, and reads show no stored commit time or sequence number per record.

Without --schema, the first write infers the table's schema from its
input. --schema FILE.avsc sets it instead: an Avro record schema, as Hudi
stores it (hoodie.table.create.schema), whose types the writes then follow
(int, float, decimal, date and timestamp columns, required fields). Later
writes may add nullable columns and widen numbers, as with an inferred one.

--set KEY=VALUE (repeatable) gives the table Hudi's timestamp-based key
generator (org.apache.hudi.keygen.TimestampBasedKeyGenerator) with its
hoodie.keygen.timebased.* settings, kept in hoodie.properties: the
partition folder is the partition column's date-time or number formatted
in hoodie.keygen.timebased.output.dateformat. It takes one record key
column and one partition column. docs/cli.md lists the settings and the
pattern letters Hoodie translates.`,
		Example: `  hoodiectl init /tmp/trips --name trips --record-key uuid --precombine ts --partition-by partitionpath
  hoodiectl init /tmp/people --name people --record-key id,name --partition-by country,city --hive-style
  hoodiectl init /tmp/events --name events --record-key id --merge-mode commit-time
  hoodiectl init /tmp/logs --name logs --record-key id --partition-by day --no-meta-fields
  hoodiectl init /tmp/orders --name orders --record-key id --precombine ts --schema orders.avsc
  hoodiectl init /tmp/clicks --name clicks --record-key id --partition-by at \
    --set hoodie.keygen.timebased.timestamp.type=DATE_STRING \
    --set "hoodie.keygen.timebased.input.dateformat=yyyy-MM-dd HH:mm:ss" \
    --set hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd --set hoodie.keygen.timebased.timezone=UTC`,
		Args: exactArgs(1, "TABLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return usagef("init needs --name")
			}
			keys := splitColumns(recordKey)
			if len(keys) == 0 {
				return usagef("init needs --record-key")
			}
			switch config.MergeMode(mergeMode) {
			case "", config.MergeEventTime, config.MergeCommitTime:
			default:
				return usagef("--merge-mode %q: want event-time or commit-time", mergeMode)
			}
			spec := hoodie.TableSpec{
				Name:         name,
				RecordKey:    keys,
				Precombine:   precombine,
				PartitionBy:  splitColumns(partitionBy),
				HiveStyle:    hiveStyle,
				MergeMode:    config.MergeMode(mergeMode),
				NoMetaFields: noMetaFields,
			}
			if err := spec.Check(); err != nil {
				return usagef("init %s: %w", args[0], err)
			}
			if len(sets) > 0 {
				keygen, err := timestampKeygen(sets)
				if err != nil {
					return err
				}
				spec.TimestampKeyGen = keygen
				if err := spec.Check(); err != nil {
					return fmt.Errorf("init %s: %w; nothing was created", args[0], err)
				}
			}
			if schemaFile != "" {
				schema, err := readSchema(schemaFile)
				if err != nil {
					return fmt.Errorf("init %s: %w; nothing was created", args[0], err)
				}
				spec.Schema = schema
				if err := spec.Check(); err != nil {
					return fmt.Errorf("init %s: --schema %s: %w; nothing was created", args[0], schemaFile, err)
				}
			}
			if err := checkLocal(args[0]); err != nil {
				return err
			}
			t, err := hoodie.Create(cmd.Context(), args[0], spec)
			var created *hoodie.CreateError
			if errors.As(err, &created) {
				err = created.Err
				if errors.Is(err, config.ErrTableExists) || errors.Is(err, config.ErrInsideTable) {
					return fmt.Errorf("init %s: %w; nothing was changed", args[0], err)
				}
				return fmt.Errorf("init %s: %w", args[0], err)
			}
			if err != nil {
				return err
			}
			cfg, err := t.Config(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(io.out, "created table %s at %s (record key %s, merge mode %s)\n",
				name, args[0], strings.Join(keys, ","), cfg.MergeMode())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "table name (hoodie.table.name)")
	f.StringVar(&recordKey, "record-key", "", "record key column(s), comma-separated")
	f.StringVar(&precombine, "precombine", "", "precombine column: the greater value wins between versions of a record")
	f.StringVar(&partitionBy, "partition-by", "", "partition column(s), comma-separated; none for a non-partitioned table")
	f.BoolVar(&hiveStyle, "hive-style", false, `name partition folders "col=value"`)
	f.StringVar(&mergeMode, "merge-mode", "", "event-time (default with --precombine) or commit-time")
	f.BoolVar(&noMetaFields, "no-meta-fields", false, "write files without Hudi's meta columns (hoodie.populate.meta.fields=false)")
	f.StringVar(&schemaFile, "schema", "", "the table's schema, an Avro record schema file (.avsc); inferred from the first write without it")
	f.StringArrayVar(&sets, "set", nil, "a hoodie.keygen.timebased.* setting KEY=VALUE (repeatable): the table's key generator is Hudi's timestamp-based one")
	return cmd
}

// timestampKeygen reads init's --set settings, KEY=VALUE each: those of
// Hudi's timestamp-based key generator, which TableSpec checks.
func timestampKeygen(sets []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("--set %q: want KEY=VALUE", kv)
		}
		out[k] = v
	}
	return out, nil
}

// readSchema reads the Avro schema in file.
func readSchema(file string) (*basefile.Schema, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--schema: %w", err)
	}
	schema, err := basefile.ParseSchema(data)
	if err != nil {
		return nil, fmt.Errorf("--schema %s: %w", file, err)
	}
	return schema, nil
}

// splitColumns splits a comma-separated list of column names, dropping blanks.
func splitColumns(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// openFS opens the file system of a table path. Only local folders are
// supported for now.
func openFS(table string) (storage.FS, error) {
	if err := checkLocal(table); err != nil {
		return nil, err
	}
	fsys, err := storage.NewLocalFS(table)
	if err != nil {
		return nil, err
	}
	return fsys, nil
}

// checkLocal refuses a table path that is a URL: only local folders are
// supported for now.
func checkLocal(table string) error {
	if i := strings.Index(table, "://"); i > 0 && !strings.ContainsAny(table[:i], "/\\") {
		return fmt.Errorf("table %s: %s:// paths are not supported yet; give a local folder", table, table[:i])
	}
	return nil
}

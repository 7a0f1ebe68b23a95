package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/validate"
	"github.com/hoodie-dev/hoodie/write"
	"github.com/hoodie-dev/hoodie/write/ingest"
)

// writeFlags are the flags every write command takes.
type writeFlags struct {
	format         string
	props          string
	sets           []string
	dropDuplicates bool
	lockTimeout    time.Duration
}

func (f *writeFlags) register(cmd *cobra.Command, op write.Operation) {
	cmd.Flags().StringVar(&f.format, "format", "jsonl", "input format: jsonl, csv (with a header line) or parquet")
	f.registerSettings(cmd)
	if op == write.OpInsert || op == write.OpBulkInsert || op.Overwrites() {
		cmd.Flags().BoolVar(&f.dropDuplicates, "drop-duplicates", false, "skip records whose keys exist in the table instead of refusing the write")
	}
}

// registerSettings registers the flags of the settings: --props, --set
// and --lock-timeout, which table services take too.
func (f *writeFlags) registerSettings(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.props, "props", "", "a Java properties file of hoodie.* write settings")
	fl.StringArrayVar(&f.sets, "set", nil, "a hoodie.* write setting KEY=VALUE (repeatable; wins over --props)")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", 0, "give up, with nothing written (exit 1), when another writer holds the table's lock this long (e.g. 30s; default: wait)")
}

// settings reads --props and --set into write settings.
func (f *writeFlags) settings() (write.Settings, error) {
	props := config.NewProperties()
	if f.props != "" {
		data, err := os.ReadFile(f.props)
		if err != nil {
			return write.Settings{}, fmt.Errorf("--props: %w", err)
		}
		if props, err = config.ParseProperties(data); err != nil {
			return write.Settings{}, fmt.Errorf("--props %s: %w", f.props, err)
		}
	}
	for _, kv := range f.sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return write.Settings{}, usagef("--set %q: want KEY=VALUE", kv)
		}
		props.Set(strings.TrimSpace(k), v)
	}
	if f.dropDuplicates {
		props.Set(write.KeyDropDuplicates, "true")
	}
	switch {
	case f.lockTimeout < 0:
		return write.Settings{}, usagef("--lock-timeout %v: want a positive duration", f.lockTimeout)
	case f.lockTimeout > 0:
		props.Set(write.KeyLockWaitTime, strconv.FormatInt(max(f.lockTimeout.Milliseconds(), 1), 10))
	}
	return write.ParseSettings(props)
}

// writeCommandSpec describes one write command.
type writeCommandSpec struct {
	op      write.Operation
	short   string
	long    string
	example string
}

var writeCommands = []writeCommandSpec{
	{write.OpInsert, "Add records whose keys are new",
		`insert adds the records of FILE (or standard input) as one commit. Their keys
must be new: a key that exists in the table refuses the whole write (exit 1)
unless --drop-duplicates skips such records. Records sharing a key within the
input collapse to the one with the greatest precombine value (the later one on
a tie). New records fill the partition's small file groups first.`,
		`  hoodiectl insert /tmp/trips trips.jsonl
  hoodiectl insert /tmp/trips trips.csv --format csv --drop-duplicates
  cat trips.jsonl | hoodiectl insert /tmp/trips -`},
	{write.OpBulkInsert, "Add records whose keys are new, as a fast load into new file groups",
		`bulk-insert adds records like insert, but writes them only into new file
groups sized to hoodie.parquet.max.file.size: the fast way to load a table.
Each file holds its records in key order, so that a lookup by key reads a
page of it; hoodie.bulkinsert.sort.mode=NONE keeps the input's order instead,
a faster load whose files a lookup by key reads whole.`,
		`  hoodiectl bulk-insert /tmp/trips trips.parquet --format parquet
  hoodiectl bulk-insert /tmp/trips trips.jsonl --set hoodie.bulkinsert.sort.mode=NONE`},
	{write.OpUpsert, "Insert new keys and update existing ones",
		`upsert inserts records with new keys and updates records whose keys exist.
With merge mode event-time an incoming record replaces the stored one only if
its precombine value is greater or equal; with commit-time it always does. A
record whose partition value changed moves to its new partition. A record
with a boolean _hoodie_is_deleted column set to true deletes its key.`,
		`  hoodiectl upsert /tmp/trips updates.jsonl
  hoodiectl upsert /tmp/trips updates.jsonl --set hoodie.parquet.compression.codec=snappy`},
	{write.OpDelete, "Hard-delete the records whose keys are given",
		`delete removes the records whose keys the input gives, whatever their
precombine values. The input needs only the record key columns; keys that are
not in the table are ignored.`,
		`  echo '{"uuid":"9d03d7d4-ed08-4189-a8aa-39c49415d8cb"}' | hoodiectl delete /tmp/trips`},
	{write.OpSoftDelete, "Keep the given records but null every column except key, partition and precombine",
		`soft-delete keeps each given record but sets every column other than the
record key, partition and precombine columns to null. The precombine value
stays the stored one.`,
		`  echo '{"uuid":"9d03d7d4-ed08-4189-a8aa-39c49415d8cb"}' | hoodiectl soft-delete /tmp/trips`},
}

func newWriteCommands(io streams) []*cobra.Command {
	out := make([]*cobra.Command, len(writeCommands))
	for i, spec := range writeCommands {
		out[i] = newWriteCommand(io, spec)
	}
	return out
}

func newWriteCommand(io streams, spec writeCommandSpec) *cobra.Command {
	var flags writeFlags
	name := spec.op.String()
	cmd := &cobra.Command{
		Use:   name + " TABLE [FILE] [--format jsonl|csv|parquet]",
		Short: spec.short,
		Long: spec.long + `

FILE is JSON lines (the default), CSV with a header line, or Parquet; "-" or
no FILE reads standard input. --props and --set take Hudi's write settings
(hoodie.parquet.max.file.size, hoodie.parquet.small.file.limit,
hoodie.parquet.compression.codec...); a setting Hoodie does not honour but
that would change the write, an unknown hoodie.* key and an impossible value
are refused before anything is written (docs/cli.md lists them). The commit's
instant time is printed as the last line of standard output; a write that
commits nothing prints none.

A write waits for another writer's lock on the table, saying after a second
whom it waits for; --lock-timeout bounds the wait (exit 1, nothing written).`,
		Example: spec.example,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("expected TABLE [FILE], got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(flags.format, "jsonl", "csv", "parquet"); err != nil {
				return err
			}
			settings, err := flags.settings()
			if err != nil {
				return err
			}
			file := "-"
			if len(args) == 2 {
				file = args[1]
			}
			return runWrite(cmd.Context(), io, spec.op, args[0], file, flags.format, settings)
		},
	}
	flags.register(cmd, spec.op)
	return cmd
}

// runWrite decodes the input and writes it to the table.
func runWrite(ctx context.Context, io streams, op write.Operation, table, file, format string, settings write.Settings) error {
	if _, err := openFS(table); err != nil {
		return err
	}
	t, err := hoodie.Open(ctx, table)
	if err != nil {
		return err
	}
	schema, err := t.Schema(ctx)
	if err != nil {
		return err
	}
	if schema != nil && (op == write.OpDelete || op == write.OpSoftDelete) {
		// A delete takes only the key and partition columns: the others
		// are decoded without the table's types, and left out.
		cfg, err := t.Config(ctx)
		if err != nil {
			return err
		}
		schema = schema.Select(slices.Concat(cfg.RecordKeyFields, cfg.PartitionFields))
	}
	in, name, closeInput, err := openInput(io, file)
	if err != nil {
		return err
	}
	defer closeInput()
	progress := isTerminal(io.err)
	if progress {
		fmt.Fprintf(io.err, "reading %s...\n", name)
	}
	input, err := ingest.Decode(ctx, in, name, ingest.Format(format), schema)
	if errors.Is(err, ingest.ErrNoRecords) && op.Overwrites() {
		return &refusedError{fmt.Errorf("%s: %w: it would replace partitions with nothing, and delete-partition removes partitions; nothing was committed", op, err)}
	}
	if err != nil {
		return err
	}
	opts, err := writeOptions(io, settings)
	if err != nil {
		return err
	}
	if progress {
		fmt.Fprintf(io.err, "%s of %d record(s)...\n", op, len(input.Rows))
		opts.Progress = func(done, total int) {
			fmt.Fprintf(io.err, "\r  %d/%d base file(s) written", done, total)
			if done == total {
				fmt.Fprintln(io.err)
			}
		}
	}
	res, err := t.Write(ctx, op, input, opts)
	return reportWrite(io, op, res, err)
}

// openForWrite opens the table at path for a command that commits, with
// the write options of its settings flags.
func openForWrite(ctx context.Context, io streams, path string, flags *writeFlags) (*hoodie.Table, hoodie.WriteOptions, error) {
	settings, err := flags.settings()
	if err != nil {
		return nil, hoodie.WriteOptions{}, err
	}
	if _, err := openFS(path); err != nil {
		return nil, hoodie.WriteOptions{}, err
	}
	t, err := hoodie.Open(ctx, path)
	if err != nil {
		return nil, hoodie.WriteOptions{}, err
	}
	opts, err := writeOptions(io, settings)
	return t, opts, err
}

// writeOptions returns the options of a write with settings, which tell
// the user what it waits for and repairs.
func writeOptions(io streams, settings write.Settings) (hoodie.WriteOptions, error) {
	opts := hoodie.WriteOptions{Settings: settings, LockWaiting: lockWaitingNotice(io), Notify: func(err error) {
		fmt.Fprintf(io.err, "hoodiectl: warning: %v\n", err)
	}}
	hook, err := validate.FromSettings(settings.Props)
	if err != nil {
		return opts, err
	}
	if hook != nil {
		opts.Hook = hook
	}
	return opts, nil
}

// reportWrite reports the result of a write of op, or its error err: the
// summary and warnings go to standard error, the instant alone to standard
// output.
func reportWrite(io streams, op write.Operation, res *write.Result, err error) error {
	if err != nil {
		if errors.Is(err, write.ErrRefused) {
			return &refusedError{fmt.Errorf("%s: %w; nothing was committed", op, err)}
		}
		return fmt.Errorf("%s: %w; nothing was committed", op, err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(io.err, errorLine(fmt.Errorf("warning: %w", w)))
	}
	printWriteSummary(io.err, res)
	if res.Instant != "" {
		fmt.Fprintln(io.out, res.Instant)
	}
	return nil
}

// lockWaitingNotice tells people whom a command waits for.
func lockWaitingNotice(io streams) func(holder *storage.LockHolder) {
	return func(holder *storage.LockHolder) {
		who := "another writer"
		if holder != nil {
			who = holder.String()
		}
		fmt.Fprintf(io.err, "hoodiectl: waiting for the table's lock, held by %s\n", who)
	}
}

// printWriteSummary tells people what a write did.
func printWriteSummary(w io.Writer, res *write.Result) {
	if res.Instant == "" {
		fmt.Fprintf(w, "%s: nothing to commit (%d record(s) skipped)\n", res.Operation, res.Skipped)
		return
	}
	if res.Operation == write.OpCluster {
		fmt.Fprintf(w, "cluster: committed %s: %d record(s) rewritten into %d file group(s)\n", res.Instant, res.Written, len(res.Files))
		return
	}
	fmt.Fprintf(w, "%s: committed %s: %d inserted, %d updated, %d deleted, %d skipped; %d file(s) written\n",
		res.Operation, res.Instant, res.Inserted, res.Updated, res.Deleted, res.Skipped, len(res.Files))
}

// openInput opens FILE, or standard input for "-".
func openInput(io streams, file string) (io.Reader, string, func(), error) {
	if file == "-" {
		return io.in, "standard input", func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, "", nil, fmt.Errorf("input: %w", err)
	}
	return f, file, func() { f.Close() }, nil
}

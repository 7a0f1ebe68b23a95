package write

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/index"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// taskResult is what writing one base file produced.
type taskResult struct {
	stat  timeline.WriteStat
	slice read.FileSlice
	puts  []index.Put
	dels  []string
	// moves are conditional moves whose incoming record won: they must be
	// inserted into their new partition.
	moves []*record
}

// taskEnv is what every file group task of one write shares.
type taskEnv struct {
	w       *Writer
	op      Operation
	in      *Input // names records in errors
	instant string
	// schema is the table schema after this write, without meta fields, and
	// fileSchema the schema of every file written: the same with the meta
	// fields first, unless the table does not populate them.
	schema, fileSchema *basefile.Schema
	parquetSchema      *parquet.Schema // fileSchema in Parquet form
	// keys computes the record keys of stored rows of a table without meta
	// fields; nil when the rows carry them.
	keys             *KeyGenerator
	precombine       int // index of the precombine column in schema, or -1
	keepOnSoftDelete []bool
	// changesPlanned reports that the plan fixes the index changes (see
	// plannedChanges): the tasks need not report their puts.
	changesPlanned bool
}

// runTask writes one base file: the next version of an existing file group,
// merging the work planned for it, or a new file group of inserts.
func (e *taskEnv) runTask(ctx context.Context, t *fileGroupTask, taskNo int) (res taskResult, err error) {
	name := basefile.Name{FileID: t.fileID, WriteToken: strconv.Itoa(taskNo) + "-0-0", InstantTime: e.instant}.String()
	dataPath := path.Join(t.partition, name)
	suffix := markerCreate
	if t.prev != nil {
		suffix = markerMerge
	}
	opts := e.w.settings.baseFileOptions()
	opts.NoMetaFields = e.keys != nil
	// A new file group's first version holds new records only, but for a
	// clustering's.
	opts.NewRecordsOnly = t.prev == nil && t.clustered == nil
	var prev *basefile.File
	if t.prev != nil {
		if prev, err = basefile.Open(ctx, e.w.fsys, t.prev.Path); err != nil {
			return res, err
		}
		defer prev.Close()
		// Carried rows keep their keys: start from the previous version's
		// bloom filter instead of hashing every key again.
		if bloom, err := prev.BloomFilter(); err == nil && !opts.NoMetaFields {
			opts.SeedBloom = bloom
		}
	}
	if err := createMarker(ctx, e.w.fsys, e.instant, dataPath, suffix); err != nil {
		return res, err
	}
	out, err := basefile.NewWriter(ctx, e.w.fsys, dataPath, e.fileSchema, opts)
	if err != nil {
		return res, err
	}
	m := &merger{env: e, task: t, prev: prev, out: out, name: name, taskNo: taskNo}
	m.meta = m.newRecordMeta()
	if err := m.run(ctx); err != nil {
		out.Abort()
		return res, err
	}
	stats, err := out.Close()
	if err != nil {
		return res, err
	}
	res.stat = timeline.WriteStat{
		FileID:          t.fileID,
		Path:            dataPath,
		PrevCommit:      timeline.NullCommit,
		NumWrites:       stats.NumRows,
		NumDeletes:      m.deletes,
		NumUpdateWrites: m.updates,
		NumInserts:      m.inserts,
		TotalWriteBytes: stats.FileSize,
		PartitionPath:   t.partition,
		FileSizeInBytes: stats.FileSize,
	}
	if t.prev != nil {
		res.stat.PrevCommit = t.prev.Instant
	}
	res.slice = read.FileSlice{Partition: t.partition, FileID: t.fileID, Instant: e.instant, Path: dataPath, Size: stats.FileSize}
	res.puts, res.dels, res.moves = m.puts, m.dels, m.moves
	return res, nil
}

// merger streams one file group's rows into its next version.
type merger struct {
	env    *taskEnv
	task   *fileGroupTask
	prev   *basefile.File // the previous version; nil for a new file group
	out    *basefile.Writer
	name   string
	taskNo int
	seq    int64

	inserts, updates, deletes int64
	puts                      []index.Put
	dels                      []string
	moves                     []*record
	meta                      *basefile.NewRecordMeta // of the records written
	one                       struct {                // a record to write on its own
		key [1]string
		row [1][]any
	}
}

func (m *merger) run(ctx context.Context) error {
	if m.task.clustered != nil {
		return m.writeClustered(ctx)
	}
	if !m.env.changesPlanned {
		m.puts = make([]index.Put, 0, len(m.task.inserts))
	}
	if m.prev != nil {
		if err := m.mergeExisting(ctx); err != nil {
			return err
		}
		if err := m.checkWorkMet(); err != nil {
			return err
		}
	}
	// New records come in record-key order (see keyOrder), or in input
	// order for a bulk insert that does not sort.
	loc := index.Location{PartitionPath: m.task.partition, FileID: m.task.fileID}
	keys := make([]string, 0, insertChunk)
	rows := make([][]any, 0, insertChunk)
	for start := 0; start < len(m.task.inserts); start += insertChunk {
		keys, rows = keys[:0], rows[:0]
		for _, r := range m.task.inserts[start:min(start+insertChunk, len(m.task.inserts))] {
			keys, rows = append(keys, r.key), append(rows, r.row)
			if !m.env.changesPlanned {
				m.puts = append(m.puts, index.Put{Key: r.key, Location: loc})
			}
		}
		if err := m.out.WriteNew(m.meta, m.seq, keys, rows); err != nil {
			return m.env.inputError(m.task.inserts[start:], err)
		}
		m.seq += int64(len(rows))
		m.inserts += int64(len(rows))
	}
	return nil
}

// insertChunk is how many new records the merger hands the base file
// writer at once.
const insertChunk = 4096

// newRecordMeta returns the meta fields of the records the merger writes.
func (m *merger) newRecordMeta() *basefile.NewRecordMeta {
	return &basefile.NewRecordMeta{
		CommitTime:    m.env.instant,
		SeqNoPrefix:   m.env.instant + "_" + strconv.Itoa(m.taskNo) + "_",
		PartitionPath: m.task.partition,
		FileName:      m.name,
	}
}

// writeRecord writes an incoming record with fresh meta fields.
func (m *merger) writeRecord(r *record) error {
	return m.writeValues(r, r.row)
}

// writeValues writes row as the new version of the incoming record r, with
// fresh meta fields.
func (m *merger) writeValues(r *record, row []any) error {
	m.one.key[0], m.one.row[0] = r.key, row
	if err := m.out.WriteNew(m.meta, m.seq, m.one.key[:], m.one.row[:]); err != nil {
		return m.env.inputError([]*record{r}, err)
	}
	m.seq++
	return nil
}

// inputError returns err, from WriteNew with records, as the input's error
// about the record it names, if it names one.
func (e *taskEnv) inputError(records []*record, err error) error {
	var re *basefile.NewRecordError
	if errors.As(err, &re) && re.Index < len(records) {
		r := records[re.Index]
		return e.in.recordError(int(r.pos), r.key, re.Err)
	}
	return err
}

// mergeExisting streams the previous version's rows: rows without work are
// carried over with their commit time and sequence number, others are
// updated, deleted or moved out.
func (m *merger) mergeExisting(ctx context.Context) error {
	prev := m.prev
	if m.env.keys == nil && !prev.Schema().HasMetaFields() {
		return fmt.Errorf("base file %s has no Hudi meta fields, but the table has %s=true: its files and hoodie.properties disagree (was the property changed after the table was written?)", m.task.prev.Path, config.KeyPopulateMetaFields)
	}
	var conv *rowConverter
	if !parquet.EqualNodes(prev.Parquet().Schema(), m.env.parquetSchema) {
		var err error
		if conv, err = newStoredConverter(m.env.fileSchema, prev.Schema(), m.env.w.settings.LossyWidening); err != nil {
			return fmt.Errorf("base file %s does not fit the table schema: %w", m.task.prev.Path, err)
		}
	}
	if conv != nil || m.env.keys != nil {
		// Rows without meta fields are decoded to find their keys.
		return m.mergeConverted(ctx, conv)
	}
	// The file has the table's Parquet schema: rows without work are
	// copied column by column, and only the rows with work are decoded.
	hasWork := func(key []byte) bool {
		in, _ := m.work(key)
		return in != nil
	}
	var carry []parquet.Row
	for _, rg := range prev.RowGroups() {
		rows, err := m.out.CarryRowGroup(rg, m.name, hasWork)
		if err != nil {
			return err
		}
		carry = carry[:0]
		for _, row := range rows {
			in, moved := m.work(basefile.RowRecordKey(row))
			stored, err := prev.DecodeRow(row)
			if err != nil {
				return err
			}
			keepStored := func() error {
				carry = append(carry, row)
				return nil
			}
			if err := m.apply(in, moved, stored, keepStored); err != nil {
				return err
			}
		}
		if len(carry) > 0 {
			if _, err := m.out.CarryRows(carry); err != nil {
				return err
			}
		}
	}
	return nil
}

// work returns the incoming record that has work for the stored record of
// key, if any, and whether it moves the record to another partition.
func (m *merger) work(key []byte) (in *record, moved bool) {
	work := m.task.work
	if work == nil {
		return nil, false
	}
	// Indexing a map with string(key) does not allocate: most rows are
	// looked up and carried, and must cost no garbage.
	if in = work.updates[string(key)]; in == nil {
		in = work.movedOut[string(key)]
		moved = in != nil
	}
	return in, moved
}

// mergeConverted merges a previous version row by row: every row is decoded
// and, with conv (when the file's Parquet schema is not the table's),
// converted to the table schema.
func (m *merger) mergeConverted(ctx context.Context, conv *rowConverter) error {
	rows := m.prev.Rows(ctx)
	defer rows.Close()
	batch := make([]parquet.Row, 1024)
	for {
		n, readErr := rows.ReadRows(batch)
		for _, row := range batch[:n] {
			stored, err := m.prev.DecodeRow(row)
			if err != nil {
				return err
			}
			if conv != nil {
				if stored, err = conv.convertRow(stored); err != nil {
					return err
				}
			}
			key, err := m.storedKey(row, stored)
			if err != nil {
				return err
			}
			if in, moved := m.work(key); in != nil {
				err = m.apply(in, moved, stored, func() error { return m.writeStored(key, stored) })
			} else {
				err = m.writeStored(key, stored)
			}
			if err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

// writeStored writes a stored record of key, converted to the table schema,
// unchanged.
func (m *merger) writeStored(key []byte, stored []any) error {
	if m.env.keys == nil {
		stored[basefile.MetaFileNamePos] = m.name
	}
	if err := m.out.WriteRow(stored); err != nil {
		return fmt.Errorf("carry record %q into %s: %w", key, m.out.Path(), err)
	}
	return nil
}

// apply merges an incoming record with the stored one it names; keepStored
// writes the stored record unchanged, when it wins.
func (m *merger) apply(in *record, moved bool, stored []any, keepStored func() error) error {
	in.met = true
	storedRow := stored[len(stored)-len(m.env.schema.Fields):] // without the meta fields, if any
	switch m.env.op {
	case OpDelete:
		m.deletes++
		m.dels = append(m.dels, in.key)
		return nil
	case OpSoftDelete:
		soft := make([]any, len(storedRow))
		for i, keep := range m.env.keepOnSoftDelete {
			if keep {
				soft[i] = storedRow[i]
			}
		}
		m.updates++
		return m.writeValues(in, soft)
	}
	// Upsert: the merge mode decides whether the incoming record wins.
	if m.env.precombine >= 0 && m.env.w.cfg.MergeMode() == config.MergeEventTime {
		// A stored record without a precombine value (possible in tables
		// other writers made) always loses.
		if storedOrdering := storedRow[m.env.precombine]; storedOrdering != nil {
			c, err := compareOrdering(in.row[m.env.precombine], storedOrdering)
			if err != nil {
				return fmt.Errorf("record %q: compare precombine values: %w", in.key, err)
			}
			if c < 0 {
				return keepStored() // the stored record is newer: nothing changes
			}
		}
	}
	switch {
	case in.deleted:
		m.deletes++
		m.dels = append(m.dels, in.key)
		return nil
	case moved:
		// The record leaves for another partition; the index learns its new
		// place from the insert there.
		m.deletes++
		if in.conditionalMove {
			m.moves = append(m.moves, in)
		}
		return nil
	}
	m.updates++
	return m.writeRecord(in)
}

// checkWorkMet fails if the plan gave the file group work for a key that its
// previous version does not hold. The index tagged the key to this group
// wrongly, so the key may live in another group: updating it here, inserting
// it or skipping it could each lose or duplicate the user's record, and the
// write stops instead (and is rolled back).
func (m *merger) checkWorkMet() error {
	work := m.task.work
	if work == nil {
		return nil
	}
	var missing []string
	for _, byKey := range []map[string]*record{work.updates, work.movedOut} {
		for k, r := range byKey {
			if !r.met {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("the record index places %d key(s) in file group %s, whose latest file %s does not hold them (first: %q): the index is out of date, and nothing was written; rebuild it (hoodiectl index rebuild, or Table.RebuildIndex) and write again",
		len(missing), m.task.fileID, m.task.prev.Path, missing[0])
}

// storedKey returns the record key of a stored row: its _hoodie_record_key,
// without copying (the bytes belong to the row), or in a table without meta
// fields the key the values of the row, stored, make.
func (m *merger) storedKey(row parquet.Row, stored []any) ([]byte, error) {
	if m.env.keys != nil {
		key, err := m.env.keys.RecordKey(stored)
		if err != nil {
			return nil, fmt.Errorf("base file %s: %w", m.task.prev.Path, err)
		}
		return []byte(key), nil
	}
	key := basefile.RowRecordKey(row)
	if len(key) == 0 {
		return nil, fmt.Errorf("base file %s: a row has no %s", m.task.prev.Path, basefile.MetaRecordKey)
	}
	return key, nil
}

package config

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

// Keys of hoodie.properties, as Hudi names them (HoodieTableConfig).
const (
	KeyTableName             = "hoodie.table.name"
	KeyDatabaseName          = "hoodie.database.name"
	KeyTableType             = "hoodie.table.type"
	KeyTableVersion          = "hoodie.table.version"
	KeyTimelineLayoutVersion = "hoodie.timeline.layout.version"
	KeyRecordKeyFields       = "hoodie.table.recordkey.fields"
	KeyPrecombineField       = "hoodie.table.precombine.field"
	KeyPartitionFields       = "hoodie.table.partition.fields"
	KeyKeyGeneratorClass     = "hoodie.table.keygenerator.class"
	KeyHiveStylePartitioning = "hoodie.datasource.write.hive_style_partitioning"
	KeyURLEncodePartitioning = "hoodie.datasource.write.partitionpath.urlencode"
	KeyDropPartitionColumns  = "hoodie.datasource.write.drop.partition.columns"
	KeyArchiveLogFolder      = "hoodie.archivelog.folder"
	KeyCreateSchema          = "hoodie.table.create.schema"
	KeyChecksum              = "hoodie.table.checksum"
	KeyPopulateMetaFields    = "hoodie.populate.meta.fields"
	KeyBaseFileFormat        = "hoodie.table.base.file.format"
	KeyPayloadClass          = "hoodie.compaction.payload.class"
	KeyTimelineTimezone      = "hoodie.table.timeline.timezone"
)

// Values of hoodie.properties that Hoodie writes or understands.
const (
	TableTypeCopyOnWrite = "COPY_ON_WRITE"
	TableTypeMergeOnRead = "MERGE_ON_READ"

	// TableVersion is the Hudi table version Hoodie reads and writes.
	TableVersion = 6
	// TimelineLayoutVersion is the timeline layout Hoodie reads and writes.
	TimelineLayoutVersion = 1
	// ReadOnlyTableVersion is the table version of Hudi 1.x, which Hoodie
	// reads (timeline layout ReadOnlyTimelineLayoutVersion) but does not
	// write: see CheckWritable.
	ReadOnlyTableVersion = 8
	// ReadOnlyTimelineLayoutVersion is the timeline layout of
	// ReadOnlyTableVersion.
	ReadOnlyTimelineLayoutVersion = 2

	SimpleKeyGenerator         = "org.apache.hudi.keygen.SimpleKeyGenerator"
	ComplexKeyGenerator        = "org.apache.hudi.keygen.ComplexKeyGenerator"
	NonpartitionedKeyGenerator = "org.apache.hudi.keygen.NonpartitionedKeyGenerator"
	// TimestampBasedKeyGenerator and its Avro twin, which Hudi tables may
	// name instead, make the partition path of a date-time or number
	// column's value formatted (hoodie.keygen.timebased.*).
	TimestampBasedKeyGenerator     = "org.apache.hudi.keygen.TimestampBasedKeyGenerator"
	TimestampBasedAvroKeyGenerator = "org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator"

	// EventTimePayload is Hudi's payload that keeps the record with the
	// greater precombine value (merge mode event-time).
	EventTimePayload = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
	// CommitTimePayload is Hudi's payload that always takes the incoming
	// record (merge mode commit-time).
	CommitTimePayload = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
)

// TimelineTimezone is the zone a table's instant times are a wall clock in,
// hoodie.table.timeline.timezone (Hudi's HoodieTimelineTimeZone). Writers
// order commits by comparing instant times as digits, so every writer of a
// table must make them in its zone.
type TimelineTimezone string

// Timeline zones, as Hudi spells them in hoodie.properties.
const (
	// TimelineLocal is Hudi's default, also meant when the property is
	// absent: each writer uses its own local time zone (Spark the JVM's
	// default zone, Hoodie time.Local, which TZ sets). Writers in different
	// zones then disagree on the order of their commits.
	TimelineLocal TimelineTimezone = "LOCAL"
	// TimelineUTC makes every writer use UTC. Hoodie creates its tables
	// with it.
	TimelineUTC TimelineTimezone = "UTC"
)

// Location returns the zone of the instant times: time.UTC for TimelineUTC,
// local for TimelineLocal (nil: time.Local, the process's zone).
func (z TimelineTimezone) Location(local *time.Location) *time.Location {
	if z == TimelineUTC {
		return time.UTC
	}
	if local == nil {
		return time.Local
	}
	return local
}

// MergeMode decides between an incoming record and the stored one.
type MergeMode string

// Merge modes, as the hoodiectl contract names them.
const (
	MergeEventTime  MergeMode = "event-time"
	MergeCommitTime MergeMode = "commit-time"
)

// Table is the typed content of hoodie.properties. Keys Hoodie does
// not interpret are kept in Extra and written back unchanged.
type Table struct {
	Name                  string
	DatabaseName          string
	Type                  string
	Version               int
	TimelineLayoutVersion int
	RecordKeyFields       []string
	PrecombineField       string
	PartitionFields       []string
	KeyGeneratorClass     string
	HiveStylePartitioning bool
	URLEncodePartitioning bool
	DropPartitionColumns  bool
	PopulateMetaFields    bool
	ArchiveLogFolder      string
	BaseFileFormat        string
	PayloadClass          string
	// CreateSchema is the Avro schema JSON the table was created with, or
	// empty when the first write has not set it yet.
	CreateSchema string
	// TimelineTimezone is hoodie.table.timeline.timezone, or empty when the
	// property is absent, which means TimelineLocal (see TimelineZone).
	TimelineTimezone TimelineTimezone
	// Extra holds keys Hoodie does not interpret.
	Extra *Properties
}

// NewTable returns the configuration of a new copy-on-write table,
// choosing Hudi's key generator from the key and partition fields. Its
// instant times are in UTC (TimelineUTC), so that every writer, Spark on any
// machine included, makes them in the same zone.
func NewTable(name string, recordKeys []string, precombine string, partitionFields []string, hiveStyle bool, mode MergeMode) (*Table, error) {
	cfg := &Table{
		Name:                  name,
		Type:                  TableTypeCopyOnWrite,
		Version:               TableVersion,
		TimelineLayoutVersion: TimelineLayoutVersion,
		RecordKeyFields:       recordKeys,
		PrecombineField:       precombine,
		PartitionFields:       partitionFields,
		HiveStylePartitioning: hiveStyle,
		URLEncodePartitioning: true,
		PopulateMetaFields:    true,
		ArchiveLogFolder:      storage.DefaultArchiveFolder,
		BaseFileFormat:        "PARQUET",
		TimelineTimezone:      TimelineUTC,
		Extra:                 NewProperties(),
	}
	switch {
	case len(partitionFields) == 0:
		cfg.KeyGeneratorClass = NonpartitionedKeyGenerator
	case len(recordKeys) == 1 && len(partitionFields) == 1:
		cfg.KeyGeneratorClass = SimpleKeyGenerator
	default:
		cfg.KeyGeneratorClass = ComplexKeyGenerator
	}
	switch mode {
	case MergeEventTime, "":
		if precombine != "" {
			cfg.PayloadClass = EventTimePayload
		} else {
			cfg.PayloadClass = CommitTimePayload
		}
	case MergeCommitTime:
		cfg.PayloadClass = CommitTimePayload
	default:
		return nil, fmt.Errorf("unknown merge mode %q (want event-time or commit-time)", mode)
	}
	if mode == MergeEventTime && precombine == "" {
		return nil, fmt.Errorf("merge mode event-time needs a precombine column")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// MergeMode is the table's merge mode, derived from the payload class: a
// table with a precombine field and no payload class (as Spark writes them)
// merges by event time.
func (c *Table) MergeMode() MergeMode {
	switch c.PayloadClass {
	case CommitTimePayload:
		return MergeCommitTime
	case EventTimePayload:
		return MergeEventTime
	}
	if c.PrecombineField != "" {
		return MergeEventTime
	}
	return MergeCommitTime
}

// TimelineZone is the table's timeline zone: TimelineTimezone, or
// TimelineLocal, Hudi's default, when the property is absent.
func (c *Table) TimelineZone() TimelineTimezone {
	if c.TimelineTimezone == "" {
		return TimelineLocal
	}
	return c.TimelineTimezone
}

// Validate checks the rules Hoodie relies on: a name, a supported type and
// version, record key fields, and a known key generator.
func (c *Table) Validate() error {
	switch {
	case c.Name == "":
		return fmt.Errorf("%s is missing", KeyTableName)
	case strings.ContainsAny(c.Name, "/\\\x00"):
		return fmt.Errorf("%s %q: a table name cannot contain '/', '\\' or NUL", KeyTableName, c.Name)
	case c.Type != TableTypeCopyOnWrite && c.Type != TableTypeMergeOnRead:
		return fmt.Errorf("%s %q is not a Hudi table type (want %s)", KeyTableType, c.Type, TableTypeCopyOnWrite)
	case c.Type == TableTypeMergeOnRead:
		return fmt.Errorf("%s %s is not supported: Hoodie reads and writes %s tables only", KeyTableType, c.Type, TableTypeCopyOnWrite)
	case c.Version != TableVersion && c.Version != ReadOnlyTableVersion:
		return fmt.Errorf("%s %d is not supported: Hoodie reads and writes table version %d and reads table version %d", KeyTableVersion, c.Version, TableVersion, ReadOnlyTableVersion)
	case c.Version == TableVersion && c.TimelineLayoutVersion != TimelineLayoutVersion:
		return fmt.Errorf("%s %d is not supported: Hoodie reads and writes timeline layout %d", KeyTimelineLayoutVersion, c.TimelineLayoutVersion, TimelineLayoutVersion)
	case c.Version == ReadOnlyTableVersion && c.TimelineLayoutVersion != ReadOnlyTimelineLayoutVersion:
		return fmt.Errorf("%s %d is not supported in table version %d: Hoodie reads its timeline layout %d", KeyTimelineLayoutVersion, c.TimelineLayoutVersion, ReadOnlyTableVersion, ReadOnlyTimelineLayoutVersion)
	case len(c.RecordKeyFields) == 0:
		return fmt.Errorf("%s is missing: a table needs a record key", KeyRecordKeyFields)
	case c.TimelineTimezone != "" && c.TimelineTimezone != TimelineLocal && c.TimelineTimezone != TimelineUTC:
		return fmt.Errorf("%s %q is not a timeline zone (want %s or %s, as Hudi spells them)",
			KeyTimelineTimezone, c.TimelineTimezone, TimelineLocal, TimelineUTC)
	}
	for _, f := range append(append([]string{}, c.RecordKeyFields...), c.PartitionFields...) {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("empty column name in %s or %s", KeyRecordKeyFields, KeyPartitionFields)
		}
	}
	if c.KeyGeneratorClass == "" {
		return fmt.Errorf("%s is missing", KeyKeyGeneratorClass)
	}
	if c.KeyGeneratorClass == NonpartitionedKeyGenerator && len(c.PartitionFields) > 0 {
		return fmt.Errorf("%s is %s but %s names %s", KeyKeyGeneratorClass, NonpartitionedKeyGenerator,
			KeyPartitionFields, strings.Join(c.PartitionFields, ","))
	}
	return nil
}

// CheckWritable reports whether Hoodie can write the table: it must be of
// TableVersion (a table of ReadOnlyTableVersion gets an error wrapping
// ErrVersionReadOnly), and its key generator one Hoodie computes keys and
// partition paths as. Any other (custom) still lets it be read: readers
// take the stored keys and the partition folders as they are.
func (c *Table) CheckWritable() error {
	if c.Version != TableVersion {
		return readOnlyVersionError(c.Version)
	}
	switch c.KeyGeneratorClass {
	case SimpleKeyGenerator, ComplexKeyGenerator, NonpartitionedKeyGenerator:
		return nil
	}
	if c.TimestampBased() {
		return nil
	}
	return fmt.Errorf("%s %q: Hoodie reads such tables but does not write them (it computes keys and partition paths as %s, %s, %s and %s do); "+
		"write to this table with Spark, or export its records (hoodiectl export TABLE DIR --format json) into a table hoodiectl init makes", KeyKeyGeneratorClass,
		c.KeyGeneratorClass, SimpleKeyGenerator, ComplexKeyGenerator, NonpartitionedKeyGenerator, TimestampBasedKeyGenerator)
}

// TimestampBased reports whether the table's key generator is Hudi's
// timestamp-based one.
func (c *Table) TimestampBased() bool {
	return c.KeyGeneratorClass == TimestampBasedKeyGenerator || c.KeyGeneratorClass == TimestampBasedAvroKeyGenerator
}

// Checksum is Hudi's table checksum: the CRC32 of "<database>.<table>", the
// database empty when unset.
func (c *Table) Checksum() uint32 {
	return crc32.ChecksumIEEE([]byte(c.DatabaseName + "." + c.Name))
}

// Properties renders the configuration as hoodie.properties keys, the
// checksum included.
func (c *Table) Properties() *Properties {
	p := NewProperties()
	if c.Extra != nil {
		for _, k := range c.Extra.Keys() {
			v, _ := c.Extra.Get(k)
			p.Set(k, v)
		}
	}
	set := func(key, value string) {
		if value != "" {
			p.Set(key, value)
		}
	}
	set(KeyTableName, c.Name)
	set(KeyDatabaseName, c.DatabaseName)
	set(KeyTableType, c.Type)
	set(KeyTableVersion, strconv.Itoa(c.Version))
	set(KeyTimelineLayoutVersion, strconv.Itoa(c.TimelineLayoutVersion))
	set(KeyRecordKeyFields, strings.Join(c.RecordKeyFields, ","))
	set(KeyPrecombineField, c.PrecombineField)
	set(KeyPartitionFields, strings.Join(c.PartitionFields, ","))
	set(KeyKeyGeneratorClass, c.KeyGeneratorClass)
	set(KeyHiveStylePartitioning, strconv.FormatBool(c.HiveStylePartitioning))
	set(KeyURLEncodePartitioning, strconv.FormatBool(c.URLEncodePartitioning))
	set(KeyDropPartitionColumns, strconv.FormatBool(c.DropPartitionColumns))
	set(KeyPopulateMetaFields, strconv.FormatBool(c.PopulateMetaFields))
	set(KeyArchiveLogFolder, c.ArchiveLogFolder)
	set(KeyBaseFileFormat, c.BaseFileFormat)
	set(KeyPayloadClass, c.PayloadClass)
	set(KeyCreateSchema, c.CreateSchema)
	set(KeyTimelineTimezone, string(c.TimelineTimezone))
	p.Set(KeyChecksum, strconv.FormatUint(uint64(c.Checksum()), 10))
	return p
}

// Marshal renders hoodie.properties as Hudi writes it: a "Properties saved
// on" comment, then the keys.
func (c *Table) Marshal(now time.Time) []byte {
	return c.Properties().Marshal("Properties saved on " + now.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// Error reports a hoodie.properties file that cannot be used.
type Error struct {
	// File is the table-relative path of the file.
	File string
	// Err says what is wrong.
	Err error
}

func (e *Error) Error() string { return e.File + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// ErrChecksum reports a hoodie.table.checksum that does not match the table
// name.
var ErrChecksum = errors.New("checksum mismatch")

// ParseTable reads hoodie.properties content, verifying the checksum and
// the rules of Validate.
func ParseTable(data []byte) (*Table, error) {
	props, err := ParseProperties(data)
	if err != nil {
		return nil, err
	}
	return tableConfigFromProperties(props)
}

func tableConfigFromProperties(props *Properties) (*Table, error) {
	extra := props.Clone()
	take := func(key string) (string, bool) {
		v, ok := extra.Get(key)
		extra.Delete(key)
		return v, ok
	}
	var errs []error
	takeInt := func(key string) int {
		v, ok := take(key)
		if !ok {
			errs = append(errs, fmt.Errorf("%s is missing", key))
			return 0
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a number", key, v))
		}
		return n
	}
	takeBool := func(key string, def bool) bool {
		v, ok := take(key)
		if !ok {
			return def
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not true or false", key, v))
		}
		return b
	}
	takeList := func(key string) []string {
		v, _ := take(key)
		if strings.TrimSpace(v) == "" {
			return nil
		}
		parts := strings.Split(v, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	c := &Table{}
	c.Name, _ = take(KeyTableName)
	c.DatabaseName, _ = take(KeyDatabaseName)
	c.Type, _ = take(KeyTableType)
	if c.Type == "" {
		c.Type = TableTypeCopyOnWrite
	}
	c.Version = takeInt(KeyTableVersion)
	c.TimelineLayoutVersion = takeInt(KeyTimelineLayoutVersion)
	c.RecordKeyFields = takeList(KeyRecordKeyFields)
	c.PrecombineField, _ = take(KeyPrecombineField)
	c.PartitionFields = takeList(KeyPartitionFields)
	c.KeyGeneratorClass, _ = take(KeyKeyGeneratorClass)
	if c.KeyGeneratorClass == "" {
		c.KeyGeneratorClass = keyGeneratorOfType(extra)
	}
	c.HiveStylePartitioning = takeBool(KeyHiveStylePartitioning, false)
	c.URLEncodePartitioning = takeBool(KeyURLEncodePartitioning, false)
	c.DropPartitionColumns = takeBool(KeyDropPartitionColumns, false)
	c.PopulateMetaFields = takeBool(KeyPopulateMetaFields, true)
	c.ArchiveLogFolder, _ = take(KeyArchiveLogFolder)
	if c.ArchiveLogFolder == "" {
		c.ArchiveLogFolder = storage.DefaultArchiveFolder
	}
	c.BaseFileFormat, _ = take(KeyBaseFileFormat)
	if c.BaseFileFormat == "" {
		c.BaseFileFormat = "PARQUET"
	}
	c.PayloadClass, _ = take(KeyPayloadClass)
	c.CreateSchema, _ = take(KeyCreateSchema)
	if zone, ok := take(KeyTimelineTimezone); ok {
		// Hudi reads it with HoodieTimelineTimeZone.valueOf: exactly LOCAL
		// or UTC (Validate checks).
		c.TimelineTimezone = TimelineTimezone(strings.TrimSpace(zone))
	}
	checksum, hasChecksum := take(KeyChecksum)
	c.Extra = extra
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if c.Name == "" {
		return nil, fmt.Errorf("%s is missing", KeyTableName)
	}
	if !hasChecksum {
		return nil, fmt.Errorf("%s is missing", KeyChecksum)
	}
	want := c.Checksum()
	if got, err := strconv.ParseUint(strings.TrimSpace(checksum), 10, 64); err != nil || got != uint64(want) {
		return nil, fmt.Errorf("%w: %s is %q but the table name %q and database %q give %d", ErrChecksum,
			KeyChecksum, checksum, c.Name, c.DatabaseName, want)
	}
	if !strings.EqualFold(c.BaseFileFormat, "PARQUET") {
		return nil, fmt.Errorf("%s %q is not supported: Hoodie reads Parquet base files", KeyBaseFileFormat, c.BaseFileFormat)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// HadoopChecksumFile names the checksum file Hadoop's local file system
// keeps beside a file it writes: ".NAME.crc" in the same folder.
func HadoopChecksumFile(name string) string {
	dir, base := path.Split(name)
	return dir + "." + base + ".crc"
}

// ErrNotATable reports a base path without hoodie.properties.
var ErrNotATable = errors.New("not a Hudi table")

// ErrTableExists reports an attempt to create a table where one exists.
var ErrTableExists = errors.New("a Hudi table already exists here")

// ErrInsideTable reports an attempt to create a table inside the folders of
// another one, its .hoodie folder included.
var ErrInsideTable = errors.New("inside another Hudi table")

// enclosingTabler is implemented by file systems that know where their base
// path lies among other folders (LocalFS).
type enclosingTabler interface {
	// EnclosingTable returns the base path of the table whose folders
	// hold the base path, or "" when none does.
	EnclosingTable(ctx context.Context) (string, error)
}

// Load reads the table's hoodie.properties. When it is missing or
// unusable but a valid hoodie.properties.backup exists (a writer died while
// updating the file, as Hudi's protocol allows), the backup is used.
func Load(ctx context.Context, fsys storage.FS) (*Table, error) {
	primary, primaryErr := readConfigFile(ctx, fsys, storage.PropertiesFile)
	if primaryErr == nil {
		return primary, nil
	}
	backup, backupErr := readConfigFile(ctx, fsys, storage.PropertiesBackupFile)
	if backupErr == nil {
		return backup, nil
	}
	if errors.Is(primaryErr, fs.ErrNotExist) {
		if !errors.Is(backupErr, fs.ErrNotExist) {
			return nil, backupErr
		}
		return nil, &Error{File: storage.PropertiesFile, Err: fmt.Errorf("%w: the file is missing", ErrNotATable)}
	}
	return nil, primaryErr
}

func readConfigFile(ctx context.Context, fsys storage.FS, name string) (*Table, error) {
	data, err := fsys.ReadFile(ctx, name)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	cfg, err := ParseTable(data)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	return cfg, nil
}

// CreateTable lays out a new table: the metadata folders Hudi creates, then
// hoodie.properties, created only if absent. It refuses a base path inside
// another table's folders (ErrInsideTable) on a file system that can tell. The table exists once
// hoodie.properties does, so a creation that dies half way leaves no table
// and can simply be run again. A cfg without a timeline zone gets
// TimelineUTC (cfg itself is not changed): a table Hoodie creates says its
// zone, so that Spark writes to it in UTC too; ask for TimelineLocal
// explicitly for Hudi's default.
func CreateTable(ctx context.Context, fsys storage.FS, cfg *Table, now time.Time) error {
	if cfg.TimelineTimezone == "" {
		withZone := *cfg
		withZone.TimelineTimezone = TimelineUTC
		cfg = &withZone
	}
	if err := cfg.Validate(); err != nil {
		return &Error{File: storage.PropertiesFile, Err: err}
	}
	for _, name := range []string{storage.PropertiesFile, storage.PropertiesBackupFile} {
		exists, err := storage.Exists(ctx, fsys, name)
		if err != nil {
			return fmt.Errorf("check for an existing table: %w", err)
		}
		if exists {
			return &Error{File: name, Err: ErrTableExists}
		}
	}
	if e, ok := fsys.(enclosingTabler); ok {
		outer, err := e.EnclosingTable(ctx)
		if err != nil {
			return fmt.Errorf("check for an enclosing table: %w", err)
		}
		if outer != "" {
			return fmt.Errorf("%w at %s: its readers and writers would take the new table's files for its own; create it outside %s", ErrInsideTable, outer, outer)
		}
	}
	folders := []string{
		storage.TempFolder,
		storage.AuxFolder + "/.bootstrap/.partitions",
		storage.AuxFolder + "/.bootstrap/.fileids",
		storage.SchemaFolder,
		storage.MetaFolder + "/" + cfg.ArchiveLogFolder,
	}
	for _, dir := range folders {
		if err := fsys.MkdirAll(ctx, dir); err != nil {
			return fmt.Errorf("create table folder %s: %w", dir, err)
		}
	}
	if err := fsys.CreateIfAbsent(ctx, storage.PropertiesFile, cfg.Marshal(now)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &Error{File: storage.PropertiesFile, Err: ErrTableExists}
		}
		return fmt.Errorf("write %s: %w", storage.PropertiesFile, err)
	}
	return nil
}

// Update replaces hoodie.properties with cfg following Hudi's
// protocol, so that Hudi's readers and ours always find a valid file: the
// current content is first saved to hoodie.properties.backup, then the file
// is replaced atomically, then the backup is removed. A reader that finds
// hoodie.properties missing or invalid falls back to the backup.
//
// Before all that it removes the Hadoop checksum files of both
// (".hoodie/.hoodie.properties.crc"), which Spark's writes leave on a local
// file system: Hadoop's local file system checks a file against its .crc
// when there is one, so a stale one makes Hudi fail to load the table
// ("Could not load Hoodie properties"); without one it reads the file
// unchecked.
func Update(ctx context.Context, fsys storage.FS, cfg *Table, now time.Time) error {
	if err := cfg.Validate(); err != nil {
		return &Error{File: storage.PropertiesFile, Err: err}
	}
	current, err := Load(ctx, fsys)
	if err != nil {
		return err
	}
	for _, name := range []string{storage.PropertiesFile, storage.PropertiesBackupFile} {
		crc := HadoopChecksumFile(name)
		if err := fsys.Remove(ctx, crc); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", crc, err)
		}
	}
	if err := fsys.WriteFile(ctx, storage.PropertiesBackupFile, current.Marshal(now)); err != nil {
		return fmt.Errorf("write %s: %w", storage.PropertiesBackupFile, err)
	}
	if err := fsys.WriteFile(ctx, storage.PropertiesFile, cfg.Marshal(now)); err != nil {
		return fmt.Errorf("write %s: %w", storage.PropertiesFile, err)
	}
	if err := fsys.Remove(ctx, storage.PropertiesBackupFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", storage.PropertiesBackupFile, err)
	}
	return nil
}

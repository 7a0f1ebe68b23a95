package write

import (
	"fmt"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// Settings are the write settings of one write, typed. The zero value is
// not valid: start from DefaultSettings or ParseSettings.
type Settings struct {
	// MaxFileSize is the target size of a base file in bytes: inserts go to
	// a new file group once a file would grow past it.
	MaxFileSize int64
	// SmallFileLimit is the size under which a file group counts as small:
	// inserts fill small file groups of their partition before new ones are
	// made. Zero turns small-file filling off.
	SmallFileLimit int64
	// RecordSizeEstimate is the assumed size of one record in bytes when the
	// table has no commit to learn it from.
	RecordSizeEstimate int64
	// Compression is the Parquet codec: zstd, snappy, gzip or uncompressed.
	Compression string
	// BlockSize is the Parquet row group size in bytes.
	BlockSize int64
	// PageSize is the Parquet page size in bytes.
	PageSize int
	// StringEncoding is the Parquet encoding of string and bytes columns:
	// DELTA_LENGTH_BYTE_ARRAY, or PLAIN for readers older than Spark 3.3's
	// vectorized one.
	StringEncoding string
	// NoDictionary keeps the string and bytes columns of new file groups
	// from dictionary encoding (hoodie.parquet.dictionary.enabled=false).
	// By default a column chunk is dictionary-encoded when its first page
	// takes less room so, as parquet-mr decides it.
	NoDictionary bool
	// DropDuplicates makes insert and bulk-insert skip records whose keys
	// exist in the table instead of refusing the write.
	DropDuplicates bool
	// Parallelism is how many file groups are written at once.
	Parallelism int
	// BulkInsertSortMode is Hudi's hoodie.bulkinsert.sort.mode: how a bulk
	// insert orders the records it writes. GLOBAL_SORT (Hoodie's default),
	// PARTITION_SORT and PARTITION_PATH_REPARTITION_AND_SORT write each
	// partition's new files in record-key order, so that a lookup by key
	// reads a page or two of a file; NONE (Hudi's default) and
	// PARTITION_PATH_REPARTITION keep the input's order, which loads
	// faster but leaves the key column unsorted. Other writes always sort.
	BulkInsertSortMode string
	// HeartbeatTimeout is how long after its last heartbeat another
	// writer's pending commit counts as dead, and is rolled back: Hudi's
	// heartbeat interval times its tolerable misses. Zero means the
	// default, two minutes.
	HeartbeatTimeout time.Duration
	// HeartbeatInterval is how often a write touches its heartbeat,
	// .hoodie/.heartbeat/<instant>, while it writes (Hudi's
	// hoodie.client.heartbeat.interval_in_ms). Zero means the default,
	// one minute.
	HeartbeatInterval time.Duration
	// LockTimeout is how long a write waits for the table's writer lock
	// (hoodie.write.lock.wait_time_ms) before it fails, refused with
	// nothing written, naming the holder. Zero waits until the context
	// is done.
	LockTimeout time.Duration
	// LossyWidening lets a write widen a column whose stored values the
	// wider type cannot all hold exactly (int or long to float, long to
	// double beyond 2^53), rounding them for good. By default such a write
	// is refused before anything is written.
	LossyWidening bool
	// Cleaner says when the cleaner runs after a commit and what it keeps
	// (hoodie.clean.* and hoodie.cleaner.*).
	Cleaner CleanerSettings
	// TableServices is hoodie.table.services.enabled: false turns off the
	// services that run after a commit, whatever their own settings say.
	TableServices bool
	// Clustering are the settings of Writer.Cluster.
	Clustering ClusteringSettings
	// Archive says when and how much of the timeline archival archives.
	Archive ArchiveSettings
	// Props holds every setting given, those above included, for the
	// pre-commit hook (validators read theirs from it). A write checks
	// its hoodie.* keys as ParseSettings does, and against the write.
	Props *config.Properties

	// heartbeatInterval (ms) and heartbeatMisses make HeartbeatTimeout.
	heartbeatInterval, heartbeatMisses int64
}

// DefaultSettings returns the defaults the registry declares: Hudi's, but
// zstd compression, one writer per core, and bulk inserts sorted by key.
func DefaultSettings() Settings {
	s := Settings{Props: config.NewProperties()}
	for i := range registry {
		if def := &registry[i]; def.parse != nil && def.Default != "" {
			if err := def.parse(&s, def.Default); err != nil {
				panic(fmt.Sprintf("write: default of %s: %v", def.Key, err))
			}
		}
	}
	s.setHeartbeat()
	return s
}

// setHeartbeat sets HeartbeatInterval and HeartbeatTimeout from their
// settings.
func (s *Settings) setHeartbeat() {
	s.HeartbeatInterval = time.Duration(s.heartbeatInterval) * time.Millisecond
	s.HeartbeatTimeout = time.Duration(s.heartbeatInterval*s.heartbeatMisses) * time.Millisecond
}

// ParseSettings reads settings from Hudi properties on top of the defaults,
// before anything is read or written. Every hoodie.* key must be one the
// registry declares (SettingsRegistry): an unknown key, a refused one and
// an impossible value are errors naming the key and what it takes. Keys
// outside hoodie.* (spark.*, say) are kept in Props and otherwise ignored.
// Settings that must agree with the table or the operation are checked
// when the write runs.
func ParseSettings(props *config.Properties) (Settings, error) {
	s := DefaultSettings()
	if props == nil {
		return s, nil
	}
	s.Props = props.Clone()
	err := s.checkProps()
	s.setHeartbeat()
	return s, err
}

// checkProps checks every hoodie.* key of s.Props (see ParseSettings),
// storing the values of honoured ones in s.
func (s *Settings) checkProps() error {
	var problems []*problem
	for _, key := range s.Props.Keys() {
		if !strings.HasPrefix(key, "hoodie.") {
			continue
		}
		v, _ := s.Props.Get(key)
		if p := check(s, key, v); p != nil {
			problems = append(problems, p)
		}
	}
	// A default over the size set with it gives way; two sizes set so are
	// refused.
	_, smallSet := s.Props.Get(KeySmallFileLimit)
	_, pageSet := s.Props.Get(KeyPageSize)
	impossible := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		problems = append(problems, &problem{"impossible", msg, msg})
	}
	switch {
	case s.SmallFileLimit <= s.MaxFileSize:
	case smallSet:
		impossible("%s=%d is over %s=%d: a file group that large is not small", KeySmallFileLimit, s.SmallFileLimit, KeyMaxFileSize, s.MaxFileSize)
	default:
		s.SmallFileLimit = s.MaxFileSize
	}
	switch {
	case int64(s.PageSize) <= s.BlockSize:
	case pageSet:
		impossible("%s=%d is over %s=%d: a row group holds whole pages", KeyPageSize, s.PageSize, KeyBlockSize, s.BlockSize)
	default:
		s.PageSize = int(s.BlockSize)
	}
	if err := s.Archive.check(); err != nil {
		impossible("%v", err)
	}
	// Archival must leave the commits the cleaner retains on the active
	// timeline, or an incremental read would miss their data: Hudi refuses
	// the settings too.
	if keep := s.Archive.withDefaults().MinCommits; keep <= s.Cleaner.CommitsRetained {
		impossible("%s=%d must be greater than %s=%d, or archival would take commits the cleaner retains", KeyKeepMinCommits, keep, "hoodie.cleaner.commits.retained", s.Cleaner.CommitsRetained)
	}
	return problemsError(problems)
}

// checkWrite checks, before a write writes anything, its hoodie.* settings
// as ParseSettings does (a caller may have filled Props itself) and the
// settings that must agree with the operation and the table.
func (s *Settings) checkWrite(op Operation, cfg *config.Table) error {
	if s.Props == nil {
		return nil
	}
	scratch := DefaultSettings()
	scratch.Props = s.Props
	if err := scratch.checkProps(); err != nil {
		return err
	}
	var errs []string
	target := writeTarget{op: op, cfg: cfg}
	for _, key := range s.Props.Keys() {
		if def, ok := LookupSetting(key); ok && def.agree != nil {
			v, _ := s.Props.Get(key)
			if err := def.agree(key, v, target); err != nil {
				errs = append(errs, fmt.Sprintf("%s=%s is refused: %v", key, v, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("write settings: %s", strings.Join(errs, "; "))
	}
	return nil
}

// bulkInsertSorts tells, for each of Hudi's bulk insert sort modes, whether
// it writes records in key order.
var bulkInsertSorts = map[string]bool{
	"NONE": false, "PARTITION_PATH_REPARTITION": false,
	"GLOBAL_SORT": true, "PARTITION_SORT": true, "PARTITION_PATH_REPARTITION_AND_SORT": true,
}

// SortsBulkInsert reports whether a bulk insert writes its records in key
// order (see BulkInsertSortMode, in any case); an unset mode does.
func (s *Settings) SortsBulkInsert() bool {
	sorts, known := bulkInsertSorts[strings.ToUpper(strings.TrimSpace(s.BulkInsertSortMode))]
	return sorts || !known
}

func (s *Settings) baseFileOptions() basefile.Options {
	return basefile.Options{Compression: s.Compression, BlockSize: s.BlockSize, PageSize: s.PageSize,
		StringEncoding: s.StringEncoding, NoDictionary: s.NoDictionary}
}

package write

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

// Hudi's write settings that Hoodie understands, by their Hudi names.
const (
	KeyMaxFileSize        = "hoodie.parquet.max.file.size"
	KeySmallFileLimit     = "hoodie.parquet.small.file.limit"
	KeyRecordSizeEstimate = "hoodie.copyonwrite.record.size.estimate"
	KeyCompressionCodec   = "hoodie.parquet.compression.codec"
	KeyBlockSize          = "hoodie.parquet.block.size"
	KeyPageSize           = "hoodie.parquet.page.size"
	KeyDropDuplicates     = "hoodie.datasource.write.insert.drop.duplicates"
	KeyParallelism        = "hoodie.write.parallelism"
	KeyBulkInsertSortMode = "hoodie.bulkinsert.sort.mode"
	KeyDictionaryEnabled  = "hoodie.parquet.dictionary.enabled"
	// KeyHeartbeatInterval and KeyHeartbeatMisses say when the heartbeat of
	// another writer's pending commit has expired (see
	// Settings.HeartbeatTimeout).
	KeyHeartbeatInterval = "hoodie.client.heartbeat.interval_in_ms"
	KeyHeartbeatMisses   = "hoodie.client.heartbeat.tolerable.misses"
	// KeyStringEncoding is Hoodie's own: the encoding of string and bytes
	// columns (storage.BaseFileOptions.StringEncoding). Hudi ignores it.
	KeyStringEncoding = "hoodie.parquet.string.encoding"
	// KeyLossyWidening is Hoodie's own: true lets a write widen a column
	// from int or long to float or double although values the table holds
	// would be rounded (see Settings.LossyWidening). Hudi ignores it.
	KeyLossyWidening = "hoodie.write.schema.widening.lossy.allowed"
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
	// LossyWidening lets a write widen a column whose stored values the
	// wider type cannot all hold exactly (int or long to float, long to
	// double beyond 2^53), rounding them for good. By default such a write
	// is refused before anything is written.
	LossyWidening bool
	// Props holds every setting given, those above included, for the
	// pre-commit hook (validators read theirs from it).
	Props *storage.Properties
}

// Hudi's defaults of KeyHeartbeatInterval and KeyHeartbeatMisses.
const (
	defaultHeartbeatInterval = time.Minute
	defaultHeartbeatMisses   = 2
	defaultHeartbeatTimeout  = defaultHeartbeatInterval * defaultHeartbeatMisses
)

// DefaultSettings returns Hudi's defaults, with zstd compression and one
// writer per core.
func DefaultSettings() Settings {
	return Settings{
		MaxFileSize:        120 << 20,
		SmallFileLimit:     100 << 20,
		RecordSizeEstimate: 1024,
		Compression:        storage.DefaultCompression,
		BlockSize:          storage.DefaultBlockSize,
		PageSize:           storage.DefaultPageSize,
		StringEncoding:     storage.DefaultStringEncoding,
		Parallelism:        runtime.GOMAXPROCS(0),
		BulkInsertSortMode: "GLOBAL_SORT",
		HeartbeatTimeout:   defaultHeartbeatTimeout,
		Props:              storage.NewProperties(),
	}
}

// ParseSettings reads settings from Hudi properties on top of the defaults.
// Keys Hoodie does not know are kept in Props and otherwise ignored, as Hudi
// ignores settings of features a write does not use; a known key with a bad
// value is an error naming it.
func ParseSettings(props *storage.Properties) (Settings, error) {
	s := DefaultSettings()
	if props == nil {
		return s, nil
	}
	s.Props = props.Clone()
	var errs []string
	numberOf := func(key string, dst *int64, allowZero bool) {
		v, ok := props.Get(key)
		if !ok {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 || (n == 0 && !allowZero) {
			errs = append(errs, fmt.Sprintf("%s=%q is not a positive whole number", key, v))
			return
		}
		*dst = n
	}
	numberOf(KeyMaxFileSize, &s.MaxFileSize, false)
	numberOf(KeySmallFileLimit, &s.SmallFileLimit, true)
	numberOf(KeyRecordSizeEstimate, &s.RecordSizeEstimate, false)
	numberOf(KeyBlockSize, &s.BlockSize, false)
	var page, parallelism int64 = int64(s.PageSize), int64(s.Parallelism)
	numberOf(KeyPageSize, &page, false)
	numberOf(KeyParallelism, &parallelism, false)
	if page > storage.MaxPageSize {
		errs = append(errs, fmt.Sprintf("%s=%d is over the %d bytes a Parquet page may hold", KeyPageSize, page, storage.MaxPageSize))
		page = int64(s.PageSize)
	}
	s.PageSize, s.Parallelism = int(page), int(parallelism)
	if v, ok := props.Get(KeyCompressionCodec); ok {
		switch c := strings.ToLower(strings.TrimSpace(v)); c {
		case "zstd", "snappy", "gzip", "uncompressed":
			s.Compression = c
		default:
			errs = append(errs, fmt.Sprintf("%s=%q: want zstd, snappy, gzip or uncompressed", KeyCompressionCodec, v))
		}
	}
	if v, ok := props.Get(KeyStringEncoding); ok {
		if _, err := storage.StringEncoding(strings.TrimSpace(v)); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: want DELTA_LENGTH_BYTE_ARRAY or PLAIN", KeyStringEncoding, v))
		} else {
			s.StringEncoding = strings.ToUpper(strings.TrimSpace(v))
		}
	}
	if v, ok := props.Get(KeyBulkInsertSortMode); ok {
		mode := strings.ToUpper(strings.TrimSpace(v))
		if _, known := bulkInsertSorts[mode]; known {
			s.BulkInsertSortMode = mode
		} else {
			errs = append(errs, fmt.Sprintf("%s=%q: want NONE, GLOBAL_SORT, PARTITION_SORT, PARTITION_PATH_REPARTITION or PARTITION_PATH_REPARTITION_AND_SORT", KeyBulkInsertSortMode, v))
		}
	}
	boolOf := func(key string, dst *bool) {
		v, ok := props.Get(key)
		if !ok {
			return
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q is not true or false", key, v))
			return
		}
		*dst = b
	}
	interval, misses := int64(defaultHeartbeatInterval/time.Millisecond), int64(defaultHeartbeatMisses)
	numberOf(KeyHeartbeatInterval, &interval, false)
	numberOf(KeyHeartbeatMisses, &misses, false)
	s.HeartbeatTimeout = time.Duration(interval*misses) * time.Millisecond
	boolOf(KeyDropDuplicates, &s.DropDuplicates)
	boolOf(KeyLossyWidening, &s.LossyWidening)
	dictionary := !s.NoDictionary
	boolOf(KeyDictionaryEnabled, &dictionary)
	s.NoDictionary = !dictionary
	if len(errs) > 0 {
		return s, fmt.Errorf("write settings: %s", strings.Join(errs, "; "))
	}
	return s, nil
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

func (s *Settings) baseFileOptions() storage.BaseFileOptions {
	return storage.BaseFileOptions{Compression: s.Compression, BlockSize: s.BlockSize, PageSize: s.PageSize,
		StringEncoding: s.StringEncoding, NoDictionary: s.NoDictionary}
}

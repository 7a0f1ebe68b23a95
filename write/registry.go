package write

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// Kind says what Hoodie does with a hoodie.* setting.
type Kind uint8

const (
	// Honoured settings do what Hudi's documentation says they do, or
	// must agree with the table's configuration (a write refuses a
	// setting that disagrees, as Hudi refuses a write whose key fields
	// differ from the table's).
	Honoured Kind = iota + 1
	// Ignored settings only tune how Spark runs a write (parallelism,
	// memory, spilling, metrics, services Hudi runs beside a write): a
	// write gives the same table with them or without them.
	Ignored
	// Refused settings would change a write's result and Hoodie does not
	// honour them: a write given one is refused before anything is
	// written, unless its value asks for what Hoodie does anyway (such as
	// hoodie.clean.automatic=false, since Hoodie does not clean).
	Refused
)

// String names the kind as docs/cli.md does.
func (k Kind) String() string {
	switch k {
	case Honoured:
		return "honoured"
	case Ignored:
		return "ignored"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Setting is one hoodie.* key Hoodie knows: every key is declared once, in
// the registry Settings lists.
type Setting struct {
	// Key is the key; for a family of keys, its prefix ending in "." (every
	// key starting with it that is not declared on its own).
	Key string
	// Default is the value a write behaves as when the key is not set:
	// Hoodie's behaviour, which for a refused setting is the value that
	// asks for nothing Hoodie does not do. Empty when there is none.
	Default string
	// Kind says what Hoodie does with the setting.
	Kind Kind
	// Doc says what the setting does, or why it is ignored or refused.
	Doc string
	// Accepted are the values of a refused setting that ask for what
	// Hoodie does anyway (compared without case); any other is refused.
	// Nil refuses every value.
	Accepted []string

	// parse checks a value of a honoured setting and stores it in s; nil
	// for a setting checked against the table (agree) or read by another
	// package (the pre-commit validators).
	parse func(s *Settings, v string) error
	// agree, if not nil, checks at write time that the value agrees with
	// the write: its operation and the table's configuration.
	agree func(key, v string, w writeTarget) error
}

// writeTarget is what a setting may have to agree with at write time.
type writeTarget struct {
	op  Operation
	cfg *config.Table
}

// family reports whether s declares a family of keys.
func (s *Setting) family() bool { return strings.HasSuffix(s.Key, ".") }

// Settings of the registry that other code reads by name.
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
	// KeyHeartbeatInterval and KeyHeartbeatMisses say how often a write
	// touches its heartbeat (Settings.HeartbeatInterval), and when the
	// heartbeat of another writer's pending commit has expired (see
	// Settings.HeartbeatTimeout).
	KeyHeartbeatInterval = "hoodie.client.heartbeat.interval_in_ms"
	KeyHeartbeatMisses   = "hoodie.client.heartbeat.tolerable.misses"
	// KeyStringEncoding is Hoodie's own: the encoding of string and bytes
	// columns (basefile.Options.StringEncoding). Hudi ignores it.
	KeyStringEncoding = "hoodie.parquet.string.encoding"
	// KeyLockWaitTime is how long a write waits for the table's writer
	// lock (Settings.LockTimeout).
	KeyLockWaitTime = "hoodie.write.lock.wait_time_ms"
	// KeyLossyWidening is Hoodie's own: true lets a write widen a column
	// from int or long to float or double although values the table holds
	// would be rounded (see Settings.LossyWidening). Hudi ignores it.
	KeyLossyWidening = "hoodie.write.schema.widening.lossy.allowed"
	// KeyOperation is the write operation Hudi's Spark writer runs; a
	// write refuses one that is not its own.
	KeyOperation = "hoodie.datasource.write.operation"
	// KeyPayloadClass is the payload class of a write; it must be the one
	// of the table's merge mode.
	KeyPayloadClass = "hoodie.datasource.write.payload.class"
)

// Size bounds of the byte-size settings.
const (
	minFileSize = 1 << 20
	maxFileSize = 1 << 40
	minPageSize = 1 << 10
	minBlock    = 64 << 10
)

// registry holds every hoodie.* key Hoodie knows, families included. It is
// the one place a key is declared: docs/cli.md lists the same keys (a test
// checks it).
var registry = buildRegistry()

// byKey finds the declarations of keys and families.
var byKey = func() map[string]*Setting {
	m := make(map[string]*Setting, len(registry))
	for i := range registry {
		if _, dup := m[registry[i].Key]; dup {
			panic("write: setting declared twice: " + registry[i].Key)
		}
		m[registry[i].Key] = &registry[i]
	}
	return m
}()

// SettingsRegistry lists every hoodie.* key and family of keys Hoodie knows, in
// the order docs/cli.md gives them.
func SettingsRegistry() []Setting { return slices.Clone(registry) }

// LookupSetting finds the declaration of key: the key's own, or else that
// of the family it belongs to (a key ending in ".parallelism" is a tuning
// knob; otherwise the longest family prefix wins).
func LookupSetting(key string) (Setting, bool) {
	if s, ok := byKey[key]; ok && !s.family() {
		return *s, true
	}
	if strings.HasSuffix(key, ".parallelism") {
		return *byKey[parallelismFamily], true
	}
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		if s, ok := byKey[key[:i+1]]; ok {
			return *s, true
		}
	}
	return Setting{}, false
}

// parallelismFamily declares every hoodie.*.parallelism key but
// hoodie.write.parallelism.
const parallelismFamily = "hoodie.*.parallelism."

// problem is what is wrong with one setting: its kind of problem, a short
// form for a list of problems, and the whole message.
type problem struct {
	kind  string // "refused", "unknown" or "impossible"
	short string
	full  string
}

// check checks one key's value: that Hoodie knows the key, that the value
// of a honoured one is possible (storing it in s), and that a refused one
// has a value that asks for what Hoodie does anyway. It returns nil when
// the setting is fine.
func check(s *Settings, key, v string) *problem {
	def, ok := LookupSetting(key)
	if !ok {
		hint := ""
		if near := nearestKey(key); near != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", near)
		}
		return &problem{"unknown", key + hint, fmt.Sprintf("%s is not a setting Hoodie knows%s; it refuses unknown hoodie.* keys rather than ignore one that would change the write", key, hint)}
	}
	switch def.Kind {
	case Refused:
		if slices.ContainsFunc(def.Accepted, func(a string) bool { return strings.EqualFold(a, strings.TrimSpace(v)) }) {
			return nil
		}
		remedy := "remove it"
		if len(def.Accepted) > 0 {
			remedy += " or set it to " + strings.Join(def.Accepted, " or ")
		}
		return &problem{"refused", key, fmt.Sprintf("%s=%s is refused: %s; %s", key, v, def.Doc, remedy)}
	case Honoured:
		if def.parse != nil {
			if err := def.parse(s, strings.TrimSpace(v)); err != nil {
				msg := fmt.Sprintf("%s=%q: %v", key, v, err)
				return &problem{"impossible", msg, msg}
			}
		}
	}
	return nil
}

// problemsError makes one error of the problems of several settings: the
// whole message of a single one; for several, their keys by kind of
// problem, so that the line stays short and names every key to fix.
func problemsError(problems []*problem) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("write settings: %s", problems[0].full)
	}
	var groups []string
	for _, kind := range []struct{ kind, title string }{
		{"refused", "Hoodie does not do what these ask (docs/cli.md says why; remove them)"},
		{"unknown", "unknown keys"},
		{"impossible", "impossible values"},
	} {
		var shorts []string
		for _, p := range problems {
			if p.kind == kind.kind {
				shorts = append(shorts, p.short)
			}
		}
		if len(shorts) > 0 {
			groups = append(groups, kind.title+": "+strings.Join(shorts, ", "))
		}
	}
	return fmt.Errorf("write settings: %d refused; %s", len(problems), strings.Join(groups, "; "))
}

// nearestKey returns the declared key closest to key, when it is close
// enough to be a typo of it.
func nearestKey(key string) string {
	best, bestDist := "", 4
	for i := range registry {
		if registry[i].family() {
			continue
		}
		if d := editDistance(key, registry[i].Key); d < bestDist {
			best, bestDist = registry[i].Key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// wholeNumber parses v as a whole number in [lo, hi]; unit names what it
// counts in the error.
func wholeNumber(v string, lo, hi int64, unit string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number of %s from %d to %d", unit, lo, hi)
	}
	return n, nil
}

// number returns a parse func for a whole-number setting in [lo, hi].
func number[T int | int64](dst func(*Settings) *T, lo, hi int64, unit string) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		n, err := wholeNumber(v, lo, hi, unit)
		if err != nil {
			return err
		}
		*dst(s) = T(n)
		return nil
	}
}

// boolean returns a parse func for a true/false setting; invert stores its
// negation.
func boolean(dst func(*Settings) *bool, invert bool) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*dst(s) = b != invert
		return nil
	}
}

// oneOf returns a parse func for a setting taking one of values, in any
// case, stored upper or lower case as values spell it.
func oneOf(dst func(*Settings) *string, values ...string) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		for _, want := range values {
			if strings.EqualFold(v, want) {
				*dst(s) = want
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(values, ", "))
	}
}

// tableValue returns an agree func: the value must equal the table's
// hoodie.properties value of tableKey (of the key itself when tableKey is
// empty; def when the table has none); lists are compared item by item,
// without case.
func tableValue(tableKey, def string) func(string, string, writeTarget) error {
	return func(key, v string, w writeTarget) error {
		from := cmp.Or(tableKey, key)
		have := w.cfg.Properties().GetOr(from, def)
		if normalizeValue(v) == normalizeValue(have) {
			return nil
		}
		return fmt.Errorf("the table has %s=%s, and a write does not change a table's configuration", from, have)
	}
}

// normalizeValue makes two spellings of a setting's value comparable:
// items of a comma-separated list trimmed, case folded.
func normalizeValue(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

// keyGeneratorTypes are Hudi's hoodie.datasource.write.keygenerator.type
// values of the key generators Hoodie writes with.
var keyGeneratorTypes = map[string]string{
	"SIMPLE": config.SimpleKeyGenerator, "COMPLEX": config.ComplexKeyGenerator, "NON_PARTITION": config.NonpartitionedKeyGenerator,
	"TIMESTAMP": config.TimestampBasedKeyGenerator,
}

// payloadModes are the payload classes of the merge modes.
var payloadModes = map[string]config.MergeMode{
	config.EventTimePayload: config.MergeEventTime, config.CommitTimePayload: config.MergeCommitTime,
}

// agreePayload checks a payload class against the table's merge mode.
func agreePayload(_, v string, w writeTarget) error {
	mode, ok := payloadModes[strings.TrimSpace(v)]
	if !ok {
		return fmt.Errorf("want %s (merge mode event-time) or %s (commit-time), the merges Hoodie has", config.EventTimePayload, config.CommitTimePayload)
	}
	if mode != w.cfg.MergeMode() {
		return fmt.Errorf("the table's merge mode is %s, which is %s", w.cfg.MergeMode(), map[config.MergeMode]string{
			config.MergeEventTime: config.EventTimePayload, config.MergeCommitTime: config.CommitTimePayload}[w.cfg.MergeMode()])
	}
	return nil
}

// checkPayload refuses, before the table is read, a payload class Hoodie
// has no merge for.
func checkPayload(_ *Settings, v string) error {
	if _, ok := payloadModes[v]; !ok {
		return fmt.Errorf("want %s (merge mode event-time) or %s (commit-time), the merges Hoodie has; it has no partial updates or CDC payloads", config.EventTimePayload, config.CommitTimePayload)
	}
	return nil
}

// checkOperation refuses, before the table is read, an operation Hoodie
// has no command for.
func checkOperation(_ *Settings, v string) error {
	for op := range operationNames {
		if strings.EqualFold(v, op.hudi().Value()) {
			return nil
		}
	}
	return fmt.Errorf("want insert, bulk_insert, upsert, delete, insert_overwrite, insert_overwrite_table or delete_partition: Hoodie runs each as the command of that name and has no other")
}

// buildRegistry declares every setting. Honoured first, then ignored, then
// refused, each group in Hudi's order of config classes.
func buildRegistry() []Setting {
	size := func(dst func(*Settings) *int64, lo int64) func(*Settings, string) error {
		return number(dst, lo, maxFileSize, "bytes")
	}
	agreeTable := func(key, tableKey, def, doc string) Setting {
		return Setting{Key: key, Kind: Honoured, Doc: doc, agree: tableValue(tableKey, def)}
	}
	cores := strconv.Itoa(runtime.GOMAXPROCS(0))
	return []Setting{
		// Honoured: they tune what Hoodie writes.
		{Key: KeyMaxFileSize, Default: "125829120", Kind: Honoured, Doc: "target base file size in bytes (1 MiB to 1 TiB)",
			parse: size(func(s *Settings) *int64 { return &s.MaxFileSize }, minFileSize)},
		{Key: KeySmallFileLimit, Default: "104857600", Kind: Honoured, Doc: "file groups smaller than this receive inserts first; 0 turns it off; at most hoodie.parquet.max.file.size, which the default gives way to",
			parse: size(func(s *Settings) *int64 { return &s.SmallFileLimit }, 0)},
		{Key: KeyRecordSizeEstimate, Default: "1024", Kind: Honoured, Doc: "bytes per record before the table has a commit to learn from (1 byte to 1 GiB)",
			parse: number(func(s *Settings) *int64 { return &s.RecordSizeEstimate }, 1, 1<<30, "bytes")},
		{Key: KeyCompressionCodec, Default: basefile.DefaultCompression, Kind: Honoured, Doc: "zstd, snappy, gzip or uncompressed (Hudi's default is gzip)",
			parse: oneOf(func(s *Settings) *string { return &s.Compression }, "zstd", "snappy", "gzip", "uncompressed")},
		{Key: KeyBlockSize, Default: strconv.Itoa(basefile.DefaultBlockSize), Kind: Honoured, Doc: "Parquet row group size in bytes (64 KiB to 1 TiB; at least the page size, which the default page size gives way to)",
			parse: size(func(s *Settings) *int64 { return &s.BlockSize }, minBlock)},
		{Key: KeyPageSize, Default: strconv.Itoa(basefile.DefaultPageSize), Kind: Honoured, Doc: fmt.Sprintf("Parquet page size in bytes (1 KiB to %d)", basefile.MaxPageSize),
			parse: number(func(s *Settings) *int { return &s.PageSize }, minPageSize, basefile.MaxPageSize, "bytes")},
		{Key: KeyStringEncoding, Default: basefile.DefaultStringEncoding, Kind: Honoured, Doc: "Hoodie's own: the encoding of string and bytes columns, DELTA_LENGTH_BYTE_ARRAY or PLAIN (for readers older than Spark 3.3's vectorized reader)",
			parse: oneOf(func(s *Settings) *string { return &s.StringEncoding }, "DELTA_LENGTH_BYTE_ARRAY", "PLAIN")},
		{Key: KeyDictionaryEnabled, Default: "true", Kind: Honoured, Doc: "dictionary-encode a string or bytes column chunk of a new file group when that takes less room, as parquet-mr decides",
			parse: boolean(func(s *Settings) *bool { return &s.NoDictionary }, true)},
		{Key: KeyDropDuplicates, Default: "false", Kind: Honoured, Doc: "insert and bulk-insert skip records whose keys exist instead of refusing the write (--drop-duplicates)",
			parse: boolean(func(s *Settings) *bool { return &s.DropDuplicates }, false)},
		{Key: KeyLossyWidening, Default: "false", Kind: Honoured, Doc: "Hoodie's own: true lets a write widen int or long to float, or long to double, although values the table holds would be rounded for good",
			parse: boolean(func(s *Settings) *bool { return &s.LossyWidening }, false)},
		{Key: KeyParallelism, Default: cores, Kind: Honoured, Doc: "file groups written at once (1 to 4096; default: the number of cores)",
			parse: number(func(s *Settings) *int { return &s.Parallelism }, 1, 4096, "file groups")},
		{Key: KeyBulkInsertSortMode, Default: "GLOBAL_SORT", Kind: Honoured, Doc: "how bulk-insert orders its files' records: GLOBAL_SORT, PARTITION_SORT or PARTITION_PATH_REPARTITION_AND_SORT in key order; NONE (Hudi's default) or PARTITION_PATH_REPARTITION in input order",
			parse: oneOf(func(s *Settings) *string { return &s.BulkInsertSortMode }, "NONE", "GLOBAL_SORT", "PARTITION_SORT", "PARTITION_PATH_REPARTITION", "PARTITION_PATH_REPARTITION_AND_SORT")},
		{Key: KeyHeartbeatInterval, Default: "60000", Kind: Honoured, Doc: "how often a write touches its heartbeat; with hoodie.client.heartbeat.tolerable.misses: a Spark writer's pending commit whose heartbeat is younger than their product is alive and not rolled back (1 ms to a day)",
			parse: number(func(s *Settings) *int64 { return &s.heartbeatInterval }, 1, int64(24*time.Hour/time.Millisecond), "milliseconds")},
		{Key: KeyHeartbeatMisses, Default: "2", Kind: Honoured, Doc: "see hoodie.client.heartbeat.interval_in_ms (1 to 1000)",
			parse: number(func(s *Settings) *int64 { return &s.heartbeatMisses }, 1, 1000, "heartbeats")},
		{Key: KeyLockWaitTime, Kind: Honoured, Doc: "how long a write waits for the table's writer lock before it fails with nothing written (1 ms to 7 days; default: as long as it takes, as --lock-timeout; Hudi's 60000 applies to its lock providers)",
			parse: func(s *Settings, v string) error {
				n, err := wholeNumber(v, 1, int64(7*24*time.Hour/time.Millisecond), "milliseconds")
				if err != nil {
					return err
				}
				s.LockTimeout = time.Duration(n) * time.Millisecond
				return nil
			}},
		{Key: "hoodie.table.services.enabled", Default: "true", Kind: Honoured, Doc: "false turns off the table services that run after a commit (the automatic cleaner and archival), as in Hudi",
			parse: boolean(func(s *Settings) *bool { return &s.TableServices }, false)},
		{Key: "hoodie.clean.automatic", Default: "true", Kind: Honoured, Doc: "runs the cleaner after each commit (see services.md)",
			parse: boolean(func(s *Settings) *bool { return &s.Cleaner.Automatic }, false)},
		{Key: "hoodie.cleaner.policy", Default: CleanKeepLatestCommits, Kind: Honoured, Doc: "what the cleaner keeps: KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS",
			parse: oneOf(func(s *Settings) *string { return &s.Cleaner.Policy }, CleanKeepLatestCommits, CleanKeepLatestFileVersions, CleanKeepLatestByHours)},
		{Key: "hoodie.cleaner.commits.retained", Default: "10", Kind: Honoured, Doc: "KEEP_LATEST_COMMITS: the commits whose snapshots stay readable (0, which never cleans, to 1000000)",
			parse: number(func(s *Settings) *int { return &s.Cleaner.CommitsRetained }, 0, 1000000, "commits")},
		{Key: "hoodie.cleaner.fileversions.retained", Default: "3", Kind: Honoured, Doc: "KEEP_LATEST_FILE_VERSIONS: the versions kept of each file group (1 to 1000000)",
			parse: number(func(s *Settings) *int { return &s.Cleaner.FileVersionsRetained }, 1, 1000000, "versions")},
		{Key: "hoodie.cleaner.hours.retained", Default: "24", Kind: Honoured, Doc: "KEEP_LATEST_BY_HOURS: the hours whose commits' snapshots stay readable (0 to 1000000)",
			parse: number(func(s *Settings) *int { return &s.Cleaner.HoursRetained }, 0, 1000000, "hours")},
		{Key: "hoodie.clean.trigger.strategy", Default: "NUM_COMMITS", Kind: Honoured, Doc: "NUM_COMMITS, Hudi's only strategy: see hoodie.clean.max.commits",
			parse: func(_ *Settings, v string) error {
				if !strings.EqualFold(strings.TrimSpace(v), "NUM_COMMITS") {
					return fmt.Errorf("want NUM_COMMITS, the one strategy Hudi has")
				}
				return nil
			}},
		{Key: "hoodie.clean.max.commits", Default: "1", Kind: Honoured, Doc: "the commits since the last clean that make the cleaner plan a new one (1 to 1000000)",
			parse: number(func(s *Settings) *int { return &s.Cleaner.MaxCommits }, 1, 1000000, "commits")},
		{Key: "hoodie.clustering.plan.strategy.small.file.limit", Default: "314572800", Kind: Honoured, Doc: "cluster only file groups smaller than this, in bytes",
			parse: size(func(s *Settings) *int64 { return &s.Clustering.SmallFileLimit }, 1)},
		{Key: "hoodie.clustering.plan.strategy.target.file.max.bytes", Default: "1073741824", Kind: Honoured, Doc: "the size of the file groups clustering writes, in bytes",
			parse: size(func(s *Settings) *int64 { return &s.Clustering.TargetFileSize }, minFileSize)},
		{Key: "hoodie.clustering.plan.strategy.max.bytes.per.group", Default: "2147483648", Kind: Honoured, Doc: "the most bytes of file groups one clustering group rewrites",
			parse: size(func(s *Settings) *int64 { return &s.Clustering.MaxBytesPerGroup }, 1)},
		{Key: "hoodie.clustering.plan.strategy.max.num.groups", Default: "30", Kind: Honoured, Doc: "the most clustering groups one clustering rewrites (1 to 100000)",
			parse: number(func(s *Settings) *int { return &s.Clustering.MaxGroups }, 1, 100000, "groups")},
		{Key: KeyClusteringSortColumns, Kind: Honoured, Doc: "comma-separated columns that order the records of the file groups clustering writes (numbers, strings, booleans, dates, timestamps); the record key breaks ties",
			parse: func(s *Settings, v string) error {
				s.Clustering.SortColumns = nil
				for _, c := range strings.Split(v, ",") {
					if c = strings.TrimSpace(c); c != "" {
						s.Clustering.SortColumns = append(s.Clustering.SortColumns, c)
					}
				}
				return nil
			}},
		{Key: "hoodie.precommit.validators", Kind: Honoured, Doc: "pre-commit validators, comma-separated (see validation.md)"},
		{Key: "hoodie.precommit.validators.single.value.sql.queries", Kind: Honoured, Doc: "query#expected;query#expected"},
		{Key: "hoodie.precommit.validators.equality.sql.queries", Kind: Honoured, Doc: ";-separated queries"},
		{Key: "hoodie.precommit.validators.inequality.sql.queries", Kind: Honoured, Doc: ";-separated queries"},
		{Key: KeyOperation, Kind: Honoured, Doc: "must be the command's own operation (insert, bulk_insert, upsert; upsert for soft-delete; delete, insert_overwrite, insert_overwrite_table, delete_partition): Hoodie runs the command given",
			parse: checkOperation, agree: func(_, v string, w writeTarget) error {
				if want := w.op.hudi().Value(); !strings.EqualFold(strings.TrimSpace(v), want) {
					return fmt.Errorf("this write is %s, whose operation is %s", w.op, want)
				}
				return nil
			}},
		{Key: KeyArchiveAutomatic, Default: "true", Kind: Honoured, Doc: "archive the timeline after every commit (see hoodie.keep.min.commits)",
			parse: boolean(func(s *Settings) *bool { return &s.Archive.Automatic }, false)},
		{Key: KeyKeepMinCommits, Default: strconv.Itoa(defaultKeepMin), Kind: Honoured, Doc: "completed commits archival leaves on the active timeline (1 to 1000000; fewer than hoodie.keep.max.commits)",
			parse: number(func(s *Settings) *int { return &s.Archive.MinCommits }, 1, 1_000_000, "commits")},
		{Key: KeyKeepMaxCommits, Default: strconv.Itoa(defaultKeepMax), Kind: Honoured, Doc: "completed commits on the active timeline past which archival runs (2 to 1000000)",
			parse: number(func(s *Settings) *int { return &s.Archive.MaxCommits }, 2, 1_000_000, "commits")},
		{Key: KeyArchivalBatch, Default: strconv.Itoa(defaultArchivalBatch), Kind: Honoured, Doc: "instants per block of an archive file (1 to 100000)",
			parse: number(func(s *Settings) *int { return &s.Archive.Batch }, 1, 100_000, "instants")},
		{Key: KeyPayloadClass, Kind: Honoured, Doc: "must be the table's merge mode's: DefaultHoodieRecordPayload (event-time) or OverwriteWithLatestAvroPayload (commit-time)",
			parse: checkPayload, agree: agreePayload},
		{Key: config.KeyPayloadClass, Kind: Honoured, Doc: "as hoodie.datasource.write.payload.class", parse: checkPayload, agree: agreePayload},
		{Key: "hoodie.payload.ordering.field", Kind: Honoured, Doc: "must be the table's precombine column",
			agree: tableValue(config.KeyPrecombineField, "")},
		{Key: "hoodie.datasource.write.keygenerator.type", Kind: Honoured, Doc: "SIMPLE, COMPLEX, NON_PARTITION or TIMESTAMP, as the table's key generator",
			agree: func(_, v string, w writeTarget) error {
				class := keyGeneratorTypes[strings.ToUpper(strings.TrimSpace(v))]
				if class != w.cfg.KeyGeneratorClass && !(class == config.TimestampBasedKeyGenerator && w.cfg.TimestampBased()) {
					return fmt.Errorf("the table's key generator is %s", w.cfg.KeyGeneratorClass)
				}
				return nil
			}},
		declareTimestamp(KeyTimestampType, "", "the timestamp-based key generator's type of partition values: UNIX_TIMESTAMP (seconds), EPOCHMILLISECONDS, SCALAR (numbers in the scalar time unit), DATE_STRING or MIXED (strings in the input date format; EPOCHMICROSECONDS came after Hudi 0.15); Spark 0.15 does not keep it in the table, so each write gives it", oneOfValues(false, "UNIX_TIMESTAMP", "DATE_STRING", "MIXED", "EPOCHMILLISECONDS", "SCALAR")),
		declareTimestamp(KeyTimestampScalarUnit, "SECONDS", "the time unit of SCALAR numbers: NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS", oneOfValues(true, "NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS")),
		declareTimestamp(KeyTimestampInputFormat, "", "the Joda-Time patterns of DATE_STRING and MIXED values, separated by the delimiter; the first that reads a value whole wins (docs/cli.md lists the pattern letters Hoodie translates)", nil),
		declareTimestamp(KeyTimestampInputDelimiter, ",", "the regular expression between input date formats", nil),
		declareTimestamp(KeyTimestampInputZone, "", "the zone of input date-times without an offset (UTC, GMT, GMT+08:00, or a region such as Asia/Shanghai; default: the process's zone, as Java's default zone)", checkZone),
		declareTimestamp(KeyTimestampOutputFormat, "", "the Joda-Time pattern of the partition folder, required", checkOutputFormat),
		declareTimestamp(KeyTimestampOutputZone, "", "the zone of the partition folder's date-time (default: an input date-time's own zone, else the process's)", checkZone),
		declareTimestamp(KeyTimestampZone, "", "when set, both the input and the output zone", checkZone),
		declareTimestamp(KeyDateTimeParser, hoodieDateTimeParser, "the date-time parser; Hoodie has "+hoodieDateTimeParser+" only", oneOfValues(false, hoodieDateTimeParser)),
		agreeTable("hoodie.table.name", config.KeyTableName, "", "must be the table's name"),
		agreeTable("hoodie.datasource.write.table.name", config.KeyTableName, "", "must be the table's name"),
		agreeTable("hoodie.datasource.write.table.type", config.KeyTableType, config.TableTypeCopyOnWrite, "must be COPY_ON_WRITE: Hoodie writes copy-on-write tables only"),
		agreeTable("hoodie.datasource.write.recordkey.field", config.KeyRecordKeyFields, "", "must be the table's record key columns"),
		agreeTable("hoodie.datasource.write.partitionpath.field", config.KeyPartitionFields, "", "must be the table's partition columns"),
		agreeTable("hoodie.datasource.write.precombine.field", config.KeyPrecombineField, "", "must be the table's precombine column"),
		agreeTable("hoodie.datasource.write.keygenerator.class", config.KeyKeyGeneratorClass, "", "must be the table's key generator"),
		agreeTable(config.KeyHiveStylePartitioning, config.KeyHiveStylePartitioning, "false", "must be the table's"),
		agreeTable(config.KeyURLEncodePartitioning, config.KeyURLEncodePartitioning, "false", "must be the table's"),
		agreeTable(config.KeyDropPartitionColumns, config.KeyDropPartitionColumns, "false", "must be the table's"),
		agreeTable(config.KeyPopulateMetaFields, config.KeyPopulateMetaFields, "true", "must be the table's"),
		agreeTable(config.KeyDatabaseName, config.KeyDatabaseName, "", "must be the table's"),
		agreeTable(config.KeyArchiveLogFolder, config.KeyArchiveLogFolder, storage.DefaultArchiveFolder, "must be the table's"),
		agreeTable(config.KeyTimelineLayoutVersion, config.KeyTimelineLayoutVersion, "1", "must be the table's"),
		{Key: "hoodie.table.", Kind: Honoured, Doc: "a table's configuration (hoodie.properties): must be the table's value, since a write does not change it",
			agree: tableValue("", "")},

		// Ignored: they tune how Spark runs a write, not what it writes.
		{Key: parallelismFamily, Kind: Ignored, Doc: "Spark's task counts (hoodie.upsert.shuffle.parallelism, hoodie.insert.shuffle.parallelism...): Hoodie writes hoodie.write.parallelism file groups at once"},
		{Key: "hoodie.cleaner.incremental.mode", Default: "true", Kind: Ignored, Doc: "Hoodie's cleaner lists every partition; Hudi's incremental mode lists only those written since the last clean, where the same files are to clean (it may leave behind files a failed clean could not delete, which Hoodie's next clean deletes)"},
		{Key: "hoodie.clean.allow.multiple", Default: "true", Kind: Ignored, Doc: "Hoodie completes a pending clean before it plans another, so two cleans are never pending at once"},
		{Key: "hoodie.memory.", Kind: Ignored, Doc: "Spark's memory and spilling: Hoodie's memory is its own"},
		{Key: "hoodie.write.buffer.limit.bytes", Kind: Ignored, Doc: "Spark's write buffer"},
		{Key: "hoodie.datasource.write.row.writer.enable", Kind: Ignored, Doc: "Spark's internal row format for bulk inserts; the files are the same"},
		{Key: "hoodie.copyonwrite.insert.split.size", Kind: Ignored, Doc: "Hoodie sizes new file groups by hoodie.parquet.max.file.size and the record size"},
		{Key: "hoodie.copyonwrite.insert.auto.split", Kind: Ignored, Doc: "Hoodie sizes new file groups by hoodie.parquet.max.file.size and the record size"},
		{Key: "hoodie.parquet.compression.ratio", Kind: Ignored, Doc: "Spark's estimate of file sizes; Hoodie measures what it writes"},
		{Key: "hoodie.embed.timeline.server", Kind: Ignored, Doc: "Spark's timeline server for its executors"},
		{Key: "hoodie.embed.timeline.server.", Kind: Ignored, Doc: "Spark's timeline server for its executors"},
		{Key: "hoodie.filesystem.view.", Kind: Ignored, Doc: "how Spark's executors cache the file-system view"},
		{Key: "hoodie.write.markers.type", Kind: Ignored, Doc: "how Spark's executors write markers; Hoodie writes them directly, which Hudi reads either way"},
		{Key: "hoodie.markers.", Kind: Ignored, Doc: "how Spark writes markers"},
		{Key: "hoodie.metrics.", Kind: Ignored, Doc: "Hudi's metrics reporters; Hoodie reports no metrics"},
		{Key: "hoodie.write.status.storage.level", Kind: Ignored, Doc: "Spark's caching of write statuses"},
		{Key: "hoodie.consistency.check.enabled", Kind: Ignored, Doc: "for eventually consistent stores; Hoodie writes local folders"},
		{Key: "hoodie.rollback.using.markers", Kind: Ignored, Doc: "Hoodie rolls back failed writes with their markers (by listing without them) and completed writes with their commit metadata, either way: the files deleted are the same"},
		{Key: "hoodie.avro.schema.validate", Kind: Ignored, Doc: "Hoodie always checks that a write's schema evolves the table's as its rules allow"},
		{Key: "hoodie.datasource.write.commitmeta.key.prefix", Kind: Ignored, Doc: "Spark options copied into commit metadata; Hoodie has none to copy"},
		{Key: "hoodie.payload.event.time.field", Kind: Ignored, Doc: "only a metric in Hudi's commit metadata"},
		{Key: "hoodie.datasource.write.streaming.", Kind: Ignored, Doc: "Spark structured streaming's retries and checkpoints"},
		{Key: "hoodie.datasource.hive_sync.", Kind: Ignored, Doc: "how Hive sync would run, and it does not (hoodie.datasource.hive_sync.enable is refused)"},
		{Key: "hoodie.datasource.meta.sync.", Kind: Ignored, Doc: "how catalog sync would run, and it does not (hoodie.datasource.meta.sync.enable is refused)"},
		{Key: "hoodie.meta.sync.", Kind: Ignored, Doc: "how catalog sync would run, and it does not"},
		{Key: "hoodie.write.lock.", Kind: Ignored, Doc: "settings of Hudi's lock providers and their retries; Hoodie locks with .hoodie/.lock and waits hoodie.write.lock.wait_time_ms"},
		{Key: "hoodie.write.commit.callback.", Kind: Ignored, Doc: "how a commit callback would be made, and none is (hoodie.write.commit.callback.on is refused)"},
		{Key: "hoodie.compact.", Kind: Ignored, Doc: "compaction of merge-on-read tables; Hoodie's tables are copy-on-write, where Hudi ignores it too"},
		{Key: "hoodie.compaction.", Kind: Ignored, Doc: "compaction of merge-on-read tables; Hoodie's tables are copy-on-write, where Hudi ignores it too"},
		{Key: "hoodie.index.bloom.", Kind: Ignored, Doc: "the footer's bloom filter size; Hoodie writes Hudi's default filter, and finds keys with its own index"},
		{Key: "hoodie.bloom.index.", Kind: Ignored, Doc: "how Spark's bloom index looks keys up; Hoodie finds keys with its own index"},
		{Key: "hoodie.simple.index.", Kind: Ignored, Doc: "how Spark's simple index looks keys up; Hoodie finds keys with its own index"},
		{Key: "hoodie.global.simple.index.", Kind: Ignored, Doc: "how Spark's simple index looks keys up; Hoodie finds keys with its own index"},
		{Key: "hoodie.archive.merge.files.batch.size", Kind: Ignored, Doc: "only with hoodie.archive.merge.enable, which is refused"},
		{Key: "hoodie.archive.merge.small.file.limit.bytes", Kind: Ignored, Doc: "only with hoodie.archive.merge.enable, which is refused"},

		// Refused: they change a write's result, and Hoodie does not do
		// what they ask.
		{Key: "hoodie.datasource.write.partitions.to.delete", Kind: Refused, Doc: "delete-partition takes the partitions as its arguments"},
		{Key: "hoodie.datasource.write.record.merger.impls", Default: "org.apache.hudi.common.model.HoodieAvroRecordMerger", Kind: Refused, Accepted: []string{"org.apache.hudi.common.model.HoodieAvroRecordMerger"},
			Doc: "Hoodie merges records as the payload class says, as HoodieAvroRecordMerger does"},
		{Key: "hoodie.datasource.write.record.merger.strategy", Default: "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5", Kind: Refused, Accepted: []string{"eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"},
			Doc: "Hoodie merges records as the payload class says"},
		{Key: "hoodie.record.merge.mode", Kind: Refused, Doc: "a Hudi 1.x setting; Hoodie takes the merge mode from the table (init --merge-mode)"},
		{Key: "hoodie.combine.before.insert", Default: "true", Kind: Refused, Accepted: []string{"true"}, Doc: "Hoodie always collapses records of one key within an input"},
		{Key: "hoodie.combine.before.upsert", Default: "true", Kind: Refused, Accepted: []string{"true"}, Doc: "Hoodie always collapses records of one key within an input"},
		{Key: "hoodie.combine.before.delete", Default: "true", Kind: Refused, Accepted: []string{"true"}, Doc: "Hoodie always collapses records of one key within an input"},
		{Key: "hoodie.datasource.write.reconcile.schema", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie evolves the table's schema by its own rules and does not reconcile inputs to it"},
		{Key: "hoodie.schema.on.read.enable", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie has no schema-on-read evolution (renames, drops)"},
		{Key: "hoodie.datasource.write.schema.allow.auto.evolution.column.drop", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie never drops a column"},
		{Key: "hoodie.parquet.writelegacyformat.enabled", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie writes Parquet's standard format only"},
		{Key: "hoodie.parquet.outputtimestamptype", Default: "TIMESTAMP_MICROS", Kind: Refused, Accepted: []string{"TIMESTAMP_MICROS"}, Doc: "Hoodie stores timestamps in the unit of the table's schema, as TIMESTAMP_MICROS does for Spark's"},
		{Key: "hoodie.auto.commit", Default: "true", Kind: Refused, Accepted: []string{"true"}, Doc: "a Hoodie write always commits"},
		{Key: "hoodie.index.type", Default: "GLOBAL_SIMPLE", Kind: Refused, Accepted: []string{"GLOBAL_SIMPLE", "GLOBAL_BLOOM"},
			Doc: "Hoodie's record index is global (a key is unique in the whole table, and an upsert moves a record whose partition changed), as GLOBAL_SIMPLE and GLOBAL_BLOOM are; other index types keep keys unique per partition, or need a metadata table or bucket layout Hoodie does not write"},
		{Key: "hoodie.bloom.index.update.partition.path", Default: "true", Kind: Refused, Accepted: []string{"true"},
			Doc: "Hoodie's index is global and an upsert moves a record whose partition changed"},
		{Key: "hoodie.simple.index.update.partition.path", Default: "true", Kind: Refused, Accepted: []string{"true"},
			Doc: "Hoodie's index is global and an upsert moves a record whose partition changed"},
		{Key: "hoodie.record.index.update.partition.path", Default: "true", Kind: Refused, Accepted: []string{"true"},
			Doc: "Hoodie's index is global and an upsert moves a record whose partition changed"},
		{Key: "hoodie.write.concurrency.mode", Default: "SINGLE_WRITER", Kind: Refused, Accepted: []string{"SINGLE_WRITER"},
			Doc: "Hoodie writers take turns on the table's lock file, which Hudi's lock providers do not see: optimistic concurrency with Spark writers is not implemented"},
		{Key: "hoodie.write.lock.provider", Kind: Refused, Doc: "Hoodie locks the table with .hoodie/.lock, which Hudi's lock providers do not see"},
		{Key: "hoodie.cleaner.policy.failed.writes", Default: "EAGER", Kind: Refused, Accepted: []string{"EAGER"},
			Doc: "a Hoodie write rolls back failed writes before it writes (EAGER), leaving those with a live heartbeat alone"},
		{Key: "hoodie.clean.async", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie cleans inline, after the commit, under the writer lock"},
		{Key: "hoodie.cleaner.delete.bootstrap.base.file", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not bootstrap tables, so there is no bootstrap base file to clean"},
		{Key: "hoodie.clean.", Kind: Refused, Doc: "a cleaner setting Hoodie does not implement"},
		{Key: "hoodie.cleaner.", Kind: Refused, Doc: "a cleaner setting Hoodie does not implement"},
		{Key: "hoodie.clustering.inline", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie clusters a table only when asked to (hoodiectl cluster)"},
		{Key: "hoodie.clustering.async.enabled", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie clusters a table only when asked to (hoodiectl cluster)"},
		{Key: "hoodie.clustering.schedule.inline", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie clusters a table only when asked to (hoodiectl cluster), planning and running it at once"},
		{Key: "hoodie.clustering.", Kind: Refused, Doc: "Hoodie's clustering has Hudi's size-based plan strategy and sort-and-size execution strategy only, with the settings above"},
		{Key: "hoodie.layout.optimize.", Kind: Refused, Doc: "Hoodie's clustering sorts records linearly by the sort columns; it has no z-order or Hilbert curve layouts"},
		{Key: "hoodie.fail.on.timeline.archiving", Default: "true", Kind: Refused, Accepted: []string{"true"}, Doc: "an archival that cannot archive an instant fails, archiving and deleting nothing; Hoodie never skips one"},
		{Key: "hoodie.archive.async", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie archives inline, after the commit (hoodie.archive.automatic), or with hoodiectl archive"},
		{Key: "hoodie.archive.beyond.savepoint", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie never archives past the oldest savepoint"},
		{Key: "hoodie.archive.merge.enable", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not merge small archive files"},
		{Key: "hoodie.archive.", Kind: Refused, Doc: "an archival setting Hoodie does not implement"},
		{Key: "hoodie.metadata.enable", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not write Hudi's metadata table"},
		{Key: "hoodie.metadata.", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not write Hudi's metadata table or its indexes"},
		{Key: "hoodie.datasource.hive_sync.enable", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not sync tables to Hive"},
		{Key: "hoodie.datasource.meta.sync.enable", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie does not sync tables to a catalog"},
		{Key: "hoodie.write.commit.callback.on", Default: "false", Kind: Refused, Accepted: []string{"false"}, Doc: "Hoodie makes no commit callbacks"},
		{Key: "hoodie.bootstrap.", Kind: Refused, Doc: "Hoodie does not bootstrap tables from existing files"},
		{Key: "hoodie.keygen.", Kind: Refused, Doc: "settings of key generators Hoodie does not write with (custom)"},
	}
}

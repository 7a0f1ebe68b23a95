package write

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/internal/jodatime"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// The settings of Hudi's timestamp-based key generator
// (TimestampKeyGeneratorConfig, Hudi 0.15). Spark keeps those it was given
// but the timestamp type in hoodie.properties; a write takes the table's
// values first, as Spark's does.
const (
	KeyTimestampType           = "hoodie.keygen.timebased.timestamp.type"
	KeyTimestampScalarUnit     = "hoodie.keygen.timebased.timestamp.scalar.time.unit"
	KeyTimestampInputFormat    = "hoodie.keygen.timebased.input.dateformat"
	KeyTimestampInputDelimiter = "hoodie.keygen.timebased.input.dateformat.list.delimiter.regex"
	KeyTimestampInputZone      = "hoodie.keygen.timebased.input.timezone"
	KeyTimestampOutputFormat   = "hoodie.keygen.timebased.output.dateformat"
	KeyTimestampOutputZone     = "hoodie.keygen.timebased.output.timezone"
	KeyTimestampZone           = "hoodie.keygen.timebased.timezone"
	KeyDateTimeParser          = "hoodie.keygen.datetime.parser.class"
	// hoodieDateTimeParser is Hudi's date-time parser, the only one Hoodie
	// has.
	hoodieDateTimeParser = "org.apache.hudi.keygen.parser.HoodieDateTimeParser"
	// oldTimestampPrefix is the deprecated prefix of the same keys, which
	// Hudi still reads.
	oldTimestampPrefix = "hoodie.deltastreamer.keygen.timebased."
	timestampPrefix    = "hoodie.keygen.timebased."
)

// TimestampKeys are the keys of the timestamp-based key generator, in the
// order docs/cli.md lists them.
var TimestampKeys = []string{KeyTimestampType, KeyTimestampScalarUnit, KeyTimestampInputFormat, KeyTimestampInputDelimiter,
	KeyTimestampInputZone, KeyTimestampOutputFormat, KeyTimestampOutputZone, KeyTimestampZone, KeyDateTimeParser}

// timeUnitsMillis are Java's TimeUnit names, for the scalar time unit, and
// each unit in milliseconds (negative: a unit finer than one, which divides).
var timeUnitsMillis = map[string]int64{
	"NANOSECONDS": -1_000_000, "MICROSECONDS": -1_000, "MILLISECONDS": 1, "SECONDS": 1_000,
	"MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000,
}

// timestampTypes are Hudi 0.15's TimestampType values, with the unit of
// their numbers ("" for the string types, whose numbers Hudi refuses).
// EPOCHMICROSECONDS came after 0.15, whose writers refuse it ("No enum
// constant"), so Hoodie does too.
var timestampTypes = map[string]string{
	"UNIX_TIMESTAMP": "SECONDS", "EPOCHMILLISECONDS": "MILLISECONDS",
	"SCALAR": "", "DATE_STRING": "", "MIXED": "",
}

// timestampKeygen computes partition paths as Hudi's
// TimestampBasedAvroKeyGenerator with its default HoodieDateTimeParser:
// the partition column's value, a number in a time unit or a date-time
// string in one of the input patterns, formatted in the output pattern.
type timestampKeygen struct {
	typ string
	// unitMillis is the numbers' unit in milliseconds (see
	// timeUnitsMillis); 0 for the string types, which refuse numbers.
	unitMillis int64
	inputs     []*jodatime.Layout
	output     *jodatime.Layout
	// inZone and outZone are the input and output zones; nil when not set,
	// which is Java's default zone, local.
	inZone, outZone, local *time.Location
	// nullValue is the value a null partition column counts as; nullErr
	// says why there is none.
	nullValue any
	nullErr   error
}

// timestampSetting returns the value of a timestamp-based key generator
// setting: the table's (under the key or its deprecated twin) before the
// write's, as Spark's writer lays the table's configuration over the
// write's options.
func timestampSetting(cfg *config.Table, write *config.Properties, key string) (string, bool) {
	old := oldTimestampPrefix + strings.TrimPrefix(key, timestampPrefix)
	for _, p := range []*config.Properties{cfg.Extra, write} {
		if p == nil {
			continue
		}
		if v, ok := p.Get(key); ok {
			return v, true
		}
		if v, ok := p.Get(old); ok && old != key {
			return v, true
		}
	}
	return "", false
}

// newTimestampKeygen reads the timestamp-based key generator's settings of
// a table whose key generator is timestamp-based (nil, nil for another).
// local is Java's default zone, which Hudi takes when no zone is set.
func newTimestampKeygen(cfg *config.Table, write *config.Properties, local *time.Location) (*timestampKeygen, error) {
	if !cfg.TimestampBased() {
		return nil, nil
	}
	if local == nil {
		local = time.Local
	}
	get := func(key string) string {
		v, _ := timestampSetting(cfg, write, key)
		return strings.TrimSpace(v)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("table %s, key generator %s: %s", cfg.Name, cfg.KeyGeneratorClass, fmt.Sprintf(format, args...))
	}
	if len(cfg.RecordKeyFields) != 1 || len(cfg.PartitionFields) != 1 {
		return nil, fail("it takes one record key column and one partition column, and the table has %d and %d", len(cfg.RecordKeyFields), len(cfg.PartitionFields))
	}
	if p := get(KeyDateTimeParser); p != "" && p != hoodieDateTimeParser {
		return nil, fail("%s=%s: Hoodie parses date-times as %s only", KeyDateTimeParser, p, hoodieDateTimeParser)
	}
	g := &timestampKeygen{typ: get(KeyTimestampType), local: local}
	unit, ok := timestampTypes[g.typ]
	switch {
	case g.typ == "":
		return nil, fail("%s is not set, in the table or the write; Spark 0.15 does not keep it in hoodie.properties, and its writes give it each time: give it too (--set %s=DATE_STRING, say)", KeyTimestampType, KeyTimestampType)
	case !ok:
		return nil, fail("%s=%s is not a timestamp type (want UNIX_TIMESTAMP, DATE_STRING, MIXED, EPOCHMILLISECONDS or SCALAR, as Hudi 0.15 spells them)", KeyTimestampType, g.typ)
	case g.typ == "SCALAR":
		unit = strings.ToUpper(get(KeyTimestampScalarUnit))
		if unit == "" {
			unit = "SECONDS"
		}
		if _, ok := timeUnitsMillis[unit]; !ok {
			return nil, fail("%s=%s is not a time unit (want NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS)", KeyTimestampScalarUnit, unit)
		}
	}
	g.unitMillis = timeUnitsMillis[unit]
	var err error
	if g.output, err = compileOutput(get(KeyTimestampOutputFormat)); err != nil {
		return nil, fail("%s: %v", KeyTimestampOutputFormat, err)
	}
	// A set hoodie.keygen.timebased.timezone gives both zones.
	inKey, outKey := KeyTimestampInputZone, KeyTimestampOutputZone
	if _, ok := timestampSetting(cfg, write, KeyTimestampZone); ok {
		inKey, outKey = KeyTimestampZone, KeyTimestampZone
	}
	if g.inZone, err = JavaZone(get(inKey)); err != nil {
		return nil, fail("%s: %v", inKey, err)
	}
	if g.outZone, err = JavaZone(get(outKey)); err != nil {
		return nil, fail("%s: %v", outKey, err)
	}
	if g.typ != "DATE_STRING" && g.typ != "MIXED" {
		g.nullValue = int64(1)
		return g, nil
	}
	formats := get(KeyTimestampInputFormat)
	if formats == "" {
		return nil, fail("%s is not set: timestamp type %s parses strings with it", KeyTimestampInputFormat, g.typ)
	}
	raw, _ := timestampSetting(cfg, write, KeyTimestampInputFormat)
	delim, ok := timestampSetting(cfg, write, KeyTimestampInputDelimiter)
	if !ok {
		delim = ","
	}
	parts, err := javaSplit(formats, delim)
	if err != nil {
		return nil, fail("%s: %v", KeyTimestampInputDelimiter, err)
	}
	for _, f := range parts {
		l, err := jodatime.Compile(strings.TrimSpace(f))
		if err == nil {
			err = l.CanParse()
		}
		if err != nil {
			return nil, fail("%s: %v", KeyTimestampInputFormat, err)
		}
		g.inputs = append(g.inputs, l)
	}
	g.nullValue, g.nullErr = g.nullString(raw, delim)
	return g, nil
}

// CheckTimestampTable reports whether Hoodie writes a table whose key
// generator is timestamp-based with the settings its configuration keeps
// (hoodie.properties), as a table hoodiectl init makes keeps them all. It
// is nil for a table with another key generator.
func CheckTimestampTable(cfg *config.Table) error {
	_, err := newTimestampKeygen(cfg, nil, nil)
	return err
}

// compileOutput compiles the output pattern, which Hudi requires.
func compileOutput(pattern string) (*jodatime.Layout, error) {
	if pattern == "" {
		return nil, fmt.Errorf("not set: the partition folder's pattern is required")
	}
	return jodatime.Compile(pattern)
}

// nullString is the string Hudi puts for a null partition value of a
// string type: the instant 1 ms after the epoch in the first input pattern
// as given (untrimmed), in the input zone, else the output zone, else UTC.
func (g *timestampKeygen) nullString(raw, delim string) (any, error) {
	parts, err := javaSplit(raw, delim)
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("no input pattern to write a null partition value in")
	}
	l, err := jodatime.Compile(parts[0])
	if err != nil {
		return nil, err
	}
	zone := time.UTC
	if g.inZone != nil {
		zone = g.inZone
	} else if g.outZone != nil {
		zone = g.outZone
	}
	return l.Format(time.UnixMilli(1).In(zone)), nil
}

// javaSplit splits s as Java's String.split(regex) does: trailing empty
// parts dropped. A delimiter without regular expression syntax is literal;
// one with it is compiled as Go's RE2, which agrees with Java's on the
// syntax RE2 has.
func javaSplit(s, delim string) ([]string, error) {
	if delim == "" {
		return nil, fmt.Errorf("an empty delimiter")
	}
	var parts []string
	if regexp.QuoteMeta(delim) == delim {
		parts = strings.Split(s, delim)
	} else {
		re, err := regexp.Compile(delim)
		if err != nil {
			return nil, fmt.Errorf("%q is not a regular expression Hoodie reads: %w", delim, err)
		}
		parts = re.Split(s, -1)
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts, nil
}

// JavaZone resolves a zone ID as Java's TimeZone.getTimeZone and Joda's
// DateTimeZone.forTimeZone do; "" is no zone (nil). It takes UTC, GMT,
// custom offsets (GMT+8, GMT-05:30) and region IDs (Asia/Shanghai), and
// refuses the rest: Java turns an unknown ID into GMT without a word, and
// Joda maps three-letter IDs (EST, PST, IST) to regions where Go's
// database has fixed offsets or nothing.
func JavaZone(id string) (*time.Location, error) {
	switch {
	case id == "":
		return nil, nil
	case id == "UTC" || id == "GMT":
		return time.UTC, nil
	case strings.HasPrefix(id, "GMT+") || strings.HasPrefix(id, "GMT-"):
		return customZone(id)
	case strings.Contains(id, "/"):
		loc, err := time.LoadLocation(id)
		if err != nil {
			return nil, fmt.Errorf("zone %q: %w", id, err)
		}
		return loc, nil
	}
	return nil, fmt.Errorf("zone %q is not one Hoodie resolves as Java does: give UTC, GMT, an offset such as GMT+08:00, or a region such as Asia/Shanghai", id)
}

// customZone reads Java's custom zone ID GMT[+-]h[h][[:]mm].
func customZone(id string) (*time.Location, error) {
	bad := fmt.Errorf("zone %q is not a Java custom zone ID (GMT+h, GMT+hh, GMT+hhmm, GMT+hh:mm)", id)
	sign, rest := id[3], id[4:]
	var h, m string
	switch {
	case strings.Contains(rest, ":"):
		h, m, _ = strings.Cut(rest, ":")
		if len(m) != 2 {
			return nil, bad
		}
	case len(rest) <= 2:
		h = rest
	case len(rest) == 4:
		h, m = rest[:2], rest[2:]
	default:
		return nil, bad
	}
	if len(h) == 0 || len(h) > 2 {
		return nil, bad
	}
	hours, err := strconv.Atoi(h)
	if err != nil || hours > 23 || h[0] < '0' {
		return nil, bad
	}
	minutes := 0
	if m != "" {
		if minutes, err = strconv.Atoi(m); err != nil || minutes > 59 || m[0] < '0' {
			return nil, bad
		}
	}
	off := hours*3600 + minutes*60
	if sign == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC, nil
	}
	return time.FixedZone(id, off), nil
}

// checkColumn checks that the partition column's type is one whose values
// Hoodie turns into partition paths as Hudi does: strings and plain
// numbers.
func (g *timestampKeygen) checkColumn(name string, t basefile.Type) error {
	switch t.Kind {
	case basefile.KindString, basefile.KindInt, basefile.KindLong, basefile.KindFloat, basefile.KindDouble:
		if t.Logical == basefile.LogicalNone {
			return nil
		}
	}
	what := t.Logical.String()
	if what == "" {
		what = t.Kind.String()
	}
	return fmt.Errorf("partition column %q is a %s: Hoodie computes timestamp-based partition paths of string, int, long, float and double columns only", name, what)
}

// path returns the partition folder of v, the partition column's value, as
// Hudi's TimestampBasedAvroKeyGenerator.getPartitionPath(Object) does
// before hive-style naming and escaping.
func (g *timestampKeygen) path(v any) (string, error) {
	if v == nil {
		if g.nullErr != nil {
			return "", fmt.Errorf("the partition column is null, and %v", g.nullErr)
		}
		v = g.nullValue
	}
	var ms int64
	zone := g.outZone
	switch x := v.(type) {
	case string:
		if len(g.inputs) == 0 {
			return "", fmt.Errorf("%q is a string, and timestamp type %s takes numbers (%s is for DATE_STRING and MIXED)", x, g.typ, KeyTimestampInputFormat)
		}
		p, err := g.parse(x)
		if err != nil {
			return "", err
		}
		ms = p.Time.UnixMilli()
		if zone == nil {
			zone = p.Time.Location()
		}
	default:
		n, err := javaLong(v)
		if err != nil {
			return "", err
		}
		if ms, err = g.millis(n); err != nil {
			return "", err
		}
	}
	if zone == nil {
		zone = g.local
	}
	return g.output.Format(time.UnixMilli(ms).In(zone)), nil
}

// parse reads s with the first input pattern that takes it whole, as
// Joda's parser of several patterns does.
func (g *timestampKeygen) parse(s string) (jodatime.Parsed, error) {
	zone, keep := g.inZone, g.inZone != nil
	if zone == nil {
		zone = g.local
	}
	var errs []string
	for _, l := range g.inputs {
		p, err := l.Parse(s, zone, keep)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err.Error())
	}
	if len(errs) == 1 {
		return jodatime.Parsed{}, fmt.Errorf("%s", errs[0])
	}
	return jodatime.Parsed{}, fmt.Errorf("%q matches none of the input patterns: %s", s, strings.Join(errs, "; "))
}

// millis converts n, in the type's unit, to milliseconds as Java's
// TimeUnit.MILLISECONDS.convert does, refusing a value it would saturate.
func (g *timestampKeygen) millis(n int64) (int64, error) {
	switch u := g.unitMillis; {
	case u == 0:
		return 0, fmt.Errorf("%d is a number, and timestamp type %s takes strings in %s", n, g.typ, KeyTimestampInputFormat)
	case u < 0:
		return n / -u, nil
	case n > math.MaxInt64/u || n < math.MinInt64/u:
		return 0, fmt.Errorf("%d is out of range as a time since the epoch", n)
	default:
		return n * u, nil
	}
}

// javaLong converts a number as Java's Number.longValue does: floats
// truncated toward zero, NaN as 0. An infinite or out of range float is
// an error, where Java would saturate.
func javaLong(v any) (int64, error) {
	switch x := v.(type) {
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case float32:
		return javaLong(float64(x))
	case float64:
		if math.IsNaN(x) {
			return 0, nil
		}
		if t := math.Trunc(x); t >= -(1<<63) && t < 1<<63 {
			return int64(t), nil
		}
		return 0, fmt.Errorf("%v is out of range as a time since the epoch", x)
	}
	return 0, fmt.Errorf("a %T value is not a time Hoodie reads", v)
}

// declareTimestamp declares a honoured setting of the timestamp-based key
// generator: parse checks a value before the table is read (nil: any), and
// at write time the table's key generator must be timestamp-based and, if
// the table keeps the key, have the same value (a write does not change a
// table's configuration, and Spark takes the table's).
func declareTimestamp(key, def, doc string, parse func(*Settings, string) error) Setting {
	return Setting{Key: key, Default: def, Kind: Honoured, Doc: doc, parse: parse, agree: agreeTimestamp}
}

// agreeTimestamp checks a timestamp-based key generator setting against
// the table (see declareTimestamp).
func agreeTimestamp(key, v string, w writeTarget) error {
	if !w.cfg.TimestampBased() {
		return fmt.Errorf("the table's key generator is %s, which does not take it", w.cfg.KeyGeneratorClass)
	}
	have, ok := timestampSetting(w.cfg, nil, key)
	if ok && strings.TrimSpace(have) != strings.TrimSpace(v) {
		return fmt.Errorf("the table has %s=%s, and a write does not change a table's configuration", key, have)
	}
	return nil
}

// oneOfValues returns a parse func accepting values, spelled as given
// (Java's Enum.valueOf), or in any case with anyCase.
func oneOfValues(anyCase bool, values ...string) func(*Settings, string) error {
	return func(_ *Settings, v string) error {
		for _, want := range values {
			if v == want || anyCase && strings.EqualFold(v, want) {
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(values, ", "))
	}
}

func checkZone(_ *Settings, v string) error {
	_, err := JavaZone(v)
	return err
}

func checkOutputFormat(_ *Settings, v string) error {
	_, err := compileOutput(v)
	return err
}

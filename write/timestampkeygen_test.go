package write

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage/config"
)

// hudiTimestampCase is one partition path Hudi 0.15's
// TimestampBasedAvroKeyGenerator computed, in a JVM whose default zone is
// UTC: interop/test_timestamp_keygen.py checks the file against Hudi.
type hudiTimestampCase struct {
	// Settings are hoodie.keygen.timebased.* keys without the prefix.
	Settings map[string]string `json:"settings"`
	// Kind is the Java type of Value: s String, l Long, i Integer, d
	// Double, f Float; null a null value. (No case has a Float: py4j
	// hands Java a Double for it. Hudi takes both with longValue, as
	// Hoodie does.)
	Kind  string  `json:"kind"`
	Value *string `json:"value"`
	Path  string  `json:"path"`
	Error bool    `json:"error"`
}

func loadHudiTimestampCases(t testing.TB) []hudiTimestampCase {
	data, err := os.ReadFile("testdata/timestamp_keygen_hudi015.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []hudiTimestampCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// timestampTable is the configuration of a table keyed on id and
// partitioned on part by the timestamp-based key generator, with
// settings (full keys) in hoodie.properties.
func timestampTable(settings map[string]string) *config.Table {
	cfg := &config.Table{Name: "t", KeyGeneratorClass: config.TimestampBasedKeyGenerator,
		RecordKeyFields: []string{"id"}, PartitionFields: []string{"part"}, Extra: config.NewProperties()}
	for k, v := range settings {
		cfg.Extra.Set(k, v)
	}
	return cfg
}

func (c hudiTimestampCase) value(t *testing.T) any {
	if c.Kind == "null" {
		return nil
	}
	v := *c.Value
	var (
		n   any
		err error
	)
	switch c.Kind {
	case "s":
		return v
	case "l":
		n, err = strconv.ParseInt(v, 10, 64)
	case "i":
		var i int64
		i, err = strconv.ParseInt(v, 10, 32)
		n = int32(i)
	case "d":
		n, err = strconv.ParseFloat(v, 64)
	case "f":
		var f float64
		f, err = strconv.ParseFloat(v, 32)
		n = float32(f)
	default:
		t.Fatalf("kind %q", c.Kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTimestampKeygenAsHudi checks Hoodie's partition paths against those
// Hudi 0.15 computed for the same settings and values: numbers in each
// unit, date-time strings in several patterns and zones, output patterns
// of every letter Hoodie translates, nulls, and the values Hudi refuses.
func TestTimestampKeygenAsHudi(t *testing.T) {
	for i, c := range loadHudiTimestampCases(t) {
		settings := map[string]string{}
		for k, v := range c.Settings {
			settings[timestampPrefix+k] = v
		}
		name := strconv.Itoa(i) + ":" + c.Settings["output.dateformat"]
		t.Run(name, func(t *testing.T) {
			g, err := newTimestampKeygen(timestampTable(settings), nil, time.UTC)
			var got string
			if err == nil {
				got, err = g.path(c.value(t))
			}
			switch {
			case c.Error && err == nil:
				t.Fatalf("%v with %v: got %q, want an error as Hudi's", c.Value, c.Settings, got)
			case !c.Error && err != nil:
				t.Fatalf("%v with %v: %v, want %q", c.Value, c.Settings, err, c.Path)
			case !c.Error && got != c.Path:
				t.Fatalf("%v with %v: got %q, want Hudi's %q", c.Value, c.Settings, got, c.Path)
			}
		})
	}
}

// TestTimestampKeygenSettings checks how a write's settings meet the
// table's: the table's win, a missing type or an untranslatable pattern is
// an error naming the key, and the write's fill what the table lacks.
func TestTimestampKeygenSettings(t *testing.T) {
	table := map[string]string{
		KeyTimestampInputFormat:  "yyyy-MM-dd HH:mm:ss",
		KeyTimestampOutputFormat: "yyyyMMdd",
		KeyTimestampZone:         "UTC",
	}
	write := config.NewProperties()
	if _, err := newTimestampKeygen(timestampTable(table), write, time.UTC); err == nil || !strings.Contains(err.Error(), KeyTimestampType+" is not set") {
		t.Fatalf("no timestamp type: %v", err)
	}
	write.Set(KeyTimestampType, "DATE_STRING")
	write.Set(KeyTimestampOutputFormat, "yyyy/MM") // the table's wins, as in Spark
	g, err := newTimestampKeygen(timestampTable(table), write, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := g.path("2024-01-02 13:00:00"); p != "20240102" || err != nil {
		t.Fatalf("got %q, %v", p, err)
	}
	// Hudi's deprecated prefix in a table's properties counts.
	old := map[string]string{oldTimestampPrefix + "timestamp.type": "UNIX_TIMESTAMP", oldTimestampPrefix + "output.dateformat": "yyyy", KeyTimestampZone: "UTC"}
	if g, err := newTimestampKeygen(timestampTable(old), nil, time.UTC); err != nil {
		t.Fatal(err)
	} else if p, _ := g.path(int64(0)); p != "1970" {
		t.Fatalf("got %q", p)
	}
	for _, tt := range []struct {
		key, value, want string
	}{
		{KeyTimestampOutputFormat, "yyyy-MM-dd zzzz", `"zzzz" is not a pattern letter`},
		{KeyTimestampInputFormat, "yy-MM-dd", "two-digit year"},
		{KeyTimestampInputFormat, "EEE yyyy-MM-dd", "output pattern only"},
		{KeyTimestampInputFormat, "yyyy-MM-dd'T", "quote is not closed"},
		{KeyTimestampZone, "EST", `zone "EST" is not one Hoodie resolves`},
		{KeyTimestampZone, "GMT+25", "not a Java custom zone ID"},
		{KeyTimestampType, "EPOCHMICROSECONDS", "not a timestamp type"},
		{KeyTimestampInputDelimiter, "(", "not a regular expression"},
	} {
		settings := map[string]string{KeyTimestampType: "DATE_STRING", KeyTimestampOutputFormat: "yyyy", KeyTimestampInputFormat: "yyyy"}
		settings[tt.key] = tt.value
		if _, err := newTimestampKeygen(timestampTable(settings), nil, time.UTC); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%s=%s: %v, want an error naming the key with %q", tt.key, tt.value, err, tt.want)
		}
	}
	// The process's zone stands for Java's default when no zone is set.
	tokyo := time.FixedZone("JST", 9*3600)
	g, err = newTimestampKeygen(timestampTable(map[string]string{KeyTimestampType: "EPOCHMILLISECONDS", KeyTimestampOutputFormat: "yyyy-MM-dd HH"}), nil, tokyo)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := g.path(int64(0)); p != "1970-01-01 09" {
		t.Fatalf("got %q, want the local zone's", p)
	}
}

// TestJavaZone checks the zone IDs Hoodie resolves as Java does.
func TestJavaZone(t *testing.T) {
	for id, offset := range map[string]int{"UTC": 0, "GMT": 0, "GMT+8": 8 * 3600, "GMT-05:30": -(5*3600 + 1800), "GMT+0530": 5*3600 + 1800, "GMT+00": 0} {
		loc, err := JavaZone(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, off := time.Unix(0, 0).In(loc).Zone(); off != offset {
			t.Errorf("%s: offset %d, want %d", id, off, offset)
		}
	}
	for _, id := range []string{"PST", "UTC+8", "GMT+", "GMT+123", "GMT+1:5", "Mars/Olympus", "GMT+-1"} {
		if _, err := JavaZone(id); err == nil {
			t.Errorf("%s: resolved, want an error", id)
		}
	}
}

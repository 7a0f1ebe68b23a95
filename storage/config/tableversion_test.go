package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// v8Properties returns hoodie.properties of a table of version 8 as Spark
// with Hudi 1.0.2 writes them (the keys Hoodie reads), with the table
// version and timeline layout given.
func v8Properties(t *testing.T, version, layout string) []byte {
	t.Helper()
	cfg, err := NewTable("hudi1", []string{"id"}, "ts", []string{"part"}, false, MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseProperties(cfg.Marshal(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	p.Delete(KeyKeyGeneratorClass)
	p.Set(KeyKeyGeneratorType, "SIMPLE")
	p.Set(KeyTableVersion, version)
	p.Set(KeyTimelineLayoutVersion, layout)
	p.Set("hoodie.table.initial.version", version)
	p.Set("hoodie.timeline.path", "timeline")
	p.Set("hoodie.record.merge.mode", "EVENT_TIME_ORDERING")
	return p.Marshal()
}

// TestVersion8ReadNotWritten: a table of version 8 and timeline layout 2
// parses, its key generator taken from its type, and is refused for
// writing with an error that says what to do.
func TestVersion8ReadNotWritten(t *testing.T) {
	cfg, err := ParseTable(v8Properties(t, "8", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 8 || cfg.TimelineLayoutVersion != 2 || cfg.KeyGeneratorClass != SimpleKeyGenerator {
		t.Errorf("version %d, layout %d, key generator %q; want 8, 2, %s", cfg.Version, cfg.TimelineLayoutVersion, cfg.KeyGeneratorClass, SimpleKeyGenerator)
	}
	if got, _ := cfg.Extra.Get("hoodie.timeline.path"); got != "timeline" {
		t.Errorf("hoodie.timeline.path %q, want it kept", got)
	}
	err = cfg.CheckWritable()
	if !errors.Is(err, ErrVersionReadOnly) {
		t.Fatalf("CheckWritable: %v, want ErrVersionReadOnly", err)
	}
	for _, want := range []string{"hoodie.table.version 8", "downgrade_table", "hoodiectl export"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	for _, tt := range []struct{ version, layout string }{{"8", "1"}, {"6", "2"}, {"7", "2"}, {"9", "2"}} {
		if _, err := ParseTable(v8Properties(t, tt.version, tt.layout)); err == nil {
			t.Errorf("table version %s with timeline layout %s read", tt.version, tt.layout)
		}
	}
}

func TestKeyGeneratorOfType(t *testing.T) {
	for typ, want := range map[string]string{
		"SIMPLE": SimpleKeyGenerator, "COMPLEX": ComplexKeyGenerator, "NON_PARTITION": NonpartitionedKeyGenerator,
		" TIMESTAMP ": "org.apache.hudi.keygen.TimestampBasedKeyGenerator", "USER_PROVIDED": "", "simple": "",
	} {
		p := NewProperties()
		p.Set(KeyKeyGeneratorType, typ)
		if got := keyGeneratorOfType(p); got != want {
			t.Errorf("type %q: class %q, want %q", typ, got, want)
		}
	}
	// The class, when given, wins, as in Hudi.
	cfg, err := ParseTable([]byte(strings.Replace(string(v8Properties(t, "8", "2")), KeyKeyGeneratorType+"=SIMPLE",
		KeyKeyGeneratorType+"=SIMPLE\n"+KeyKeyGeneratorClass+"="+ComplexKeyGenerator, 1)))
	if err != nil || cfg.KeyGeneratorClass != ComplexKeyGenerator {
		t.Errorf("class and type given: %+v, %v; want the class", cfg, err)
	}
}

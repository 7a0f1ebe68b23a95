package config_test

import (
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestPartitionPath(t *testing.T) {
	tests := []struct {
		name            string
		fields, values  []string
		hive, urlEncode bool
		want            string
	}{
		{"simple", []string{"p"}, []string{"10"}, false, false, "10"},
		{"hive two levels", []string{"byteField", "shortField"}, []string{"10", "300"}, true, false, "byteField=10/shortField=300"},
		{"slash as nested folders without urlencode, as Hudi", []string{"p"}, []string{"americas/brazil/sao_paulo"}, false, false, "americas/brazil/sao_paulo"},
		{"hive-style nested folders", []string{"p"}, []string{"americas/brazil"}, true, false, "p=americas/brazil"},
		{"nested folders of two hive-style columns", []string{"a", "b"}, []string{"x/y", "z/a=w"}, true, false, "a=x/y/b=z/a=w"},
		{"nested folders of two columns, folder count matching", []string{"a", "b"}, []string{"x", "y"}, false, false, "x/y"},
		{"slash encoded with urlencode", []string{"p"}, []string{"americas/brazil"}, false, true, "americas%2Fbrazil"},
		{"dot dot segment encoded whole", []string{"p"}, []string{"a/../b"}, false, false, "a%2F..%2Fb"},
		{"dot segment encoded whole", []string{"p"}, []string{"a/./b"}, false, false, "a%2F.%2Fb"},
		{"empty segment encoded whole", []string{"p"}, []string{"a//b"}, false, false, "a%2F%2Fb"},
		{"leading slash encoded whole", []string{"p"}, []string{"/a"}, false, false, "%2Fa"},
		{"trailing slash encoded whole", []string{"p"}, []string{"a/"}, false, false, "a%2F"},
		{"hidden segment encoded whole", []string{"p"}, []string{"a/.hoodie"}, false, false, "a%2F.hoodie"},
		{"dot dot", []string{"p"}, []string{".."}, false, false, "%2E%2E"},
		{"empty is default", []string{"p"}, []string{""}, true, false, "p=__HIVE_DEFAULT_PARTITION__"},
		{"urlencode colon", []string{"p"}, []string{"2024-01-01 10:00"}, false, true, "2024-01-01 10%3A00"},
		{"raw colon allowed", []string{"p"}, []string{"10:00"}, false, false, "10:00"},
		{"control char", []string{"p"}, []string{"a\nb"}, false, false, "a%0Ab"},
		{"leading dot encoded raw", []string{"p"}, []string{".net"}, false, false, "%2Enet"},
		{"leading dot encoded urlencoded", []string{"p"}, []string{".hoodie"}, false, true, "%2Ehoodie"},
		{"leading dot of a second folder", []string{"a", "b"}, []string{"x", ".y"}, false, true, "x/%2Ey"},
		{"inner dot kept", []string{"p"}, []string{"a.b"}, false, true, "a.b"},
		{"hive-style folder of a dot value", []string{"p"}, []string{".x"}, true, false, "p=%2Ex"},
		{"closing brace kept, as Hudi does", []string{"p"}, []string{"a{b}"}, false, true, "a%7Bb}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := config.PartitionPath(tt.fields, tt.values, tt.hive, tt.urlEncode)
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			back, err := config.ParsePartitionPath(got, tt.fields, tt.hive)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string(nil), tt.values...)
			for i := range want {
				if want[i] == "" {
					want[i] = config.DefaultPartitionValue
				}
			}
			if !reflect.DeepEqual(back, want) {
				t.Fatalf("parsed back %q, want %q", back, want)
			}
		})
	}
}

func TestParsePartitionPathErrors(t *testing.T) {
	if _, err := config.ParsePartitionPath("a", []string{"p", "q"}, false); err == nil {
		t.Error("too few folders accepted")
	}
	if _, err := config.ParsePartitionPath("a/b/c", []string{"p", "q"}, false); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous folders: %v", err)
	}
	if _, err := config.ParsePartitionPath("p=a/b", []string{"p", "q"}, true); err == nil || !strings.Contains(err.Error(), "q=<value>") {
		t.Errorf("missing hive column: %v", err)
	}
	if _, err := config.ParsePartitionPath("q=1", []string{"p"}, true); err == nil || !strings.Contains(err.Error(), "p=<value>") {
		t.Errorf("wrong hive column: %v", err)
	}
	if _, err := config.ParsePartitionPath("x", nil, false); err == nil {
		t.Error("partition path in a non-partitioned table accepted")
	}
}

// FuzzPartitionValue checks that no value escapes the table folder, that
// only a raw value with slashes (urlencode off) spans several folders, and
// that every value round-trips.
func FuzzPartitionValue(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../../etc", "a/b", "%41", "x=y", "\x00", "é"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, urlEncode bool) {
		p := config.PartitionPath([]string{"col"}, []string{v}, false, urlEncode)
		if strings.Contains(p, "\\") || p == "" {
			t.Fatalf("value %q gave unsafe folder %q", v, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg[0] == '.' {
				t.Fatalf("value %q gave unsafe folder %q", v, p)
			}
		}
		if strings.Contains(p, "/") && (urlEncode || p != v) {
			t.Fatalf("value %q gave %q: only a raw value spans folders", v, p)
		}
		if path.Clean("base/"+p) != "base/"+p {
			t.Fatalf("value %q gave folder %q that does not stay put", v, p)
		}
		got, err := config.ParsePartitionPath(p, []string{"col"}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := v
		if v == "" {
			want = config.DefaultPartitionValue
		}
		if (urlEncode || !config.RawPartitionValueAllowed(v)) && got[0] != want {
			t.Fatalf("value %q: folder %q parses back as %q", v, p, got[0])
		}
	})
}

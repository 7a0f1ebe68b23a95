package storage_test

import (
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
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
		{"slash encoded even without urlencode", []string{"p"}, []string{"americas/brazil"}, false, false, "americas%2Fbrazil"},
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
			got := storage.PartitionPath(tt.fields, tt.values, tt.hive, tt.urlEncode)
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			back, err := storage.ParsePartitionPath(got, tt.fields, tt.hive)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string(nil), tt.values...)
			for i := range want {
				if want[i] == "" {
					want[i] = storage.DefaultPartitionValue
				}
			}
			if !reflect.DeepEqual(back, want) {
				t.Fatalf("parsed back %q, want %q", back, want)
			}
		})
	}
}

func TestParsePartitionPathErrors(t *testing.T) {
	if _, err := storage.ParsePartitionPath("a/b", []string{"p"}, false); err == nil {
		t.Error("folder count mismatch accepted")
	}
	if _, err := storage.ParsePartitionPath("q=1", []string{"p"}, true); err == nil || !strings.Contains(err.Error(), "p=<value>") {
		t.Errorf("wrong hive column: %v", err)
	}
	if _, err := storage.ParsePartitionPath("x", nil, false); err == nil {
		t.Error("partition path in a non-partitioned table accepted")
	}
}

// FuzzPartitionValue checks that no value escapes the table folder or splits
// into several folders, and that escaping round-trips.
func FuzzPartitionValue(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../../etc", "a/b", "%41", "x=y", "\x00", "é"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, urlEncode bool) {
		p := storage.PartitionPath([]string{"col"}, []string{v}, false, urlEncode)
		if strings.Contains(p, "/") || strings.Contains(p, "\\") || p == "." || p == ".." || p == "" {
			t.Fatalf("value %q gave unsafe folder %q", v, p)
		}
		if path.Clean("base/"+p) != "base/"+p {
			t.Fatalf("value %q gave folder %q that does not stay put", v, p)
		}
		got, err := storage.ParsePartitionPath(p, []string{"col"}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := v
		if v == "" {
			want = storage.DefaultPartitionValue
		}
		if (urlEncode || !storage.RawPartitionValueAllowed(v)) && got[0] != want {
			t.Fatalf("value %q: folder %q parses back as %q", v, p, got[0])
		}
	})
}

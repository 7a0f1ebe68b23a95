package jodatime

import (
	"strings"
	"testing"
	"time"
)

// TestFormat checks output patterns against what Joda-Time prints (values
// Hudi 0.15 gave in the interop run; the write package checks the rest).
func TestFormat(t *testing.T) {
	at := time.UnixMilli(1700000000123).UTC()
	for pattern, want := range map[string]string{
		"yyyyMMdd":                       "20231114",
		"EEEE, MMMM d, yyyy h:mm a":      "Tuesday, November 14, 2023 10:13 PM",
		"EEE MMM dd D yy Y k K hh":       "Tue Nov 14 318 23 2023 22 10 10",
		"'year='yyyy'/month='MM'/it''s'": "year=2023/month=11/it's",
		"s.S|s.SS|s.SSSS|s.SSSSSS":       "20.1|20.12|20.1230|20.123000",
		"yyyy-MM-dd Z ZZ":                "2023-11-14 +0000 +00:00",
		"''":                             "'",
		"dd/MM/yyyy 日":                   "14/11/2023 日",
	} {
		l, err := Compile(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if got := l.Format(at); got != want {
			t.Errorf("%s: got %q, want %q", pattern, got, want)
		}
	}
	l, _ := Compile("yyyy-MM-dd HH:mm ZZ")
	if got := l.Format(at.In(time.FixedZone("", -(3*3600 + 1800)))); got != "2023-11-14 18:43 -03:30" {
		t.Errorf("got %q", got)
	}
}

// TestParse checks what Parse takes and refuses.
func TestParse(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	for _, tt := range []struct {
		pattern, text string
		loc           *time.Location
		want          string // RFC 3339 in UTC, or "error: ..."
	}{
		{"yyyy-MM-dd HH:mm:ss", "2024-01-02 13:00:00", time.UTC, "2024-01-02T13:00:00Z"},
		{"yyyy-MM-dd", "2024-1-5", time.UTC, "2024-01-05T00:00:00Z"},
		{"yyyyMMdd", "2024011", time.UTC, "2024-01-01T00:00:00Z"},
		{"yyyy-MM-dd", "12024-01-01", time.UTC, "12024-01-01T00:00:00Z"},
		{"dd MMM yyyy", "05 feb 2024", time.UTC, "2024-02-05T00:00:00Z"},
		{"dd MMMM yyyy", "05 Feb 2024", time.UTC, "2024-02-05T00:00:00Z"},
		{"yyyy-MM-dd hh:mm a", "2024-01-01 12:15 AM", time.UTC, "2024-01-01T00:15:00Z"},
		{"yyyy-MM-dd kk", "2024-01-01 24", time.UTC, "2024-01-01T00:00:00Z"},
		{"yyyy-MM-dd'T'HH:mm:ssZ", "2024-01-01T00:00:00-05:30", time.UTC, "2024-01-01T05:30:00Z"},
		{"HH:mm:ss.SSSSSS", "10:00:00.123987", time.UTC, "1970-01-01T10:00:00.123Z"},
		{"yyyy-MM-dd HH:mm", "2024-03-10 02:30", ny, "error: daylight saving gap"},
		{"yyyy-MM-dd", "2024-02-30", time.UTC, "error: day 30 is not in 2024-02"},
		{"yyyy-MM-dd", "2024-02-28x", time.UTC, `error: "x" is left over`},
		{"yyyy-MM-dd", "", time.UTC, "error: want a digit"},
		{"yyyy-MM-dd HH", "2024-01-01 24", time.UTC, "error: 24 is out of range"},
	} {
		l, err := Compile(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		p, err := l.Parse(tt.text, tt.loc, true)
		got := p.Time.UTC().Format(time.RFC3339Nano)
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(tt.want, "error: ") && got != tt.want || strings.HasPrefix(tt.want, "error: ") && !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
			t.Errorf("%s %q: got %s, want %s", tt.pattern, tt.text, got, tt.want)
		}
	}
}

// FuzzCompile checks the pattern translation on any pattern: Compile
// never panics and either refuses the pattern or formats any instant; a
// pattern Parse takes, without digits in its literal text (which Joda's
// greedy numbers read as the field before them, as Parse does), reads its
// own output back to text that formats the same.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{"yyyy-MM-dd HH:mm:ss", "yyyyMMdd", "EEE, d MMM yyyy hh:mm:ss a Z", "'T'''", "yy", "SSSSSSSSSSSSSSSSSSSSS", "ZZZ", "k K h", "x", "'", "M/d/y", "日本 yyyy"} {
		f.Add(seed, int64(1700000000123), int32(3600))
	}
	f.Fuzz(func(t *testing.T, pattern string, ms int64, offset int32) {
		l, err := Compile(pattern)
		if err != nil {
			if l != nil {
				t.Fatal("a layout with an error")
			}
			return
		}
		ms %= 1 << 50 // within Joda's years
		zone := time.FixedZone("", int(offset%(18*3600)/60*60))
		text := l.Format(time.UnixMilli(ms).In(zone))
		if l.CanParse() != nil || digitLiteral(l) {
			return
		}
		p, err := l.Parse(text, zone, true)
		if err != nil {
			return // adjacent unpadded numbers may not read back, as in Joda
		}
		if again := l.Format(p.Time); again != text {
			t.Fatalf("pattern %q: %q reads back as %v, which formats as %q", pattern, text, p.Time, again)
		}
	})
}

func digitLiteral(l *Layout) bool {
	for _, tok := range l.tokens {
		if tok.kind == literal && strings.ContainsAny(tok.text, "0123456789") {
			return true
		}
	}
	return false
}

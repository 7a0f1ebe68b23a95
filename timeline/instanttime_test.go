package timeline

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFormatInstantTime(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 4, 18, 17, 28, 2, 262_999_999, time.UTC), "20240418172802262"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), "19700101000000000"},
		// Other zones are converted to UTC.
		{time.Date(2024, 4, 18, 12, 28, 2, 262_000_000, time.FixedZone("CDT", -5*3600)), "20240418172802262"},
		{time.Date(999, 12, 31, 23, 59, 59, 9_000_000, time.UTC), "09991231235959009"},
	}
	for _, tt := range tests {
		if got := FormatInstantTime(tt.in); got != tt.want {
			t.Errorf("FormatInstantTime(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseInstantTime(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "20240418172802262", want: time.Date(2024, 4, 18, 17, 28, 2, 262_000_000, time.UTC)},
		{in: "20240229235959999", want: time.Date(2024, 2, 29, 23, 59, 59, 999_000_000, time.UTC)},
		// The 14-digit form of old tables is the start of its second.
		{in: "20240418172802", want: time.Date(2024, 4, 18, 17, 28, 2, 0, time.UTC)},
		{in: "19700101000000", want: time.Unix(0, 0).UTC()},
		{in: "20230229000000000", wantErr: true}, // not a leap year
		{in: "20241301000000000", wantErr: true},
		{in: "20240432000000000", wantErr: true},
		{in: "20240418240000000", wantErr: true},
		{in: "20240418236000000", wantErr: true},
		{in: "20240418235960000", wantErr: true},
		{in: "2024041817280226", wantErr: true},   // 16 digits
		{in: "202404181728022620", wantErr: true}, // 18 digits
		{in: "2024041817280226x", wantErr: true},
		{in: "-2024041817280226", wantErr: true},
		{in: "", wantErr: true},
		{in: InitInstantTime, wantErr: true}, // a special instant is no time
	}
	for _, tt := range tests {
		got, err := ParseInstantTime(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidInstantTime) {
				t.Errorf("ParseInstantTime(%q) = %v, %v; want ErrInvalidInstantTime", tt.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseInstantTime(%q) = %v, %v; want %v in UTC", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatParseRoundTrip(t *testing.T) {
	start := time.Date(2024, 12, 31, 23, 59, 59, 990_000_000, time.UTC)
	for i := range 50 {
		want := start.Add(time.Duration(i) * 7 * time.Millisecond)
		s := FormatInstantTime(want)
		got, err := ParseInstantTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseInstantTime(FormatInstantTime(%v)) = %v, %v", want, got, err)
		}
	}
}

func TestCheckInstantTime(t *testing.T) {
	tests := []struct {
		in          string
		ok, special bool
	}{
		{"20240418172802262", true, false},
		{"20240418172802", true, false},
		{InitInstantTime, true, true},
		{MetadataBootstrapInstantTime, true, true},
		{FullBootstrapInstantTime, true, true},
		{"00000000000003", false, false},
		{"00000000000000000", false, false},
		{"20240418172802262001", false, false}, // metadata-table suffixed instants are not data-table instants
		{"0", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if err := CheckInstantTime(tt.in); (err == nil) != tt.ok {
			t.Errorf("CheckInstantTime(%q) = %v, want ok %v", tt.in, err, tt.ok)
		}
		if got := IsSpecialInstantTime(tt.in); got != tt.special {
			t.Errorf("IsSpecialInstantTime(%q) = %v, want %v", tt.in, got, tt.special)
		}
	}
}

func TestParseInstantOrTime(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{in: "20240418173551906", want: "20240418173551906"},
		{in: "20240418173551", want: "20240418173551000"},
		{in: "19700101000000", want: "19700101000000000"},
		{in: "2024-04-18 17:35:51.906", want: "20240418173551906"},
		// Without milliseconds Hudi takes the end of the second.
		{in: "2024-04-18 17:35:51", want: "20240418173551999"},
		{in: "2024-04-18", want: "20240418000000000"},
		{in: "2024-02-30", wantErr: true},
		{in: "2024-04-18 25:00:00", wantErr: true},
		{in: "2024-04-18T17:35:51", wantErr: true},
		{in: "2024-04-18 17:35:51.9", wantErr: true},
		{in: "2024/04/18", wantErr: true},
		{in: "2024041817355190", wantErr: true},
		{in: "20241318173551906", wantErr: true},
		// Zeros are Hudi's "from the start": before every commit.
		{in: InitInstantTime, want: "00000000000000000"},
		{in: "000", want: "00000000000000000"},
		{in: "0", want: "00000000000000000"},
		{in: "yesterday", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseInstantOrTime(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidInstantTime) {
				t.Errorf("ParseInstantOrTime(%q) = %q, %v; want ErrInvalidInstantTime", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseInstantOrTime(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseInstantOrTime(f *testing.F) {
	for _, s := range []string{
		"20240418173551906", "20240418173551", "2024-04-18 17:35:51.906",
		"2024-04-18 17:35:51", "2024-04-18", "00000000000000", "2024-02-30", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseInstantOrTime(s)
		if err != nil {
			return
		}
		if len(got) != InstantTimeLen {
			t.Fatalf("ParseInstantOrTime(%q) = %q, not %d digits", s, got, InstantTimeLen)
		}
		if strings.Trim(got, "0") == "" {
			if strings.Trim(s, "0") != "" {
				t.Fatalf("ParseInstantOrTime(%q) = %q, the start, for a time", s, got)
			}
			return // the start, before every commit: no time
		}
		tm, err := ParseInstantTime(got)
		if err != nil {
			t.Fatalf("ParseInstantOrTime(%q) = %q, which does not parse: %v", s, got, err)
		}
		if FormatInstantTime(tm) != got {
			t.Fatalf("ParseInstantOrTime(%q) = %q, which formats back as %q", s, got, FormatInstantTime(tm))
		}
	})
}

// TestInstantTimeInZone reads and writes instant times of tables whose zone
// is not UTC: the digits are the wall clock in that zone. The fixture
// v6_nonpartitioned's first commit 20240418173550988 was made by Spark in
// CDT, at 22:35:50.988 UTC.
func TestInstantTimeInZone(t *testing.T) {
	cdt := time.FixedZone("CDT", -5*3600)
	moment := time.Date(2024, 4, 18, 22, 35, 50, 988_000_000, time.UTC)
	tests := []struct {
		name    string
		loc     *time.Location
		instant string
	}{
		{"UTC table", time.UTC, "20240418223550988"},
		{"nil means UTC", nil, "20240418223550988"},
		{"LOCAL table in CDT", cdt, "20240418173550988"},
		{"LOCAL table east of UTC, next day", time.FixedZone("JST", 9*3600), "20240419073550988"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatInstantTimeIn(moment, tt.loc); got != tt.instant {
				t.Errorf("FormatInstantTimeIn = %q, want %q", got, tt.instant)
			}
			got, err := ParseInstantTimeIn(tt.instant, tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(moment) {
				t.Errorf("ParseInstantTimeIn(%q) = %v, want %v", tt.instant, got, moment)
			}
		})
	}
	if _, err := ParseInstantTimeIn("20240230000000000", cdt); !errors.Is(err, ErrInvalidInstantTime) {
		t.Errorf("ParseInstantTimeIn(Feb 30) error = %v, want ErrInvalidInstantTime", err)
	}
}

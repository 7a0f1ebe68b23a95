package timeline

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Instant times are 17 decimal digits, yyyyMMddHHmmssSSS (Hudi's
// HoodieInstantTimeGenerator.MILLIS_INSTANT_TIMESTAMP_FORMAT): a wall-clock
// time, without a zone, in the table's timeline zone, which
// hoodie.table.timeline.timezone names (config.TimelineTimezone). A table
// without the property is LOCAL, Hudi's default: its writers make instant
// times in their own local time zone (Spark in the JVM's default zone). UTC
// tables, which Hoodie creates, have UTC instant times.
//
// Readers and writers order instants by comparing their digits, never by the
// moments they stand for, so the zone decides the order of commits made by
// writers in different zones: every writer of a table must use the table's
// zone, or a later commit can get an earlier instant time and be hidden
// behind an older one. Where an instant time must be set against a clock or
// shown as a moment, read it in the table's zone (ParseInstantTimeIn).
const (
	// InstantTimeLen is the length of an instant time, yyyyMMddHHmmssSSS.
	InstantTimeLen = 17
	// SecondsInstantTimeLen is the length of the second-granularity instant
	// times that Hudi wrote before 0.9, yyyyMMddHHmmss.
	SecondsInstantTimeLen = 14
)

// Hudi's special instant times (HoodieTimeline.INIT_INSTANT_TS and the
// bootstrap instants). They sort before every real instant time and stand
// for no point in time.
const (
	// InitInstantTime is the instant of a table's pristine state after its
	// creation.
	InitInstantTime = "00000000000000"
	// MetadataBootstrapInstantTime marks a metadata-only bootstrap.
	MetadataBootstrapInstantTime = "00000000000001"
	// FullBootstrapInstantTime marks a full-record bootstrap.
	FullBootstrapInstantTime = "00000000000002"
)

// ErrInvalidInstantTime reports a string that is not an instant time.
var ErrInvalidInstantTime = errors.New("invalid instant time")

// digitsLayout formats a time as yyyyMMddHHmmss.SSS; the dot is dropped.
const digitsLayout = "20060102150405.000"

// FormatInstantTime formats t as a 17-digit instant time in UTC, truncated to
// the millisecond. Times outside the years 0000-9999 have no instant time;
// for them the result is not 17 digits.
func FormatInstantTime(t time.Time) string {
	s := t.UTC().Format(digitsLayout)
	return s[:SecondsInstantTimeLen] + s[SecondsInstantTimeLen+1:]
}

// FormatInstantTimeIn formats t as the instant time of a table whose
// instant times are the wall clock in loc (nil: UTC).
func FormatInstantTimeIn(t time.Time, loc *time.Location) string {
	return FormatInstantTime(wallClock(t, loc))
}

// ParseInstantTime reads an instant time's digits as a wall clock in UTC.
// That is the moment the instant stands for only on a table whose timeline
// zone is UTC; for a LOCAL table use ParseInstantTimeIn. The result compares
// as the instant times do, whatever the zone. It takes the 17-digit form and
// the older 14-digit form yyyyMMddHHmmss, which is read as the start of that
// second (...000). The special instants (InitInstantTime and the bootstrap
// instants) stand for no time and are rejected.
func ParseInstantTime(s string) (time.Time, error) {
	return ParseInstantTimeIn(s, time.UTC)
}

// ParseInstantTimeIn converts an instant time of a table whose instant times
// are the wall clock in loc (nil: UTC) to the moment it stands for, in loc.
// A wall clock that loc skips or repeats (at a daylight saving change) is
// resolved as time.Date resolves it. Forms and errors are those of
// ParseInstantTime.
func ParseInstantTimeIn(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	if len(s) != InstantTimeLen && len(s) != SecondsInstantTimeLen {
		return time.Time{}, fmt.Errorf("instant time %q: %w: want %d digits (yyyyMMddHHmmssSSS) or %d (yyyyMMddHHmmss)",
			s, ErrInvalidInstantTime, InstantTimeLen, SecondsInstantTimeLen)
	}
	if !allDigits(s) {
		return time.Time{}, fmt.Errorf("instant time %q: %w: not all digits", s, ErrInvalidInstantTime)
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range s[from:to] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(4, 6), num(6, 8)
	hour, minute, sec := num(8, 10), num(10, 12), num(12, 14)
	milli := 0
	if len(s) == InstantTimeLen {
		milli = num(14, 17)
	}
	// Check the fields in UTC, where no wall clock is skipped: time.Date
	// normalizes out-of-range fields (month 13, day 32...), and a valid
	// instant time is one that survives unchanged.
	t := time.Date(year, time.Month(month), day, hour, minute, sec, milli*int(time.Millisecond), time.UTC)
	if t.Year() != year || int(t.Month()) != month || t.Day() != day ||
		t.Hour() != hour || t.Minute() != minute || t.Second() != sec {
		return time.Time{}, fmt.Errorf("instant time %q: %w: no such date and time", s, ErrInvalidInstantTime)
	}
	if loc == time.UTC {
		return t, nil
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, milli*int(time.Millisecond), loc), nil
}

// IsSpecialInstantTime reports whether s is one of Hudi's special instant
// times (InitInstantTime, MetadataBootstrapInstantTime,
// FullBootstrapInstantTime).
func IsSpecialInstantTime(s string) bool {
	switch s {
	case InitInstantTime, MetadataBootstrapInstantTime, FullBootstrapInstantTime:
		return true
	}
	return false
}

// CheckInstantTime reports whether s may name an instant on a timeline: a
// 17- or 14-digit instant time of a real date and time, or a special instant
// time.
func CheckInstantTime(s string) error {
	if IsSpecialInstantTime(s) {
		return nil
	}
	_, err := ParseInstantTime(s)
	return err
}

// Layouts of the user forms Hudi accepts for time travel
// (HoodieSqlCommonUtils.formatQueryInstant).
const (
	dateTimeMillisLayout = "2006-01-02 15:04:05.000"
	dateTimeLayout       = "2006-01-02 15:04:05"
	dateLayout           = "2006-01-02"
)

// ParseInstantOrTime normalizes an instant given by a user, as for time
// travel, to a 17-digit instant time. It accepts the forms Hudi's Spark
// integration accepts:
//
//   - yyyyMMddHHmmssSSS, returned as it is;
//   - yyyyMMddHHmmss, completed with 000 (the start of that second; Spark
//     keeps the 14 digits and compares strings, which differs only for an
//     instant at exactly 000 milliseconds of that second, which it puts
//     after the 14-digit time);
//   - yyyy-MM-dd HH:mm:ss.SSS;
//   - yyyy-MM-dd HH:mm:ss, completed with 999 as Hudi does
//     (HoodieInstantTimeGenerator.DEFAULT_MILLIS_EXT), so that the whole
//     second is included;
//   - yyyy-MM-dd, meaning the start of that day;
//   - a string of zeros ("0", "000", Hudi's "from the start"), returned as
//     17 zeros: before every commit.
//
// The digits are only rearranged, never converted between zones: a date and
// time given by a user is read as a wall clock in the table's timeline zone,
// the zone its instant times are in (UTC for tables Hoodie creates, the
// writers' local time for LOCAL tables), as Hudi does
// (HoodieInstantTimeGenerator.getInstantForDateString).
func ParseInstantOrTime(s string) (string, error) {
	if s != "" && strings.Trim(s, "0") == "" {
		return strings.Repeat("0", InstantTimeLen), nil
	}
	switch len(s) {
	case InstantTimeLen, SecondsInstantTimeLen:
		t, err := ParseInstantTime(s)
		if err != nil {
			return "", err
		}
		return FormatInstantTime(t), nil
	case len(dateTimeMillisLayout):
		return parseUserTime(s, dateTimeMillisLayout, 0)
	case len(dateTimeLayout):
		return parseUserTime(s, dateTimeLayout, 999*time.Millisecond)
	case len(dateLayout):
		return parseUserTime(s, dateLayout, 0)
	}
	return "", fmt.Errorf("instant %q: %w: want yyyyMMddHHmmssSSS, yyyyMMddHHmmss, yyyy-MM-dd HH:mm:ss[.SSS] or yyyy-MM-dd",
		s, ErrInvalidInstantTime)
}

func parseUserTime(s, layout string, plus time.Duration) (string, error) {
	t, err := time.Parse(layout, s)
	if err != nil {
		return "", fmt.Errorf("instant %q: %w: %v", s, ErrInvalidInstantTime, err)
	}
	return FormatInstantTime(t.Add(plus)), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

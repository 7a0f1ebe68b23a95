package timeline

import (
	"errors"
	"fmt"
	"time"
)

// Instant times are 17 decimal digits, yyyyMMddHHmmssSSS (Hudi's
// HoodieInstantTimeGenerator.MILLIS_INSTANT_TIMESTAMP_FORMAT). Hoodie generates
// them in UTC. Hudi's own writers default to the JVM's local time zone
// (hoodie.table.timeline.timezone=LOCAL). Readers order instants by comparing
// their times as strings, so the zone matters only where an instant time is
// shown to a person or set against a clock.
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

// ParseInstantTime converts an instant time to the time it stands for, read
// as UTC. It takes the 17-digit form and the older 14-digit form
// yyyyMMddHHmmss, which is read as the start of that second (...000). The
// special instants (InitInstantTime and the bootstrap instants) stand for no
// time and are rejected.
func ParseInstantTime(s string) (time.Time, error) {
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
	t := time.Date(year, time.Month(month), day, hour, minute, sec, milli*int(time.Millisecond), time.UTC)
	// time.Date normalizes out-of-range fields (month 13, day 32...): a
	// valid instant time is one that survives unchanged.
	if t.Year() != year || int(t.Month()) != month || t.Day() != day ||
		t.Hour() != hour || t.Minute() != minute || t.Second() != sec {
		return time.Time{}, fmt.Errorf("instant time %q: %w: no such date and time", s, ErrInvalidInstantTime)
	}
	return t, nil
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
//   - yyyy-MM-dd, meaning the start of that day.
//
// Dates and times are read in UTC, the zone Hoodie generates instant times
// in.
func ParseInstantOrTime(s string) (string, error) {
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

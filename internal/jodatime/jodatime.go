// Package jodatime formats and parses date-times with Joda-Time's
// DateTimeFormat patterns ("yyyy-MM-dd HH:mm:ss"), as Hudi's
// timestamp-based key generator does with them.
//
// It translates the part of the pattern language whose meaning does not
// hang on a locale or on the current date, in English: a pattern using
// another letter is an error naming it, never a guess.
//
//	y, Y   year (Y: year of era); yy formats the last two digits, and is
//	       refused in an input pattern, as Joda parses it relative to today
//	M      month: M, MM numeric; MMM "Jan"; MMMM "January"
//	d      day of month
//	H, k   hour of day, 0-23 and 1-24
//	h, K   hour of half day, 1-12 and 0-11; a: AM or PM
//	m, s   minute, second
//	S      fraction of second, to the millisecond, as Joda keeps it (up
//	       to 9 digits)
//	Z, ZZ  offset from UTC, "+0800" and "+08:00" (parsed: "Z" too)
//	E, D   day of week ("Mon", EEEE "Monday") and day of year: output only
//	'...'  quoted text ('' is a quote); any other character but a letter is
//	       itself
package jodatime

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// kind is a field a pattern letter stands for.
type kind uint8

const (
	literal kind = iota
	year
	yearOfEra
	month
	day
	hourOfDay
	clockHourOfDay
	clockHourOfHalfday
	hourOfHalfday
	halfday
	minute
	second
	fraction
	offset
	dayOfWeek
	dayOfYear
)

// outputOnly marks the fields Layout.Parse refuses (see Compile).
var outputOnly = map[kind]bool{dayOfWeek: true, dayOfYear: true}

// letters maps each letter Compile translates to its field.
var letters = map[byte]kind{
	'y': year, 'Y': yearOfEra, 'M': month, 'd': day, 'H': hourOfDay, 'k': clockHourOfDay,
	'h': clockHourOfHalfday, 'K': hourOfHalfday, 'a': halfday, 'm': minute, 's': second,
	'S': fraction, 'Z': offset, 'E': dayOfWeek, 'D': dayOfYear,
}

// token is one element of a pattern: a field with its letter count, or
// literal text.
type token struct {
	kind  kind
	n     int    // the letter count
	text  string // the text of a literal
	width int    // most digits a numeric field parses
}

// Layout is a compiled pattern.
type Layout struct {
	pattern string
	tokens  []token
	// parseErr says why Parse refuses the pattern, if it does.
	parseErr error
}

// String returns the pattern.
func (l *Layout) String() string { return l.pattern }

// Compile translates a Joda-Time DateTimeFormat pattern. A letter outside
// the language the package doc lists, an unclosed quote and an empty
// pattern are errors. A pattern that formats but cannot be parsed
// faithfully (one with yy, E or D, or setting a field twice) compiles, and
// Parse refuses it.
func Compile(pattern string) (*Layout, error) {
	l := &Layout{pattern: pattern}
	if pattern == "" {
		return nil, fmt.Errorf("empty date-time pattern")
	}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			text, next, err := quoted(pattern, i)
			if err != nil {
				return nil, err
			}
			l.addLiteral(text)
			i = next
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			n := 1
			for i+n < len(pattern) && pattern[i+n] == c {
				n++
			}
			k, ok := letters[c]
			if !ok {
				return nil, fmt.Errorf("date-time pattern %q: %q is not a pattern letter Hoodie translates (it does y, Y, M, d, H, k, h, K, a, m, s, S, Z, ZZ, E and D)", pattern, pattern[i:i+n])
			}
			if k == fraction && n > 9 {
				return nil, fmt.Errorf("date-time pattern %q: %d fraction digits; Hoodie translates up to 9 (Joda keeps milliseconds, and prints more digits than 18 its own way)", pattern, n)
			}
			if k == offset && n > 2 {
				return nil, fmt.Errorf("date-time pattern %q: %q (a zone ID) is not translated: Joda's zone IDs differ from Go's; use Z or ZZ, an offset", pattern, pattern[i:i+n])
			}
			l.tokens = append(l.tokens, token{kind: k, n: n})
			i += n
		default:
			// Any other byte is literal, a UTF-8 sequence included.
			j := i + 1
			for j < len(pattern) && !isLetter(pattern[j]) && pattern[j] != '\'' {
				j++
			}
			l.addLiteral(pattern[i:j])
			i = j
		}
	}
	l.setWidths()
	l.parseErr = l.checkParse()
	return l, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// quoted reads the quoted text starting at pattern[i], a quote: ” alone is
// a quote, and inside quotes too.
func quoted(pattern string, i int) (string, int, error) {
	if i+1 < len(pattern) && pattern[i+1] == '\'' {
		return "'", i + 2, nil
	}
	var b strings.Builder
	for j := i + 1; j < len(pattern); j++ {
		if pattern[j] != '\'' {
			b.WriteByte(pattern[j])
			continue
		}
		if j+1 < len(pattern) && pattern[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return b.String(), j + 1, nil
	}
	return "", 0, fmt.Errorf("date-time pattern %q: a quote is not closed", pattern)
}

func (l *Layout) addLiteral(text string) {
	if n := len(l.tokens); n > 0 && l.tokens[n-1].kind == literal {
		l.tokens[n-1].text += text
		return
	}
	l.tokens = append(l.tokens, token{kind: literal, text: text})
}

// numeric reports whether the field parses digits.
func (t token) numeric() bool {
	switch t.kind {
	case literal, halfday, offset, dayOfWeek:
		return false
	case month:
		return t.n < 3
	}
	return true
}

// setWidths sets the most digits each numeric field parses, as Joda's
// DateTimeFormat does: a year takes up to 9 digits, or exactly its letter
// count when a numeric field follows it; other fields take 2 (3 for the
// day of year), a fraction its letter count; never fewer than the letter
// count (Joda's appendDecimal raises the most to the fewest).
func (l *Layout) setWidths() {
	for i := range l.tokens {
		t := &l.tokens[i]
		switch t.kind {
		case year, yearOfEra:
			t.width = 9
			if i+1 < len(l.tokens) && l.tokens[i+1].numeric() {
				t.width = t.n
			}
		case dayOfYear:
			t.width = 3
		case fraction:
			t.width = t.n
		default:
			t.width = 2
		}
		t.width = max(t.width, t.n)
	}
}

// checkParse says why Parse refuses the layout, or nil.
func (l *Layout) checkParse() error {
	seen := map[kind]bool{}
	for _, t := range l.tokens {
		if t.kind == literal {
			continue
		}
		if outputOnly[t.kind] {
			return fmt.Errorf("date-time pattern %q: %s cannot be parsed faithfully (Joda moves the date to match it); use it in an output pattern only", l.pattern, strings.Repeat(string(letterOf(t.kind)), t.n))
		}
		if (t.kind == year || t.kind == yearOfEra) && t.n == 2 {
			return fmt.Errorf("date-time pattern %q: a two-digit year parses relative to the current date in Joda; use yyyy in an input pattern", l.pattern)
		}
		field := t.kind
		switch field {
		case yearOfEra:
			field = year
		case clockHourOfDay, clockHourOfHalfday, hourOfHalfday:
			field = hourOfDay
		}
		if seen[field] {
			return fmt.Errorf("date-time pattern %q: a field is given twice; Hoodie parses each field once", l.pattern)
		}
		seen[field] = true
	}
	if seen[halfday] && seen[hourOfDay] && !l.has(clockHourOfHalfday) && !l.has(hourOfHalfday) {
		return fmt.Errorf("date-time pattern %q: a is meant for h or K, not H or k", l.pattern)
	}
	return nil
}

func (l *Layout) has(k kind) bool {
	for _, t := range l.tokens {
		if t.kind == k {
			return true
		}
	}
	return false
}

func letterOf(k kind) byte {
	for c, kk := range letters {
		if kk == k {
			return c
		}
	}
	return '?'
}

// CanParse reports whether Parse can read text in this layout, and if not,
// why.
func (l *Layout) CanParse() error { return l.parseErr }

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	dayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// Format renders t, in its own location, as Joda's DateTimeFormatter
// prints it.
func (l *Layout) Format(t time.Time) string {
	var b []byte
	for _, tok := range l.tokens {
		b = tok.appendFormat(b, t)
	}
	return string(b)
}

func (tok token) appendFormat(b []byte, t time.Time) []byte {
	switch tok.kind {
	case literal:
		return append(b, tok.text...)
	case year:
		if tok.n == 2 {
			return pad(b, int64(((t.Year()%100)+100)%100), 2)
		}
		return pad(b, int64(t.Year()), tok.n)
	case yearOfEra:
		y := t.Year()
		if y <= 0 {
			y = 1 - y
		}
		if tok.n == 2 {
			return pad(b, int64(y%100), 2)
		}
		return pad(b, int64(y), tok.n)
	case month:
		switch {
		case tok.n >= 4:
			return append(b, monthNames[t.Month()-1]...)
		case tok.n == 3:
			return append(b, monthNames[t.Month()-1][:3]...)
		}
		return pad(b, int64(t.Month()), tok.n)
	case day:
		return pad(b, int64(t.Day()), tok.n)
	case hourOfDay:
		return pad(b, int64(t.Hour()), tok.n)
	case clockHourOfDay:
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		return pad(b, int64(h), tok.n)
	case clockHourOfHalfday:
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return pad(b, int64(h), tok.n)
	case hourOfHalfday:
		return pad(b, int64(t.Hour()%12), tok.n)
	case halfday:
		if t.Hour() < 12 {
			return append(b, "AM"...)
		}
		return append(b, "PM"...)
	case minute:
		return pad(b, int64(t.Minute()), tok.n)
	case second:
		return pad(b, int64(t.Second()), tok.n)
	case fraction:
		// Joda keeps milliseconds: scaled to n digits, truncated.
		v := int64(t.Nanosecond() / int(time.Millisecond))
		for i := tok.n; i < 3; i++ {
			v /= 10
		}
		for i := 3; i < tok.n; i++ {
			v *= 10
		}
		return pad(b, v, tok.n)
	case offset:
		// Joda prints a zero offset as digits too, and parses "Z".
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		b = append(b, sign)
		b = pad(b, int64(off/3600), 2)
		if tok.n == 2 {
			b = append(b, ':')
		}
		return pad(b, int64(off/60%60), 2)
	case dayOfWeek:
		name := dayNames[t.Weekday()]
		if tok.n < 4 {
			name = name[:3]
		}
		return append(b, name...)
	case dayOfYear:
		return pad(b, int64(t.YearDay()), tok.n)
	}
	return b
}

// pad appends v with at least n digits, zero-padded after any sign, as
// Joda's FormatUtils.appendPaddedInteger.
func pad(b []byte, v int64, n int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < n; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// Parsed is a date-time Parse read.
type Parsed struct {
	// Time is the instant, in the location Parse was given, or in the
	// parsed offset's when Parse was given none to keep (see Parse).
	Time time.Time
	// OffsetParsed says the text held an offset (Z or ZZ).
	OffsetParsed bool
}

// Parse reads text, all of it, in the layout, as Joda's
// DateTimeFormatter.parseDateTime does: fields missing from the pattern
// are those of 1970-01-01T00:00:00.000, the local time is taken in loc
// unless the text holds an offset, and a field out of its range (month 13,
// February 30) or a local time that does not exist in loc (in a daylight
// saving gap) is an error. With keepZone the result is in loc (Joda's
// withZone); without, in the parsed offset if any (withOffsetParsed).
func (l *Layout) Parse(text string, loc *time.Location, keepZone bool) (Parsed, error) {
	if l.parseErr != nil {
		return Parsed{}, l.parseErr
	}
	f := fields{year: 1970, month: 1, day: 1}
	pos := 0
	for _, tok := range l.tokens {
		next, err := tok.parse(text, pos, &f)
		if err != nil {
			return Parsed{}, fmt.Errorf("%q does not match date-time pattern %q at position %d: %w", text, l.pattern, pos, err)
		}
		pos = next
	}
	if pos != len(text) {
		return Parsed{}, fmt.Errorf("%q does not match date-time pattern %q: %q is left over", text, l.pattern, text[pos:])
	}
	t, err := f.time(loc, keepZone)
	if err != nil {
		return Parsed{}, fmt.Errorf("%q in date-time pattern %q: %w", text, l.pattern, err)
	}
	return Parsed{Time: t, OffsetParsed: f.hasOffset}, nil
}

// fields are the values Parse reads.
type fields struct {
	year, month, day, hour, minute, second, millis int
	pm, hasOffset                                  bool
	offset                                         int // seconds east of UTC
}

func (tok token) parse(text string, pos int, f *fields) (int, error) {
	switch tok.kind {
	case literal:
		end := pos + len(tok.text)
		if end > len(text) || !strings.EqualFold(text[pos:end], tok.text) {
			return 0, fmt.Errorf("want %q", tok.text)
		}
		return end, nil
	case month:
		if tok.n >= 3 {
			v, next, err := parseText(text, pos, monthNames)
			f.month = v + 1
			return next, err
		}
	case halfday:
		v, next, err := parseText(text, pos, []string{"AM", "PM"})
		f.pm = v == 1
		return next, err
	case offset:
		return parseOffset(text, pos, f)
	}
	limit := min(len(text), pos+tok.width)
	end := pos
	for end < limit && text[end] >= '0' && text[end] <= '9' {
		end++
	}
	if end == pos {
		return 0, fmt.Errorf("want a digit")
	}
	digits := text[pos:end]
	v, _ := strconv.Atoi(digits) // at most 9 digits
	var ok bool
	switch tok.kind {
	case year, yearOfEra:
		f.year, ok = v, tok.kind == year || v >= 1
	case month:
		f.month, ok = v, v >= 1 && v <= 12
	case day:
		f.day, ok = v, v >= 1 && v <= 31
	case hourOfDay:
		f.hour, ok = v, v <= 23
	case clockHourOfDay:
		f.hour, ok = v%24, v >= 1 && v <= 24
	case clockHourOfHalfday:
		f.hour, ok = v%12, v >= 1 && v <= 12
	case hourOfHalfday:
		f.hour, ok = v, v <= 11
	case minute:
		f.minute, ok = v, v <= 59
	case second:
		f.second, ok = v, v <= 59
	case fraction:
		// Digits past the millisecond are dropped, as Joda drops them.
		ms := digits + "00"
		f.millis, _ = strconv.Atoi(ms[:3])
		ok = true
	}
	if !ok {
		return 0, fmt.Errorf("%s is out of range", digits)
	}
	return end, nil
}

// parseText matches the longest of names, or their first three letters, at
// text[pos:], as written or in upper or lower case, as Joda matches text
// fields; it returns the index of the name.
func parseText(text string, pos int, names []string) (int, int, error) {
	best, bestEnd := -1, pos
	for i, name := range names {
		for _, form := range []string{name, name[:min(3, len(name))]} {
			end := pos + len(form)
			if end <= bestEnd || end > len(text) {
				continue
			}
			got := text[pos:end]
			if got == form || got == strings.ToUpper(form) || got == strings.ToLower(form) {
				best, bestEnd = i, end
			}
		}
	}
	if best < 0 {
		return 0, 0, fmt.Errorf("want one of %s", strings.Join(names, ", "))
	}
	return best, bestEnd, nil
}

// parseOffset reads "Z" or an offset [+-]HH[:]MM.
func parseOffset(text string, pos int, f *fields) (int, error) {
	if pos < len(text) && (text[pos] == 'Z' || text[pos] == 'z') {
		f.hasOffset, f.offset = true, 0
		return pos + 1, nil
	}
	bad := fmt.Errorf("want an offset, Z or like +08:00")
	if pos >= len(text) || text[pos] != '+' && text[pos] != '-' {
		return 0, bad
	}
	i := pos + 1
	two := func() (int, bool) {
		if i+2 > len(text) {
			return 0, false
		}
		v, err := strconv.Atoi(text[i : i+2])
		if err != nil || text[i] < '0' || text[i] > '9' {
			return 0, false
		}
		i += 2
		return v, true
	}
	h, ok := two()
	if !ok || h > 23 {
		return 0, bad
	}
	if i < len(text) && text[i] == ':' {
		i++
	}
	m, ok := two()
	if !ok || m > 59 {
		return 0, bad
	}
	off := h*3600 + m*60
	if text[pos] == '-' {
		off = -off
	}
	f.hasOffset, f.offset = true, off
	return i, nil
}

// time makes the instant of the fields (see Layout.Parse).
func (f *fields) time(loc *time.Location, keepZone bool) (time.Time, error) {
	if f.pm {
		f.hour += 12
	}
	if f.day > daysIn(f.year, f.month) {
		return time.Time{}, fmt.Errorf("day %d is not in %d-%02d", f.day, f.year, f.month)
	}
	at := loc
	if f.hasOffset {
		at = time.FixedZone("", f.offset)
	}
	t := time.Date(f.year, time.Month(f.month), f.day, f.hour, f.minute, f.second, f.millis*int(time.Millisecond), at)
	if t.Hour() != f.hour || t.Minute() != f.minute || t.Day() != f.day {
		return time.Time{}, fmt.Errorf("%04d-%02d-%02d %02d:%02d does not exist in %s (a daylight saving gap)", f.year, f.month, f.day, f.hour, f.minute, loc)
	}
	if keepZone {
		return t.In(loc), nil
	}
	return t, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

package timeline

import (
	"fmt"
	"sync"
	"time"
)

// Generator hands out new instant times for one table, as wall-clock times in
// the table's timeline zone (UTC unless SetLocation says otherwise; see
// config.TimelineTimezone). The times it returns are strictly increasing,
// and later than the latest instant the caller has seen on the timeline, even
// when the clock stands still or steps back: a new time is max(now, latest on
// the timeline + 1ms, previous time from this generator + 1ms), truncated to
// the millisecond.
//
// The maximum is taken over wall-clock digits, not over moments: readers
// order instants by comparing their digits, so the guarantee holds when the
// zone's clock is set back (the end of daylight saving time) and when the
// timeline holds instants made in another zone (a table whose earlier writers
// used UTC while its zone is LOCAL, or the other way round): a new time then
// waits on the latest digits, one millisecond at a time, until the clock
// catches up.
//
// A Generator is safe for concurrent use. It does not make instant times
// unique across processes: two writers are kept apart by the table's writer
// lock, and the create-if-absent of the requested file catches two writers
// that pick the same time for the same action (see CreateRequested).
type Generator struct {
	now func() time.Time

	mu  sync.Mutex
	loc *time.Location
	// last is the previous time handed out, its wall clock held as a UTC
	// time (as ParseInstantTime returns it).
	last time.Time
}

// NewGenerator returns a Generator of UTC instant times reading the clock
// now; nil means time.Now, as does the zero Generator. Tests inject a clock
// that stands still or steps back.
func NewGenerator(now func() time.Time) *Generator {
	return &Generator{now: now}
}

// SetLocation sets the zone whose wall clock the next instant times are in;
// nil means UTC. A writer sets it from the table's
// hoodie.table.timeline.timezone once it has read the table's configuration.
// Times handed out after the change still come after those handed out
// before it.
func (g *Generator) SetLocation(loc *time.Location) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.loc = loc
}

// Next returns a new instant time later than after and than every time this
// generator returned before. after is the latest instant time on the
// timeline, or "" for an empty timeline; a special instant time (such as
// InitInstantTime) is earlier than any real time. A 14-digit after counts as
// the start of its second.
func (g *Generator) Next(after string) (string, error) {
	var floor time.Time
	if after != "" && !IsSpecialInstantTime(after) {
		t, err := ParseInstantTime(after)
		if err != nil {
			return "", fmt.Errorf("new instant time after %q: %w", after, err)
		}
		floor = t.Add(time.Millisecond)
	}
	now := g.now
	if now == nil {
		now = time.Now
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := wallClock(now(), g.loc).Truncate(time.Millisecond)
	if t.Before(floor) {
		t = floor
	}
	if !g.last.IsZero() && !t.After(g.last) {
		t = g.last.Add(time.Millisecond)
	}
	g.last = t
	return FormatInstantTime(t), nil
}

// wallClock returns the wall clock of t in loc (nil: UTC) as a UTC time, the
// form in which ParseInstantTime returns an instant time's digits.
func wallClock(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		return t.UTC()
	}
	t = t.In(loc)
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	return time.Date(year, month, day, hour, minute, sec, t.Nanosecond(), time.UTC)
}

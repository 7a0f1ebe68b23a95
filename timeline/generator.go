package timeline

import (
	"fmt"
	"sync"
	"time"
)

// Generator hands out new instant times for one table, in UTC. The times it
// returns are strictly increasing, and later than the latest instant the
// caller has seen on the timeline, even when the clock stands still or steps
// back: a new time is max(now, latest on the timeline + 1ms, previous time
// from this generator + 1ms), truncated to the millisecond.
//
// A Generator is safe for concurrent use. It does not make instant times
// unique across processes: two writers are kept apart by the table's writer
// lock, and the create-if-absent of the requested file catches two writers
// that pick the same time for the same action (see CreateRequested).
type Generator struct {
	now func() time.Time

	mu   sync.Mutex
	last time.Time
}

// NewGenerator returns a Generator reading the clock now; nil means
// time.Now, as does the zero Generator. Tests inject a clock that stands
// still or steps back.
func NewGenerator(now func() time.Time) *Generator {
	return &Generator{now: now}
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
	t := now().UTC().Truncate(time.Millisecond)
	if t.Before(floor) {
		t = floor
	}
	if !g.last.IsZero() && !t.After(g.last) {
		t = g.last.Add(time.Millisecond)
	}
	g.last = t
	return FormatInstantTime(t), nil
}

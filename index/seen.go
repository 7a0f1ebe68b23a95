package index

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSeenLatest is how many instant times Seen.Latest holds at most.
const MaxSeenLatest = 128

// Seen describes the completed write instants at or before the watermark
// that were on the table's active timeline when the index reached the
// watermark: the commits whose changes it holds. A commit that completes
// later with an earlier instant time (a writer whose clock or time zone is
// behind, or a long write that started earlier) is not among them, and
// comparing the timeline with Seen finds it; instants that archiving takes
// off the timeline only leave it.
type Seen struct {
	// Count is the number of those instants.
	Count int
	// Latest are the times of the latest of them, at most MaxSeenLatest,
	// in order.
	Latest []string
}

// Missing reports whether times, the completed write instants now on the
// active timeline at or before the watermark, in order, hold one that s does
// not: one of Latest's span that Latest lacks, or more instants before that
// span than s counts there (archiving only removes instants from the
// oldest).
func (s *Seen) Missing(times []string) bool {
	var lo string
	known := make(map[string]bool, len(s.Latest))
	if len(s.Latest) > 0 {
		lo = s.Latest[0]
		for _, t := range s.Latest {
			known[t] = true
		}
	}
	older := 0
	for _, t := range times {
		if len(s.Latest) > 0 && t >= lo {
			if !known[t] {
				return true
			}
			continue
		}
		older++
	}
	return older > s.Count-len(s.Latest)
}

// encode gives the stored form: the count, then the times, comma-separated.
// The empty value stands for a nil Seen (not known).
func (s *Seen) encode() []byte {
	if s == nil {
		return []byte{}
	}
	return []byte(strings.Join(append([]string{strconv.Itoa(s.Count)}, s.Latest...), ","))
}

// decodeSeen reads the stored form; nil or empty data is a nil Seen.
func decodeSeen(data []byte) (*Seen, error) {
	if len(data) == 0 {
		return nil, nil
	}
	parts := strings.Split(string(data), ",")
	n, err := strconv.Atoi(parts[0])
	if err != nil || n < len(parts)-1 || len(parts)-1 > MaxSeenLatest {
		return nil, fmt.Errorf("bad seen instants %q", data)
	}
	s := &Seen{Count: n, Latest: parts[1:]}
	for i, t := range s.Latest {
		if err := checkInstant(t); err != nil || (i > 0 && t <= s.Latest[i-1]) {
			return nil, fmt.Errorf("bad seen instants %q", data)
		}
	}
	return s, nil
}

// Seen returns what the index recorded with its watermark about the
// completed instants at or before it, or nil when that is not known (an
// index made before it was recorded, or by Apply or Rebuild without it).
func (ix *Index) Seen() *Seen {
	ix.stateMu.RLock()
	defer ix.stateMu.RUnlock()
	if ix.stale != nil {
		return nil
	}
	return ix.seen
}

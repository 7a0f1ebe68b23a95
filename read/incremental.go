package read

import (
	"errors"
	"fmt"
	"sort"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/timeline"
)

// window is the part of the timeline a scan reads: the snapshot as of
// viewAt ("" for the latest), and for an incremental scan only the records
// committed after begin; in a table of timeline layout 2 (Hudi 1.x), only
// the records of the commits that completed in (begin, end].
type window struct {
	viewAt      string
	begin, end  string
	incremental bool
	// byCompletion is set for an incremental scan of a layout 2 table by
	// resolve; commits then holds the instant times of the commits that
	// completed in [begin, end], sorted.
	byCompletion bool
	commits      []string
}

// ErrBadRange reports options that do not make a snapshot, time-travel or
// incremental scan.
var ErrBadRange = errors.New("bad scan range")

// newWindow checks and normalizes the instants of opts.
func newWindow(opts Options) (window, error) {
	asOf, err := normalizeInstant("as-of", opts.AsOf)
	if err != nil {
		return window{}, err
	}
	begin, err := normalizeInstant("begin", opts.Begin)
	if err != nil {
		return window{}, err
	}
	end, err := normalizeInstant("end", opts.End)
	if err != nil {
		return window{}, err
	}
	switch {
	case begin == "" && end != "":
		return window{}, fmt.Errorf("%w: an end instant needs a begin instant", ErrBadRange)
	case begin == "":
		return window{viewAt: asOf}, nil
	case asOf != "":
		return window{}, fmt.Errorf("%w: an incremental scan (begin %s) cannot also be as of %s; give its end instead", ErrBadRange, begin, asOf)
	case end != "" && begin > end:
		return window{}, fmt.Errorf("%w: begin instant %s is after end instant %s", ErrBadRange, begin, end)
	}
	return window{viewAt: end, begin: begin, end: end, incremental: true}, nil
}

// resolve picks the commits of an incremental scan of a table of timeline
// layout 2 (Hudi 1.x), which selects commits by completion time, as Hudi
// 1.x's incremental queries do: the completed commits whose completion
// time lies in [begin, end], whatever their instant (requested) times.
// Both ends are inclusive, as in Hudi 1.x's Spark reader
// (IncrementalQueryAnalyzer with RangeType.CLOSED_CLOSED): a commit that
// completed at begin is read, unlike layout 1's (begin, end] of instant
// times. The
// scan reads the snapshot as of end (every such commit was requested
// before it completed, so before end) and keeps the records those commits
// wrote. Hoodie does not read Hudi 1.x's archived (LSM) timeline: when it
// holds instants and begin is before the first active commit completed,
// the commits in range are unknown and resolve fails.
func (w *window) resolve(tl *timeline.Timeline) error {
	if !w.incremental || tl.Layout().Version < 2 {
		return nil
	}
	writes := tl.CompletedCommits()
	if first, ok := writes.First(); ok && tl.HasHistory() && w.begin < tl.CompletionTime(first) {
		return fmt.Errorf("%w: begin %s is before the active timeline, whose first commit completed at %s, and Hoodie does not read the archived timeline of table version 8 (%s)",
			ErrBadRange, w.begin, tl.CompletionTime(first), tl.Layout().History)
	}
	w.byCompletion = true
	w.commits = []string{}
	for _, in := range writes.Instants() {
		if c := tl.CompletionTime(in); c >= w.begin && (w.end == "" || c <= w.end) {
			w.commits = append(w.commits, in.Time)
		}
	}
	sort.Strings(w.commits)
	if n := len(w.commits); n > 0 {
		w.viewAt = w.commits[n-1]
	}
	return nil
}

// normalizeInstant turns an instant given in any form that
// timeline.ParseInstantOrTime accepts (a string of zeros for the initial
// instant among them) into a 17-digit instant time.
func normalizeInstant(what, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	t, err := timeline.ParseInstantOrTime(s)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return t, nil
}

// predicate returns the filter of an incremental scan: a record's commit
// time is after begin (the snapshot as of the end holds no later record),
// or with byCompletion, one of commits.
func (w window) predicate(cs *columnSet) (pred, error) {
	col, err := cs.resolve([]string{basefile.MetaCommitTime})
	if err != nil {
		return nil, err
	}
	if w.byCompletion {
		p := &inPred{col: col, dom: domBytes}
		for _, c := range w.commits {
			p.vals = append(p.vals, scalar{s: c})
		}
		p.index()
		return p, nil
	}
	return &cmpPred{col: col, dom: domBytes, op: opGt, k: scalar{s: w.begin}}, nil
}

// skips reports whether an incremental scan can skip a file slice: the
// records of a file were committed at or before the file's instant.
func (w window) skips(s FileSlice) bool {
	if w.byCompletion {
		return len(w.commits) == 0 || s.Instant < w.commits[0]
	}
	return w.incremental && s.Instant <= w.begin
}

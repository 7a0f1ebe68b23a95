package read

import (
	"errors"
	"fmt"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/timeline"
)

// window is the part of the timeline a scan reads: the snapshot as of
// viewAt ("" for the latest), and for an incremental scan only the records
// committed after begin.
type window struct {
	viewAt      string
	begin       string
	incremental bool
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
	return window{viewAt: end, begin: begin, incremental: true}, nil
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
// time is after begin. (The snapshot as of the end holds no later record.)
func (w window) predicate(cs *columnSet) (pred, error) {
	col, err := cs.resolve([]string{basefile.MetaCommitTime})
	if err != nil {
		return nil, err
	}
	return &cmpPred{col: col, dom: domBytes, op: opGt, k: scalar{s: w.begin}}, nil
}

// skips reports whether an incremental scan can skip a file slice: the
// records of a file were committed at or before the file's instant.
func (w window) skips(s FileSlice) bool {
	return w.incremental && s.Instant <= w.begin
}

package read

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/timeline"
)

// ErrSnapshotGone reports a snapshot that can no longer be read whole: a
// base file it reads is gone. The cleaner removes the file versions that
// only old instants read, and a copy made by `export --format hudi` holds
// the latest versions only.
var ErrSnapshotGone = errors.New("snapshot no longer readable")

// GoneError is the error of a view whose snapshot misses a base file. It
// wraps ErrSnapshotGone.
type GoneError struct {
	// AsOf is the instant asked for; "" for the latest snapshot.
	AsOf string
	// Missing is a base file the snapshot reads that is gone (relative to
	// the base path), and WrittenBy the commit that wrote it.
	Missing, WrittenBy string
	// OldestReadable is the oldest instant from which on every snapshot
	// can be read whole; "" when none can.
	OldestReadable string
}

func (e *GoneError) Error() string {
	what := "the latest snapshot"
	if e.AsOf != "" {
		what = "the snapshot as of " + e.AsOf
	}
	msg := fmt.Sprintf("%s cannot be read: its base file %s, written by commit %s, is gone (a clean removed that old version, or the table is a copy of its latest files)",
		what, e.Missing, e.WrittenBy)
	if e.OldestReadable == "" {
		return msg + "; no instant of the table can be read whole"
	}
	return msg + "; the oldest instant still readable is " + e.OldestReadable
}

func (e *GoneError) Unwrap() error { return ErrSnapshotGone }

// instantFiles are the base files one completed write wrote, and the file
// groups it replaced (partition + "/" + file id).
type instantFiles struct {
	time     string
	written  []string
	replaced []string
}

// readInstantFiles reads what the completed write in wrote and replaced.
func readInstantFiles(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (instantFiles, error) {
	files := instantFiles{time: in.Time}
	var meta *timeline.CommitMetadata
	if in.Action == timeline.ActionReplaceCommit {
		rm, err := tl.ReadReplaceCommitMetadata(ctx, in)
		if err != nil {
			return files, err
		}
		for part, ids := range rm.PartitionToReplaceFileIDs {
			for _, id := range ids {
				files.replaced = append(files.replaced, part+"/"+id)
			}
		}
		meta = &rm.CommitMetadata
	} else {
		m, err := tl.ReadCommitMetadata(ctx, in)
		if err != nil {
			return files, err
		}
		meta = m
	}
	files.written = meta.WrittenPaths()
	return files, nil
}

// expected follows, write by write, the base file each live file group's
// latest slice is in, and which of those are missing.
type expected struct {
	present map[string]bool
	latest  map[string]string // group -> path of its latest slice
	writer  map[string]string // path -> instant that wrote it
	missing int
}

func newExpected(present map[string]bool) *expected {
	return &expected{present: present, latest: map[string]string{}, writer: map[string]string{}}
}

func (e *expected) drop(group string) {
	if old, ok := e.latest[group]; ok {
		if !e.present[old] {
			e.missing--
		}
		delete(e.latest, group)
	}
}

// apply moves the expectation past one write.
func (e *expected) apply(f instantFiles) {
	for _, g := range f.replaced {
		e.drop(g)
	}
	for _, p := range f.written {
		if !strings.HasSuffix(p, ".parquet") {
			continue
		}
		name, err := basefile.ParseName(path.Base(p))
		if err != nil {
			continue
		}
		dir := path.Dir(p)
		if dir == "." {
			dir = ""
		}
		g := dir + "/" + name.FileID
		e.drop(g)
		e.latest[g] = p
		e.writer[p] = f.time
		if !e.present[p] {
			e.missing++
		}
	}
}

// firstMissing names the missing file of the smallest path.
func (e *expected) firstMissing() string {
	var gone []string
	for _, p := range e.latest {
		if !e.present[p] {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	return gone[0]
}

// checkComplete fails with a *GoneError when a base file that the view as
// of asOf reads is missing: archived are the writes only the archived
// timeline holds, history the active timeline's completed writes up to
// asOf, present the base files listed. Without archived (the latest
// snapshot, which the cleaner never touches), files of archived writes are
// not checked.
func checkComplete(ctx context.Context, tl *timeline.Timeline, asOf string, archived, history []instantFiles, present map[string]bool) error {
	e := newExpected(present)
	for _, f := range archived {
		if asOf == "" || f.time <= asOf {
			e.apply(f)
		}
	}
	for _, f := range history {
		e.apply(f)
	}
	if e.missing == 0 {
		return nil
	}
	missing := e.firstMissing()
	gone := &GoneError{AsOf: asOf, Missing: missing, WrittenBy: e.writer[missing]}
	oldest, err := oldestReadable(ctx, tl, archived, present)
	if err != nil {
		return errors.Join(gone, err)
	}
	gone.OldestReadable = oldest
	return gone
}

// oldestReadable returns the oldest completed write from which on every
// snapshot reads only files that are present; "" when the latest does
// not. archived are the writes before the active timeline's.
func oldestReadable(ctx context.Context, tl *timeline.Timeline, archived []instantFiles, present map[string]bool) (string, error) {
	e := newExpected(present)
	oldest := ""
	step := func(f instantFiles) {
		e.apply(f)
		switch {
		case e.missing > 0:
			oldest = ""
		case oldest == "":
			oldest = f.time
		}
	}
	for _, f := range archived {
		step(f)
	}
	for _, in := range tl.CompletedCommits().Instants() {
		f, err := readInstantFiles(ctx, tl, in)
		if err != nil {
			return "", err
		}
		step(f)
	}
	return oldest, nil
}

package timeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/faultfs"
)

var testClock = time.Date(2024, 4, 18, 17, 28, 2, 262_000_000, time.UTC)

func stuckGenerator() *Generator {
	return NewGenerator(func() time.Time { return testClock })
}

// sampleMetadata is the commit metadata of a write of one file group.
func sampleMetadata(ts string) *CommitMetadata {
	m := &CommitMetadata{
		ExtraMetadata: map[string]string{SchemaKey: `{"type":"record","name":"r","fields":[]}`},
		OperationType: OperationUpsert,
	}
	m.AddWriteStat("p", WriteStat{
		FileID:          "f1-0",
		Path:            "p/f1-0_0-1-1_" + ts + ".parquet",
		PrevCommit:      NullCommit,
		NumWrites:       10,
		NumInserts:      10,
		TotalWriteBytes: 1000,
		PartitionPath:   "p",
		FileSizeInBytes: 1000,
		RuntimeStats:    &RuntimeStats{TotalCreateTime: 5},
	})
	return m
}

func marshal(t *testing.T, m interface{ MarshalJSON() ([]byte, error) }) []byte {
	t.Helper()
	data, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readFile(t *testing.T, fsys storage.FS, name string) []byte {
	t.Helper()
	data, err := fsys.ReadFile(context.Background(), storage.MetaFolder+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCommitLifecycle(t *testing.T) {
	ctx := context.Background()
	fsys := newTable(t, map[string]string{"hoodie.properties": ""})
	gen := stuckGenerator()

	req, err := CreateRequested(ctx, fsys, gen, ActionCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Instant{"20240418172802262", ActionCommit, StateRequested}); req != want {
		t.Fatalf("CreateRequested = %v, want %v", req, want)
	}
	if data := readFile(t, fsys, "20240418172802262.commit.requested"); len(data) != 0 {
		t.Errorf("requested file holds %q, want nothing", data)
	}
	if got := load(t, fsys).Instants(); !reflect.DeepEqual(got, []Instant{req}) {
		t.Errorf("after CreateRequested: %v", got)
	}

	profile := marshal(t, NewWorkloadProfile(OperationUpsert, map[string]int64{"p": 10}, nil))
	inflight, err := TransitionToInflight(ctx, fsys, req, profile)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Instant{req.Time, ActionCommit, StateInflight}); inflight != want {
		t.Fatalf("TransitionToInflight = %v, want %v", inflight, want)
	}
	if data := readFile(t, fsys, req.Time+".inflight"); !bytes.Equal(data, profile) {
		t.Errorf("inflight file holds %q, want the workload profile", data)
	}
	if got := load(t, fsys).Pending().Instants(); !reflect.DeepEqual(got, []Instant{inflight}) {
		t.Errorf("after TransitionToInflight: pending %v", got)
	}

	meta := sampleMetadata(req.Time)
	done, err := Complete(ctx, fsys, inflight, marshal(t, meta))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Instant{req.Time, ActionCommit, StateCompleted}); done != want {
		t.Fatalf("Complete = %v, want %v", done, want)
	}
	tl := load(t, fsys)
	if got := tl.Instants(); !reflect.DeepEqual(got, []Instant{done}) {
		t.Fatalf("after Complete: %v", got)
	}
	got, err := tl.ReadCommitMetadata(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, meta) {
		t.Errorf("read back %+v, want %+v", got, meta)
	}

	// The next instant is later, although the clock has not moved.
	next, err := CreateRequested(ctx, fsys, stuckGenerator(), ActionDeltaCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if next.Time != "20240418172802263" {
		t.Errorf("next instant time %s, want 20240418172802263", next.Time)
	}
}

func TestCreateRequestedAfterTimeline(t *testing.T) {
	// The latest instant is in the clock's future, and pending.
	fsys := newTable(t, map[string]string{"20240418180000000.rollback.requested": ""})
	in, err := CreateRequested(context.Background(), fsys, stuckGenerator(), ActionCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Time != "20240418180000001" {
		t.Errorf("instant time %s, want 20240418180000001", in.Time)
	}
}

// racingFS creates the file a writer is about to create just before it
// does, the first n times, as a concurrent writer taking the same instant
// time would.
type racingFS struct {
	storage.FS
	n int
}

func (r *racingFS) CreateIfAbsent(ctx context.Context, name string, data []byte) error {
	if r.n > 0 {
		r.n--
		if err := r.FS.CreateIfAbsent(ctx, name, []byte("other writer")); err != nil {
			return err
		}
	}
	return r.FS.CreateIfAbsent(ctx, name, data)
}

func TestCreateRequestedRetriesTakenTime(t *testing.T) {
	ctx := context.Background()
	fsys := &racingFS{FS: newTable(t, nil), n: 2}
	in, err := CreateRequested(ctx, fsys, stuckGenerator(), ActionCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Time != "20240418172802264" {
		t.Errorf("instant time %s, want 20240418172802264 after two taken times", in.Time)
	}
	if data := readFile(t, fsys, "20240418172802262.commit.requested"); string(data) != "other writer" {
		t.Errorf("the other writer's file was replaced: %q", data)
	}
	if got := load(t, fsys).Len(); got != 3 {
		t.Errorf("%d instants, want 3", got)
	}
}

// TestCreateRequestedWithClaims checks the claims of CreateRequestedWith:
// made before each requested file is tried, released for the times
// another writer took, kept for the instant created, and failing it with
// nothing created.
func TestCreateRequestedWithClaims(t *testing.T) {
	ctx := context.Background()
	fsys := &racingFS{FS: newTable(t, nil), n: 2}
	var claimed, released []string
	claim := func(_ context.Context, ts string) (func(), error) {
		p, _ := Instant{Time: ts, Action: ActionCommit, State: StateRequested}.Path()
		if _, err := fsys.Stat(ctx, p); err == nil {
			t.Errorf("claim of %s after its requested file", ts)
		}
		claimed = append(claimed, ts)
		return func() { released = append(released, ts) }, nil
	}
	in, err := CreateRequestedWith(ctx, fsys, stuckGenerator(), ActionCommit, nil, claim)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"20240418172802262", "20240418172802263", in.Time}; !slices.Equal(claimed, want) {
		t.Errorf("claimed %v, want %v", claimed, want)
	}
	if want := []string{"20240418172802262", "20240418172802263"}; !slices.Equal(released, want) {
		t.Errorf("released %v, want %v", released, want)
	}
	refuse := func(context.Context, string) (func(), error) { return nil, errors.New("no claim") }
	if _, err := CreateRequestedWith(ctx, fsys, stuckGenerator(), ActionCommit, nil, refuse); err == nil || !strings.Contains(err.Error(), "no claim") {
		t.Errorf("a failed claim: %v", err)
	}
	if got := load(t, fsys).Len(); got != 3 {
		t.Errorf("%d instants, want 3: the failed claim created one", got)
	}
}

func TestCreateRequestedGivesUp(t *testing.T) {
	fsys := &racingFS{FS: newTable(t, nil), n: maxCreateAttempts}
	_, err := CreateRequested(context.Background(), fsys, stuckGenerator(), ActionCommit, nil)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateRequested error = %v, want fs.ErrExist", err)
	}
}

func TestCreateRequestedDefaultGenerator(t *testing.T) {
	fsys := newTable(t, map[string]string{"20240101000000000.commit": ""})
	in, err := CreateRequested(context.Background(), fsys, nil, ActionCommit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Time <= "20240101000000000" || len(in.Time) != InstantTimeLen {
		t.Errorf("instant time %s, want a 17-digit time after the timeline's", in.Time)
	}
}

func TestCreateRequestedContent(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		action Action
		plan   []byte
		name   string
	}{
		{ActionDeltaCommit, nil, ".deltacommit.requested"},
		{ActionReplaceCommit, nil, ".replacecommit.requested"},
		{ActionClean, []byte("\x00avro clean plan"), ".clean.requested"},
		{ActionRollback, []byte("\x00avro rollback plan"), ".rollback.requested"},
	}
	for _, tt := range tests {
		fsys := newTable(t, nil)
		in, err := CreateRequested(ctx, fsys, stuckGenerator(), tt.action, tt.plan)
		if err != nil {
			t.Fatalf("%s: %v", tt.action, err)
		}
		if data := readFile(t, fsys, in.Time+tt.name); !bytes.Equal(data, tt.plan) {
			t.Errorf("%s: requested file holds %q, want %q", tt.action, data, tt.plan)
		}
	}
}

func TestCreateRequestedRefuses(t *testing.T) {
	ctx := context.Background()
	for _, action := range []Action{ActionSavepoint, "clustering", ""} {
		if in, err := CreateRequested(ctx, newTable(t, nil), stuckGenerator(), action, nil); !errors.Is(err, ErrInvalidInstant) {
			t.Errorf("CreateRequested(%q) = %v, %v; want ErrInvalidInstant", action, in, err)
		}
	}
	// A timeline that does not load gives no instant time.
	fsys := newTable(t, map[string]string{"2024.commit": ""})
	if in, err := CreateRequested(ctx, fsys, stuckGenerator(), ActionCommit, nil); err == nil {
		t.Errorf("CreateRequested on a broken timeline = %v, want an error", in)
	}
}

func TestTransitionErrors(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	meta := marshal(t, sampleMetadata(ts))
	tests := []struct {
		name    string
		files   map[string]string
		run     func(storage.FS) error
		wantErr error
	}{
		{
			name: "inflight without requested file",
			run: func(fsys storage.FS) error {
				_, err := TransitionToInflight(ctx, fsys, Instant{ts, ActionCommit, StateRequested}, nil)
				return err
			},
			wantErr: fs.ErrNotExist,
		},
		{
			name:  "inflight twice",
			files: map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""},
			run: func(fsys storage.FS) error {
				_, err := TransitionToInflight(ctx, fsys, Instant{ts, ActionCommit, StateRequested}, nil)
				return err
			},
			wantErr: fs.ErrExist,
		},
		{
			name:  "inflight with a workload profile that does not parse",
			files: map[string]string{ts + ".commit.requested": ""},
			run: func(fsys storage.FS) error {
				_, err := TransitionToInflight(ctx, fsys, Instant{ts, ActionCommit, StateRequested}, []byte("not json"))
				return err
			},
		},
		{
			name:  "inflight from the wrong state",
			files: map[string]string{ts + ".commit.requested": ""},
			run: func(fsys storage.FS) error {
				_, err := TransitionToInflight(ctx, fsys, Instant{ts, ActionCommit, StateInflight}, nil)
				return err
			},
			wantErr: ErrInvalidInstant,
		},
		{
			name:  "complete without inflight file",
			files: map[string]string{ts + ".commit.requested": ""},
			run: func(fsys storage.FS) error {
				_, err := Complete(ctx, fsys, Instant{ts, ActionCommit, StateInflight}, meta)
				return err
			},
			wantErr: fs.ErrNotExist,
		},
		{
			name:  "complete a completed instant",
			files: map[string]string{ts + ".commit.requested": "", ts + ".inflight": "", ts + ".commit": "{}"},
			run: func(fsys storage.FS) error {
				_, err := Complete(ctx, fsys, Instant{ts, ActionCommit, StateInflight}, meta)
				return err
			},
			wantErr: fs.ErrExist,
		},
		{
			name:  "complete from requested",
			files: map[string]string{ts + ".commit.requested": ""},
			run: func(fsys storage.FS) error {
				_, err := Complete(ctx, fsys, Instant{ts, ActionCommit, StateRequested}, meta)
				return err
			},
			wantErr: ErrInvalidInstant,
		},
		{
			name:  "complete with metadata that does not parse",
			files: map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""},
			run: func(fsys storage.FS) error {
				_, err := Complete(ctx, fsys, Instant{ts, ActionCommit, StateInflight}, []byte(`{"partitionToWriteStats": 7}`))
				return err
			},
		},
		{
			name:  "complete with an invalid instant time",
			files: map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""},
			run: func(fsys storage.FS) error {
				_, err := Complete(ctx, fsys, Instant{"../x", ActionCommit, StateInflight}, meta)
				return err
			},
			wantErr: ErrInvalidInstant,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := newTable(t, tt.files)
			before := load(t, fsys).Instants()
			err := tt.run(fsys)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if after := load(t, fsys).Instants(); !reflect.DeepEqual(after, before) {
				t.Errorf("a failed transition changed the timeline from %v to %v", before, after)
			}
		})
	}
}

func TestCompleteOtherActions(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	tests := []struct {
		name     string
		files    map[string]string
		inflight Instant
		data     []byte
		want     Instant
		wantFile string
	}{
		{
			name:     "compaction completes as a commit",
			files:    map[string]string{ts + ".compaction.requested": "plan", ts + ".compaction.inflight": ""},
			inflight: Instant{ts, ActionCompaction, StateInflight},
			data:     []byte(`{"compacted":true}`),
			want:     Instant{ts, ActionCommit, StateCompleted},
			wantFile: ts + ".commit",
		},
		{
			name:     "clean holds Avro, which is not checked",
			files:    map[string]string{ts + ".clean.requested": "plan", ts + ".clean.inflight": ""},
			inflight: Instant{ts, ActionClean, StateInflight},
			data:     []byte("\x00avro clean metadata"),
			want:     Instant{ts, ActionClean, StateCompleted},
			wantFile: ts + ".clean",
		},
		{
			name:     "replacecommit",
			files:    map[string]string{ts + ".replacecommit.requested": "", ts + ".replacecommit.inflight": ""},
			inflight: Instant{ts, ActionReplaceCommit, StateInflight},
			data:     []byte(`{"operationType":"INSERT_OVERWRITE","partitionToReplaceFileIds":{"p":["f1"]}}`),
			want:     Instant{ts, ActionReplaceCommit, StateCompleted},
			wantFile: ts + ".replacecommit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := newTable(t, tt.files)
			done, err := Complete(ctx, fsys, tt.inflight, tt.data)
			if err != nil || done != tt.want {
				t.Fatalf("Complete = %v, %v; want %v", done, err, tt.want)
			}
			if data := readFile(t, fsys, tt.wantFile); !bytes.Equal(data, tt.data) {
				t.Errorf("%s holds %q, want %q", tt.wantFile, data, tt.data)
			}
			if got := load(t, fsys).Instants(); !reflect.DeepEqual(got, []Instant{tt.want}) {
				t.Errorf("timeline %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDeletePending(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	tests := []struct {
		name    string
		files   map[string]string
		in      Instant
		wantErr error
		left    []Instant
	}{
		{
			name:  "inflight commit",
			files: map[string]string{ts + ".commit.requested": "", ts + ".inflight": "", "20240418172802261.commit": ""},
			in:    Instant{ts, ActionCommit, StateInflight},
			left:  []Instant{{"20240418172802261", ActionCommit, StateCompleted}},
		},
		{
			name:  "requested deltacommit",
			files: map[string]string{ts + ".deltacommit.requested": ""},
			in:    Instant{ts, ActionDeltaCommit, StateRequested},
		},
		{
			name:  "inflight savepoint",
			files: map[string]string{ts + ".savepoint.inflight": ""},
			in:    Instant{ts, ActionSavepoint, StateInflight},
		},
		{
			name:  "inflight without requested file",
			files: map[string]string{ts + ".replacecommit.inflight": ""},
			in:    Instant{ts, ActionReplaceCommit, StateInflight},
		},
		{
			name:  "already gone",
			files: nil,
			in:    Instant{ts, ActionCommit, StateInflight},
		},
		{
			name:    "completed commit is kept",
			files:   map[string]string{ts + ".commit.requested": "", ts + ".inflight": "", ts + ".commit": "{}"},
			in:      Instant{ts, ActionCommit, StateInflight},
			wantErr: ErrInstantCompleted,
			left:    []Instant{{ts, ActionCommit, StateCompleted}},
		},
		{
			name:    "completed compaction is kept",
			files:   map[string]string{ts + ".compaction.requested": "", ts + ".compaction.inflight": "", ts + ".commit": "{}"},
			in:      Instant{ts, ActionCompaction, StateInflight},
			wantErr: ErrInstantCompleted,
			left:    []Instant{{ts, ActionCommit, StateCompleted}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := newTable(t, tt.files)
			err := DeletePending(ctx, fsys, tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("DeletePending error = %v, want %v", err, tt.wantErr)
			}
			if got := load(t, fsys).Instants(); !reflect.DeepEqual(got, tt.left) {
				t.Errorf("left %v, want %v", got, tt.left)
			}
		})
	}
}

// TestDeletePendingOrder checks that the inflight file goes first, so that a
// crash halfway leaves a requested instant.
func TestDeletePendingOrder(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	inner := newTable(t, map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""})
	ffs := faultfs.New(inner, 2)
	if err := DeletePending(ctx, ffs, Instant{ts, ActionCommit, StateInflight}); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("DeletePending error = %v, want the injected failure", err)
	}
	want := []string{"remove .hoodie/" + ts + ".inflight", "remove .hoodie/" + ts + ".commit.requested"}
	if got := ffs.Trace(); !reflect.DeepEqual(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	if got := load(t, inner).Instants(); !reflect.DeepEqual(got, []Instant{{ts, ActionCommit, StateRequested}}) {
		t.Errorf("after a crash in DeletePending: %v, want the requested instant", got)
	}
}

// TestCompleteRace has writers race to complete one instant on a local file
// system: exactly one wins, and the completed file holds its metadata.
func TestCompleteRace(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	fsys := newTable(t, map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""})
	inflight := Instant{ts, ActionCommit, StateInflight}
	const writers = 16
	payloads := make([][]byte, writers)
	errs := make([]error, writers)
	for i := range payloads {
		m := sampleMetadata(ts)
		m.ExtraMetadata["writer"] = fmt.Sprint(i)
		payloads[i] = marshal(t, m)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = Complete(ctx, fsys, inflight, payloads[i])
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both completed the instant", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("writer %d: %v, want fs.ErrExist", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer completed the instant")
	}
	if data := readFile(t, fsys, ts+".commit"); !bytes.Equal(data, payloads[winner]) {
		t.Errorf("the completed file does not hold the winner's metadata")
	}
}

// TestCreateRequestedRace has writers with their own generators, all reading
// a clock that stands still, start instants at once: each gets its own time.
func TestCreateRequestedRace(t *testing.T) {
	ctx := context.Background()
	fsys := newTable(t, nil)
	const writers = 8
	got := make([]Instant, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = CreateRequested(ctx, fsys, stuckGenerator(), ActionCommit, nil)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range writers {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if seen[got[i].Time] {
			t.Fatalf("instant time %s given to two writers", got[i].Time)
		}
		seen[got[i].Time] = true
	}
	if n := load(t, fsys).Len(); n != writers {
		t.Errorf("%d instants on the timeline, want %d", n, writers)
	}
}

// TestCrashDuringCommit fails each mutating step of requested -> inflight ->
// completed in turn, and checks what a reader then sees: no completed
// instant, or the instant completed with its metadata whole. The pending
// instant left behind can be deleted, leaving the table as it was.
func TestCrashDuringCommit(t *testing.T) {
	ctx := context.Background()
	meta := sampleMetadata("20240418172802262")
	metaJSON := marshal(t, meta)
	commit := func(fsys storage.FS) error {
		req, err := CreateRequested(ctx, fsys, stuckGenerator(), ActionCommit, nil)
		if err != nil {
			return err
		}
		inflight, err := TransitionToInflight(ctx, fsys, req, []byte("{}"))
		if err != nil {
			return err
		}
		_, err = Complete(ctx, fsys, inflight, metaJSON)
		return err
	}

	counter := faultfs.New(newTable(t, nil), 0)
	if err := commit(counter); err != nil {
		t.Fatal(err)
	}
	steps := counter.Steps()
	if steps != 3 {
		t.Fatalf("a commit took %d mutating steps (%q), want 3", steps, counter.Trace())
	}
	// What the timeline shows when step failAt fails; failing step 4, which
	// the commit never reaches, lets it complete.
	wantStates := map[int][]State{1: nil, 2: {StateRequested}, 3: {StateInflight}, 4: {StateCompleted}}
	for failAt := 1; failAt <= steps+1; failAt++ {
		t.Run(fmt.Sprintf("fail at step %d", failAt), func(t *testing.T) {
			inner := newTable(t, map[string]string{"hoodie.properties": ""})
			err := commit(faultfs.New(inner, failAt))
			if failAt <= steps && !errors.Is(err, faultfs.ErrInjected) {
				t.Fatalf("commit error = %v, want the injected failure", err)
			}
			if failAt > steps && err != nil {
				t.Fatal(err)
			}
			tl := load(t, inner)
			var states []State
			for _, in := range tl.Instants() {
				states = append(states, in.State)
			}
			if !reflect.DeepEqual(states, wantStates[failAt]) {
				t.Errorf("instant states %v, want %v", states, wantStates[failAt])
			}
			for _, in := range tl.Completed().Instants() {
				got, err := tl.ReadCommitMetadata(ctx, in)
				if err != nil {
					t.Fatalf("completed instant %v does not parse: %v", in, err)
				}
				if !reflect.DeepEqual(got, meta) {
					t.Fatalf("completed instant %v holds %+v, want %+v", in, got, meta)
				}
			}
			for _, in := range tl.Pending().Instants() {
				if err := DeletePending(ctx, inner, in); err != nil {
					t.Fatal(err)
				}
			}
			if left := load(t, inner).Pending().Len(); left != 0 {
				t.Errorf("%d pending instants left after deleting them", left)
			}
		})
	}
}

// StopPending takes the inflight file of a pending instant away, keeping
// its requested file, and refuses a completed one, changing nothing.
func TestStopPending(t *testing.T) {
	ctx := context.Background()
	const ts = "20240418172802262"
	fsys := newTable(t, map[string]string{ts + ".commit.requested": "", ts + ".inflight": ""})
	if err := StopPending(ctx, fsys, Instant{ts, ActionCommit, StateInflight}); err != nil {
		t.Fatal(err)
	}
	if got := load(t, fsys).Instants(); !reflect.DeepEqual(got, []Instant{{ts, ActionCommit, StateRequested}}) {
		t.Errorf("after StopPending: %v, want the requested instant", got)
	}
	done := newTable(t, map[string]string{ts + ".commit.requested": "", ts + ".inflight": "", ts + ".commit": "{}"})
	if err := StopPending(ctx, done, Instant{ts, ActionCommit, StateInflight}); !errors.Is(err, ErrInstantCompleted) {
		t.Errorf("StopPending of a completed instant: %v, want ErrInstantCompleted", err)
	}
	if ok, err := storage.Exists(ctx, done, ".hoodie/"+ts+".inflight"); err != nil || !ok {
		t.Errorf("the completed instant's inflight file is gone: %v", err)
	}
}

package index

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// step is one Apply of TestApply.
type step struct {
	instant string
	changes ChangeSet
	wantErr error // nil: success
}

func TestApply(t *testing.T) {
	const (
		t1 = "20240101000000001"
		t2 = "20240101000000002"
		t3 = "20240101000000003"
	)
	p1, p2, p3 := loc("p1", "f1"), loc("p2", "f2"), loc("p3", "f3")
	tests := []struct {
		name          string
		steps         []step
		want          map[string]Location
		wantWatermark string
	}{
		{
			name:          "puts",
			steps:         []step{{instant: t1, changes: ChangeSet{Puts: []Put{{"a", p1}, {"b", p2}}}}},
			want:          map[string]Location{"a": p1, "b": p2},
			wantWatermark: t1,
		},
		{
			name: "later instants move and delete",
			steps: []step{
				{instant: t1, changes: ChangeSet{Puts: []Put{{"a", p1}, {"b", p1}, {"c", p1}}}},
				{instant: t2, changes: ChangeSet{Puts: []Put{{"a", p2}}, Deletes: []string{"b"}}},
				{instant: t3, changes: ChangeSet{Deletes: []string{"c", "never-there"}}},
			},
			want:          map[string]Location{"a": p2},
			wantWatermark: t3,
		},
		{
			name:          "deletes apply before puts",
			steps:         []step{{instant: t1, changes: ChangeSet{Puts: []Put{{"a", p1}}, Deletes: []string{"a"}}}},
			want:          map[string]Location{"a": p1},
			wantWatermark: t1,
		},
		{
			name:          "last put of a key wins",
			steps:         []step{{instant: t1, changes: ChangeSet{Puts: []Put{{"a", p1}, {"a", p3}}}}},
			want:          map[string]Location{"a": p3},
			wantWatermark: t1,
		},
		{
			name: "put groups apply after puts, in order",
			steps: []step{{instant: t1, changes: ChangeSet{
				Puts:      []Put{{"a", p1}, {"b", p1}, {"c", p1}},
				PutGroups: []PutGroup{{p2, []string{"b", "a"}}, {p3, []string{"b", "d"}}, {p1, nil}},
				Deletes:   []string{"c", "d"},
			}}},
			want:          map[string]Location{"a": p2, "b": p3, "c": p1, "d": p3},
			wantWatermark: t1,
		},
		{
			name:          "empty change set advances the watermark",
			steps:         []step{{instant: t2}},
			want:          map[string]Location{},
			wantWatermark: t2,
		},
		{
			name: "equal instant is a no-op",
			steps: []step{
				{instant: t2, changes: ChangeSet{Puts: []Put{{"a", p1}}}},
				{instant: t2, changes: ChangeSet{Puts: []Put{{"b", p2}}, Deletes: []string{"a"}}},
			},
			want:          map[string]Location{"a": p1},
			wantWatermark: t2,
		},
		{
			name: "older instant is refused",
			steps: []step{
				{instant: t2, changes: ChangeSet{Puts: []Put{{"a", p1}}}},
				{instant: t1, changes: ChangeSet{Puts: []Put{{"b", p2}}}, wantErr: ErrOutOfOrder},
			},
			want:          map[string]Location{"a": p1},
			wantWatermark: t2,
		},
		{
			name: "bad arguments change nothing",
			steps: []step{
				{instant: t1, changes: ChangeSet{Puts: []Put{{"a", p1}}}},
				{instant: t2, changes: ChangeSet{Puts: []Put{{"b", p2}, {"", p2}}}, wantErr: ErrEmptyKey},
				{instant: t2, changes: ChangeSet{Deletes: []string{"a", ""}}, wantErr: ErrEmptyKey},
				{instant: t2, changes: ChangeSet{Puts: []Put{{"b", loc("p", "")}}}, wantErr: errAny},
				{instant: t2, changes: ChangeSet{PutGroups: []PutGroup{{p2, []string{"b"}}, {p1, []string{"c", ""}}}}, wantErr: ErrEmptyKey},
				{instant: t2, changes: ChangeSet{PutGroups: []PutGroup{{loc("p", ""), []string{"b"}}}}, wantErr: errAny},
				{instant: "2024010100000000", wantErr: errAny},
				{instant: "2024010100000000x", wantErr: errAny},
				{instant: "", wantErr: errAny},
			},
			want:          map[string]Location{"a": p1},
			wantWatermark: t1,
		},
	}
	for _, tt := range tests {
		for _, path := range applyPaths {
			t.Run(tt.name+"/path="+path.name, func(t *testing.T) {
				opts := testOptions
				opts.ingestMin = path.ingestMin
				testApplySteps(t, opts, tt.steps, tt.want, tt.wantWatermark)
			})
		}
	}
}

// testApplySteps applies steps to a new index opened with opts, and checks
// their errors and the index they leave.
func testApplySteps(t *testing.T, opts Options, steps []step, want map[string]Location, wantWatermark string) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), opts)
	for i, s := range steps {
		err := ix.Apply(ctx, s.instant, s.changes)
		switch {
		case s.wantErr == nil && err != nil:
			t.Fatalf("step %d: %v", i, err)
		case s.wantErr != nil && err == nil:
			t.Fatalf("step %d: Apply succeeded, want an error", i)
		case s.wantErr != nil && s.wantErr != errAny && !errors.Is(err, s.wantErr):
			t.Fatalf("step %d: %v, want %v", i, err, s.wantErr)
		case err != nil && !strings.Contains(err.Error(), ix.dir):
			t.Fatalf("step %d: error %q does not name the folder", i, err)
		}
	}
	if w := ix.Watermark(); w != wantWatermark {
		t.Fatalf("Watermark = %q, want %q", w, wantWatermark)
	}
	checkContents(t, ix, want)
	checkContents(t, reopen(t, ix, opts), want)
}

// errAny stands for any error in TestApply.
var errAny = errors.New("any error")

// TestApplyDictionary checks that file groups get one dictionary entry each,
// however many records and commits name them, and that a failed Apply
// leaves no entry behind.
func TestApplyDictionary(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	changes := ChangeSet{Puts: []Put{{"a", loc("p", "f1")}, {"b", loc("p", "f2")}, {"c", loc("p", "f1")}, {"d", loc("q", "f1")}}}
	if err := ix.Apply(ctx, "20240101000000001", changes); err != nil {
		t.Fatal(err)
	}
	changes = ChangeSet{Puts: []Put{{"e", loc("p", "f2")}, {"f", loc("q", "f1")}}}
	if err := ix.Apply(ctx, "20240101000000002", changes); err != nil {
		t.Fatal(err)
	}
	if n := len(ix.dict.locs); n != 3 {
		t.Fatalf("dictionary holds %d groups, want 3", n)
	}
	checkContents(t, ix, map[string]Location{
		"a": loc("p", "f1"), "b": loc("p", "f2"), "c": loc("p", "f1"),
		"d": loc("q", "f1"), "e": loc("p", "f2"), "f": loc("q", "f1"),
	})
}

func TestDictionaryRollback(t *testing.T) {
	ix := openTest(t, t.TempDir(), testOptions)
	b := ix.db.NewBatch()
	defer b.Close()
	d := newDictionary()
	for _, l := range []Location{loc("p", "f1"), loc("p", "f2")} {
		if _, err := d.assign(b, l); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []Location{loc("p", "f3"), loc("p", "f1"), loc("q", "f1")} {
		if _, err := d.assign(b, l); err != nil {
			t.Fatal(err)
		}
	}
	d.rollback(2)
	if len(d.locs) != 2 || len(d.ids) != 2 {
		t.Fatalf("after rollback: %d locations, %d ids; want 2, 2", len(d.locs), len(d.ids))
	}
	if id, err := d.assign(b, loc("q", "f1")); err != nil || id != 2 {
		t.Fatalf("assign after rollback = %d, %v; want id 2", id, err)
	}
	if id, err := d.assign(b, loc("p", "f2")); err != nil || id != 1 {
		t.Fatalf("assign of a kept group = %d, %v; want id 1", id, err)
	}
}

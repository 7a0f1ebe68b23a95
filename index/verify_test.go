package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	ctx := context.Background()
	indexed := map[string]Location{}
	for i := range 100 {
		indexed[fmt.Sprintf("k%03d", i)] = loc("p", fmt.Sprintf("f%d", i%3))
	}
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(indexed)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		// edit turns a copy of the indexed records into the snapshot.
		edit       func(m map[string]Location)
		duplicates []string // keys the scan yields a second time
		want       Report   // without examples, checked separately
		missing    []string
		extra      []string
		wrong      []string
	}{
		{
			name: "agree",
			edit: func(map[string]Location) {},
			want: Report{Indexed: 100, Scanned: 100},
		},
		{
			name:    "missing",
			edit:    func(m map[string]Location) { m["k100"], m["a"] = loc("p", "f0"), loc("p", "f0") },
			want:    Report{Indexed: 100, Scanned: 102, Missing: 2},
			missing: []string{"a", "k100"},
		},
		{
			name:  "extra",
			edit:  func(m map[string]Location) { delete(m, "k000"); delete(m, "k099") },
			want:  Report{Indexed: 100, Scanned: 98, Extra: 2},
			extra: []string{"k000", "k099"},
		},
		{
			name:  "wrong",
			edit:  func(m map[string]Location) { m["k050"] = loc("p", "f9"); m["k051"] = loc("q", "f0") },
			want:  Report{Indexed: 100, Scanned: 100, Wrong: 2},
			wrong: []string{"k050", "k051"},
		},
		{
			name: "many of each, examples capped",
			edit: func(m map[string]Location) {
				for i := range 30 {
					delete(m, fmt.Sprintf("k%03d", i))
					m[fmt.Sprintf("m%03d", i)] = loc("p", "f0")
					m[fmt.Sprintf("k%03d", 50+i)] = loc("p", "moved")
				}
			},
			want:    Report{Indexed: 100, Scanned: 100, Missing: 30, Extra: 30, Wrong: 30},
			missing: []string{"m000", "m001", "m002", "m003", "m004", "m005", "m006", "m007", "m008", "m009"},
			extra:   []string{"k000", "k001", "k002", "k003", "k004", "k005", "k006", "k007", "k008", "k009"},
			wrong:   []string{"k050", "k051", "k052", "k053", "k054", "k055", "k056", "k057", "k058", "k059"},
		},
		{
			name:       "duplicates in the snapshot",
			edit:       func(map[string]Location) {},
			duplicates: []string{"k010", "k011", "k010"},
			want:       Report{Indexed: 100, Scanned: 103, Duplicates: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snapshot := maps.Clone(indexed)
			tt.edit(snapshot)
			scan := func(yield func(string, Location) error) error {
				if err := mapScan(snapshot)(yield); err != nil {
					return err
				}
				for _, k := range tt.duplicates {
					if err := yield(k, snapshot[k]); err != nil {
						return err
					}
				}
				return nil
			}
			got, err := ix.Verify(ctx, scan)
			if err != nil {
				t.Fatal(err)
			}
			var wrong []string
			for _, m := range got.WrongKeys {
				if m.Indexed != indexed[m.Key] || m.Scanned != snapshot[m.Key] {
					t.Errorf("mismatch %+v, want indexed %v, scanned %v", m, indexed[m.Key], snapshot[m.Key])
				}
				wrong = append(wrong, m.Key)
			}
			if !slices.Equal(got.MissingKeys, tt.missing) || !slices.Equal(got.ExtraKeys, tt.extra) || !slices.Equal(wrong, tt.wrong) {
				t.Errorf("examples: missing %q, extra %q, wrong %q; want %q, %q, %q",
					got.MissingKeys, got.ExtraKeys, wrong, tt.missing, tt.extra, tt.wrong)
			}
			got.MissingKeys, got.ExtraKeys, got.WrongKeys = nil, nil, nil
			tt.want.Watermark = "20240101000000001"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("report %+v, want %+v", got, tt.want)
			}
			if got.OK() != (tt.want.Missing+tt.want.Extra+tt.want.Wrong+tt.want.Duplicates == 0) {
				t.Errorf("OK() = %v", got.OK())
			}
		})
	}
	checkContents(t, ix, indexed)
}

// TestVerifyInChunks runs TestVerify's cases with Verify holding 7 records
// of the snapshot at a time, so that it scans the snapshot once per range
// of 7 keys or so.
func TestVerifyInChunks(t *testing.T) {
	defer func(n int) { verifyChunk = n }(verifyChunk)
	verifyChunk = 7
	TestVerify(t)
	TestVerifyUUIDKeys(t)
}

// TestVerifyUUIDKeys checks Verify on records in both namespaces: its
// examples come in index order, the keys that are not UUIDs first.
func TestVerifyUUIDKeys(t *testing.T) {
	ctx := context.Background()
	a, b, c := testKey(1), testKey(2), testKey(3)
	upper := strings.ToUpper(c) // not in canonical form: another key
	indexed := map[string]Location{a: loc("p", "f0"), b: loc("p", "f1"), upper: loc("p", "f2"), "k": loc("p", "f0")}
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "20240101000000001", mapScan(indexed)); err != nil {
		t.Fatal(err)
	}
	snapshot := map[string]Location{b: loc("p", "f2"), c: loc("p", "f2"), upper: loc("p", "f2"), "k": loc("p", "f0"), "z": loc("p", "f0")}
	got, err := ix.Verify(ctx, mapScan(snapshot))
	if err != nil {
		t.Fatal(err)
	}
	want := Report{
		Watermark: "20240101000000001", Indexed: 4, Scanned: 5, Missing: 2, Extra: 1, Wrong: 1,
		MissingKeys: []string{"z", c}, ExtraKeys: []string{a},
		WrongKeys: []Mismatch{{Key: b, Indexed: loc("p", "f1"), Scanned: loc("p", "f2")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("report %+v, want %+v", got, want)
	}
	checkContents(t, ix, indexed)
}

func TestVerifyScanError(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), testOptions)
	if err := ix.Rebuild(ctx, "", mapScan(map[string]Location{"a": loc("p", "f")})); err != nil {
		t.Fatal(err)
	}
	errScan := errors.New("scan failed")
	_, err := ix.Verify(ctx, func(yield func(string, Location) error) error {
		if err := yield("b", loc("p", "f")); err != nil {
			return err
		}
		return errScan
	})
	checkIs(t, "Verify", err, errScan)
	_, err = ix.Verify(ctx, mapScan(map[string]Location{"": loc("p", "f")}))
	checkIs(t, "Verify", err, ErrEmptyKey)
	if err := ix.Stale(); err != nil {
		t.Fatalf("a failed Verify made the index stale: %v", err)
	}
}

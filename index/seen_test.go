package index

import (
	"context"
	"slices"
	"testing"
)

// TestSeenMissing checks which timelines hold a completed instant that a
// Seen does not, archiving (instants gone from the oldest) included.
func TestSeenMissing(t *testing.T) {
	const a, b, c, d, e = "20240101000000001", "20240101000000002", "20240101000000003", "20240101000000004", "20240101000000005"
	tests := []struct {
		name  string
		seen  Seen
		times []string
		want  bool
	}{
		{"same", Seen{3, []string{a, b, c}}, []string{a, b, c}, false},
		{"oldest archived", Seen{3, []string{a, b, c}}, []string{b, c}, false},
		{"all archived", Seen{3, []string{a, b, c}}, nil, false},
		{"new between", Seen{2, []string{a, c}}, []string{a, b, c}, true},
		{"new first", Seen{2, []string{b, c}}, []string{a, b, c}, true},
		{"new, oldest archived", Seen{3, []string{a, c, d}}, []string{b, c, d}, true},
		{"older than the list, counted", Seen{5, []string{d, e}}, []string{a, b, c, d, e}, false},
		{"older than the list, archived", Seen{5, []string{d, e}}, []string{c, d, e}, false},
		{"older than the list, one more", Seen{4, []string{d, e}}, []string{a, b, c, d, e}, true},
		{"empty", Seen{}, []string{a}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.seen.Missing(tc.times); got != tc.want {
				t.Errorf("%+v.Missing(%v) = %v, want %v", tc.seen, tc.times, got, tc.want)
			}
		})
	}
}

// TestSeenStoredWithWatermark checks that Apply, by batch and by ingestion,
// and RebuildSeen store Seen with the watermark, durably, and that Apply
// and Rebuild without it record that it is not known.
func TestSeenStoredWithWatermark(t *testing.T) {
	ctx := context.Background()
	seen := &Seen{Count: 7, Latest: []string{"20240101000000001", "20240101000000002"}}
	tests := []struct {
		name      string
		ingestMin int
		write     func(ix *Index, seen *Seen) error
	}{
		{"apply batch", 1 << 20, func(ix *Index, seen *Seen) error {
			return ix.Apply(ctx, "20240101000000002", ChangeSet{Puts: []Put{{"k", loc("p", "f")}}, Seen: seen})
		}},
		{"apply ingest", 1, func(ix *Index, seen *Seen) error {
			return ix.Apply(ctx, "20240101000000002", ChangeSet{Puts: []Put{{"k", loc("p", "f")}}, Seen: seen})
		}},
		{"rebuild", 0, func(ix *Index, seen *Seen) error {
			return ix.RebuildSeen(ctx, "20240101000000002", seen, mapScan(map[string]Location{"k": loc("p", "f")}))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions
			opts.ingestMin = tc.ingestMin
			ix := openTest(t, t.TempDir(), opts)
			if ix.Seen() != nil {
				t.Errorf("a new index has Seen %+v", ix.Seen())
			}
			if err := tc.write(ix, seen); err != nil {
				t.Fatal(err)
			}
			ix = reopen(t, ix, opts)
			if got := ix.Seen(); got == nil || got.Count != seen.Count || !slices.Equal(got.Latest, seen.Latest) {
				t.Errorf("Seen after reopening: %+v, want %+v", got, seen)
			}
			if err := ix.Rebuild(ctx, "", mapScan(nil)); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(ix, nil); err != nil {
				t.Fatal(err)
			}
			if ix = reopen(t, ix, opts); ix.Seen() != nil {
				t.Errorf("Seen after a write without it: %+v, want nil", ix.Seen())
			}
		})
	}
}

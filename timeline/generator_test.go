package timeline

import (
	"sync"
	"testing"
	"time"
)

// scriptedClock returns the given times in turn, then the last one forever.
func scriptedClock(times ...time.Time) func() time.Time {
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := times[0]
		if len(times) > 1 {
			times = times[1:]
		}
		return t
	}
}

func TestGeneratorClock(t *testing.T) {
	base := time.Date(2024, 4, 18, 17, 28, 2, 262_400_000, time.UTC)
	tests := []struct {
		name  string
		clock []time.Time
		after string
		want  []string
	}{
		{
			name:  "running clock",
			clock: []time.Time{base, base.Add(5 * time.Millisecond), base.Add(time.Second)},
			want:  []string{"20240418172802262", "20240418172802267", "20240418172803262"},
		},
		{
			name:  "stuck clock",
			clock: []time.Time{base},
			want:  []string{"20240418172802262", "20240418172802263", "20240418172802264", "20240418172802265"},
		},
		{
			name:  "clock steps back",
			clock: []time.Time{base, base.Add(-time.Hour), base.Add(-time.Millisecond), base.Add(3 * time.Millisecond)},
			want:  []string{"20240418172802262", "20240418172802263", "20240418172802264", "20240418172802265"},
		},
		{
			name:  "timeline ahead of the clock",
			clock: []time.Time{base},
			after: "20240418180000000",
			want:  []string{"20240418180000001", "20240418180000002"},
		},
		{
			name:  "timeline behind the clock",
			clock: []time.Time{base},
			after: "20240101000000000",
			want:  []string{"20240418172802262", "20240418172802263"},
		},
		{
			name:  "14-digit latest instant counts as the start of its second",
			clock: []time.Time{base},
			after: "20240418180000",
			want:  []string{"20240418180000001"},
		},
		{
			name:  "init instant is before any time",
			clock: []time.Time{base},
			after: InitInstantTime,
			want:  []string{"20240418172802262"},
		},
		{
			name:  "local clock is written in UTC",
			clock: []time.Time{base.In(time.FixedZone("CDT", -5*3600))},
			want:  []string{"20240418172802262"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGenerator(scriptedClock(tt.clock...))
			for i, want := range tt.want {
				got, err := g.Next(tt.after)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("call %d: Next(%q) = %q, want %q", i, tt.after, got, want)
				}
			}
		})
	}
}

func TestGeneratorRejectsMalformedLatest(t *testing.T) {
	g := NewGenerator(nil)
	for _, after := range []string{"2024", "20241301000000000", "abc"} {
		if got, err := g.Next(after); err == nil {
			t.Errorf("Next(%q) = %q, want an error", after, got)
		}
	}
}

func TestGeneratorRealClock(t *testing.T) {
	var g Generator // the zero Generator reads time.Now
	prev := ""
	for range 100 {
		got, err := g.Next(prev)
		if err != nil {
			t.Fatal(err)
		}
		if got <= prev || len(got) != InstantTimeLen {
			t.Fatalf("Next(%q) = %q, want a later 17-digit time", prev, got)
		}
		prev = got
	}
}

func TestGeneratorConcurrentUse(t *testing.T) {
	g := NewGenerator(scriptedClock(time.Date(2024, 4, 18, 0, 0, 0, 0, time.UTC)))
	const n = 8
	results := make([][]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				ts, err := g.Next("")
				if err != nil {
					t.Error(err)
					return
				}
				results[i] = append(results[i], ts)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, rs := range results {
		for _, ts := range rs {
			if seen[ts] {
				t.Fatalf("instant time %s handed out twice", ts)
			}
			seen[ts] = true
		}
	}
	if len(seen) != n*50 {
		t.Fatalf("%d distinct times, want %d", len(seen), n*50)
	}
}

package timeline

import (
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // America/Chicago for the daylight saving test, whatever the machine has
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
		loc   *time.Location // the table's zone; nil: UTC
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
		{
			name:  "LOCAL table west of UTC: the local wall clock",
			clock: []time.Time{base},
			loc:   time.FixedZone("CDT", -5*3600),
			want:  []string{"20240418122802262", "20240418122802263"},
		},
		{
			name:  "LOCAL table east of UTC: the local wall clock, on the next day",
			clock: []time.Time{base},
			loc:   time.FixedZone("JST", 9*3600),
			want:  []string{"20240419022802262"},
		},
		{
			name:  "UTC table, clock read in another zone",
			clock: []time.Time{base.In(time.FixedZone("CDT", -5*3600))},
			loc:   time.UTC,
			want:  []string{"20240418172802262"},
		},
		{
			// An earlier writer made UTC instants on a LOCAL table west
			// of UTC: the new local times must still come after them.
			name:  "LOCAL table whose timeline holds later UTC instants",
			clock: []time.Time{base, base.Add(time.Second)},
			loc:   time.FixedZone("CDT", -5*3600),
			after: "20240418172802262",
			want:  []string{"20240418172802263", "20240418172802264"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGenerator(scriptedClock(tt.clock...))
			g.SetLocation(tt.loc)
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

// TestGeneratorDaylightSavingEnd has a LOCAL table's clock set back an hour
// (America/Chicago, 2024-11-03 02:00 CDT becomes 01:00 CST): the moments keep
// going forward but the wall clock repeats an hour, and the instant times,
// which are compared as digits, must still increase.
func TestGeneratorDaylightSavingEnd(t *testing.T) {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	lastCDT := time.Date(2024, 11, 3, 6, 59, 59, 999_000_000, time.UTC) // 01:59:59.999 CDT
	g := NewGenerator(scriptedClock(lastCDT, lastCDT.Add(time.Millisecond), lastCDT.Add(30*time.Minute)))
	g.SetLocation(chicago)
	want := []string{"20241103015959999", "20241103020000000", "20241103020000001"}
	for i, w := range want {
		got, err := g.Next("")
		if err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Fatalf("call %d: Next = %q, want %q", i, got, w)
		}
	}
	// A new generator (another process) keeps to the timeline's digits.
	g2 := NewGenerator(scriptedClock(lastCDT.Add(30 * time.Minute)))
	g2.SetLocation(chicago)
	got, err := g2.Next(want[len(want)-1])
	if err != nil {
		t.Fatal(err)
	}
	if got != "20241103020000002" {
		t.Fatalf("new generator: Next(%q) = %q, want 20241103020000002", want[len(want)-1], got)
	}
}

// TestGeneratorSetLocation changes a generator's zone between calls, as a
// writer does when it reads the table's zone: the new zone applies to the
// next time, which still comes after the ones handed out before.
func TestGeneratorSetLocation(t *testing.T) {
	base := time.Date(2024, 4, 18, 17, 28, 2, 262_000_000, time.UTC)
	g := NewGenerator(scriptedClock(base, base.Add(time.Hour), base.Add(6*time.Hour)))
	steps := []struct {
		loc  *time.Location
		want string
	}{
		{nil, "20240418172802262"},
		{time.FixedZone("CDT", -5*3600), "20240418172802263"}, // 13:28 local is before 17:28
		{time.FixedZone("CDT", -5*3600), "20240418182802262"}, // 18:28 local
		{time.UTC, "20240418232802262"},
	}
	for i, st := range steps {
		g.SetLocation(st.loc)
		got, err := g.Next("")
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Fatalf("step %d (zone %v): Next = %q, want %q", i, st.loc, got, st.want)
		}
	}
}

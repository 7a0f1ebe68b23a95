package trips

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/google/uuid"
)

func TestDeterministicPerSeed(t *testing.T) {
	a, b, c := NewGenerator(1), NewGenerator(1), NewGenerator(2)
	ia, ib, ic := a.Inserts(1000), b.Inserts(1000), c.Inserts(1000)
	if !reflect.DeepEqual(ia, ib) {
		t.Fatal("two generators with seed 1 made different inserts")
	}
	if reflect.DeepEqual(ia, ic) {
		t.Fatal("seeds 1 and 2 made the same inserts")
	}
	if ua, ub := a.Updates(ia, 100), b.Updates(ib, 100); !reflect.DeepEqual(ua, ub) {
		t.Fatal("two generators with seed 1 made different updates")
	}
	if ja, jb := a.Inserts(10), b.Inserts(10); !reflect.DeepEqual(ja, jb) {
		t.Fatal("two generators with seed 1 made different second inserts")
	}
}

var (
	uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	rider  = regexp.MustCompile(`^rider-\d{3}$`)
)

func TestInsertsValid(t *testing.T) {
	g := NewGenerator(7)
	first := g.Inserts(50_000)
	second := g.Inserts(50_000)
	keys := make(map[string]bool, 100_000)
	for i, tr := range slices.Concat(first, second) {
		if !uuidV4.MatchString(tr.UUID) {
			t.Fatalf("trip %d: key %q is not a UUID v4 text", i, tr.UUID)
		}
		if i < 10 {
			u, err := uuid.Parse(tr.UUID)
			if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("trip %d: uuid.Parse(%q) = %v (version %d, variant %v), %v", i, tr.UUID, u, u.Version(), u.Variant(), err)
			}
		}
		if keys[tr.UUID] {
			t.Fatalf("trip %d: duplicate key %s", i, tr.UUID)
		}
		keys[tr.UUID] = true
		if tr.Fare < 0 || tr.Fare >= 100 {
			t.Errorf("trip %d: fare %v out of [0, 100)", i, tr.Fare)
		}
		if !rider.MatchString(tr.Rider) || tr.Driver != "driver-"+tr.Rider[len("rider-"):] {
			t.Errorf("trip %d: rider %q, driver %q", i, tr.Rider, tr.Driver)
		}
		if !slices.Contains(Partitions(), tr.PartitionPath) {
			t.Errorf("trip %d: partition %q", i, tr.PartitionPath)
		}
	}
	// Each batch draws its ts from its own window, later batches later.
	for i, tr := range first {
		if tr.TS < BaseTS || tr.TS >= BaseTS+BatchSpan {
			t.Fatalf("first batch trip %d: ts %d outside the first window", i, tr.TS)
		}
	}
	for i, tr := range second {
		if tr.TS < BaseTS+BatchSpan || tr.TS >= BaseTS+2*BatchSpan {
			t.Fatalf("second batch trip %d: ts %d outside the second window", i, tr.TS)
		}
	}
}

func TestPartitionSpread(t *testing.T) {
	const n = 300_000
	count := map[string]int{}
	for _, tr := range NewGenerator(3).Inserts(n) {
		count[tr.PartitionPath]++
	}
	if len(count) != 3 {
		t.Fatalf("partitions: %v", count)
	}
	for p, c := range count {
		// Expected n/3 = 100,000 with a standard deviation of about 258.
		if c < 98_000 || c > 102_000 {
			t.Errorf("partition %s has %d of %d trips", p, c, n)
		}
	}
}

func TestUpdates(t *testing.T) {
	for _, tc := range []struct{ size, n int }{
		{1000, 10},     // few of many: drawn by rejection
		{1000, 600},    // many: drawn by shuffling
		{1000, 1000},   // all
		{100_000, 100}, // few of very many
	} {
		g := NewGenerator(5)
		existing := g.Inserts(tc.size)
		byKey := make(map[string]Trip, len(existing))
		for _, tr := range existing {
			byKey[tr.UUID] = tr
		}
		updates := g.Updates(existing, tc.n)
		if len(updates) != tc.n {
			t.Fatalf("Updates(%d of %d) gave %d trips", tc.n, tc.size, len(updates))
		}
		seen := map[string]bool{}
		changedFare := 0
		for _, u := range updates {
			old, ok := byKey[u.UUID]
			if !ok {
				t.Fatalf("update of unknown key %s", u.UUID)
			}
			if seen[u.UUID] {
				t.Fatalf("key %s updated twice", u.UUID)
			}
			seen[u.UUID] = true
			if u.TS <= old.TS {
				t.Errorf("key %s: new ts %d is not after old ts %d", u.UUID, u.TS, old.TS)
			}
			if u.PartitionPath != old.PartitionPath {
				t.Errorf("key %s moved from %s to %s", u.UUID, old.PartitionPath, u.PartitionPath)
			}
			if u.Fare != old.Fare {
				changedFare++
			}
		}
		if changedFare < tc.n*99/100 {
			t.Errorf("only %d of %d updates changed the fare", changedFare, tc.n)
		}
	}
}

func TestUpdatesOfUpdates(t *testing.T) {
	// Updates of trips whose ts lies after the new batch's window still move
	// ts forward.
	g := NewGenerator(9)
	existing := g.Inserts(10)
	for i := range existing {
		existing[i].TS = BaseTS + 100*BatchSpan
	}
	for _, u := range g.Updates(existing, 10) {
		if u.TS <= BaseTS+100*BatchSpan {
			t.Fatalf("ts %d not after the old one", u.TS)
		}
	}
}

func TestUpdatesTooMany(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Updates of more trips than exist did not panic")
		}
	}()
	g := NewGenerator(1)
	g.Updates(g.Inserts(3), 4)
}

func TestValues(t *testing.T) {
	tr := Trip{UUID: "k", TS: 5, Rider: "rider-001", Driver: "driver-001", Fare: 1.5, PartitionPath: Chennai}
	want := []any{"k", int64(5), "rider-001", "driver-001", 1.5, Chennai}
	if got := tr.Values(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Values() = %#v, want %#v", got, want)
	}
	if got := len(Columns()); got != len(want) {
		t.Fatalf("%d columns for %d values", got, len(want))
	}
	if got := Keys([]Trip{tr, {UUID: "j"}}); !reflect.DeepEqual(got, []string{"k", "j"}) {
		t.Fatalf("Keys = %v", got)
	}
}

func TestEmpty(t *testing.T) {
	g := NewGenerator(1)
	if got := g.Inserts(0); len(got) != 0 {
		t.Fatalf("Inserts(0) = %v", got)
	}
	if got := g.Updates(nil, 0); len(got) != 0 {
		t.Fatalf("Updates(nil, 0) = %v", got)
	}
}

func BenchmarkInserts(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			g := NewGenerator(1)
			b.ReportAllocs()
			for b.Loop() {
				g.Inserts(n)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "trips/s")
		})
	}
}

func BenchmarkUpdates(b *testing.B) {
	g := NewGenerator(1)
	existing := g.Inserts(1_000_000)
	for _, n := range []int{1000, 100_000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Updates(existing, n)
			}
		})
	}
}

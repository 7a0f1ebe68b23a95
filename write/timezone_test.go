package write

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// The writers' local zone in these tests, injected through Options.Local:
// Spark's fixtures were written in CDT.
var cdt = time.FixedZone("CDT", -5*3600)

// TestInstantTimeZone checks that a write's instant time is the wall clock in
// the table's timeline zone: local time on a LOCAL table (the property
// absent, as Spark 0.14 leaves it, or LOCAL), UTC on a UTC table (as Hoodie
// creates them) whatever the local zone. With UTC instants on a LOCAL table
// west of UTC, a Spark commit made after Hoodie's gets a smaller instant time
// and is hidden behind Hoodie's older file versions.
func TestInstantTimeZone(t *testing.T) {
	now := time.Date(2024, 4, 18, 22, 40, 0, 0, time.UTC) // after the Spark fixture's commits
	tests := []struct {
		name string
		zone config.TimelineTimezone // "" leaves the property out
		want string
	}{
		{"UTC table", config.TimelineUTC, "20240418224000000"},
		{"LOCAL table", config.TimelineLocal, "20240418174000000"},
		{"table without the property", "", "20240418174000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			table := newTripsTable(t, config.MergeEventTime, Settings{})
			cfg, err := config.Load(ctx, table.fsys)
			if err != nil {
				t.Fatal(err)
			}
			cfg.TimelineTimezone = tt.zone
			if err := config.Update(ctx, table.fsys, cfg, now); err != nil {
				t.Fatal(err)
			}
			table.w = zonedWriter(table.fsys, table.dir, now)
			res := table.write(OpInsert, tripsInput(trips.NewGenerator(1).Inserts(5)))
			if res.Instant != tt.want {
				t.Errorf("instant %s, want %s", res.Instant, tt.want)
			}
		})
	}
}

// TestInstantTimeZoneSparkTable writes to a table Spark made (no
// hoodie.table.timeline.timezone, CDT instants): Hoodie's commit must be in
// CDT too, after Spark's last commit 20240418173551906, and before what a
// Spark commit a minute later would get.
func TestInstantTimeZoneSparkTable(t *testing.T) {
	ctx := context.Background()
	dir := fixtures.Unzip(t, "v6_nonpartitioned")
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 4, 18, 22, 40, 0, 0, time.UTC)
	w := zonedWriter(fsys, dir, now)
	nullable := func(k basefile.Kind) *basefile.Type { return basefile.Nullable(basefile.Primitive(k)) }
	in := &Input{Name: "bob", Schema: &basefile.Schema{Name: "in", Fields: []basefile.Field{
		{Name: "id", Type: nullable(basefile.KindInt)},
		{Name: "name", Type: nullable(basefile.KindString)},
		{Name: "longField", Type: nullable(basefile.KindLong)},
	}}, Rows: [][]any{{int32(2), "Bob", int64(9999999999)}}}
	res, err := w.Write(ctx, OpUpsert, in)
	if err != nil {
		t.Fatal(err)
	}
	const want = "20240418174000000"
	if res.Instant != want {
		t.Fatalf("instant %s, want %s (CDT, as Spark writes this table)", res.Instant, want)
	}
	if spark := timeline.FormatInstantTimeIn(now.Add(time.Minute), cdt); spark <= res.Instant {
		t.Errorf("a Spark commit a minute later (%s) would sort before Hoodie's %s", spark, res.Instant)
	}
	tl, err := timeline.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := tl.Last(); last.Time != want || last.State != timeline.StateCompleted {
		t.Errorf("latest instant %v, want %s completed", last, want)
	}
	cfg, err := config.Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TimelineTimezone != "" {
		t.Errorf("the write set %s=%s on Spark's table", config.KeyTimelineTimezone, cfg.TimelineTimezone)
	}
}

// zonedWriter returns a writer whose clock stands at now and whose local
// zone is cdt.
func zonedWriter(fsys storage.FS, dir string, now time.Time) *Writer {
	return NewWriter(fsys, Options{
		Settings: DefaultSettings(),
		IndexDir: filepath.Join(dir, ".hoodie", ".index"),
		TableID:  dir,
		Clock:    func() time.Time { return now },
		Local:    cdt,
	})
}

package hoodie_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

// TestArchive: Table.Archive moves the oldest commits off the active
// timeline; Table.AllInstants lists them with the active ones, marked;
// Table.ArchivedInstants lists them alone; scans as of them still work.
func TestArchive(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemFS()
	tbl, err := hoodie.Create(ctx, "mem:archive", triptable.Spec(), hoodie.WithFS(mem), hoodie.WithIndexDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	settings := write.DefaultSettings()
	settings.Archive.Automatic = false
	g := trips.NewGenerator(3)
	var written []string
	for range 6 {
		res, err := tbl.Write(ctx, write.OpInsert, &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(g.Inserts(5))}, hoodie.WriteOptions{Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, res.Instant)
	}
	settings.Archive = write.ArchiveSettings{MinCommits: 2, MaxCommits: 4}
	res, err := tbl.Archive(ctx, hoodie.ArchiveOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Archived) != 4 || res.File == "" {
		t.Fatalf("archived %v to %q, want the 4 oldest commits", res.Archived, res.File)
	}
	all, err := tbl.AllInstants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var times []string
	for i, in := range all {
		times = append(times, in.Time)
		if in.Archived != (i < 4) {
			t.Errorf("instant %s archived %v", in.Time, in.Archived)
		}
	}
	if !slices.Equal(times, written) {
		t.Errorf("AllInstants %v, want %v", times, written)
	}
	archived, err := tbl.ArchivedInstants(ctx)
	if err != nil || len(archived) != 4 || archived[3].Time != written[3] {
		t.Errorf("ArchivedInstants %v, %v", archived, err)
	}
	active, err := tbl.Instants(ctx)
	if err != nil || len(active) != 2 {
		t.Errorf("Instants %v, %v; want the 2 newest", active, err)
	}
	scan, err := tbl.Scan(ctx, hoodie.ScanOptions{AsOf: written[1]})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range scan.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 10 {
		t.Errorf("as of the second (archived) commit: %d rows, want 10", n)
	}
}

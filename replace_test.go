package hoodie_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// TestReplaceOperationsThroughTheFacade runs an insert overwrite, a
// partition delete and a clustering through the facade: scans give the
// records each leaves, the index finds keys where they now are, and a
// delete of a partition the table does not hold is refused.
func TestReplaceOperationsThroughTheFacade(t *testing.T) {
	ctx := context.Background()
	tbl, err := hoodie.Create(ctx, "mem:replace", triptable.Spec(), hoodie.WithFS(storage.NewMemFS()), hoodie.WithIndexDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	settings := write.DefaultSettings()
	settings.SmallFileLimit = 0 // a file group a write
	opts := hoodie.WriteOptions{Settings: settings}
	in := func(ts []trips.Trip) *write.Input {
		return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
	}
	g := trips.NewGenerator(41)
	first, second := g.Inserts(60), g.Inserts(60)
	for _, batch := range [][]trips.Trip{first, second} {
		if _, err := tbl.Write(ctx, write.OpInsert, in(batch), opts); err != nil {
			t.Fatal(err)
		}
	}
	live := map[string]string{} // key -> partition
	for _, tr := range append(first, second...) {
		live[tr.UUID] = tr.PartitionPath
	}
	check := func(what string) {
		t.Helper()
		var want []string
		for k, p := range live {
			want = append(want, k+"@"+p)
		}
		slices.Sort(want)
		got, _ := scanKeys(t, tbl, hoodie.ScanOptions{})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("after %s: %d records, want %d", what, len(got), len(want))
		}
		if report, err := tbl.VerifyIndex(ctx); err != nil || !report.OK() {
			t.Fatalf("after %s: index %+v, %v", what, report, err)
		}
	}

	parts := trips.Partitions()
	var overwrite []trips.Trip
	for _, tr := range g.Inserts(10) {
		tr.PartitionPath = parts[0]
		overwrite = append(overwrite, tr)
	}
	if _, err := tbl.Write(ctx, write.OpInsertOverwrite, in(overwrite), opts); err != nil {
		t.Fatal(err)
	}
	for k, p := range live {
		if p == parts[0] {
			delete(live, k)
		}
	}
	for _, tr := range overwrite {
		live[tr.UUID] = tr.PartitionPath
	}
	check("insert-overwrite")

	if _, err := tbl.DeletePartitions(ctx, opts, config.EscapePartitionValue(parts[1]), "no/such"); !errors.Is(err, write.ErrRefused) {
		t.Fatalf("delete of a partition the table does not hold: %v, want it refused", err)
	}
	if _, err := tbl.DeletePartitions(ctx, opts, config.EscapePartitionValue(parts[1])); err != nil {
		t.Fatal(err)
	}
	for k, p := range live {
		if p == parts[1] {
			delete(live, k)
		}
	}
	check("delete-partition")

	res, err := tbl.Cluster(ctx, opts)
	if err != nil || res.Instant == "" {
		t.Fatalf("cluster: %+v, %v; want a clustering", res, err)
	}
	check("cluster")
	var key string
	for k := range live {
		key = k
		break
	}
	if got, stats := scanKeys(t, tbl, hoodie.ScanOptions{Where: "uuid = '" + key + "'"}); len(got) != 1 || stats.KeysLocated != 1 {
		t.Errorf("a key after clustering: %v with %d located, want it found through the index", got, stats.KeysLocated)
	}
}

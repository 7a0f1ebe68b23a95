package hoodie_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/write"
)

// TestTableRollback rolls back the table's latest write, a delete, through
// the facade: the deleted record is back, and a lookup by its key finds it
// through the record index, which the rollback brought up to the table.
func TestTableRollback(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, t.TempDir())
	if _, err := tt.t.Rollback(ctx, tt.first, hoodie.ServiceOptions{}); !errors.Is(err, write.ErrRefused) {
		t.Fatalf("rolling back the first of three writes gave %v; want it refused", err)
	}
	res, err := tt.t.Rollback(ctx, tt.last, hoodie.ServiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.RolledBack.Time != tt.last || len(res.Warnings) > 0 {
		t.Fatalf("rollback %+v", res)
	}
	want := []string{tt.deleted.UUID + "@" + tt.deleted.PartitionPath}
	got, stats := scanKeys(t, tt.t, hoodie.ScanOptions{Where: "uuid = '" + tt.deleted.UUID + "'"})
	if !slices.Equal(got, want) || stats.KeysLocated != 1 {
		t.Fatalf("got %v with %d keys located, want %v from the index", got, stats.KeysLocated, want)
	}
	if all, _ := scanKeys(t, tt.t, hoodie.ScanOptions{}); len(all) != len(tt.live)+1 {
		t.Fatalf("the table holds %d records after the rollback, want %d", len(all), len(tt.live)+1)
	}
	if _, err := tt.t.Restore(ctx, tt.first, hoodie.ServiceOptions{}); !errors.Is(err, write.ErrRefused) {
		t.Fatalf("restoring to a write without a savepoint gave %v; want it refused", err)
	}
}

package main

import (
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

func TestTripsToRecords(t *testing.T) {
	ts := trips.NewGenerator(1).Inserts(batchRows + 10)
	recs := tripsToRecords(ts)
	defer releaseAll(recs)
	if len(recs) != 2 || recs[0].NumRows() != batchRows || recs[1].NumRows() != 10 {
		t.Fatalf("got %d batches", len(recs))
	}
	last := recs[1]
	want := ts[len(ts)-1]
	for i, v := range want.Values() {
		if got := last.Column(i).GetOneForMarshal(9); got != v {
			t.Errorf("column %s: got %v, want %v", last.ColumnName(i), got, v)
		}
	}
}

func BenchmarkTripsToRecords(b *testing.B) {
	ts := trips.NewGenerator(1).Inserts(1_000_000)
	for b.Loop() {
		releaseAll(tripsToRecords(ts))
	}
}

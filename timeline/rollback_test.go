package timeline

import (
	"reflect"
	"testing"
)

// roundTrip encodes v, decodes it back with parse, and checks that the two
// are equal.
func roundTrip[T any](t *testing.T, v *T, marshal func() ([]byte, error), parse func([]byte) (*T, error)) {
	t.Helper()
	data, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("got %+v, want %+v", got, v)
	}
}

func TestRollbackAndRestoreAvroRoundTrip(t *testing.T) {
	id, base := "f1-0", "20240101000000000"
	c := Instant{Time: "20240101000000000", Action: ActionReplaceCommit}
	plan := NewRollbackPlan(c, []RollbackRequest{
		{PartitionPath: "p=1", FileID: &id, LatestBaseInstant: &base, FilesToBeDeleted: []string{"file:/t/p=1/f1-0_0-1-1_20240101000000000.parquet"}, LogBlocksToBeDeleted: &map[string]int64{}},
	})
	roundTrip(t, plan, plan.MarshalAvro, ParseRollbackPlan)

	rb := NewRollbackMetadata("20240102000000000", 12, []Instant{c}, map[string][]string{"p=1": {"file:/t/p=1/a.parquet"}, "": {"file:/t/b.parquet"}})
	if rb.TotalFilesDeleted != 2 {
		t.Fatalf("total files deleted %d, want 2", rb.TotalFilesDeleted)
	}
	roundTrip(t, rb, rb.MarshalAvro, ParseRollbackMetadata)

	restore := NewRestorePlan("20231231000000000", []Instant{c})
	if restore.Savepoint() != "20231231000000000" {
		t.Fatalf("restore plan savepoint %q", restore.Savepoint())
	}
	roundTrip(t, restore, restore.MarshalAvro, ParseRestorePlan)

	rs := NewRestoreMetadata("20240103000000000", 40, []Instant{c}, map[string]*RollbackMetadata{c.Time: rb})
	roundTrip(t, rs, rs.MarshalAvro, ParseRestoreMetadata)
}

func TestParseRollbackPlanRefusesJunk(t *testing.T) {
	if _, err := ParseRollbackPlan([]byte("not avro")); err == nil {
		t.Fatal("junk parsed as a rollback plan")
	}
	if _, err := ParseRestorePlan(nil); err == nil {
		t.Fatal("an empty file parsed as a restore plan")
	}
}

package write

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage/config"
)

// sparkNoMetaRow is a row as Hudi 0.15's Spark writer writes it into a table
// with hoodie.populate.meta.fields=false: the five meta columns are there,
// null but the file name.
type sparkNoMetaRow struct {
	CommitTime    *string `parquet:"_hoodie_commit_time,optional"`
	CommitSeqno   *string `parquet:"_hoodie_commit_seqno,optional"`
	RecordKey     *string `parquet:"_hoodie_record_key,optional"`
	PartitionPath *string `parquet:"_hoodie_partition_path,optional"`
	FileName      *string `parquet:"_hoodie_file_name,optional"`
	UUID          *string `parquet:"uuid,optional"`
	TS            *int64  `parquet:"ts,optional"`
	Partition     *string `parquet:"partitionpath,optional"`
}

// TestReadRecordKeysOfNullMetaColumns reads the keys of such a file from
// its record-key columns: its null _hoodie_record_key column gave none, so
// an upsert inserted again the keys it should have updated (found by the
// interop suite).
func TestReadRecordKeysOfNullMetaColumns(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTableWith(t, config.MergeEventTime, Settings{}, false)
	name := "f1-0_0-1-1_20240101000000000.parquet"
	str := func(s string) *string { return &s }
	ts := int64(7)
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[sparkNoMetaRow](&buf)
	rows := []sparkNoMetaRow{
		{FileName: str(name), UUID: str("a"), TS: &ts, Partition: str("p1")},
		{FileName: str(name), UUID: str("b"), TS: &ts, Partition: str("p1")},
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tt.fsys.WriteFile(ctx, "p1/"+name, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	keys, err := readRecordKeys(ctx, tt.fsys, "p1/"+name)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if want := []string{"a", "b"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
}

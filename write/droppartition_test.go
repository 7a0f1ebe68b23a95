package write

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/timeline"
)

// TestDeleteWhenCommitSchemaDropsPartitionColumn checks a table with
// hoodie.datasource.write.drop.partition.columns=true whose latest commit
// schema lacks the partition column, as Spark commits it: the table schema
// has the column back, as Spark reads it, and a delete removes the records.
func TestDeleteWhenCommitSchemaDropsPartitionColumn(t *testing.T) {
	ctx := context.Background()
	tt := newTripsTable(t, config.MergeEventTime, Settings{})
	editConfig(t, tt, func(cfg *config.Table) { cfg.DropPartitionColumns = true })
	cfg, err := config.Load(ctx, tt.fsys)
	if err != nil {
		t.Fatal(err)
	}
	ins := trips.NewGenerator(5).Inserts(10)
	res := tt.write(OpInsert, tripsInput(ins))
	dropFromCommitSchema(t, filepath.Join(tt.dir, storage.MetaFolder, res.Instant+".commit"), trips.ColPartitionPath)
	tl, _ := tt.latest()
	schema, err := read.TableSchema(ctx, cfg, tl)
	if err != nil {
		t.Fatal(err)
	}
	if i := schema.FieldIndex(trips.ColPartitionPath); i != len(schema.Fields)-1 || !schema.Fields[i].Type.Equal(basefile.Nullable(basefile.Primitive(basefile.KindString))) {
		t.Errorf("table schema %v: want %s last, a nullable string", schema.Fields, trips.ColPartitionPath)
	}
	tt.write(OpDelete, tripsInput(ins[:3]))
	snap := snapshot(t, tt.fsys, "")
	if len(snap) != 7 {
		t.Fatalf("%d records after deleting 3 of 10", len(snap))
	}
	for _, tr := range ins[:3] {
		if _, ok := snap[tr.UUID]; ok {
			t.Errorf("deleted record %s is still there", tr.UUID)
		}
	}
}

// dropFromCommitSchema removes column from the schema a commit file stores.
func dropFromCommitSchema(t *testing.T, commitFile, column string) {
	t.Helper()
	data, err := os.ReadFile(commitFile)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	extra := meta["extraMetadata"].(map[string]any)
	var schema map[string]any
	if err := json.Unmarshal([]byte(extra[timeline.SchemaKey].(string)), &schema); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for _, f := range schema["fields"].([]any) {
		if f.(map[string]any)["name"] != column {
			kept = append(kept, f)
		}
	}
	schema["fields"] = kept
	s, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	extra[timeline.SchemaKey] = string(s)
	if data, err = json.Marshal(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(commitFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

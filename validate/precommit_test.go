package validate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/write"
)

func tripsInput(ts []trips.Trip) *write.Input {
	return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

func TestValidatorsDecideTheCommit(t *testing.T) {
	ctx := context.Background()
	cfg, err := storage.NewTableConfig("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, storage.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	table, err := hoodie.Create(ctx, t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	gen := trips.NewGenerator(3)
	initial := gen.Inserts(200)
	if _, err := table.Write(ctx, write.OpInsert, tripsInput(initial), write.DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		props     map[string]string
		batch     []trips.Trip
		wantError string // "" when the write must commit
	}{
		{"single result passes", map[string]string{KeyValidators: SingleResultValidator,
			KeySingleValueQueries: "select count(*) from <TABLE_NAME> where fare < 0#0"}, gen.Inserts(5), ""},
		{"single result fails", map[string]string{KeyValidators: SingleResultValidator,
			KeySingleValueQueries: "select count(*) from <TABLE_NAME> where fare >= 0#0"}, gen.Inserts(5), "expected 0"},
		{"equality passes", map[string]string{KeyValidators: EqualityValidator,
			KeyEqualityQueries: "select count(*) from <TABLE_NAME> where rider is null"}, gen.Updates(initial, 5), ""},
		{"inequality fails on updates only", map[string]string{KeyValidators: InequalityValidator,
			KeyInequalityQueries: "select count(*) from <TABLE_NAME>"}, gen.Updates(initial, 5), "different results"},
		{"two validators, second fails", map[string]string{KeyValidators: SingleResultValidator + "," + InequalityValidator,
			KeySingleValueQueries: "select count(*) from <TABLE_NAME> where fare < 0#0",
			KeyInequalityQueries:  "select count(*) from <TABLE_NAME>"}, gen.Updates(initial, 3), "before and after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			props := storage.NewProperties()
			for k, v := range tt.props {
				props.Set(k, v)
			}
			settings, err := write.ParseSettings(props)
			if err != nil {
				t.Fatal(err)
			}
			hook, err := FromSettings(settings.Props)
			if err != nil || hook == nil {
				t.Fatalf("hook %v, %v", hook, err)
			}
			before, _ := table.Timeline(ctx)
			_, err = table.Writer(write.Options{Settings: settings, Hook: hook}).Write(ctx, write.OpUpsert, tripsInput(tt.batch))
			after, _ := table.Timeline(ctx)
			if tt.wantError == "" {
				if err != nil {
					t.Fatal(err)
				}
				if after.Len() != before.Len()+1 {
					t.Fatal("the validated write did not commit")
				}
				return
			}
			if !errors.Is(err, write.ErrRefused) || !strings.Contains(err.Error(), tt.wantError) {
				t.Fatalf("got %v, want a refusal with %q", err, tt.wantError)
			}
			if after.Len() != before.Len() {
				t.Fatalf("a refused write left instants: %v", after.Instants())
			}
		})
	}
}

func TestFromSettingsErrors(t *testing.T) {
	tests := []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{KeyValidators: "com.example.MyValidator"}, "unknown validator"},
		{map[string]string{KeyValidators: EqualityValidator}, "holds no query"},
		{map[string]string{KeyValidators: SingleResultValidator, KeySingleValueQueries: "select 1"}, "no #expected"},
	}
	for _, tt := range tests {
		props := storage.NewProperties()
		for k, v := range tt.props {
			props.Set(k, v)
		}
		if _, err := FromSettings(props); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want %q", tt.props, err, tt.want)
		}
	}
	if h, err := FromSettings(storage.NewProperties()); h != nil || err != nil {
		t.Errorf("no validators: %v, %v", h, err)
	}
}

// TestValidatorsSeeTheMetaColumnsOfATableWithoutMetaFields checks that the
// validators' views have the meta columns that read computes for a table
// without meta fields: the new files' commit time is the pending instant.
func TestValidatorsSeeTheMetaColumnsOfATableWithoutMetaFields(t *testing.T) {
	ctx := context.Background()
	cfg, err := storage.NewTableConfig("trips", []string{"uuid"}, "ts", []string{"partitionpath"}, false, storage.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PopulateMetaFields = false
	table, err := hoodie.Create(ctx, t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	gen := trips.NewGenerator(5)
	if _, err := table.Write(ctx, write.OpInsert, tripsInput(gen.Inserts(50)), write.DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	batch := gen.Inserts(5)
	props := storage.NewProperties()
	props.Set(KeyValidators, SingleResultValidator+","+InequalityValidator)
	// Every record has a commit time, partition path and file name, and no
	// record key or sequence number; the newest commit time changes.
	props.Set(KeySingleValueQueries, "select count(*) from <TABLE_NAME> where _hoodie_commit_time is null "+
		"or _hoodie_partition_path is null or _hoodie_file_name not like '%.parquet' "+
		"or _hoodie_record_key is not null or _hoodie_commit_seqno is not null#0")
	props.Set(KeyInequalityQueries, "select max(_hoodie_commit_time) from <TABLE_NAME>")
	settings, err := write.ParseSettings(props)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := FromSettings(settings.Props)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Writer(write.Options{Settings: settings, Hook: hook}).Write(ctx, write.OpInsert, tripsInput(batch)); err != nil {
		t.Fatal(err)
	}
}

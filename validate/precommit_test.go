package validate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/internal/triptable"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

func tripsInput(ts []trips.Trip) *write.Input {
	return &write.Input{Name: "trips", Schema: tripbench.Schema(), Rows: tripbench.Rows(ts)}
}

// newTripsTable creates a trips table at root holding n trips of a
// generator of seed, and returns it, the generator and the trips.
func newTripsTable(t *testing.T, root string, seed int64, n int) (*hoodie.Table, *trips.Generator, []trips.Trip) {
	t.Helper()
	ctx := context.Background()
	table, err := hoodie.Create(ctx, root, triptable.Spec())
	if err != nil {
		t.Fatal(err)
	}
	gen := trips.NewGenerator(seed)
	initial := gen.Inserts(n)
	if _, err := table.Write(ctx, write.OpInsert, tripsInput(initial), hoodie.WriteOptions{Settings: write.DefaultSettings()}); err != nil {
		t.Fatal(err)
	}
	return table, gen, initial
}

// validatedUpsert upserts batch into table with the validators that the
// settings props name.
func validatedUpsert(t *testing.T, table *hoodie.Table, props map[string]string, batch []trips.Trip) error {
	t.Helper()
	p := config.NewProperties()
	for k, v := range props {
		p.Set(k, v)
	}
	settings, err := write.ParseSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := FromSettings(settings.Props)
	if err != nil || hook == nil {
		t.Fatalf("hook %v, %v", hook, err)
	}
	_, err = table.Write(context.Background(), write.OpUpsert, tripsInput(batch), hoodie.WriteOptions{Settings: settings, Hook: hook})
	return err
}

func TestValidatorsDecideTheCommit(t *testing.T) {
	ctx := context.Background()
	table, gen, initial := newTripsTable(t, t.TempDir(), 3, 200)
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
			before, _ := table.Instants(ctx)
			err := validatedUpsert(t, table, tt.props, tt.batch)
			after, _ := table.Instants(ctx)
			if tt.wantError == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(after) != len(before)+1 {
					t.Fatal("the validated write did not commit")
				}
				return
			}
			if !errors.Is(err, write.ErrRefused) || !strings.Contains(err.Error(), tt.wantError) {
				t.Fatalf("got %v, want a refusal with %q", err, tt.wantError)
			}
			if len(after) != len(before) {
				t.Fatalf("a refused write left instants: %v", after)
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
		props := config.NewProperties()
		for k, v := range tt.props {
			props.Set(k, v)
		}
		if _, err := FromSettings(props); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want %q", tt.props, err, tt.want)
		}
	}
	if h, err := FromSettings(config.NewProperties()); h != nil || err != nil {
		t.Errorf("no validators: %v, %v", h, err)
	}
}

// TestValidatorsSeeTheMetaColumnsOfATableWithoutMetaFields checks that the
// validators' views have the meta columns that read computes for a table
// without meta fields: the new files' commit time is the pending instant.
func TestValidatorsSeeTheMetaColumnsOfATableWithoutMetaFields(t *testing.T) {
	ctx := context.Background()
	spec := triptable.Spec()
	spec.NoMetaFields = true
	table, err := hoodie.Create(ctx, t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	gen := trips.NewGenerator(5)
	if _, err := table.Write(ctx, write.OpInsert, tripsInput(gen.Inserts(50)), hoodie.WriteOptions{Settings: write.DefaultSettings()}); err != nil {
		t.Fatal(err)
	}
	batch := gen.Inserts(5)
	props := config.NewProperties()
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
	if _, err := table.Write(ctx, write.OpInsert, tripsInput(batch), hoodie.WriteOptions{Settings: settings, Hook: hook}); err != nil {
		t.Fatal(err)
	}
}

// tableFiles returns the contents of every file under root, by path, but
// those of the record index, a cache that Pebble rewrites as it opens, and
// the lock file, which names its last holder.
func tableFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".index":
			return filepath.SkipDir
		case d.IsDir() || d.Name() == ".lock":
			return nil
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValidatorsRunLockedDown checks that a validator query from the
// write's settings reads the table's files only and writes nothing: the
// write is refused, nothing is committed and every file of the table is as
// it was.
func TestValidatorsRunLockedDown(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "trips")
	table, gen, initial := newTripsTable(t, root, 7, 50)
	secret := filepath.Join(filepath.Dir(root), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cr3t"), 0o600); err != nil {
		t.Fatal(err)
	}
	var baseFile string
	for path := range tableFiles(t, root) {
		if strings.HasSuffix(path, ".parquet") {
			baseFile = path
		}
	}
	q := sqlengine.QuoteString
	props := filepath.Join(root, ".hoodie", "hoodie.properties")
	attacks := []struct{ name, key, query string }{
		{"COPY TO hoodie.properties", KeySingleValueQueries, "copy (select 'broken' as x) to " + q(props) + " (format csv)#1"},
		{"COPY TO a base file", KeySingleValueQueries, "copy <TABLE_NAME> to " + q(baseFile) + " (format parquet, use_tmp_file false)#1"},
		{"COPY TO a new file", KeyEqualityQueries, "copy <TABLE_NAME> to " + q(filepath.Join(root, "dump.csv"))},
		{"read a system file", KeySingleValueQueries, "select count(*) from read_text('/etc/passwd')#1"},
		{"read a file beside the table", KeyInequalityQueries, "select content from read_text(" + q(secret) + ")"},
		{"ATTACH", KeyInequalityQueries, "attach " + q(filepath.Join(root, "x.duckdb")) + " as d"},
		{"INSTALL", KeyInequalityQueries, "install httpfs"},
		{"SET", KeyEqualityQueries, "set enable_external_access = true"},
		{"logging", KeySingleValueQueries, "select * from enable_logging(storage => 'file', storage_path => " + q(root) + ")#1"},
	}
	validator := map[string]string{KeySingleValueQueries: SingleResultValidator, KeyEqualityQueries: EqualityValidator, KeyInequalityQueries: InequalityValidator}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			before := tableFiles(t, root)
			instants, _ := table.Instants(ctx)
			err := validatedUpsert(t, table, map[string]string{KeyValidators: validator[a.key], a.key: a.query}, gen.Updates(initial, 3))
			if !errors.Is(err, write.ErrRefused) || !errors.Is(err, sqlengine.ErrLockedDown) {
				t.Fatalf("got %v, want the write refused, the query locked down", err)
			}
			if after, _ := table.Instants(ctx); len(after) != len(instants) {
				t.Errorf("a refused write left instants: %v", after)
			}
			after := tableFiles(t, root)
			for path, b := range before {
				if after[path] != b {
					t.Errorf("%s changed", path)
				}
			}
			for path := range after {
				if _, ok := before[path]; !ok {
					t.Errorf("%s was written", path)
				}
			}
		})
	}
}

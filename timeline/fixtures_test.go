package timeline

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
)

// fixtureFile is one file group a fixture commit wrote.
type fixtureFile struct {
	partition, fileID, path, prevCommit string
	numWrites, numInserts, numUpdates   int64
}

// fixtureCommit is what the fixture README and the commit files say about a
// Spark commit.
type fixtureCommit struct {
	time  string
	files []fixtureFile
}

var fixtureTimelines = map[string][]fixtureCommit{
	"v6_empty": nil,
	"v6_nonpartitioned": {
		{"20240418173550988", []fixtureFile{
			{"", "a079bdb3-731c-4894-b855-abfcd6921007-0", "a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet", NullCommit, 3, 3, 0},
		}},
		{"20240418173551906", []fixtureFile{
			{"", "a079bdb3-731c-4894-b855-abfcd6921007-0", "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet", "20240418173550988", 4, 1, 1},
		}},
	},
	"v6_simplekeygen_nonhivestyle": {
		{"20240418172802262", []fixtureFile{
			{"10", "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0", "10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_1-98-142_20240418172802262.parquet", NullCommit, 2, 2, 0},
			{"20", "76e0556b-390d-4249-b7ad-9059e2bc2cbd-0", "20/76e0556b-390d-4249-b7ad-9059e2bc2cbd-0_0-98-141_20240418172802262.parquet", NullCommit, 1, 1, 0},
		}},
		{"20240418172804498", []fixtureFile{
			{"10", "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0", "10/97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet", "20240418172802262", 2, 0, 1},
			{"30", "6db57019-98ee-480e-8eb1-fb3de48e1c24-0", "30/6db57019-98ee-480e-8eb1-fb3de48e1c24-0_1-119-167_20240418172804498.parquet", NullCommit, 1, 1, 0},
		}},
	},
	"v6_complexkeygen_hivestyle": {
		{"20240418173213674", []fixtureFile{
			{"byteField=10/shortField=300", "a22e8257-e249-45e9-ba46-115bc85adcba-0", "byteField=10/shortField=300/a22e8257-e249-45e9-ba46-115bc85adcba-0_1-140-199_20240418173213674.parquet", NullCommit, 2, 2, 0},
			{"byteField=20/shortField=100", "bb7c3a45-387f-490d-aab2-981c3f1a8ada-0", "byteField=20/shortField=100/bb7c3a45-387f-490d-aab2-981c3f1a8ada-0_0-140-198_20240418173213674.parquet", NullCommit, 1, 1, 0},
		}},
		{"20240418173235694", []fixtureFile{
			{"byteField=10/shortField=300", "a22e8257-e249-45e9-ba46-115bc85adcba-0", "byteField=10/shortField=300/a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet", "20240418173213674", 2, 0, 1},
			{"byteField=30/shortField=100", "4668e35e-bff8-4be9-9ff2-e7fb17ecb1a7-0", "byteField=30/shortField=100/4668e35e-bff8-4be9-9ff2-e7fb17ecb1a7-0_1-161-224_20240418173235694.parquet", NullCommit, 1, 1, 0},
		}},
	},
}

// loadFixture unzips a fixture table and loads its timeline.
func loadFixture(t *testing.T, table string) (storage.FS, *Timeline) {
	t.Helper()
	fsys, err := storage.NewLocalFS(fixtures.Unzip(t, table))
	if err != nil {
		t.Fatal(err)
	}
	tl, err := Load(context.Background(), fsys)
	if err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	return fsys, tl
}

func TestFixtureTimelines(t *testing.T) {
	if len(fixtureTimelines) != len(fixtures.Tables) {
		t.Fatalf("the test knows %d fixture tables, the fixtures have %d", len(fixtureTimelines), len(fixtures.Tables))
	}
	ctx := context.Background()
	for _, table := range fixtures.Tables {
		t.Run(table, func(t *testing.T) {
			want, known := fixtureTimelines[table]
			if !known {
				t.Fatalf("no expectations for fixture %s", table)
			}
			_, tl := loadFixture(t, table)
			var wantInstants []Instant
			for _, c := range want {
				wantInstants = append(wantInstants, Instant{Time: c.time, Action: ActionCommit, State: StateCompleted})
			}
			if got := tl.Instants(); !reflect.DeepEqual(got, wantInstants) {
				t.Fatalf("instants = %v, want %v", got, wantInstants)
			}
			if tl.Pending().Len() != 0 || tl.CompletedCommits().Len() != len(want) {
				t.Errorf("pending %d, completed commits %d; want 0 and %d", tl.Pending().Len(), tl.CompletedCommits().Len(), len(want))
			}
			for i, c := range want {
				m, err := tl.ReadCommitMetadata(ctx, wantInstants[i])
				if err != nil {
					t.Fatal(err)
				}
				if m.OperationType != OperationUpsert || m.Compacted {
					t.Errorf("%s: operation %q compacted %v, want UPSERT and false", c.time, m.OperationType, m.Compacted)
				}
				if !strings.Contains(m.Schema(), `"name":"structField"`) {
					t.Errorf("%s: schema %.80q... lacks structField", c.time, m.Schema())
				}
				var got []fixtureFile
				for _, ws := range m.WriteStats() {
					if ws.PartitionPath != ws.Path[:max(0, strings.LastIndexByte(ws.Path, '/'))] {
						t.Errorf("%s: partitionPath %q does not hold path %q", c.time, ws.PartitionPath, ws.Path)
					}
					got = append(got, fixtureFile{ws.PartitionPath, ws.FileID, ws.Path, ws.PrevCommit, ws.NumWrites, ws.NumInserts, ws.NumUpdateWrites})
				}
				if !reflect.DeepEqual(got, c.files) {
					t.Errorf("%s: write stats\n got %+v\nwant %+v", c.time, got, c.files)
				}
			}
		})
	}
}

// TestFixtureMetadataRoundTrip parses every commit and inflight file of the
// fixtures, marshals it again and checks it comes back byte for byte, and
// parses to the same metadata.
func TestFixtureMetadataRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, table := range fixtures.Tables {
		t.Run(table, func(t *testing.T) {
			fsys, tl := loadFixture(t, table)
			for _, done := range tl.Instants() {
				for _, in := range []Instant{done, {Time: done.Time, Action: done.Action, State: StateInflight}} {
					p, err := in.Path()
					if err != nil {
						t.Fatal(err)
					}
					raw, err := fsys.ReadFile(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					m, err := tl.ReadCommitMetadata(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					out, err := m.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(out, raw) {
						t.Errorf("%s: marshalled metadata differs from Spark's\n got %s\nwant %s", p, out, raw)
					}
					again, err := ParseCommitMetadata(out)
					if err != nil {
						t.Fatalf("%s: parse marshalled: %v", p, err)
					}
					if !reflect.DeepEqual(again, m) {
						t.Errorf("%s: metadata changed in a round trip\n got %+v\nwant %+v", p, again, m)
					}
				}
			}
		})
	}
}

// TestFixtureWorkloadProfiles rebuilds each fixture inflight file with
// NewWorkloadProfile from its counts and checks the bytes match Spark's.
func TestFixtureWorkloadProfiles(t *testing.T) {
	ctx := context.Background()
	for _, table := range fixtures.Tables {
		t.Run(table, func(t *testing.T) {
			_, tl := loadFixture(t, table)
			for _, done := range tl.Instants() {
				in := Instant{Time: done.Time, Action: ActionCommit, State: StateInflight}
				spark, err := tl.ReadDetails(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				profile, err := tl.ReadCommitMetadata(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				inserts := map[string]int64{}
				groups := map[string][]FileGroupWork{}
				for p, stats := range profile.PartitionToWriteStats {
					for _, ws := range stats {
						if ws.FileID == "" {
							inserts[p] += ws.NumInserts
							continue
						}
						groups[p] = append(groups[p], FileGroupWork{ws.FileID, ws.PrevCommit, ws.NumUpdateWrites, ws.NumInserts})
					}
				}
				out, err := NewWorkloadProfile(profile.OperationType, inserts, groups).MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, spark) {
					t.Errorf("%s: workload profile differs from Spark's\n got %s\nwant %s", in, out, spark)
				}
			}
		})
	}
}

// TestFixtureSimpleKeyGenProfile checks the profile of the second commit of
// v6_simplekeygen_nonhivestyle, built from its known counts, against Spark's
// inflight file.
func TestFixtureSimpleKeyGenProfile(t *testing.T) {
	_, tl := loadFixture(t, "v6_simplekeygen_nonhivestyle")
	spark, err := tl.ReadDetails(context.Background(), Instant{Time: "20240418172804498", Action: ActionCommit, State: StateInflight})
	if err != nil {
		t.Fatal(err)
	}
	profile := NewWorkloadProfile(OperationUpsert,
		map[string]int64{"30": 1},
		map[string][]FileGroupWork{"10": {{FileID: "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0", PrevCommit: "20240418172802262", Updates: 1}}})
	out, err := profile.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, spark) {
		t.Errorf("workload profile differs from Spark's\n got %s\nwant %s", out, spark)
	}
}

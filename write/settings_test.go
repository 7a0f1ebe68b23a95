package write

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name      string
		props     map[string]string
		check     func(Settings) bool
		wantError string // "" when the settings parse
	}{
		{"defaults", nil, func(s Settings) bool {
			return s.StringEncoding == basefile.DefaultStringEncoding && s.Compression == basefile.DefaultCompression && s.MaxFileSize == 120<<20 &&
				s.SortsBulkInsert() && !s.LossyWidening
		}, ""},
		{"plain strings", map[string]string{KeyStringEncoding: " plain "}, func(s Settings) bool { return s.StringEncoding == "PLAIN" }, ""},
		{"sizes and codec", map[string]string{KeyMaxFileSize: "2097152", KeySmallFileLimit: "0", KeyPageSize: "4096", KeyCompressionCodec: "GZIP"},
			func(s Settings) bool {
				return s.MaxFileSize == 2<<20 && s.SmallFileLimit == 0 && s.PageSize == 4096 && s.Compression == "gzip"
			}, ""},
		{"lock wait", map[string]string{KeyLockWaitTime: "1500"}, func(s Settings) bool { return s.LockTimeout == 1500*time.Millisecond }, ""},
		{"no lock wait by default", nil, func(s Settings) bool { return s.LockTimeout == 0 }, ""},
		{"unsorted bulk inserts", map[string]string{KeyBulkInsertSortMode: "none"}, func(s Settings) bool {
			return s.BulkInsertSortMode == "NONE" && !s.SortsBulkInsert()
		}, ""},
		{"partition sort", map[string]string{KeyBulkInsertSortMode: "PARTITION_SORT"}, func(s Settings) bool { return s.SortsBulkInsert() }, ""},
		{"drop duplicates", map[string]string{KeyDropDuplicates: "true"}, func(s Settings) bool { return s.DropDuplicates }, ""},
		{"lossy widening", map[string]string{KeyLossyWidening: "true"}, func(s Settings) bool { return s.LossyWidening }, ""},
		{"bad lossy widening flag", map[string]string{KeyLossyWidening: "yes"}, nil, KeyLossyWidening + `="yes"`},
		{"no dictionaries", map[string]string{KeyDictionaryEnabled: "false"}, func(s Settings) bool {
			return s.NoDictionary && s.baseFileOptions().NoDictionary
		}, ""},
		{"dictionaries", map[string]string{KeyDictionaryEnabled: "TRUE"}, func(s Settings) bool { return !s.NoDictionary }, ""},
		{"heartbeat timeout", map[string]string{KeyHeartbeatInterval: "1000", KeyHeartbeatMisses: "5"}, func(s Settings) bool {
			return s.HeartbeatTimeout == 5*time.Second
		}, ""},
		{"default heartbeat timeout", map[string]string{KeyHeartbeatMisses: "3"}, func(s Settings) bool {
			return s.HeartbeatTimeout == 3*time.Minute
		}, ""},
		{"bad heartbeat interval", map[string]string{KeyHeartbeatInterval: "soon"}, nil, KeyHeartbeatInterval},
		{"other keys are kept", map[string]string{"spark.serializer": "x", KeyParallelism: "3"}, func(s Settings) bool {
			v, ok := s.Props.Get("spark.serializer")
			return ok && v == "x" && s.Parallelism == 3
		}, ""},
		{"unknown keys", map[string]string{"hoodie.some.future.key": "x"}, nil, "hoodie.some.future.key is not a setting Hoodie knows; it refuses"},
		{"typo", map[string]string{"hoodie.parquet.max.filesize": "1"}, nil, "hoodie.parquet.max.filesize is not a setting Hoodie knows (did you mean hoodie.parquet.max.file.size?)"},
		{"bad encoding", map[string]string{KeyStringEncoding: "RLE"}, nil, KeyStringEncoding + `="RLE"`},
		{"bad sort mode", map[string]string{KeyBulkInsertSortMode: "RANDOM"}, nil, KeyBulkInsertSortMode + `="RANDOM"`},
		{"bad size", map[string]string{KeyMaxFileSize: "big"}, nil, KeyMaxFileSize + `="big"`},
		{"zero page size", map[string]string{KeyPageSize: "0"}, nil, KeyPageSize},
		{"huge page size", map[string]string{KeyPageSize: "4294967296"}, nil, KeyPageSize + `="4294967296": want a whole number of bytes from 1024 to 1073741824`},
		{"tiny file size", map[string]string{KeyMaxFileSize: "1"}, nil, KeyMaxFileSize + `="1": want a whole number of bytes from 1048576 to 1099511627776`},
		{"negative size", map[string]string{KeySmallFileLimit: "-1"}, nil, KeySmallFileLimit + `="-1": want a whole number of bytes from 0 to`},
		{"small over max", map[string]string{KeyMaxFileSize: "2097152", KeySmallFileLimit: "4194304"}, nil, KeySmallFileLimit + "=4194304 is over " + KeyMaxFileSize + "=2097152"},
		{"page over block", map[string]string{KeyBlockSize: "65536", KeyPageSize: "131072"}, nil, KeyPageSize + "=131072 is over " + KeyBlockSize + "=65536"},
		{"default small limit under a small max", map[string]string{KeyMaxFileSize: "2097152"}, func(s Settings) bool {
			return s.MaxFileSize == 2<<20 && s.SmallFileLimit == 2<<20
		}, ""},
		{"default page under a small block", map[string]string{KeyBlockSize: "65536"}, func(s Settings) bool {
			return s.BlockSize == 64<<10 && s.PageSize == 64<<10
		}, ""},
		{"zero lock wait", map[string]string{KeyLockWaitTime: "0"}, nil, KeyLockWaitTime + `="0": want a whole number of milliseconds from 1`},
		{"huge heartbeat", map[string]string{KeyHeartbeatInterval: "99999999999"}, nil, KeyHeartbeatInterval},
		{"bad codec", map[string]string{KeyCompressionCodec: "lz4"}, nil, KeyCompressionCodec + `="lz4": want zstd, snappy, gzip, uncompressed`},
		{"bad flag", map[string]string{KeyDropDuplicates: "maybe"}, nil, KeyDropDuplicates},
		{"bad dictionary flag", map[string]string{KeyDictionaryEnabled: "sometimes"}, nil, KeyDictionaryEnabled + `="sometimes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var props *config.Properties
			if tt.props != nil {
				props = config.NewProperties()
				for k, v := range tt.props {
					props.Set(k, v)
				}
			}
			s, err := ParseSettings(props)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one naming %s", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(s) {
				t.Errorf("settings %+v", s)
			}
		})
	}
}

// TestSortsBulkInsert checks which sort modes sort, whatever their case,
// when a Go caller sets them directly.
func TestSortsBulkInsert(t *testing.T) {
	for mode, want := range map[string]bool{
		"": true, "GLOBAL_SORT": true, "partition_sort": true, "PARTITION_PATH_REPARTITION_AND_SORT": true,
		"NONE": false, "none": false, " None ": false, "PARTITION_PATH_REPARTITION": false,
	} {
		s := DefaultSettings()
		s.BulkInsertSortMode = mode
		if got := s.SortsBulkInsert(); got != want {
			t.Errorf("mode %q: sorts %v, want %v", mode, got, want)
		}
	}
}

// TestWriteStringEncoding checks that the string encoding setting reaches
// the files a write makes.
func TestWriteStringEncoding(t *testing.T) {
	for _, encoding := range []string{"PLAIN", "DELTA_LENGTH_BYTE_ARRAY"} {
		t.Run(encoding, func(t *testing.T) {
			settings := DefaultSettings()
			settings.StringEncoding = encoding
			tt := newTripsTable(t, config.MergeEventTime, settings)
			tt.write(OpBulkInsert, tripsInput(trips.NewGenerator(1).Inserts(100)))
			_, view := tt.latest()
			slices := view.LatestSlices()
			if len(slices) == 0 {
				t.Fatal("no base files")
			}
			for _, s := range slices {
				bf, err := basefile.Open(t.Context(), tt.fsys, s.Path)
				if err != nil {
					t.Fatal(err)
				}
				pf := bf.Parquet()
				uuid := pf.Root().Column(trips.ColUUID).Index()
				got := fmt.Sprint(pf.Metadata().RowGroups[0].Columns[uuid].MetaData.Encoding)
				bf.Close()
				if !strings.Contains(got, encoding) {
					t.Errorf("%s: uuid column has %s, want %s", s.Path, got, encoding)
				}
			}
		})
	}
}

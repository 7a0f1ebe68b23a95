package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/fixtures"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
)

func TestPartitionDepth(t *testing.T) {
	for path, want := range map[string]int{"": 0, "10": 1, "byteField=10/shortField=300": 2, "a/b/c/": 3} {
		if got := config.PartitionDepth(path); got != want {
			t.Errorf("PartitionDepth(%q) = %d, want %d", path, got, want)
		}
	}
}

func TestEnsurePartitionMetadata(t *testing.T) {
	ctx := context.Background()
	fsys := storage.NewMemFS()
	for _, part := range []string{"", "2024/01/01"} {
		if err := config.EnsurePartitionMetadata(ctx, fsys, part, "20240101000000000", testNow); err != nil {
			t.Fatal(err)
		}
		// A later writer keeps the first instant.
		if err := config.EnsurePartitionMetadata(ctx, fsys, part, "20250101000000000", testNow); err != nil {
			t.Fatal(err)
		}
		m, err := config.ReadPartitionMetadata(ctx, fsys, part)
		if err != nil {
			t.Fatal(err)
		}
		if m.CommitTime != "20240101000000000" || m.Depth != config.PartitionDepth(part) {
			t.Errorf("partition %q: %+v", part, m)
		}
	}
}

func TestParsePartitionMetadataErrors(t *testing.T) {
	for in, want := range map[string]string{
		"partitionDepth=1":                   "commitTime is missing",
		"commitTime=1":                       "partitionDepth is missing",
		"commitTime=1\npartitionDepth=-1":    `"-1" is not a folder depth`,
		"commitTime=1\npartitionDepth=\\u1x": "malformed",
	} {
		if _, err := config.ParsePartitionMetadata([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestFixturePartitionMetadata(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		table, partition, commit string
	}{
		{"v6_nonpartitioned", "", "20240418173550988"},
		{"v6_simplekeygen_nonhivestyle", "10", "20240418172802262"},
		{"v6_complexkeygen_hivestyle", "byteField=10/shortField=300", "20240418173213674"},
	}
	for _, tt := range tests {
		fsys, err := storage.NewLocalFS(fixtures.Unzip(t, tt.table))
		if err != nil {
			t.Fatal(err)
		}
		m, err := config.ReadPartitionMetadata(ctx, fsys, tt.partition)
		if err != nil {
			t.Fatal(err)
		}
		if m.CommitTime != tt.commit || m.Depth != config.PartitionDepth(tt.partition) {
			t.Errorf("%s/%s: %+v", tt.table, tt.partition, m)
		}
	}
}

package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

// PartitionMetadataFile is the name of the file Hudi keeps in every partition
// folder (and at the base path of a non-partitioned table).
const PartitionMetadataFile = ".hoodie_partition_metadata"

// partitionMetadataFiles are the names a partition metadata file may have:
// Hudi writes it in the properties format, or, with
// hoodie.partition.metafile.use.base.format, as a Parquet or ORC file.
var partitionMetadataFiles = []string{PartitionMetadataFile, PartitionMetadataFile + ".parquet", PartitionMetadataFile + ".orc"}

// IsPartitionMetadataFile reports whether a file name is one a partition
// metadata file has, in any of Hudi's formats.
func IsPartitionMetadataFile(name string) bool {
	for _, n := range partitionMetadataFiles {
		if name == n {
			return true
		}
	}
	return false
}

// FindPartitionMetadata returns the path of a partition's metadata file, in
// whichever of Hudi's formats it has, and false when it has none.
func FindPartitionMetadata(ctx context.Context, fsys storage.FS, partitionPath string) (string, bool, error) {
	for _, n := range partitionMetadataFiles {
		name := n
		if partitionPath != "" {
			name = path.Join(partitionPath, n)
		}
		ok, err := storage.Exists(ctx, fsys, name)
		if err != nil {
			return "", false, fmt.Errorf("check partition metadata %s: %w", name, err)
		}
		if ok {
			return name, true, nil
		}
	}
	return "", false, nil
}

// Keys of the partition metadata file.
const (
	keyPartitionCommitTime = "commitTime"
	keyPartitionDepth      = "partitionDepth"
)

// PartitionMetadata is the content of .hoodie_partition_metadata: the instant
// that created the partition and how many folders deep it lies.
type PartitionMetadata struct {
	CommitTime string
	Depth      int
}

// PartitionDepth is the number of folders in a partition path; zero for the
// base path of a non-partitioned table.
func PartitionDepth(partitionPath string) int {
	if partitionPath == "" || partitionPath == "." {
		return 0
	}
	return strings.Count(strings.Trim(partitionPath, "/"), "/") + 1
}

// partitionMetadataPath is the metadata file's path for a partition.
func partitionMetadataPath(partitionPath string) string {
	if partitionPath == "" {
		return PartitionMetadataFile
	}
	return path.Join(partitionPath, PartitionMetadataFile)
}

// Marshal renders the file in Hudi's properties form.
func (m PartitionMetadata) Marshal(now time.Time) []byte {
	p := NewProperties()
	p.Set(keyPartitionCommitTime, m.CommitTime)
	p.Set(keyPartitionDepth, strconv.Itoa(m.Depth))
	return p.Marshal("partition metadata", now.UTC().Format(time.UnixDate))
}

// ParsePartitionMetadata reads the file's content.
func ParsePartitionMetadata(data []byte) (PartitionMetadata, error) {
	props, err := ParseProperties(data)
	if err != nil {
		return PartitionMetadata{}, err
	}
	commit, ok := props.Get(keyPartitionCommitTime)
	if !ok {
		return PartitionMetadata{}, fmt.Errorf("%s is missing", keyPartitionCommitTime)
	}
	depthText, ok := props.Get(keyPartitionDepth)
	if !ok {
		return PartitionMetadata{}, fmt.Errorf("%s is missing", keyPartitionDepth)
	}
	depth, err := strconv.Atoi(depthText)
	if err != nil || depth < 0 {
		return PartitionMetadata{}, fmt.Errorf("%s %q is not a folder depth", keyPartitionDepth, depthText)
	}
	return PartitionMetadata{CommitTime: commit, Depth: depth}, nil
}

// ReadPartitionMetadata reads a partition's metadata file.
func ReadPartitionMetadata(ctx context.Context, fsys storage.FS, partitionPath string) (PartitionMetadata, error) {
	name := partitionMetadataPath(partitionPath)
	data, err := fsys.ReadFile(ctx, name)
	if err != nil {
		return PartitionMetadata{}, fmt.Errorf("read partition metadata: %w", err)
	}
	m, err := ParsePartitionMetadata(data)
	if err != nil {
		return PartitionMetadata{}, fmt.Errorf("partition metadata %s: %w", name, err)
	}
	return m, nil
}

// EnsurePartitionMetadata writes a partition's metadata file if it does not
// exist yet, recording the instant that first wrote to the partition. It is
// safe to race: the file is created only if absent, and the loser keeps the
// winner's file.
func EnsurePartitionMetadata(ctx context.Context, fsys storage.FS, partitionPath, instant string, now time.Time) error {
	if _, exists, err := FindPartitionMetadata(ctx, fsys, partitionPath); err != nil || exists {
		return err
	}
	name := partitionMetadataPath(partitionPath)
	m := PartitionMetadata{CommitTime: instant, Depth: PartitionDepth(partitionPath)}
	if err := fsys.CreateIfAbsent(ctx, name, m.Marshal(now)); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write partition metadata %s: %w", name, err)
	}
	return nil
}

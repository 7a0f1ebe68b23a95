package basefile

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/google/uuid"
)

// Footer keys of a base file, as Hudi (HoodieAvroWriteSupport and
// parquet-avro) writes them.
const (
	// FooterAvroSchema holds the Avro JSON of the file's schema, meta fields
	// included.
	FooterAvroSchema = "parquet.avro.schema"
	// FooterWriterModel is "avro" for files written through parquet-avro.
	FooterWriterModel = "writer.model.name"
	// FooterMinRecordKey and FooterMaxRecordKey hold the least and greatest
	// record key in the file, in Java's string order.
	FooterMinRecordKey = "hoodie_min_record_key"
	FooterMaxRecordKey = "hoodie_max_record_key"
	// FooterBloomFilter holds the serialized bloom filter of the file's
	// record keys (see BloomFilter) and FooterBloomFilterType its type code.
	FooterBloomFilter     = "org.apache.hudi.bloomfilter"
	FooterBloomFilterType = "hoodie_bloom_filter_type_code"
)

// Extension ends the name of every Parquet base file.
const Extension = ".parquet"

// Name is the name of a base file:
// <fileId>_<writeToken>_<instantTime>.parquet, for example
// a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet.
type Name struct {
	// FileID names the file group: a UUID and "-<n>", as NewFileID makes.
	FileID string
	// WriteToken is <taskPartitionId>-<stageId>-<taskAttemptId> of the task
	// that wrote the file; it tells apart retried writes of one file.
	WriteToken string
	// InstantTime is the instant of the write that made the file.
	InstantTime string
}

// String returns the file name.
func (n Name) String() string {
	return n.FileID + "_" + n.WriteToken + "_" + n.InstantTime + Extension
}

// ParseName parses the name of a base file; a path is parsed by its
// last element.
func ParseName(name string) (Name, error) {
	n, err := parseName(path.Base(name))
	if err != nil {
		return Name{}, fmt.Errorf("storage: base file name %q: %w", name, err)
	}
	return n, nil
}

func parseName(name string) (Name, error) {
	stem, ok := strings.CutSuffix(name, Extension)
	if !ok {
		return Name{}, fmt.Errorf("does not end in %s", Extension)
	}
	parts := strings.Split(stem, "_")
	if len(parts) != 3 {
		return Name{}, errors.New("want <fileId>_<writeToken>_<instantTime>.parquet")
	}
	n := Name{FileID: parts[0], WriteToken: parts[1], InstantTime: parts[2]}
	if n.FileID == "" || strings.Trim(n.FileID, "0123456789abcdefABCDEFghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ-") != "" {
		return Name{}, fmt.Errorf("bad file id %q", n.FileID)
	}
	token := strings.Split(n.WriteToken, "-")
	if len(token) != 3 || !allDigits(token[0]) || !allDigits(token[1]) || !allDigits(token[2]) {
		return Name{}, fmt.Errorf("bad write token %q: want <taskPartitionId>-<stageId>-<taskAttemptId>", n.WriteToken)
	}
	if !allDigits(n.InstantTime) || len(n.InstantTime) != 17 && len(n.InstantTime) != 14 {
		return Name{}, fmt.Errorf("bad instant time %q: want 17 digits (or 14, from old tables)", n.InstantTime)
	}
	return n, nil
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// NewFileID returns a new file group id: a random UUID and "-0", as Hudi
// names the first file of a file group.
func NewFileID() string {
	return uuid.NewString() + "-0"
}

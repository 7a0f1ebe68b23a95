package config

import (
	"errors"
	"fmt"
	"strings"
)

// ErrVersionReadOnly reports a write to a table of a version Hoodie reads
// but does not write (ReadOnlyTableVersion, Hudi 1.x).
var ErrVersionReadOnly = errors.New("read-only in Hoodie")

// readOnlyVersionError is CheckWritable's error for a table of version v,
// saying what the user can do instead.
func readOnlyVersionError(v int) error {
	return fmt.Errorf("%s %d (Hudi 1.x): %w, which writes version %d. "+
		"Write to it with Spark and Hudi 1.x; or downgrade it to version %d "+
		"(Spark SQL with Hudi 1.x, NAME in Spark's catalog: CALL downgrade_table(table => 'NAME', to_version => 'SIX')); "+
		"or copy its records into a table hoodiectl init makes (hoodiectl export TABLE DIR --format json, then hoodiectl bulk-insert)",
		KeyTableVersion, v, ErrVersionReadOnly, TableVersion, TableVersion)
}

// KeyKeyGeneratorType is the key of the key generator's type, which Hudi
// 1.x writes instead of KeyKeyGeneratorClass (HoodieTableConfig
// KEY_GENERATOR_TYPE).
const KeyKeyGeneratorType = "hoodie.table.keygenerator.type"

// keyGeneratorTypes are the classes of Hudi 1.x's key generator types
// (KeyGeneratorType) that Hoodie knows.
var keyGeneratorTypes = map[string]string{
	"SIMPLE":             SimpleKeyGenerator,
	"SIMPLE_AVRO":        "org.apache.hudi.keygen.SimpleAvroKeyGenerator",
	"COMPLEX":            ComplexKeyGenerator,
	"COMPLEX_AVRO":       "org.apache.hudi.keygen.ComplexAvroKeyGenerator",
	"NON_PARTITION":      NonpartitionedKeyGenerator,
	"NON_PARTITION_AVRO": "org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator",
	"TIMESTAMP":          "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
	"TIMESTAMP_AVRO":     "org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator",
	"CUSTOM":             "org.apache.hudi.keygen.CustomKeyGenerator",
	"CUSTOM_AVRO":        "org.apache.hudi.keygen.CustomAvroKeyGenerator",
}

// keyGeneratorOfType returns the key generator class that props name by
// type (KeyKeyGeneratorType), as Hudi 1.x's
// KeyGeneratorType.getKeyGeneratorClassName does, or "" when they name
// none Hoodie knows.
func keyGeneratorOfType(props *Properties) string {
	t, _ := props.Get(KeyKeyGeneratorType)
	return keyGeneratorTypes[strings.TrimSpace(t)]
}

// Package config reads and writes what describes a table: its
// hoodie.properties (Table, Properties), and its partitions' paths and
// .hoodie_partition_metadata files.
//
// Load reads a table's configuration and CreateTable lays out a new table;
// both keep Hudi's backup-file protocol, so that Hudi's readers never find
// hoodie.properties missing. Table.CheckWritable says whether Hoodie can
// write a table it reads.
package config

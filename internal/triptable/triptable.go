// Package triptable declares the trips table that the tests and hoodiectl
// bench create through the hoodie package. It stands apart from tripbench,
// which the write package's tests import, so that tripbench need not import
// hoodie, which imports write.
package triptable

import (
	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// Spec is the trips table: keyed by uuid, the greater ts winning,
// partitioned by partitionpath in "value" folders.
func Spec() hoodie.TableSpec {
	return hoodie.TableSpec{
		Name:        "trips",
		RecordKey:   []string{trips.ColUUID},
		Precombine:  trips.ColTS,
		PartitionBy: []string{trips.ColPartitionPath},
		MergeMode:   config.MergeEventTime,
	}
}

package main

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hoodie-dev/hoodie/internal/trips"
)

// arrowSchema is the Arrow form of a trip, in trips.Columns order.
var arrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: trips.ColUUID, Type: arrow.BinaryTypes.String},
	{Name: trips.ColTS, Type: arrow.PrimitiveTypes.Int64},
	{Name: trips.ColRider, Type: arrow.BinaryTypes.String},
	{Name: trips.ColDriver, Type: arrow.BinaryTypes.String},
	{Name: trips.ColFare, Type: arrow.PrimitiveTypes.Float64},
	{Name: trips.ColPartitionPath, Type: arrow.BinaryTypes.String},
}, nil)

// batchRows is the number of rows in each record batch handed to iceberg-go.
const batchRows = 64 * 1024

// tripsToRecords converts ts to record batches of up to batchRows rows. The
// caller releases them.
func tripsToRecords(ts []trips.Trip) []arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)
	defer b.Release()
	var (
		uuids   = b.Field(0).(*array.StringBuilder)
		tss     = b.Field(1).(*array.Int64Builder)
		riders  = b.Field(2).(*array.StringBuilder)
		drivers = b.Field(3).(*array.StringBuilder)
		fares   = b.Field(4).(*array.Float64Builder)
		parts   = b.Field(5).(*array.StringBuilder)
	)
	var recs []arrow.RecordBatch
	for len(ts) > 0 {
		chunk := ts[:min(batchRows, len(ts))]
		ts = ts[len(chunk):]
		b.Reserve(len(chunk))
		uuids.ReserveData(len(chunk) * len(chunk[0].UUID))
		for _, t := range chunk {
			uuids.Append(t.UUID)
			tss.UnsafeAppend(t.TS)
			riders.Append(t.Rider)
			drivers.Append(t.Driver)
			fares.UnsafeAppend(t.Fare)
			parts.Append(t.PartitionPath)
		}
		recs = append(recs, b.NewRecordBatch())
	}
	return recs
}

// releaseAll releases recs.
func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

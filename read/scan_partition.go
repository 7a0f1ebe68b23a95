package read

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// partitioning reads column values back from partition paths.
type partitioning struct {
	fields    []string
	hiveStyle bool
	urlEncode bool
	// exact is true when a partition folder holds its column's value as
	// text, as Hudi's simple and complex key generators (and Hoodie) write
	// it; other key generators (timestamp-based, custom) transform values,
	// so their folders say nothing certain about the columns.
	exact bool
	// dropped is true when the table's writers leave the partition
	// columns out of its files (hoodie.datasource.write.drop.partition.columns).
	dropped bool
}

// exactKeyGenerators are the key generators whose partition folders hold
// the partition columns' values.
var exactKeyGenerators = map[string]bool{
	"":                                true,
	config.SimpleKeyGenerator:         true,
	config.ComplexKeyGenerator:        true,
	config.NonpartitionedKeyGenerator: true,
	"org.apache.hudi.keygen.SimpleAvroKeyGenerator":  true,
	"org.apache.hudi.keygen.ComplexAvroKeyGenerator": true,
}

func newPartitioning(cfg *config.Table) partitioning {
	return partitioning{
		fields:    cfg.PartitionFields,
		hiveStyle: cfg.HiveStylePartitioning,
		urlEncode: cfg.URLEncodePartitioning,
		exact:     exactKeyGenerators[cfg.KeyGeneratorClass],
		dropped:   cfg.DropPartitionColumns,
	}
}

// constants returns, for each column of cols that is a partition column,
// its value in the files of partition as a one-value vector; nil where the
// value is not known. The default partition (__HIVE_DEFAULT_PARTITION__)
// holds nulls, and for string columns also empty strings, so it gives no
// value for them.
func (p partitioning) constants(partition string, cols []readCol) []*Vector {
	if !p.exact || len(p.fields) == 0 {
		return nil
	}
	folders, err := config.SplitPartitionPath(partition, p.fields, p.hiveStyle)
	if err != nil {
		return nil
	}
	out := make([]*Vector, len(cols))
	for i, c := range cols {
		for j, f := range p.fields {
			if c.name != f {
				continue
			}
			// A folder written unencoded may hold a '%' of the value itself,
			// which ParsePartitionPath took for an escape.
			if !p.urlEncode && strings.Contains(folders[j], "%") {
				continue
			}
			v, ok := partitionValue(c.typ, config.UnescapePartitionValue(folders[j]))
			if !ok {
				continue
			}
			vec := newVector(c.typ)
			if vec.appendValue(v) == nil {
				out[i] = vec
			}
		}
	}
	return out
}

// partitionValue converts a partition folder's value to a value of type t,
// as the key generators render values (see write.KeyGenerator).
func partitionValue(t *basefile.Type, s string) (any, bool) {
	if s == config.DefaultPartitionValue {
		// Null, or an empty value: text and bytes can be empty.
		return nil, !isText(t) && t.Logical != basefile.LogicalUUID && t.Kind != basefile.KindBytes
	}
	var v any
	var err error
	switch {
	case t.Logical == basefile.LogicalDecimal:
		var d basefile.Decimal
		if d, err = basefile.ParseDecimal(s); err == nil {
			v, err = d.Rescale(t.Scale)
		}
	case t.Logical == basefile.LogicalDate:
		v, err = basefile.ParseDate(s)
	case isTimestamp(t):
		// Hudi's key generators write the number since the epoch in the
		// column's unit; Hoodie wrote RFC 3339 before it did the same.
		millis := t.Logical == basefile.LogicalTimestampMillis
		if n, perr := strconv.ParseInt(s, 10, 64); perr == nil {
			if millis {
				v = time.UnixMilli(n).UTC()
			} else {
				v = time.UnixMicro(n).UTC()
			}
			break
		}
		var ts time.Time
		if ts, err = time.Parse(time.RFC3339Nano, s); err == nil {
			v = ts.UTC().Truncate(time.Microsecond)
			if millis {
				v = ts.UTC().Truncate(time.Millisecond)
			}
		}
	case t.Kind == basefile.KindBoolean:
		v, err = strconv.ParseBool(s)
	case t.Kind == basefile.KindInt:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		v = int32(n)
	case t.Kind == basefile.KindLong:
		v, err = strconv.ParseInt(s, 10, 64)
	case t.Kind == basefile.KindFloat:
		var f float64
		f, err = strconv.ParseFloat(s, 32)
		v = float32(f)
	case t.Kind == basefile.KindDouble:
		v, err = strconv.ParseFloat(s, 64)
	case t.Kind == basefile.KindBytes || t.Kind == basefile.KindFixed:
		v, err = base64.StdEncoding.DecodeString(s)
	case reprOf(t) == reprBytes:
		v = s
	default:
		return nil, false
	}
	return v, err == nil
}

// PartitionValues returns the values that a scan gives the partition
// columns of schema in the rows of a file of partition that does not store
// them, as the folder names tell them, by column name: none when the key
// generator's folders do not hold the columns' values as text, or the
// partition path does not parse. A value is nil for the default partition
// of a column that is not text. A column stored in a file keeps its own
// values; where both exist they agree.
func PartitionValues(cfg *config.Table, schema *basefile.Schema, partition string) map[string]any {
	if schema == nil {
		return nil
	}
	cols := make([]readCol, len(schema.Fields))
	for i, f := range schema.Fields {
		cols[i] = readCol{name: f.Name, path: []string{f.Name}, typ: f.Type}
	}
	var values map[string]any
	for i, v := range newPartitioning(cfg).constants(partition, cols) {
		if v == nil {
			continue
		}
		if values == nil {
			values = map[string]any{}
		}
		values[cols[i].name] = v.Value(0)
	}
	return values
}

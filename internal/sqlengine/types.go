package sqlengine

import (
	"fmt"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
)

// maxDecimalPrecision is the widest DECIMAL of DuckDB; it reads wider
// Parquet decimals as DOUBLE.
const maxDecimalPrecision = 38

// nullColumns returns the select list of a row of nulls with the columns of
// schema: CAST(NULL AS INTEGER) AS "id", ...
func nullColumns(schema *storage.Schema) (string, error) {
	cols := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		t, err := duckDBType(f.Type)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols[i] = fmt.Sprintf("CAST(NULL AS %s) AS %s", t, QuoteIdent(f.Name))
	}
	return strings.Join(cols, ", "), nil
}

// duckDBType returns the type DuckDB gives a column of type t when it reads
// a base file, where storage writes it as parquet-avro does: timestamps are
// adjusted to UTC, enums and uuids are strings, maps have string keys.
func duckDBType(t *storage.Type) (string, error) {
	switch t.Kind {
	case storage.KindBoolean:
		return "BOOLEAN", nil
	case storage.KindInt:
		if t.Logical == storage.LogicalDate {
			return "DATE", nil
		}
		return "INTEGER", nil
	case storage.KindLong:
		switch t.Logical {
		case storage.LogicalTimestampMicros, storage.LogicalTimestampMillis:
			return "TIMESTAMP WITH TIME ZONE", nil
		}
		return "BIGINT", nil
	case storage.KindFloat:
		return "FLOAT", nil
	case storage.KindDouble:
		return "DOUBLE", nil
	case storage.KindString, storage.KindEnum:
		return "VARCHAR", nil
	case storage.KindBytes, storage.KindFixed:
		switch {
		case t.Logical != storage.LogicalDecimal:
			return "BLOB", nil
		case t.Precision > maxDecimalPrecision:
			return "DOUBLE", nil
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), nil
	case storage.KindArray:
		items, err := duckDBType(t.Items)
		if err != nil {
			return "", err
		}
		return items + "[]", nil
	case storage.KindMap:
		values, err := duckDBType(t.Values)
		if err != nil {
			return "", err
		}
		return "MAP(VARCHAR, " + values + ")", nil
	case storage.KindRecord:
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := duckDBType(f.Type)
			if err != nil {
				return "", fmt.Errorf("field %s: %w", f.Name, err)
			}
			fields[i] = QuoteIdent(f.Name) + " " + ft
		}
		return "STRUCT(" + strings.Join(fields, ", ") + ")", nil
	}
	return "", fmt.Errorf("no DuckDB type for Avro type %s", t.Kind)
}

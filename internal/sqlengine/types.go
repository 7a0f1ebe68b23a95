package sqlengine

import (
	"fmt"
	"strings"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// maxDecimalPrecision is the widest DECIMAL of DuckDB; it reads wider
// Parquet decimals as DOUBLE.
const maxDecimalPrecision = 38

// nullColumns returns the select list of a row of nulls with the columns of
// schema: CAST(NULL AS INTEGER) AS "id", ...
func nullColumns(schema *basefile.Schema) (string, error) {
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
func duckDBType(t *basefile.Type) (string, error) {
	switch t.Kind {
	case basefile.KindBoolean:
		return "BOOLEAN", nil
	case basefile.KindInt:
		if t.Logical == basefile.LogicalDate {
			return "DATE", nil
		}
		return "INTEGER", nil
	case basefile.KindLong:
		switch t.Logical {
		case basefile.LogicalTimestampMicros, basefile.LogicalTimestampMillis:
			return "TIMESTAMP WITH TIME ZONE", nil
		}
		return "BIGINT", nil
	case basefile.KindFloat:
		return "FLOAT", nil
	case basefile.KindDouble:
		return "DOUBLE", nil
	case basefile.KindString, basefile.KindEnum:
		return "VARCHAR", nil
	case basefile.KindBytes, basefile.KindFixed:
		switch {
		case t.Logical != basefile.LogicalDecimal:
			return "BLOB", nil
		case t.Precision > maxDecimalPrecision:
			return "DOUBLE", nil
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), nil
	case basefile.KindArray:
		items, err := duckDBType(t.Items)
		if err != nil {
			return "", err
		}
		return items + "[]", nil
	case basefile.KindMap:
		values, err := duckDBType(t.Values)
		if err != nil {
			return "", err
		}
		return "MAP(VARCHAR, " + values + ")", nil
	case basefile.KindRecord:
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

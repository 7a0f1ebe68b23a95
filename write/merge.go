package write

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// compareOrdering compares two precombine values of one column type: -1, 0
// or +1 as a is less than, equal to or greater than b.
func compareOrdering(a, b any) (int, error) {
	switch x := a.(type) {
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y), nil
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), nil
		}
	case float32:
		if y, ok := b.(float32); ok {
			return compareFloats(float64(x), float64(y)), nil
		}
	case float64:
		if y, ok := b.(float64); ok {
			return compareFloats(x, y), nil
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmp.Compare(boolRank(x), boolRank(y)), nil
		}
	case basefile.Date:
		if y, ok := b.(basefile.Date); ok {
			return cmp.Compare(x, y), nil
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y), nil
		}
	case basefile.Decimal:
		if y, ok := b.(basefile.Decimal); ok {
			return x.Cmp(y), nil
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), nil
		}
	}
	return 0, fmt.Errorf("cannot order %T against %T", a, b)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// orderingChecker validates that a column can order records.
func checkOrderingType(t *basefile.Type) error {
	switch t.Kind {
	case basefile.KindRecord, basefile.KindArray, basefile.KindMap:
		return fmt.Errorf("a %s column cannot order records", t.Kind)
	}
	return nil
}

// badOrdering returns why v cannot be an incoming record's precombine
// value, or "": null, as the contract says, and NaN, which Hudi orders
// (Java's compareTo) above every number, so that a NaN would beat every
// later value for good. Infinities order as numbers do and are kept.
func badOrdering(v any) string {
	nan := false
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		nan = math.IsNaN(x)
	case float32:
		nan = math.IsNaN(float64(x))
	}
	if nan {
		return "NaN, which would beat every later value; give a number"
	}
	return ""
}

// compareFloats orders two floats as Hudi does (Java's compareTo): NaN
// equal to itself and above every number. -0.0 equals 0.0, as the
// contract's "greater or equal" reads numerically.
func compareFloats(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// CheckTableSchema reports whether schema, without meta fields, can be the
// schema of the table cfg describes: its record key and partition columns
// exist and hold single values, its precombine column exists and can order
// records, and a _hoodie_is_deleted column is a boolean.
func CheckTableSchema(cfg *config.Table, schema *basefile.Schema) error {
	g, err := NewKeyGenerator(cfg, schema)
	if err != nil {
		return err
	}
	if err := g.SetTimestampSettings(cfg, nil, nil); err != nil {
		return err
	}
	if f := cfg.PrecombineField; f != "" {
		i := schema.FieldIndex(f)
		if i < 0 {
			return fmt.Errorf("precombine column %q is not in the schema", f)
		}
		if err := checkOrderingType(schema.Fields[i].Type); err != nil {
			return fmt.Errorf("precombine column %q: %w", f, err)
		}
	}
	if err := checkColumnNames(schema.Fields); err != nil {
		return err
	}
	return checkIsDeletedType(schema)
}

// checkIsDeletedType fails if schema has a _hoodie_is_deleted column that is
// not a boolean: Hudi deletes the records in which it is true, and only a
// boolean can be.
func checkIsDeletedType(schema *basefile.Schema) error {
	if i := schema.FieldIndex(IsDeletedColumn); i >= 0 && schema.Fields[i].Type.Kind != basefile.KindBoolean {
		return fmt.Errorf("column %s is a %s; it must be a boolean, true for the records to delete", IsDeletedColumn, schema.Fields[i].Type.Kind)
	}
	return nil
}

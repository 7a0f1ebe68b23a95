package sqlengine

// The values of a query result, as Rows.Values returns them. They follow
// basefile's value model where it has a counterpart, and describe themselves
// otherwise, so that a value can be printed without its column's type:
//
//	DuckDB type                                 Go value
//	NULL                                        nil
//	BOOLEAN                                     bool
//	TINYINT ... BIGINT, UTINYINT ... UINTEGER   int64
//	UBIGINT                                     uint64
//	HUGEINT, UHUGEINT, BIGNUM                   *big.Int
//	FLOAT                                       float32
//	DOUBLE                                      float64
//	DECIMAL(p,s)                                basefile.Decimal, with scale s
//	VARCHAR, ENUM, BIT                          string
//	UUID                                        string, "xxxxxxxx-xxxx-..."
//	TIME, TIME WITH TIME ZONE                   string, "15:04:05.999999[-07:00]"
//	INTERVAL                                    string, ISO 8601 ("P1M2DT3.5S")
//	JSON                                        json.RawMessage
//	BLOB, GEOMETRY                              []byte
//	DATE                                        basefile.Date
//	TIMESTAMP (any precision, with time zone)   time.Time in UTC
//	LIST, ARRAY                                 []any
//	STRUCT                                      Struct
//	MAP                                         Map
//	UNION                                       the value of its member

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/google/uuid"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Struct is a STRUCT value: its fields in the order of the type.
type Struct []Field

// Field is one field of a Struct.
type Field struct {
	Name  string
	Value any
}

// Map is a MAP value: its entries in DuckDB's order.
type Map []MapEntry

// MapEntry is one entry of a Map.
type MapEntry struct {
	Key, Value any
}

// converter turns a non-nil value of the DuckDB driver into the value model.
type converter func(v any) (any, error)

// convertValue converts v, keeping nil as nil.
func convertValue(c converter, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return c(v)
}

// newConverter returns the converter of a column or nested type.
func newConverter(info duckdb.TypeInfo) converter {
	if strings.EqualFold(info.Alias(), "JSON") {
		return convertJSON
	}
	switch info.InternalType() {
	case duckdb.TYPE_TINYINT, duckdb.TYPE_SMALLINT, duckdb.TYPE_INTEGER,
		duckdb.TYPE_UTINYINT, duckdb.TYPE_USMALLINT, duckdb.TYPE_UINTEGER:
		return convertInt
	case duckdb.TYPE_DECIMAL:
		return as(func(d duckdb.Decimal) any { return basefile.NewDecimal(d.Value, int(d.Scale)) })
	case duckdb.TYPE_DATE:
		return as(func(t time.Time) any { return basefile.DateOf(t) })
	case duckdb.TYPE_TIMESTAMP, duckdb.TYPE_TIMESTAMP_S, duckdb.TYPE_TIMESTAMP_MS,
		duckdb.TYPE_TIMESTAMP_NS, duckdb.TYPE_TIMESTAMP_TZ:
		return as(func(t time.Time) any { return t.UTC() })
	case duckdb.TYPE_TIME:
		return as(func(t time.Time) any { return t.Format("15:04:05.999999") })
	case duckdb.TYPE_TIME_TZ:
		return as(func(t time.Time) any { return t.Format("15:04:05.999999Z07:00") })
	case duckdb.TYPE_INTERVAL:
		return as(func(i duckdb.Interval) any { return formatInterval(i) })
	case duckdb.TYPE_UUID:
		return convertUUID
	case duckdb.TYPE_LIST, duckdb.TYPE_ARRAY:
		return listConverter(info)
	case duckdb.TYPE_STRUCT:
		return structConverter(info)
	case duckdb.TYPE_MAP:
		return mapConverter(info)
	case duckdb.TYPE_UNION:
		return unionConverter(info)
	}
	return keep
}

// keep returns values the driver already gives in the value model: bool,
// int64, uint64, *big.Int, float32, float64, string, []byte.
func keep(v any) (any, error) { return v, nil }

// as makes a converter of a function of the driver's type T.
func as[T any](f func(T) any) converter {
	return func(v any) (any, error) {
		t, ok := v.(T)
		if !ok {
			return nil, fmt.Errorf("unexpected %T from DuckDB, want %T", v, *new(T))
		}
		return f(t), nil
	}
}

func convertInt(v any) (any, error) {
	switch n := v.(type) {
	case int8:
		return int64(n), nil
	case int16:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case uint8:
		return int64(n), nil
	case uint16:
		return int64(n), nil
	case uint32:
		return int64(n), nil
	case int64:
		return n, nil
	}
	return nil, fmt.Errorf("unexpected %T from DuckDB for an integer", v)
}

func convertUUID(v any) (any, error) {
	switch u := v.(type) {
	case []byte:
		id, err := uuid.FromBytes(u)
		if err != nil {
			return nil, fmt.Errorf("UUID from DuckDB: %w", err)
		}
		return id.String(), nil
	case string:
		return u, nil
	}
	return nil, fmt.Errorf("unexpected %T from DuckDB for a UUID", v)
}

// convertJSON turns a JSON value, which the driver has decoded, back into
// JSON text.
func convertJSON(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("JSON from DuckDB: %w", err)
	}
	return json.RawMessage(data), nil
}

// formatInterval writes an interval in ISO 8601: "P14M3DT4.5S", "PT0S".
func formatInterval(i duckdb.Interval) string {
	s := "P"
	if i.Months != 0 {
		s += strconv.Itoa(int(i.Months)) + "M"
	}
	if i.Days != 0 {
		s += strconv.Itoa(int(i.Days)) + "D"
	}
	if i.Micros != 0 || s == "P" {
		secs := strings.TrimRight(basefile.NewDecimalInt64(i.Micros, 6).String(), "0")
		s += "T" + strings.TrimSuffix(secs, ".") + "S"
	}
	return s
}

func listConverter(info duckdb.TypeInfo) converter {
	var elem duckdb.TypeInfo
	switch d := info.Details().(type) {
	case *duckdb.ListDetails:
		elem = d.Child
	case *duckdb.ArrayDetails:
		elem = d.Child
	}
	c := newConverter(elem)
	return func(v any) (any, error) {
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("unexpected %T from DuckDB for a list", v)
		}
		out := make([]any, len(items))
		for i, item := range items {
			var err error
			if out[i], err = convertValue(c, item); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

func structConverter(info duckdb.TypeInfo) converter {
	entries := info.Details().(*duckdb.StructDetails).Entries
	names := make([]string, len(entries))
	convert := make([]converter, len(entries))
	for i, e := range entries {
		names[i], convert[i] = e.Name(), newConverter(e.Info())
	}
	return func(v any) (any, error) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("unexpected %T from DuckDB for a struct", v)
		}
		out := make(Struct, len(names))
		for i, name := range names {
			value, err := convertValue(convert[i], m[name])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
			out[i] = Field{Name: name, Value: value}
		}
		return out, nil
	}
}

func mapConverter(info duckdb.TypeInfo) converter {
	d := info.Details().(*duckdb.MapDetails)
	key, value := newConverter(d.Key), newConverter(d.Value)
	return func(v any) (any, error) {
		m, ok := v.(duckdb.OrderedMap)
		if !ok {
			return nil, fmt.Errorf("unexpected %T from DuckDB for a map", v)
		}
		keys, values := m.Keys(), m.Values()
		out := make(Map, len(keys))
		for i := range keys {
			k, err := convertValue(key, keys[i])
			if err != nil {
				return nil, err
			}
			val, err := convertValue(value, values[i])
			if err != nil {
				return nil, err
			}
			out[i] = MapEntry{Key: k, Value: val}
		}
		return out, nil
	}
}

func unionConverter(info duckdb.TypeInfo) converter {
	members := map[string]converter{}
	for _, m := range info.Details().(*duckdb.UnionDetails).Members {
		members[m.Name] = newConverter(m.Type)
	}
	return func(v any) (any, error) {
		u, ok := v.(duckdb.Union)
		if !ok {
			return nil, fmt.Errorf("unexpected %T from DuckDB for a union", v)
		}
		c, ok := members[u.Tag]
		if !ok {
			return nil, fmt.Errorf("union member %q from DuckDB is not in its type", u.Tag)
		}
		return convertValue(c, u.Value)
	}
}

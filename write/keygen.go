package write

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// Placeholders Hudi's complex key generator writes for a null or empty key
// part (KeyGenUtils).
const (
	nullKeyPart  = "__null__"
	emptyKeyPart = "__empty__"
)

// KeyGenerator computes the record key and partition path of rows under one
// table schema, as the table's Hudi key generator does.
type KeyGenerator struct {
	keyNames  []string
	keyIndex  []int
	keyUnits  []basefile.Logical // the timestamp unit of each key column
	partNames []string
	partIndex []int
	partUnits []basefile.Logical // and of each partition column
	hiveStyle bool
	urlEncode bool
	// named makes a key of one column "col:value", as Hudi's complex key
	// generator writes it by default (see namedSingleKeys).
	named bool
	// timestampBased marks a table whose key generator is Hudi's
	// timestamp-based one, whose partition paths need timestamp (see
	// SetTimestampSettings).
	timestampBased bool
	timestamp      *timestampKeygen
	firstPartType  basefile.Type // the type of the first partition column
}

// NewKeyGenerator resolves the table's record key and partition columns in
// schema (which holds no meta fields). A column missing from the schema is
// an error naming it.
func NewKeyGenerator(cfg *config.Table, schema *basefile.Schema) (*KeyGenerator, error) {
	g := &KeyGenerator{
		keyNames:  cfg.RecordKeyFields,
		partNames: cfg.PartitionFields,
		hiveStyle: cfg.HiveStylePartitioning,
		urlEncode: cfg.URLEncodePartitioning,

		timestampBased: cfg.TimestampBased(),
	}
	var err error
	if g.keyIndex, g.keyUnits, err = resolveColumns(schema, cfg.RecordKeyFields, "record key"); err != nil {
		return nil, err
	}
	if g.partIndex, g.partUnits, err = resolveColumns(schema, cfg.PartitionFields, "partition"); err != nil {
		return nil, err
	}
	if len(g.partIndex) > 0 {
		g.firstPartType = *schema.Fields[g.partIndex[0]].Type
	}
	return g, nil
}

// resolveColumns returns the positions of the columns names in schema, and
// the logical type of each, which says a timestamp's unit.
func resolveColumns(schema *basefile.Schema, names []string, role string) ([]int, []basefile.Logical, error) {
	idx := make([]int, len(names))
	units := make([]basefile.Logical, len(names))
	for i, name := range names {
		idx[i] = schema.FieldIndex(name)
		if idx[i] < 0 {
			return nil, nil, fmt.Errorf("%s column %q is not in the schema", role, name)
		}
		t := schema.Fields[idx[i]].Type
		if k := t.Kind; k == basefile.KindRecord || k == basefile.KindArray || k == basefile.KindMap {
			return nil, nil, fmt.Errorf("%s column %q is a %s; it must hold a single value", role, name, k)
		}
		units[i] = t.Logical
	}
	return idx, units, nil
}

// RecordKey returns the record key Hudi computes for a row: the key
// column's value, or for several columns (or one, in a table whose stored
// keys have that form: see namedSingleKeys) Hudi's complex form
// "c1:v1,c2:v2" (a null part written __null__, an empty one __empty__, as
// Hudi's KeyGenUtils writes them). A key whose every part is null or empty
// is an error. It computes the keys of stored rows, which other writers may
// have written so; an incoming row's key comes from InputKey.
func (g *KeyGenerator) RecordKey(row []any) (string, error) {
	return g.recordKey(row, false)
}

// InputKey returns the record key of an incoming row, as RecordKey does,
// but refuses a row whose key Hudi's complex format cannot tell from
// another row's: a null or empty part, a part that is the placeholder
// __null__ or __empty__ (a null or empty part of a key Spark wrote), and,
// in a key of several columns, a part holding "," and a key column's name
// and ":" ("c1:x,c2:y,c2:z" would be both {c1: "x,c2:y", c2: "z"} and
// {c1: "x", c2: "y,c2:z"}). Without those, the parts are cut apart at the
// first ",c:" of each next column c, and two rows have one key only when
// their key columns hold one value.
func (g *KeyGenerator) InputKey(row []any) (string, error) {
	return g.recordKey(row, true)
}

func (g *KeyGenerator) recordKey(row []any, input bool) (string, error) {
	if len(g.keyIndex) == 1 && !g.named {
		v := row[g.keyIndex[0]]
		if v == nil {
			return "", fmt.Errorf("record key column %q is null", g.keyNames[0])
		}
		s := valueString(v, g.keyUnits[0])
		if s == "" {
			return "", fmt.Errorf("record key column %q is empty", g.keyNames[0])
		}
		return s, nil
	}
	var b strings.Builder
	allMissing := true
	for i, idx := range g.keyIndex {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(g.keyNames[i])
		b.WriteByte(':')
		v := row[idx]
		s := valueString(v, g.keyUnits[i])
		if input {
			if err := g.checkKeyPart(i, v, s); err != nil {
				return "", err
			}
		}
		switch {
		case v == nil:
			b.WriteString(nullKeyPart)
		case s == "":
			b.WriteString(emptyKeyPart)
		default:
			b.WriteString(s)
			allMissing = false
		}
	}
	if allMissing {
		return "", fmt.Errorf("record key columns %s are all null or empty", strings.Join(g.keyNames, ","))
	}
	return b.String(), nil
}

// checkKeyPart fails if s, the text of v, the value of key column i of an
// incoming row, would make its complex key ambiguous (see InputKey).
func (g *KeyGenerator) checkKeyPart(i int, v any, s string) error {
	name := g.keyNames[i]
	switch {
	case v == nil:
		return fmt.Errorf("record key column %q is null: a record without a key value is an error", name)
	case s == "":
		return fmt.Errorf("record key column %q is empty: a record without a key value is an error", name)
	case s == nullKeyPart || s == emptyKeyPart:
		return fmt.Errorf("record key column %q holds %q, which Hudi's complex keys write for a null or empty value", name, s)
	}
	if len(g.keyNames) == 1 || strings.IndexByte(s, ':') < 0 {
		return nil // one part is the rest of the key, whatever it holds
	}
	for _, other := range g.keyNames {
		if strings.Contains(s, ","+other+":") {
			return fmt.Errorf("record key column %q holds %q, whose %q reads as the start of key column %q in Hudi's complex key \"c1:v1,c2:v2\": two records could get one key",
				name, s, ","+other+":", other)
		}
	}
	return nil
}

// SetTimestampSettings gives the key generator of a table whose key
// generator is Hudi's timestamp-based one its hoodie.keygen.timebased.*
// settings: the table's (hoodie.properties), then write's, as a Spark
// write takes them. local is the zone Hudi takes when none is set, Java's
// default zone (nil: time.Local). It fails on settings that are missing or
// that Hoodie cannot follow exactly as Hudi does, such as a date-time
// pattern it does not translate, and on a partition column of a type it
// does not turn into a path. For another table it does nothing.
func (g *KeyGenerator) SetTimestampSettings(cfg *config.Table, write *config.Properties, local *time.Location) error {
	t, err := newTimestampKeygen(cfg, write, local)
	if err != nil || t == nil {
		return err
	}
	if err := t.checkColumn(g.partNames[0], g.firstPartType); err != nil {
		return err
	}
	g.timestamp = t
	return nil
}

// PartitionPath returns the folder a row belongs in; "" for a
// non-partitioned table. A row whose partition value Hudi's key generator
// would not take (a date-time that does not match the input pattern) is an
// error naming the value.
func (g *KeyGenerator) PartitionPath(row []any) (string, error) {
	if len(g.partIndex) == 0 {
		return "", nil
	}
	if g.timestampBased {
		if g.timestamp == nil {
			return "", fmt.Errorf("the table's key generator is timestamp-based, and its settings were not given (SetTimestampSettings)")
		}
		v, err := g.timestamp.path(row[g.partIndex[0]])
		if err != nil {
			return "", fmt.Errorf("partition column %q: %w", g.partNames[0], err)
		}
		return config.PartitionPath(g.partNames[:1], []string{v}, g.hiveStyle, g.urlEncode), nil
	}
	values := make([]string, len(g.partIndex))
	for i, idx := range g.partIndex {
		if v := row[idx]; v != nil {
			values[i] = valueString(v, g.partUnits[i])
		}
	}
	return config.PartitionPath(g.partNames, values, g.hiveStyle, g.urlEncode), nil
}

// valueString renders a single value of a column whose logical type is unit
// the way Hudi's key generators render key and partition values
// (HoodieAvroUtils.getNestedFieldValAsString): as the contract's text form
// (valuefmt.Text), except floats and decimals, which Java renders (see
// valuefmt.JavaFloat and valuefmt.JavaDecimal), and timestamps, which are
// their number since the epoch in the column's unit, microseconds or
// milliseconds, as Hudi renders them by default
// (hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled
// false) and Spark's row writer does.
func valueString(v any, unit basefile.Logical) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float32:
		return valuefmt.JavaFloat(float64(v), 32)
	case float64:
		return valuefmt.JavaFloat(v, 64)
	case basefile.Decimal:
		return valuefmt.JavaDecimal(v)
	case time.Time:
		if unit == basefile.LogicalTimestampMillis {
			return strconv.FormatInt(v.UnixMilli(), 10)
		}
		return strconv.FormatInt(v.UnixMicro(), 10)
	}
	return valuefmt.Text(nil, v)
}

// partitionCache remembers the partition paths of the raw values it has
// seen: tables have few partitions and escaping each row's values again is
// a measurable share of a large write. It is not safe for concurrent use.
type partitionCache struct {
	g     *KeyGenerator
	paths map[string]string
	key   []byte
}

func newPartitionCache(g *KeyGenerator) *partitionCache {
	return &partitionCache{g: g, paths: map[string]string{}}
}

// path returns g.PartitionPath(row).
func (c *partitionCache) path(row []any) (string, error) {
	if len(c.g.partIndex) == 0 {
		return "", nil
	}
	c.key = c.key[:0]
	for i, idx := range c.g.partIndex {
		if v := row[idx]; v == nil {
			c.key = append(c.key, 0)
		} else {
			c.key = append(c.key, 1)
			c.key = append(c.key, valueString(v, c.g.partUnits[i])...)
		}
		c.key = append(c.key, 0xff)
	}
	if p, ok := c.paths[string(c.key)]; ok {
		return p, nil
	}
	p, err := c.g.PartitionPath(row)
	if err != nil {
		return "", err
	}
	c.paths[string(c.key)] = p
	return p, nil
}

// namedSingleKeys reports whether the stored record keys of the table,
// whose key generator is Hudi's complex one with a single key column, are
// "col:value", as Hudi's complex key generator writes them by default
// (KeyGenUtils.encodeSingleKeyFieldNameForComplexKeyGen; Hudi 0.14.1 and
// 0.15 wrote the bare value, HUDI-7001). Hoodie writes the column's value,
// as its contract says, unless the table's stored keys are named: a write
// must make its keys as the table holds them, or an update of a stored
// record would insert it again. It looks at the least record key in the
// footer of the first base file that has one; a table without stored keys
// (no meta fields, or no records yet) takes bare values.
func namedSingleKeys(ctx context.Context, fsys storage.FS, cfg *config.Table, view *read.View) (bool, error) {
	if cfg.KeyGeneratorClass != config.ComplexKeyGenerator || len(cfg.RecordKeyFields) != 1 || !cfg.PopulateMetaFields {
		return false, nil
	}
	for _, g := range view.FileGroups() {
		path := g.Latest().Path
		bf, err := basefile.Open(ctx, fsys, path)
		if err != nil {
			return false, fmt.Errorf("read the record keys of %s: %w", path, err)
		}
		key := bf.Metadata()[basefile.FooterMinRecordKey]
		bf.Close()
		if key != "" {
			return strings.HasPrefix(key, cfg.RecordKeyFields[0]+":"), nil
		}
	}
	return false, nil
}

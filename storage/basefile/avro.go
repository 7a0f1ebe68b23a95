package basefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ParseSchema parses an Avro record schema from its JSON form, as Hudi keeps
// it in hoodie.table.create.schema, in a commit's extraMetadata.schema and in
// the parquet.avro.schema footer of base files.
//
// Unions other than a type with null (["null", T] or [T, "null"]) are refused,
// and so are schemas Parquet cannot hold (recursive or empty records). Field
// defaults are kept as JSON, except that nullable fields always default to
// null. Unknown logical types are ignored, as the Avro specification asks;
// aliases and field orders are dropped.
func ParseSchema(avroJSON []byte) (*Schema, error) {
	s, err := parseSchema(avroJSON)
	if err != nil {
		return nil, fmt.Errorf("storage: parse Avro schema: %w", err)
	}
	return s, nil
}

func parseSchema(data []byte) (*Schema, error) {
	if !json.Valid(data) {
		return nil, errors.New("not valid JSON")
	}
	p := avroParser{named: map[string]*Type{}}
	t, err := p.parse(data, "", "")
	if err != nil {
		return nil, err
	}
	if t.Kind != KindRecord || t.Nullable {
		return nil, fmt.Errorf("the schema must be a record, not %s", describeType(t))
	}
	s := &Schema{Name: t.Name, Namespace: t.Namespace, Doc: t.Doc, Fields: t.Fields}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// avroParser turns Avro JSON into Types. named holds the named types defined
// so far by full name; a nil entry marks a record still being defined.
type avroParser struct {
	named map[string]*Type
}

// parse parses the type in raw. enclosing is the namespace of the nearest
// enclosing named type and path the field path, for error messages.
func (p *avroParser) parse(raw []byte, enclosing, path string) (*Type, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, pathError(path, errors.New("missing type"))
	}
	switch raw[0] {
	case '"':
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, pathError(path, err)
		}
		return p.parseName(name, enclosing, path)
	case '[':
		return p.parseUnion(raw, enclosing, path)
	case '{':
		var attrs map[string]json.RawMessage
		if err := json.Unmarshal(raw, &attrs); err != nil {
			return nil, pathError(path, err)
		}
		return p.parseObject(attrs, enclosing, path)
	default:
		return nil, pathError(path, fmt.Errorf("a type must be a name, a union or an object, not %s", raw))
	}
}

var primitiveKinds = map[string]Kind{
	"boolean": KindBoolean,
	"int":     KindInt,
	"long":    KindLong,
	"float":   KindFloat,
	"double":  KindDouble,
	"string":  KindString,
	"bytes":   KindBytes,
}

// parseName resolves a primitive type name or a reference to a named type.
func (p *avroParser) parseName(name, enclosing, path string) (*Type, error) {
	if k, ok := primitiveKinds[name]; ok {
		return Primitive(k), nil
	}
	if name == "null" {
		return nil, pathError(path, errors.New(`type "null" is only allowed in a union with one other type`))
	}
	def, ok := p.named[FullName(name, "", enclosing)]
	if !ok {
		def, ok = p.named[name]
	}
	switch {
	case !ok:
		return nil, pathError(path, fmt.Errorf("unknown type %q", name))
	case def == nil:
		return nil, pathError(path, fmt.Errorf("recursive type %q cannot be stored in Parquet", name))
	}
	c := *def
	return &c, nil
}

func (p *avroParser) parseUnion(raw []byte, enclosing, path string) (*Type, error) {
	var branches []json.RawMessage
	if err := json.Unmarshal(raw, &branches); err != nil {
		return nil, pathError(path, err)
	}
	var (
		t     *Type
		nulls int
		types int
	)
	for _, b := range branches {
		if isNullSchema(b) {
			nulls++
			continue
		}
		types++
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
			return nil, pathError(path, errors.New("a union may not hold another union"))
		}
		var err error
		if t, err = p.parse(b, enclosing, path); err != nil {
			return nil, err
		}
	}
	if nulls > 1 || types != 1 {
		return nil, pathError(path, fmt.Errorf("unsupported union %s: only a type with null ([\"null\", T]) is supported", bytes.TrimSpace(raw)))
	}
	t.Nullable = nulls == 1
	return t, nil
}

// isNullSchema reports whether raw is the null type, "null" or {"type": "null"}.
func isNullSchema(raw []byte) bool {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		return name == "null"
	}
	var obj struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(raw, &obj) == nil && bytes.Equal(bytes.TrimSpace(obj.Type), []byte(`"null"`))
}

func (p *avroParser) parseObject(attrs map[string]json.RawMessage, enclosing, path string) (*Type, error) {
	typeRaw, ok := attrs["type"]
	if !ok {
		return nil, pathError(path, errors.New(`object without "type"`))
	}
	var typeName string
	if err := json.Unmarshal(typeRaw, &typeName); err != nil {
		// {"type": <schema>} wraps a schema, as Avro's parsers accept.
		return p.parse(typeRaw, enclosing, path)
	}
	var (
		t   *Type
		err error
	)
	switch typeName {
	case "record", "error":
		return p.parseRecord(attrs, enclosing, path)
	case "enum":
		t, err = p.parseEnum(attrs, enclosing, path)
	case "fixed":
		t, err = p.parseFixed(attrs, enclosing, path)
	case "array":
		t, err = p.parseContainer(attrs, KindArray, "items", enclosing, path+"[]")
	case "map":
		t, err = p.parseContainer(attrs, KindMap, "values", enclosing, path+"{}")
	default:
		t, err = p.parseName(typeName, enclosing, path)
	}
	if err != nil {
		return nil, err
	}
	return t, p.parseLogical(t, attrs, path)
}

func (p *avroParser) parseRecord(attrs map[string]json.RawMessage, enclosing, path string) (*Type, error) {
	t, full, err := p.parseNamed(attrs, KindRecord, enclosing, path)
	if err != nil {
		return nil, err
	}
	var rawFields []json.RawMessage
	if err := requiredAttr(attrs, "fields", &rawFields); err != nil {
		return nil, pathError(path, fmt.Errorf("record %q: %w", full, err))
	}
	p.named[full] = nil // defined once its fields are parsed
	for _, raw := range rawFields {
		f, err := p.parseField(raw, NamespaceOf(full), path)
		if err != nil {
			return nil, err
		}
		t.Fields = append(t.Fields, f)
	}
	c := *t
	p.named[full] = &c
	return t, nil
}

func (p *avroParser) parseField(raw []byte, enclosing, recordPath string) (Field, error) {
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &attrs); err != nil {
		return Field{}, pathError(recordPath, fmt.Errorf("field must be an object: %w", err))
	}
	var f Field
	if err := requiredAttr(attrs, "name", &f.Name); err != nil {
		return Field{}, pathError(recordPath, fmt.Errorf("field: %w", err))
	}
	path := joinPath(recordPath, f.Name)
	if doc, ok := attrs["doc"]; ok {
		f.Doc = new(string)
		if err := json.Unmarshal(doc, f.Doc); err != nil {
			return Field{}, pathError(path, fmt.Errorf("doc: %w", err))
		}
	}
	typeRaw, ok := attrs["type"]
	if !ok {
		return Field{}, pathError(path, errors.New(`field without "type"`))
	}
	var err error
	if f.Type, err = p.parse(typeRaw, enclosing, path); err != nil {
		return Field{}, err
	}
	if def, ok := attrs["default"]; ok && !f.Type.Nullable {
		var b bytes.Buffer
		if err := json.Compact(&b, def); err != nil {
			return Field{}, pathError(path, fmt.Errorf("default: %w", err))
		}
		f.Default = b.Bytes()
	}
	return f, nil
}

func (p *avroParser) parseEnum(attrs map[string]json.RawMessage, enclosing, path string) (*Type, error) {
	t, full, err := p.parseNamed(attrs, KindEnum, enclosing, path)
	if err != nil {
		return nil, err
	}
	if err := requiredAttr(attrs, "symbols", &t.Symbols); err != nil {
		return nil, pathError(path, fmt.Errorf("enum %q: %w", full, err))
	}
	c := *t
	p.named[full] = &c
	return t, nil
}

func (p *avroParser) parseFixed(attrs map[string]json.RawMessage, enclosing, path string) (*Type, error) {
	t, full, err := p.parseNamed(attrs, KindFixed, enclosing, path)
	if err != nil {
		return nil, err
	}
	if err := requiredAttr(attrs, "size", &t.Size); err != nil {
		return nil, pathError(path, fmt.Errorf("fixed %q: %w", full, err))
	}
	// The logical type is part of the definition that later references share.
	if err := p.parseLogical(t, attrs, path); err != nil {
		return nil, err
	}
	c := *t
	p.named[full] = &c
	return t, nil
}

// parseNamed reads the name, namespace and doc of a named type and checks
// that its full name is new.
func (p *avroParser) parseNamed(attrs map[string]json.RawMessage, kind Kind, enclosing, path string) (*Type, string, error) {
	t := &Type{Kind: kind}
	if err := requiredAttr(attrs, "name", &t.Name); err != nil {
		return nil, "", pathError(path, fmt.Errorf("%s: %w", kind, err))
	}
	if err := optionalAttr(attrs, "namespace", &t.Namespace); err != nil {
		return nil, "", pathError(path, fmt.Errorf("%s %q: %w", kind, t.Name, err))
	}
	if err := optionalAttr(attrs, "doc", &t.Doc); err != nil {
		return nil, "", pathError(path, fmt.Errorf("%s %q: %w", kind, t.Name, err))
	}
	full := FullName(t.Name, t.Namespace, enclosing)
	if _, dup := p.named[full]; dup {
		return nil, "", pathError(path, fmt.Errorf("type %q is defined twice", full))
	}
	return t, full, nil
}

func (p *avroParser) parseContainer(attrs map[string]json.RawMessage, kind Kind, attr, enclosing, path string) (*Type, error) {
	raw, ok := attrs[attr]
	if !ok {
		return nil, pathError(path, fmt.Errorf("%s without %q", kind, attr))
	}
	elem, err := p.parse(raw, enclosing, path)
	if err != nil {
		return nil, err
	}
	t := &Type{Kind: kind}
	if kind == KindArray {
		t.Items = elem
	} else {
		t.Values = elem
	}
	return t, nil
}

// parseLogical applies the logicalType attribute, if any, to t.
func (p *avroParser) parseLogical(t *Type, attrs map[string]json.RawMessage, path string) error {
	var name string
	if err := optionalAttr(attrs, "logicalType", &name); err != nil {
		return pathError(path, err)
	}
	var want []Kind
	switch name {
	case "decimal":
		t.Logical, want = LogicalDecimal, []Kind{KindBytes, KindFixed}
		if err := requiredAttr(attrs, "precision", &t.Precision); err != nil {
			return pathError(path, fmt.Errorf("decimal: %w", err))
		}
		if err := optionalAttr(attrs, "scale", &t.Scale); err != nil {
			return pathError(path, fmt.Errorf("decimal: %w", err))
		}
	case "date":
		t.Logical, want = LogicalDate, []Kind{KindInt}
	case "timestamp-micros":
		t.Logical, want = LogicalTimestampMicros, []Kind{KindLong}
	case "timestamp-millis":
		t.Logical, want = LogicalTimestampMillis, []Kind{KindLong}
	case "uuid":
		t.Logical, want = LogicalUUID, []Kind{KindString}
	default:
		return nil
	}
	for _, k := range want {
		if t.Kind == k {
			return nil
		}
	}
	return pathError(path, fmt.Errorf("logical type %s does not apply to %s", name, t.Kind))
}

func requiredAttr(attrs map[string]json.RawMessage, name string, dst any) error {
	if _, ok := attrs[name]; !ok {
		return fmt.Errorf("missing %q", name)
	}
	return optionalAttr(attrs, name, dst)
}

func optionalAttr(attrs map[string]json.RawMessage, name string, dst any) error {
	raw, ok := attrs[name]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("bad %q %s: %w", name, raw, err)
	}
	return nil
}

// pathError prefixes err with the field path it concerns.
func pathError(path string, err error) error {
	if path == "" {
		return err
	}
	return fmt.Errorf("field %q: %w", path, err)
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// describeType names a type for error messages: "nullable long", "record x".
func describeType(t *Type) string {
	s := t.Kind.String()
	if t.Logical != LogicalNone {
		s = t.Logical.String()
	}
	if t.Name != "" {
		s += " " + strconv.Quote(t.Name)
	}
	if t.Nullable {
		s = "nullable " + s
	}
	return s
}

// MarshalJSON returns the schema's Avro JSON in the form Hudi writes: nullable
// types as ["null", T] with "default": null, attributes in the order Java's
// Avro library writes them, and named types defined once, then referred to by
// full name.
func (s *Schema) MarshalJSON() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("storage: marshal Avro schema: %w", err)
	}
	w := avroWriter{defined: map[string]bool{}}
	w.writeType(s.recordType(), "")
	return w.buf, nil
}

// avroWriter emits Avro JSON; defined holds the full names of the named types
// written so far.
type avroWriter struct {
	buf     []byte
	defined map[string]bool
}

func (w *avroWriter) writeType(t *Type, enclosing string) {
	if t.Nullable {
		w.raw(`["null",`)
		defer w.raw(`]`)
	}
	switch t.Kind {
	case KindRecord, KindEnum, KindFixed:
		full := FullName(t.Name, t.Namespace, enclosing)
		if w.defined[full] {
			// A reference, qualified only outside its namespace, as Java's
			// Avro writes it.
			if NamespaceOf(full) == enclosing {
				w.str(lastName(full))
			} else {
				w.str(full)
			}
			return
		}
		w.defined[full] = true
		w.raw(`{"type":`)
		w.str(t.Kind.String())
		w.raw(`,"name":`)
		w.str(t.Name)
		if t.Namespace != "" {
			w.raw(`,"namespace":`)
			w.str(t.Namespace)
		}
		if t.Doc != "" {
			w.raw(`,"doc":`)
			w.str(t.Doc)
		}
		w.writeNamedBody(t, NamespaceOf(full))
	case KindArray:
		w.raw(`{"type":"array","items":`)
		w.writeType(t.Items, enclosing)
	case KindMap:
		w.raw(`{"type":"map","values":`)
		w.writeType(t.Values, enclosing)
	default:
		if t.Logical == LogicalNone {
			w.str(t.Kind.String())
			return
		}
		w.raw(`{"type":`)
		w.str(t.Kind.String())
		w.writeLogical(t)
	}
	w.raw(`}`)
}

// writeNamedBody writes what follows the name of a record, enum or fixed.
func (w *avroWriter) writeNamedBody(t *Type, namespace string) {
	switch t.Kind {
	case KindRecord:
		w.raw(`,"fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				w.raw(`,`)
			}
			w.raw(`{"name":`)
			w.str(f.Name)
			w.raw(`,"type":`)
			w.writeType(f.Type, namespace)
			if f.Doc != nil {
				w.raw(`,"doc":`)
				w.str(*f.Doc)
			}
			switch {
			case f.Type.Nullable:
				w.raw(`,"default":null`)
			case f.Default != nil:
				w.raw(`,"default":`)
				w.raw(string(f.Default))
			}
			w.raw(`}`)
		}
		w.raw(`]`)
	case KindEnum:
		w.raw(`,"symbols":[`)
		for i, sym := range t.Symbols {
			if i > 0 {
				w.raw(`,`)
			}
			w.str(sym)
		}
		w.raw(`]`)
	case KindFixed:
		w.raw(`,"size":`)
		w.raw(strconv.Itoa(t.Size))
		w.writeLogical(t)
	}
}

func (w *avroWriter) writeLogical(t *Type) {
	if t.Logical == LogicalNone {
		return
	}
	w.raw(`,"logicalType":`)
	w.str(t.Logical.String())
	if t.Logical == LogicalDecimal {
		w.raw(`,"precision":` + strconv.Itoa(t.Precision) + `,"scale":` + strconv.Itoa(t.Scale))
	}
}

func (w *avroWriter) raw(s string) { w.buf = append(w.buf, s...) }

// str writes s as a JSON string, escaping only what JSON requires.
func (w *avroWriter) str(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	w.buf = append(w.buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

package ingest

// Type inference of loose values: the type of one value, preferring a
// table's type where it fits, and the join of two types.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// The nullable primitive types inference gives loose values. They are shared:
// join copies a type before changing it, and Finish hands out copies.
var (
	inferredBoolean = &basefile.Type{Kind: basefile.KindBoolean, Nullable: true}
	inferredLong    = &basefile.Type{Kind: basefile.KindLong, Nullable: true}
	inferredDouble  = &basefile.Type{Kind: basefile.KindDouble, Nullable: true}
	inferredString  = &basefile.Type{Kind: basefile.KindString, Nullable: true}
)

// typer infers the types of loose values. A nil *Type stands for the type of
// null, about which nothing is known yet.
type typer struct {
	// text tells that strings are untyped text, which may read as numbers
	// and booleans.
	text bool
}

// typeOf returns the type of the loose value v: pref, if v fits it, or the
// type inferred from v, keeping pref's types for the parts of a record, array
// or map that fit them. pref may be nil. An inferred record is named as Spark
// names it: name, the field holding it, in the namespace parent, the full name
// of the enclosing record. Inferred types are nullable, elements and fields
// included.
func (ty typer) typeOf(v any, pref *basefile.Type, name, parent string) (*basefile.Type, *valueError) {
	if pref != nil {
		if v == nil {
			return nullable(pref), nil
		}
		_, misfit := coerce(v, pref)
		if misfit == nil {
			return pref, nil
		}
		switch x := v.(type) {
		case *Object:
			switch pref.Kind {
			case basefile.KindRecord:
				return ty.recordOf(x, pref, name, parent)
			case basefile.KindMap:
				return ty.mapOf(x, pref, name, parent)
			}
		case []any:
			if pref.Kind == basefile.KindArray {
				return ty.arrayOf(x, pref.Items, pref.Nullable, name, parent)
			}
		}
		// A value that is not null is nullable only where pref is.
		t, err := ty.infer(v, name, parent)
		if err != nil {
			return nil, err
		}
		if !isComplex(pref) && !basefile.Widens(pref, t) {
			// A write would refuse the column's type: the value that does
			// not fit, and why, is the better error.
			return nil, misfit
		}
		if t.Nullable == pref.Nullable {
			return t, nil
		}
		c := *t
		c.Nullable = pref.Nullable
		return &c, nil
	}
	return ty.infer(v, name, parent)
}

// infer returns the type inferred from the loose value v, named as typeOf
// says.
func (ty typer) infer(v any, name, parent string) (*basefile.Type, *valueError) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return inferredBoolean, nil
	case json.Number:
		return inferNumber(string(x))
	case string:
		if ty.text {
			return inferText(x), nil
		}
		return inferredString, nil
	case []any:
		return ty.arrayOf(x, nil, true, name, parent)
	case *Object:
		return ty.recordOf(x, nil, name, parent)
	}
	return nil, &valueError{msg: fmt.Sprintf("unsupported value of Go type %T", v)}
}

// inferNumber returns the type of a JSON number: long when it is written as
// a whole number, double otherwise. A whole number out of the range of a
// long is refused: as a double it would lose digits, and two keys could
// become one.
func inferNumber(s string) (*basefile.Type, *valueError) {
	ok, whole := scanNumber(s)
	if !ok {
		return nil, &valueError{msg: fmt.Sprintf("%q is not a JSON number", s)}
	}
	if t := numberType(s, whole); t != nil {
		return t, nil
	}
	if whole {
		return nil, &valueError{msg: fmt.Sprintf("%s is a whole number out of the range of a long; write it as a string, or give the column a decimal type (hoodiectl init --schema)", s)}
	}
	return nil, &valueError{msg: fmt.Sprintf("%s is out of the range of a double", s)}
}

// numberType returns long for a whole number in JSON syntax that fits one,
// double for any other number, or nil for a whole number out of the range
// of a long or a number out of the range of a double.
func numberType(s string, whole bool) *basefile.Type {
	if whole {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return inferredLong
		}
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return nil
	}
	return inferredDouble
}

// inferText returns the type of untyped text: long or double for a number in
// JSON syntax (in range: a longer whole number, an identifier perhaps, is a
// string), boolean for "true" or "false" in any case, string otherwise.
func inferText(s string) *basefile.Type {
	if ok, whole := scanNumber(s); ok {
		if t := numberType(s, whole); t != nil {
			return t
		}
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return inferredBoolean
	}
	return inferredString
}

// arrayOf returns the array type of elems, the join of their types (each
// preferring items).
func (ty typer) arrayOf(elems []any, items *basefile.Type, isNullable bool, name, parent string) (*basefile.Type, *valueError) {
	var joined *basefile.Type
	for i, e := range elems {
		t, err := ty.typeOf(e, items, name, parent)
		if err == nil {
			joined, err = joinNext(i, joined, t, ty.text, "elements")
		}
		if err != nil {
			return nil, err.at(indexElem(i))
		}
	}
	if items == nil {
		joined = nullable(joined)
	}
	return &basefile.Type{Kind: basefile.KindArray, Items: joined, Nullable: isNullable}, nil
}

// mapOf returns the map type of o, the join of its values' types (each
// preferring pref's values).
func (ty typer) mapOf(o *Object, pref *basefile.Type, name, parent string) (*basefile.Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	var joined *basefile.Type
	for i, v := range o.Values {
		t, err := ty.typeOf(v, pref.Values, name, parent)
		if err == nil {
			joined, err = joinNext(i, joined, t, ty.text, "values")
		}
		if err != nil {
			return nil, err.at(keyElem(o.Names[i]))
		}
	}
	return &basefile.Type{Kind: basefile.KindMap, Values: joined, Nullable: pref.Nullable}, nil
}

// recordOf returns the record type of o: pref's fields first, each with the
// type of its member preferring the field's type, then the other members in
// order, with inferred nullable types. Without pref the record is named name
// in the namespace parent.
func (ty typer) recordOf(o *Object, pref *basefile.Type, name, parent string) (*basefile.Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	rec := &basefile.Type{Kind: basefile.KindRecord, Name: name, Namespace: parent, Nullable: true}
	var prefFields []basefile.Field
	if pref != nil {
		rec = &basefile.Type{Kind: basefile.KindRecord, Name: pref.Name, Namespace: pref.Namespace, Doc: pref.Doc, Nullable: pref.Nullable}
		prefFields = pref.Fields
	}
	full := basefile.FullName(rec.Name, rec.Namespace, basefile.NamespaceOf(parent))
	rec.Fields = make([]basefile.Field, 0, len(prefFields)+len(o.Names))
	for _, f := range prefFields {
		var m any
		if j := slices.Index(o.Names, f.Name); j >= 0 {
			m = o.Values[j]
		}
		t, err := ty.typeOf(m, f.Type, f.Name, full)
		if err != nil {
			return nil, err.at(f.Name)
		}
		f.Type = t
		rec.Fields = append(rec.Fields, f)
	}
	for i, n := range o.Names {
		if pref != nil && fieldIndex(prefFields, n, i) >= 0 {
			continue
		}
		if !basefile.ValidName(n) {
			return nil, (&valueError{msg: "not a valid field name (letters, digits and _, not starting with a digit)"}).at(n)
		}
		t, err := ty.typeOf(o.Values[i], nil, n, full)
		if err != nil {
			return nil, err.at(n)
		}
		rec.Fields = append(rec.Fields, basefile.Field{Name: n, Type: nullable(t)})
	}
	return rec, nil
}

// duplicateName returns a name that names holds twice.
func duplicateName(names []string) (string, bool) {
	if len(names) <= 16 {
		for i, n := range names {
			if slices.Contains(names[:i], n) {
				return n, true
			}
		}
		return "", false
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n, true
		}
		seen[n] = true
	}
	return "", false
}

// nullable returns t if it is nullable or nil, and a nullable copy otherwise.
func nullable(t *basefile.Type) *basefile.Type {
	if t == nil || t.Nullable {
		return t
	}
	return basefile.Nullable(t)
}

// join returns the least type that both a and b fit, which is a itself when b
// adds nothing to it: records get the fields of both (those of a first),
// arrays and maps the join of their elements, numbers the wider of long and
// double, strings and enums string; in text mode, any two primitive types
// join to string. A nil type (null) joins to the other made nullable. Types
// that do not join are a conflict; scope says what a and b are the types of,
// for the error.
func join(a, b *basefile.Type, text bool, scope string) (*basefile.Type, *valueError) {
	switch {
	case a == b:
		return a, nil
	case a == nil:
		return nullable(b), nil
	case b == nil:
		return nullable(a), nil
	}
	isNullable := a.Nullable || b.Nullable
	switch {
	case a.Kind == basefile.KindRecord && b.Kind == basefile.KindRecord:
		return joinRecords(a, b, isNullable, text, scope)
	case a.Kind == basefile.KindArray && b.Kind == basefile.KindArray:
		items, err := join(a.Items, b.Items, text, scope)
		if err != nil {
			return nil, err.at("[]")
		}
		if items == a.Items && isNullable == a.Nullable {
			return a, nil
		}
		c := *a
		c.Items, c.Nullable = items, isNullable
		return &c, nil
	case a.Kind == basefile.KindMap && b.Kind == basefile.KindMap:
		values, err := join(a.Values, b.Values, text, scope)
		if err != nil {
			return nil, err.at("{}")
		}
		if values == a.Values && isNullable == a.Nullable {
			return a, nil
		}
		c := *a
		c.Values, c.Nullable = values, isNullable
		return &c, nil
	case basefile.SameDefinition(a, b):
		if isNullable == a.Nullable {
			return a, nil
		}
		return nullable(a), nil
	}
	if kind, ok := joinPrimitives(a, b, text); ok {
		if a.Kind == kind && a.Logical == basefile.LogicalNone && isNullable == a.Nullable {
			return a, nil
		}
		return &basefile.Type{Kind: kind, Nullable: isNullable}, nil
	}
	return nil, &valueError{msg: fmt.Sprintf("%s here, but %s in earlier %s", typeName(b), typeName(a), scope)}
}

// joinNext joins the type t of element i to joined, the join of the types
// of the elements before it.
func joinNext(i int, joined, t *basefile.Type, text bool, scope string) (*basefile.Type, *valueError) {
	if i == 0 {
		return t, nil
	}
	return join(joined, t, text, scope)
}

// isComplex reports whether t holds values made of others.
func isComplex(t *basefile.Type) bool {
	return t.Kind == basefile.KindRecord || t.Kind == basefile.KindArray || t.Kind == basefile.KindMap
}

// joinPrimitives returns the kind that two different primitive types join to.
func joinPrimitives(a, b *basefile.Type, text bool) (basefile.Kind, bool) {
	isString := func(t *basefile.Type) bool { return t.Kind == basefile.KindString || t.Kind == basefile.KindEnum }
	switch {
	case isNumber(a) && isNumber(b):
		if isWhole(a) && isWhole(b) {
			return basefile.KindLong, true
		}
		return basefile.KindDouble, true
	case isString(a) && isString(b), text && !isComplex(a) && !isComplex(b):
		return basefile.KindString, true
	}
	return 0, false
}

// isNumber reports whether t is a number type: int, long, float, double or
// a decimal.
func isNumber(t *basefile.Type) bool {
	return basefile.WideningRank(t) > 0 || t.Logical == basefile.LogicalDecimal
}

// isWhole reports whether t is int or long.
func isWhole(t *basefile.Type) bool {
	return t.Logical == basefile.LogicalNone && (t.Kind == basefile.KindInt || t.Kind == basefile.KindLong)
}

// joinRecords joins two records: a's fields in order, then b's other fields;
// a field missing on one side becomes nullable.
func joinRecords(a, b *basefile.Type, isNullable, text bool, scope string) (*basefile.Type, *valueError) {
	fields, changed := a.Fields, false
	change := func() {
		if !changed {
			fields, changed = slices.Clone(a.Fields), true
		}
	}
	for i, fa := range a.Fields {
		t := nullable(fa.Type)
		if j := fieldIndex(b.Fields, fa.Name, i); j >= 0 {
			var err *valueError
			if t, err = join(fa.Type, b.Fields[j].Type, text, scope); err != nil {
				return nil, err.at(fa.Name)
			}
		}
		if t != fa.Type {
			change()
			fields[i].Type = t
		}
	}
	for j, fb := range b.Fields {
		if fieldIndex(a.Fields, fb.Name, j) < 0 {
			change()
			fields = append(fields, basefile.Field{Name: fb.Name, Type: nullable(fb.Type), Doc: fb.Doc})
		}
	}
	if !changed && isNullable == a.Nullable {
		return a, nil
	}
	c := *a
	c.Fields, c.Nullable = fields, isNullable
	return &c, nil
}

// resolved returns a deep copy of t in which the parts only null was seen in
// (nil types) are nullable strings.
func resolved(t *basefile.Type) *basefile.Type {
	if t == nil {
		return basefile.Nullable(basefile.Primitive(basefile.KindString))
	}
	c := *t
	c.Symbols = slices.Clone(t.Symbols)
	switch t.Kind {
	case basefile.KindArray:
		c.Items = resolved(t.Items)
	case basefile.KindMap:
		c.Values = resolved(t.Values)
	case basefile.KindRecord:
		c.Fields = make([]basefile.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = resolved(f.Type)
			c.Fields[i] = f
		}
	}
	return &c
}

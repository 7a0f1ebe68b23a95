package ingest

// Type inference of loose values: the type of one value, preferring a
// table's type where it fits, and the join of two types.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hoodie-dev/hoodie/storage"
)

// The nullable primitive types inference gives loose values. They are shared:
// join copies a type before changing it, and Finish hands out copies.
var (
	inferredBoolean = &storage.Type{Kind: storage.KindBoolean, Nullable: true}
	inferredLong    = &storage.Type{Kind: storage.KindLong, Nullable: true}
	inferredDouble  = &storage.Type{Kind: storage.KindDouble, Nullable: true}
	inferredString  = &storage.Type{Kind: storage.KindString, Nullable: true}
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
func (ty typer) typeOf(v any, pref *storage.Type, name, parent string) (*storage.Type, *valueError) {
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
			case storage.KindRecord:
				return ty.recordOf(x, pref, name, parent)
			case storage.KindMap:
				return ty.mapOf(x, pref, name, parent)
			}
		case []any:
			if pref.Kind == storage.KindArray {
				return ty.arrayOf(x, pref.Items, pref.Nullable, name, parent)
			}
		}
		// A value that is not null is nullable only where pref is.
		t, err := ty.infer(v, name, parent)
		if err != nil {
			return nil, err
		}
		if !isComplex(pref) && !storage.Widens(pref, t) {
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
func (ty typer) infer(v any, name, parent string) (*storage.Type, *valueError) {
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
func inferNumber(s string) (*storage.Type, *valueError) {
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
func numberType(s string, whole bool) *storage.Type {
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
func inferText(s string) *storage.Type {
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
func (ty typer) arrayOf(elems []any, items *storage.Type, isNullable bool, name, parent string) (*storage.Type, *valueError) {
	var joined *storage.Type
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
	return &storage.Type{Kind: storage.KindArray, Items: joined, Nullable: isNullable}, nil
}

// mapOf returns the map type of o, the join of its values' types (each
// preferring pref's values).
func (ty typer) mapOf(o *Object, pref *storage.Type, name, parent string) (*storage.Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	var joined *storage.Type
	for i, v := range o.Values {
		t, err := ty.typeOf(v, pref.Values, name, parent)
		if err == nil {
			joined, err = joinNext(i, joined, t, ty.text, "values")
		}
		if err != nil {
			return nil, err.at(keyElem(o.Names[i]))
		}
	}
	return &storage.Type{Kind: storage.KindMap, Values: joined, Nullable: pref.Nullable}, nil
}

// recordOf returns the record type of o: pref's fields first, each with the
// type of its member preferring the field's type, then the other members in
// order, with inferred nullable types. Without pref the record is named name
// in the namespace parent.
func (ty typer) recordOf(o *Object, pref *storage.Type, name, parent string) (*storage.Type, *valueError) {
	if _, err := objectOf(o, pref); err != nil {
		return nil, err
	}
	rec := &storage.Type{Kind: storage.KindRecord, Name: name, Namespace: parent, Nullable: true}
	var prefFields []storage.Field
	if pref != nil {
		rec = &storage.Type{Kind: storage.KindRecord, Name: pref.Name, Namespace: pref.Namespace, Doc: pref.Doc, Nullable: pref.Nullable}
		prefFields = pref.Fields
	}
	full := storage.FullName(rec.Name, rec.Namespace, storage.NamespaceOf(parent))
	rec.Fields = make([]storage.Field, 0, len(prefFields)+len(o.Names))
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
		if !storage.ValidName(n) {
			return nil, (&valueError{msg: "not a valid field name (letters, digits and _, not starting with a digit)"}).at(n)
		}
		t, err := ty.typeOf(o.Values[i], nil, n, full)
		if err != nil {
			return nil, err.at(n)
		}
		rec.Fields = append(rec.Fields, storage.Field{Name: n, Type: nullable(t)})
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
func nullable(t *storage.Type) *storage.Type {
	if t == nil || t.Nullable {
		return t
	}
	return storage.Nullable(t)
}

// join returns the least type that both a and b fit, which is a itself when b
// adds nothing to it: records get the fields of both (those of a first),
// arrays and maps the join of their elements, numbers the wider of long and
// double, strings and enums string; in text mode, any two primitive types
// join to string. A nil type (null) joins to the other made nullable. Types
// that do not join are a conflict; scope says what a and b are the types of,
// for the error.
func join(a, b *storage.Type, text bool, scope string) (*storage.Type, *valueError) {
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
	case a.Kind == storage.KindRecord && b.Kind == storage.KindRecord:
		return joinRecords(a, b, isNullable, text, scope)
	case a.Kind == storage.KindArray && b.Kind == storage.KindArray:
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
	case a.Kind == storage.KindMap && b.Kind == storage.KindMap:
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
	case storage.SameDefinition(a, b):
		if isNullable == a.Nullable {
			return a, nil
		}
		return nullable(a), nil
	}
	if kind, ok := joinPrimitives(a, b, text); ok {
		if a.Kind == kind && a.Logical == storage.LogicalNone && isNullable == a.Nullable {
			return a, nil
		}
		return &storage.Type{Kind: kind, Nullable: isNullable}, nil
	}
	return nil, &valueError{msg: fmt.Sprintf("%s here, but %s in earlier %s", typeName(b), typeName(a), scope)}
}

// joinNext joins the type t of element i to joined, the join of the types
// of the elements before it.
func joinNext(i int, joined, t *storage.Type, text bool, scope string) (*storage.Type, *valueError) {
	if i == 0 {
		return t, nil
	}
	return join(joined, t, text, scope)
}

// isComplex reports whether t holds values made of others.
func isComplex(t *storage.Type) bool {
	return t.Kind == storage.KindRecord || t.Kind == storage.KindArray || t.Kind == storage.KindMap
}

// joinPrimitives returns the kind that two different primitive types join to.
func joinPrimitives(a, b *storage.Type, text bool) (storage.Kind, bool) {
	isString := func(t *storage.Type) bool { return t.Kind == storage.KindString || t.Kind == storage.KindEnum }
	switch {
	case isNumber(a) && isNumber(b):
		if isWhole(a) && isWhole(b) {
			return storage.KindLong, true
		}
		return storage.KindDouble, true
	case isString(a) && isString(b), text && !isComplex(a) && !isComplex(b):
		return storage.KindString, true
	}
	return 0, false
}

// isNumber reports whether t is a number type: int, long, float, double or
// a decimal.
func isNumber(t *storage.Type) bool {
	return storage.WideningRank(t) > 0 || t.Logical == storage.LogicalDecimal
}

// isWhole reports whether t is int or long.
func isWhole(t *storage.Type) bool {
	return t.Logical == storage.LogicalNone && (t.Kind == storage.KindInt || t.Kind == storage.KindLong)
}

// joinRecords joins two records: a's fields in order, then b's other fields;
// a field missing on one side becomes nullable.
func joinRecords(a, b *storage.Type, isNullable, text bool, scope string) (*storage.Type, *valueError) {
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
			fields = append(fields, storage.Field{Name: fb.Name, Type: nullable(fb.Type), Doc: fb.Doc})
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
func resolved(t *storage.Type) *storage.Type {
	if t == nil {
		return storage.Nullable(storage.Primitive(storage.KindString))
	}
	c := *t
	c.Symbols = slices.Clone(t.Symbols)
	switch t.Kind {
	case storage.KindArray:
		c.Items = resolved(t.Items)
	case storage.KindMap:
		c.Values = resolved(t.Values)
	case storage.KindRecord:
		c.Fields = make([]storage.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = resolved(f.Type)
			c.Fields[i] = f
		}
	}
	return &c
}

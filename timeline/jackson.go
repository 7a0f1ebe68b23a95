package timeline

import (
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Hudi writes commit metadata with Jackson's default pretty printer. This
// file reproduces that output byte for byte for the values commit metadata
// holds, so that Hoodie's commit files look like Spark's:
//
//   - objects put each field on its own line, indented two spaces per
//     object level, as "name" : value; an empty object is "{ }";
//   - arrays stay on one line as [ a, b ] (their objects still break into
//     lines), an empty array is "[ ]", and arrays add no indentation level;
//   - strings escape only '"', '\\' and control characters (\b \t \n \f \r,
//     others as \u00XX with upper-case hex); everything else is raw UTF-8;
//   - there is no final newline.
//
// Hudi's maps are java.util.HashMaps, which Jackson writes in the HashMap's
// iteration order; javaHashMapOrder computes it.

// jsonObject is a JSON object with its fields in order.
type jsonObject []jsonField

// jsonField is one field of a jsonObject.
type jsonField struct {
	name  string
	value any
}

// jsonArray is a JSON array.
type jsonArray []any

// appendJackson appends v, which is nil, a bool, an int64, a string, a
// jsonObject or a jsonArray, as Jackson's default pretty printer writes it at
// object nesting level nesting.
func appendJackson(b []byte, v any, nesting int) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case string:
		return appendJacksonString(b, v)
	case jsonObject:
		if len(v) == 0 {
			return append(b, "{ }"...)
		}
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIndent(b, nesting+1)
			b = appendJacksonString(b, f.name)
			b = append(b, " : "...)
			b = appendJackson(b, f.value, nesting+1)
		}
		b = appendIndent(b, nesting)
		return append(b, '}')
	case jsonArray:
		if len(v) == 0 {
			return append(b, "[ ]"...)
		}
		b = append(b, '[', ' ')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',', ' ')
			}
			b = appendJackson(b, e, nesting)
		}
		return append(b, ' ', ']')
	default:
		// Values are built in this package from the types above only.
		return append(b, "null"...)
	}
}

func appendIndent(b []byte, nesting int) []byte {
	b = append(b, '\n')
	for range nesting {
		b = append(b, ' ', ' ')
	}
	return b
}

const upperHex = "0123456789ABCDEF"

// appendJacksonString appends s as a JSON string escaped as Jackson escapes
// it. Invalid UTF-8 becomes U+FFFD, as a Java string cannot hold it.
func appendJacksonString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

// javaHashMapOrder returns keys in the order a java.util.HashMap holding
// them iterates: by bucket, the bucket being the spread String.hashCode
// masked by the table size, which starts at 16 and doubles whenever the map
// grows past three quarters of it. Keys sharing a bucket iterate in
// insertion order, which a Go map does not keep; they are sorted instead.
// (HashMap also resizes when one bucket grows past eight keys, which needs
// far more colliding keys than commit metadata has.)
func javaHashMapOrder(keys []string) []string {
	out := append([]string(nil), keys...)
	sort.Strings(out)
	size := uint32(16)
	for uint32(len(out)) > size/4*3 {
		size *= 2
	}
	bucket := func(k string) uint32 {
		h := javaStringHash(k)
		return (h ^ h>>16) & (size - 1)
	}
	sort.SliceStable(out, func(i, j int) bool { return bucket(out[i]) < bucket(out[j]) })
	return out
}

// javaStringHash is Java's String.hashCode: the UTF-16 code units c of s
// combined as h = 31*h + c, in 32-bit arithmetic.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + uint32(hi)
			h = 31*h + uint32(lo)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// hashMapKeys returns a map's keys in Java HashMap order.
func hashMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return javaHashMapOrder(keys)
}

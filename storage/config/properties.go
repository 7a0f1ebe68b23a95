package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Properties is an ordered set of Java properties: keys in the order they
// were first set, each with one value. Hudi keeps hoodie.properties, partition
// metadata and write settings in this format.
type Properties struct {
	keys   []string
	values map[string]string
}

// NewProperties returns an empty set.
func NewProperties() *Properties {
	return &Properties{values: map[string]string{}}
}

// Get returns the value of key and whether it is set.
func (p *Properties) Get(key string) (string, bool) {
	v, ok := p.values[key]
	return v, ok
}

// GetOr returns the value of key, or def when it is not set.
func (p *Properties) GetOr(key, def string) string {
	if v, ok := p.values[key]; ok {
		return v
	}
	return def
}

// Set sets key to value, keeping the key's first position.
func (p *Properties) Set(key, value string) {
	if _, ok := p.values[key]; !ok {
		p.keys = append(p.keys, key)
	}
	p.values[key] = value
}

// Delete removes key.
func (p *Properties) Delete(key string) {
	if _, ok := p.values[key]; !ok {
		return
	}
	delete(p.values, key)
	for i, k := range p.keys {
		if k == key {
			p.keys = append(p.keys[:i], p.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in insertion order.
func (p *Properties) Keys() []string {
	return append([]string(nil), p.keys...)
}

// Len is the number of keys.
func (p *Properties) Len() int { return len(p.keys) }

// Clone returns an independent copy.
func (p *Properties) Clone() *Properties {
	c := &Properties{keys: append([]string(nil), p.keys...), values: make(map[string]string, len(p.values))}
	for k, v := range p.values {
		c.values[k] = v
	}
	return c
}

// ParseProperties reads the Java properties format (java.util.Properties.load):
// lines of "key=value", "key:value" or "key value"; comment lines starting
// with '#' or '!'; a line ending in an odd number of backslashes continues on
// the next line; escapes \t \n \r \f \uXXXX, and a backslash before any other
// character stands for that character. A later duplicate key wins.
//
// Unlike Java, which silently turns a malformed \u escape into an exception
// far from its cause, the error names the line.
func ParseProperties(data []byte) (*Properties, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("properties: not valid UTF-8 text")
	}
	props := NewProperties()
	lines := splitLogicalLines(string(data))
	for _, ll := range lines {
		key, value, err := parsePropertyLine(ll.text)
		if err != nil {
			return nil, fmt.Errorf("properties: line %d: %w", ll.number, err)
		}
		props.Set(key, value)
	}
	return props, nil
}

type logicalLine struct {
	number int // first physical line, from 1
	text   string
}

func isBlankOrComment(s string) bool {
	t := strings.TrimLeft(s, " \t\f")
	return t == "" || t[0] == '#' || t[0] == '!'
}

// splitLogicalLines joins continued lines and drops comments and blank lines.
func splitLogicalLines(s string) []logicalLine {
	var out []logicalLine
	rows := strings.Split(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\n")
	for i := 0; i < len(rows); i++ {
		line := rows[i]
		if isBlankOrComment(line) {
			continue
		}
		start := i + 1
		var b strings.Builder
		for {
			trailing := len(line) - len(strings.TrimRight(line, "\\"))
			if trailing%2 == 1 && i+1 < len(rows) {
				b.WriteString(line[:len(line)-1])
				i++
				line = strings.TrimLeft(rows[i], " \t\f")
				continue
			}
			if trailing%2 == 1 {
				line = line[:len(line)-1] // a continuation at end of input continues into nothing
			}
			b.WriteString(line)
			break
		}
		out = append(out, logicalLine{number: start, text: b.String()})
	}
	return out
}

// parsePropertyLine splits one logical line into its unescaped key and value.
func parsePropertyLine(line string) (string, string, error) {
	line = strings.TrimLeft(line, " \t\f")
	// Find the end of the key: the first unescaped separator.
	keyEnd, valueStart := len(line), len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' {
			keyEnd, valueStart = i, i+1
			break
		}
		if c == ' ' || c == '\t' || c == '\f' {
			keyEnd = i
			j := i
			for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\f') {
				j++
			}
			if j < len(line) && (line[j] == '=' || line[j] == ':') {
				j++
			}
			valueStart = j
			break
		}
	}
	key, err := unescapeProperty(line[:keyEnd])
	if err != nil {
		return "", "", fmt.Errorf("key: %w", err)
	}
	value, err := unescapeProperty(strings.TrimLeft(line[valueStart:], " \t\f"))
	if err != nil {
		return "", "", fmt.Errorf("value of %q: %w", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, err := parseUnicodeEscape(s, i+1)
			if err != nil {
				return "", err
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// Java writes characters beyond the BMP as a pair of escapes.
				low, err := parseUnicodeEscape(s, i+3)
				if err != nil || i+2 >= len(s) || s[i+1] != '\\' || s[i+2] != 'u' {
					return "", fmt.Errorf("unpaired surrogate escape %q", s[i-5:i+1])
				}
				r = utf16.DecodeRune(r, low)
				if r == utf8.RuneError {
					return "", fmt.Errorf("invalid surrogate pair escape %q", s[i-5:i+7])
				}
				i += 6
			}
			b.WriteRune(r)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// Marshal writes the properties in the Java format, keys sorted so that the
// output is deterministic, each preceded by the given comment lines. Keys and
// values are escaped as java.util.Properties.store does, so Hudi (Java)
// reads back exactly what was set: '=', ':', '#', '!' and '\' are escaped,
// leading spaces of values and all spaces of keys, control characters, and
// characters outside printable ASCII as \uXXXX.
func (p *Properties) Marshal(comments ...string) []byte {
	var b strings.Builder
	for _, c := range comments {
		for _, line := range strings.Split(c, "\n") {
			b.WriteString("#")
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	keys := p.Keys()
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(escapeProperty(k, true))
		b.WriteByte('=')
		b.WriteString(escapeProperty(p.values[k], false))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func escapeProperty(s string, isKey bool) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case ' ':
			if i == 0 || isKey {
				b.WriteString(`\ `)
			} else {
				b.WriteByte(' ')
			}
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', '#', '!', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if r < 0x20 || r > 0x7e {
				writeUnicodeEscape(&b, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// parseUnicodeEscape reads the four hex digits of a \u escape at s[at:].
func parseUnicodeEscape(s string, at int) (rune, error) {
	if at+4 > len(s) {
		return 0, fmt.Errorf("malformed \\u escape %q", s[max(at-2, 0):])
	}
	r, err := strconv.ParseUint(s[at:at+4], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("malformed \\u escape %q", s[at-2:at+4])
	}
	return rune(r), nil
}

func writeUnicodeEscape(b *strings.Builder, r rune) {
	if r > 0xFFFF {
		// Java strings are UTF-16: write the surrogate pair.
		r -= 0x10000
		fmt.Fprintf(b, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		return
	}
	fmt.Fprintf(b, `\u%04X`, r)
}

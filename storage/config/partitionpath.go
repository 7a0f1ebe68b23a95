package config

import (
	"fmt"
	"strings"
)

// DefaultPartitionValue is the folder name Hudi gives a null or empty
// partition value (Hive's convention).
const DefaultPartitionValue = "__HIVE_DEFAULT_PARTITION__"

// needsEscape reports the characters Hudi's PartitionPathEncodeUtils (after
// Hive's FileUtils.escapePathName) percent-encodes in a partition value:
// control characters, DEL, and characters with a meaning in paths, URIs or
// Hive partition specs.
func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '[', ']', '^':
		return true
	}
	return false
}

// EscapePartitionValue turns one partition column's value into a folder name
// that is always safe: characters Hudi escapes are written as %XX, so a value
// can neither name a parent folder nor split into several. The names "." and
// ".." are encoded whole, and a leading dot of any other value is encoded
// too: a hidden folder, ".hoodie" above all, is no place for data. An empty
// value becomes DefaultPartitionValue.
func EscapePartitionValue(v string) string {
	switch v {
	case "":
		return DefaultPartitionValue
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	var b strings.Builder
	if v[0] == '.' {
		b.WriteString("%2E")
		v = v[1:]
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// RawPartitionValueAllowed reports whether a value can be used unencoded,
// as Hudi does when hoodie.datasource.write.partitionpath.urlencode is
// false. Hudi then writes a value with slashes, "americas/brazil", as
// nested folders, and so does Hoodie, so that both put a record in the same
// partition. Every '/'-separated segment must be a folder name that leaves
// nothing and is not hidden: non-empty, starting with no dot (so neither
// "." nor ".."), without backslashes or control characters. A value that fails is
// escaped whole, never used raw.
func RawPartitionValueAllowed(v string) bool {
	for {
		seg, rest, more := strings.Cut(v, "/")
		if !rawSegmentAllowed(seg) {
			return false
		}
		if !more {
			return true
		}
		v = rest
	}
}

// rawSegmentAllowed reports whether one folder name of a raw value is safe.
func rawSegmentAllowed(seg string) bool {
	if seg == "" || seg[0] == '.' {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// UnescapePartitionValue reverses EscapePartitionValue. A malformed escape
// is kept as it is, as Hive does.
func UnescapePartitionValue(name string) string {
	if !strings.Contains(name, "%") {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '%' && i+2 < len(name) {
			if hi, ok := unhex(name[i+1]); ok {
				if lo, ok := unhex(name[i+2]); ok {
					b.WriteByte(hi<<4 | lo)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// PartitionPath builds a partition's relative folder from its columns'
// values: folders joined with "/", "col=value" when hive-style. Without
// urlEncode a value RawPartitionValueAllowed accepts is used as it is, so a
// value with slashes spans several folders, as in Hudi; otherwise, and
// always with urlEncode, it is escaped with EscapePartitionValue.
func PartitionPath(fields, values []string, hiveStyle, urlEncode bool) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		v := values[i]
		if urlEncode || !RawPartitionValueAllowed(v) {
			v = EscapePartitionValue(v)
		}
		if hiveStyle {
			v = f + "=" + v
		}
		parts[i] = v
	}
	return strings.Join(parts, "/")
}

// ParsePartitionPath splits a partition path into its columns' values,
// undoing hive-style prefixes and escapes. A raw value may span several
// folders (see RawPartitionValueAllowed): with one partition column the
// whole path is its value; with several and hive-style folders, a folder
// "col=..." naming the next column starts that column's value. It fails
// when the folders cannot be matched to the fields: too few, a hive-style
// folder naming another column, or more folders than columns in a table
// that is neither hive-style nor single-column, where no one can tell which
// folders make which value.
func ParsePartitionPath(partitionPath string, fields []string, hiveStyle bool) ([]string, error) {
	values, err := SplitPartitionPath(partitionPath, fields, hiveStyle)
	for i, v := range values {
		values[i] = UnescapePartitionValue(v)
	}
	return values, err
}

// SplitPartitionPath is ParsePartitionPath without unescaping: each
// column's folder text, several folders joined by "/" for a value that
// spans them.
func SplitPartitionPath(partitionPath string, fields []string, hiveStyle bool) ([]string, error) {
	if len(fields) == 0 {
		if partitionPath != "" {
			return nil, fmt.Errorf("partition path %q in a non-partitioned table", partitionPath)
		}
		return nil, nil
	}
	folders := strings.Split(partitionPath, "/")
	if len(folders) < len(fields) {
		return nil, fmt.Errorf("partition path %q has %d folder(s), the table has %d partition column(s)", partitionPath, len(folders), len(fields))
	}
	values := make([]string, 0, len(fields))
	switch {
	case hiveStyle:
		for _, folder := range folders {
			next := len(values)
			if next < len(fields) {
				if value, ok := strings.CutPrefix(folder, fields[next]+"="); ok {
					values = append(values, value)
					continue
				}
			}
			if next == 0 {
				return nil, fmt.Errorf("partition path %q: folder %q is not %s=<value>", partitionPath, folder, fields[0])
			}
			values[next-1] += "/" + folder
		}
		if len(values) != len(fields) {
			return nil, fmt.Errorf("partition path %q: no folder %s=<value>", partitionPath, fields[len(values)])
		}
	case len(folders) == len(fields):
		values = folders
	case len(fields) == 1:
		values = append(values, partitionPath)
	default:
		return nil, fmt.Errorf("partition path %q has %d folders for %d partition columns: which make which value is ambiguous", partitionPath, len(folders), len(fields))
	}
	return values, nil
}

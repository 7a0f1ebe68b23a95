package sqlengine

import (
	"encoding/base64"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// File is a base file of a view, with the values of the columns that the
// view computes for its rows rather than reading them from it, as a scan
// (package read) does.
type File struct {
	// Path is the file's local path.
	Path string
	// Meta, if not nil, holds values of meta columns by name, which replace
	// whatever the file stores there: the commit time, partition path and
	// file name of a file of a table without meta fields (see
	// read.ComputedMeta).
	Meta map[string]string
	// Partition holds values of partition columns by name, which fill the
	// column in the rows where the file stores null or nothing: the values
	// of a table's partition folders (see read.PartitionValues).
	Partition map[string]any
}

// filePaths returns the paths of files.
func filePaths(files []File) []string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths
}

// computed reports whether the view computes any column of f.
func (f File) computed() bool {
	if f.Meta != nil {
		return true
	}
	for _, v := range f.Partition {
		if v != nil {
			return true
		}
	}
	return false
}

// Computes reports whether the view of a table whose configuration is cfg
// computes columns of its files (see TableFiles), and so needs the table's
// schema: the view of a table whose files store every column reads the
// files alone.
func Computes(cfg *config.Table) bool {
	return !cfg.PopulateMetaFields || cfg.DropPartitionColumns
}

// TableFiles returns the files of a view over slices, the latest file
// slices of a table whose configuration is cfg, stored in the local folder
// root, and whose schema is schema (nil if it has none), with what a scan
// computes for them: the commit time, partition path and file name of a
// table that does not populate meta fields, and the partition columns of a
// table whose files leave them out (hoodie.datasource.write.drop.partition.columns),
// from the folder names. Files of other tables compute nothing, so that
// their view reads the files alone.
func TableFiles(root string, cfg *config.Table, schema *basefile.Schema, slices []read.FileSlice) []File {
	files := make([]File, len(slices))
	for i, s := range slices {
		files[i].Path = filepath.Join(root, filepath.FromSlash(s.Path))
		if !cfg.PopulateMetaFields {
			files[i].Meta = read.ComputedMeta(s)
		}
		if cfg.DropPartitionColumns {
			files[i].Partition = read.PartitionValues(cfg, schema, s.Partition)
		}
	}
	return files
}

// fileColumn names the column of a view's rows that holds the path of
// their file, read_parquet's filename option, dropped from the view.
const fileColumn = "__hoodie_view_file"

// computedViewQuery returns the query of a view over files of which some
// compute columns (see File): the files' rows, with every meta column and
// every column of schema there even where no file stores it, joined on
// their file to a table of the computed values. The columns come in the
// order of schema.WithMetaFields, then any column of the files that schema
// lacks.
func computedViewQuery(files []File, schema *basefile.Schema) (string, error) {
	if schema == nil {
		schema = &basefile.Schema{}
	}
	full := schema.WithMetaFields()
	nulls, err := nullColumns(full)
	if err != nil {
		return "", err
	}
	types := make(map[string]*basefile.Type, len(full.Fields))
	for _, f := range full.Fields {
		types[f.Name] = f.Type
	}
	// The computed columns: the meta columns any file computes, in Hudi's
	// order, then the partition columns, in the schema's.
	var metaCols, partCols []string
	for _, name := range basefile.MetaFieldNames {
		for _, f := range files {
			if _, ok := f.Meta[name]; ok {
				metaCols = append(metaCols, name)
				break
			}
		}
	}
	for _, field := range schema.Fields {
		for _, f := range files {
			if v, ok := f.Partition[field.Name]; ok && v != nil {
				partCols = append(partCols, field.Name)
				break
			}
		}
	}
	rows := make([]string, len(files))
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = QuoteString(escapeGlob(f.Path))
		values := []string{QuoteString(f.Path)}
		for _, name := range metaCols {
			v, ok := f.Meta[name]
			if !ok {
				values = append(values, "CAST(NULL AS VARCHAR)")
				continue
			}
			values = append(values, QuoteString(v))
		}
		for _, name := range partCols {
			lit, err := literal(f.Partition[name], types[name])
			if err != nil {
				return "", fmt.Errorf("partition column %s of %s: %w", name, f.Path, err)
			}
			values = append(values, lit)
		}
		rows[i] = "(" + strings.Join(values, ", ") + ")"
	}
	// The computed table's columns are named c0, c1, ... after the path.
	names := []string{"path"}
	var replace []string
	for i, name := range append(append([]string(nil), metaCols...), partCols...) {
		c := "c" + strconv.Itoa(i)
		names = append(names, c)
		if i < len(metaCols) {
			// A file that computes no meta columns keeps its own.
			replace = append(replace, fmt.Sprintf("coalesce(f.%s, r.%s) AS %s", c, QuoteIdent(name), QuoteIdent(name)))
		} else {
			replace = append(replace, fmt.Sprintf("coalesce(r.%s, f.%s) AS %s", QuoteIdent(name), c, QuoteIdent(name)))
		}
	}
	return fmt.Sprintf("SELECT r.* EXCLUDE (%[1]s) REPLACE (%[2]s) FROM ("+
		"SELECT %[3]s, CAST(NULL AS VARCHAR) AS %[1]s WHERE false "+
		"UNION ALL BY NAME "+
		"SELECT * FROM read_parquet([%[4]s], union_by_name = true, hive_partitioning = false, filename = %[5]s)"+
		") r LEFT JOIN (VALUES %[6]s) f(%[7]s) ON r.%[1]s = f.path",
		QuoteIdent(fileColumn), strings.Join(replace, ", "), nulls, strings.Join(paths, ", "),
		QuoteString(fileColumn), strings.Join(rows, ", "), strings.Join(names, ", ")), nil
}

// literal returns a DuckDB expression of value v, in the value model of
// package read, of the type DuckDB gives a column of type t (see
// duckDBType).
func literal(v any, t *basefile.Type) (string, error) {
	typ, err := duckDBType(t)
	if err != nil {
		return "", err
	}
	var text string
	switch v := v.(type) {
	case nil:
		return "CAST(NULL AS " + typ + ")", nil
	case bool:
		text = strconv.FormatBool(v)
	case int32:
		text = strconv.FormatInt(int64(v), 10)
	case int64:
		text = strconv.FormatInt(v, 10)
	case float32:
		text = floatText(float64(v), 32)
	case float64:
		text = floatText(v, 64)
	case string:
		text = v
	case basefile.Decimal:
		text = v.String()
	case basefile.Date:
		text = v.String()
	case time.Time:
		text = v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "CAST(from_base64(" + QuoteString(base64.StdEncoding.EncodeToString(v)) + ") AS " + typ + ")", nil
	default:
		return "", fmt.Errorf("no SQL literal for a %T", v)
	}
	return "CAST(" + QuoteString(text) + " AS " + typ + ")", nil
}

// floatText returns the text of a float of bitSize bits that DuckDB casts
// back to it.
func floatText(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bitSize)
}

package write

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// lossyWidening is a column whose type a write widens from a whole-number
// type (int or long) to a floating-point one (float or double) that does
// not hold every value of the old type exactly.
type lossyWidening struct {
	name     string
	from, to basefile.Kind
}

// lossyWidenings returns the columns of table that evolved widens along a
// conversion that may round values: int or long to float, long to double.
// int -> long, int -> double and float -> double are exact.
func lossyWidenings(table, evolved *basefile.Schema) []lossyWidening {
	if table == nil {
		return nil
	}
	var out []lossyWidening
	for _, f := range table.Fields {
		g, ok := evolved.Field(f.Name)
		if !ok || f.Type.Logical != basefile.LogicalNone || g.Type.Logical != basefile.LogicalNone {
			continue
		}
		from, to := f.Type.Kind, g.Type.Kind
		switch {
		case (from == basefile.KindInt || from == basefile.KindLong) && to == basefile.KindFloat,
			from == basefile.KindLong && to == basefile.KindDouble:
			out = append(out, lossyWidening{name: f.Name, from: from, to: to})
		}
	}
	return out
}

// checkStoredWidening fails, before anything is written, if a widening of
// columns would round a value the table's latest files hold: the table's
// type changes for all of them, rewritten or not. A row group whose
// column statistics (min and max) lie where every whole number converts
// exactly (see exactInFloat) is proven from its file's footer alone; the
// values of the others (no statistics, or bounds beyond) are read and
// checked one by one. The error names the column, a value it would lose
// and its file.
func checkStoredWidening(ctx context.Context, fsys storage.FS, view *read.View, columns []lossyWidening) error {
	for _, s := range view.LatestSlices() {
		if err := checkFileWidening(ctx, fsys, s.Path, columns); err != nil {
			return err
		}
	}
	return nil
}

func checkFileWidening(ctx context.Context, fsys storage.FS, path string, columns []lossyWidening) error {
	bf, err := basefile.Open(ctx, fsys, path)
	if err != nil {
		return err
	}
	defer bf.Close()
	pf := bf.Parquet()
	for _, c := range columns {
		leaf, ok := pf.Schema().Lookup(c.name)
		if !ok {
			continue // written before the column was added: nulls only
		}
		for r, rg := range pf.Metadata().RowGroups {
			if leaf.ColumnIndex >= len(rg.Columns) {
				return fmt.Errorf("base file %s: row group %d has no column %q", path, r, c.name)
			}
			stats := rg.Columns[leaf.ColumnIndex].MetaData.Statistics
			lo, hi, ok := wholeBounds(leaf.Node.Type().Kind(), stats.MinValue, stats.MaxValue)
			if !ok {
				lo, hi, ok = wholeBounds(leaf.Node.Type().Kind(), stats.Min, stats.Max)
			}
			if ok {
				if bad, lost := firstInexact(c.to, lo, hi); lost {
					return lossError(c, bad, path)
				}
				if inExactRange(lo, c.to) && inExactRange(hi, c.to) {
					continue
				}
			}
			// No statistics, or bounds beyond the range of exact values:
			// read the values.
			if err := checkChunkWidening(pf.RowGroups()[r].ColumnChunks()[leaf.ColumnIndex], c, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// wholeBounds decodes the plain-encoded bounds of a column chunk of whole
// numbers (INT32 or INT64); ok is false without both.
func wholeBounds(kind parquet.Kind, minValue, maxValue []byte) (lo, hi int64, ok bool) {
	switch {
	case kind == parquet.Int32 && len(minValue) == 4 && len(maxValue) == 4:
		return int64(int32(binary.LittleEndian.Uint32(minValue))), int64(int32(binary.LittleEndian.Uint32(maxValue))), true
	case kind == parquet.Int64 && len(minValue) == 8 && len(maxValue) == 8:
		return int64(binary.LittleEndian.Uint64(minValue)), int64(binary.LittleEndian.Uint64(maxValue)), true
	}
	return 0, 0, false
}

// firstInexact returns the first of lo and hi that the kind cannot hold
// exactly.
func firstInexact(kind basefile.Kind, lo, hi int64) (int64, bool) {
	for _, n := range []int64{lo, hi} {
		if !exactInFloat(n, kind) {
			return n, true
		}
	}
	return 0, false
}

// inExactRange reports whether n lies where every whole number converts
// to the floating-point kind exactly: within ±2^24 (float) or ±2^53
// (double).
func inExactRange(n int64, kind basefile.Kind) bool {
	limit := int64(1 << 53)
	if kind == basefile.KindFloat {
		limit = 1 << 24
	}
	return -limit <= n && n <= limit
}

// checkChunkWidening reads the values of a column chunk of whole numbers
// and fails on the first the widening would round.
func checkChunkWidening(chunk parquet.ColumnChunk, c lossyWidening, path string) error {
	pages := chunk.Pages()
	defer pages.Close()
	values := make([]parquet.Value, 1024)
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("base file %s: read column %q: %w", path, c.name, err)
		}
		err = checkPageWidening(p, values, c, path)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

func checkPageWidening(p parquet.Page, values []parquet.Value, c lossyWidening, path string) error {
	r := p.Values()
	for {
		n, err := r.ReadValues(values)
		for _, v := range values[:n] {
			if v.IsNull() {
				continue
			}
			x := v.Int64()
			if v.Kind() == parquet.Int32 {
				x = int64(v.Int32())
			}
			if !exactInFloat(x, c.to) {
				return lossError(c, x, path)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("base file %s: read column %q: %w", path, c.name, err)
		}
	}
}

// lossError refuses the widening of c, which would round the stored value
// n of the base file path.
func lossError(c lossyWidening, n int64, path string) error {
	rounded := float64(n)
	if c.to == basefile.KindFloat {
		rounded = float64(float32(n))
	}
	return &RefusedError{fmt.Errorf("column %q: widening it from %s to %s would round values the table holds, such as %d (in %s), which would become %.0f; keep the column's type (a long or decimal column keeps every digit), or set %s=true to widen anyway and lose those digits",
		c.name, c.from, c.to, n, path, rounded, KeyLossyWidening)}
}

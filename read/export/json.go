package export

import (
	"fmt"

	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// appendRecord appends row, values of fields in basefile's value model, as
// a JSON object whose values are as `hoodiectl read --format jsonl` prints
// them (see valuefmt).
func appendRecord(dst []byte, fields []basefile.Field, row []any) ([]byte, error) {
	if len(row) != len(fields) {
		return nil, fmt.Errorf("a record of %d values for %d fields", len(row), len(fields))
	}
	return valuefmt.AppendRecord(dst, fields, row), nil
}

package write

import (
	"fmt"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Input is a batch of records to write: rows under the input's own schema,
// which may differ from the table's (new nullable columns, narrower numeric
// types, columns left out). Values follow the storage value model exactly
// (see storage/basefile/value.go): a long column holds int64, a record column []any...
type Input struct {
	// Name names the input in errors: a file name, or "standard input".
	Name string
	// Schema describes the rows. It holds no meta fields.
	Schema *basefile.Schema
	// Rows are the records, each a []any in Schema's field order.
	Rows [][]any
	// Lines optionally gives the source line of each row, for errors; when
	// nil, errors name the record by its 1-based position.
	Lines []int
}

// RecordError is a problem with one input record. Its message names the
// input, the record (line or position, and key when known) and the cause.
type RecordError struct {
	Input string
	// Line is the record's source line, or its 1-based position when the
	// input has no line numbers.
	Line int
	// ByPosition reports that Line is a position, not a line number.
	ByPosition bool
	// Key is the record key, when it could be computed.
	Key string
	Err error
}

func (e *RecordError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.ByPosition {
		where = fmt.Sprintf("record %d", e.Line)
	}
	if e.Key != "" {
		where += fmt.Sprintf(" (key %q)", e.Key)
	}
	return fmt.Sprintf("%s: %s: %v", displayName(e.Input), where, e.Err)
}

func displayName(name string) string {
	if name == "" {
		return "input"
	}
	return name
}

// displayName names the input in messages.
func (in *Input) displayName() string { return displayName(in.Name) }

// where names row i: "line N" or "record N".
func (in *Input) where(i int) string {
	if in.Lines != nil && i < len(in.Lines) {
		return fmt.Sprintf("line %d", in.Lines[i])
	}
	return fmt.Sprintf("record %d", i+1)
}

func (e *RecordError) Unwrap() error { return e.Err }

// recordError wraps err as a RecordError for row i of in.
func (in *Input) recordError(i int, key string, err error) error {
	re := &RecordError{Input: in.Name, Line: i + 1, ByPosition: true, Key: key, Err: err}
	if in.Lines != nil && i < len(in.Lines) {
		re.Line, re.ByPosition = in.Lines[i], false
	}
	return re
}

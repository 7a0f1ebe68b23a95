package write

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/basefile"
	"github.com/hoodie-dev/hoodie/storage/config"
)

// newValuesTable makes an empty table with the record key columns keys,
// the precombine column ts and no partitions.
func newValuesTable(t *testing.T, keys []string, settings Settings) *testTable {
	t.Helper()
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.NewTable("values", keys, "ts", nil, false, config.MergeEventTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.CreateTable(context.Background(), fsys, cfg, time.Now()); err != nil {
		t.Fatal(err)
	}
	return &testTable{t: t, dir: dir, fsys: fsys, w: newTestWriter(fsys, dir, settings)}
}

// valuesInput is an input of the columns (name, kind, all nullable) and
// rows.
func valuesInput(columns []string, kinds []basefile.Kind, rows ...[]any) *Input {
	s := &basefile.Schema{Name: "values"}
	for i, c := range columns {
		s.Fields = append(s.Fields, basefile.Field{Name: c, Type: basefile.Nullable(basefile.Primitive(kinds[i]))})
	}
	return &Input{Name: "in", Schema: s, Rows: rows}
}

// writeErr writes in and returns the error, after checking that a failed
// write committed nothing.
func (tt *testTable) writeErr(op Operation, in *Input) error {
	tt.t.Helper()
	before := snapshot(tt.t, tt.fsys, "")
	_, err := tt.w.Write(context.Background(), op, in)
	if err != nil {
		if after := snapshot(tt.t, tt.fsys, ""); !equalData(dataOf(before), dataOf(after)) {
			tt.t.Fatalf("a failed %s changed the table", op)
		}
	}
	return err
}

// TestInputKeyRefusesAmbiguousParts checks that an incoming record whose
// complex key Hudi's format cannot tell from another's is refused, naming
// the column, while stored keys are computed as Hudi computes them.
func TestInputKeyRefusesAmbiguousParts(t *testing.T) {
	str := basefile.Nullable(basefile.Primitive(basefile.KindString))
	schema := &basefile.Schema{Name: "r", Fields: []basefile.Field{{Name: "k1", Type: str}, {Name: "k2", Type: str}}}
	g, err := NewKeyGenerator(&config.Table{RecordKeyFields: []string{"k1", "k2"}}, schema)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		row     []any
		want    string // the key, or the error's text
		refused bool
	}{
		{[]any{"x", "y"}, "k1:x,k2:y", false},
		{[]any{"a,b", "c:d"}, "k1:a,b,k2:c:d", false},   // separators alone do not make a key ambiguous
		{[]any{"x,k3:y", "z"}, "k1:x,k3:y,k2:z", false}, // k3 is no key column
		{[]any{"2014-10-22 13:50:42", "z"}, "k1:2014-10-22 13:50:42,k2:z", false},
		{[]any{"x,k2:y", "z"}, `whose ",k2:" reads as the start of key column "k2"`, true},
		{[]any{"x", "y,k2:z"}, `whose ",k2:" reads as the start of key column "k2"`, true},
		{[]any{"x", "y,k1:z"}, `key column "k1"`, true},
		{[]any{nil, "y"}, `record key column "k1" is null`, true},
		{[]any{"x", ""}, `record key column "k2" is empty`, true},
		{[]any{"__null__", "y"}, `holds "__null__"`, true},
		{[]any{"x", "__empty__"}, `holds "__empty__"`, true},
	}
	for _, tc := range tests {
		key, err := g.InputKey(tc.row)
		switch {
		case tc.refused && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("InputKey(%q) = %q, %v; want an error with %q", tc.row, key, err, tc.want)
		case !tc.refused && (err != nil || key != tc.want):
			t.Errorf("InputKey(%q) = %q, %v; want %q", tc.row, key, err, tc.want)
		}
	}
	// A named key of one column ("k1:value", see namedSingleKeys) is cut
	// nowhere: its value may hold anything but a null, an empty string or a
	// placeholder.
	one, err := NewKeyGenerator(&config.Table{RecordKeyFields: []string{"k1"}}, schema)
	if err != nil {
		t.Fatal(err)
	}
	one.named = true
	if key, err := one.InputKey([]any{"x,k1:y", nil}); err != nil || key != "k1:x,k1:y" {
		t.Errorf("named single key of x,k1:y = %q, %v; want k1:x,k1:y", key, err)
	}
	if key, err := one.InputKey([]any{"__empty__", nil}); err == nil {
		t.Errorf("named single key of __empty__ = %q, want an error", key)
	}
	// Stored rows, which Spark may have written, get Hudi's keys.
	if key, err := g.RecordKey([]any{nil, ""}); err == nil {
		t.Errorf("RecordKey of null and empty parts = %q, want an error", key)
	}
	if key, err := g.RecordKey([]any{"x", nil}); err != nil || key != "k1:x,k2:__null__" {
		t.Errorf("RecordKey of a null part = %q, %v; want Hudi's k1:x,k2:__null__", key, err)
	}
}

// TestComplexKeysDoNotCollide checks the two records, which once
// became one: each is refused as bad input, naming its record and column,
// and so is a null key part.
func TestComplexKeysDoNotCollide(t *testing.T) {
	tt := newValuesTable(t, []string{"k1", "k2"}, Settings{})
	cols, kinds := []string{"k1", "k2", "ts"}, []basefile.Kind{basefile.KindString, basefile.KindString, basefile.KindLong}
	tt.write(OpUpsert, valuesInput(cols, kinds, []any{"x", "y", int64(1)}))
	for _, tc := range []struct {
		row    []any
		column string
	}{
		{[]any{"x,k2:y", "z", int64(2)}, `record key column "k1" holds`},
		{[]any{"x", "y,k2:z", int64(2)}, `record key column "k2" holds`},
		{[]any{"x", nil, int64(2)}, `record key column "k2" is null`},
	} {
		err := tt.writeErr(OpUpsert, valuesInput(cols, kinds, []any{"a", "b", int64(1)}, tc.row))
		var re *RecordError
		if !errors.As(err, &re) || re.Line != 2 || !strings.Contains(err.Error(), tc.column) || errors.Is(err, ErrRefused) {
			t.Errorf("record %q: %v, want bad input naming record 2 and %s", tc.row, err, tc.column)
		}
	}
	if snap := snapshot(t, tt.fsys, ""); len(snap) != 1 || snap["k1:x,k2:y"] == nil {
		t.Fatalf("the table holds %v, want the one record written", snap)
	}
}

// TestNaNPrecombineRefused checks that a NaN precombine value, of a double
// or a float column, is refused as null is, while infinities are kept.
func TestNaNPrecombineRefused(t *testing.T) {
	for _, kind := range []basefile.Kind{basefile.KindDouble, basefile.KindFloat} {
		t.Run(kind.String(), func(t *testing.T) {
			tt := newValuesTable(t, []string{"id"}, Settings{})
			cols, kinds := []string{"id", "ts"}, []basefile.Kind{basefile.KindString, kind}
			num := func(f float64) any {
				if kind == basefile.KindFloat {
					return float32(f)
				}
				return f
			}
			tt.write(OpUpsert, valuesInput(cols, kinds, []any{"a", num(1)}, []any{"b", num(math.Inf(1))}))
			err := tt.writeErr(OpUpsert, valuesInput(cols, kinds, []any{"c", num(2)}, []any{"a", num(math.NaN())}))
			var re *RecordError
			if !errors.As(err, &re) || re.Line != 2 || re.Key != "a" || !strings.Contains(err.Error(), `precombine column "ts" is NaN`) {
				t.Fatalf("a NaN precombine value: %v, want bad input naming record 2, key a", err)
			}
			// +Inf orders as the greatest number: an update with 5 loses.
			tt.write(OpUpsert, valuesInput(cols, kinds, []any{"b", num(5)}, []any{"a", num(math.Inf(-1))}))
			snap := snapshot(t, tt.fsys, "")
			if got := snap["b"][6]; got != num(math.Inf(1)) {
				t.Errorf("b's ts is %v, want +Inf kept", got)
			}
			if got := snap["a"][6]; got != num(1) {
				t.Errorf("a's ts is %v, want 1 kept over -Inf", got)
			}
		})
	}
}

// TestColumnsDifferingInCaseRefused checks that a column equal to another
// but for case is refused: against the table's, within one input (nested
// fields too) and against a meta column, naming both.
func TestColumnsDifferingInCaseRefused(t *testing.T) {
	tt := newValuesTable(t, []string{"id"}, Settings{})
	long := basefile.KindLong
	tt.write(OpUpsert, valuesInput([]string{"id", "ts", "v"}, []basefile.Kind{basefile.KindString, long, long}, []any{"a", int64(1), int64(1)}))
	err := tt.writeErr(OpUpsert, valuesInput([]string{"id", "ts", "V"}, []basefile.Kind{basefile.KindString, long, long}, []any{"a", int64(2), int64(9)}))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `input column "V" differs from the table's column "v" only in case`) {
		t.Errorf("V against the table's v: %v, want a refusal naming both", err)
	}
	err = tt.writeErr(OpUpsert, valuesInput([]string{"id", "ts", "w", "W"}, []basefile.Kind{basefile.KindString, long, long, long}, []any{"a", int64(2), int64(1), int64(2)}))
	if err == nil || errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `columns "w" and "W" differ only in case`) {
		t.Errorf("w and W in one input: %v, want bad input naming both", err)
	}
	err = tt.writeErr(OpUpsert, valuesInput([]string{"id", "ts", "_HOODIE_RECORD_KEY"}, []basefile.Kind{basefile.KindString, long, basefile.KindString}, []any{"a", int64(2), "x"}))
	if err == nil || !strings.Contains(err.Error(), `"_HOODIE_RECORD_KEY" differs from Hudi's meta column "_hoodie_record_key"`) {
		t.Errorf("a meta column in upper case: %v, want a refusal naming both", err)
	}
	nested := valuesInput([]string{"id", "ts"}, []basefile.Kind{basefile.KindString, long}, []any{"a", int64(2), []any{[]any{int64(1), int64(2)}}})
	rec := &basefile.Type{Kind: basefile.KindRecord, Name: "r", Fields: []basefile.Field{{Name: "x", Type: basefile.Nullable(basefile.Primitive(long))}, {Name: "X", Type: basefile.Nullable(basefile.Primitive(long))}}}
	nested.Schema.Fields = append(nested.Schema.Fields, basefile.Field{Name: "r", Type: basefile.Nullable(&basefile.Type{Kind: basefile.KindArray, Items: rec})})
	if err := tt.writeErr(OpUpsert, nested); err == nil || !strings.Contains(err.Error(), `columns "r.x" and "r.X"`) {
		t.Errorf("fields x and X of a record in an array: %v, want an error naming both", err)
	}
	if err := CheckTableSchema(&config.Table{RecordKeyFields: []string{"id"}}, &basefile.Schema{Name: "s", Fields: []basefile.Field{
		{Name: "id", Type: basefile.Primitive(basefile.KindString)}, {Name: "Id", Type: basefile.Primitive(basefile.KindString)},
	}}); err == nil || !strings.Contains(err.Error(), `"id" and "Id"`) {
		t.Errorf("a table schema with id and Id: %v, want a refusal naming both", err)
	}
}

// TestLossyWideningRefused checks that widening a column whose stored
// values the wider type cannot all hold is refused before anything is
// written, naming the column and a value, wherever the value lies: proven
// by the footer's statistics, found among values between exact bounds, in
// a file the write does not rewrite; and that the setting lets it through.
func TestLossyWideningRefused(t *testing.T) {
	const big = 1<<53 + 1 // 9007199254740993: a double holds 9007199254740992
	str, long, double := basefile.KindString, basefile.KindLong, basefile.KindDouble
	cols := []string{"id", "ts", "n"}
	longs := func(rows ...[]any) *Input { return valuesInput(cols, []basefile.Kind{str, long, long}, rows...) }
	doubles := func(rows ...[]any) *Input { return valuesInput(cols, []basefile.Kind{str, long, double}, rows...) }
	tests := []struct {
		name   string
		stored []*Input // bulk inserts, a file group each
		widen  *Input
		want   string // "" for a widening that is exact
	}{
		{"a bound of the statistics", []*Input{longs([]any{"a", int64(1), int64(big)}, []any{"b", int64(1), int64(2)})},
			doubles([]any{"b", int64(2), 0.5}), "such as 9007199254740993"},
		{"exact bounds beyond 2^53, a value between them", []*Input{longs([]any{"a", int64(1), int64(1)}, []any{"b", int64(1), int64(big)}, []any{"c", int64(1), int64(1 << 60)})},
			doubles([]any{"a", int64(2), 0.5}), "such as 9007199254740993"},
		{"exact values beyond 2^53", []*Input{longs([]any{"a", int64(1), int64(1)}, []any{"c", int64(1), int64(1 << 60)}, []any{"d", int64(1), int64(-1 << 62)})},
			doubles([]any{"a", int64(2), 0.5}), ""},
		{"a file the write leaves alone", []*Input{longs([]any{"a", int64(1), int64(-big)}), longs([]any{"b", int64(1), int64(2)})},
			doubles([]any{"b", int64(2), 0.5}), "such as -9007199254740993"},
		{"int to float", []*Input{valuesInput(cols, []basefile.Kind{str, long, basefile.KindInt}, []any{"a", int64(1), int32(1<<24 + 1)})},
			valuesInput(cols, []basefile.Kind{str, long, basefile.KindFloat}, []any{"a", int64(2), float32(0.5)}), "from int to float would round values the table holds, such as 16777217"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newValuesTable(t, []string{"id"}, Settings{})
			for _, in := range tc.stored {
				tt.write(OpBulkInsert, in)
			}
			err := tt.writeErr(OpUpsert, tc.widen)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("an exact widening: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `column "n"`) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal naming column n and %q", err, tc.want)
			}
			settings := DefaultSettings()
			settings.LossyWidening = true
			tt.w = newTestWriter(tt.fsys, tt.dir, settings)
			tt.write(OpUpsert, tc.widen)
		})
	}
}

// TestPrecombineWideningRefused checks the precombine column:
// 9223372036854775807 would have become 9223372036854775808.
func TestPrecombineWideningRefused(t *testing.T) {
	tt := newValuesTable(t, []string{"id"}, Settings{})
	cols := []string{"id", "ts"}
	tt.write(OpUpsert, valuesInput(cols, []basefile.Kind{basefile.KindString, basefile.KindLong}, []any{"a", int64(math.MaxInt64)}))
	err := tt.writeErr(OpUpsert, valuesInput(cols, []basefile.Kind{basefile.KindString, basefile.KindDouble}, []any{"b", 0.5}))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `column "ts"`) || !strings.Contains(err.Error(), "9223372036854775807") {
		t.Fatalf("got %v, want a refusal naming ts and its value", err)
	}
}

// TestIncomingWholeNumbersConvertExactly checks that an incoming long or
// int that a float or double column cannot hold exactly is refused with
// its record and column, not rounded.
func TestIncomingWholeNumbersConvertExactly(t *testing.T) {
	tt := newValuesTable(t, []string{"id"}, Settings{})
	str, long := basefile.KindString, basefile.KindLong
	cols := []string{"id", "ts", "d", "f"}
	tt.write(OpUpsert, valuesInput(cols, []basefile.Kind{str, long, basefile.KindDouble, basefile.KindFloat}, []any{"a", int64(1), 0.5, float32(0.5)}))
	for _, tc := range []struct {
		kinds []basefile.Kind
		row   []any
		want  string
	}{
		{[]basefile.Kind{str, long, long, long}, []any{"b", int64(1), int64(1<<53 + 1), int64(1)}, `column "d": 9007199254740993 does not fit a double column exactly`},
		{[]basefile.Kind{str, long, long, basefile.KindInt}, []any{"b", int64(1), int64(1), int32(1<<24 + 1)}, `column "f": 16777217 does not fit a float column exactly`},
	} {
		ok := valuesInput(cols, tc.kinds, []any{"c", int64(1), int64(1 << 53), int64(1 << 24)})
		ok.Rows = append(ok.Rows, tc.row)
		err := tt.writeErr(OpUpsert, ok)
		var re *RecordError
		if !errors.As(err, &re) || re.Line != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want bad input naming record 2 and %q", err, tc.want)
		}
	}
}

// TestTimestampsFinerThanTheColumnRefused checks that a Go time.Time with
// digits below its column's unit is refused with its record, not
// truncated, and that nothing is committed.
func TestTimestampsFinerThanTheColumnRefused(t *testing.T) {
	tt := newValuesTable(t, []string{"id"}, Settings{})
	in := valuesInput([]string{"id", "ts"}, []basefile.Kind{basefile.KindString, basefile.KindLong})
	in.Schema.Fields = append(in.Schema.Fields, basefile.Field{Name: "at", Type: basefile.Nullable(basefile.TimestampMicrosType())})
	at := time.Date(2024, 1, 1, 0, 0, 0, 123456000, time.UTC)
	in.Rows = [][]any{{"a", int64(1), at}, {"b", int64(1), at.Add(789)}}
	err := tt.writeErr(OpUpsert, in)
	var re *RecordError
	if !errors.As(err, &re) || re.Line != 2 || !strings.Contains(err.Error(), `"at"`) || !strings.Contains(err.Error(), "digits below the column's microseconds") {
		t.Fatalf("got %v, want record 2 refused, naming column at", err)
	}
	in.Rows = in.Rows[:1]
	tt.write(OpUpsert, in)
	if got := snapshot(t, tt.fsys, "")["a"][7]; got != at {
		t.Fatalf("a's at is %v, want %v", got, at)
	}
}

// TestWideningCheckReadsValuesWithoutStatistics checks that a file whose
// footer has no bounds for the column (another writer's) has its values
// read: the one a double would round is found, and exact ones pass.
func TestWideningCheckReadsValuesWithoutStatistics(t *testing.T) {
	type row struct {
		N *int64 `parquet:"n,optional"`
	}
	dir := t.TempDir()
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, values ...int64) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewGenericWriter[row](f, parquet.SkipPageBounds("n"))
		rows := []row{{}}
		for _, v := range values {
			rows = append(rows, row{N: &v})
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(w.Close(), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	write("lossy.parquet", 1, 1<<53+1, 2)
	write("exact.parquet", 1, 1<<60, 2)
	widening := []lossyWidening{{name: "n", from: basefile.KindLong, to: basefile.KindDouble}}
	ctx := context.Background()
	bf, err := basefile.Open(ctx, fsys, "lossy.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if stats := bf.Parquet().Metadata().RowGroups[0].Columns[0].MetaData.Statistics; len(stats.MinValue)+len(stats.Min) > 0 {
		t.Fatalf("the file has bounds %+v; the test needs a file without", stats)
	}
	bf.Close()
	err = checkFileWidening(ctx, fsys, "lossy.parquet", widening)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "such as 9007199254740993 (in lossy.parquet)") {
		t.Errorf("a value a double rounds, without statistics: %v", err)
	}
	if err := checkFileWidening(ctx, fsys, "exact.parquet", widening); err != nil {
		t.Errorf("exact values without statistics: %v", err)
	}
}

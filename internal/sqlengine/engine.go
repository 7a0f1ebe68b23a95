// Package sqlengine runs SQL, in DuckDB's dialect, over the Parquet base
// files of a table: an in-memory DuckDB database in which a name stands for
// a view over a list of files. It keeps DuckDB, and cgo, out of the core
// packages; the query command and the validators build on it.
//
// A typical use registers a snapshot's latest base files and queries them:
//
//	e, err := sqlengine.Open(ctx, sqlengine.LockedDown)
//	defer e.Close()
//	err = e.CreateView(ctx, "trips", sqlengine.TableFiles(root, cfg, schema, slices), schema)
//	rows, err := e.Query(ctx, sqlengine.ExpandTableName("select count(*) from <TABLE_NAME>", "trips"))
//	defer rows.Close()
//	for rows.Next() {
//		fmt.Println(rows.Values())
//	}
//	err = rows.Err()
package sqlengine

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// TableNameToken stands for the table in the SQL that users and Hudi's
// validator settings write: "select count(*) from <TABLE_NAME>".
const TableNameToken = "<TABLE_NAME>"

// ExpandTableName replaces every TableNameToken in query with the quoted
// view name.
func ExpandTableName(query, view string) string {
	return strings.ReplaceAll(query, TableNameToken, QuoteIdent(view))
}

// QuoteIdent quotes name as a DuckDB identifier: "name", with inner double
// quotes doubled.
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString quotes s as a DuckDB string literal: 's', with inner single
// quotes doubled.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// escapeGlob makes a file path match only itself where DuckDB expands glob
// patterns (read_parquet does, for every path of its list): each of * ? [
// becomes a one-character class.
var escapeGlob = strings.NewReplacer("[", "[[]", "*", "[*]", "?", "[?]").Replace

// Engine is an in-memory DuckDB database and one connection to it. Close it
// when done. An Engine is not safe for concurrent use, and a Rows must be
// closed before the Engine runs anything else.
type Engine struct {
	connector *duckdb.Connector
	conn      *duckdb.Conn
	access    Access
	// readable holds the paths a locked-down engine lets its queries read:
	// its views' files (see lockDown).
	readable map[string]bool
	// locked is whether the lockdown is in force; lockErr is why setting it
	// up failed, which leaves the engine unusable.
	locked  bool
	lockErr error
	// tempDir is the folder of a locked-down engine's temporary files,
	// removed on Close.
	tempDir string
}

// Open starts an in-memory DuckDB database whose queries reach what access
// says: LockedDown for SQL that the user of the engine does not control
// entirely, ExternalAccess only on the explicit request of the person who
// runs the SQL.
func Open(ctx context.Context, access Access) (*Engine, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: start DuckDB: %w", err)
	}
	c, err := connector.Connect(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sqlengine: connect to DuckDB: %w", err), connector.Close())
	}
	conn, ok := c.(*duckdb.Conn)
	if !ok {
		return nil, errors.Join(fmt.Errorf("sqlengine: DuckDB connection is a %T", c), c.Close(), connector.Close())
	}
	// A view's files are read when it is created and again by each query
	// of it; DuckDB keeps their footers the first time. Base files never
	// change once written, so the cache cannot go stale.
	if _, err := conn.ExecContext(ctx, "SET parquet_metadata_cache = true", nil); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlengine: set up DuckDB: %w", err), conn.Close(), connector.Close())
	}
	return &Engine{connector: connector, conn: conn, access: access, readable: map[string]bool{}}, nil
}

// Close closes the connection and the database.
func (e *Engine) Close() error {
	if err := errors.Join(e.conn.Close(), e.connector.Close()); err != nil {
		return fmt.Errorf("sqlengine: close DuckDB: %w", err)
	}
	if e.tempDir != "" {
		if err := os.RemoveAll(e.tempDir); err != nil {
			return fmt.Errorf("sqlengine: remove DuckDB's temporary files: %w", err)
		}
	}
	return nil
}

// CreateView makes name a view over the Parquet base files files (see
// TableFiles), replacing any view of that name. Columns are matched across
// files by name (a file written before a column was added has nulls
// there), and partition folders are not read as columns.
//
// When no file computes a column (see File), every column comes from the
// files, the five Hudi meta columns included, and the view reads them
// alone; with a schema, the view also has every column of schema (meta
// columns first, in schema's order, with its types) even where no file
// has it, as Hudi's validators read files written before a column was
// added. Otherwise the view has the columns of schema, meta columns first,
// and then any other column of the files, each file's rows with the values
// it computes.
//
// With no files, the view has the columns of schema, meta columns first,
// with the types DuckDB gives them in a base file, and no rows; a nil schema
// (a table never written, created without one) leaves the meta columns
// alone.
//
// A locked-down engine lets its queries read the view's files; views over
// files are created before its first query (see LockedDown).
func (e *Engine) CreateView(ctx context.Context, name string, files []File, schema *basefile.Schema) error {
	if err := e.allowRead(name, filePaths(files)); err != nil {
		return err
	}
	computed := false
	for _, f := range files {
		computed = computed || f.computed()
	}
	var query string
	switch {
	case computed:
		var err error
		if query, err = computedViewQuery(files, schema); err != nil {
			return fmt.Errorf("sqlengine: view %s: %w", name, err)
		}
	case len(files) > 0:
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = QuoteString(escapeGlob(f.Path))
		}
		query = fmt.Sprintf("SELECT * FROM read_parquet([%s], union_by_name = true, hive_partitioning = false)", strings.Join(quoted, ", "))
		if schema != nil {
			cols, err := nullColumns(schema.WithMetaFields())
			if err != nil {
				return fmt.Errorf("sqlengine: view %s: %w", name, err)
			}
			query = fmt.Sprintf("SELECT %s WHERE false UNION ALL BY NAME %s", cols, query)
		}
	default:
		if schema == nil {
			schema = &basefile.Schema{}
		}
		cols, err := nullColumns(schema.WithMetaFields())
		if err != nil {
			return fmt.Errorf("sqlengine: view %s: %w", name, err)
		}
		query = fmt.Sprintf("SELECT %s WHERE false", cols)
	}
	ddl := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", QuoteIdent(name), query)
	if _, err := e.conn.ExecContext(ctx, ddl, nil); err != nil {
		return fmt.Errorf("sqlengine: create view %s: %w", name, err)
	}
	return nil
}

// CreateGlobView makes name a view over the Parquet files that pattern, a
// path or a DuckDB glob pattern ("/exports/*.parquet"), matches when the
// view is created, as read_parquet(pattern, union_by_name = true) reads
// them: columns matched by name, and folders named col=value read as
// columns. A pattern that matches no file is an error.
//
// A locked-down engine lets its queries read those files; views over files
// are created before its first query (see LockedDown).
func (e *Engine) CreateGlobView(ctx context.Context, name, pattern string) error {
	if e.locked {
		return fmt.Errorf("sqlengine: view %s over %s: the engine is locked down already: create views over files before the first query", name, pattern)
	}
	files, err := e.texts(ctx, "SELECT file FROM glob("+QuoteString(pattern)+")")
	if err != nil {
		return fmt.Errorf("sqlengine: view %s: list %s: %w", name, pattern, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("sqlengine: view %s: no file matches %s", name, pattern)
	}
	if err := e.allowRead(name, files); err != nil {
		return err
	}
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = QuoteString(escapeGlob(f))
	}
	ddl := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet([%s], union_by_name = true)", QuoteIdent(name), strings.Join(quoted, ", "))
	if _, err := e.conn.ExecContext(ctx, ddl, nil); err != nil {
		return fmt.Errorf("sqlengine: create view %s: %w", name, queryError(ctx, err))
	}
	return nil
}

// CreateQueryView makes name a view over query, a single SELECT, replacing
// any view of that name. A locked-down engine checks query as Query does
// (see LockedDown), and locks down first.
func (e *Engine) CreateQueryView(ctx context.Context, name, query string) error {
	if err := e.checkQuery(ctx, query, true); err != nil {
		return err
	}
	ddl := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", QuoteIdent(name), query)
	if _, err := e.conn.ExecContext(ctx, ddl, nil); err != nil {
		return queryError(ctx, err)
	}
	return nil
}

// texts runs a query of the engine's own whose one column is text, with
// the arguments args, and returns its values.
func (e *Engine) texts(ctx context.Context, query string, args ...any) ([]string, error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := e.conn.QueryContext(ctx, query, named)
	if err != nil {
		return nil, queryError(ctx, err)
	}
	var out []string
	dest := make([]driver.Value, 1)
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, errors.Join(queryError(ctx, err), rows.Close())
		}
		s, _ := dest[0].(string)
		out = append(out, s)
	}
	if err := rows.Close(); err != nil {
		return nil, queryError(ctx, err)
	}
	return out, nil
}

// Query runs query, which may hold several statements separated by
// semicolons: the last one's result is returned. Cancelling ctx interrupts
// DuckDB. Close the Rows when done.
//
// A locked-down engine locks down before its first query and runs only
// queries (see LockedDown): other SQL is an error wrapping ErrLockedDown.
func (e *Engine) Query(ctx context.Context, query string) (*Rows, error) {
	if err := e.checkQuery(ctx, query, false); err != nil {
		return nil, err
	}
	s, err := e.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, queryError(ctx, err)
	}
	stmt, ok := s.(*duckdb.Stmt)
	if !ok {
		return nil, errors.Join(fmt.Errorf("sqlengine: DuckDB statement is a %T", s), s.Close())
	}
	if err := e.checkStatement(stmt); err != nil {
		return nil, errors.Join(err, stmt.Close())
	}
	r, err := newRows(ctx, stmt)
	if err != nil {
		return nil, errors.Join(err, stmt.Close())
	}
	return r, nil
}

// queryError wraps an error of DuckDB, whose message says what is wrong
// ("Parser Error: syntax error at or near ..."), or the cancellation of ctx.
func queryError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("sqlengine: query interrupted: %w", ctxErr)
	}
	if err := lockedDownError(err); err != nil {
		return err
	}
	return fmt.Errorf("DuckDB: %w", err)
}

// Column describes a column of a query result.
type Column struct {
	Name string
	// Type is DuckDB's name of the column's type: "INTEGER",
	// "DECIMAL(10,5)", "TIMESTAMP WITH TIME ZONE", "STRUCT(a INTEGER)[]".
	Type string
}

// Rows is the result of a query, read row by row with Next and Values.
type Rows struct {
	ctx     context.Context
	stmt    *duckdb.Stmt
	rows    driver.Rows
	columns []Column
	convert []converter
	raw     []driver.Value
	values  []any
	err     error
	closed  bool
}

func newRows(ctx context.Context, stmt *duckdb.Stmt) (*Rows, error) {
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil, queryError(ctx, err)
	}
	convert := make([]converter, n)
	for i := range n {
		info, err := stmt.ColumnTypeInfo(i)
		if err != nil {
			return nil, queryError(ctx, err)
		}
		convert[i] = newConverter(info)
	}
	rows, err := stmt.QueryContext(ctx, nil)
	if err != nil {
		return nil, queryError(ctx, err)
	}
	names := rows.Columns()
	columns := make([]Column, len(names))
	typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	for i, name := range names {
		columns[i].Name = name
		if typed != nil {
			columns[i].Type = typed.ColumnTypeDatabaseTypeName(i)
		}
	}
	if len(names) != n {
		return nil, errors.Join(fmt.Errorf("sqlengine: DuckDB returned %d columns for a statement of %d", len(names), n), rows.Close())
	}
	return &Rows{ctx: ctx, stmt: stmt, rows: rows, columns: columns, convert: convert,
		raw: make([]driver.Value, n), values: make([]any, n)}, nil
}

// Columns describes the result's columns.
func (r *Rows) Columns() []Column { return r.columns }

// Next moves to the next row and reports whether there is one. After the
// last row, or an error, it returns false: check Err.
func (r *Rows) Next() bool {
	if r.err != nil || r.closed {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = fmt.Errorf("sqlengine: query interrupted: %w", err)
		return false
	}
	if err := r.rows.Next(r.raw); err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = queryError(r.ctx, err)
		}
		return false
	}
	for i, v := range r.raw {
		value, err := convertValue(r.convert[i], v)
		if err != nil {
			r.err = fmt.Errorf("sqlengine: column %s: %w", r.columns[i].Name, err)
			return false
		}
		r.values[i] = value
	}
	return true
}

// Values returns the current row's values, in the value model the package
// documentation in values.go describes. The slice is reused by Next.
func (r *Rows) Values() []any { return r.values }

// Err returns the error that stopped Next, if any.
func (r *Rows) Err() error { return r.err }

// Close releases the result. It may be called more than once.
func (r *Rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if err := errors.Join(r.rows.Close(), r.stmt.Close()); err != nil {
		return fmt.Errorf("sqlengine: close result: %w", err)
	}
	return nil
}

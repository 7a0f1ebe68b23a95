package sqlengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// Access says what the SQL an Engine runs may reach besides its views.
type Access int

const (
	// LockedDown is an engine whose SQL reads the files of its views and
	// no other file, writes no file, attaches no database, installs and
	// loads no extension and changes no setting.
	//
	// DuckDB enforces it from the engine's first query on: external access
	// off, with the views' files as its allowed paths; no automatic
	// install or load of extensions, no community extensions, no
	// persistent secrets; and the configuration locked, so that no SET or
	// RESET undoes any of it. DuckDB lets its allowed paths be written as
	// well as read, so the engine itself runs only queries: SQL whose
	// statements are all SELECTs (COPY, EXPORT, ATTACH, INSTALL, LOAD, SET,
	// CALL, CREATE and the rest are not) and call no function that changes
	// DuckDB's state or runs SQL built from text (see deniedFunctions).
	// SQL that does is refused, and so is a query that reaches a file
	// beyond the views: both errors wrap ErrLockedDown.
	//
	// Views over files come before the first query, as the allowed paths
	// are fixed then. The Parquet, JSON and ICU extensions are built in
	// and need no loading. DuckDB spills to a temporary folder of the
	// engine's own, which Close removes.
	LockedDown Access = iota
	// ExternalAccess is DuckDB as it comes: SQL reads and writes any file
	// the process may, attaches databases, installs extensions from the
	// network, loads them and changes settings.
	ExternalAccess
)

// ErrLockedDown is wrapped by the errors of SQL that a LockedDown engine
// refuses to run or stops.
var ErrLockedDown = errors.New("DuckDB runs locked down")

// deniedFunctions are the functions of the linked DuckDB that a query of a
// LockedDown engine may not call: those that change DuckDB's state
// (logging, profiling, the parser, checkpoints) and could break the engine
// or the process, those that run SQL built from text, which escapes the
// check of statements, and those that read memory at an address. The test
// TestEveryTableFunctionIsClassified fails when a DuckDB upgrade brings a
// table function that is neither here nor known to be harmless.
var deniedFunctions = map[string]bool{
	"enable_logging":              true,
	"disable_logging":             true,
	"truncate_duckdb_logs":        true,
	"enable_profiling":            true,
	"disable_profiling":           true,
	"enable_peg_parser":           true,
	"disable_peg_parser":          true,
	"check_peg_parser":            true,
	"checkpoint":                  true,
	"force_checkpoint":            true,
	"query":                       true,
	"json_execute_serialized_sql": true,
	"arrow_scan":                  true,
	"arrow_scan_dumb":             true,
	"write_log":                   true,
}

// lockedDownSettings are the settings that lock an engine down, after its
// allowed paths; lock_configuration comes last, as it freezes the others.
var lockedDownSettings = []string{
	"SET enable_external_access = false",
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
	"SET allow_community_extensions = false",
	"SET allow_persistent_secrets = false",
	"SET lock_configuration = true",
}

// lockDown applies the lockdown of a LockedDown engine, once: its
// queries may read the files of its views and nothing else. A failure
// leaves the engine unusable.
func (e *Engine) lockDown(ctx context.Context) error {
	if e.access != LockedDown || e.locked {
		return e.lockErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlengine: query interrupted: %w", err)
	}
	// Half a lockdown would leave the engine unusable: the settings are
	// applied whatever becomes of ctx meanwhile.
	ctx = context.WithoutCancel(ctx)
	e.locked = true
	// DuckDB spills to its temporary folder, by default .tmp in the
	// working folder (maybe the table's), and removes it on close. With
	// external access off the folder must be allowed: in a test, closing
	// the database after a spill to .tmp aborted the process. The engine's
	// own folder holds nothing else.
	tmp, err := os.MkdirTemp("", "hoodie-duckdb-")
	if err != nil {
		e.lockErr = fmt.Errorf("sqlengine: lock DuckDB down: %w", err)
		return e.lockErr
	}
	e.tempDir = tmp
	settings := []string{
		"SET temp_directory = " + QuoteString(tmp),
		"SET allowed_directories = [" + QuoteString(tmp+string(filepath.Separator)) + "]",
	}
	if len(e.readable) > 0 {
		paths := slices.Sorted(maps.Keys(e.readable))
		for i, p := range paths {
			paths[i] = QuoteString(p)
		}
		settings = append(settings, "SET allowed_paths = ["+strings.Join(paths, ", ")+"]")
	}
	settings = append(settings, lockedDownSettings...)
	for _, s := range settings {
		if _, err := e.conn.ExecContext(ctx, s, nil); err != nil {
			e.lockErr = fmt.Errorf("sqlengine: lock DuckDB down: %s: %w", s, err)
			return e.lockErr
		}
	}
	return nil
}

// allowRead lets the queries of a LockedDown engine read paths, the files
// of view. Once the engine is locked down, only files it already reads
// may be added.
func (e *Engine) allowRead(view string, paths []string) error {
	if e.access != LockedDown {
		return nil
	}
	for _, p := range paths {
		if e.locked && !e.readable[p] {
			return fmt.Errorf("sqlengine: view %s reads %s, but the engine is locked down already: create views over files before the first query", view, p)
		}
	}
	for _, p := range paths {
		// DuckDB checks the pattern it is given as well as the file it
		// matches, and view queries give each path glob-escaped.
		e.readable[p] = true
		e.readable[escapeGlob(p)] = true
	}
	return nil
}

// checkQuery makes sure that a LockedDown engine may run query, which
// must be a single statement if single: it locks the engine down and
// then refuses SQL that is not queries or calls a denied function. It
// asks DuckDB's own parser (json_serialize_sql, which serializes SELECT
// statements only) and runs nothing.
func (e *Engine) checkQuery(ctx context.Context, query string, single bool) error {
	if e.access != LockedDown {
		return nil
	}
	if err := e.lockDown(ctx); err != nil {
		return err
	}
	text, err := e.texts(ctx, "SELECT CAST(json_serialize_sql(CAST($1 AS VARCHAR)) AS VARCHAR)", query)
	if err != nil {
		return err
	}
	if len(text) != 1 {
		return fmt.Errorf("sqlengine: DuckDB parsed the SQL into %d results", len(text))
	}
	var parsed struct {
		Error        bool   `json:"error"`
		ErrorType    string `json:"error_type"`
		ErrorMessage string `json:"error_message"`
		Statements   []any  `json:"statements"`
	}
	if err := json.Unmarshal([]byte(text[0]), &parsed); err != nil {
		return fmt.Errorf("sqlengine: read DuckDB's parse of the SQL: %w", err)
	}
	switch {
	case parsed.Error && parsed.ErrorType == "parser":
		return fmt.Errorf("DuckDB: Parser Error: %s", parsed.ErrorMessage)
	case parsed.Error:
		return errNotAQuery
	case single && len(parsed.Statements) != 1:
		return fmt.Errorf("sqlengine: want one query, the SQL holds %d statements", len(parsed.Statements))
	}
	if name := deniedFunction(parsed.Statements); name != "" {
		return fmt.Errorf("%w: it runs no function that changes DuckDB's state or runs SQL from text, and the SQL calls %s", ErrLockedDown, name)
	}
	return nil
}

// deniedFunction returns the name of the first denied function that node,
// a part of DuckDB's JSON form of a parsed statement, calls, or "".
func deniedFunction(node any) string {
	switch n := node.(type) {
	case map[string]any:
		if name, ok := n["function_name"].(string); ok && deniedFunctions[strings.ToLower(name)] {
			return name
		}
		for _, k := range slices.Sorted(maps.Keys(n)) {
			if name := deniedFunction(n[k]); name != "" {
				return name
			}
		}
	case []any:
		for _, v := range n {
			if name := deniedFunction(v); name != "" {
				return name
			}
		}
	}
	return ""
}

// checkStatement makes sure that a LockedDown engine runs a query: the
// last statement of the SQL, prepared, is a SELECT.
func (e *Engine) checkStatement(stmt *duckdb.Stmt) error {
	if e.access != LockedDown {
		return nil
	}
	t, err := stmt.StatementType()
	if err != nil {
		return fmt.Errorf("sqlengine: statement type: %w", err)
	}
	if t != duckdb.STATEMENT_TYPE_SELECT {
		return errNotAQuery
	}
	return nil
}

// errNotAQuery is the error of SQL that a LockedDown engine does not run.
var errNotAQuery = fmt.Errorf("%w: it runs queries (SELECT) only, and the SQL holds another statement (COPY, ATTACH, INSTALL, LOAD, SET, CREATE, ...)", ErrLockedDown)

// lockedDownError returns the error of a DuckDB permission error, which a
// LockedDown engine's DuckDB raises for a file beyond the views, on one
// line (the file is named), or nil for another error.
func lockedDownError(err error) error {
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypePermission {
		return nil
	}
	msg, _, _ := strings.Cut(de.Msg, "\n")
	return fmt.Errorf("%w: it reads the table's files only: DuckDB: %s", ErrLockedDown, msg)
}

// Package validate decides whether data is fit to commit.
//
// Hook is a write.PreCommitHook that runs Hudi's SQL pre-commit validators
// (hoodie.precommit.validators) before a write commits:
//
//   - Each query runs on DuckDB over the partitions the write touches, as
//     they were before the write and as they will be after it.
//   - The table must be on a local folder (storage.LocalFS).
//   - A validator that fails refuses the write with a *write.RefusedError
//     that names the query and what it returned. The write then commits
//     nothing, and the table stays as it was.
//   - The queries run locked down (internal/sqlengine): they read the two
//     views' files and nothing else. A query the lockdown refuses refuses
//     the write too.
//   - An unknown validator class, or a validator without queries, is an
//     error from FromSettings, before anything is written.
//
// Package validate/datavalidator is the standalone data validator: checks
// named in a YAML configuration, run on tables and Parquet files.
package validate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/valuefmt"
	"github.com/hoodie-dev/hoodie/read"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/storage/config"
	"github.com/hoodie-dev/hoodie/write"
)

// Hudi's pre-commit validator settings and class names.
const (
	KeyValidators          = "hoodie.precommit.validators"
	KeySingleValueQueries  = "hoodie.precommit.validators.single.value.sql.queries"
	KeyEqualityQueries     = "hoodie.precommit.validators.equality.sql.queries"
	KeyInequalityQueries   = "hoodie.precommit.validators.inequality.sql.queries"
	validatorPackage       = "org.apache.hudi.client.validator."
	SingleResultValidator  = validatorPackage + "SqlQuerySingleResultPreCommitValidator"
	EqualityValidator      = validatorPackage + "SqlQueryEqualityPreCommitValidator"
	InequalityValidator    = validatorPackage + "SqlQueryInequalityPreCommitValidator"
	defaultSeparator       = ";"
	singleResultSeparator  = "#"
	beforeView, afterView  = "hoodie_before", "hoodie_after"
	nullText               = "null"
	maxRowsShownOnMismatch = 3
)

// check is one validator query.
type check struct {
	validator string
	query     string
	expected  string // the single-result validator's expected value
}

// Hook runs Hudi's SQL pre-commit validators. It implements
// write.PreCommitHook.
type Hook struct {
	checks []check
}

var _ write.PreCommitHook = (*Hook)(nil)

// FromSettings reads the validators of a write's settings. It returns nil,
// and no error, when hoodie.precommit.validators names none. An unknown
// validator class, or a validator without queries, is an error naming the
// setting.
func FromSettings(props *config.Properties) (*Hook, error) {
	names, _ := props.Get(KeyValidators)
	h := &Hook{}
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		key := map[string]string{SingleResultValidator: KeySingleValueQueries, EqualityValidator: KeyEqualityQueries, InequalityValidator: KeyInequalityQueries}[name]
		if key == "" {
			return nil, fmt.Errorf("%s: unknown validator %q (Hoodie runs %s, %s and %s)", KeyValidators, name, SingleResultValidator, EqualityValidator, InequalityValidator)
		}
		queries, _ := props.Get(key)
		var n int
		for _, q := range strings.Split(queries, defaultSeparator) {
			if q = strings.TrimSpace(q); q == "" {
				continue
			}
			c := check{validator: name, query: q}
			if name == SingleResultValidator {
				i := strings.LastIndex(q, singleResultSeparator)
				if i < 0 {
					return nil, fmt.Errorf("%s: query %q has no #expected result", key, q)
				}
				c.query, c.expected = strings.TrimSpace(q[:i]), strings.TrimSpace(q[i+1:])
			}
			h.checks = append(h.checks, c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s names %s but %s holds no query", KeyValidators, name, key)
		}
	}
	if len(h.checks) == 0 {
		return nil, nil
	}
	return h, nil
}

// PreCommit runs every validator on the partitions the write touches, as
// Hudi does: the single-result validator on the table after the write, the
// equality and inequality validators on the table before and after it.
// <TABLE_NAME> in a query stands for the table. A failed check is a
// *write.RefusedError naming the query and what it returned.
func (h *Hook) PreCommit(ctx context.Context, c *write.PendingCommit) error {
	local, ok := c.FS.(*storage.LocalFS)
	if !ok {
		return errors.New("pre-commit validators need a table on a local folder")
	}
	// The queries come from the write's settings, which a properties file
	// may hold: they read the files of the two views and nothing else.
	engine, err := sqlengine.Open(ctx, sqlengine.LockedDown)
	if err != nil {
		return err
	}
	defer engine.Close()
	for view, slices := range map[string][]read.FileSlice{beforeView: c.Before, afterView: c.After} {
		files := sqlengine.TableFiles(local.Root(), c.Config, c.Schema, touchedSlices(slices, c.Partitions))
		if err := engine.CreateView(ctx, view, files, c.Schema); err != nil {
			return err
		}
	}
	var failures []string
	for _, chk := range h.checks {
		after, err := queryRows(ctx, engine, chk.query, afterView)
		if err != nil {
			return validatorError(chk, err)
		}
		switch chk.validator {
		case SingleResultValidator:
			got := nullText
			if len(after) > 0 && len(after[0]) > 0 {
				got = after[0][0]
			}
			if got != chk.expected {
				failures = append(failures, fmt.Sprintf("%q returned %s, expected %s", chk.query, got, chk.expected))
			}
		default:
			before, err := queryRows(ctx, engine, chk.query, beforeView)
			if err != nil {
				return validatorError(chk, err)
			}
			equal := sameRows(before, after)
			if equal != (chk.validator == EqualityValidator) {
				want := "the same"
				if chk.validator == InequalityValidator {
					want = "different"
				}
				failures = append(failures, fmt.Sprintf("%q must give %s results before and after the write: before %s, after %s",
					chk.query, want, showRows(before), showRows(after)))
			}
		}
	}
	if len(failures) > 0 {
		return &write.RefusedError{Err: fmt.Errorf("pre-commit validation failed: %s", strings.Join(failures, "; "))}
	}
	return nil
}

// validatorError wraps the error of a validator's query. A query that the
// locked-down engine refuses, or stops reaching beyond the table, refuses
// the write.
func validatorError(chk check, err error) error {
	err = fmt.Errorf("validator %s: query %q: %w", shortName(chk.validator), chk.query, err)
	if errors.Is(err, sqlengine.ErrLockedDown) {
		return &write.RefusedError{Err: err}
	}
	return err
}

// touchedSlices returns the slices in partitions.
func touchedSlices(all []read.FileSlice, partitions []string) []read.FileSlice {
	var out []read.FileSlice
	for _, s := range all {
		if slices.Contains(partitions, s.Partition) {
			out = append(out, s)
		}
	}
	return out
}

// queryRows runs query with <TABLE_NAME> standing for view and returns its
// rows as text, as Spark's values render with toString (Hudi compares the
// single-result validator's expected text with that), null as "null".
func queryRows(ctx context.Context, engine *sqlengine.Engine, query, view string) ([][]string, error) {
	rows, err := engine.Query(ctx, sqlengine.ExpandTableName(query, view))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		values := rows.Values()
		row := make([]string, len(values))
		for i, v := range values {
			row[i] = valuefmt.JavaText(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// sameRows compares two results as multisets of rows.
func sameRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, r := range a {
		count[strings.Join(r, "\x00")]++
	}
	for _, r := range b {
		k := strings.Join(r, "\x00")
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

func showRows(rows [][]string) string {
	parts := make([]string, 0, maxRowsShownOnMismatch)
	for i, r := range rows {
		if i == maxRowsShownOnMismatch {
			parts = append(parts, fmt.Sprintf("... (%d rows)", len(rows)))
			break
		}
		parts = append(parts, "("+strings.Join(r, ", ")+")")
	}
	if len(parts) == 0 {
		return "no rows"
	}
	return strings.Join(parts, " ")
}

func shortName(validator string) string {
	return strings.TrimPrefix(validator, validatorPackage)
}

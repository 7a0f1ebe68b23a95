package bench

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/internal/sqlengine"
)

// sql times select count(*), sum(fare) through the query engine over the
// snapshot's files, found through the timeline as hoodiectl query finds
// them, and through DuckDB reading the base files straight from the
// partition folders. On the N-record table of one commit both read the same
// files.
func (r *runner) sql(t *hoodie.Table) error {
	const query = "select count(*), sum(fare) from "
	// The table's configuration tells which columns the view computes; the
	// table has meta fields, so it computes none.
	cfg, err := t.Config(r.ctx)
	if err != nil {
		return err
	}
	if err := r.query(SQL, sqlengine.LockedDown, func(e *sqlengine.Engine) (*sqlengine.Rows, string, error) {
		latest, err := t.FileSlices(r.ctx, "")
		if err != nil {
			return nil, "", err
		}
		files := sqlengine.TableFiles(t.Path(), cfg, nil, latest)
		if err := e.CreateView(r.ctx, "trips", files, nil); err != nil {
			return nil, "", err
		}
		rows, err := e.Query(r.ctx, sqlengine.ExpandTableName(query+sqlengine.TableNameToken, "trips"))
		return rows, fmt.Sprintf("a view of %d files", len(files)), err
	}); err != nil {
		return err
	}
	var globs []string
	for _, folder := range r.folders {
		globs = append(globs, quoteLiteral(filepath.Join(t.Path(), filepath.FromSlash(folder), "*.parquet")))
	}
	return r.query(DuckDB, sqlengine.ExternalAccess, func(e *sqlengine.Engine) (*sqlengine.Rows, string, error) {
		rows, err := e.Query(r.ctx, query+"read_parquet(["+strings.Join(globs, ", ")+"])")
		return rows, fmt.Sprintf("read_parquet of %d folders' *.parquet", len(globs)), err
	})
}

// query opens a query engine of the given access and times run on it as
// workload, which returns the result of a query of the count of records and
// the sum of their fares, and the detail of the report, and checks the
// result against the base trips. Opening the engine is not timed.
func (r *runner) query(workload Workload, access sqlengine.Access, run func(*sqlengine.Engine) (*sqlengine.Rows, string, error)) (err error) {
	e, err := sqlengine.Open(r.ctx, access)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, e.Close()) }()
	var values []any
	if err := r.measure(workload, len(r.data.Base), func() (string, error) {
		rows, detail, err := run(e)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return "", err
			}
			return "", errors.New("no result row")
		}
		values = slices.Clone(rows.Values())
		return detail, rows.Close()
	}); err != nil {
		return err
	}
	n, okN := values[0].(int64)
	sum, okSum := values[1].(float64)
	if !okN || !okSum {
		return fmt.Errorf("%s: result %v, want a count and a sum", workload, values)
	}
	if err := checkTotals(n, sum, r.data.Base); err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	r.validate(workload, "count %d and fare sum %.2f as generated", n, sum)
	return nil
}

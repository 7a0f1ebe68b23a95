package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hoodie-dev/hoodie/validate/datavalidator"
)

// validateStatus is the line `validate` prints on standard output, as
// data-validator does: DATA_VALIDATOR_STATUS=PASS or FAIL.
const validateStatus = "DATA_VALIDATOR_STATUS="

func newValidateCommand(io streams) *cobra.Command {
	var configFile, jsonReport, htmlReport, exitErrorOnFail string
	var vars []string
	cmd := &cobra.Command{
		Use:   "validate --config FILE [--jsonReport FILE] [--htmlReport FILE] [--vars k=v,...] [--exitErrorOnFail true|false]",
		Short: "Validate tables' data with checks from a YAML config (data-validator)",
		Long: `validate is a standalone data validator in the style of target/data-validator:
a YAML config (--config) lists tables, Hoodie tables (hoodieTable: FOLDER, read
as query reads them, meta columns included) or Parquet files (parquetFile: FILE
or glob), each with an optional SQL condition and checks: rowCount, nullCheck,
negativeCheck, columnMaxCheck, rangeCheck, uniqueCheck, stringLengthCheck,
stringRegexCheck, columnSumCheck, colstats. Variables ($NAME or ${NAME}) come
from the config's vars (value, env, shell, sql) and from --vars, which wins.
docs/validation.md describes the config.

The config's SQL runs on DuckDB locked down, as query's does: it reads the
files of the config's tables only (a sql variable reads none) and runs
queries (SELECT) only. A shell variable's command gets the variables it uses
as environment variables, so that no value is ever run as shell code: write
"$NAME" where the value goes.

Standard output gets one line, DATA_VALIDATOR_STATUS=PASS or
DATA_VALIDATOR_STATUS=FAIL; the results of each check, with up to
numErrorsToReport example rows of failed checks when detailedErrors, go to
standard error. --jsonReport and --htmlReport write the report to files, and
the config's outputs send the JSON report to files or programs.

Exit status (data-validator's convention): 0 when validation passes, or fails
with --exitErrorOnFail false; 1 when it fails (--exitErrorOnFail true, the
default); 2 for a wrong command line; 3 for an error in the config (unknown
check type, missing parameter, unknown column, wrong type, undefined
variable: found before any check runs) or in running it (an unreadable
table, a report that cannot be written), with no status line.`,
		Example: `  hoodiectl validate --config checks.yaml
  hoodiectl validate --config checks.yaml --jsonReport report.json --htmlReport report.html
  hoodiectl validate --config checks.yaml --vars TABLE=/tmp/trips,MIN_ROWS=10 --exitErrorOnFail false`,
		Args: exactArgs(0, "no arguments (give the config with --config)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if configFile == "" {
				return usagef("validate needs --config FILE")
			}
			exitOnFail, err := strconv.ParseBool(exitErrorOnFail)
			if err != nil {
				return usagef("--exitErrorOnFail %q: want true or false", exitErrorOnFail)
			}
			given := map[string]string{}
			for _, v := range vars {
				if err := datavalidator.ParseVarsFlag(v, given); err != nil {
					return &usageError{err}
				}
			}
			data, err := os.ReadFile(configFile)
			if err != nil {
				return fmt.Errorf("validate: %w", err)
			}
			cfg, err := datavalidator.Parse(data)
			if err != nil {
				return fmt.Errorf("validate: %s: %w", configFile, err)
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintf(io.err, "hoodiectl: validate: %s: %s\n", configFile, w)
			}
			report, err := datavalidator.Run(cmd.Context(), cfg, datavalidator.Options{Vars: given})
			if err != nil {
				return fmt.Errorf("validate: %s: %w", configFile, err)
			}
			if err := report.WriteText(io.err); err != nil {
				return fmt.Errorf("validate: write results: %w", err)
			}
			if jsonReport != "" {
				b, err := report.JSON()
				if err == nil {
					err = os.WriteFile(jsonReport, b, 0o644)
				}
				if err != nil {
					return fmt.Errorf("validate: --jsonReport: %w", err)
				}
			}
			if htmlReport != "" {
				if err := writeHTMLReport(htmlReport, report); err != nil {
					return fmt.Errorf("validate: --htmlReport: %w", err)
				}
			}
			if err := report.WriteOutputs(cmd.Context()); err != nil {
				return fmt.Errorf("validate: %w", err)
			}
			if _, err := fmt.Fprintln(io.out, validateStatus+report.Status()); err != nil {
				return fmt.Errorf("validate: write output: %w", err)
			}
			if report.Failed && exitOnFail {
				return &refusedError{fmt.Errorf("validate: %s: validation failed", configFile)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", "", "the validator config, a YAML file (required)")
	f.StringVar(&jsonReport, "jsonReport", "", "write the JSON report to this file")
	f.StringVar(&htmlReport, "htmlReport", "", "write the HTML report to this file")
	f.StringArrayVar(&vars, "vars", nil, "variables k1=v1,k2=v2 (repeatable); they win over the config's vars")
	f.StringVar(&exitErrorOnFail, "exitErrorOnFail", "true", "exit 1 when validation fails (true) or 0 (false)")
	return cmd
}

// writeHTMLReport writes report as HTML to the file name.
func writeHTMLReport(name string, report *datavalidator.Report) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = report.WriteHTML(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

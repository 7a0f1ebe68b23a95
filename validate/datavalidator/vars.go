package datavalidator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/sqlengine"
	"github.com/hoodie-dev/hoodie/internal/valuefmt"
)

// varPattern finds variables: $NAME or ${NAME}, NAME a letter and then
// letters, digits or underscores (data-validator's rule). A $ not followed
// by a letter or { is kept as it is.
var varPattern = regexp.MustCompile(`\$(?:\{([A-Za-z][A-Za-z0-9_]*)\}|([A-Za-z][A-Za-z0-9_]*))`)

// substitute replaces the variables of s with their values. A variable
// without a value is an error naming every such variable.
func substitute(s string, vars map[string]string) (string, error) {
	var missing []string
	out := varPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := varPattern.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		v, ok := vars[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for variable(s) %s (define them under vars or with --vars)", strings.Join(missing, ", "))
	}
	return out, nil
}

// hasVars reports whether s holds a variable.
func hasVars(s string) bool { return varPattern.MatchString(s) }

// ParseVarsFlag parses the --vars value "k1=v1,k2=v2" into dst. Values
// cannot hold commas; a name must be a variable name.
func ParseVarsFlag(s string, dst map[string]string) error {
	if s == "" {
		return nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("--vars: %q is not NAME=VALUE", kv)
		}
		if !validVarName(k) {
			return fmt.Errorf("--vars: variable name %q: want a letter, then letters, digits or _", k)
		}
		dst[k] = v
	}
	return nil
}

// resolveVars returns the values of the configuration's variables, the
// command line's (given) winning over the configuration's: a configuration
// variable that given sets is not evaluated. Env, shell and sql variables
// may use the variables before them: a shell command gets them as
// environment variables (see shellValue), a query as text.
//
// Queries run on an engine of their own, locked down and without views:
// they read no file, and the tables, which may name variables, come after.
func resolveVars(ctx context.Context, cfgVars []Var, given map[string]string, lookupEnv func(string) (string, bool)) (_ map[string]string, err error) {
	var engine *sqlengine.Engine
	defer func() {
		if engine != nil {
			err = errors.Join(err, engine.Close())
		}
	}()
	vars := map[string]string{}
	for k, v := range given {
		vars[k] = v
	}
	seen := map[string]bool{}
	for _, v := range cfgVars {
		where := fmt.Sprintf("variable %s (line %d)", v.Name, v.line)
		if seen[v.Name] {
			return nil, configErrorf(where, "defined twice")
		}
		seen[v.Name] = true
		if _, ok := given[v.Name]; ok {
			continue
		}
		switch {
		case v.Value != nil:
			vars[v.Name] = *v.Value
		case v.Env != "":
			name, err := substitute(v.Env, vars)
			if err != nil {
				return nil, configErrorf(where, "env: %v", err)
			}
			val, ok := lookupEnv(name)
			if !ok {
				return nil, configErrorf(where, "environment variable %s is not set", name)
			}
			vars[v.Name] = val
		case v.Shell != "":
			env, err := shellEnv(v.Shell, vars)
			if err != nil {
				return nil, configErrorf(where, "shell: %v", err)
			}
			val, err := shellValue(ctx, v.Shell, env)
			if err != nil {
				return nil, fmt.Errorf("%s: shell %q: %w", where, v.Shell, err)
			}
			vars[v.Name] = val
		case v.SQL != "":
			query, err := substitute(v.SQL, vars)
			if err != nil {
				return nil, configErrorf(where, "sql: %v", err)
			}
			if engine == nil {
				if engine, err = sqlengine.Open(ctx, sqlengine.LockedDown); err != nil {
					return nil, err
				}
			}
			val, err := sqlValue(ctx, engine, query)
			if err != nil {
				return nil, fmt.Errorf("%s: sql %q: %w", where, query, err)
			}
			vars[v.Name] = val
		}
	}
	return vars, nil
}

// shellEnv returns the environment variables, NAME=value, of the
// variables that script uses: every one must have a value, as in
// substitute.
func shellEnv(script string, vars map[string]string) ([]string, error) {
	if _, err := substitute(script, vars); err != nil {
		return nil, err
	}
	var env []string
	for _, m := range varPattern.FindAllStringSubmatch(script, -1) {
		name := m[1] + m[2]
		env = append(env, name+"="+vars[name])
	}
	return env, nil
}

// shellValue runs script with sh -c, in the environment of the process
// and env (which wins), and returns the first line of its output.
// Variables reach the script through env, never spliced into its text, so
// that no value is ever read as shell code: sh expands $NAME and ${NAME}
// where it expands variables (not inside single quotes), and a value is
// always taken as it is.
func shellValue(ctx context.Context, script string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return "", err
	}
	line, _, _ := bufio.NewReader(bytes.NewReader(out)).ReadLine()
	return string(line), nil
}

// sqlValue runs query and returns the first column of its first row as
// text (null as "null").
func sqlValue(ctx context.Context, engine *sqlengine.Engine, query string) (string, error) {
	row, err := queryRow(ctx, engine, query)
	if err != nil {
		return "", err
	}
	if row[0] == nil {
		return "null", nil
	}
	return valuefmt.Text(nil, row[0]), nil
}

// defaultLookupEnv is os.LookupEnv.
var defaultLookupEnv = os.LookupEnv

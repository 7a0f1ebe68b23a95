package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexDamaged damages the files of a table's record index and checks
// that index verify fails with one line naming the damage and the way out
// (exit 3), that a read by key still finds its record, that index rebuild
// repairs the index, and that an upsert on an index whose tables are
// damaged succeeds, saying that it rebuilds it. (Damage to the end of a
// manifest may only make Pebble drop its last changes, as after a crash:
// the index then catches up or is rebuilt as a new one, silently.)
func TestIndexDamaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	hoodiectl(t, "", "init", dir, "--name", "t", "--record-key", "uuid", "--precombine", "ts").mustSucceed(t)
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, `{"uuid":"k%04d","ts":1,"fare":1.5}`+"\n", i)
	}
	hoodiectl(t, in.String(), "bulk-insert", dir).mustSucceed(t)
	damage := func(prefix string) {
		t.Helper()
		indexDir := filepath.Join(dir, ".hoodie", ".index")
		entries, err := os.ReadDir(indexDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			path := filepath.Join(indexDir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := len(data) / 2; i < len(data); i += 61 {
				data[i] ^= 0x10
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	damage("")
	r := hoodiectl(t, "", "index", "verify", dir)
	r.mustFail(t, exitError, "index store failed", "run hoodiectl index rebuild")
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Errorf("index verify printed %d lines, want one:\n%s", n+1, r.stderr)
	}
	if out := hoodiectl(t, "", "read", dir, "--where", "uuid = 'k0042'", "--columns", "uuid").mustSucceed(t).stdout; !strings.Contains(out, "k0042") {
		t.Errorf("read by key with a damaged index: %q", out)
	}
	hoodiectl(t, "", "index", "rebuild", dir).mustSucceed(t)
	hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)

	damage("0") // the tables and the log
	r = hoodiectl(t, `{"uuid":"k0042","ts":2,"fare":9.5}`, "upsert", dir).mustSucceed(t)
	if !strings.Contains(r.stderr, "hoodiectl: warning: the record index cannot be used, rebuilding it from the table's files") {
		t.Errorf("the upsert did not say it rebuilt the index:\n%s", r.stderr)
	}
	hoodiectl(t, "", "index", "verify", dir).mustSucceed(t)
	if out := hoodiectl(t, "", "read", dir, "--where", "uuid = 'k0042'", "--columns", "fare").mustSucceed(t).stdout; !strings.Contains(out, "9.5") {
		t.Errorf("after the upsert: %q", out)
	}
}

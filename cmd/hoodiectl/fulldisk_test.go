package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/internal/tripbench"
	"github.com/hoodie-dev/hoodie/internal/trips"
	"github.com/hoodie-dev/hoodie/storage"
)

// childArgs, in a test binary's environment, makes TestFullDiskFailsFast
// run hoodiectl with these arguments (separated by newlines) and exit.
const childArgs = "HOODIECTL_TEST_ARGS"

// TestFullDiskFailsFast runs hoodiectl upsert, index verify and index
// rebuild in child processes on a table on a small tmpfs filled up to
// several levels, and checks that each ends (a child that hangs is killed
// after two minutes and fails the test) with exit status 0 or 3, never 1
// or 2 (a refusal, or a panic), saying on one line that there is no space
// left, besides a warning that it rebuilt the index; that the writer lock
// is free after it; and that once space is freed, the next upsert succeeds
// and the index verifies. It needs to mount a tmpfs (root); without that
// it skips, and the fault-injection tests (write's
// TestWriteCrashAtEveryStep, index's TestDiskFullAtEveryWrite) carry the
// checks.
func TestFullDiskFailsFast(t *testing.T) {
	if args := os.Getenv(childArgs); args != "" {
		os.Exit(run(context.Background(), strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr))
	}
	if testing.Short() {
		t.Skip("mounts a tmpfs and runs child processes; skipped in -short mode")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); TestWriteCrashAtEveryStep and index's TestDiskFullAtEveryWrite inject full disks instead", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	table := filepath.Join(mnt, "trips")
	tripsTable(t, table, 5_000)
	gen := trips.NewGenerator(5)
	updates := filepath.Join(t.TempDir(), "updates.jsonl")
	writeTripsJSONL(t, updates, gen.Updates(trips.NewGenerator(1).Inserts(5_000), 5_000))
	inserts := filepath.Join(t.TempDir(), "inserts.jsonl")
	writeTripsJSONL(t, inserts, gen.Inserts(100))

	filler := filepath.Join(mnt, "filler")
	for _, free := range []int64{0, 16 << 10, 128 << 10, 512 << 10, 1 << 20, 2 << 20} {
		for _, args := range [][]string{
			{"upsert", table, updates},
			{"index", "verify", table},
			{"index", "rebuild", table},
		} {
			fill(t, mnt, filler, free)
			code, stderr := runChild(t, args)
			what := fmt.Sprintf("%s with %d KB free", strings.Join(args[:2], " "), free>>10)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			t.Logf("%s: exit %d: %s", what, code, lines[len(lines)-1])
			switch {
			case code == exitOK:
			case code != exitError:
				t.Fatalf("%s: exit %d, want 0 or 3:\n%s", what, code, stderr)
			case !strings.Contains(stderr, "no space left on device"):
				t.Fatalf("%s: the error does not say the disk is full:\n%s", what, stderr)
			case len(lines) > 2 || (len(lines) == 2 && !strings.Contains(lines[0], "warning: the record index cannot be used")):
				t.Fatalf("%s: %d lines of errors, want one (and a warning):\n%s", what, len(lines), stderr)
			}
			fsys, err := storage.NewLocalFS(table)
			if err != nil {
				t.Fatal(err)
			}
			unlock, err := fsys.TryLock(context.Background(), storage.LockFile)
			if err != nil {
				t.Fatalf("%s: the writer lock is held after it: %v", what, err)
			}
			unlock()
			// Once space is freed, the next write succeeds.
			if err := os.Remove(filler); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if code, stderr := runChild(t, []string{"upsert", table, inserts}); code != exitOK {
				t.Fatalf("%s: the next upsert, with space freed: exit %d:\n%s", what, code, stderr)
			}
		}
	}
	if code, stderr := runChild(t, []string{"index", "verify", table}); code != exitOK {
		t.Fatalf("index verify at the end: exit %d:\n%s", code, stderr)
	}
}

// runChild runs hoodiectl with args in a child process, killed after two
// minutes, and returns its exit status and standard error.
func runChild(t *testing.T, args []string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFullDiskFailsFast$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\n"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hoodiectl %s did not end in two minutes; killed:\n%s", strings.Join(args, " "), stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// fill writes filler so that about free bytes stay free on the file system
// of mnt.
func fill(t *testing.T, mnt, filler string, free int64) {
	t.Helper()
	if err := os.Remove(filler); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(st.Bavail)*st.Bsize - free
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for size > 0 {
		n := min(size, int64(len(block)))
		if _, err := f.Write(block[:n]); err != nil {
			return // full already
		}
		size -= n
	}
}

// writeTripsJSONL writes ts as JSON lines, one object a trip, to path.
func writeTripsJSONL(t *testing.T, path string, ts []trips.Trip) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	fields := tripbench.Schema().Fields
	for _, tr := range ts {
		obj := map[string]any{}
		for i, v := range tr.Values() {
			obj[fields[i].Name] = v
		}
		if err := enc.Encode(obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// Package locktest holds a table's writer lock in another process, for
// tests of what writers do while another one holds it.
package locktest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage"
)

// envDir tells a child test process the table whose lock it holds.
const envDir = "HOODIE_TEST_LOCK_HOLDER"

// Serve makes the test binary a lock holder when Start started it, and
// returns at once otherwise: call it first in the test that calls Start.
// The holder takes the table's writer lock, says so on standard output,
// and holds it until it is killed.
func Serve() {
	dir := os.Getenv(envDir)
	if dir == "" {
		return
	}
	fsys, err := storage.NewLocalFS(dir)
	if err != nil {
		os.Exit(1)
	}
	if _, err := storage.Lock(context.Background(), fsys, storage.LockFile, storage.LockOptions{}); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Hour)
	os.Exit(0)
}

// Holder is a child process that holds a table's writer lock.
type Holder struct {
	cmd *exec.Cmd
}

// Start runs the test named test of this test binary, whose first
// statement calls Serve, as a child process holding the writer lock of the
// table at dir, and returns once the child holds it. The child is killed
// when tb ends, if Kill did not kill it before.
func Start(tb testing.TB, test, dir string) *Holder {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), envDir+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	h := &Holder{cmd: cmd}
	tb.Cleanup(h.Kill)
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		tb.Fatalf("the lock holder did not take the lock: %q %v", line, err)
	}
	return h
}

// PID is the holder's process id.
func (h *Holder) PID() int { return h.cmd.Process.Pid }

// Kill kills the holder with SIGKILL and waits for it to end.
func (h *Holder) Kill() {
	if h.cmd.ProcessState == nil {
		h.cmd.Process.Kill()
		h.cmd.Wait()
	}
}

package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/locktest"
)

// TestWriteGivesUpOnAHeldLock holds the table's lock in another process:
// a write with --lock-timeout (or hoodie.write.lock.wait_time_ms) fails
// with exit 1 naming the holder, and writes nothing; once the holder is
// gone the write goes through.
func TestWriteGivesUpOnAHeldLock(t *testing.T) {
	locktest.Serve()
	dir := newTripsCLITable(t)
	holder := locktest.Start(t, "TestWriteGivesUpOnAHeldLock", dir)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	who := fmt.Sprintf("table locked by pid %d on host %s since ", holder.PID(), host)
	const input = `{"uuid":"a","ts":1,"fare":1.5,"region":"eu"}`
	hoodiectl(t, input, "upsert", dir, "--lock-timeout", "100ms").
		mustFail(t, exitRefused, "hoodiectl: upsert: "+who, "gave up waiting after 100ms; nothing was committed")
	hoodiectl(t, input, "insert", dir, "--set", "hoodie.write.lock.wait_time_ms=50").
		mustFail(t, exitRefused, who, "gave up waiting after 50ms")
	// Waiting a second or more, it says whom it waits for first.
	r := hoodiectl(t, input, "upsert", dir, "--lock-timeout", "1s")
	r.mustFail(t, exitRefused, "gave up waiting after 1s")
	if want := fmt.Sprintf("hoodiectl: waiting for the table's lock, held by pid %d on host %s since ", holder.PID(), host); !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr does not start with %q:\n%s", want, r.stderr)
	}
	hoodiectl(t, input, "upsert", dir, "--lock-timeout", "-1s").mustFail(t, exitUsage, "--lock-timeout -1s: want a positive duration")
	holder.Kill()
	if recs := readKeys(t, dir); len(recs) != 0 {
		t.Fatalf("writes that gave up wrote %d record(s)", len(recs))
	}
	hoodiectl(t, input, "upsert", dir, "--lock-timeout", "1m").mustSucceed(t)
}

"""Case 5: two kinds of writers at once.

A hoodiectl write is held pending: the process is stopped (SIGSTOP) once
its requested instant exists, as a slow or paused writer would be, and its
heartbeat, refreshed every minute, stays fresh. Meanwhile a Spark writer
configured for multiple writers (optimistic concurrency control, LAZY
rollback of failed writes, an in-process lock provider) commits to the
same table. Spark must not roll the Hoodie write back: Spark rolls back a
pending commit only once its heartbeat expired. Then the Hoodie write
resumes:

- Spark's commit wrote other file groups: Hoodie's write completes, and
  every reader sees both.
- Spark's commit wrote a file group Hoodie's write also writes: Hoodie's
  write is refused (exit 1) and rolled back, as Hudi's optimistic
  concurrency control refuses the later of two commits of one file group;
  every reader sees Spark's commit alone.

(That Hoodie never rolls back a Spark write whose heartbeat is fresh is
write/markers_test.go's TestRecoverLeavesWritesWithAFreshHeartbeat.)
"""

import json
import os
import signal
import subprocess
import tempfile
import time

from hoodie_interop import canon_rows, diff, read_one, spark_write

SCHEMA = "id long, ts long, name string, part string"
COLUMNS = ["id", "ts", "name", "part", "_hoodie_record_key", "_hoodie_partition_path"]
MULTI_WRITER = {
    "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
    "hoodie.cleaner.policy.failed.writes": "LAZY",
    "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider",
}
# Enough records that the write is still writing files when it is stopped.
BIG = 100_000


def rec(n, ts, tag, part):
    return {"id": n, "ts": ts, "name": f"{tag}-{n}", "part": part}


def pending_instants(table):
    """The commits requested and not completed."""
    names = set(os.listdir(os.path.join(table, ".hoodie")))
    return sorted(n.split(".")[0] for n in names
                  if n.endswith(".commit.requested") and n.split(".")[0] + ".commit" not in names)


def start_held_write(hoodie, table, records):
    """Starts hoodiectl upsert of records and stops it once its commit is
    requested (Hoodie writes its heartbeat before); returns the process and
    the instant."""
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    before = set(pending_instants(table))
    proc = subprocess.Popen([hoodie.exe, "upsert", table, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:
        new = sorted(set(pending_instants(table)) - before)
        if new:
            proc.send_signal(signal.SIGSTOP)
            break
        if proc.poll() is not None or time.monotonic() > deadline:
            out, err = proc.communicate()
            raise AssertionError(f"the Hoodie write ended (or never began) before it could be held: exit {proc.returncode}: {err}")
        time.sleep(0.002)
    instant = new[0]
    names = os.listdir(os.path.join(table, ".hoodie"))
    assert instant + ".commit" not in names, "the Hoodie write completed before it was stopped: raise BIG"
    return proc, instant


def resume(proc):
    proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def make_table(hoodie, table):
    hoodie.init(table, "concurrent", "id", precombine="ts", partition_by="part")
    first = [rec(n, 1, "h", f"p{n % 2}") for n in range(10)]
    hoodie.write("insert", table, first)
    return {r["id"]: r for r in first}


def check_readers(spark, hoodie, table, model):
    want = canon_rows([dict(r, _hoodie_record_key=str(r["id"]), _hoodie_partition_path=r["part"]) for r in model.values()], COLUMNS)
    for reader in ("hoodie", "hudi-rs", "spark"):
        got = canon_rows(read_one(reader, spark, hoodie, table), COLUMNS)
        assert got == want, f"{reader}: " + diff(got, want)


def test_spark_commits_while_hoodie_inflight(spark, hoodie, tmp_path):
    table = str(tmp_path / "other-groups")
    model = make_table(hoodie, table)
    # Hoodie: an update in p0 and many inserts in p0. Spark, meanwhile: an
    # update in p1, whose file group Hoodie does not write.
    mine = [rec(0, 2, "h2", "p0")] + [rec(1000 + n, 2, "h2", "p0") for n in range(BIG)]
    proc, instant = start_held_write(hoodie, table, mine)
    try:
        spark_write(spark, table, [rec(1, 3, "s", "p1")], SCHEMA, "upsert", MULTI_WRITER)
        # Spark did not roll the Hoodie write back.
        names = os.listdir(os.path.join(table, ".hoodie"))
        assert instant + ".commit.requested" in names, f"Spark rolled back Hoodie's pending commit {instant}"
        assert os.path.exists(os.path.join(table, ".hoodie", ".heartbeat", instant))
    finally:
        code, out, err = resume(proc)
    assert code == 0, f"the Hoodie write failed after Spark's commit: exit {code}: {err}"
    assert out.strip().splitlines()[-1] == instant
    model[1] = rec(1, 3, "s", "p1")
    for r in mine:
        model[r["id"]] = r
    check_readers(spark, hoodie, table, model)


def test_conflicting_commit_refuses_hoodie_write(spark, hoodie, tmp_path):
    table = str(tmp_path / "same-group")
    model = make_table(hoodie, table)
    # Both update records of p0's one file group.
    mine = [rec(0, 2, "h2", "p0")] + [rec(1000 + n, 2, "h2", "p0") for n in range(BIG)]
    proc, instant = start_held_write(hoodie, table, mine)
    try:
        spark_write(spark, table, [rec(2, 3, "s", "p0")], SCHEMA, "upsert", MULTI_WRITER)
        assert instant + ".commit.requested" in os.listdir(os.path.join(table, ".hoodie")), \
            f"Spark rolled back Hoodie's pending commit {instant}"
    finally:
        code, out, err = resume(proc)
    assert code == 1, f"exit {code}, want 1 (refused): {err}"
    assert "of another writer completed while this write ran" in err and "nothing was committed" in err, err
    names = os.listdir(os.path.join(table, ".hoodie"))
    assert not any(n.startswith(instant) for n in names), f"Hoodie's refused instant {instant} is still on the timeline"
    model[2] = rec(2, 3, "s", "p0")
    check_readers(spark, hoodie, table, model)

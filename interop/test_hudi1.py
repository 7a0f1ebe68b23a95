"""Case 6: Hudi 1.x tables (table version 8) read by Hoodie.

Spark with Apache Hudi 1.0.2 (hudi1_tables.py, in a process of its own)
writes a copy-on-write table of version 8: timeline layout 2, completion
times in instant file names. Hoodie must give Spark's answers: snapshot,
time travel and incremental.
"""

import json
import os
import subprocess
import sys

import pytest

from hoodie_interop import HoodieError, canon_rows

HERE = os.path.dirname(os.path.abspath(__file__))

@pytest.fixture(scope="module")
def hudi1(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("case6"))
    p = subprocess.run([sys.executable, os.path.join(HERE, "hudi1_tables.py"), out],
                       capture_output=True, text=True, timeout=600, cwd=out)
    assert p.returncode == 0, f"Spark with Hudi 1.0.2 failed: {p.stderr[-3000:]}"
    with open(os.path.join(out, "answers.json")) as f:
        return out, json.load(f)


def test_hudi1_made_version_8(hudi1):
    """What Spark with Hudi 1.0.2 writes is what this case is about."""
    out, answers = hudi1
    with open(os.path.join(out, "cow_v8", ".hoodie", "hoodie.properties")) as f:
        props = f.read()
    assert "hoodie.table.version=8" in props
    a = answers["cow_v8"]
    assert len(a["instants"]) == 3
    # Hudi 1.x differs from 0.x here: an incremental range selects commits
    # by completion time, not requested time, and includes both ends
    # ([begin, end], RangeType.CLOSED_CLOSED). From the first requested
    # time to the second it so holds the first commit (it completed inside
    # the range) and not the second (it completed after its end): the 8
    # records of the first commit alone, as its own files hold them.
    (r1, _), (r2, _), _ = a["instants"]
    first = a["incremental"][f"{r1},{r2}"]
    assert len(first) == 8 and {r["_hoodie_commit_time"] for r in first} == {r1}


@pytest.mark.parametrize("name", ["cow_v8", "cow_v8_replace"])
@pytest.mark.parametrize("kind", ["snapshot", "time_travel", "incremental"])
def test_hoodie_reads_version_8(hoodie, hudi1, kind, name):
    out, answers = hudi1
    table = os.path.join(out, name)
    a = answers[name]
    if kind == "snapshot":
        assert canon_rows(hoodie.read(table)) == a["snapshot"]
    elif kind == "time_travel":
        for instant, want in a["as_of"].items():
            assert canon_rows(hoodie.read(table, as_of=instant)) == want, instant
    else:
        # Hudi 1.x picks the commits whose completion time is in [begin,
        # end] (a commit that completed exactly at begin included) and
        # returns the records they wrote, as their own files hold them (a
        # later commit's update does not hide them).
        for rng, want in a["incremental"].items():
            b, e = rng.split(",")
            assert canon_rows(hoodie.read(table, begin=b, end=e or None)) == want, rng


def test_hudi1_time_travel_compares_requested_times(hudi1):
    """Hudi 1.x's as.of.instant compares requested times: as of a time
    after a commit was requested but before it completed, Spark shows it."""
    _, answers = hudi1
    a = answers["cow_v8"]
    (_, _), (r2, c2), _ = a["instants"]
    mid = str(int(r2) + 1)
    if mid not in a["as_of"] or not mid < c2:
        pytest.skip("the second commit completed within a millisecond")
    assert a["as_of"][mid] == a["as_of"][r2]


def test_hoodie_timeline_version_8(hoodie, hudi1):
    """hoodiectl timeline lists a version 8 table's instants with their
    completion times."""
    out, answers = hudi1
    rows = [json.loads(line) for line in hoodie.run("timeline", os.path.join(out, "cow_v8")).splitlines()]
    got = [(r["instant"], r["completion"]) for r in rows if r["state"] == "completed"]
    assert got == [tuple(i) for i in answers["cow_v8"]["instants"]]
    assert [r["operation"] for r in rows] == ["insert", "upsert", "delete"]


def test_hudi1_made_a_replacecommit(hudi1):
    """insert_overwrite in Hudi 1.0.2 completes as a replacecommit, whose
    partition p0 Hoodie must see replaced."""
    out, answers = hudi1
    names = os.listdir(os.path.join(out, "cow_v8_replace", ".hoodie", "timeline"))
    assert any(n.endswith(".replacecommit") and "_" in n for n in names), names
    assert {r["part"] for r in answers["cow_v8_replace"]["snapshot"] if r["id"] in (0, 2, 4)} == set()


@pytest.mark.parametrize("op", ["insert", "upsert", "delete"])
def test_hoodie_refuses_writing_version_8(hoodie, hudi1, op):
    """Hoodie writes table version 6 only: a write to a version 8 table
    exits 1, names the version and what to do, and changes no file."""
    out, _ = hudi1
    table = os.path.join(out, "cow_v8")

    def files():
        return sorted((os.path.relpath(os.path.join(d, n), table), os.path.getmtime(os.path.join(d, n)))
                      for d, _, ns in os.walk(table) for n in ns)

    before = files()
    with pytest.raises(HoodieError) as e:
        hoodie.write(op, table, [{"id": 1, "ts": 9, "name": "h", "part": "p1"}])
    assert e.value.rc == 1
    assert "hoodie.table.version 8" in e.value.stderr and "downgrade" in e.value.stderr
    assert files() == before


def test_hoodie_writes_after_hudi_downgrade(hoodie, hudi1):
    """The way out the refusal names: Hudi 1.0.2's downgrade_table makes the
    table version 6, which Hoodie then writes."""
    out, answers = hudi1
    table = os.path.join(out, "cow_v8_downgraded")
    with open(os.path.join(table, ".hoodie", "hoodie.properties")) as f:
        props = f.read()
    assert "hoodie.table.version=6" in props and "hoodie.timeline.layout.version=1" in props
    before = answers["cow_v8_downgraded"]["snapshot"]
    assert canon_rows(hoodie.read(table)) == before
    instant = hoodie.write("upsert", table, [{"id": 1, "ts": 9, "name": "h-1-9", "part": "p1"}])
    assert instant
    after = canon_rows(hoodie.read(table))
    data = ("id", "ts", "name", "part")

    def untouched(rows):
        # The upsert rewrote id 1's file group: its other records keep all
        # but the file name.
        return [{k: v for k, v in r.items() if k != "_hoodie_file_name"} for r in rows if r["id"] != 1]

    assert untouched(after) == untouched(before)
    (new,) = [r for r in after if r["id"] == 1]
    assert {k: new[k] for k in data} == {"id": 1, "ts": 9, "name": "h-1-9", "part": "p1"}
    assert new["_hoodie_commit_time"] == instant

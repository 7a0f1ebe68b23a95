"""The cleaner and savepoints, between Hoodie and Hudi.

hoodiectl writes a table with its automatic cleaner keeping 3 commits and
savepoints one commit; Spark (Hudi 0.15.0) reads the snapshot and travels
to every instant still readable, then upserts with its own cleaner on, which
reads Hoodie's clean and savepoint metadata to plan its clean; hoodiectl
writes again after Spark's clean. Spark, hudi-rs and hoodiectl must then
give the model's rows for the snapshot and every retained instant, the
savepoint's among them, and Spark must list Hoodie's savepoint.
"""

import glob
import os

import pytest

from hoodie_interop import HoodieError, Model, READERS, check_reader, commit_instants, spark_write

SCHEMA = "id long, ts long, name string, part string"
COLUMNS = ["id", "ts", "name", "part"]
RETAINED = "3"
CLEANER = ["--set", f"hoodie.cleaner.commits.retained={RETAINED}"]
CLEANER_SETTINGS = {"hoodie.cleaner.commits.retained": RETAINED}
SPARK_OPTS = dict(CLEANER_SETTINGS)


def model_writer(hoodie, table, model, states):
    """Returns a function that writes a batch with hoodiectl (the cleaner
    keeping RETAINED commits), applies it to model and records the state."""
    def hwrite(op, batch):
        instant = hoodie.write(op, table, batch, settings=CLEANER_SETTINGS)
        (model.insert if op == "bulk-insert" else model.upsert)(batch, instant)
        states.append((instant, model.copy()))
    return hwrite


def rec(n, ts, by):
    return {"id": n, "ts": ts, "name": f"{by}-{n}-{ts}", "part": ["p1", "p2"][n % 2]}


def clean_instants(table):
    """Completed clean instants, oldest first."""
    return sorted(os.path.basename(p)[:17] for p in glob.glob(os.path.join(table, ".hoodie", "*.clean")))


@pytest.fixture(scope="module")
def cleaned(spark, hoodie, tmp_path_factory):
    table = str(tmp_path_factory.mktemp("cleaner") / "trips")
    hoodie.init(table, name="cleaned", key="id", precombine="ts", partition_by="part")
    model = Model(key_fields=["id"], partition_fields=["part"], precombine="ts")
    states = []

    hwrite = model_writer(hoodie, table, model, states)

    hwrite("bulk-insert", [rec(n, 100, "hoodie") for n in range(12)])
    savepoint = None
    for k in range(1, 10):
        hwrite("upsert", [rec(k % 12, 100 + k, "hoodie"), rec((k + 5) % 12, 100 + k, "hoodie"), rec(20 + k, 100 + k, "hoodie")])
        if k == 4:
            savepoint = hoodie.run("savepoint", table, states[-1][0]).strip().splitlines()[-1]
    hoodie_cleans = clean_instants(table)

    # Spark upserts twice, its cleaner on (Hudi's default) keeping 3 commits.
    for k in (20, 21):
        batch = [rec(n, 100 + k, "spark") for n in (1, 2, 40 + k)]
        i = spark_write(spark, table, batch, SCHEMA, "upsert", SPARK_OPTS)
        model.upsert(batch, i)
        states.append((i, model.copy()))
    spark_cleans = [c for c in clean_instants(table) if c not in hoodie_cleans]

    # Hoodie after Spark's clean.
    hwrite("upsert", [rec(n, 130, "hoodie") for n in (2, 3, 50)])
    return dict(table=table, states=states, savepoint=savepoint, hoodie_cleans=hoodie_cleans, spark_cleans=spark_cleans)


def readable(hoodie, table, states):
    """The states hoodiectl can still travel to; the others must fail with
    the contract's error naming the oldest instant still readable."""
    out = []
    for instant, model in states:
        try:
            hoodie.read(table, as_of=instant)
            out.append((instant, model))
        except HoodieError as e:
            assert e.rc == 3 and "the oldest instant still readable is" in e.stderr, e.stderr
    return out


def test_hoodie_cleans_as_hudi(cleaned, hoodie):
    table, states = cleaned["table"], cleaned["states"]
    assert len(cleaned["hoodie_cleans"]) >= 5, "Hoodie's automatic cleaner did not run after its commits"
    assert cleaned["spark_cleans"], "Spark's cleaner, reading Hoodie's clean metadata, planned no clean"
    for c in cleaned["hoodie_cleans"]:
        for suffix in (".clean.requested", ".clean.inflight", ".clean"):
            assert os.path.exists(os.path.join(table, ".hoodie", c + suffix)), c + suffix
    kept = readable(hoodie, table, states)
    kept_instants = [i for i, _ in kept]
    assert len(kept) < len(states), "nothing was cleaned"
    for instant, _ in states[-int(RETAINED):]:
        assert instant in kept_instants, f"retained commit {instant} cannot be read"
    assert cleaned["savepoint"] in kept_instants, "the savepointed commit cannot be read"


def hudi_clean(spark, table, instant):
    """Hudi's own reading of a clean instant: its plan and its metadata."""
    utils = spark._jvm.org.apache.hudi.common.table.timeline.TimelineMetadataUtils

    def raw(suffix):
        with open(os.path.join(table, ".hoodie", instant + suffix), "rb") as f:
            return bytearray(f.read())

    return utils.deserializeCleanerPlan(raw(".clean.requested")), utils.deserializeHoodieCleanMetadata(raw(".clean"))


def test_hudi_parses_hoodie_cleans(cleaned, spark):
    table = cleaned["table"]
    # A clean deletes files, or (deleting nothing) records an earliest
    # commit to retain that moved on since the clean before.
    retained, deleted = "", 0
    for c in cleaned["hoodie_cleans"]:
        plan, meta = hudi_clean(spark, table, c)
        assert plan.getPolicy() == "KEEP_LATEST_COMMITS" and plan.getVersion() == 2
        assert meta.getStartCleanTime() == c
        assert meta.getEarliestCommitToRetain() == plan.getEarliestInstantToRetain().getTimestamp()
        assert meta.getTotalFilesDeleted() > 0 or meta.getEarliestCommitToRetain() > retained, c
        retained, deleted = meta.getEarliestCommitToRetain(), deleted + meta.getTotalFilesDeleted()
        by_partition = plan.getFilePathsToBeDeletedPerPartition()
        for part in list(by_partition.keySet()):
            files = by_partition.get(part)
            for j in range(files.size()):
                path = files.get(j).getFilePath()
                assert path.startswith("file:/") and f"/{part}/" in path, path
    assert deleted > 0, "no clean of Hoodie's deleted a file"


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", ["snapshot", "time_travel"])
def test_readers_after_cleans(cleaned, spark, hoodie, reader, kind):
    table = cleaned["table"]
    kept = readable(hoodie, table, cleaned["states"])
    if reader == "spark" and kind == "time_travel":
        _, meta = hudi_clean(spark, table, clean_instants(table)[-1])
        kept = [(i, m) for i, m in kept if i >= meta.getEarliestCommitToRetain()]
        assert len(kept) >= int(RETAINED)
    problems = check_reader(reader, kind, spark, hoodie, table, kept, COLUMNS)
    assert not problems, "\n".join(problems)


def test_spark_lists_hoodie_savepoint(cleaned, spark):
    rows = spark.sql(f"call show_savepoints(path => '{cleaned['table']}')").collect()
    assert [r[0] for r in rows] == [cleaned["savepoint"]]


def test_commits_of_both_writers(cleaned):
    # Every commit of the states is on the timeline (none archived).
    assert set(i for i, _ in cleaned["states"]) <= set(commit_instants(cleaned["table"]))


@pytest.fixture(scope="module")
def dropped(spark, hoodie, tmp_path_factory):
    """A table whose partition p2 hoodiectl deletes, then cleans past the
    delete; Spark then upserts a key of p2 back, its cleaner on."""
    table = str(tmp_path_factory.mktemp("dropped") / "trips")
    hoodie.init(table, name="dropped", key="id", precombine="ts", partition_by="part")
    model = Model(key_fields=["id"], partition_fields=["part"], precombine="ts")
    states = []

    hwrite = model_writer(hoodie, table, model, states)

    hwrite("bulk-insert", [rec(n, 100, "hoodie") for n in range(12)])
    instant = hoodie.run("delete-partition", table, "p2", *CLEANER).strip().splitlines()[-1]
    model.delete([k for k, (r, _) in model.rows.items() if r["part"] == "p2"])
    states.append((instant, model.copy()))
    for k in range(1, 6):
        hwrite("upsert", [rec(2 * k, 100 + k, "hoodie")])
    gone = not os.path.exists(os.path.join(table, "p2"))
    batch = [rec(3, 200, "spark")]
    i = spark_write(spark, table, batch, SCHEMA, "upsert", SPARK_OPTS)
    model.upsert(batch, i)
    states.append((i, model.copy()))
    return dict(table=table, states=states, gone=gone)


def test_hoodie_cleans_deleted_partition(dropped, spark):
    assert dropped["gone"], "Hoodie's cleaner left the deleted partition's folder"
    plans = [hudi_clean(spark, dropped["table"], c) for c in clean_instants(dropped["table"])]
    marked = [(plan, meta) for plan, meta in plans if plan.getPartitionsToBeDeleted() and plan.getPartitionsToBeDeleted().contains("p2")]
    assert len(marked) == 1, "no clean, as Hudi parses it, deleted p2"
    assert marked[0][1].getPartitionMetadata().get("p2").getIsPartitionDeleted()


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", ["snapshot", "time_travel"])
def test_readers_after_deleted_partition_clean(dropped, spark, hoodie, reader, kind):
    table = dropped["table"]
    kept = readable(hoodie, table, dropped["states"])
    if reader == "spark" and kind == "time_travel":
        _, meta = hudi_clean(spark, table, clean_instants(table)[-1])
        kept = [(i, m) for i, m in kept if i >= meta.getEarliestCommitToRetain()]
    problems = check_reader(reader, kind, spark, hoodie, table, kept, COLUMNS)
    assert not problems, "\n".join(problems)

"""Rollback and restore, both ways between Hoodie and Hudi 0.15.0.

Hoodie rolls back its latest write and restores to a savepoint (one Spark
made): Spark and hudi-rs must read the table as the model says, at every
commit left, Spark must read Hoodie's rollback and restore instants with
its own Avro classes, and keep writing. Then the other way: Spark (its
write client, path-based) rolls back and restores, and Hoodie reads and
writes the table.
"""

import os
import re

import pytest

from hoodie_interop import READERS, Model, check_reader, spark_options_for, spark_write

SCHEMA = "id long, ts long, name string, fare double, part string"
COLUMNS = ["id", "ts", "name", "fare", "part"]
PARTS = ["2024/01/02", "us west", "eu"]


def rec(n, ts, by):
    return {"id": n, "ts": ts, "name": f"{by}-{n:03d}-{ts}", "fare": n * 2.5 + ts, "part": PARTS[n % 3]}


def new_model():
    return Model(precombine="ts", key_fields=["id"], partition_fields=["part"])


def instant_files(table, action):
    """The instant times of table's timeline files of action, by state."""
    out = {}
    for n in os.listdir(os.path.join(table, ".hoodie")):
        m = re.fullmatch(r"(\d{17})\.(" + action + r")(\.requested|\.inflight)?", n)
        if m:
            out.setdefault(m.group(1), set()).add(m.group(3) or "completed")
    return out


def hudi_avro(spark, table, instant, suffix, cls):
    """The instant file's Avro read by Hudi's own TimelineMetadataUtils into
    its generated class cls (org.apache.hudi.avro.model.<cls>)."""
    with open(os.path.join(table, ".hoodie", instant + suffix), "rb") as f:
        data = f.read()
    jvm = spark._jvm
    klass = getattr(jvm.org.apache.hudi.avro.model, cls)._java_lang_class  # Spark's class loader
    return jvm.org.apache.hudi.common.table.timeline.TimelineMetadataUtils.deserializeAvroMetadata(bytearray(data), klass)


def java_list(jl):
    """A Java list as a Python list."""
    return [jl.get(k) for k in range(jl.size())]


def write_client(spark, table):
    """Hudi's Spark write client of the table at path table, without the
    metadata table: Hudi 0.15 refuses to restore with a metadata table that
    has no base file older than the savepoint ("Please delete metadata table
    and retry"), as on any table whose metadata table was built after it
    (here: Spark rebuilds it after each Hoodie write, which removes it)."""
    jvm = spark._jvm
    props = jvm.java.util.Properties()
    for k, v in spark_options_for(table).items():
        props.setProperty(k, v)
    props.setProperty("hoodie.metadata.enable", "false")
    cfg = (jvm.org.apache.hudi.config.HoodieWriteConfig.newBuilder()
           .withPath(table).withProps(props).forTable(props.getProperty("hoodie.table.name")).build())
    ctx = jvm.org.apache.hudi.client.common.HoodieSparkEngineContext(spark._jsc)
    return jvm.org.apache.hudi.client.SparkRDDWriteClient(ctx, cfg)


def check_all(spark, hoodie, table, states):
    problems = []
    for reader in READERS:
        for kind in ("snapshot", "time_travel", "incremental"):
            problems += check_reader(reader, kind, spark, hoodie, table, states, COLUMNS)
    return problems


def test_hoodie_rolls_back_then_spark_continues(spark, hoodie, tmp_path):
    table = str(tmp_path / "rolled")
    hoodie.init(table, name="rolled", key="id", precombine="ts", partition_by="part")
    model, states = new_model(), []
    batch = [rec(n, 100, "hoodie") for n in range(1, 10)]
    i = hoodie.write("bulk-insert", table, batch)
    model.insert(batch, i)
    states.append((i, model.copy()))
    batch = [rec(n, 200, "hoodie") for n in (1, 2, 10)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    states.append((i, model.copy()))

    # Hoodie's latest write, a delete and an insert, is rolled back.
    gone = hoodie.write("upsert", table, [rec(n, 300, "hoodie") for n in (3, 11, 12)])
    rb = hoodie.run("rollback", table, gone).strip().splitlines()[-1]
    assert instant_files(table, "rollback") == {rb: {".requested", ".inflight", "completed"}}
    assert gone not in instant_files(table, "commit")
    meta = hudi_avro(spark, table, rb, ".rollback", "HoodieRollbackMetadata")
    assert java_list(meta.getCommitsRollback()) == [gone]
    assert meta.getTotalFilesDeleted() > 0
    plan = hudi_avro(spark, table, rb, ".rollback.requested", "HoodieRollbackPlan")
    assert plan.getInstantToRollback().getCommitTime() == gone
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

    # Spark writes on (its defaults: the metadata table, built from the
    # files), then Hoodie, then Spark again.
    batch = [rec(n, 400, "spark") for n in (2, 3, 11)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert")
    model.upsert(batch, i)
    states.append((i, model.copy()))
    batch = [rec(n, 500, "hoodie") for n in (3, 4, 13)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    states.append((i, model.copy()))
    # Hoodie rolls back its write after Spark's, and Spark writes again.
    rb2 = hoodie.run("rollback", table, i).strip().splitlines()[-1]
    states.pop()
    model = states[-1][1].copy()
    batch = [rec(n, 600, "spark") for n in (4, 14)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert")
    model.upsert(batch, i)
    states.append((i, model.copy()))
    # Hoodie rolls back a Spark write (its metadata table on), and Spark
    # writes again.
    spark_gone = spark_write(spark, table, [rec(n, 700, "spark") for n in (1, 5, 15)], SCHEMA, "upsert")
    rb3 = hoodie.run("rollback", table, spark_gone).strip().splitlines()[-1]
    batch = [rec(n, 800, "spark") for n in (5, 16)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert")
    model.upsert(batch, i)
    states.append((i, model.copy()))
    assert set(instant_files(table, "rollback")) >= {rb, rb2, rb3}
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)


def test_hoodie_restores_a_spark_savepoint(spark, hoodie, tmp_path):
    table = str(tmp_path / "restored")
    hoodie.init(table, name="restored", key="id", precombine="ts", partition_by="part")
    model, states = new_model(), []
    batch = [rec(n, 100, "hoodie") for n in range(1, 10)]
    i = hoodie.write("bulk-insert", table, batch)
    model.insert(batch, i)
    states.append((i, model.copy()))
    batch = [rec(n, 200, "hoodie") for n in (1, 5, 10)]
    saved = hoodie.write("upsert", table, batch)
    model.upsert(batch, saved)
    states.append((saved, model.copy()))

    client = write_client(spark, table)
    try:
        client.savepoint(saved, "interop", "before the writes to undo")
    finally:
        client.close()
    # Writes to undo: Hoodie's, Spark's, Hoodie's delete.
    hoodie.write("upsert", table, [rec(n, 300, "hoodie") for n in (2, 11)])
    spark_write(spark, table, [rec(n, 400, "spark") for n in (3, 12)], SCHEMA, "upsert")
    hoodie.write("delete", table, [rec(4, 0, "")])

    rs = hoodie.run("restore", table, saved).strip().splitlines()[-1]
    assert instant_files(table, "restore") == {rs: {".requested", ".inflight", "completed"}}
    assert instant_files(table, "rollback") == {}, "a restore's rollbacks are deleted once it completes"
    meta = hudi_avro(spark, table, rs, ".restore", "HoodieRestoreMetadata")
    assert len(java_list(meta.getInstantsToRollback())) == 3
    plan = hudi_avro(spark, table, rs, ".restore.requested", "HoodieRestorePlan")
    assert plan.getSavepointToRestoreTimestamp() == saved
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

    batch = [rec(n, 500, "spark") for n in (1, 2, 13)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert")
    model.upsert(batch, i)
    states.append((i, model.copy()))
    batch = [rec(n, 600, "hoodie") for n in (2, 3, 14)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    states.append((i, model.copy()))
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)


def test_spark_rolls_back_and_restores_then_hoodie_continues(spark, hoodie, tmp_path):
    table = str(tmp_path / "spark_made")
    opts = {"hoodie.table.name": "spark_made", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.partitionpath.urlencode": "true"}
    model, states = new_model(), []
    batch = [rec(n, 100, "spark") for n in range(1, 10)]
    i = spark_write(spark, table, batch, SCHEMA, "bulk_insert", opts, mode="overwrite")
    model.insert(batch, i)
    states.append((i, model.copy()))
    batch = [rec(n, 200, "spark") for n in (1, 2, 10)]
    saved = spark_write(spark, table, batch, SCHEMA, "upsert", opts)
    model.upsert(batch, saved)
    states.append((saved, model.copy()))
    gone = spark_write(spark, table, [rec(n, 300, "spark") for n in (3, 11)], SCHEMA, "upsert", opts)

    client = write_client(spark, table)
    try:
        assert client.rollback(gone)
    finally:
        client.close()
    assert instant_files(table, "rollback"), "Spark wrote no rollback instant"
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

    # Hoodie writes after Spark's rollback.
    batch = [rec(n, 400, "hoodie") for n in (3, 4, 11)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    states.append((i, model.copy()))
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

    # Spark saves a commit, writes on, and restores it.
    client = write_client(spark, table)
    try:
        client.savepoint(i, "interop", "")
    finally:
        client.close()
    spark_write(spark, table, [rec(n, 500, "spark") for n in (5, 12)], SCHEMA, "upsert", opts)
    hoodie.write("delete", table, [rec(6, 0, "")])
    client = write_client(spark, table)
    try:
        client.restoreToSavepoint(i)
    finally:
        client.close()
    assert instant_files(table, "restore"), "Spark wrote no restore instant"
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

    # Hoodie reads and writes the restored table.
    batch = [rec(n, 600, "hoodie") for n in (5, 6, 15)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    states.append((i, model.copy()))
    problems = check_all(spark, hoodie, table, states)
    assert not problems, "\n".join(problems)

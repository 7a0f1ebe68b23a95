"""Case 5: Hoodie's replace operations and clustering, then Hudi.

hoodiectl writes a table, overwrites a partition (insert-overwrite), deletes
another (delete-partition) and clusters it (cluster); Spark (Hudi 0.15.0)
upserts into it, including keys the overwrite and the delete removed, which
must come back as new records, never as the replaced ones; hoodiectl
upserts again and overwrites the whole table (insert-overwrite-table);
Spark upserts once more. Then Spark, hudi-rs and hoodiectl must give the
model's rows: the snapshot, at every commit, and incrementally.
"""

import os
import re

import pytest

from hoodie_interop import READERS, check_reader, spark_write, Model
from test_spark_continues import COLUMNS, LAYOUTS, SCHEMA, rec

REPLACE_LAYOUTS = ("simple-urlencoded", "complex-hive")
SPARK_OPTS = {"hoodie.metadata.enable": "false"}


def instant_of(out):
    lines = out.strip().splitlines()
    assert lines and re.fullmatch(r"\d{17}", lines[-1]), f"no instant printed: {out!r}"
    return lines[-1]


def overwrite(model, records, instant, whole_table=False):
    """The model after an insert overwrite of records."""
    targets = {model.partition_of(r) for r in records}
    for k, (r, _) in list(model.rows.items()):
        if whole_table or model.partition_of(r) in targets:
            del model.rows[k]
    model.insert(records, instant)


def build(spark, hoodie, root, layout):
    init, mspec = LAYOUTS[layout]
    table = os.path.join(root, layout)
    hoodie.init(table, name=layout.replace("-", "_"), **init)
    model = Model(precombine="ts", **mspec)
    complex_key = len(mspec["key_fields"]) > 1
    states = []

    def commit(i):
        assert i, "the write committed nothing"
        states.append((i, model.copy()))

    def r(n, ts, by):
        x = rec(n, ts, by)
        if complex_key:
            x["name"] = f"n{n}"
        return x

    # Two bulk inserts: two file groups in each partition, for clustering.
    for ns in (range(1, 13), range(13, 19)):
        batch = [r(n, 100, "hoodie") for n in ns]
        i = hoodie.write("bulk-insert", table, batch)
        model.insert(batch, i)
        commit(i)

    # Overwrite the partition of record 1 with its records but 4's (gone),
    # changed, and a new one.
    target = model.partition_of(r(1, 0, ""))
    same = [n for n in range(1, 40) if model.partition_of(r(n, 0, "")) == target]
    dropped, fresh = same[1], same[-1]
    batch = [r(n, 300, "overwrite") for n in same if n < 19 and n != dropped] + [r(fresh, 300, "overwrite")]
    i = hoodie.write("insert-overwrite", table, batch)
    overwrite(model, batch, i)
    commit(i)

    # Delete the partition of record 2.
    gone = model.partition_of(r(2, 0, ""))
    assert gone != target
    i = instant_of(hoodie.run("delete-partition", table, gone))
    for k, (x, _) in list(model.rows.items()):
        if model.partition_of(x) == gone:
            del model.rows[k]
    commit(i)

    # Cluster: no record changes, commit times included.
    i = instant_of(hoodie.run("cluster", table, "--set", "hoodie.clustering.plan.strategy.sort.columns=fare"))
    commit(i)

    # Spark upserts the dropped key, a key of the deleted partition, a key
    # the overwrite wrote, and one it left alone, if a partition is left.
    kept = [n for n in range(1, 19) if model.partition_of(r(n, 0, "")) not in (target, gone)]
    batch = [r(n, 400, "spark") for n in [dropped, 2, fresh] + kept[:1]]
    i = spark_write(spark, table, batch, SCHEMA, "upsert", SPARK_OPTS)
    model.upsert(batch, i)
    commit(i)

    batch = [r(n, 500, "hoodie") for n in (dropped, 2, 3)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    commit(i)

    batch = [r(n, 600, "table") for n in (1, 2, 50)]
    i = hoodie.write("insert-overwrite-table", table, batch)
    overwrite(model, batch, i, whole_table=True)
    commit(i)

    batch = [r(n, 700, "spark") for n in (1, 3)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert", SPARK_OPTS)
    model.upsert(batch, i)
    commit(i)
    return table, states


@pytest.fixture(scope="module")
def tables(spark, hoodie, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("case5"))
    return {layout: build(spark, hoodie, root, layout) for layout in REPLACE_LAYOUTS}


@pytest.mark.parametrize("layout", REPLACE_LAYOUTS)
@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", ("snapshot", "time_travel", "incremental"))
def test_replaced_table_read(spark, hoodie, tables, layout, reader, kind):
    table, states = tables[layout]
    problems = check_reader(reader, kind, spark, hoodie, table, states, COLUMNS)
    assert not problems, "\n".join(problems)

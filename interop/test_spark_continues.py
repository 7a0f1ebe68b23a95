"""Case 2: Hudi keeps writing a Hoodie table.

hoodiectl creates and writes a table; Spark (Hudi 0.15.0, its defaults: the
bloom index, the metadata table on) upserts and deletes into it, finding
Hoodie's keys through the footers' bloom filters and key ranges; hoodiectl
upserts and deletes again, its index catching up on Spark's commits; then
every reader must give the model's rows, at every commit.
"""

import os

import pytest

from hoodie_interop import READERS, Model, check_reader, spark_write

SCHEMA = "id long, ts long, name string, fare double, paid boolean, part string, region string, city string"
COLUMNS = ["id", "ts", "name", "fare", "paid", "part", "region", "city"]
PARTS = ["2024/01/02", "a:b", "us west"]


def rec(n, ts, by):
    return {"id": n, "ts": ts, "name": f"{by}-{n:03d}-{ts}", "fare": n * 2.5 + ts, "paid": n % 2 == 0,
            "part": PARTS[n % 3], "region": ["eu", "us"][n % 2], "city": ["oslo", "rome"][n % 2]}


LAYOUTS = {
    "nonpartitioned": (dict(key="id", precombine="ts"), dict(key_fields=["id"])),
    "simple-urlencoded": (dict(key="id", precombine="ts", partition_by="part"),
                          dict(key_fields=["id"], partition_fields=["part"])),
    "complex-hive": (dict(key="id,name", precombine="ts", partition_by="region,city", hive=True),
                     dict(key_fields=["id", "name"], partition_fields=["region", "city"], hive=True)),
}


# Spark's write options: Hudi's defaults (the metadata table on), and with
# the metadata table off. With the defaults, Spark's first write creates a
# metadata table; Hoodie's next write removes it (see docs/format.md), and
# Spark's next write builds it anew from the files. Without that, Spark
# listed files from a metadata table that missed Hoodie's commits and its
# next write reverted them.
SPARK_MODES = {
    "spark-defaults": {},
    "spark-no-mdt": {"hoodie.metadata.enable": "false"},
}

def build(spark, hoodie, root, layout, mode):
    init, mspec = LAYOUTS[layout]
    table = os.path.join(root, f"{layout}-{mode}")
    opts = SPARK_MODES[mode]
    hoodie.init(table, name=layout.replace("-", "_"), **init)
    model = Model(precombine="ts", **mspec)
    complex_key = len(mspec["key_fields"]) > 1
    states = []

    def commit(i):
        states.append((i, model.copy()))

    # A complex key includes the name, so updates keep it.
    def r(n, ts, by):
        x = rec(n, ts, by)
        if complex_key:
            x["name"] = f"n{n}"
        return x

    batch = [r(n, 100, "hoodie") for n in range(1, 13)]
    i = hoodie.write("bulk-insert", table, batch)
    model.insert(batch, i)
    commit(i)

    batch = [r(n, 150, "hoodie") for n in (1, 2)] + [r(13, 150, "hoodie")]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    commit(i)

    # Spark updates Hoodie's records 2..5, inserts 20, 21.
    batch = [r(n, 200, "spark") for n in (2, 3, 4, 5, 20, 21)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert", opts)
    model.upsert(batch, i)
    commit(i)

    # Spark deletes Hoodie's record 6 and its own 21.
    gone = [r(6, 300, "spark"), r(21, 300, "spark")]
    i = spark_write(spark, table, gone, SCHEMA, "delete", opts)
    model.delete(model.key_of(x) for x in gone)
    commit(i)

    # Hoodie updates records Spark wrote (3, 20), one of its own (7),
    # inserts 30 and deletes Spark's 4.
    batch = [r(n, 400, "hoodie") for n in (3, 20, 7, 30)]
    i = hoodie.write("upsert", table, batch)
    model.upsert(batch, i)
    commit(i)
    i = hoodie.write("delete", table, [r(4, 400, "hoodie")])
    model.delete([model.key_of(r(4, 0, ""))])
    commit(i)

    # Spark again, after Hoodie: updates 20 (Hoodie's last write) and 30.
    batch = [r(n, 500, "spark") for n in (20, 30)]
    i = spark_write(spark, table, batch, SCHEMA, "upsert", opts)
    model.upsert(batch, i)
    commit(i)
    return table, states


@pytest.fixture(scope="module")
def tables(spark, hoodie, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("case2"))
    out = {}
    for layout in LAYOUTS:
        for mode in SPARK_MODES:
            try:
                out[layout, mode] = build(spark, hoodie, root, layout, mode)
            except Exception as e:  # noqa: BLE001 - reported by each case of the table
                out[layout, mode] = e
    return out


def cases():
    for mode in SPARK_MODES:
        for layout in LAYOUTS:
            for reader in READERS:
                for kind in ("snapshot", "time_travel", "incremental"):
                    yield pytest.param(layout, mode, reader, kind, id=f"{mode}-{layout}-{reader}-{kind}")


@pytest.mark.parametrize("layout,mode,reader,kind", list(cases()))
def test_spark_then_hoodie(spark, hoodie, tables, layout, mode, reader, kind):
    built = tables[layout, mode]
    if isinstance(built, Exception):
        raise built
    table, states = built
    problems = check_reader(reader, kind, spark, hoodie, table, states, COLUMNS)
    assert not problems, "\n".join(problems)

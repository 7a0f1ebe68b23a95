"""Case 4: the seeds' Spark CRUD walk-through (hudi-spark-crud-walkthrough.txt)
with the writers alternating step by step between Spark and Hoodie.

The walk-through: insert 10 trips (batch1), insert 5 more (batch2), update 4
(batch3), hard-delete 2, soft-delete 2 (every column but the key, partition
and precombine set to null by an upsert). After every step every reader must
give the model's rows, and the counts per batch_id the walk-through prints.

Two orders: Spark starts (and creates the table with the walk-through's own
options) and Hoodie takes the even steps; or Hoodie starts (hoodiectl init)
and Spark takes the even steps.
"""

import random
import uuid as uuidlib

import pytest

from hoodie_interop import READERS, Model, canon_rows, read_one, spark_write

PARTITIONS = ["americas/united_states/san_francisco", "americas/brazil/sao_paulo", "asia/india/chennai"]
# spark.read.json of the quickstart's JSON gives the columns in this order.
SCHEMA = ("begin_lat double, begin_lon double, driver string, end_lat double, end_lon double, "
          "fare double, partitionpath string, rider string, ts long, uuid string, batch_id string")
COLUMNS = ["begin_lat", "begin_lon", "driver", "end_lat", "end_lon", "fare", "partitionpath",
           "rider", "ts", "uuid", "batch_id"]

# The walk-through's write options (getQuickstartWriteConfigs sets the
# parallelism only).
WALKTHROUGH_OPTIONS = {
    "hoodie.table.name": "hudi_trips_bq",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.recordkey.field": "uuid",
    "hoodie.datasource.write.partitionpath.field": "partitionpath",
    "hoodie.datasource.write.hive_style_partitioning": "true",
    "hoodie.partition.metafile.use.base.format": "true",
    "hoodie.datasource.write.drop.partition.columns": "true",
    "hoodie.insert.shuffle.parallelism": "2",
    "hoodie.upsert.shuffle.parallelism": "2",
    "hoodie.bulkinsert.shuffle.parallelism": "2",
    "hoodie.delete.shuffle.parallelism": "2",
}


class Trips:
    """The quickstart's DataGenerator, deterministic."""

    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.ts = 1690100000000

    def trip(self, key=None, part=None, batch=None):
        r = self.rnd
        self.ts += r.randint(1, 10_000_000)
        n = r.randint(0, 999)
        return {
            "begin_lat": r.random(), "begin_lon": r.random(), "driver": f"driver-{n:03d}",
            "end_lat": r.random(), "end_lon": r.random(), "fare": r.random() * 100,
            "partitionpath": part or r.choice(PARTITIONS), "rider": f"rider-{n:03d}",
            "ts": self.ts, "uuid": key or str(uuidlib.UUID(int=r.getrandbits(128))), "batch_id": batch,
        }


# spark-first-walkthrough-options creates the table with the walk-through's
# options verbatim, hoodie.datasource.write.drop.partition.columns=true
# among them; spark-first leaves that one out; spark-first-urlencoded also
# sets hoodie.datasource.write.partitionpath.urlencode=true, as hoodiectl
# init does.
ORDERS = ["spark-first-walkthrough-options", "spark-first", "spark-first-urlencoded", "hoodie-first"]


def run_walkthrough(spark, hoodie, table, order):
    """Runs the walk-through, yielding (step, the writer, the model) after each step."""
    gen = Trips(seed=len(order))
    spark_first = order.startswith("spark-first")
    model = Model(["uuid"], ["partitionpath"], precombine="ts", hive=True,
                  urlencode=order in ("hoodie-first", "spark-first-urlencoded"))
    spark_opts = {"hoodie.metadata.enable": "false"}

    def writer(step):
        return "spark" if (step % 2 == 1) == spark_first else "hoodie"

    def write(step, op, records):
        w = writer(step)
        if w == "spark":
            spark_op = {"insert": "insert", "upsert": "upsert", "delete": "delete"}[op]
            opts = dict(spark_opts)
            mode = "append"
            if step == 1:
                opts.update(WALKTHROUGH_OPTIONS)
                if order in ("spark-first", "spark-first-urlencoded"):
                    del opts["hoodie.datasource.write.drop.partition.columns"]
                if order == "spark-first-urlencoded":
                    opts["hoodie.datasource.write.partitionpath.urlencode"] = "true"
                mode = "overwrite"
            return spark_write(spark, table, records, SCHEMA, spark_op, opts, mode=mode)
        if step == 1:
            hoodie.init(table, name="hudi_trips_bq", key="uuid", precombine="ts",
                        partition_by="partitionpath", hive=True)
        return hoodie.write(op, table, records)

    # 1. insert 10 trips
    batch = [gen.trip(batch="batch1") for _ in range(10)]
    model.insert(batch, write(1, "insert", batch))
    yield 1, writer(1), model
    # 2. insert 5 more
    batch = [gen.trip(batch="batch2") for _ in range(5)]
    model.insert(batch, write(2, "insert", batch))
    yield 2, writer(2), model
    # 3. update 4 (generateUniqueUpdates: new values for existing keys)
    keys = sorted(model.rows)[:4]
    batch = [gen.trip(key=k, part=model.rows[k][0]["partitionpath"], batch="batch3") for k in keys]
    model.upsert(batch, write(3, "upsert", batch))
    yield 3, writer(3), model
    # 4. hard-delete 2
    keys = sorted(model.rows)[4:6]
    batch = [gen.trip(key=k, part=model.rows[k][0]["partitionpath"], batch="batch4") for k in keys]
    write(4, "delete", batch)
    model.delete(keys)
    yield 4, writer(4), model
    # 5. soft-delete 2: an upsert of the records with every column but
    # uuid, partitionpath and ts null (Spark), hoodiectl soft-delete (Hoodie)
    keys = sorted(model.rows)[6:8]
    olds = [model.rows[k][0] for k in keys]
    if writer(5) == "spark":
        batch = [{c: (o[c] if c in ("uuid", "partitionpath", "ts") else None) for c in COLUMNS} for o in olds]
        model.upsert(batch, write(5, "upsert", batch))
    else:
        batch = [{"uuid": o["uuid"], "partitionpath": o["partitionpath"]} for o in olds]
        model.soft_delete(keys, write(5, "soft-delete", batch))
    yield 5, writer(5), model


def batch_counts(rows):
    out = {}
    for r in rows:
        out[r.get("batch_id")] = out.get(r.get("batch_id"), 0) + 1
    return out


GAPS = {}


@pytest.mark.parametrize("order", [
    pytest.param(o, marks=[pytest.mark.xfail(strict=True, reason=GAPS[o])] if o in GAPS else [])
    for o in ORDERS])
def test_crud_walkthrough(spark, hoodie, tmp_path, order):
    table = str(tmp_path / "hudi_trips_bq")
    problems = []
    for step, writer, model in run_walkthrough(spark, hoodie, table, order):
        want = model.expected(COLUMNS)
        counts = batch_counts(want)
        for reader in READERS:
            # hudi-rs 0.5 refuses a table whose files drop the partition
            # columns: Hudi's real behaviour, asserted as it is.
            refused = reader == "hudi-rs" and order == "spark-first-walkthrough-options"
            try:
                got = read_one(reader, spark, hoodie, table)
            except Exception as e:  # noqa: BLE001 - reported with the step
                if not (refused and "drop.partition.columns" in str(e)):
                    problems.append(f"step {step} ({writer} wrote): {reader}: {e}")
                continue
            if refused:
                problems.append(f"step {step} ({writer} wrote): hudi-rs read a drop.partition.columns "
                                "table it used to refuse: compare its rows")
                continue
            cols = COLUMNS + ["_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path"]
            g = canon_rows(got, cols)
            if batch_counts(g) != counts:
                problems.append(f"step {step} ({writer} wrote): {reader} counts {batch_counts(g)}, want {counts}")
            if g != want:
                def short(rows):
                    return [(r["uuid"][:8], r["batch_id"], r["_hoodie_partition_path"]) for r in rows][:3]
                bad = short([r for r in g if r not in want])
                missing = short([r for r in want if r not in g])
                problems.append(f"step {step} ({writer} wrote): {reader} rows differ: {len(g)} rows, "
                                f"want {len(want)}; unexpected {bad}; missing {missing}")
    assert not problems, "\n".join(problems)

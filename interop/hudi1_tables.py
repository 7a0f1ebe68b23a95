"""Makes Hudi 1.x tables (table version 8) with Spark and Apache Hudi 1.0.2,
and writes Spark's own answers about them, for test_hudi1.py.

It runs in a process of its own: one JVM holds one Spark session, and this
one needs the Hudi 1.0.2 bundle instead of 0.15.0.

    python hudi1_tables.py OUT_DIR

OUT_DIR/<table>/ holds each table, OUT_DIR/answers.json Spark's answers:
per table, its completed instants (requested times, oldest first), the
snapshot, the table as of each instant, and the incremental reads between
consecutive instants.
"""

import json
import os
import re
import sys

from conftest import make_spark
from hoodie_interop import canon_rows, spark_read

HUDI1_BUNDLE = "org.apache.hudi:hudi-spark3.5-bundle_2.12:1.0.2"
SCHEMA = "id long, ts long, name string, part string"


def rec(n, ts, tag):
    return (n, ts, f"{tag}-{n}-{ts}", f"p{n % 2}")


def write(spark, table, rows, op, mode="append"):
    df = spark.createDataFrame(rows, SCHEMA)
    (df.write.format("hudi")
     .option("hoodie.table.name", "hudi1")
     .option("hoodie.datasource.write.recordkey.field", "id")
     .option("hoodie.datasource.write.precombine.field", "ts")
     .option("hoodie.datasource.write.partitionpath.field", "part")
     .option("hoodie.datasource.write.operation", op)
     .mode(mode).save(table))


def completed(table):
    """Requested instant times of completed commits; in timeline layout 2
    a completed instant's file is <requested>_<completed>.commit."""
    out = []
    for root, _, files in os.walk(os.path.join(table, ".hoodie")):
        for n in files:
            m = re.fullmatch(r"(\d{17})_(\d{17})\.(commit|replacecommit)", n)
            if m:
                out.append((m.group(1), m.group(2)))
    return sorted(out)


def main(out):
    spark = make_spark(HUDI1_BUNDLE, "hoodie-interop-hudi-1.0")
    spark.sparkContext.setLogLevel("ERROR")
    table = os.path.join(out, "cow_v8")
    write(spark, table, [rec(n, 1, "i") for n in range(8)], "insert", mode="overwrite")
    write(spark, table, [rec(n, 2, "u") for n in (1, 2)] + [rec(10, 2, "i")], "upsert")
    write(spark, table, [rec(3, 3, "d")], "delete")
    instants = completed(table)
    answers = {"instants": instants, "snapshot": canon_rows(spark_read(spark, table)), "as_of": {}, "incremental": {}}
    for req, _ in instants:
        answers["as_of"][req] = canon_rows(spark_read(spark, table, as_of=req))
    for (b, _), (e, _) in zip(instants, instants[1:]):
        answers["incremental"][f"{b},{e}"] = canon_rows(spark_read(spark, table, begin=b, end=e))
    with open(os.path.join(out, "answers.json"), "w") as f:
        json.dump({"cow_v8": answers}, f)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])

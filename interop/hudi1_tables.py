"""Makes Hudi 1.x tables (table version 8) with Spark and Apache Hudi 1.0.2,
and writes Spark's own answers about them, for test_hudi1.py.

It runs in a process of its own: one JVM holds one Spark session, and this
one needs the Hudi 1.0.2 bundle instead of 0.15.0.

    python hudi1_tables.py OUT_DIR

OUT_DIR/<table>/ holds each table, OUT_DIR/answers.json Spark's answers:
per table, its completed instants ([requested, completion] times, oldest
first), the snapshot, the table as of several instants, and incremental
reads over several ranges ("begin,end", end empty for an open range).
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


def answer(spark, table):
    """Spark's answers about table."""
    instants = completed(table)
    answers = {"instants": instants, "snapshot": canon_rows(spark_read(spark, table)), "as_of": {}, "incremental": {}}
    # Time travel: as of each requested time, and as of a time between a
    # commit's request and its completion (which tells whether as.of.instant
    # compares requested or completion times).
    as_of = [req for req, _ in instants] + [str(int(req) + 1) for req, _ in instants if req[-3:] != "999"]
    for t in as_of:
        answers["as_of"][t] = canon_rows(spark_read(spark, table, as_of=t))
    # Incremental: between consecutive requested times, between completion
    # times, from the start, and open-ended.
    ranges = [(b, e) for (b, _), (e, _) in zip(instants, instants[1:])]
    ranges += [(b, e) for (_, b), (_, e) in zip(instants, instants[1:])]
    ranges += [("000", instants[0][0]), ("000", instants[0][1]), (instants[1][0], None)]
    for b, e in ranges:
        answers["incremental"][f"{b},{e or ''}"] = canon_rows(spark_read(spark, table, begin=b, end=e))
    return answers


def main(out):
    spark = make_spark(HUDI1_BUNDLE, "hoodie-interop-hudi-1.0")
    spark.sparkContext.setLogLevel("ERROR")
    answers = {}
    # Upserts and deletes: commits.
    table = os.path.join(out, "cow_v8")
    write(spark, table, [rec(n, 1, "i") for n in range(8)], "insert", mode="overwrite")
    write(spark, table, [rec(n, 2, "u") for n in (1, 2)] + [rec(10, 2, "i")], "upsert")
    write(spark, table, [rec(3, 3, "d")], "delete")
    answers["cow_v8"] = answer(spark, table)
    # insert_overwrite: a replacecommit (Avro HoodieReplaceCommitMetadata)
    # that replaces partition p0's file group.
    table = os.path.join(out, "cow_v8_replace")
    write(spark, table, [rec(n, 1, "i") for n in range(6)], "insert", mode="overwrite")
    write(spark, table, [rec(n, 2, "o") for n in (20, 22)], "insert_overwrite")
    write(spark, table, [rec(5, 3, "u")], "upsert")
    answers["cow_v8_replace"] = answer(spark, table)
    # What hoodiectl's refusal advises: downgrade to version 6 with Hudi's
    # own procedure, which wants a table of Spark's catalog (a path is
    # "TABLE_OR_VIEW_NOT_FOUND"); Hoodie then writes to it.
    table = os.path.join(out, "cow_v8_downgraded")
    write(spark, table, [rec(n, 1, "i") for n in range(4)], "insert", mode="overwrite")
    write(spark, table, [rec(n, 2, "u") for n in (1, 2)], "upsert")
    spark.sql(f"CREATE TABLE hudi1_downgraded USING hudi LOCATION '{table}'")
    assert spark.sql("CALL downgrade_table(table => 'hudi1_downgraded', to_version => 'SIX')").collect()[0][0]
    answers["cow_v8_downgraded"] = {"snapshot": canon_rows(spark_read(spark, table))}
    with open(os.path.join(out, "answers.json"), "w") as f:
        json.dump(answers, f)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])

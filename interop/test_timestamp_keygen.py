"""Hudi's timestamp-based key generator, Hoodie against Hudi 0.15.

1. Hudi computes, for every case of the Go tests'
   write/testdata/timestamp_keygen_hudi015.json, the partition path the file
   says (or refuses the value): the Go tests check Hoodie against the same
   file, so Hoodie and Hudi agree on each case.
2. A table hoodiectl init makes with the key generator: Hoodie writes,
   Spark keeps writing (with the settings in its options, as Hudi 0.15
   needs them there), Hoodie writes again, and every reader sees the model.
(Spark-made tables: test_spark_made.py.)
"""

import json
import os

import pytest

from hoodie_interop import canon_rows, diff, read_one, spark_write

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "write", "testdata", "timestamp_keygen_hudi015.json")
PREFIX = "hoodie.keygen.timebased."


def load_cases():
    with open(CASES) as f:
        return json.load(f)


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: f"{c['settings']['timestamp.type']}-{c['kind']}-{c['value']}")
def test_hudi_agrees_with_testdata(spark, case):
    jvm = spark._jvm
    props = jvm.org.apache.hudi.common.config.TypedProperties()
    props.setProperty("hoodie.datasource.write.recordkey.field", "id")
    props.setProperty("hoodie.datasource.write.partitionpath.field", "part")
    for k, v in case["settings"].items():
        props.setProperty(PREFIX + k, v)
    kind, value = case["kind"], case["value"]
    try:
        gen = jvm.org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator(props)
        if kind == "null":
            got = gen.getPartitionPath(gen.getDefaultPartitionVal())
        else:
            # py4j hands Java an Integer for a Python int that fits one (a
            # Long beyond), a Double for a float, a String for a str; Hudi
            # converts an Integer as it does a Long.
            arg = {"s": str, "l": int, "i": int, "d": float}[kind](value)
            got = gen.getPartitionPath(arg)
    except Exception as e:  # noqa: BLE001 - Hudi refused the value
        assert case.get("error"), f"Hudi refused {value!r}: {str(e).splitlines()[0][:300]}; the file says {case.get('path')!r}"
        return
    assert not case.get("error"), f"Hudi gives {got!r} for {value!r}; the file says it refuses it"
    assert got == case["path"], f"Hudi gives {got!r} for {value!r}; the file says {case['path']!r}"


SCHEMA = "id long, ts long, name string, at string"
COLUMNS = ["id", "ts", "name", "at", "_hoodie_record_key", "_hoodie_partition_path"]
SETTINGS = {
    "timestamp.type": "DATE_STRING",
    "input.dateformat": "yyyy-MM-dd'T'HH:mm:ssZ,yyyy-MM-dd HH:mm:ss",
    "output.dateformat": "yyyy/MM/dd",
    "output.timezone": "Asia/Tokyo",
    "input.timezone": "UTC",
}


def folder(at):
    """The folder of a date-time of this test: its day in Tokyo, URL-encoded
    as init's tables are (the inputs are UTC, or carry a zero offset)."""
    day, hour = at[:10], int(at[11:13])
    if hour >= 15:  # the next day in Tokyo (UTC+9)
        y, m, d = map(int, day.split("-"))
        day = f"{y:04d}-{m:02d}-{d + 1:02d}"
    return day.replace("-", "%2F")


def row(n, ts, tag, at):
    return {"id": n, "ts": ts, "name": f"{tag}-{n}", "at": at}


def test_hoodie_made_table_spark_keeps_writing(spark, hoodie, tmp_path):
    table = str(tmp_path / "clicks")
    hoodie.init(table, "clicks", "id", precombine="ts", partition_by="at",
                settings={f"{PREFIX}{k}": v for k, v in SETTINGS.items()})
    model = {}

    def put(rows):
        for r in rows:
            model[r["id"]] = dict(r, _hoodie_record_key=str(r["id"]), _hoodie_partition_path=folder(r["at"]))

    first = [row(1, 1, "h", "2024-01-02 10:00:00"), row(2, 1, "h", "2024-01-02 16:00:00"),
             row(3, 1, "h", "2024-01-02T23:30:00Z")]
    hoodie.write("insert", table, first)
    put(first)
    # Spark 0.15 checks a write's options by making its key generator from
    # them alone ("Required property hoodie.keygen.timebased.timestamp.type
    # is missing", then "...output.dateformat is missing"), although the
    # table keeps them: a Spark writer gives them all, to Spark's tables as
    # to Hoodie's.
    second = [row(2, 2, "s", "2024-01-03 01:00:00"), row(4, 2, "s", "2024-01-05 20:00:00")]
    spark_write(spark, table, second, SCHEMA, "upsert", {PREFIX + k: v for k, v in SETTINGS.items()})
    put(second)
    third = [row(4, 3, "h", "2024-01-05 20:00:00"), row(5, 3, "h", "2023-12-31T12:00:00Z")]
    hoodie.write("upsert", table, third)
    put(third)
    want = canon_rows(model.values(), COLUMNS)
    # The folders are what this test says Hudi names them.
    assert sorted({r["_hoodie_partition_path"] for r in want}) == ["2023%2F12%2F31", "2024%2F01%2F02", "2024%2F01%2F03", "2024%2F01%2F06"]
    for reader in ("hoodie", "hudi-rs"):
        got = canon_rows(read_one(reader, spark, hoodie, table), COLUMNS)
        assert got == want, f"{reader}: " + diff(got, want)
    # Hudi 0.15's Spark reader gives the partition column the folder's
    # value (see test_spark_made.py): compared without it.
    cols = [c for c in COLUMNS if c != "at"]
    got = canon_rows(read_one("spark", spark, hoodie, table), cols)
    assert got == canon_rows(want, cols), diff(got, canon_rows(want, cols))

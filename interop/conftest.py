"""Fixtures of the interop suite: the hoodiectl under test, and one Spark
session with Apache Hudi per Hudi version, shared by every case."""

import os

import pytest

pytest.register_assert_rewrite("hoodie_interop")

from hoodie_interop import Hoodie

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("HOODIE_INTEROP_CACHE", os.path.expanduser("~/.cache/hoodie-interop"))

# Hudi 0.15.0: the last release that writes table version 6 by default.
HUDI_BUNDLE = "org.apache.hudi:hudi-spark3.5-bundle_2.12:0.15.0"


@pytest.fixture(scope="session")
def hoodie():
    exe = os.environ.get("HOODIECTL")
    if not exe:
        pytest.exit("HOODIECTL is not set: run the suite with interop/run", returncode=2)
    return Hoodie(exe)


def make_spark(bundle, app):
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.jars.packages", bundle)
        .config("spark.jars.ivy", os.path.join(CACHE, "ivy"))
        .config("spark.jars.ivySettings", os.path.join(HERE, "ivysettings.xml"))
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1500m")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .getOrCreate()
    )


@pytest.fixture(scope="session")
def spark():
    s = make_spark(HUDI_BUNDLE, "hoodie-interop-hudi-0.15")
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()

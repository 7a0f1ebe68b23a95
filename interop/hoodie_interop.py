"""Helpers of the interop suite: run hoodiectl, read a table with each reader,
keep a model of what a table must hold, and compare them.

Every reader's rows are turned into one canonical form (canon) before they
are compared: plain JSON-like values, so that a date from Spark, a date from
pyarrow and hoodiectl's "YYYY-MM-DD" compare equal, and nothing else does.
"""

import base64
import datetime as dt
import decimal
import json
import os
import re
import subprocess
import tempfile

import pyarrow as pa
from hudi import HudiQueryType, HudiReadOptions, HudiTable

META = [
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
]

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def _ts(v):
    if v.tzinfo is None:  # Spark and naive pyarrow timestamps: UTC (TZ=UTC)
        v = v.replace(tzinfo=dt.timezone.utc)
    return v.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canon(v):
    """One reader-independent form of a value."""
    if isinstance(v, float) and v.is_integer():
        return int(v)  # 103.0 from one reader, 103 from hoodiectl's JSON
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str):
        if _RFC3339.match(v):  # hoodiectl's timestamps
            return _ts(dt.datetime.fromisoformat(v.replace("Z", "+00:00")))
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.datetime):
        return _ts(v)
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, dict):
        return {str(k): canon(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if hasattr(v, "asDict"):  # a Spark Row
        return canon(v.asDict(recursive=True))
    raise TypeError(f"no canonical form for {type(v)}: {v!r}")


def canon_rows(rows, columns=None):
    """Canonical rows, keeping only columns (all when None), sorted."""
    out = []
    for r in rows:
        r = canon(dict(r))
        if columns is not None:
            r = {c: r.get(c) for c in columns}
        out.append(r)
    out.sort(key=lambda r: json.dumps(r, sort_keys=True))
    return out


# ---------------------------------------------------------------- hoodiectl


class HoodieError(Exception):
    def __init__(self, args, rc, stderr):
        super().__init__(f"hoodiectl {' '.join(args)}: exit {rc}: {stderr.strip()}")
        self.rc = rc
        self.stderr = stderr


class Hoodie:
    """Runs the hoodiectl under test."""

    def __init__(self, exe):
        self.exe = exe

    def run(self, *args, stdin=None):
        p = subprocess.run(
            [self.exe, *map(str, args)], input=stdin, capture_output=True, text=True, timeout=300
        )
        if p.returncode != 0:
            raise HoodieError(list(map(str, args)), p.returncode, p.stderr)
        return p.stdout

    def init(self, table, name, key, precombine=None, partition_by=None, hive=False,
             no_meta=False, schema=None, settings=None):
        args = ["init", table, "--name", name, "--record-key", key]
        for k, v in (settings or {}).items():
            args += ["--set", f"{k}={v}"]
        if precombine:
            args += ["--precombine", precombine]
        if partition_by:
            args += ["--partition-by", partition_by]
        if hive:
            args.append("--hive-style")
        if no_meta:
            args.append("--no-meta-fields")
        if schema is not None:
            fd, path = tempfile.mkstemp(suffix=".avsc")
            with os.fdopen(fd, "w") as f:
                json.dump(schema, f)
            args += ["--schema", path]
        self.run(*args)

    def write(self, op, table, records, settings=None):
        """Runs a write (insert, bulk-insert, upsert, delete, soft-delete) of
        records given as dicts, with hoodie.* settings (--set); returns its
        instant, or None when it committed nothing."""
        args = [op, table]
        for k, v in (settings or {}).items():
            args += ["--set", f"{k}={v}"]
        text = "".join(json.dumps(r) + "\n" for r in records)
        out = self.run(*args, stdin=text).strip().splitlines()
        return out[-1] if out and re.fullmatch(r"\d{17}", out[-1]) else None

    def read(self, table, as_of=None, begin=None, end=None):
        args = ["read", table, "--format", "jsonl"]
        if as_of:
            args += ["--as-of", as_of]
        if begin:
            args += ["--begin", begin]
        if end:
            args += ["--end", end]
        return [json.loads(line) for line in self.run(*args).splitlines() if line]


# ---------------------------------------------------------------- readers


def spark_read(spark, table, as_of=None, begin=None, end=None, options=None):
    """Spark's answer: snapshot, time travel (as.of.instant) or incremental
    (begin, end]."""
    r = spark.read.format("hudi")
    opts = dict(options or {})
    if as_of:
        opts["as.of.instant"] = as_of
    if begin:
        opts["hoodie.datasource.query.type"] = "incremental"
        opts["hoodie.datasource.read.begin.instanttime"] = begin
        if end:
            opts["hoodie.datasource.read.end.instanttime"] = end
    for k, v in opts.items():
        r = r.option(k, v)
    return [row.asDict(recursive=True) for row in r.load(table).collect()]


def rs_read(table, as_of=None, begin=None, end=None):
    """hudi-rs's answer: snapshot, time travel or incremental (begin, end]."""
    t = HudiTable(table)
    o = HudiReadOptions()
    if as_of:
        o = o.with_as_of_timestamp(as_of)
    if begin:
        o = o.with_query_type(HudiQueryType.Incremental).with_start_timestamp(begin)
        if end:
            o = o.with_end_timestamp(end)
    batches = t.read(o)
    if not batches:
        return []
    return pa.Table.from_batches(batches).to_pylist(maps_as_pydicts="strict")


# ---------------------------------------------------------------- the model


class Model:
    """What a table must hold: per record key, the data columns and the
    instant of the commit that last wrote the record. Records are dicts of
    canonical values; key_of and partition_of compute Hudi's record key and
    partition path from one."""

    def __init__(self, key_fields, partition_fields=(), precombine=None, hive=False,
                 event_time=True, urlencode=True):
        self.urlencode = urlencode
        self.key_fields = list(key_fields)
        self.partition_fields = list(partition_fields)
        self.precombine = precombine
        self.hive = hive
        self.event_time = event_time and precombine is not None
        self.rows = {}  # record key -> (record, instant)

    def key_of(self, r):
        if len(self.key_fields) == 1:
            return str(r[self.key_fields[0]])
        return ",".join(f"{f}:{r[f]}" for f in self.key_fields)

    def partition_of(self, r):
        parts = []
        for f in self.partition_fields:
            v = str(r[f])
            if self.urlencode:
                v = escape_partition(v)
            parts.append(f"{f}={v}" if self.hive else v)
        return "/".join(parts)

    def _dedupe(self, records):
        out = {}
        for r in records:
            k = self.key_of(r)
            if k in out and self.precombine and r[self.precombine] < out[k][self.precombine]:
                continue
            out[k] = r
        return out

    def upsert(self, records, instant):
        for k, r in self._dedupe(records).items():
            r = canon(r)
            if r.get("_hoodie_is_deleted"):
                self.rows.pop(k, None)
                continue
            old = self.rows.get(k)
            if old and self.event_time and r[self.precombine] < old[0][self.precombine]:
                continue
            self.rows[k] = (r, instant)

    def insert(self, records, instant):
        for k, r in self._dedupe(records).items():
            assert k not in self.rows, f"model: insert of existing key {k}"
            self.rows[k] = (canon(r), instant)

    def delete(self, keys):
        for k in keys:
            self.rows.pop(k, None)

    def soft_delete(self, keys, instant):
        keep = set(self.key_fields) | set(self.partition_fields) | {self.precombine}
        for k in keys:
            r, _ = self.rows[k]
            self.rows[k] = ({c: (v if c in keep else None) for c, v in r.items()}, instant)

    def expected(self, columns, with_meta=True, since=None, until=None):
        """Canonical rows a reader must give: the data columns, and with_meta
        the commit time, record key and partition path; since/until select
        the records last written in (since, until]."""
        out = []
        for k, (r, instant) in self.rows.items():
            if since is not None and instant <= since:
                continue
            if until is not None and instant > until:
                continue
            row = {c: r.get(c) for c in columns}
            if with_meta:
                row["_hoodie_commit_time"] = instant
                row["_hoodie_record_key"] = k
                row["_hoodie_partition_path"] = self.partition_of(r)
            out.append(row)
        return canon_rows(out)

    def copy(self):
        m = Model(self.key_fields, self.partition_fields, self.precombine, self.hive,
                  self.event_time, self.urlencode)
        m.rows = dict(self.rows)
        return m


_ESCAPE = set('"#%\'*/:=?\\{[]^\x7f')


def escape_partition(v):
    """Hive's escapePathName, as Hudi URL-encodes partition values."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPE or ord(c) < 0x20 else c for c in v)


def commit_instants(table):
    """Completed commit instants of a table, oldest first, from its timeline
    folder (commit and replacecommit files)."""
    names = os.listdir(os.path.join(table, ".hoodie"))
    out = []
    for n in names:
        m = re.fullmatch(r"(\d{17})\.(commit|replacecommit)", n)
        if m:
            out.append(m.group(1))
    return sorted(out)


# ---------------------------------------------------------------- checks


def diff(got, want, limit=4):
    g = {json.dumps(r, sort_keys=True) for r in got}
    w = {json.dumps(r, sort_keys=True) for r in want}
    extra = sorted(g - w)[:limit]
    missing = sorted(w - g)[:limit]
    return (f"{len(got)} rows, want {len(want)}; unexpected: {extra}; missing: {missing}")


READERS = ("spark", "hudi-rs", "hoodie")


def error_text(e):
    """A reader's error in a line: for Spark, the Java exception and its causes."""
    j = getattr(e, "java_exception", None)
    if j is None:
        return f"{type(e).__name__}: {str(e).splitlines()[0][:400]}"
    out = []
    while j is not None and len(out) < 4:
        out.append(str(j.toString())[:300])
        j = j.getCause()
    return " <- ".join(out)


def read_one(reader, spark, hoodie, table, spark_options=None, **kw):
    if reader == "spark":
        return spark_read(spark, table, options=spark_options, **kw)
    if reader == "hudi-rs":
        return rs_read(table, **kw)
    return hoodie.read(table, **kw)


def queries(states, kind):
    """The queries of one kind over model states [(instant, Model)]: tuples
    (name, read keywords, the model to compare with, since, until)."""
    if kind == "snapshot":
        return [("snapshot", {}, states[-1][1], None, None)]
    if kind == "time_travel":
        return [(f"as of {i}", {"as_of": i}, m, None, None) for i, m in states]
    if kind == "incremental":
        out = [(f"incremental ({b}, {e}]", {"begin": b, "end": e}, m, b, e)
               for (b, _), (e, m) in zip(states, states[1:])]
        # Open end, from before the first commit: every record of the table.
        out.append(("incremental (0, latest]", {"begin": "00000000000000000"}, states[-1][1], None, None))
        return out
    raise ValueError(kind)


def check_reader(reader, kind, spark, hoodie, table, states, columns, meta=True, spark_options=None):
    """Problems of one reader's queries of one kind against the model and,
    for Spark and hudi-rs, against hoodiectl's own answer (all columns both
    have: the five meta columns too when the table has them)."""
    problems = []
    model_cols = columns + (["_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path"] if meta else [])
    full_cols = (META if meta else []) + columns
    for name, kw, model, since, until in queries(states, kind):
        if reader == "spark" and not meta and "begin" in kw:
            # Hudi refuses incremental queries of a table without meta fields.
            try:
                read_one(reader, spark, hoodie, table, spark_options, **kw)
                problems.append(f"spark {name}: answered; Hudi 0.15 refuses incremental queries without meta fields")
            except Exception as e:
                if "Incremental queries are not supported when meta fields are disabled" not in error_text(e):
                    problems.append(f"spark {name}: {error_text(e)}")
            continue
        try:
            got = read_one(reader, spark, hoodie, table, spark_options, **kw)
        except Exception as e:  # the reader's own words, for the report
            problems.append(f"{reader} {name}: {error_text(e)}")
            continue
        if not meta and "begin" in kw:
            problems += _check_incremental_without_meta(reader, got, hoodie, table, kw, columns, name)
            continue
        want = model.expected(columns, meta, since=since, until=until)
        g = canon_rows(got, model_cols)
        if g != want:
            problems.append(f"{reader} {name} != model: {diff(g, want)}")
        if reader != "hoodie":
            h = canon_rows(hoodie.read(table, **kw), full_cols)
            g = canon_rows(got, full_cols)
            if g != h:
                problems.append(f"{reader} {name} != hoodiectl read: {diff(g, h)}")
    return problems


def _check_incremental_without_meta(reader, got, hoodie, table, kw, columns, name):
    """Without meta fields no record carries its commit time: an incremental
    read gives the records of the files written in (begin, end], all of
    them, as they are as of end. hoodiectl computes each record's
    _hoodie_commit_time from its file, so the answer is its snapshot as of
    end, less the records whose file is older than begin."""
    begin, end = kw["begin"], kw.get("end")
    asof = hoodie.read(table, as_of=end) if end else hoodie.read(table)
    want = canon_rows([r for r in asof if r["_hoodie_commit_time"] > begin], columns)
    g = canon_rows(got, columns)
    return [] if g == want else [f"{reader} {name} != the records of the files written in the range: {diff(g, want)}"]


# ---------------------------------------------------------------- Spark writes


def table_properties(table):
    """hoodie.properties as a dict (Java properties: ':' and '=' escaped)."""
    props = {}
    with open(os.path.join(table, ".hoodie", "hoodie.properties"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            k, _, v = line.partition("=")
            props[k] = v.replace("\\:", ":").replace("\\=", "=").replace("\\\\", "\\")
    return props


def spark_options_for(table):
    """The write options a Spark user passes to write to an existing table:
    its name, keys, precombine, partitioning and key generator, from its
    hoodie.properties. Everything else is left at Hudi's defaults (the
    metadata table on, the bloom index)."""
    p = table_properties(table)
    opts = {
        "hoodie.table.name": p["hoodie.table.name"],
        "hoodie.datasource.write.recordkey.field": p["hoodie.table.recordkey.fields"],
        "hoodie.datasource.write.partitionpath.field": p.get("hoodie.table.partition.fields", ""),
        "hoodie.datasource.write.keygenerator.class": p["hoodie.table.keygenerator.class"],
        "hoodie.datasource.write.hive_style_partitioning": p.get("hoodie.datasource.write.hive_style_partitioning", "false"),
        "hoodie.datasource.write.partitionpath.urlencode": p.get("hoodie.datasource.write.partitionpath.urlencode", "false"),
        "hoodie.populate.meta.fields": p.get("hoodie.populate.meta.fields", "true"),
    }
    if "hoodie.table.precombine.field" in p:
        opts["hoodie.datasource.write.precombine.field"] = p["hoodie.table.precombine.field"]
    return opts


def spark_write(spark, table, records, schema, operation, options=None, mode="append"):
    """Writes records (dicts) with Spark as a Hudi user does, with the
    table's own options plus options; returns the instant Spark committed."""
    before = set(commit_instants(table)) if os.path.exists(os.path.join(table, ".hoodie")) else set()
    df = spark.createDataFrame([tuple(r.get(c) for c in _ddl_columns(schema)) for r in records], schema)
    opts = spark_options_for(table) if before or os.path.exists(os.path.join(table, ".hoodie", "hoodie.properties")) else {}
    opts.update(options or {})
    opts["hoodie.datasource.write.operation"] = operation
    w = df.write.format("hudi")
    for k, v in opts.items():
        w = w.option(k, v)
    w.mode(mode).save(table)
    new = sorted(set(commit_instants(table)) - before)
    assert new, f"Spark's {operation} committed nothing"
    return new[0]  # later ones: table services Spark ran inline (clustering)


def _ddl_columns(ddl):
    cols, depth, cur = [], 0, ""
    for ch in ddl:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            cols.append(cur)
            cur = ""
        else:
            cur += ch
    cols.append(cur)
    return [c.strip().split()[0] for c in cols if c.strip()]

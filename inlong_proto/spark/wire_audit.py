"""``inlong_proto.spark.audit(df)`` (this module, wire_audit): the audit table (issue 28) of the captures a reader's rows came from.

::

    df = spark.read.format("inlong").option("protocol", "auto").load("captures/")
    table = audit(df, window="1m", by=("group", "stream"))      # a DataFrame of audit.COLUMNS
    messages = audit_messages(df)                               # one row per message sent or delivered

Pairing a request with its answer needs both directions of a connection in order, which a set of rows does
not promise, so each file that rows of ``df`` came from is audited whole by one task, giving one row per
message: a capture (rows with the ``capture`` column) by ``audit.walk.audit_chunks``, a raw dump by
``audit.walk.audit_dump`` in its rows' protocol (one connection, no times: window_start is null; a dump of the
requests only gives outcome "unknown"), both streaming, memory bounded by the open requests. The table is then
Spark's aggregation of those rows per system, group, stream and window. Filters on ``df`` narrow the files,
not the messages: filter ``audit_messages`` for that.
"""
from __future__ import annotations

from inlong_proto.audit.table import KEYS, parse_window
from inlong_proto.core.arrow import CAPTURE_COLUMN

__all__ = ["MESSAGE_COLUMNS", "audit", "audit_messages"]

MESSAGE_COLUMNS = ("path", "system", "group", "stream", "time", "kind", "outcome", "error", "records", "bytes",
                   "latency_ms", "duplicate", "flow", "client", "message_id")
_SCHEMA = ("path string, system string, `group` string, stream string, time timestamp, kind string, "
           "outcome string, error string, records long, bytes long, latency_ms double, duplicate boolean, "
           "flow long, client string, message_id string")
_CHUNK = 1 << 20


def _rows(path: str, protocol: str | None, timeout: float | None, fs_options: dict | None):
    """The message rows of one file: a capture (protocol None) or a raw dump of `protocol`."""
    from datetime import datetime, timezone

    from inlong_proto.audit import Delivered, audit_chunks, audit_dump
    from inlong_proto.core.sources import open_source

    def chunks(src):
        for start in range(0, src.size, _CHUNK):
            yield src.read(start, min(_CHUNK, src.size - start))
            src.release(start, start + _CHUNK)

    with open_source(path, fs_options) as src:
        items = (audit_chunks(chunks(src), timeout=timeout) if protocol is None
                 else audit_dump(chunks(src), protocol, name=path))
        for item in items:
            when = (None if item.time_ns is None
                    else datetime.fromtimestamp(item.time_ns / 1e9, tz=timezone.utc).replace(tzinfo=None))
            if isinstance(item, Delivered):
                yield (path, item.system, item.group, item.stream, when, "delivered", None, None, item.records,
                       item.size, None, False, None, None, None)
            else:
                yield (path, item.system, item.group, item.stream, when, "sent", item.outcome, item.error,
                       item.records, item.size, None if item.latency_s is None else item.latency_s * 1000,
                       item.duplicate, item.flow, item.client, item.message_id)


def audit_messages(df, *, timeout: float | None = None, fs_options: dict | None = None):
    """One row per message sent (kind "sent", with its outcome) or delivered (kind "delivered") in the files
    of df's rows, captures and raw dumps; time is the request's capture time (UTC, zone-less; null in a dump)."""
    import pandas as pd
    from pyspark.sql import functions as F

    missing = [name for name in (CAPTURE_COLUMN, "path", "protocol") if name not in df.columns]
    if missing:
        raise ValueError(f"audit needs a reader's rows (format('inlong') or read_dumps): df has no "
                         f"{', '.join(missing)} column")
    files = df.groupBy("path").agg(F.max(F.col(CAPTURE_COLUMN).isNotNull()).alias("is_capture"),
                                   F.first("protocol", ignorenulls=True).alias("protocol"))
    files = files.repartition(max(1, files.sparkSession.sparkContext.defaultParallelism), "path")

    def audit_files(batches):
        for batch in batches:
            for path, is_capture, protocol in zip(batch["path"], batch["is_capture"], batch["protocol"]):
                if not is_capture and protocol is None:
                    continue  # (a file of error rows only: no protocol read it)
                rows = list(_rows(path, None if is_capture else protocol, timeout, fs_options))
                yield pd.DataFrame.from_records(rows, columns=list(MESSAGE_COLUMNS))

    return files.mapInPandas(audit_files, _SCHEMA)


def audit(df, *, window: str | float = "1m", by: tuple[str, ...] = KEYS, timeout: float | None = None,
          fs_options: dict | None = None):
    """The audit table (audit.COLUMNS, window_start a zone-less UTC timestamp) of the files of df's rows."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from inlong_proto.audit import COLUMNS

    seconds = parse_window(window)
    unknown = [name for name in by if name not in KEYS]
    if unknown:
        raise ValueError(f"cannot group by {', '.join(unknown)}: choose from {', '.join(KEYS)}")
    rows = audit_messages(df, timeout=timeout, fs_options=fs_options)
    for name in KEYS:
        if name not in by:
            rows = rows.withColumn(name, F.lit("*"))
    start = F.floor(F.col("time").cast("double") / seconds) * seconds
    rows = rows.withColumn("window_start", F.timestamp_seconds(start))
    sent, outcome = F.col("kind") == "sent", F.col("outcome")

    def count_when(condition):
        return F.sum(F.when(condition, 1).otherwise(0)).cast("long")

    def sum_when(condition, column):
        return F.sum(F.when(condition, F.col(column)).otherwise(0)).cast("long")

    errors = (rows.where(outcome == "failed").groupBy("system", "group", "stream", "window_start", "error").count()
              .withColumn("rank", F.row_number().over(
                  Window.partitionBy("system", "group", "stream", "window_start")
                  .orderBy(F.desc("count"), F.asc("error"))))
              .where(F.col("rank") == 1)
              .select("system", "group", "stream", "window_start",
                      F.concat(F.col("error"), F.lit(" ("), F.col("count").cast("string"), F.lit(")"))
                      .alias("top_error")))
    table = rows.groupBy("system", "group", "stream", "window_start").agg(
        count_when(sent).alias("messages"),
        sum_when(sent, "records").alias("records"),
        sum_when(sent, "bytes").alias("bytes"),
        count_when(outcome == "ok").alias("acked_ok"),
        sum_when(outcome == "ok", "records").alias("records_ok"),
        count_when(outcome == "failed").alias("failed"),
        count_when(outcome == "unanswered").alias("unanswered"),
        count_when(outcome == "not_asked").alias("not_asked"),
        count_when(outcome == "unknown").alias("unknown"),
        count_when(sent & F.col("duplicate")).alias("duplicates"),
        sum_when(F.col("kind") == "delivered", "records").alias("delivered"),
        # nearest-rank, as the command's table (an exact rank at this accuracy for up to a million values)
        F.percentile_approx("latency_ms", 0.5, 1_000_000).alias("p50_ms"),
        F.percentile_approx("latency_ms", 0.95, 1_000_000).alias("p95_ms"),
        F.max("latency_ms").alias("max_ms"))
    keys = ("system", "group", "stream", "window_start")
    errors = errors.select(*(F.col(name).alias(f"error_{name}") for name in keys), "top_error")
    matched = [table[name].eqNullSafe(errors[f"error_{name}"]) for name in keys]  # (a dump's window is null)
    return (table.join(errors, matched, "left").select(*COLUMNS).orderBy(*keys))

"""``inlong-proto spark ingest``: the files that appear under a path, streamed into a Parquet table partitioned by
protocol and date, exactly once across restarts (spark.stream's reader, a file sink and a checkpoint; see
spark.stream's doc for when a file is read and why the table holds each frame once)."""
from __future__ import annotations

from pathlib import Path

from inlong_proto.core.sources import is_remote
from inlong_proto.spark.stream import DATE, FORMAT, StreamOptions, parse_duration, stream_schema


def ingest(spark, source: str, table: str, checkpoint: str, *, once: bool = True, every: str = "60s",
           protocol: str = "auto", direction: str | None = None, mode: str = "PERMISSIVE",
           split_size: str = "128m", max_files: int | None = None, complete_after: str | None = None,
           max_file_age: str | None = None, max_frame_size: int | None = None, fs_options: dict | None = None):
    """Start the stream of every file under source into a Parquet table at `table`, partitioned by
    protocol and date, with its checkpoint at `checkpoint`; returns the StreamingQuery. once: read what is
    complete now and stop (Trigger.AvailableNow); else a micro-batch every `every`."""
    from inlong_proto.spark.source import Options, register

    register(spark)
    options = {"protocol": protocol, "mode": mode, "splitSize": split_size, "maxFilesPerTrigger": max_files,
               "completeAfter": complete_after, "maxFileAge": max_file_age, "direction": direction,
               "maxFrameSize": max_frame_size,
               **{f"fs.{k}": v for k, v in (fs_options or {}).items()}}
    options = {k: str(v) for k, v in options.items() if v is not None}
    checked = StreamOptions({**options, "path": source}, Options)  # fails here, with the option named, not in a task
    parse_duration(every, "every")
    reader = spark.readStream.format(FORMAT).schema(stream_schema(checked.protocol, checked.corrupt_record))
    frames = reader.options(**options).load(source)
    writer = (frames.writeStream.format("parquet").partitionBy("protocol", DATE)
              .option("checkpointLocation", str(_absolute(checkpoint))).option("path", str(_absolute(table)))
              .queryName(f"inlong-ingest-{abs(hash((source, str(table)))) % 10**6}"))
    writer = writer.trigger(availableNow=True) if once else writer.trigger(processingTime=f"{parse_duration(every, 'every')} seconds")
    return writer.start()


def _absolute(location: str):
    return location if is_remote(location) or "://" in str(location) else Path(location).resolve()


def run(source: str, table: str, checkpoint: str, *, once: bool, every: str = "60s", cores: int | None = None,
        report=None, **options) -> dict:
    """What ``inlong-proto spark ingest`` does: ingest() on a local session until it ends (once) or is
    interrupted (SIGINT, SIGTERM: the running micro-batch is stopped, and the next start runs it again);
    report(progress) is called with each micro-batch's progress. Returns the totals (batches, rows)."""
    import signal

    from inlong_proto.spark.dumps import local_session

    parse_duration(every, "every")
    spark = local_session("inlong-proto-ingest", cores=cores)
    spark.sparkContext.setLogLevel("ERROR")
    totals = {"batches": 0, "rows": 0}
    seen = set()

    def progressed(query):
        for progress in query.recentProgress:
            if progress["batchId"] in seen or not progress.get("sources"):
                continue
            seen.add(progress["batchId"])
            if progress["numInputRows"] or progress["sources"][0]["startOffset"] != progress["sources"][0]["endOffset"]:
                totals["batches"] += 1
                totals["rows"] += progress["numInputRows"]
                if report is not None:
                    report(progress)

    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops as Ctrl-C does
    query = None
    try:
        query = ingest(spark, source, table, checkpoint, once=once, every=every, **options)
        while not query.awaitTermination(1):
            progressed(query)
        progressed(query)
    except KeyboardInterrupt:
        if query is not None:
            query.stop()
            progressed(query)
    except Exception as exc:
        if type(exc).__name__ != "StreamingQueryException":
            raise
        # a failed micro-batch (FAILFAST's first error, a file gone): its reason, not the JVM's trace; the
        # checkpoint still says where to start again
        reason = next((line for line in str(exc).splitlines() if "Error" in line and "Traceback" not in line),
                      str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise ValueError(f"the ingestion stopped: {reason.strip()[:500]}") from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        spark.stop()
    return totals

"""`inlong-proto spark parse INPUT OUTPUT`: a whole folder of captures to a partitioned table.

The splitting data source reads the dumps (any protocol, or `auto`), each row gets the capture date
(the UTC date of its packet for pcap / pcapng rows; else the dump file's modification date, raw dumps
carrying no clock of their own), and the rows are written
partitioned by protocol and date. A summary (frames per protocol and message type, error spans, bytes)
is returned for printing, computed from what was written. `run` is the command: a local session and a
progress bar of Spark's tasks around `parse`.
"""
from __future__ import annotations

import threading
import uuid
from pathlib import Path

FORMATS = ("parquet", "json", "delta")


def parse(spark, source: str, output: str, *, protocol: str = "auto", direction: str | None = None,
          mode: str = "PERMISSIVE", output_format: str = "parquet", split_size: str = "128m",
          max_frame_size: int | None = None) -> list[tuple]:
    """Parse every dump under `source` into `output`; returns summary rows
    (protocol, message_type, frames, error_spans, bytes). max_frame_size: the maxFrameSize option (None: the
    spec's limit)."""
    from pyspark.sql import functions as F

    from inlong_proto.core.sources import list_files
    from inlong_proto.spark.source import register

    if output_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    if output_format == "delta":
        try:
            import delta  # noqa: F401
        except ImportError:
            raise ValueError("--format delta needs the delta-spark package (pip install delta-spark)") from None
    files = list_files(source)
    if not files:
        raise ValueError(f"no dump files under {source}")
    register(spark)
    reader = (spark.read.format("inlong").option("protocol", protocol).option("mode", mode)
              .option("splitSize", split_size))
    if direction:
        reader = reader.option("direction", direction)
    if max_frame_size is not None:
        reader = reader.option("maxFrameSize", str(max_frame_size))
    table = reader.load([path for path, _ in files])  # its date column is the rule above, for local and bucket paths
    (table.write.mode("overwrite").partitionBy("protocol", "date").format(output_format)
     .save(str(Path(output).resolve())))
    written = spark.read.format(output_format).load(str(Path(output).resolve()))
    summary = (written.groupBy("protocol", F.coalesce("message_type", F.lit("(error span)")).alias("message_type"))
               .agg(F.sum(F.when(F.col("error").isNull(), 1).otherwise(0)).alias("frames"),
                    F.sum(F.when(F.col("error").isNotNull(), 1).otherwise(0)).alias("error_spans"),
                    F.sum("length").alias("bytes"))
               .orderBy("protocol", "message_type"))
    return [tuple(row) for row in summary.collect()]


def run(source: str, output: str, *, cores: int | None = None, console=None, **options) -> list[tuple]:
    """What the command does: parse() on a local session, under a progress bar of Spark's tasks (on
    `console`, a rich Console; a console that is not a terminal gets the final state only)."""
    from rich.filesize import decimal
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from inlong_proto.spark.dumps import local_session
    from inlong_proto.core.sources import list_files

    files = list_files(source)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("tasks"),
               TimeElapsedColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("starting Spark", total=None)
        spark = local_session("inlong-proto-parse", cores=cores)
        spark.sparkContext.setLogLevel("ERROR")
        try:
            bar.update(task, description=f"parsing {len(files)} files ({decimal(sum(size for _, size in files))})")
            with TaskProgress(spark, bar, task):
                return parse(spark, source, output, **options)
        finally:
            spark.stop()


class TaskProgress:
    """Feeds a rich progress task while the block runs: tasks completed out of the tasks of the jobs the
    block starts (a job group of their own), read from Spark's status tracker by a polling thread.

    A finished job counts the tasks that ran: stages Spark skipped (their shuffle output was already
    there) never run, and counting them would leave the bar short of its end.
    """

    def __init__(self, spark, bar, task, interval: float = 0.2):
        self.context, self.bar, self.task, self.interval = spark.sparkContext, bar, task, interval
        self.group = f"inlong-proto-{uuid.uuid4().hex}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="inlong-proto-progress")

    def __enter__(self) -> "TaskProgress":
        self.context.setJobGroup(self.group, "inlong-proto spark parse")
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.update()
        for key in ("spark.jobGroup.id", "spark.job.description"):
            self.context.setLocalProperty(key, None)

    def counts(self) -> tuple[int, int]:
        """(completed, total) tasks of the group's jobs so far."""
        tracker = self.context.statusTracker()
        completed = total = 0
        for job_id in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(job_id)
            if job is None:  # already dropped from the status store
                continue
            stages = [tracker.getStageInfo(stage_id) for stage_id in job.stageIds]
            done = sum(stage.numCompletedTasks for stage in stages if stage)
            completed += done
            total += done if job.status == "SUCCEEDED" else sum(stage.numTasks for stage in stages if stage)
        return completed, total

    def update(self) -> None:
        completed, total = self.counts()
        self.bar.update(self.task, completed=completed, total=total or None)

    def _poll(self) -> None:
        while not self._stop.wait(self.interval):
            self.update()

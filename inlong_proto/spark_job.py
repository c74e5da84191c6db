"""`inlong-proto spark parse INPUT OUTPUT`: a whole folder of captures to a partitioned table.

The splitting data source reads the dumps (any protocol, or `auto`), each row gets the capture date
(the dump file's modification date: raw dumps carry no clock of their own), and the rows are written
partitioned by protocol and date. A summary (frames per protocol and message type, error spans, bytes)
is returned for printing, computed from what was written.
"""
from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

FORMATS = ("parquet", "json", "delta")


def capture_dates(files: list[tuple[str, int]]) -> dict[str, str]:
    """file URI -> the ISO date of the file's modification time (UTC)."""
    from .spark_source import file_uri

    return {file_uri(path): dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.timezone.utc).date().isoformat()
            for path, _ in files}


def parse(spark, source: str, output: str, *, protocol: str = "auto", direction: str | None = None,
          mode: str = "PERMISSIVE", output_format: str = "parquet", split_size: str = "128m") -> list[tuple]:
    """Parse every dump under `source` into `output`; returns summary rows
    (protocol, message_type, frames, error_spans, bytes)."""
    from pyspark.sql import functions as F

    from .spark_source import list_files, register

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
    frames = reader.load([path for path, _ in files])
    dates = spark.createDataFrame(sorted(capture_dates(files).items()), "path string, date string")
    table = without_empty_structs(frames.join(F.broadcast(dates), "path", "left"))
    (table.write.mode("overwrite").partitionBy("protocol", "date").format(output_format)
     .save(str(Path(output).resolve())))
    written = spark.read.format(output_format).load(str(Path(output).resolve()))
    summary = (written.groupBy("protocol", F.coalesce("message_type", F.lit("(error span)")).alias("message_type"))
               .agg(F.sum(F.when(F.col("error").isNull(), 1).otherwise(0)).alias("frames"),
                    F.sum(F.when(F.col("error").isNotNull(), 1).otherwise(0)).alias("error_spans"),
                    F.sum("length").alias("bytes"))
               .orderBy("protocol", "message_type"))
    return [tuple(row) for row in summary.collect()]


def without_empty_structs(frame):
    """The frame without struct fields that have no fields (message types with an empty layout, such as
    DataProxy's MsgType 1 reply): Parquet cannot store them, and they carry no value."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    def empty_paths(struct: StructType, prefix: str) -> list[str]:
        found = []
        for field in struct.fields:
            if isinstance(field.dataType, StructType):
                if not field.dataType.fields:
                    found.append(prefix + field.name)
                else:
                    found += empty_paths(field.dataType, prefix + field.name + ".")
        return found

    for column in frame.schema.fields:
        if isinstance(column.dataType, StructType):
            if not column.dataType.fields:
                frame = frame.drop(column.name)
                continue
            inner = empty_paths(column.dataType, "")
            if inner:
                frame = frame.withColumn(column.name, F.col(column.name).dropFields(*inner))
    return frame

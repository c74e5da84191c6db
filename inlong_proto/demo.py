"""`inlong-proto demo`: the whole pipeline on one machine, as a new user's first run.

A reference broadcast server and two clients talk over loopback and record what they receive; one
recording is also copied with garbage spliced in, the way real captures get damaged. Spark (local,
embedded) then parses the dump folder with read_dumps and a summary is printed.
"""
from __future__ import annotations

import asyncio
import io
import random
import shutil
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .broadcast.client import BroadcastClient
from .broadcast.server import BroadcastServer


async def record_traffic(folder: Path, items: int, interval: float, seed: int) -> list[Path]:
    """Client A runs, disconnects, and resumes later; client B arrives fresh and gets the whole history."""
    first, second = folder / "client-a.bin", folder / "client-b.bin"
    for path in (first, second):
        path.unlink(missing_ok=True)
    async with BroadcastServer(port=0, interval=interval, rng=random.Random(seed)) as server:
        client_a = BroadcastClient("127.0.0.1", server.port, record=first, out=io.StringIO())
        await client_a.run(items)
        await asyncio.sleep(interval * items / 2)  # history keeps growing while A is away
        client_b = BroadcastClient("127.0.0.1", server.port, record=second, out=io.StringIO())
        await client_b.run(items * 2)
        await client_a.run(items)  # resumes after its last item: history, then real time
    damaged = folder / "client-a-damaged.bin"
    data = first.read_bytes()
    cut = len(data) // 2
    damaged.write_bytes(data[:cut] + b"\x00\x00\x00\x26<garbage>" + data[cut:] + data[:20])
    return [first, second, damaged]


def summarise(folder: Path, console: Console) -> None:
    from pyspark.sql import functions as F

    from .spark import local_session, read_dumps

    spark = local_session("inlong-proto-demo", cores=2)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        frames = read_dumps(spark, str(folder), "broadcast").cache()
        files = frames.groupBy(F.element_at(F.split("path", "/"), -1).alias("file")).agg(
            F.count("*").alias("rows"),
            F.sum(F.when(F.col("error").isNull(), 1).otherwise(0)).alias("frames"),
            F.sum(F.when(F.col("error").isNotNull(), 1).otherwise(0)).alias("error_spans"),
            F.sum("length").alias("bytes_covered"),
        ).orderBy("file").collect()
        statuses = frames.where("error IS NULL").groupBy("data_response.status").agg(
            F.count("*").alias("frames"), F.round(F.avg("data_response.data"), 2).alias("mean_value"),
            F.min("data_response.timestamp").alias("first"), F.max("data_response.timestamp").alias("last"),
        ).orderBy("first").collect()
        errors = frames.where("error IS NOT NULL").select("path", "offset", "length", "error").collect()
    finally:
        spark.stop()

    sizes = {p.name: p.stat().st_size for p in folder.glob("*.bin")}
    table = Table(title="Dumps parsed by Spark (read_dumps, PERMISSIVE)")
    for column in ("file", "bytes", "rows", "frames", "error spans", "bytes covered"):
        table.add_column(column, justify="right" if column != "file" else "left")
    for row in files:
        table.add_row(row.file, str(sizes.get(row.file, "?")), str(row.rows), str(row.frames),
                      str(row.error_spans), str(row.bytes_covered))
    console.print(table)
    table = Table(title="Responses by status")
    for column in ("status", "frames", "mean value", "first", "last"):
        table.add_column(column, no_wrap=True)
    for row in statuses:
        table.add_row(str(row.status), str(row.frames), str(row.mean_value), _ms(row.first), _ms(row.last))
    console.print(table)
    for error in errors:
        console.print(f"error span: {error.path.rsplit('/', 1)[-1]} offset {error.offset} "
                      f"length {error.length}: {error.error}")


def _ms(value) -> str:
    return value.isoformat(sep=" ", timespec="milliseconds") if value is not None else ""


def run(folder: Path, items: int = 20, interval: float = 0.02, seed: int = 7) -> None:
    console = Console(width=max(shutil.get_terminal_size().columns, 110))  # the tables need ~100 columns
    folder.mkdir(parents=True, exist_ok=True)
    console.print(f"[bold]1.[/] reference server and two clients on loopback, recording into {folder}/")
    paths = asyncio.run(record_traffic(folder, items, interval, seed))
    for path in paths:
        console.print(f"   {path.name}: {path.stat().st_size} bytes")
    console.print("[bold]2.[/] Spark reads the folder: binaryFile + the Arrow parse UDTF")
    summarise(folder, console)

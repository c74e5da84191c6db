"""Continuous ingestion: ``spark.readStream.format("inlong")``, a folder of rotating captures to a table.

::

    from inlong_proto.spark.source import register
    register(spark)
    frames = (spark.readStream.format("inlong").option("protocol", "auto")
              .option("maxFilesPerTrigger", 10)      # at most 10 new files per micro-batch (default: all)
              .option("completeAfter", "60s")        # a file unchanged this long is complete (default 60s)
              .option("maxFileAge", "7d")            # how long a file is remembered (default 7d)
              .load("captures/"))                     # a folder, a glob, or a bucket path, as for the batch reader

The stream is the batch reader (``source.py``: the same options, columns, splits and modes) applied to
the files that appear under the path, each read exactly once. ``spark.ingestion.ingest`` (the command
``inlong-proto spark ingest``) writes it to a Parquet table partitioned by protocol and date, with a
checkpoint.

Offsets
-------
An offset is the list of files admitted so far, in the order they were admitted, each with its size
and modification time (``FileLog``, JSON), plus a mark: a file is remembered until its modification
time is ``maxFileAge`` older than the newest admitted file's, then dropped from the offset (so that the
offset stays small); a file whose modification time is below the mark when it is first listed is
ignored, with a warning (Spark's own file source does the same with its ``maxFileAge``). The files of a
micro-batch are those of its end offset that its start offset does not hold. A file that appears late
with an older name (an upload that arrived late, a copy out of order) is not in the start offset, so it
is read in the next micro-batch, once, whatever its name; order of names never decides what was read.
New files are admitted oldest modification time first (then by name, digits compared as numbers), at
most ``maxFilesPerTrigger`` per micro-batch.

When a file is complete (``complete``)
--------------------------------------
Only complete files are admitted, since a file is read once. A file is complete when

1. it lives in an object store (``s3://``, ``gs://``, ``abfs://``): an object is listed only once it is
   whole; or
2. a newer file of its rotation exists: files of one folder whose names are equal once their digit runs
   are removed (``cap-20261101-1200.pcap`` and ``cap-20261101-1201.pcap`` for ``tcpdump -G``;
   ``cap.pcap``, ``cap.pcap1``, ``cap.pcap2`` for ``tcpdump -C``), ordered by name with digit runs
   compared as numbers; every file but the last of its rotation is complete, tcpdump having moved on;
   or
3. its size and modification time have not changed for ``completeAfter``: its modification time is
   that long ago, or this reader listed it with the same size that long ago (which holds even when the
   file's clock and the driver's disagree).

The limits of the rule: a writer that pauses longer than ``completeAfter`` in the middle of its last
file (``tcpdump -G`` on a quiet link, where the rotation waits for the next packet) has that file read
then, and what it writes later is never read: set ``completeAfter`` above the longest quiet gap, or make
the writer move the finished file into the folder (rename is atomic). A file is identified by its path:
a path rewritten later (``tcpdump -W``, which reuses names in a ring) is not read again while it is
remembered. A file that grows after it was admitted is read as it is when its micro-batch runs (again
as it is then, should that micro-batch run a second time after a failure).

Exactly once
------------
Spark writes a micro-batch's end offset to the checkpoint before reading it, and the file sink writes
the batch's files into the table's ``_spark_metadata`` log when they are all written: after a crash
(even ``kill -9`` of the driver mid-batch), the restarted query runs the logged batch again with the
same offsets, so the same files, and the sink skips a batch its log already holds. So the table, read
through its log, holds every frame exactly once. The edge that remains at-least-once is the directory:
the Parquet files a killed batch had written stay in it, outside the log. Spark reads the log by
itself; any other reader must take the files the log lists (``committed_files``), not every
``*.parquet`` below the folder. A micro-batch is also only repeatable while its files are still there
with the same bytes.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Iterable, NamedTuple

from inlong_proto.core.sources import file_uri, is_remote, list_files, open_source, scheme_of
from inlong_proto.spark.common import spark_batch, spark_schema

try:
    from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxFiles, SupportsTriggerAvailableNow
except ImportError:  # pyspark is the optional `spark` extra; the offsets and the rule work without it
    SupportsTriggerAvailableNow = InputPartition = object
    ReadAllAvailable = ReadMaxFiles = None

    class DataSourceStreamReader:
        """pyspark's base, absent: a class of its own, as object cannot be a class's base twice."""

COMPLETE_AFTER = 60.0  # seconds a file's size must stay the same (completeAfter)
MAX_FILE_AGE = 7 * 86400.0  # seconds a file is remembered (maxFileAge), Spark's file source's default
WHOLE_OBJECT_SCHEMES = ("s3", "gs", "abfs")  # stores that list an object only once it is whole
DATE = "date"
FORMAT = "inlong"
log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------------
# Files, their rotations, and the rule for a complete file (sans-Spark, sans-IO)


class Listed(NamedTuple):
    """A file as a listing saw it: its location (a path or URI, as list_files gives it), its size in
    bytes and its modification time (seconds since the epoch)."""

    path: str
    size: int
    mtime: float


def natural_key(name: str) -> tuple:
    """A name's sort key with every digit run compared as a number: cap.pcap < cap.pcap2 < cap.pcap10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part)


def rotation_of(path: str) -> tuple[str, str]:
    """The rotation a file belongs to: its folder and its name without digit runs."""
    folder, _, name = path.rpartition("/")
    return folder, re.sub(r"\d+", "", name)


def parse_duration(value, option: str) -> float:
    """Seconds from a number (seconds) or a string such as 500ms, 30s, 2m, 1h, 7d."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(ms|s|m|min|h|d)?\s*", str(value).lower())
    if not match:
        raise ValueError(f"{option} must be a duration (a number of seconds, or with ms, s, m, h, d), not {value!r}")
    unit = {"ms": 0.001, None: 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}[match[2]]
    return float(match[1]) * unit


class Completeness:
    """Which listed files are complete (the module doc's rule). It remembers, per file, when this reader
    first listed it at its present size and modification time: that memory is the only state, and losing
    it (a restart) only delays a file."""

    def __init__(self, complete_after: float = COMPLETE_AFTER):
        self.complete_after = complete_after
        self.since: dict[str, tuple[int, float, float]] = {}  # path -> (size, mtime, first listed so)

    def complete(self, listing: Iterable[Listed], now: float) -> list[Listed]:
        listing = list(listing)
        last: dict[tuple[str, str], tuple] = {}
        for file in listing:
            rotation, key = rotation_of(file.path), natural_key(file.path.rpartition("/")[2])
            if rotation not in last or key > last[rotation]:
                last[rotation] = key
        since = {}
        out = []
        for file in listing:
            seen = self.since.get(file.path)
            first = seen[2] if seen and seen[:2] == (file.size, file.mtime) else now
            since[file.path] = (file.size, file.mtime, first)
            if (scheme_of(file.path) in WHOLE_OBJECT_SCHEMES
                    or natural_key(file.path.rpartition("/")[2]) < last[rotation_of(file.path)]
                    or now - file.mtime >= self.complete_after or now - first >= self.complete_after):
                out.append(file)
        self.since = since
        return out


# ---------------------------------------------------------------------------------------------------
# Offsets


class FileLog(NamedTuple):
    """A stream offset: the files admitted so far (module doc's "Offsets")."""

    count: int = 0  # files ever admitted
    mark: float | None = None  # files modified before it are forgotten (and ignored if new)
    files: tuple[Listed, ...] = ()  # the files admitted and still remembered, in admission order

    def to_json(self) -> dict:
        return {"v": 1, "count": self.count, "mark": self.mark,
                "files": [[f.path, f.size, f.mtime] for f in self.files]}

    @classmethod
    def of(cls, offset: dict | str | None) -> "FileLog":
        if offset is None:
            return cls()
        if isinstance(offset, str):
            offset = json.loads(offset)
        if not isinstance(offset, dict) or offset.get("v") != 1:
            raise ValueError(f"format {FORMAT!r}: not an offset of this stream source (a checkpoint of another "
                             f"source or version?): {str(offset)[:200]}")
        return cls(offset["count"], offset["mark"], tuple(Listed(p, s, m) for p, s, m in offset["files"]))

    def paths(self) -> set[str]:
        return {f.path for f in self.files}

    def admit(self, complete: Iterable[Listed], max_files: int | None = None,
              max_age: float = MAX_FILE_AGE) -> "FileLog":
        """The next offset: up to max_files complete files not yet admitted, oldest first, appended."""
        known = self.paths()
        fresh = []
        for file in complete:
            if file.path in known:
                continue
            if self.mark is not None and file.mtime < self.mark:
                log.warning("%s: modified before the stream's mark (maxFileAge older than the newest file read); "
                            "not read", file.path)
                continue
            fresh.append(file)
        fresh.sort(key=lambda f: (f.mtime, natural_key(f.path)))
        if max_files is not None:
            fresh = fresh[:max_files]
        if not fresh:
            return self
        files = self.files + tuple(fresh)
        mark = max(f.mtime for f in files) - max_age
        if self.mark is not None:
            mark = max(mark, self.mark)
        return FileLog(self.count + len(fresh), mark, tuple(f for f in files if f.mtime >= mark))

    def new_since(self, start: "FileLog") -> list[Listed]:
        """The files of this offset that the earlier offset start had not admitted."""
        known = start.paths()
        return [f for f in self.files if f.path not in known and (start.mark is None or f.mtime >= start.mark)]


def list_with_times(paths, fs_options=None) -> list[Listed]:
    """Every file at paths (core.sources.list_files) with its modification time; none when the path does
    not exist yet (a stream may start before its first file)."""
    try:
        files = list_files(paths, fs_options)
    except FileNotFoundError:
        return []
    out, remote = [], {}
    for path, size in files:
        if is_remote(path):
            from inlong_proto.core.sources import filesystem

            fs, inner = filesystem(path, fs_options)
            remote.setdefault(id(fs), (fs, []))[1].append((path, inner, size))
            continue
        try:
            out.append(Listed(path, os.stat(path).st_size, os.stat(path).st_mtime))
        except FileNotFoundError:  # gone between the listing and the look
            continue
    for fs, entries in remote.values():
        for (path, _, size), info in zip(entries, fs.get_file_info([inner for _, inner, _ in entries])):
            mtime = info.mtime.timestamp() if info.mtime is not None else 0.0
            out.append(Listed(path, info.size if info.size is not None else size, mtime))
    return sorted(out)


# ---------------------------------------------------------------------------------------------------
# The Spark stream reader


class BatchSide(NamedTuple):
    """What the stream reader takes from the batch reader (spark.source, which passes it in
    InlongDataSource.streamReader, so that this module does not import it): its Options class, its task
    planner, its reader of one piece, its capture check, its column selection and its batch size."""

    options: type
    plan: object
    piece_batches: object
    is_capture_file: object
    selected_columns: object
    batch_rows: int


class StreamOptions:
    """The batch reader's options (``batch``, a source.Options) and the stream's own, checked:
    maxFilesPerTrigger, completeAfter, maxFileAge."""

    def __init__(self, options, options_class):
        options = dict(options)
        self.batch = options_class(options)
        get = {str(k).lower(): v for k, v in options.items()}.get
        value = get("maxfilespertrigger")
        if value in (None, ""):
            self.max_files = None
        elif not re.fullmatch(r"\s*\d+\s*", str(value)) or int(value) < 1:
            raise ValueError(f"maxFilesPerTrigger must be a positive whole number, not {value!r}")
        else:
            self.max_files = int(value)
        value = get("completeafter")
        self.complete_after = COMPLETE_AFTER if value in (None, "") else parse_duration(value, "completeAfter")
        value = get("maxfileage")
        self.max_age = MAX_FILE_AGE if value in (None, "") else parse_duration(value, "maxFileAge")

    def __getattr__(self, name):  # protocol, mode, paths, fs_options, ...: the batch reader's
        if name.startswith("__") or "batch" not in self.__dict__:  # while unpickling: not there yet
            raise AttributeError(name)
        return getattr(self.__dict__["batch"], name)


class StreamPartition(InputPartition):
    """One task: (path, size, split index) pieces, and each file's modification time (its rows' date)."""

    def __init__(self, pieces, mtimes):
        self.value = self.pieces = pieces
        self.mtimes = mtimes


def stream_schema(protocol: str, corrupt_record=None):
    """The batch reader's schema with a ``date`` column (DATE: the UTC capture date of a capture's
    packet, else the file's modification date), for partitioning: what ingest reads."""
    from pyspark.sql.types import DateType, StructField, StructType

    full = spark_schema(protocol) if corrupt_record is None else spark_schema(protocol, corrupt_record)
    if DATE in full.fieldNames():  # the batch reader has it
        return full
    return StructType(full.fields + [StructField(DATE, DateType())])


class InlongStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """readStream.format("inlong"): offsets are FileLogs (module doc)."""

    def __init__(self, options: StreamOptions, schema, batch: BatchSide):
        self.batch = batch
        full = spark_schema(options.protocol, options.corrupt_record, options.carried)
        wanted = schema
        self.date = DATE in schema.fieldNames() and DATE not in full.fieldNames()  # derived here
        if self.date:
            from pyspark.sql.types import StructType

            wanted = StructType([f for f in schema.fields if f.name != DATE])
        self.options = options
        self.columns = batch.selected_columns(wanted, full) if wanted.fields else []
        self.names = wanted.fieldNames()
        self.completeness = Completeness(options.complete_after)
        self.target: set[str] | None = None  # Trigger.AvailableNow: the files complete when it began

    # offsets, on the driver

    def initialOffset(self) -> dict:
        return FileLog().to_json()

    def getDefaultReadLimit(self):
        return ReadAllAvailable() if self.options.max_files is None else ReadMaxFiles(self.options.max_files)

    def complete_now(self) -> list[Listed]:
        return self.completeness.complete(list_with_times(self.options.paths, self.options.fs_options), time.time())

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = {f.path for f in self.complete_now()}

    def latestOffset(self, start: dict, limit) -> dict:
        complete = self.complete_now()
        if self.target is not None:
            complete = [f for f in complete if f.path in self.target]
        max_files = getattr(limit, "max_files", None) if ReadMaxFiles is not None and isinstance(
            limit, ReadMaxFiles) else None
        return FileLog.of(start).admit(complete, max_files, self.options.max_age).to_json()

    def partitions(self, start: dict, end: dict):
        files = FileLog.of(end).new_since(FileLog.of(start))
        sized = [(f.path, f.size) for f in files]
        captures = {f.path for f in files if f.size and self.batch.is_capture_file(f.path, self.options.fs_options)}
        mtimes = {f.path: f.mtime for f in files}
        return [StreamPartition(task, {path: mtimes[path] for path, _, _ in task})
                for task in self.batch.plan(sized, self.options.split_size, captures)]

    def commit(self, end: dict) -> None:
        pass  # the offsets hold every state; nothing to release

    # rows, in the workers

    def read(self, partition):
        options = self.options
        for path, _, index in partition.pieces:
            uri = file_uri(path)
            day = dt.datetime.fromtimestamp(partition.mtimes[path], dt.timezone.utc).date()
            with open_source(path, options.fs_options) as src:
                for batch in self.batch.piece_batches(src, uri, options.protocol, options.direction, options.mode,
                                                      options.split_size, index, self.batch.batch_rows,
                                                      options.limits, options.carried):
                    batch = spark_batch(batch, options.protocol, options.corrupt_record, options.carried)
                    yield self.shaped(batch, day)

    def shaped(self, batch, day):
        import pyarrow as pa
        import pyarrow.compute as pc

        columns = batch.schema.names if self.columns is None else self.columns
        arrays = [batch.column(name) for name in columns]
        names = list(self.names)
        if self.date:
            times = pc.struct_field(batch.column("capture"), "time")
            dates = pc.fill_null(pc.cast(times, pa.date32()), pa.scalar(day, pa.date32()))
            arrays.append(dates)
            names.append(DATE)
        return pa.RecordBatch.from_arrays(arrays, names=names)


def stream_reader(options, schema, batch: BatchSide) -> InlongStreamReader:
    """What InlongDataSource.streamReader returns."""
    return InlongStreamReader(StreamOptions(options, batch.options), schema, batch)


# ---------------------------------------------------------------------------------------------------
# The table's committed files


def committed_files(table: str | os.PathLike) -> list[str]:
    """The Parquet files a file-sink table holds: those its ``_spark_metadata`` log lists as added and not
    deleted (what Spark reads), absolute paths. Not every ``*.parquet`` in the folder: a micro-batch killed
    before its commit leaves its files there, outside the log (module doc, "Exactly once")."""
    folder = Path(table) / "_spark_metadata"
    if not folder.is_dir():
        raise FileNotFoundError(f"{table}: no _spark_metadata log: not a table written by a Spark file sink")
    batches = {}
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d+)(\.compact)?", entry.name)
        if match:
            batches[int(match[1])] = entry
    latest_compact = max((n for n, e in batches.items() if e.name.endswith(".compact")), default=-1)
    files: dict[str, bool] = {}
    for number in sorted(n for n in batches if n >= latest_compact):
        lines = batches[number].read_text().splitlines()
        if not lines or not lines[0].startswith("v"):
            raise ValueError(f"{batches[number]}: not a file sink log entry")
        for line in lines[1:]:
            if line.strip():
                entry = json.loads(line)
                path = entry["path"]
                if entry.get("action", "add") == "delete":
                    files.pop(path, None)
                else:
                    files[path] = True
    return [_local_path(path) for path in files]


def _local_path(uri: str) -> str:
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(uri).path) if uri.startswith("file:") else uri


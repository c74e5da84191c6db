"""Spark readers for binary dumps: one row per frame (or malformed span), typed from the generated specs.

A dump file is read whole by Spark's ``binaryFile`` source and handed, as (path, content), to an
Arrow-optimized Python UDTF that runs ``iter_frames`` over it. The UDTF is also registered for SQL.
The table's columns are those of ``inlong_proto.arrow.frame_schema``.

pyspark is imported inside the functions so the core package works without the ``spark`` extra.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

from . import arrow, protocols
from .capture import iter_capture_frames
from .capture.container import is_capture
from .errors import DecodeError
from .frames import _check_direction, _check_mode, iter_frames


class DumpDecodeError(DecodeError):
    """A DecodeError that also names the dump file, so a failed FAILFAST job says where to look."""

    def __init__(self, path: str, offset: int, field: str, reason: str, kind: str = DecodeError.kind):
        super().__init__(offset, field, reason)
        self.path, self.kind = path, kind
        self.args = (f"{path}: {self.args[0]}",)

    @classmethod
    def of(cls, path: str, error: DecodeError) -> "DumpDecodeError":
        return cls(path, error.offset, error.field, error.reason, error.kind)

    def shifted(self, delta: int) -> "DumpDecodeError":
        return type(self)(self.path, self.offset + delta, self.field, self.reason, self.kind)


def _check(protocol: str, direction: str | None, mode: str) -> str:
    """Fail on the driver, at call time, rather than later inside every task."""
    protocols.get(protocol)
    _check_direction(direction)
    return _check_mode(mode)


def parse_udtf(protocol: str, direction: str | None = None, mode: str = "PERMISSIVE"):
    """An Arrow-optimized Python UDTF turning (path, content) into frame rows of ``protocol``.

    It takes either two scalar arguments, ``(path, content)``, or one table argument whose rows have
    ``path`` and ``content`` columns. direction is passed to iter_frames: frames of the other
    direction are malformed (error rows in PERMISSIVE, dropped in DROPMALFORMED, fatal in FAILFAST).
    A pcap / pcapng file is reassembled instead (inlong_proto.capture), its rows carrying the capture
    column; there the TCP direction of each frame decides and direction does not apply.
    """
    mode = _check(protocol, direction, mode)

    def rows(path, content):
        if is_capture(content[:4]):  # pcap / pcapng: every TCP flow parsed as protocol, direction by TCP
            for item in iter_capture_frames(content, protocol, mode):
                yield arrow.frame_tuple(path, item.frame, protocol, arrow.capture_value(item))
            return
        for frame in iter_frames(content, protocol, direction, mode):
            yield arrow.frame_tuple(path, frame, protocol)

    return dump_udtf(f"parse_{protocol}", rows, arrow.spark_schema(protocol))


def dump_udtf(name: str, rows, return_type):
    """An Arrow-optimized UDTF over dump files: rows(path, content) yields its output tuples.

    It takes either two scalar arguments, ``(path, content)``, or one table argument whose rows have
    ``path`` and ``content`` columns; one whole file per eval call, so frames never straddle files.
    A DecodeError fails the task naming the file (FAILFAST).
    """
    from pyspark.sql.functions import udtf

    class ParseDump:
        def eval(self, *args):
            if len(args) == 1:
                path, content = args[0]["path"], args[0]["content"]
            elif len(args) == 2:
                path, content = args
            else:
                raise TypeError(f"{name} takes (path, content) or one TABLE(...) argument with path and "
                                f"content columns, not {len(args)} arguments")
            if content is None:
                return
            try:
                yield from rows(path, content)
            except DecodeError as exc:
                raise DumpDecodeError.of(path, exc) from None

    ParseDump.__name__ = ParseDump.__qualname__ = name
    return udtf(ParseDump, returnType=return_type, useArrow=True)


def register_udtf(spark, protocol: str, direction: str | None = None, mode: str = "PERMISSIVE",
                  name: str | None = None):
    """Register parse_udtf(protocol, ...) for SQL as ``name`` (default ``parse_<protocol>``).

    Either call form works, with the columns of ``spark.read.format("binaryFile")``::

        CREATE TEMP VIEW dumps USING binaryFile OPTIONS (path '/data/dumps', recursiveFileLookup 'true');
        SELECT * FROM parse_broadcast(TABLE(SELECT path, content FROM dumps));
        SELECT p.* FROM dumps, LATERAL parse_broadcast(path, content) p WHERE p.error IS NULL;

    direction and mode are fixed at registration; register several names for several settings.
    """
    function = parse_udtf(protocol, direction, mode)
    return spark.udtf.register(name or f"parse_{protocol}", function)


def read_dumps(spark, path: str | Sequence[str], protocol: str, direction: str | None = None,
               mode: str = "PERMISSIVE"):
    """A DataFrame of every frame in the dump file(s) at path: a file, a glob, a directory or a list.

    Directories are read recursively. Columns are those of arrow.frame_schema(protocol); ``path`` is
    the file's URI as Spark reports it. PERMISSIVE keeps malformed spans as rows with ``error`` set
    (frames and spans then tile each file exactly), DROPMALFORMED leaves them out, and FAILFAST makes
    the job fail with the first DecodeError, its message naming the file and the offset.
    """
    return parse_udtf(protocol, direction, mode)(dump_files(spark, path))


def dump_files(spark, path: str | Sequence[str]):
    """The (path, content) table of the dump file(s) at path, as a UDTF's TABLE argument."""
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
             .load([os.fspath(p) for p in paths]))
    return files.select("path", "content").asTable()


def local_session(app_name: str = "inlong-proto", cores: int | None = None):
    """A local SparkSession whose Python workers run this interpreter (and so see this package).

    Small settings suited to tests and laptops: no UI, few shuffle partitions, Arrow on.
    """
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode talks to itself only
    threads = cores or os.cpu_count() or 1
    return (SparkSession.builder.master(f"local[{threads}]").appName(app_name)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", str(threads))
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.sql.execution.pythonUDTF.arrow.enabled", "true")
            .getOrCreate())

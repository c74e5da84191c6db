"""Spark readers for binary dumps: one row per frame (or malformed span), typed from the generated specs.

A dump file is read whole by Spark's ``binaryFile`` source and handed, as (path, content), to a Python
UDTF. read_dumps uses an Arrow-native one (batch_udtf) whose batches the compiled scanners build where
they are built (inlong_proto.backends.compiled); SQL gets the row-wise parse_udtf (register_udtf), which a LATERAL
join can call. The table's columns are those of ``inlong_proto.core.arrow.frame_schema`` (read_dumps lists them).

pyspark is imported inside the functions so the core package works without the ``spark`` extra; the
readers say so (require_spark) when it is missing.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

from inlong_proto.core import arrow, protocols
from inlong_proto.capture import iter_capture_frames
from inlong_proto.capture.container import is_capture
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.sources import BytesSource
from inlong_proto.spark.common import (DumpDecodeError, check_reader_args, require_spark,  # noqa: F401
                                       spark_batch, spark_schema, worker_backend)


# binaryFile holds a whole file in one row of the JVM's memory, several copies of it on its way to Python:
# with the default 1 GiB heap a 63 MB file reads and a 127 MB one kills the JVM (OutOfMemoryError). So a
# file may use a sixteenth of the heap; larger files go to format("inlong").
HEAP_SHARE = 16
# parse_udtf's rows of one file reach Spark as one Arrow table (Spark collects an eval call's rows): a file's
# rows may take this many bytes there, whatever its size (ReadLimits.output_bytes, with no share per byte). The
# rows of a 64 MiB dump of small frames (binaryFile's default limit) take about 400 MiB and fit.
ROW_UDTF_OUTPUT = 512 << 20


def default_max_file_size(spark) -> int:
    """The largest file read_dumps accepts by default: a sixteenth of the heap that reads it (the driver's
    in local mode, spark.executor.memory on a cluster)."""
    sc = spark.sparkContext
    if sc.master.startswith("local"):
        heap = sc._jvm.java.lang.Runtime.getRuntime().maxMemory()
    else:
        heap = sc._jsc.sc().executorMemory() << 20  # MiB
    return heap // HEAP_SHARE


def parse_udtf(protocol: str, direction: str | None = None, mode: str = "PERMISSIVE",
               corrupt_record_column: str = arrow.CORRUPT_RECORD, limits=None):
    """An Arrow-optimized Python UDTF turning (path, content) into frame rows of ``protocol``.

    It takes either two scalar arguments, ``(path, content)``, or one table argument whose rows have
    ``path`` and ``content`` columns. direction is passed to iter_frames: frames of the other
    direction are malformed (error rows in PERMISSIVE, dropped in DROPMALFORMED, fatal in FAILFAST).
    A pcap / pcapng file is reassembled instead (inlong_proto.capture), its rows carrying the capture
    column; there the TCP direction of each frame decides and direction does not apply. Its columns
    are read_dumps', the error rows' bytes in the column corrupt_record_column.

    limits (spark.pieces.ReadLimits) bound what one file may take, as for format("inlong") (FileGuard: a
    failing file is an error row); by default its rows take at most ROW_UDTF_OUTPUT bytes, since Spark
    holds all of them at once.
    """
    require_spark()
    from inlong_proto.spark.pieces import FileGuard, ReadLimits, read_split

    protocol, mode = check_reader_args(protocol, direction, mode)
    return_type = arrow.spark_schema(protocol, corrupt_record_column)
    limits = limits or ReadLimits(output_bytes=ROW_UDTF_OUTPUT, output_ratio=0)

    def rows(path, content):
        guard = FileGuard(path, protocol, mode, limits, len(content))
        if is_capture(content[:4]):  # pcap / pcapng: every TCP flow parsed as protocol, direction by TCP
            items = ((item.frame, arrow.capture_value(item)) for item in iter_capture_frames(content, protocol, mode))
        else:  # iter_frames' rows (an HTTP stream fed in chunks, its decoder's memory checked at each)
            frames = read_split(_ContentSource(content), path, protocol, direction, mode, max(1, len(content)), 0,
                                guard)[1]
            items = ((frame, None) for frame in frames)
        for _, row, _ in guard.rows_of(items):
            yield row

    return dump_udtf(udtf_name(protocol), rows, return_type)


class _ContentSource(BytesSource):
    """A file's content in memory (a binaryFile row's) as a source, without a copy."""

    def __init__(self, content, uri: str = "<content>"):
        self.buffer, self.size, self.uri = content, len(content), uri


def udtf_name(protocol: str) -> str:
    """parse_<protocol>, a hyphen written as an underscore (SQL names have none): parse_eventmesh_legacy."""
    return f"parse_{protocols.column_name(protocols.checked(protocol))}"


def dump_udtf(name: str, rows, return_type):
    """An Arrow-optimized UDTF over dump files: rows(path, content) yields its output tuples, whose last
    item is the capture column's value; the UDTF adds the DATE column (return_type gets it too).

    It takes either scalar arguments, ``(path, content)`` or ``(path, content, modificationTime)``, or one
    table argument whose rows have ``path`` and ``content`` columns (and ``modificationTime``, as binaryFile
    gives it); one whole file per eval call, so frames never straddle files. ``date`` is the UTC date of the
    row's capture time (a frame of a pcap / pcapng file), else that of modificationTime, else null.
    A DecodeError fails the task naming the file (FAILFAST).
    """
    require_spark()
    from pyspark.sql.functions import udtf
    from pyspark.sql.types import DateType, StructField, StructType

    return_type = StructType(return_type.fields + [StructField(arrow.DATE, DateType())])

    class ParseDump:
        def eval(self, *args):
            mtime = None
            if len(args) == 1:
                path, content = args[0]["path"], args[0]["content"]
                mtime = args[0]["modificationTime"] if "modificationTime" in args[0].__fields__ else None
            elif len(args) in (2, 3):
                path, content, mtime = (*args, None)[:3]
            else:
                raise TypeError(f"{name} takes (path, content[, modificationTime]) or one TABLE(...) argument "
                                f"with path and content columns, not {len(args)} arguments")
            if content is None:
                return
            day = _utc_date(mtime)
            try:
                for row in rows(path, content):
                    capture = row[-1]
                    yield row + ((_utc_date(capture[6]) if capture is not None and capture[6] is not None
                                  else day),)
            except DecodeError as exc:
                raise DumpDecodeError.of(path, exc) from None

    ParseDump.__name__ = ParseDump.__qualname__ = name
    return udtf(ParseDump, returnType=return_type, useArrow=True)


def _utc_date(time):
    """The UTC date of a datetime (an instant; a naive one is taken as UTC), None for None."""
    import datetime as dt

    if time is None:
        return None
    return (time.astimezone(dt.timezone.utc) if time.tzinfo is not None else time).date()


def register_udtf(spark, protocol: str, direction: str | None = None, mode: str = "PERMISSIVE",
                  name: str | None = None, corrupt_record_column: str = arrow.CORRUPT_RECORD, limits=None):
    """Register parse_udtf(protocol, ...) for SQL as ``name`` (default ``parse_<protocol>``, a hyphen
    written as an underscore: ``parse_eventmesh_legacy``).

    Either call form works, with the columns of ``spark.read.format("binaryFile")``::

        CREATE TEMP VIEW dumps USING binaryFile OPTIONS (path '/data/dumps', recursiveFileLookup 'true');
        SELECT * FROM parse_broadcast(TABLE(SELECT path, content FROM dumps));
        SELECT p.* FROM dumps, LATERAL parse_broadcast(path, content) p WHERE p.error IS NULL;

    direction, mode, corrupt_record_column and limits are fixed at registration; register several names
    for several settings.
    """
    function = parse_udtf(protocol, direction, mode, corrupt_record_column, limits)
    worker_backend(spark)
    return spark.udtf.register(name or udtf_name(protocol), function)


def read_dumps(spark, path: str | Sequence[str], protocol: str, direction: str | None = None,
               mode: str = "PERMISSIVE", corrupt_record_column: str = arrow.CORRUPT_RECORD,
               max_file_size: int | None = None, limits=None, date_column: str | None = None,
               max_frame_size: int | None = None, protocols: Sequence[str] | None = None):
    """A DataFrame of every frame in the dump file(s) at path: a file, a glob, a directory or a list.

    protocol "auto" finds each file's protocol from its first bytes, and gives the rows and columns of
    ``spark.read.format("inlong")`` with protocol auto (InlongDataSource lists them): one struct per protocol
    carried. protocols pins those (the format's protocols option); by default they are the protocols found
    at the start of the files read (spark.pieces.found_protocols, on the driver, when read_dumps is called).

    Directories are read recursively; pcap / pcapng files among them are reassembled (capture column).
    PERMISSIVE keeps malformed spans as rows with ``error`` set (frames and spans then tile each file
    exactly), DROPMALFORMED leaves them out, and FAILFAST makes the job fail with the first
    DecodeError, its message naming the file and the offset. A file over max_file_size bytes (default:
    a sixteenth of the JVM heap that reads it, 64 MiB for Spark's default 1 GiB) is refused at call
    time, since binaryFile holds each file in one row of JVM memory: read large files with
    spark.read.format("inlong"). limits (spark.pieces.ReadLimits, default its defaults) bound what reading one
    file may take, as format("inlong")'s max* options do: a file that crosses one, or whose decoder fails,
    ends in an error row (FileGuard). max_frame_size: the largest frame taken (default: the spec's own
    limit, e.g. 64 KiB for DataProxy; at most 64 MiB), as format("inlong")'s maxFrameSize option.

    Columns (arrow.frame_schema(protocol), with Spark types):

    - ``path`` STRING: the file's URI as Spark's binaryFile reports it
    - ``offset`` BIGINT, ``length`` BIGINT: where the frame or malformed span is in the file (for a
      capture: in its TCP direction's reassembled stream)
    - ``protocol`` STRING, ``direction`` STRING (request, response, or null when the bytes are valid
      either way), ``message_type`` STRING (null for an error row)
    - ``error`` STRING: null for a frame, what is wrong (offset, field, reason) for an error row
    - ``_corrupt_record`` BINARY (named by corrupt_record_column, as Spark's columnNameOfCorruptRecord):
      null for a frame, the error span's raw bytes for an error row (empty for a gap in a capture,
      where no bytes were captured)
    - the protocol's frame columns, from its generated FIELDS: header fields, then one STRUCT per
      message type, null unless the row is one (enums are STRING names, uint64 is DECIMAL(20,0);
      decoded times are TIMESTAMP_NTZ, as the wire writes them as zone-less wall-clock text):

      - broadcast: ``total_length`` INT, ``command_id`` STRING, ``data_request`` STRUCT<last_timestamp:
        TIMESTAMP_NTZ, last_data: INT>, ``data_response`` STRUCT<status: STRING, timestamp:
        TIMESTAMP_NTZ, data: INT>
      - dataproxy: ``total_len`` BIGINT, ``auth`` BOOLEAN, ``encrypted`` BOOLEAN, ``compressed``
        BOOLEAN, ``base_type`` STRING, ``text_message`` STRUCT, ``bin_message`` STRUCT,
        ``bin_heartbeat`` STRUCT, ``legacy_heartbeat_reply`` BOOLEAN (true when the row is that reply, which has no fields:
        a layout without fields is a BOOLEAN, never an empty STRUCT, which Parquet and ORC cannot
        store), ``bin_response`` STRUCT
        (epoch counts stay the wire's integers here, e.g. ``bin_message.data_time`` BIGINT seconds and
        the ``dt`` milliseconds inside ``attr``; read_records turns them into TIMESTAMP instants)
      - eventmesh and eventmesh-legacy: ``package_length`` INT, ``package`` STRUCT<header_length: INT,
        header: STRING, body: BINARY>
      - tubemq: ``serial_no`` INT, ``list_size`` INT, ``blocks`` ARRAY<STRUCT<block_len: INT, data: BINARY>>
      - eventmesh-frame (EventMesh 2026's EventMeshFrame): ``msg_type`` STRING, ``flags`` SMALLINT, ``seq`` INT,
        ``key_count`` INT, ``data_len`` INT, ``attributes`` ARRAY<STRUCT<name_len: INT, name: STRING,
        value_len: INT, value: STRING>> (in wire order), ``data`` BINARY
      - eventmesh-http and eventmesh-grpc (HTTP streams, not frames of one layout): the keys of their
        items' JSON, from each module's COLUMNS, e.g. ``kind`` (request/response; frame/message/call),
        ``method``, ``status``, ``headers`` ARRAY<STRUCT<name, value>>, ``grpc_path``,
        ``latency_ms`` DOUBLE; nested values (form fields, protobuf bodies, a call's ``requests``) are
        JSON text, for from_json and get_json_object. A raw dump of theirs is read whole by one task.
    - ``capture`` STRUCT<flow: BIGINT, client: STRING, client_port: INT, server: STRING,
      server_port: INT, sender: STRING, time: TIMESTAMP, packet_offset: BIGINT>: null for a dump; for
      a frame of a pcap / pcapng file its TCP flow, which end sent it, the capture time of the packet
      holding its first byte (an instant: TIMESTAMP, shown in the session time zone) and that
      packet's offset in the file
    - ``date`` DATE, last, for ``partitionBy("protocol", "date")``: the date of date_column's value where
      date_column names a timestamp or date column (a dotted path, e.g. ``data_response.timestamp``) and
      the row has one; else the UTC date of ``capture.time`` for a frame of a capture; else the UTC date
      of the file's modification time (binaryFile's modificationTime: a raw dump carries no clock of its
      own). A wall-clock (TIMESTAMP_NTZ) column gives its own date, an instant its UTC date. The same as
      format("inlong")'s date column (its dateColumn option)
    """
    if max_frame_size is not None:
        from inlong_proto.core.frames import check_max_frame_size
        from inlong_proto.spark.pieces import ReadLimits

        limits = (limits or ReadLimits())._replace(frame_size=check_max_frame_size(max_frame_size))
    require_spark()
    protocol, _ = check_reader_args(protocol, direction, mode, auto=True)
    files = dump_files(spark, path, max_file_size)
    carried = None
    if protocol == arrow.AUTO:
        carried = (auto_protocols(spark, path, date_column) if protocols is None
                   else arrow.carried_protocols(protocols))
    elif protocols is not None:
        raise ValueError(f"protocols goes with protocol {arrow.AUTO} (the structs it carries), not {protocol!r}")
    udtf = batch_udtf(protocol, direction, mode, corrupt_record_column, limits, date_column, carried)
    worker_backend(spark)  # logs the backend the tasks run on, warns where it is not the driver's
    return udtf(files)


def auto_protocols(spark, path: str | Sequence[str], date_column: str | None = None) -> tuple[str, ...]:
    """The protocols read_dumps(protocol="auto") carries: found_protocols over the files binaryFile lists at
    path (the files the UDTF reads), and the one date_column names, as format("inlong") does."""
    from inlong_proto.spark.pieces import found_protocols

    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    listed = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
              .load([os.fspath(p) for p in paths]).select("path").collect())
    return found_protocols([row.path for row in listed], date_column=date_column)


def batch_udtf(protocol: str, direction: str | None = None, mode: str = "PERMISSIVE",
               corrupt_record_column: str = arrow.CORRUPT_RECORD, limits=None, date_column: str | None = None,
               carried: tuple[str, ...] | None = None):
    """parse_udtf's rows as an Arrow-native UDTF (Spark's arrow_udtf) over a TABLE of (path, content).

    Each file's rows are built as Arrow batches, by the compiled scanners where they are built
    (inlong_proto.backends.compiled.range_batches; a capture through inlong_proto.backends.compiled_capture, which walks its
    packets in C and hands the capture to the pure path when it cannot), so no Python tuple is made per
    frame: the batches of format("inlong") for a file read whole (spark.pieces.piece_batches), under limits
    (spark.pieces.ReadLimits). It takes the table form only: Spark runs no Arrow UDTF on the right of a LATERAL
    join, which is what parse_udtf is for. protocol "auto": each file's protocol detected, the rows in
    arrow.auto_schema(carried), as format("inlong") gives them.
    """
    require_spark()
    from pyspark.sql.functions import arrow_udtf

    from inlong_proto.spark.pieces import ReadLimits, piece_batches

    from pyspark.sql.types import DateType, StructField, StructType

    protocol, mode = check_reader_args(protocol, direction, mode, auto=True)
    return_type = spark_schema(protocol, corrupt_record_column, carried)
    return_type = StructType(return_type.fields + [StructField(arrow.DATE, DateType())])
    if date_column is not None:
        table = arrow.auto_schema(carried) if protocol == arrow.AUTO else arrow.frame_schema(protocol)
        arrow.check_date_column(table, date_column)
    limits = limits or ReadLimits()

    class ParseDumpBatches:
        def eval(self, table):
            times = (table.column("modificationTime").to_pylist() if "modificationTime" in table.column_names
                     else [None] * table.num_rows)
            for path, content, mtime in zip(table.column("path").to_pylist(), table.column("content"), times):
                if not content.is_valid:
                    continue
                src = _ContentSource(memoryview(content.as_buffer()), path)
                for batch in piece_batches(src, path, protocol, direction, mode, max(1, src.size), 0,
                                           limits=limits, carried=carried):
                    yield arrow.with_date(spark_batch(batch, protocol, corrupt_record_column, carried),
                                          _utc_date(mtime), date_column)

    ParseDumpBatches.__name__ = ParseDumpBatches.__qualname__ = \
        f"{'parse_auto' if protocol == arrow.AUTO else udtf_name(protocol)}_batches"
    return arrow_udtf(ParseDumpBatches, returnType=return_type)


def dump_files(spark, path: str | Sequence[str], limit: int | None = None):
    """The (path, content, modificationTime) table of the dump file(s) at path, as a UDTF's TABLE argument.

    Files over limit (default: default_max_file_size) are refused up front, from the listing (no content
    is read), with a ValueError that names the file and points to the splitting reader."""
    from pyspark.sql import functions as F

    limit = default_max_file_size(spark) if limit is None else limit
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
             .load([os.fspath(p) for p in paths]))
    too_big = files.select("path", "length").where(F.col("length") > limit).limit(1).collect()
    if too_big:
        name, size = too_big[0]
        raise ValueError(f"{name}: {size:,} bytes, over the {limit:,} bytes a binaryFile row may hold "
                         f"here (max_file_size): Spark's binaryFile reads a whole file into one row of JVM "
                         f"memory. Read large files with spark.read.format(\"inlong\"), which splits them "
                         f"into byte ranges (inlong_proto.spark.source).")
    return files.select("path", "content", "modificationTime").asTable()


def local_session(app_name: str = "inlong-proto", cores: int | None = None):
    """A local SparkSession whose Python workers run this interpreter (and so see this package).

    Small settings suited to tests and laptops: no UI, few shuffle partitions, Arrow on.
    """
    require_spark()
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

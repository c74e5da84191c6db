"""A splitting Spark data source for dumps: ``spark.read.format("inlong")``, large files read in parallel.

::

    from inlong_proto.spark.source import register
    register(spark)                                  # spark.dataSource.register(InlongDataSource)
    df = (spark.read.format("inlong").option("protocol", "dataproxy")    # or "auto": detected per file
          .option("direction", "request")            # optional, as for read_dumps
          .option("protocols", "dataproxy,tubemq")   # auto only: the protocols whose structs the table carries
          .option("mode", "PERMISSIVE")              # PERMISSIVE (default), DROPMALFORMED, FAILFAST
          .option("splitSize", "64m")                # bytes per split (k/m/g suffixes; default 128m)
          .option("columnNameOfCorruptRecord", "_corrupt_record")  # error rows' raw bytes (the default)
          .option("maxTaskMemory", "1g")             # and the other limits of one file's read (ReadLimits)
          .load("captures/"))                        # a file, a directory (recursive), a glob, or a list

Option names are case-insensitive, as Spark's; an unknown or misspelt one fails at load() with the list
of valid ones (``Options``). The columns and their types are listed in ``InlongDataSource``'s doc.

The rows are exactly those of ``spark.read_dumps`` on the same files (same columns from
``arrow.frame_schema``, same offsets, lengths and error texts), but a file is not one ``binaryFile``
row: it is cut into byte ranges of ``splitSize`` that different tasks parse, so a file may exceed
2 GiB. Small files are packed together into one task up to ``splitSize``. Paths are plain paths or
URIs of any filesystem ``pyarrow.fs`` reads (``s3://``, ``gs://``, ``abfs://``, ``hdfs://``,
``file:``); directories are listed recursively, skipping names that start with ``.`` or ``_`` as Spark
does. A task opens its object itself (``sources.open_source``) and reads only its range and the
lookahead it needs, by ranged reads; ``fs.*`` options go to the filesystem (``sources.filesystem``).

With ``protocol=auto`` each file's protocol is found from its first bytes by ``detect.detect``; the
table then has the meta columns (``protocol`` holds the detected name) and one struct column per
protocol carried, holding that protocol's frame columns. A file no protocol matches becomes one error row
covering the whole file (PERMISSIVE), is dropped (DROPMALFORMED) or fails the job (FAILFAST).

Which protocols auto carries
----------------------------
Every struct column costs: its nulls are buffers too, which cross from the Python worker to the JVM
like any other (with every protocol's struct, a DataProxy dump's batches were twice the bytes of the
named read's, and auto took 1.5x its time). So the table carries the structs of the ``protocols``
option (comma-separated names, in the registry's order whatever the order given); without it,
``schema()`` pins them when the DataFrame is made (``load()``), by ``found_protocols``: the
protocols that ``detect`` finds at the start of the dumps listed then (one HEAD_SIZE read per
file), plus the one the dateColumn option names; every protocol when a capture is among the files
(its flows are classified only as it is read) or when no dump is recognised. The list travels in
the options to the tasks, so every task reads the same table. A user schema (``.schema(...)``)
selects from the table of every protocol (or of those pinned). readStream pins the same way at the
query's start, which a later file of another protocol does not change (``ingest`` passes every
protocol's schema).

A frame of a protocol the table does not carry (a file that changed or appeared after load(), a
pinned list that leaves its protocol out) is never dropped unsaid: it is an error row (arrow.carry)
that keeps its offset, length, protocol and direction, with an error naming the protocol and null
message_type and corrupt record; DROPMALFORMED leaves it out, FAILFAST fails the job naming the file
and the offset.

A pcap / pcapng file (found by its magic when the tasks are planned) is read by one task, since TCP
reassembly is sequential: its task streams it through ``capture.CaptureDecoder`` (capture_batches), and
its rows fill the ``capture`` column. A capture of at most CAPTURE_WHOLE bytes (the usual rotated file)
is read whole instead and walked by the compiled capture path (capture.native_path), when it is built.
With protocol=auto a capture mixes protocols in one batch, so every frame's columns go into its own
protocol's struct (auto_batch). ``spark_capture.read_captures`` gives
the same rows from one capture parsed by many tasks (packets by byte range, then flows after a shuffle).

How a file is read (splits and their sync points, memory, ReadLimits) is told in ``spark.pieces``.
"""
from __future__ import annotations

import json
from functools import cache

from inlong_proto.core import arrow, protocols
from inlong_proto.core.arrow import AUTO, auto_schema
from inlong_proto.core.stream import check_direction, check_mode
from inlong_proto.core.sources import check_fs_options, file_uri, list_files, modification_date, open_source
from inlong_proto.spark.common import require_spark, spark_batch, spark_schema, worker_backend
from inlong_proto.spark.errors import hide_tracebacks, one_line_errors
from inlong_proto.spark.pieces import (BATCH_ROWS, DEFAULT_SPLIT_SIZE, LIMIT_OPTIONS, ReadLimitError, ReadLimits,
                                       found_protocols, is_capture_file, parse_size, piece_batches, plan)

FORMAT = "inlong"

try:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
except ImportError:  # pyspark is the optional `spark` extra; Options and the helpers work without it
    DataSource = DataSourceReader = InputPartition = object

class Options:
    """The data source's options, checked (on the driver, before any task runs).

    Names are case-insensitive, as Spark's are. An unknown name fails with the list of valid ones (and
    the closest match), rather than being ignored. OPTIONS are the names a user sets; Spark's load()
    passes the path(s) as ``path`` / ``paths``; ``fs.<name>`` keys are kept, without the prefix, in
    fs_options.
    """

    OPTIONS = ("protocol", "direction", "mode", "splitSize", "columnNameOfCorruptRecord", "dateColumn", "protocols",
               *LIMIT_OPTIONS)
    STREAM = ("maxFilesPerTrigger", "completeAfter", "maxFileAge")  # readStream's (spark.stream); read ignores them
    FROM_SPARK = ("path", "paths")
    FS_PREFIX = "fs."

    def __init__(self, options):
        options = dict(options)
        self._check_names(options)
        get = {str(k).lower(): v for k, v in options.items()}.get
        protocol = (get("protocol") or "").strip()
        if not protocol:
            raise ValueError(f"format {FORMAT!r} needs option('protocol', ...): one of "
                             f"{', '.join(protocols.every_name())} or {AUTO}")
        self.protocol = AUTO if protocol.lower() == AUTO else protocols.checked(protocol)
        # protocols: the structs protocol=auto carries (arrow.carried_protocols); None: unpinned (every
        # protocol, unless InlongDataSource.schema pinned those found: found_protocols)
        carried = get("protocols")
        self.carried = None
        if carried is not None:
            if self.protocol != AUTO:
                raise ValueError(f"option 'protocols' goes with protocol {AUTO} (the structs it carries), not with "
                                 f"protocol {self.protocol!r}")
            names = [name for name in str(carried).split(",") if name.strip()]
            if not names:
                raise ValueError(f"option 'protocols' needs protocol names, comma-separated: "
                                 f"{', '.join(protocols.every_name())}")
            self.carried = arrow.carried_protocols(names)
        direction = get("direction")
        self.direction = None if direction in (None, "", "none", "None", "null") else direction
        check_direction(self.direction)
        self.mode = check_mode(get("mode") or "PERMISSIVE")
        self.split_size = parse_size(get("splitsize") or DEFAULT_SPLIT_SIZE)
        self.limits = ReadLimits.of(get)
        paths = []
        if get("paths"):
            paths += json.loads(get("paths"))
        if get("path"):
            paths.append(get("path"))
        if not paths:
            raise ValueError(f"format {FORMAT!r} needs a path: load(path)")
        self.paths = paths
        table = auto_schema(self.carried) if self.protocol == AUTO else arrow.frame_schema(self.protocol)
        columns = (auto_schema() if self.protocol == AUTO else table).names  # a name clash with any protocol
        self.corrupt_record = arrow.check_corrupt_record(get("columnnameofcorruptrecord") or arrow.CORRUPT_RECORD,
                                                         columns)
        # dateColumn: the timestamp or date column whose date the date column takes (arrow.with_date)
        date_column = get("datecolumn")
        self.date_column = None if date_column in (None, "") else arrow.check_date_column(table, date_column)
        # fs.<name>: keyword arguments of the path's pyarrow filesystem (sources.filesystem)
        self.fs_options = {str(k)[len(self.FS_PREFIX):]: v for k, v in options.items()
                           if str(k).lower().startswith(self.FS_PREFIX)}
        for path in paths:
            check_fs_options(path, self.fs_options, self.FS_PREFIX)

    @classmethod
    def _check_names(cls, options: dict) -> None:
        import difflib

        known = {name.lower(): name for name in cls.OPTIONS + cls.STREAM + cls.FROM_SPARK}
        for key in options:
            name = str(key)
            if name.lower() in known or name.lower().startswith(cls.FS_PREFIX):
                continue
            close = difflib.get_close_matches(name.lower(), list(known), n=1, cutoff=0.6)
            hint = f" (did you mean {known[close[0]]!r}?)" if close else ""
            raise ValueError(f"format {FORMAT!r} has no option {name!r}{hint}; its options are "
                             f"{', '.join(cls.OPTIONS)}, for readStream {', '.join(cls.STREAM)}, and "
                             f"{cls.FS_PREFIX}<name> (filesystem settings)")


class InlongPartition(InputPartition):
    """One task: (path, size, split index) pieces."""

    def __init__(self, pieces):
        self.value = self.pieces = pieces


class InlongReader(DataSourceReader):
    """Plans tasks on the driver (files listed, cut into splits, small ones packed); reads them in workers.
    columns: the columns a user schema selects (in its order), or None for every column; names: the user
    schema's spelling of them."""

    def __init__(self, options: Options, columns: list[str] | None = None, names: list[str] | None = None):
        self.options = options
        self.columns, self.names = columns, names

    def partitions(self):
        with one_line_errors(ReadLimitError):  # spark.errors: "inlong: <one line>"
            files = list_files(self.options.paths, self.options.fs_options)
            captures = {path for path, size in files if size and is_capture_file(path, self.options.fs_options)}
            tasks = plan(files, self.options.split_size, captures) or [[]]  # no file with bytes: one task, no rows
        return [InlongPartition(task) for task in tasks]

    def read(self, partition):
        with one_line_errors(ReadLimitError):
            for batch in read_partition(self.options, partition.pieces):
                yield batch if self.columns is None else batch.select(self.columns).rename_columns(self.names)


class InlongDataSource(DataSource):
    """spark.read.format("inlong"): dumps split into byte ranges parsed in parallel (module doc).

    Options (Options; case-insensitive, an unknown one fails at load() with the valid ones): protocol,
    protocols (with auto: the protocols whose structs the table carries; the module doc's "Which protocols
    auto carries"), direction, mode, splitSize, columnNameOfCorruptRecord, dateColumn, the limits of one file's read
    (maxBatchBytes, maxRowBytes, maxOutputBytes, maxOutputRatio, maxTaskMemory: the module doc's
    "ReadLimits"), fs.<name>.

    Columns, with Spark types. With a protocol they are read_dumps' (inlong_proto.spark.dumps.read_dumps lists
    the protocol's frame columns); with protocol=auto:

    - ``path`` STRING: the file's URI (``file:/...`` for a local file)
    - ``offset`` BIGINT, ``length`` BIGINT: where the frame or malformed span is in the file (for a
      capture: in its TCP direction's reassembled stream)
    - ``protocol`` STRING: the detected protocol (null for a file none recognises), ``direction`` STRING
      (request, response, or null when the bytes are valid either way), ``message_type`` STRING
    - ``error`` STRING: null for a frame, what is wrong (offset, field, reason) for an error row
    - ``_corrupt_record`` BINARY (named by the columnNameOfCorruptRecord option): null for a frame, the
      error span's raw bytes for an error row (empty for a gap in a capture, where no bytes were
      captured; null for a file no protocol recognises, whose bytes are the file)
    - one STRUCT per protocol carried (the protocols option, else those found at the start of the dumps,
      else every one) holding its frame columns (read_dumps'), null unless the row is a frame of that
      protocol: ``broadcast`` STRUCT, ``dataproxy`` STRUCT, ``eventmesh`` STRUCT,
      ``eventmesh_frame`` STRUCT, ``eventmesh_grpc`` STRUCT, ``eventmesh_http`` STRUCT,
      ``eventmesh_legacy`` STRUCT (a hyphen is no column name), ``tubemq`` STRUCT
    - ``capture`` STRUCT<flow: BIGINT, client: STRING, client_port: INT, server: STRING,
      server_port: INT, sender: STRING, time: TIMESTAMP, packet_offset: BIGINT>: null for a dump; for
      a frame of a pcap / pcapng file its TCP flow, which end sent it, the capture time of the packet
      holding its first byte (an instant: TIMESTAMP) and that packet's offset in the file
    - ``date`` DATE, last, for ``partitionBy("protocol", "date")``: the date of the dateColumn option's
      column where it names one (a dotted path to a timestamp or date column, e.g.
      ``broadcast.data_response.timestamp``) and the row has a value there; else the UTC date of
      ``capture.time`` for a frame of a capture; else the UTC date of the file's modification time (a raw
      dump carries no clock of its own). A wall-clock (TIMESTAMP_NTZ) column gives its own date, an
      instant its UTC date
    """

    @classmethod
    def name(cls):
        return FORMAT

    def schema(self):
        """The table's columns; with protocol auto and no protocols option, found_protocols pins the structs it
        carries, in self.options: Spark pickles this object after schema(), so reader() and streamReader()
        read the same list rather than listing again."""
        with one_line_errors():  # spark.errors: "inlong: <one line>"
            options = Options(self.options)
            if options.protocol == AUTO and options.carried is None:
                self.options["protocols"] = ",".join(found_protocols(options.paths, options.fs_options,
                                                                     options.date_column))
                options = Options(self.options)
            return reader_schema(options)

    def reader(self, schema):
        with one_line_errors():
            options = Options(self.options)
            columns = selected_columns(schema, reader_schema(options))
        return InlongReader(options, columns, schema.fieldNames())

    def streamReader(self, schema):
        """spark.readStream.format("inlong"): every file that appears, read once (spark.stream)."""
        from inlong_proto.spark.stream import BatchSide, stream_reader

        return stream_reader(self.options, schema, BatchSide(Options, plan, piece_batches, is_capture_file,
                                                             selected_columns, BATCH_ROWS))


def reader_schema(options: Options):
    """The columns of format("inlong"): spark_schema's, then the DATE column (arrow.with_date)."""
    from pyspark.sql.types import DateType, StructField, StructType

    full = spark_schema(options.protocol, options.corrupt_record, options.carried)
    return StructType(full.fields + [StructField(arrow.DATE, DateType())])


def selected_columns(wanted, full) -> list[str] | None:
    """The columns a user schema (``.schema("offset BIGINT, message_type STRING")``) selects, or None when it
    is the whole schema. Spark's Python data source API cannot prune columns itself, and every column of a
    row crosses from the Python worker to the JVM: a schema naming only the columns a query needs is what
    makes a read cheaper. Each must be one of the format's columns (names case-insensitive, as Spark's)
    with its type; else a ValueError names the columns there are."""
    if [(f.name, f.dataType) for f in wanted.fields] == [(f.name, f.dataType) for f in full.fields]:
        return None
    by_name = {f.name.lower(): f for f in full.fields}
    selected = []
    for field in wanted.fields:
        own = by_name.get(field.name.lower())
        if own is None:
            raise ValueError(f"format {FORMAT!r} has no column {field.name!r}; its columns are "
                             f"{', '.join(f.name for f in full.fields)}")
        if own.dataType != field.dataType:
            raise ValueError(f"format {FORMAT!r}: column {own.name!r} is {own.dataType.simpleString()}, "
                             f"not {field.dataType.simpleString()}")
        selected.append(own.name)
    if len(set(selected)) != len(selected):
        raise ValueError(f"format {FORMAT!r}: the schema names a column twice: {', '.join(selected)}")
    return selected


def read_partition(options: Options, pieces, rows: int = BATCH_ROWS):
    """The Arrow batches of one task (what the reader's read() yields), typed as Spark expects them, the
    corrupt-record column named by columnNameOfCorruptRecord (a rename costs no copy)."""
    def spark_form(batch):
        return spark_batch(batch, options.protocol, options.corrupt_record, options.carried)

    for path, _, index in pieces:
        uri = file_uri(path)
        day = modification_date(path, options.fs_options)
        with open_source(path, options.fs_options) as src:
            for batch in piece_batches(src, uri, options.protocol, options.direction, options.mode,
                                       options.split_size, index, rows, options.limits, options.carried):
                yield arrow.with_date(spark_form(batch), day, options.date_column)


@cache
def register(spark, tracebacks: bool = False) -> None:
    """Make spark.read.format("inlong") available in this session (and log the backend its tasks run on,
    warning where it is not the driver's: spark.common.worker_backend). Unless tracebacks, or the session has
    a value for it, set spark.sql.execution.pyspark.udf.hideTraceback.enabled, so that an error of the
    format reads ``... inlong: <one line>`` rather than a Python worker's traceback (spark.errors)."""
    require_spark()
    spark.dataSource.register(InlongDataSource)
    if not tracebacks:
        hide_tracebacks(spark)
    worker_backend(spark)

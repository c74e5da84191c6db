"""One big pcap / pcapng capture read on many cores: packets in parallel, then flows in parallel.

::

    from inlong_proto.spark.captures import read_captures
    df = read_captures(spark, "captures/big.pcap", protocol="auto", mode="PERMISSIVE", split_size="128m")

The rows and the schema are exactly those of ``spark.read.format("inlong")`` on the same files (which
reads a capture in one task): the same frames and error spans, offsets, error texts, capture column and
flow numbers. ``path`` is a file, a directory, a glob or a list, as for the data source; every file must
be a capture.

Why this shape
--------------
A capture is a sequence of records, and TCP reassembly needs a connection's packets in file order, but
no more: connections do not interact. So the work is cut twice.

1. Packets by byte range. Each file is cut into ``split_size`` ranges; a task finds its range's first
   record exactly (``capture.split``: sync points, the chain, the container's break) and turns each
   packet it owns into its TCP segment (``capture.packet_segment``), a row keyed by the 4-tuple. It also
   writes one control row for its split (the ``SplitEnd``): where it started, where its walk met the
   next split, the break it saw.
2. Flows by 4-tuple. The rows are shuffled by 4-tuple into ``partitions`` buckets, and sorted by
   (file, bucket, 4-tuple, offset) within them; a task replays each 4-tuple's packets in file order
   through a ``CaptureDecoder`` (``feed_segment``: reassembly, classification, framing, modes), so the
   frames are the sequential reader's. A 4-tuple reused after both FINs is a new connection there too.
   The control rows of a file are copied into every bucket and sort first: each replay task computes the
   chain and the first break itself (``capture.split.stitch``) and keeps only the packets the sequential
   reader reads, without a join back to the split stage (which would parse the file twice). The bucket
   that holds split 0's control row first writes the container's error span. The control rows also
   carry each split's latest capture time, the sequential reader's clock at the end, so that connections
   idle at the end of the capture end as there (``CaptureDecoder``'s idle timeout).

A flow's id in the ``capture`` column is the file offset of its first packet (``Flow.first_packet_offset``),
in both readers: a count of the connections before it would need every 4-tuple's history, a second
pass over the shuffled rows (Spark does not reuse a shuffle across the two sides of a join, so the file
would be parsed twice: measured, a third of the time).

Sorting (not ``groupBy().applyInArrow``) keeps memory bounded: a task holds one batch of rows and, per
open connection, the reassembler's bounds; a long connection is never one in-memory group. The split
tasks read their range in chunks through the source (``sources.open_source``: local files or
pyarrow.fs filesystems), never whole files.

Modes: PERMISSIVE keeps error spans; DROPMALFORMED drops them (the container is still read to its first
break); FAILFAST fails the job with the first error met on the chain (a DumpDecodeError naming the file),
or any flow's first error. A pcapng file that defines an interface or a section after its first packet
fails with CaptureSplitError (capture.split): read it with ``spark.read.format("inlong")``.
"""
from __future__ import annotations

import zlib
from functools import partial
from itertools import groupby
from typing import Iterator, NamedTuple, Sequence

from inlong_proto.core import arrow, protocols
from inlong_proto.capture import IDLE_TIMEOUT, CaptureDecoder, container_error_frame, packet_segment
from inlong_proto.capture.container import ContainerError
from inlong_proto.capture.split import WINDOW, CaptureSplitError, SplitEnd, read_head, read_split, split_count, stitch
from inlong_proto.capture.tcp import Segment
from inlong_proto.core.errors import DecodeError, FrameTooLargeError, TruncatedError, ValidationError
from inlong_proto.core.stream import check_mode
from inlong_proto.core.sources import file_uri, list_files, modification_date, open_source
from inlong_proto.spark.common import worker_backend
from inlong_proto.spark.dumps import DumpDecodeError
from inlong_proto.core.arrow import AUTO
from inlong_proto.spark.pieces import (BATCH_BYTES, BATCH_ROWS, DEFAULT_SPLIT_SIZE, FileGuard, ReadLimits,
                                       is_capture_file, parse_size)
from inlong_proto.spark.common import spark_arrow_schema, spark_schema

# Row kinds; control rows sort first in their bucket.
CONTROL, PACKET = 0, 1
KEY = ("a", "ap", "b", "bp")  # the 4-tuple, its two ends in sorted order (as CaptureDecoder keys it)
# The rows between the stages: a packet's TCP segment keyed by its 4-tuple, or a split's control row.
ROWS = (("path", "string"), ("bucket", "int32"), ("kind", "int8"), ("a", "string"), ("ap", "int32"),
        ("b", "string"), ("bp", "int32"), ("offset", "int64"), ("split", "int32"), ("ts", "int64"),
        ("from_a", "bool"), ("seq", "int64"), ("ack", "int64"), ("syn", "bool"), ("fin", "bool"),
        ("rst", "bool"), ("data", "binary"), ("missing", "int64"), ("size", "int64"), ("start", "int64"),
        ("last_ts", "int64"), ("met", "int64"), ("section", "int64"), ("broken_at", "int64"),
        ("broken_length", "int64"), ("error_kind", "string"), ("error_offset", "int64"), ("error_field", "string"),
        ("error_reason", "string"), ("fail_offset", "int64"), ("fail_field", "string"),
        ("fail_reason", "string"))
TASKS = "location string, path string, size bigint, split int"
_ERRORS = {cls.kind: cls for cls in (ValidationError, TruncatedError, FrameTooLargeError)}
# A file's rows are spread over the replay tasks: no per-file share of output or memory applies, only the
# batch and row bounds (spark.pieces.ReadLimits).
REPLAY_LIMITS = ReadLimits(output_bytes=1 << 62, task_memory=0)


class _Settings(NamedTuple):
    protocol: str
    mode: str
    split_size: int
    fs_options: dict | None
    buckets: tuple  # bucket values that Spark's hash partitioning puts on partitions 0, 1, ...
    window: int
    idle_timeout: float | None


def read_captures(spark, path: str | Sequence[str], protocol: str = AUTO, mode: str = "PERMISSIVE",
                  split_size=DEFAULT_SPLIT_SIZE, *, fs_options: dict | None = None,
                  partitions: int | None = None, sync_window: int = WINDOW,
                  idle_timeout: float | None = IDLE_TIMEOUT):
    """A DataFrame of every frame of every TCP flow in the capture file(s) at path, each file parsed by
    many tasks (module doc); rows and schema are spark.read.format("inlong")'s. split_size: bytes per
    split (an int or "64m"); fs_options: the source's filesystem options (sources.open_source);
    partitions: replay tasks (default: the session's default parallelism); sync_window: how far before
    a split boundary its sync search looks (capture.split.WINDOW; it changes speed, never rows);
    idle_timeout: capture seconds after which a silent 4-tuple is forgotten (capture.CaptureDecoder).

    Its last column is format("inlong")'s ``date`` DATE: the UTC date of ``capture.time``, else (a row of
    no packet, such as a broken stretch of the file) the UTC date of the file's modification time."""
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.types import StructType

    protocol = AUTO if str(protocol).strip().lower() == AUTO else protocols.checked(protocol)
    mode = check_mode(mode)
    split_size = parse_size(split_size)
    files = [(location, size) for location, size in list_files(path, fs_options) if size]
    for location, _ in files:
        if not is_capture_file(location, fs_options):
            raise ValueError(f"{location} is not a pcap / pcapng capture; read dumps with "
                             f"spark.read.format(\"inlong\")")
    worker_backend(spark)  # logs the backend the tasks run on, warns where it is not the driver's
    schema = spark_schema(protocol)
    tasks = [(location, file_uri(location), size, index) for location, size in files
             for index in range(split_count(size, split_size))]
    if not tasks:
        from pyspark.sql.types import DateType, StructField

        return spark.createDataFrame([], StructType(schema.fields + [StructField(arrow.DATE, DateType())]))
    context = spark.sparkContext
    count = max(1, int(partitions or context.defaultParallelism))
    settings = _Settings(protocol, mode, split_size, fs_options, bucket_values(count), int(sync_window),
                         idle_timeout)
    slices = min(len(tasks), max(1, context.defaultParallelism) * 4)
    splits = spark.createDataFrame(context.parallelize(tasks, slices), StructType.fromDDL(TASKS))
    order = ("path", "bucket", "kind", *KEY, "offset")
    rows = (splits.mapInArrow(partial(_split_rows, settings), from_arrow_schema(_rows_schema()))
            .repartition(count, "bucket"))
    frames = rows.sortWithinPartitions(*order).mapInArrow(partial(_replay, settings), schema)
    return _dated(spark, frames, {file_uri(location): modification_date(location, fs_options)
                                  for location, _ in files})


def _dated(spark, frames, days: dict):
    """frames with the date column: capture.time's UTC date, else the file's modification date (days)."""
    from pyspark.sql import functions as F

    zone = spark.conf.get("spark.sql.session.timeZone")
    by_file = F.create_map(*[F.lit(value) for uri, day in sorted(days.items()) for value in (uri, day)])
    packet_day = F.to_date(F.to_utc_timestamp(F.col(f"{arrow.CAPTURE_COLUMN}.time"), zone))
    return frames.withColumn(arrow.DATE, F.coalesce(packet_day, by_file[F.col("path")]))


# ---------------------------------------------------------------------------------------------------
# Stage 1: packets of each split, as rows keyed by 4-tuple, and one control row per split


def bucket_values(count: int) -> tuple:
    """For each partition i < count, an int that Spark's hash partitioning (Murmur3, seed 42, pmod)
    sends to partition i: buckets then map one to one onto tasks, as evenly as the 4-tuples."""
    found: dict[int, int] = {}
    value = 0
    while len(found) < count:
        found.setdefault(_murmur3_int(value) % count, value)
        value += 1
    return tuple(found[index] for index in range(count))


def _murmur3_int(value: int, seed: int = 42) -> int:
    """Spark's Murmur3_x86_32.hashInt (what HashPartitioning computes for an INT column), signed."""
    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    k = (value & 0xFFFFFFFF) * 0xCC9E2D51 & 0xFFFFFFFF
    k = rotl(k, 15) * 0x1B873593 & 0xFFFFFFFF
    h = rotl(seed ^ k, 13)
    h = (h * 5 + 0xE6546B64) & 0xFFFFFFFF
    h ^= 4
    h = (h ^ (h >> 16)) * 0x85EBCA6B & 0xFFFFFFFF
    h = (h ^ (h >> 13)) * 0xC2B2AE35 & 0xFFFFFFFF
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def _rows_schema():
    import pyarrow as pa

    return pa.schema([(name, pa.type_for_alias(kind)) for name, kind in ROWS])


class _Row(NamedTuple("_Row", [(name, object) for name, _ in ROWS])):
    """One row of ROWS (a packet's segment, or a split's control row)."""


_EMPTY_ROW = _Row(*[None] * len(ROWS))


PACKET_FIELDS = ROWS.index(("missing", "int64")) + 1  # a packet row fills these only
_DATA = ROWS.index(("data", "binary"))


class _RowBatches:
    """Rows of ROWS cut into Arrow batches of at most BATCH_ROWS / about BATCH_BYTES: packet rows as
    tuples of their PACKET_FIELDS (the hot path: one tuple per packet), control rows whole."""

    def __init__(self):
        import pyarrow as pa

        self.pa, self.schema = pa, _rows_schema()
        self._reset()

    def _reset(self):
        self.packets, self.controls = [], []
        self.rows = self.held = 0

    def packet(self, values: tuple) -> bool:
        """Append a packet row (PACKET_FIELDS values); True when a batch is due."""
        self.packets.append(values)
        self.rows += 1
        self.held += len(values[_DATA] or b"")
        return self.rows >= BATCH_ROWS or self.held >= BATCH_BYTES

    def control(self, row: _Row) -> bool:
        self.controls.append(row)
        self.rows += 1
        return self.rows >= BATCH_ROWS

    def take(self) -> list:
        pa, out = self.pa, []
        for rows, width in ((self.packets, PACKET_FIELDS), (self.controls, len(ROWS))):
            if rows:
                columns = [pa.array(column, type=field.type) for column, field in zip(zip(*rows), self.schema)]
                columns += [pa.nulls(len(rows), field.type) for field in list(self.schema)[width:]]
                out.append(pa.RecordBatch.from_arrays(columns, schema=self.schema))
        self._reset()
        return out


def _split_rows(settings: _Settings, batches):
    """mapInArrow over (location, path, size, split) tasks: each split's packet and control rows."""
    out = _RowBatches()
    for task in batches:
        for location, path, index in zip(*(task.column(name).to_pylist() for name in ("location", "path", "split"))):
            with open_source(location, settings.fs_options) as src:
                for due in _split(settings, src, path, index, out):
                    if due:
                        yield from out.take()
    if out.rows:
        yield from out.take()


def _split(settings: _Settings, src, path: str, index: int, out: _RowBatches) -> Iterator[bool]:
    buckets, failure, placed = settings.buckets, None, {}
    last_ts = None  # the latest capture time of the packets this split owns (CaptureDecoder.see)
    for item in read_split(src, index, settings.split_size, head=read_head(src), window=settings.window):
        if isinstance(item, SplitEnd):
            yield from _control_rows(out, path, src.size, item, failure, buckets, last_ts)
            return
        ts = item.timestamp_ns
        if last_ts is None or ts > last_ts:
            last_ts = ts
        if failure is not None:
            continue  # FAILFAST: the job fails if this split is on the chain; the rest would be dropped
        try:
            seg = packet_segment(item)
        except ValidationError as exc:
            if settings.mode == "FAILFAST":
                failure = exc
            continue  # PERMISSIVE, DROPMALFORMED: skipped, as CaptureDecoder.feed_packet skips it
        if seg is None:
            continue  # not TCP
        src_end, dst_end = (seg.src, seg.src_port), (seg.dst, seg.dst_port)
        from_a = src_end <= dst_end
        key = src_end + dst_end if from_a else dst_end + src_end
        bucket = placed.get(key)
        if bucket is None:
            bucket = placed[key] = buckets[zlib.crc32(repr((path, key)).encode()) % len(buckets)]
        yield out.packet((path, bucket, PACKET, *key, item.file_offset, index, ts, from_a, seg.seq, seg.ack,
                          seg.syn, seg.fin, seg.rst, seg.data, seg.missing))


def _control_rows(out: _RowBatches, path: str, size: int, end: SplitEnd, failure, buckets,
                  last_ts: int | None) -> Iterator[bool]:
    """The split's SplitEnd (and its FAILFAST failure), once per bucket: every replay task reads them."""
    broken = {}
    if end.broken is not None:
        error = end.broken.error
        broken = dict(broken_at=end.broken.file_offset, broken_length=end.broken.length, error_kind=error.kind,
                      error_offset=error.offset, error_field=error.field, error_reason=error.reason)
    failed = {} if failure is None else dict(fail_offset=failure.offset, fail_field=failure.field,
                                             fail_reason=failure.reason)
    for bucket in buckets:
        yield out.control(_EMPTY_ROW._replace(path=path, bucket=bucket, kind=CONTROL, split=end.index, size=size,
                                          start=end.start, met=end.met, section=end.section, last_ts=last_ts,
                                          **broken, **failed))


# ---------------------------------------------------------------------------------------------------
# Stages 2 and 3: each bucket's 4-tuples replayed in file order


class _File:
    """One file's control rows in one bucket: the chain, the first break, what must fail the job."""

    def __init__(self, path: str, mode: str):
        self.path, self.mode = path, mode
        self.ends: list[SplitEnd] = []
        self.failures: list[ValidationError] = []
        self.size = 0
        self.stitched = None
        self.last_ts: dict[int, int] = {}  # split -> the latest capture time of the packets it owns

    def control(self, row: dict) -> None:
        self.size = row.size
        broken = None
        if row.broken_at is not None:
            error = _ERRORS.get(row.error_kind, DecodeError)(row.error_offset, row.error_field, row.error_reason)
            broken = ContainerError(row.broken_at, row.broken_length, error)
        self.ends.append(SplitEnd(row.split, row.start, row.met, broken, row.section))
        if row.last_ts is not None:
            self.last_ts[row.split] = row.last_ts
        if row.fail_offset is not None:
            self.failures.append((row.split, ValidationError(row.fail_offset, row.fail_field, row.fail_reason)))

    def stitch(self):
        """The file's Stitch, once; raises what the sequential reader would have failed on."""
        if self.stitched is None:
            self.stitched = stitch(self.ends, self.size)
            st = self.stitched
            if st.section is not None:
                raise CaptureSplitError(self.path, st.section, "a pcapng section or interface defined")
            if self.mode == "FAILFAST":
                errors = [error for index, error in self.failures
                          if st.keeps(index, error.offset)] + ([st.broken.error] if st.broken else [])
                if errors:
                    raise DumpDecodeError.of(self.path, min(errors, key=lambda error: error.offset))
        return self.stitched

    def now(self) -> int | None:
        """The sequential reader's clock at the end (CaptureDecoder.now_ns): the latest capture time of
        the packets it read, those of the chain's splits that start before the container's break."""
        st = self.stitch()
        limit = st.broken.file_offset if st.broken is not None else self.size
        starts = {end.index: end.start for end in self.ends}
        times = [ts for index, ts in self.last_ts.items() if index in st.chain and starts[index] < limit]
        return max(times, default=None)


def _groups(batches):
    """(path, bucket, rows) of the sorted shuffled rows: each file's control rows, then its packets."""
    current, pending = None, []
    for batch in batches:
        for values in zip(*(batch.column(name).to_pylist() for name, _ in ROWS)):
            row = _Row._make(values)
            group = (row.path, row.bucket)
            if group != current:
                if current is not None:
                    yield current[0], current[1], pending
                current, pending = group, []
            pending.append(row)
            if len(pending) >= BATCH_ROWS:  # a long group streams on in pieces
                yield current[0], current[1], pending
                pending = []
    if current is not None:
        yield current[0], current[1], pending


class _Replayer:
    """Per (file, bucket): the file's control rows, then its packets 4-tuple after 4-tuple, each 4-tuple
    through its own CaptureDecoder."""

    def __init__(self, settings: _Settings):
        self.settings = settings
        self.file: _File | None = None
        self.group = None
        self.key = None
        self.decoder: CaptureDecoder | None = None

    def replay(self, batches) -> Iterator[tuple[str, object]]:
        """(path, CaptureFrame) for the sorted shuffled rows of one task."""
        for path, bucket, rows in _groups(batches):
            if (path, bucket) != self.group:
                yield from self.finish()
                self.group, self.file = (path, bucket), _File(path, self.settings.mode)
            for item in self.rows(rows):
                yield path, item
        yield from self.finish()

    def rows(self, rows: list) -> list:
        out = []
        for row in rows:
            if row.kind == CONTROL:
                self.file.control(row)
                continue
            if not self.file.stitch().keeps(row.split, row.offset):
                continue
            key = (row.a, row.ap, row.b, row.bp)
            if key != self.key:
                out += self._close()
                self.key = key
                self.decoder = CaptureDecoder(self.settings.protocol, self.settings.mode,
                                              idle_timeout=self.settings.idle_timeout, keep_flows=False)
            a, b = (key[0], key[1]), (key[2], key[3])
            (src, sport), (dst, dport) = (a, b) if row.from_a else (b, a)
            seg = Segment(src, sport, dst, dport, row.seq, row.ack, row.syn, row.fin, row.rst, row.data, row.missing)
            out += self._fed(self.decoder.feed_segment, seg, row.ts, row.offset)
        return out

    def _fed(self, function, *args) -> list:
        try:
            return function(*args)
        except DecodeError as exc:
            raise DumpDecodeError.of(self.file.path, exc) from None

    def _close(self) -> list:
        if self.decoder is None:
            return []
        self.decoder.see(self.file.now())  # connections idle at the end of the capture end as "idle"
        out = self._fed(self.decoder.close)
        self.decoder, self.key = None, None
        return out

    def finish(self) -> Iterator[tuple[str, object]]:
        """End of a (file, bucket): its last 4-tuple, and the container's error span (in one bucket)."""
        if self.file is None:
            return
        path = self.file.path
        out = self._close()
        st = self.file.stitch()
        if st.broken is not None and self.settings.mode == "PERMISSIVE" and self.group[1] == self.settings.buckets[0]:
            out.append(container_error_frame(st.broken))
        self.file, self.group = None, None
        for item in out:
            yield path, item


def _replay(settings: _Settings, batches):
    """mapInArrow: the frames of each bucket's 4-tuples, in the data source's schema, in the batches
    capture_batches (spark.pieces) cuts: by rows and bytes, a row over maxRowBytes an error row. A failure
    fails the task (FileGuard contain=False): one replay serves the bucket's other files too."""
    for path, items in groupby(_Replayer(settings).replay(batches), key=lambda pair: pair[0]):
        guard = FileGuard(path, settings.protocol, settings.mode, REPLAY_LIMITS, 0, contain=False)
        for batch in guard.batches((item.frame, arrow.capture_value(item)) for _, item in items):
            yield batch.cast(spark_arrow_schema(settings.protocol))

"""One file's rows for the readers, without Spark: a dump's byte range (a split) scanned into Arrow
batches under ReadLimits, a capture read whole or streamed. ``spark.source`` (the data source), ``read_dumps``
and the command line's whole-file output all read through here; nothing here imports pyspark.

How splits are stitched exactly once
------------------------------------
The rows of a file are defined by the sequential scan of ``iter_frames`` (what read_dumps runs): from
offset 0, a position p either starts a frame (the scan moves to p + size) or is malformed (it moves to
p + 1, the position joining an error span). That walk is a function ``next(p)`` of the bytes alone,
so two walks that meet at one position coincide from there on. For each split boundary S the reader
computes a *sync point* M(S) >= S that the sequential walk is guaranteed to pass through, with no
error span open there:

1. Entries. The walk's first position >= S is next(q) for its last position q < S, and
   q >= S - max_frame_size because no step is longer than a frame (a longer frame is an error). The
   entries are therefore S together with q + size for every q in [S - max_frame_size, S) at which a
   frame decodes and ends past S.
2. Merge. The walks from all entries are advanced together, smallest position first, until only one
   is left; M(S) is the end of the first frame that walk then decodes (after a frame no error span
   is open, so the scan's state there does not depend on anything before it).

The sequential walk passes through one of the entries, and every entry's walk passes through M(S);
so the sequential walk passes through M(S). This is certain, not probable: payload bytes that look
like headers, even whole valid frames inside a payload, at worst make the walks merge later. (Chain
verification, accepting an offset when N frames decode back to back from it, was rejected for that
reason: a payload carrying N frames, e.g. a record holding a captured frame, would silently duplicate
or lose rows.) A boundary has no sync point when the walks have not merged and decoded a frame before
the end of its split or S + 2 * max_frame_size + 64 KiB. (A position whose claim runs past the end of
the file is malformed, as for iter_frames, so the walks go on there too.)

Split i owns the walk's positions in [M(S_i), M(S_j)), S_j being the next boundary that has a sync
point (split 0 starts at 0; the last one ends at the end of the file): it runs iter_frames' own
scanner from M(S_i), reading past its end to finish its last frame (and through every following split
that has no sync point). Both neighbours compute the same M(S) from the same bytes, so the owned
ranges partition the file: every frame and every error span is emitted exactly once and, in
PERMISSIVE mode, they tile the file. A mismatch would be a bug: split_frames raises RuntimeError
rather than give a wrong table (the split's FileGuard makes it its error row, below). FAILFAST fails the
job with the first error of whichever split meets one (a DumpDecodeError naming the file and the
offset); DROPMALFORMED leaves error spans out.

Memory
------
A task maps a local file read-only (``mmap``; a remote object: an anonymous mapping filled by ranged
reads, ``sources.RangeSource``): only the pages the task touches are read (its range, max_frame_size
before it and up to the next sync point after it), the scan hands the pages it has passed back every
16 MiB (``MADV_DONTNEED``), and the scanner holds one frame at a time; no dump is ever read whole (a
capture of at most CAPTURE_WHOLE bytes is, above). A batch holds at most BATCH_ROWS rows and
maxBatchBytes of them (below). ``make bench-memory`` parses a 4 GiB dump and prints every process's peak
RSS. The scan runs over the mapped file, indexed by absolute offsets, rather than over a StreamDecoder
fed with read() chunks. (Error texts no longer hold buffer positions, so StreamDecoder
now gives the same rows, tests/test_recovery.py checks it; the map stays for now.) Over the map,
the scan is iter_frames' own over the same indices, so they do, by construction.

ReadLimits: no file can end a session
--------------------------------
A decoder's output is not bounded by its input (an HPACK bomb of 3 MB decodes to 2 GB of headers), and
Spark cannot survive every way a task fails: a batch of 2 GiB fails the JVM's allocation, and Spark's
handler then stops the application. So every read of a file runs under a FileGuard (its doc says what
each limit does; the options set them, and read_dumps / the UDTFs take a ReadLimits):

============== ======= ==============================================================================
option          default what it bounds
============== ======= ==============================================================================
maxBatchBytes   16m     a batch: cut before its rows pass it (rows weighed before Arrow holds them)
maxRowBytes     64m     a row: a larger one is an error row in its place (a batch so stays <= 64 MiB)
maxOutputBytes  256m    the bytes of rows one file may yield, plus maxOutputRatio per byte of the file
maxOutputRatio  64      (past them the read stops with an error row)
maxTaskMemory   1g      the Python worker's growth while it reads one file (0: unchecked); past it the
                        read stops with an error row
maxFrameSize    spec's  the largest frame of a dump or a capture's flows (at most 64m): a longer one is
                        a malformed span, as in iter_frames; raise it for DataProxy batches over 64 KiB
============== ======= ==============================================================================

Any exception out of a decoder, MemoryError and RecursionError included, stops that file's read the
same way: its error row (PERMISSIVE) names the offset it got to and the reason, DROPMALFORMED leaves it
out, FAILFAST fails the job with a DumpDecodeError naming the file. The other files' rows are unchanged
and the session goes on (tests/test_spark_hostile.py).

Cost of a sync point: the back window is walked cheaply. Only positions that the scanner's own
candidate filter accepts can start a frame (``frames.Starts``: a regex generated from each spec's
leading fields, searched in C over the rest), and only a frame whose structural size (no payload
layer) reaches past S is decoded fully. With the compiled backend each position is first put to the
generated C decoder (``native.frame_verdict``), and Python decodes only where C cannot tell. Forward,
the entry S steps through at most the rest of one frame the same way. A split that begins inside a
malformed run longer than the search bound has no sync point: the split where the run begins walks
through it, at read_dumps' speed.
"""
from __future__ import annotations

import heapq
import logging
import os
import re
from contextlib import contextmanager
from functools import cache
from typing import Container, Iterable, Iterator, NamedTuple

from inlong_proto.core import arrow, protocols
from inlong_proto.backends import compiled as native
from inlong_proto.capture.container import is_capture
from inlong_proto.core.block_walks import Chains
from inlong_proto.core.arrow import AUTO, auto_of, auto_schema, own_protocol, rows_batch
from inlong_proto.core.detect import HEAD_SIZE, candidates, classify
from inlong_proto.core.errors import DecodeError, DumpDecodeError, FrameTooLargeError, ValidationError
from inlong_proto.core.frames import (Frame, Scanner, check_max_frame_size, decode_at, decode_with, starts,
                                      stream_decoder)
from inlong_proto.core.sources import list_files, open_source, scan_windows, split_count

DEFAULT_SPLIT_SIZE = 128 << 20
RELEASE_EVERY = 16 << 20  # a split's scan hands back the pages it is done with this often
SYNC_SLACK = 64 << 10
BATCH_ROWS = 4096
# What reading one file may take (ReadLimits, the module doc's "ReadLimits"); each is an option of the data source.
BATCH_BYTES = 16 << 20  # a batch is cut before its rows pass this many bytes (maxBatchBytes)
MAX_ROW_BYTES = 64 << 20  # a row larger than this is an error row (maxRowBytes)
OUTPUT_BYTES = 256 << 20  # a file yields at most OUTPUT_BYTES + OUTPUT_RATIO x its size of rows
OUTPUT_RATIO = 64  # (maxOutputBytes, maxOutputRatio)
TASK_MEMORY = 1 << 30  # how far the Python worker may grow while it reads one file (maxTaskMemory; 0: unchecked)
BUFFER_CEILING = 1 << 30  # maxBatchBytes and maxRowBytes stay well below Arrow's and Netty's 2 GiB buffers
MEMORY_EVERY = 1024  # rows between two looks at the worker's memory (and one at every chunk fed)
CAPTURE_CHUNK = 1 << 20  # bytes of a capture file fed to its decoder at a time
STREAM_CHUNK = 64 << 10  # bytes of an HTTP dump fed to its decoder at a time (one feed's items are a list)
CAPTURE_WHOLE = 128 << 20  # a capture up to this size is read whole, for the compiled walker (memory: ~2x that)
ERROR = 0  # DumpWalker.step's result for a malformed position


# ---------------------------------------------------------------------------------------------------
# The sequential scan's walk, position by position: sync points


class DumpWalker:
    """next(p) of the sequential scan of one source, decoded exactly as iter_frames does it."""

    def __init__(self, src, protocol: str, direction: str | None, view, max_frame_size: int | None = None):
        self.proto = protocols.get(protocol)
        self.codecs = self.proto.candidates(direction)
        self.direction = direction
        self.limit = max_frame_size or self.proto.max_frame_size
        self.size = src.size
        self.src = src
        self.view = view  # the decoders get a memoryview, as in iter_frames
        self.starts = starts(protocol, direction, self.limit)  # the scanner's own candidate filter
        self.chains = Chains()  # the scanner's memo of TubeMQ block walks, over this view
        # The compiled verdicts (native.frame_verdict): decode_at's answer at a position and the frame
        # layout's alone (for reach), or ASK_PYTHON
        self.verdict = native.frame_verdict(self.proto.name, direction)
        self.structural = native.frame_verdict(self.proto.name, direction, structural=True)

    def step(self, p: int) -> int:
        """The size of the frame at p, or ERROR: the scan moves on by one byte (also when the file ends
        inside what p claims: frames.Scanner at the end of its input)."""
        self.src.ensure(p, p + self.limit + 1)  # all that decides the outcome at p (frames.decode_with)
        if self.verdict is not None:
            size = self.verdict(self.view, p, self.size, self.limit)
            if size != native.ASK_PYTHON:
                return ERROR if size == native.NO_FRAME else size
        try:
            frame, size = decode_at(self.proto, self.codecs, self.view, p, self.size, self.limit, 0,
                                     self.direction, self.chains)
        except DecodeError:
            return ERROR
        return ERROR if frame is None else size

    def reach(self, q: int) -> int | None:
        """An upper bound of next(q) from the structural decode alone (no payload layer), or None."""
        best = q + 1
        self.src.ensure(q, q + self.limit + 1)
        if self.structural is not None:
            size = self.structural(self.view, q, self.size, self.limit)
            if size != native.ASK_PYTHON:
                return q + 1 if size == native.NO_FRAME else q + size
        for codec in self.codecs:
            try:
                message, size = decode_with(codec, self.view, q, self.size, self.limit, self.chains)
            except DecodeError:
                continue
            if message is None:
                return None
            best = max(best, q + size)
        return best

    def candidate(self, p: int, stop: int) -> int:
        """The first position in [p, stop) that may start a frame (stop if none): every position skipped
        is certainly malformed, so the scan would step over it (frames.Starts, which the scan uses)."""
        if p >= stop:
            return stop
        self.src.ensure(p, min(self.size, stop + self.starts.size))
        return self.starts.next(self.view, p, stop, self.size)

    def sync(self, start: int, end: int) -> int | None:
        """The sync point of the split boundary `start` (see the module doc), below `end`, or None."""
        if start <= 0:
            return 0
        horizon = min(end, start + 2 * self.limit + SYNC_SLACK, self.size)
        entries = {start}
        q = self.candidate(max(0, start - self.limit), start)
        while q < start:
            bound = self.reach(q)
            if bound is None or bound > start:
                size = self.step(q)
                if q + size > start:
                    entries.add(q + size)
            q = self.candidate(q + 1, start)
        live = sorted(entries)  # a sorted list is a heap
        members = set(live)
        while live:
            p = heapq.heappop(live)
            members.discard(p)
            if p >= horizon:
                return None
            size = self.step(p)
            if size == ERROR:
                following = self.candidate(p + 1, live[0] if live else horizon)
            else:
                following = p + size
                if not live:  # the walks have merged, and this one decoded a frame
                    return following if following < horizon else None
            if following not in members:
                heapq.heappush(live, following)
                members.add(following)
        return None


# ---------------------------------------------------------------------------------------------------
# Splits of one file (sans-Spark)


def split_bounds(src, protocol: str, direction: str | None, split_size: int, index: int,
                 walker: DumpWalker | None = None, max_frame_size: int | None = None) -> tuple[int, int] | None:
    """[start, stop) of the positions split `index` owns, or None when it owns none."""
    if walker is None:
        with memoryview(src.buffer) as view:
            walker = DumpWalker(src, protocol, direction, view, max_frame_size)
            return split_bounds(src, protocol, direction, split_size, index, walker)
    size = src.size
    if index == 0:
        start = 0
    else:
        start = walker.sync(index * split_size, min(size, (index + 1) * split_size))
        if start is None:
            return None
    stop = size
    for j in range(index + 1, split_count(size, split_size)):
        point = walker.sync(j * split_size, min(size, (j + 1) * split_size))
        if point is not None:
            stop = point
            break
    return start, stop


def split_frames(src, protocol: str, direction: str | None, split_size: int, index: int,
                 max_frame_size: int | None = None) -> Iterator[Frame]:
    """The frames and error spans (PERMISSIVE) that split `index` of the source owns, in order.

    The scan is iter_frames' own (Scanner over the same absolutely indexed buffer, so offsets and error
    texts are identical), started at the split's sync point in the clean state and stopped at the next.
    """
    with _owned_range(src, protocol, direction, split_size, index, max_frame_size) as owned:
        if owned is None:
            return
        view, walker, start, stop = owned
        scanner = Scanner(protocols.get(protocol), direction, "PERMISSIVE", walker.limit)
        expected = released = start
        rows = scan_windows(src, view, scanner, start, stop)
        try:
            for frame in rows:
                if frame.offset != expected:
                    raise RuntimeError(f"split {index}: a row at offset {frame.offset}, expected {expected}")
                yield frame
                expected = frame.offset + frame.length
                if expected - released >= RELEASE_EVERY:
                    src.release(released, expected)
                    released = expected
                if expected >= stop:
                    break
        finally:
            rows.close()
        if expected != stop:
            raise RuntimeError(f"split {index}: rows end at {expected}, not at the sync point {stop}")


@contextmanager
def _owned_range(src, protocol: str, direction: str | None, split_size: int, index: int,
                 max_frame_size: int | None):
    """(view, walker, start, stop): the range of the source that split `index` owns, between its sync points,
    with the mapped view and the walker that found them; None when the split owns nothing (an empty source, a
    split inside another's frame). The view is released when the block ends."""
    if not src.size:
        yield None
        return
    view = memoryview(src.buffer)
    try:
        walker = DumpWalker(src, protocol, direction, view, max_frame_size)
        bounds = split_bounds(src, protocol, direction, split_size, index, walker)
        yield None if bounds is None else (view, walker, *bounds)
    finally:
        view.release()


def split_batches(src, path: str, protocol: str, direction: str | None, mode: str, split_size: int, index: int,
                  rows: int = BATCH_ROWS, batch_bytes: int = BATCH_BYTES,
                  max_frame_size: int | None = None) -> Iterator:
    """split_frames' rows after the mode, as frame_schema batches built by native.range_batches: the
    compiled scanners turn valid stretches into columns, the pure scanner reports the rest (the same rows)."""
    with _owned_range(src, protocol, direction, split_size, index, max_frame_size) as owned:
        if owned is None:
            return
        view, _, start, stop = owned
        expected = released = start
        try:
            for batch in native.range_batches(view, protocol, path, direction, mode, start, stop, source=src,
                                              max_frame_size=max_frame_size, batch_rows=rows,
                                              batch_bytes=batch_bytes):
                if not batch.num_rows:
                    continue
                first, last = batch.column("offset")[0].as_py(), batch.column("offset")[-1].as_py()
                if mode == "PERMISSIVE" and first != expected:  # the other modes leave error spans out
                    raise RuntimeError(f"split {index}: a row at offset {first}, expected {expected}")
                expected = last + batch.column("length")[-1].as_py()
                yield batch
                if expected - released >= RELEASE_EVERY:
                    src.release(released, expected)
                    released = expected
        except DecodeError as exc:  # FAILFAST
            raise DumpDecodeError.of(path, exc) from None
        if mode == "PERMISSIVE" and expected != stop:
            raise RuntimeError(f"split {index}: rows end at {expected}, not at the sync point {stop}")


def read_split_batches(src, path: str, protocol: str, direction: str | None, mode: str, split_size: int,
                       index: int, rows: int = BATCH_ROWS, limits: ReadLimits | None = None) -> Iterator:
    """The batches of split `index` of one dump (not a capture), in frame_schema(protocol) or, with
    protocol=auto, auto_schema: read_split's rows, under limits (FileGuard)."""
    guard = FileGuard(path, protocol, mode, limits or ReadLimits(), src.size, index * split_size,
                      min(src.size, (index + 1) * split_size))
    return guard.guarded(_split_batches(src, guard, direction, split_size, index, rows))


def _split_batches(src, guard: FileGuard, direction: str | None, split_size: int, index: int, rows: int):
    path, protocol, mode = guard.path, guard.schema, guard.mode
    named = detect_source(src) if protocol == AUTO else protocol
    guard.protocol = named
    if named is None or named in protocols.STREAM_PROTOCOLS:  # split 0 reads the whole file
        guard.end = src.size
        _, frames = read_split(src, path, protocol, direction, mode, split_size, index, guard)
        yield from guard.batches((frame, None) for frame in frames)
        return
    batches = split_batches(src, path, named, direction, mode, split_size, index, rows, guard.limits.batch_bytes,
                            guard.limits.frame_size)
    for batch in guard.charged(batches):
        yield auto_of(batch, named) if protocol == AUTO else batch


def undetected(size: int) -> Frame:
    """The error row of a file no protocol matches (protocol=auto)."""
    error = ValidationError(0, "", f"no known protocol recognised at the start of the file "
                                   f"(tried {', '.join(candidates())})")
    return Frame(None, 0, size, None, None, None, error, None)


def detect_source(src) -> str | None:
    return classify(src.head(HEAD_SIZE))


def read_split(src, path: str, protocol: str, direction: str | None, mode: str, split_size: int,
               index: int, guard: FileGuard | None = None) -> tuple[str | None, Iterator[Frame]]:
    """(protocol, rows) of split `index` of one file after the mode; protocol may be AUTO (detected).
    guard: the FileGuard whose memory an HTTP stream's decoder is checked against at every chunk, and whose
    limits give the largest frame (maxFrameSize; None: the spec's own)."""
    max_frame_size = guard.limits.frame_size if guard is not None else None
    if protocol == AUTO:
        protocol = detect_source(src)
        if protocol is None:
            frames = (frame for frame in ([undetected(src.size)] if index == 0 and src.size else []))
            return None, _apply_mode(frames, path, mode)
    if protocol in protocols.STREAM_PROTOCOLS:  # HTTP has no sync points: split 0 reads the file, in chunks
        return protocol, _apply_mode(stream_frames(src, protocol, direction, index, guard), path, mode)
    return protocol, _apply_mode(split_frames(src, protocol, direction, split_size, index, max_frame_size), path,
                                 mode)


def stream_frames(src, protocol: str, direction: str | None, index: int = 0,
                  guard: FileGuard | None = None) -> Iterator:
    """Every item of a stream protocol's dump (HTTP/1.1; HTTP/2 + gRPC), error spans included, for split 0
    (none for the others): the source fed to the protocol's stream decoder a chunk at a time, so memory
    stays bounded; before each chunk the guard, if any, checks the worker's memory (a decoder may hold
    much and yield nothing)."""
    if index:
        return
    decoder = stream_decoder(protocol, direction, mode="PERMISSIVE")
    for start in range(0, src.size, STREAM_CHUNK):
        if guard is not None:
            guard.fed(start)
        yield from decoder.feed(src.read(start, STREAM_CHUNK))
        src.release(0, start)
    yield from decoder.close()


def _apply_mode(frames: Iterator[Frame], path: str, mode: str) -> Iterator[Frame]:
    try:
        for frame in frames:
            if frame.error is not None:
                if mode == "FAILFAST":
                    raise DumpDecodeError.of(path, frame.error)
                if mode == "DROPMALFORMED":
                    continue
            yield frame
    finally:
        frames.close()  # releases the buffer it holds, so that the source can be closed


# ---------------------------------------------------------------------------------------------------
# Files, partitions, schema


def parse_size(value, option: str = "splitSize", zero: bool = False) -> int:
    """Bytes from an int or a string such as 65536, "64k", "128m", "1g" (binary units); zero: 0 allowed."""
    match = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", str(value).lower())
    if not match:
        raise ValueError(f"{option} must be a number of bytes (optionally k, m, g), not {value!r}")
    size = int(match[1]) << (10 * " kmgt".index(match[2] or " "))
    if size <= 0 and not zero:
        raise ValueError(f"{option} must be positive")
    return size


def plan(files: Iterable[tuple[str, int]], split_size: int,
         captures: Container[str] = ()) -> list[list[tuple[str, int, int]]]:
    """Tasks: lists of (path, size, split index). A large file gives one task per split; small files
    are packed together until a task holds split_size bytes. Empty files give no rows and no task.
    A capture file (pcap / pcapng) is never split: its task reads it whole."""
    tasks, packed, packed_bytes = [], [], 0
    for path, size in files:
        count = 1 if path in captures else split_count(size, split_size)
        if count == 1:
            packed.append((path, size, 0))
            packed_bytes += size
            if packed_bytes >= split_size:
                tasks.append(packed)
                packed, packed_bytes = [], 0
        else:
            tasks += [[(path, size, index)] for index in range(count)]
    if packed:
        tasks.append(packed)
    return tasks


# ---------------------------------------------------------------------------------------------------
# ReadLimits: what reading one file may take, whatever its decoder does


class ReadLimits(NamedTuple):
    """What reading one file (or one split of it) may take; the data source's options of the same names
    (LIMIT_OPTIONS) set them. See FileGuard for what crossing each does."""

    batch_bytes: int = BATCH_BYTES  # maxBatchBytes
    row_bytes: int = MAX_ROW_BYTES  # maxRowBytes
    output_bytes: int = OUTPUT_BYTES  # maxOutputBytes
    output_ratio: int = OUTPUT_RATIO  # maxOutputRatio
    task_memory: int = TASK_MEMORY  # maxTaskMemory
    frame_size: int | None = None  # maxFrameSize: the largest frame a dump or capture may hold (None: the spec's)

    @classmethod
    def of(cls, get) -> "ReadLimits":
        """From the options (get: a lowercase name -> value lookup); sizes take k/m/g suffixes."""
        values = {}
        for option, field in LIMIT_OPTIONS.items():
            value = get(option.lower())
            if value is None or str(value).strip() == "":
                continue
            if field == "frame_size":
                try:
                    values[field] = check_max_frame_size(parse_size(value, option))
                except ValueError as exc:
                    raise ValueError(f"{option}: {exc}") from None
                continue
            if field == "output_ratio":
                if not re.fullmatch(r"\s*\d+\s*", str(value)):
                    raise ValueError(f"{option} must be a whole number of bytes per byte of the file, not {value!r}")
                values[field] = int(value)
            else:
                values[field] = parse_size(value, option, zero=field == "task_memory")
        limits = cls(**values)
        for option in ("maxBatchBytes", "maxRowBytes"):
            if getattr(limits, LIMIT_OPTIONS[option]) > BUFFER_CEILING:
                raise ValueError(f"{option} may be at most {BUFFER_CEILING:,} bytes: Arrow and Netty allocate a "
                                 f"batch's buffers whole, and fail at 2 GiB")
        return limits


LIMIT_OPTIONS = {"maxBatchBytes": "batch_bytes", "maxRowBytes": "row_bytes", "maxOutputBytes": "output_bytes",
                 "maxOutputRatio": "output_ratio", "maxTaskMemory": "task_memory", "maxFrameSize": "frame_size"}


@cache
def fixed_bytes(protocol: str) -> int:
    """The Arrow bytes every row of the schema takes whatever its values: a slot in each leaf column (an
    offset in a variable-width one), null or not; arrow.row_bytes adds the values."""
    import pyarrow as pa

    def width(kind) -> int:
        if pa.types.is_struct(kind):
            return sum(width(field.type) for field in kind)
        try:
            return max(1, kind.bit_width // 8)
        except ValueError:  # variable width: an offset
            return 4

    return sum(width(field.type) for field in (auto_schema() if protocol == AUTO else arrow.frame_schema(protocol)))


class ReadLimitError(Exception):
    """A limit of ReadLimits crossed; the reason says which, with its value."""


def worker_memory() -> int | None:
    """This process's resident memory in bytes (Linux: /proc/self/statm), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class FileGuard:
    """One file's read (or one split's) under ReadLimits, and how far it got.

    Rows are built one at a time and weighed (arrow.row_bytes) before Arrow holds them: a batch is cut
    before it passes maxBatchBytes (so a batch holds at most max(maxBatchBytes, maxRowBytes)); a row over
    maxRowBytes becomes an error row in its place; the file's rows together may take maxOutputBytes +
    maxOutputRatio x its size; the Python worker may grow by maxTaskMemory while it reads the file (looked
    at before each chunk a stream decoder is fed and every MEMORY_EVERY rows: a decoder may hold much and
    yield nothing). Crossing the last two, or any exception out of a decoder (MemoryError and
    RecursionError included; not OSError, which fails the task for Spark to retry), stops the read: the
    rows before stay, then one error row runs from where the read got to (``position``: a file offset)
    to the end of the file, or of the split; its corrupt-record column is null, as for a file no
    protocol recognises. DROPMALFORMED leaves it out; FAILFAST raises a DumpDecodeError naming the file.
    contain=False lets failures through (a reader whose decoder serves other files too).
    """

    def __init__(self, path: str, protocol: str, mode: str, limits: ReadLimits, size: int, start: int = 0,
                 end: int | None = None, contain: bool = True):
        self.path, self.schema, self.mode, self.limits, self.contain = path, protocol, mode, limits, contain
        self.protocol = None if protocol == AUTO else protocol  # the error row's protocol (auto: once detected)
        self.position, self.end = start, size if end is None else end
        self.size, self.allowed = size, limits.output_bytes + limits.output_ratio * size
        self.left, self.rows = self.allowed, 0
        self.base = worker_memory() if limits.task_memory else None
        self.stopped = False

    def memory(self) -> None:
        """ReadLimitError when the worker has grown by more than maxTaskMemory since the read began."""
        if self.base is None:
            return
        grown = (worker_memory() or self.base) - self.base
        if grown > self.limits.task_memory:
            raise ReadLimitError(f"reading it grew the Python worker by {grown:,} bytes, over maxTaskMemory "
                                 f"({self.limits.task_memory:,})")

    def fed(self, position: int) -> None:
        """A decoder is about to be fed the file's bytes from position on."""
        self.position = max(self.position, position)
        self.memory()

    def _charge(self, size: int, rows: int = 1) -> None:
        self.left -= size
        if self.left < 0:
            raise ReadLimitError(f"its rows passed {self.allowed:,} bytes: maxOutputBytes "
                                 f"({self.limits.output_bytes:,}) + maxOutputRatio ({self.limits.output_ratio}) "
                                 f"x its {self.size:,} bytes")
        before, self.rows = self.rows, self.rows + rows
        if self.rows // MEMORY_EVERY != before // MEMORY_EVERY:
            self.memory()

    def rows_of(self, items: Iterable) -> Iterator[tuple[str | None, tuple, int]]:
        """(own protocol, arrow.frame_tuple row, its bytes) of (Frame, capture value or None) items: an
        oversized row replaced by its error row, a failure ending them with one (the class doc)."""
        schema, cap, fixed = self.schema, self.limits.row_bytes, fixed_bytes(self.schema)
        stop = None
        try:
            for frame, capture in items:
                own = own_protocol(frame) if schema == AUTO else schema
                row = arrow.frame_tuple(self.path, frame, own, capture)
                size = arrow.row_bytes(row) + fixed
                if size > cap:
                    error = FrameTooLargeError(frame.offset, "", f"its row would take {size:,} bytes, over "
                                                                 f"maxRowBytes ({cap:,})")
                    if self.mode == "FAILFAST":
                        raise DumpDecodeError.of(self.path, error)
                    if self.mode == "DROPMALFORMED":
                        continue
                    frame = Frame(frame.protocol, frame.offset, frame.length, None, None, frame.direction, error)
                    row = arrow.frame_tuple(self.path, frame, own, capture)
                    size = arrow.row_bytes(row) + fixed
                self._charge(size)
                if capture is None:  # a dump's frame (a capture's offsets are in its TCP streams: fed() says)
                    self.position = max(self.position, frame.offset + frame.length)
                yield own, row, size
        except Exception as exc:  # noqa: BLE001 - any decoder failure is this file's, not the session's
            if not self.contain:
                raise
            stop = self.failed(exc)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()  # a scan's buffer views are released, so that the source can be closed
        if stop is not None:  # yielded outside the handler: the traceback (and the decoder's state) is gone
            yield stop

    def batches(self, items: Iterable, rows: int = BATCH_ROWS) -> Iterator:
        """rows_of's rows as batches of at most `rows` rows, cut before they pass maxBatchBytes."""
        chunk: list = []
        held = 0
        for own, row, size in self.rows_of(items):
            if chunk and (len(chunk) >= rows or held + size > self.limits.batch_bytes):
                yield rows_batch(self.schema, chunk)
                chunk, held = [], 0
            chunk.append((own, row))
            held += size
        if chunk:
            yield rows_batch(self.schema, chunk)

    def charged(self, batches: Iterable, dump: bool = True) -> Iterator:
        """Batches built elsewhere (the compiled scanners) charged to the limits, cut to maxBatchBytes by
        slicing (no copy). dump: their offsets are file offsets (a capture's are not)."""
        for batch in batches:
            if not batch.num_rows:
                continue
            self._charge(batch.nbytes, batch.num_rows)
            self.memory()
            if dump:
                self.position = max(self.position, batch.column("offset")[-1].as_py()
                                    + batch.column("length")[-1].as_py())
            pieces = -(-batch.nbytes // self.limits.batch_bytes)
            step = -(-batch.num_rows // pieces)
            for start in range(0, batch.num_rows, step):
                yield batch.slice(start, step) if pieces > 1 else batch

    def guarded(self, batches: Iterable) -> Iterator:
        """The batches, then the error batch of a failure (the class doc)."""
        stop = None
        try:
            yield from batches
        except Exception as exc:  # noqa: BLE001 - as in rows_of
            stop = self.failed(exc)
        if stop is not None:
            yield rows_batch(self.schema, [stop[:2]])

    def failed(self, exc: Exception) -> tuple | None:
        """The error row (own protocol, row, bytes) of a read that stopped with exc: None under
        DROPMALFORMED or once a row has said so; FAILFAST raises a DumpDecodeError naming the file."""
        if isinstance(exc, OSError):  # the storage, not the bytes: the task fails, and Spark retries it
            raise exc
        if isinstance(exc, DecodeError) and self.mode == "FAILFAST":
            if isinstance(exc, DumpDecodeError):
                raise exc
            raise DumpDecodeError.of(self.path, exc) from None
        if isinstance(exc, ReadLimitError):
            reason, kind = str(exc), FrameTooLargeError.kind
        else:
            text = " ".join(str(exc).split())[:300]
            reason, kind = f"{type(exc).__name__} while reading it{': ' + text if text else ''}", DecodeError.kind
        reason += "; the rest is not read"
        if self.mode == "FAILFAST":
            raise DumpDecodeError(self.path, self.position, "", reason, kind) from exc
        if self.stopped:
            return None
        self.stopped = True
        logging.getLogger(__name__).warning("%s: offset %d: %s", self.path, self.position, reason,
                                            exc_info=not isinstance(exc, (ReadLimitError, MemoryError)))
        if self.mode == "DROPMALFORMED":
            return None
        error = (FrameTooLargeError if kind == FrameTooLargeError.kind else DecodeError)(self.position, "", reason)
        frame = Frame(self.protocol, self.position, max(0, self.end - self.position), None, None, None, error)
        own = own_protocol(frame) if self.schema == AUTO else self.schema
        return own, arrow.frame_tuple(self.path, frame, own), 0


# ---------------------------------------------------------------------------------------------------
# Capture files (pcap / pcapng): one task reads the whole file, TCP reassembly being sequential


def is_capture_file(path: str, fs_options=None) -> bool:
    with open_source(path, fs_options) as src:
        return is_capture(src.head(4))


def piece_batches(src, path: str, protocol: str, direction: str | None, mode: str, split_size: int, index: int,
                  rows: int = BATCH_ROWS, limits: ReadLimits | None = None,
                  carried: tuple[str, ...] | None = None) -> Iterator:
    """The batches of split `index` of one file under limits: a capture's (read whole by split 0), or a
    dump's split's (read_split_batches). With protocol auto, in auto_schema(carried) (arrow.carry)."""
    if is_capture(src.head(4)):
        batches = capture_batches(src, path, protocol, mode, rows, limits)
    else:
        batches = read_split_batches(src, path, protocol, direction, mode, split_size, index, rows, limits)
    return batches if protocol != AUTO else carried_batches(batches, path, carried, mode)


def carried_batches(batches: Iterable, path: str, carried: tuple[str, ...] | None, mode: str) -> Iterator:
    """auto_schema batches as the table of the carried protocols holds them (arrow.carry); FAILFAST's error
    names the file."""
    for batch in batches:
        batch = arrow.carry(batch, carried, mode)
        failure = arrow.first_error(batch) if mode == "FAILFAST" else None
        if failure is not None:
            del batch  # neither the batch nor the scan may hold the file's map once the error leaves
            batches.close()
            raise DumpDecodeError.of(path, failure)
        yield batch


def found_protocols(paths, fs_options=None, date_column: str | None = None) -> tuple[str, ...]:
    """The protocols an unpinned protocol=auto table carries (the module doc's "Which protocols auto carries"):
    those detect_source finds at the start of the dumps at paths, and the one whose struct date_column (the
    dateColumn option) starts in; every protocol when a capture is among them or no dump is recognised. Each
    file's head is read once (HEAD_SIZE bytes)."""
    found = set()
    for path, size in list_files(paths, fs_options):
        if not size:
            continue
        with open_source(path, fs_options) as src:
            if is_capture(src.head(4)):
                return arrow.carried_protocols()
            name = detect_source(src)
        if name is not None:
            found.add(name)
    if not found:
        return arrow.carried_protocols()
    dated = date_column.split(".")[0] if date_column else None
    return arrow.carried_protocols(found | {name for name in protocols.every_name()
                                            if protocols.column_name(name) == dated})


def capture_batches(src, path: str, protocol: str, mode: str, rows: int = BATCH_ROWS, limits: ReadLimits | None = None):
    """The batches of one capture file: its packets fed to a CaptureDecoder a chunk at a time, or, for a
    capture of at most CAPTURE_WHOLE bytes and a framed protocol, the compiled walker's over the whole
    file; under limits (FileGuard).

    With a protocol every flow is parsed as that protocol; with auto each flow is classified (see
    inlong_proto.capture). The direction option does not apply: a frame's TCP direction decides.
    """
    guard = FileGuard(path, protocol, mode, limits or ReadLimits(), src.size)
    return guard.guarded(_capture_batches(src, guard, rows))


def _capture_batches(src, guard: FileGuard, rows: int):
    from inlong_proto.capture import CaptureDecoder
    from inlong_proto.backends import compiled_capture as native_path

    path, protocol, mode = guard.path, guard.schema, guard.mode
    frame_size = guard.limits.frame_size
    if (protocol != AUTO and protocol not in protocols.STREAM_PROTOCOLS and src.size <= CAPTURE_WHOLE
            and frame_size is None and native.backend() == "native"):  # the compiled walker takes the whole file
        yield from guard.charged(native_path.capture_batches(src.read(0, src.size), protocol, mode, path,
                                                             batch_rows=rows), dump=False)
        return
    if protocol == AUTO and src.size <= CAPTURE_WHOLE and frame_size is None and native.backend() == "native":
        # the walker classifies each flow as CaptureDecoder("auto") does; None: a flow it leaves to the pure path
        batches = native_path.compiled_batches(src.read(0, src.size), AUTO, mode, path, batch_rows=rows)
        if batches is not None:
            yield from guard.charged(batches, dump=False)
            return
    decoder = CaptureDecoder(protocol if protocol != AUTO else "auto", mode, keep_flows=False,
                             max_frame_size=frame_size)

    def items():
        for start in range(0, src.size, CAPTURE_CHUNK):
            guard.fed(start)  # a copy: the decoder may keep slices of it, which must not pin the map
            yield from decoder.feed(src.read(start, CAPTURE_CHUNK))
            src.release(0, start)
        yield from decoder.close()

    yield from guard.batches(((item.frame, arrow.capture_value(item)) for item in items()), rows)



"""A dump of one framed protocol straight into Arrow record batches, through the compiled scanners.

`make generate` writes C scanners from the .ksy specs (tools/ksygen/cgen.py, generated/native/); setup.py
builds them into ``inlong_proto._native`` when a C compiler is present. A scanner decodes whole valid
frames into column buffers (values, validity bitmaps, string offsets) without a Python object per frame,
and stops at the first position where it cannot decode one. That stretch goes to the pure-Python scanner
(frames._Scanner), which reports it and resynchronises exactly as iter_frames does; the C scan resumes
after the next valid frame Python finds. So error rows are the pure path's by construction, and each
batch equals ``arrow.frames_to_batch(path, iter_frames(data, ...), protocol)``.

``backend()`` says which backend runs: "native" when the extension is built and has a scanner, "python"
otherwise or when ``INLONG_PROTO_BACKEND=python``; ``INLONG_PROTO_BACKEND=native`` insists on the compiled
one (RuntimeError if it is not built). pyarrow is imported inside the functions, as in arrow.py.
"""
from __future__ import annotations

import json
import os
from functools import cache
from typing import Iterator

from . import arrow, protocols
from .frames import _check_direction, _check_mode, _Scanner, iter_frames
from .sources import scan_windows

ENV = "INLONG_PROTO_BACKEND"
BATCH_ROWS = 65536  # rows per batch: bounds the column buffers and keeps string offsets in int32
BATCH_BYTES = 16 << 20  # frame bytes per batch, about: big frames, small batches
RESUME_AFTER = 8  # valid frames in a row after which a malformed stretch hands back to the C scan
_WANT = {None: 0, "request": 1, "response": 2}


@cache
def _extension():
    """The compiled module and its scanners' description, or (None, {}) when it is not built."""
    try:
        from . import _native
    except ImportError:
        return None, {}
    return _native, json.loads(_native.DESCRIBE)


def backend() -> str:
    """"native" if the compiled scanners are built and not turned off by INLONG_PROTO_BACKEND=python,
    else "python"."""
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "native", "python"):
        raise ValueError(f"{ENV} must be native or python, not {wanted!r}")
    if wanted == "python":
        return "python"
    built = _extension()[0] is not None
    if wanted == "native" and not built:
        raise RuntimeError(f"{ENV}=native, but the compiled backend (inlong_proto._native) is not built: "
                           f"install with a C compiler present")
    return "native" if built else "python"


def scanner(protocol: str, direction: str | None = None):
    """(compiled scan function, spec name) for bytes of `protocol` sent in `direction`, or None (pure Python
    then): one exists when exactly one frame layout applies and the generator could compile it."""
    if backend() != "native":
        return None
    module, described = _extension()
    candidates = protocols.get(protocol).candidates(direction)
    if len(candidates) != 1:
        return None  # several layouts: the Python scanner decides between them
    spec = candidates[0].module.__name__.rsplit(".", 1)[1]
    return (getattr(module, f"scan_{spec}"), spec) if spec in described else None


def iter_batches(data, protocol: str, path: str = "", direction: str | None = None, mode: str = "PERMISSIVE", *,
                 max_frame_size: int | None = None, batch_rows: int = BATCH_ROWS) -> Iterator:
    """pyarrow.RecordBatches of arrow.frame_schema(protocol) for a whole dump (bytes, bytearray, memoryview,
    mmap): the rows of iter_frames(data, protocol, direction, mode), in order, at most batch_rows a batch."""
    _check_direction(direction)
    mode = _check_mode(mode)
    name = protocols.checked(protocol)
    found = None if name in protocols.STREAM_PROTOCOLS else scanner(name, direction)
    if found is None:  # HTTP streams, or no compiled scanner: the pure rows, batched
        yield from _python_batches(path, iter_frames(data, name, direction, mode, max_frame_size=max_frame_size),
                                   name, batch_rows)
        return
    with memoryview(data).cast("B") as view:
        yield from range_batches(view, name, path, direction, mode, 0, len(view), max_frame_size=max_frame_size,
                                 batch_rows=batch_rows)


def range_batches(view, protocol: str, path: str, direction: str | None, mode: str, start: int, stop: int, *,
                  source=None, max_frame_size: int | None = None, batch_rows: int = BATCH_ROWS,
                  batch_bytes: int = BATCH_BYTES) -> Iterator:
    """The batches of the rows at positions [start, stop) of the sequential scan of view: stop must be a
    position that scan passes through with no error span open (a sync point, or the end of the input).

    source: where view's bytes come from when they are not all there yet (sources.*Source: ensure(lo, hi)
    before bytes are read, ``ahead`` for a remote object read by ranges), so that a split of a remote
    object is scanned window by window; None when view holds them all. A batch holds at most batch_rows
    rows and about batch_bytes of frame bytes (the compiled scan sees a window of that many bytes).
    """
    proto = protocols.get(protocol)
    limit = max_frame_size or proto.max_frame_size
    found = scanner(proto.name, direction)
    size = len(view)
    source = source or _Whole(size)
    pos, pending, held = start, [], 0
    while pos < stop:
        hi = min(size, pos + batch_bytes + limit + 1)
        if found is not None:
            source.ensure(pos, hi)
            scan, spec = found
            reached, rows, columns = scan(view if hi == size else view[:hi], pos, limit, _WANT[direction],
                                          batch_rows, path)
            if rows:
                if pending:
                    yield arrow.frames_to_batch(path, pending, proto.name)
                    pending, held = [], 0
                batch = _batch(proto.name, spec, rows, columns)
                if reached > stop:  # the scan ran past the range: its rows from stop on are another's
                    batch = batch.slice(0, _rows_before(batch, stop))
                    reached = stop
                yield batch
            pos = reached
            if pos >= stop or rows == batch_rows or (hi < size and pos + limit + 1 > hi):
                continue  # the range is done, the batch is full, or the window ended: scan on in C
        # No whole valid frame at pos (or no compiled scanner): the pure scanner reports the stretch and
        # finds the next frames. The C scan resumes after RESUME_AFTER valid frames in a row (any frame's
        # end is a safe place, since the scanner holds no state there); on broken input Python goes on.
        resume = stop
        clean = 0
        rows = scan_windows(source, view, _Scanner(proto, direction, mode, limit), pos, stop)
        try:
            for frame in rows:
                if frame.offset >= stop:  # past the range (a dropped error span ended at stop)
                    resume = stop
                    break
                pending.append(frame)
                held += frame.length
                resume = frame.offset + frame.length
                clean = clean + 1 if frame.error is None else 0
                if (resume >= stop or (found is not None and clean >= RESUME_AFTER)
                        or len(pending) >= batch_rows or held >= batch_bytes):
                    break
            else:
                resume = stop
        finally:
            rows.close()
        if len(pending) >= batch_rows or held >= batch_bytes:
            yield arrow.frames_to_batch(path, pending, proto.name)
            pending, held = [], 0
        pos = resume
    if pending:
        yield arrow.frames_to_batch(path, pending, proto.name)


class _Whole:
    """The source of a view that holds all its bytes (scan_windows then scans it in one window)."""

    ahead = None

    def __init__(self, size: int):
        self.size = size

    def ensure(self, start: int, stop: int) -> None:
        pass


def _rows_before(batch, stop: int) -> int:
    """How many of a compiled batch's rows start before stop (its offsets rise)."""
    import bisect

    return bisect.bisect_left(batch.column("offset").to_numpy(), stop)


def scan_batch(data, protocol: str, path: str = "", direction: str | None = None, mode: str = "PERMISSIVE", *,
               max_frame_size: int | None = None):
    """One pyarrow.RecordBatch of the whole dump; equals arrow.frames_to_batch(path, iter_frames(...), protocol)."""
    import pyarrow as pa

    schema = arrow.frame_schema(protocols.get(protocol).name)
    batches = list(iter_batches(data, protocol, path, direction, mode, max_frame_size=max_frame_size))
    if not batches:
        return arrow.frames_to_batch(path, [], protocols.get(protocol).name)
    if len(batches) == 1:
        return batches[0]
    table = pa.Table.from_batches(batches, schema).combine_chunks()
    return pa.RecordBatch.from_arrays([column.chunk(0) if column.num_chunks else pa.array([], column.type)
                                       for column in table.columns], schema=schema)


def _python_batches(path: str, frames, protocol: str, batch_rows: int):
    chunk = []
    for frame in frames:
        chunk.append(frame)
        if len(chunk) == batch_rows:
            yield arrow.frames_to_batch(path, chunk, protocol)
            chunk = []
    if chunk:
        yield arrow.frames_to_batch(path, chunk, protocol)


def _batch(protocol: str, spec: str, rows: int, columns: list):
    """The RecordBatch of one compiled scan: its columns (meta first, then depth-first) wrapped with
    from_buffers; the columns it does not produce (error, corrupt record, capture, another layout's) null."""
    import pyarrow as pa

    schema = arrow.frame_schema(protocol)
    described = _extension()[1]
    leaves = iter(columns)
    own = {name: (kind, children) for name, kind, children in described[spec]["columns"]}

    def build(field_type, kind: str, children: list):
        buffers = next(leaves)
        validity = None if buffers[0] is None else pa.py_buffer(buffers[0])
        if kind == "struct":
            if [c[0] for c in children] != [f.name for f in field_type]:
                raise RuntimeError(f"compiled scanner's struct {children} does not match {field_type}")
            return pa.Array.from_buffers(field_type, rows, [validity], children=[
                build(field_type.field(i).type, c[1], c[2]) for i, c in enumerate(children)])
        return pa.Array.from_buffers(field_type, rows, [validity] + [pa.py_buffer(b) for b in buffers[1:]])

    arrays = {name: build(schema.field(name).type, "meta", []) for name in ("path", "offset", "length", "protocol",
                                                                             "direction", "message_type")}
    for name, (kind, children) in own.items():
        arrays[name] = build(schema.field(name).type, kind, children)
    return pa.RecordBatch.from_arrays([arrays[f.name] if f.name in arrays else pa.nulls(rows, f.type)
                                       for f in schema], schema=schema)


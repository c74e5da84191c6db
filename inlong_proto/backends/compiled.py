"""The compiled backend: the one extension, its one switch, and a dump of one framed protocol straight into Arrow
record batches through its scanners.

The extension. `make generate` writes C from the specs (tools/ksygen/cgen*.py, generated/native/); setup.py
builds it into ONE extension, ``inlong_proto._compiled``, when a C compiler is present. Each part of it is a
submodule (``part(name)``, PARTS): ``scan`` the frame scanners (here), ``encode`` the encoders
(compiled_encode), ``capture`` the capture walker (compiled_capture), ``tubemq_layer`` and
``eventmesh_layer`` the payload layers (LAYERS, below).

Where it is loaded from (``extension()``, ``origin()`` says which file or why none):

1. the package's own folder (``inlong_proto/_compiled*.so``, or a folder put first on inlong_proto.__path__,
   as ``make ubsan`` does): loaded as it is;
2. else, an installed one: a job or script started from a clone's root imports the SOURCE tree (the current
   folder is first on sys.path), which has no extension unless built in place (``make native``), while
   ``pip install .`` put one in site-packages. So another sys.path entry's ``inlong_proto/_compiled*.so`` is
   taken when it was built from the very C this source tree holds: the extension carries SOURCE_DIGEST, the
   SHA-256 of the generated/native files setup.py built it from (``source_digest``), read from the file
   before it is loaded and compared with this tree's generated/native; where the entry holds the
   distribution's metadata, its version must be this package's too. A mismatch is refused (``origin()``
   names each file refused and why), and it is loaded with importlib.util.spec_from_file_location and
   module_from_spec;
3. else none: the pure-Python codecs run.

``backend()`` is the one switch every compiled user asks (scanners, encoders, capture walker, payload
layers, the Spark readers): "native" when the extension is loaded, "python" otherwise or when
``INLONG_PROTO_BACKEND=python``; ``INLONG_PROTO_BACKEND=native`` insists on the compiled one (RuntimeError,
naming why it is not there, if it cannot be loaded).

The scanners. A protocol's scanner tries its frame layouts as frames.decode_at does (DataProxy's request and
response, either direction or one), decodes whole valid frames into column buffers (values, validity and
boolean bitmaps, string and binary offsets) without a Python object per frame, and stops at the first
position where it cannot decode one. That stretch goes to the pure-Python scanner (frames.Scanner), which
reports it and resynchronises exactly as iter_frames does; the C scan resumes after RESUME_AFTER valid frames
in a row. So error rows are the pure path's by construction, and each batch equals
``arrow.frames_to_batch(path, iter_frames(data, ...), protocol)``. A protocol with a payload layer
(EventMesh, TubeMQ) has it answered for each frame the scan accepts by its compiled layer (LAYERS), or in
Python where that is unsure (_payload). ``range_batches`` does the same for a range of a view read window by
window (the Spark readers' splits).

``frame_verdict`` gives the same compiled decode one position at a time (a size, "no frame" or "ask
Python"), for readers that walk positions themselves (spark.source's sync-point walker).
pyarrow is imported inside the functions, as in arrow.py.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Iterator

from inlong_proto.core import __version__, arrow, protocols
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import Scanner, build_frame, iter_frames
from inlong_proto.core.stream import check_direction, check_mode
from inlong_proto.core.sources import scan_windows

ENV = "INLONG_PROTO_BACKEND"
BATCH_ROWS = 65536  # rows per batch: bounds the column buffers and keeps string offsets in int32
BATCH_BYTES = 16 << 20  # frame bytes per batch, about: big frames, small batches
RESUME_AFTER = 8  # valid frames in a row after which a malformed stretch hands back to the C scan
# scan_batch scans up to this much in one go (no batches to join after); the column offsets stay in int32
WHOLE_ROWS, WHOLE_BYTES = 1 << 22, 1 << 30
_WANT = {None: 0, "request": 1, "response": 2}
NO_FRAME, ASK_PYTHON = -1, -2  # frame_verdict's answers besides a size

EXTENSION = "_compiled"  # inlong_proto._compiled
# its parts, each a submodule: scanners, encoders, capture walker, the TubeMQ and EventMesh TCP payload layers
PARTS = ("scan", "encode", "capture", "tubemq_layer", "eventmesh_layer")
_MARKER = b"INLONG_PROTO_SOURCE_DIGEST="  # generated/native/compiled.c: the digest, readable without a load
PACKAGE = Path(__file__).resolve().parent.parent  # the inlong_proto folder this module is in
_found: list = []  # [(module or None, origin or why not)], once
_finding = threading.Lock()


def source_digest(folder) -> str:
    """SHA-256 over the .c and .h files of folder (generated/native), by name, in name order: what setup.py
    embeds in the extension as SOURCE_DIGEST (its source_digest is this function, kept in step by
    tests/test_native_backend.py)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).iterdir(), key=lambda p: p.name):
        if path.suffix in (".c", ".h"):
            data = path.read_bytes()
            digest.update(b"%s\0%d\0" % (path.name.encode(), len(data)) + data)
    return digest.hexdigest()


def built_digest(path) -> str | None:
    """The SOURCE_DIGEST a built extension file carries, read from its bytes (not loaded), or None."""
    data = Path(path).read_bytes()
    at = data.find(_MARKER)
    if at < 0:
        return None
    end = data.find(b";", at)
    return data[at + len(_MARKER):end].decode("ascii", "replace") if end > 0 else None


def extension():
    """The compiled extension (inlong_proto._compiled), or None: from the package's own folder, else an
    installed one built from this source tree's generated C (the module doc's rule). Looked for once."""
    if not _found:
        with _finding:
            if not _found:
                module, where = _locate()
                if module is not None and hasattr(os, "register_at_fork"):
                    # the scanners' pool of kept column buffers has a lock (scan_runtime.h)
                    os.register_at_fork(after_in_child=module.scan.forget_pool)
                _found.append((module, where))
    return _found[0][0]


def origin() -> str:
    """Where the compiled extension was loaded from (its file), or why none was: the reason
    INLONG_PROTO_BACKEND=native gives, and the Spark readers' warnings."""
    extension()
    return _found[0][1]


def part(name: str):
    """A part of the compiled extension (PARTS: its submodule), or None when the extension is not loaded."""
    if name not in PARTS:
        raise ValueError(f"the compiled extension has no part {name!r}; its parts: {', '.join(PARTS)}")
    module = extension()
    return getattr(module, name) if module is not None else None


def _locate():
    name = f"{__package__.split('.')[0]}.{EXTENSION}"
    try:
        spec = importlib.util.find_spec(name)  # the package's own folder(s): inlong_proto.__path__
    except ImportError:
        spec = None
    if spec is not None:
        try:
            return importlib.import_module(name), spec.origin
        except ImportError as exc:
            return None, f"{spec.origin} does not load: {exc}"
    generated = PACKAGE / "generated" / "native"
    if not (generated / "compiled.c").is_file():
        return None, f"{PACKAGE} has no compiled extension, and no generated C (generated/native) to match " \
                     "an installed one against"
    wanted = source_digest(generated)
    refused = []
    for candidate, version in _installed():
        digest = built_digest(candidate)
        if version is not None and version != __version__:
            refused.append(f"{candidate}: version {version}, not {__version__}")
        elif digest != wanted:
            refused.append(f"{candidate}: built from other generated C (digest {str(digest)[:12]}, this source "
                           f"tree's {wanted[:12]})")
        else:
            spec = importlib.util.spec_from_file_location(name, candidate)
            try:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except ImportError as exc:
                refused.append(f"{candidate}: does not load: {exc}")
                continue
            sys.modules[name] = module
            return module, str(candidate)
    where = f"{PACKAGE} has no compiled extension (in a clone, make native builds it in place)"
    if not refused:
        return None, f"{where}, and no other sys.path entry holds one"
    return None, f"{where}, and none installed matches: " + "; ".join(refused)


def _installed():
    """(file, version or None) of each inlong_proto/_compiled*.so on sys.path outside this package's folder;
    version: the inlong-proto distribution's, where that entry holds its metadata."""
    seen = {PACKAGE}
    for entry in sys.path:
        try:
            folder = (Path(entry or os.curdir) / __package__.split(".")[0]).resolve()
        except OSError:
            continue
        if folder in seen or not folder.is_dir():
            continue
        seen.add(folder)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            candidate = folder / f"{EXTENSION}{suffix}"
            if candidate.is_file():
                yield candidate, _version(folder.parent)
                break


def _version(entry: Path) -> str | None:
    import importlib.metadata

    for dist in importlib.metadata.distributions(path=[str(entry)]):
        if (dist.metadata["Name"] or "").lower().replace("_", "-") == "inlong-proto":
            return dist.version
    return None


@cache
def _scanners():
    """The scanners' part and its description of them, or (None, {}) when the extension is not loaded."""
    scan = part("scan")
    return (scan, json.loads(scan.DESCRIBE)) if scan is not None else (None, {})


_BACKEND: dict[str, str] = {}  # INLONG_PROTO_BACKEND's value -> the answer (it is asked once per frame encoded)


def backend() -> str:
    """"native" if the compiled extension is loaded (extension()) and not turned off by
    INLONG_PROTO_BACKEND=python, else "python". INLONG_PROTO_BACKEND=native insists: RuntimeError, with the
    reason, when the extension cannot be loaded."""
    wanted = os.environ.get(ENV, "")
    answer = _BACKEND.get(wanted)
    if answer is None:
        answer = _BACKEND[wanted] = _choose(wanted.strip().lower())
    return answer


def _choose(wanted: str) -> str:
    if wanted not in ("", "native", "python"):
        raise ValueError(f"{ENV} must be native or python, not {wanted!r}")
    if wanted == "python":
        return "python"
    if extension() is None:
        if wanted == "native":
            raise RuntimeError(f"{ENV}=native, but the compiled backend (inlong_proto.{EXTENSION}) is not "
                               f"there: {origin()}; install with a C compiler present")
        return "python"
    return "native"


def _compiled(proto: protocols.Protocol) -> dict | None:
    """The compiled scanner's description of a protocol, if it has one for the registry's very layouts
    (in the same order, which frames.decode_at tries)."""
    if backend() != "native":
        return None
    described = _scanners()[1].get(proto.name)
    if described is None:
        return None
    layouts = [codec.module.__name__.rsplit(".", 1)[1] for codec in proto.codecs]
    return described if layouts == described["layouts"] else None


def scanner(protocol: str, direction: str | None = None):
    """(compiled scan function, protocol name) for bytes of `protocol` sent in `direction`, or None (pure
    Python then): one exists when the generator could compile every frame layout of the protocol. A
    protocol with a payload layer (protocols.EXTENSIONS) takes it only with one layout: iter_batches runs
    the layer on each frame the scan accepts (_payload)."""
    proto = protocols.get(protocol)
    described = _compiled(proto)
    if described is None or proto.name in protocols.EXTENSIONS and len(proto.codecs) != 1:
        return None
    return getattr(_scanners()[0], f"scan_{_c_name(proto.name)}"), proto.name


def exact(protocol: str) -> bool:
    """Whether the compiled verdicts of `protocol` are final (DESCRIBE "exact" for every layout): they
    never answer "ask Python", and no payload layer can still reject a frame they accept."""
    proto = protocols.get(protocol)
    described = _compiled(proto)
    return described is not None and all(described["exact"].values()) and proto.name not in protocols.EXTENSIONS


def frame_verdict(protocol: str, direction: str | None = None, *, structural: bool = False):
    """verdict(view, pos, end, limit) -> size | NO_FRAME | ASK_PYTHON for bytes of `protocol` sent in
    `direction`, or None when no compiled scanner applies.

    It answers what frames.decode_at(protocol, candidates(direction), view, pos, end, limit, ...) would,
    looking at the same window [pos, min(end, pos + limit + 1)): a size when that decodes a frame of that
    size; NO_FRAME (-1) when it raises DecodeError or returns no frame (needs more bytes than the window
    holds); ASK_PYTHON (-2) when the compiled code cannot tell (a construct it does not model at that
    position, or a frame a payload layer still has to accept: sizes of such protocols are always -2).
    Several layouts (direction None for DataProxy) are tried in the registry's order as decode_at does.
    view: anything with the buffer protocol (bytes, bytearray, memoryview, mmap).

    structural=True answers for the frame layout alone, as frames.decode_with does (no payload layer:
    a size where the layout decodes): what the splitting reader's sync search needs to bound a frame.
    """
    proto = protocols.get(protocol)
    check_direction(direction)
    described = _compiled(proto)
    if described is None:
        return None
    frame = getattr(_scanners()[0], f"frame_{_c_name(proto.name)}")
    want = _WANT[direction]
    if proto.name not in protocols.EXTENSIONS or (structural and len(proto.candidates(direction)) == 1):
        def verdict(view, pos: int, end: int, limit: int) -> int:
            return frame(view, pos, end, limit, want)
    else:
        def verdict(view, pos: int, end: int, limit: int) -> int:
            size = frame(view, pos, end, limit, want)
            return size if size < 0 else ASK_PYTHON
    return verdict


def kept_buffers() -> tuple[int, int]:
    """(count, bytes) of the column buffers the compiled scanners keep for their next scans: the buffers of
    dropped batches, up to 64 MiB a process (fresh memory would cost a scan the kernel's zeroing of its
    pages); (0, 0) without the compiled backend."""
    module = _scanners()[0]
    return module.pool_stats() if module is not None else (0, 0)


def _c_name(protocol: str) -> str:
    return protocol.replace("-", "_")


def iter_batches(data, protocol: str, path: str = "", direction: str | None = None, mode: str = "PERMISSIVE", *,
                 max_frame_size: int | None = None, batch_rows: int = BATCH_ROWS,
                 batch_bytes: int = BATCH_BYTES) -> Iterator:
    """pyarrow.RecordBatches of arrow.frame_schema(protocol) for a whole dump (bytes, bytearray, memoryview,
    mmap): the rows of iter_frames(data, protocol, direction, mode), in order, at most batch_rows a batch
    and about batch_bytes of frames. Its arguments are checked at the call, not at the first batch."""
    check_direction(direction)
    mode = check_mode(mode)
    _check_sizes(batch_rows, batch_bytes)
    return _iter_batches(data, protocols.checked(protocol), path, direction, mode, max_frame_size, batch_rows,
                         batch_bytes)


def _check_sizes(batch_rows, batch_bytes) -> None:
    """A batch must be able to hold a row: batch_rows=0 made the scans loop forever on an empty batch."""
    for name, value in (("batch_rows", batch_rows), ("batch_bytes", batch_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, not {value!r}")


def _iter_batches(data, name: str, path: str, direction: str | None, mode: str, max_frame_size: int | None,
                  batch_rows: int, batch_bytes: int) -> Iterator:
    found = None if name in protocols.STREAM_PROTOCOLS else scanner(name, direction)
    if found is None:  # HTTP streams, or no compiled scanner: the pure rows, batched
        yield from _python_batches(path, iter_frames(data, name, direction, mode, max_frame_size=max_frame_size),
                                   name, batch_rows)
        return
    with memoryview(data).cast("B") as view:
        yield from range_batches(view, name, path, direction, mode, 0, len(view), max_frame_size=max_frame_size,
                                 batch_rows=batch_rows, batch_bytes=batch_bytes)


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
    _check_sizes(batch_rows, batch_bytes)
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
            scan, name = found
            window = view if hi == size else view[:hi]
            reached, rows, columns = scan(window, pos, limit, _WANT[direction], batch_rows, path)
            refused = False
            if rows:
                batch = _batch(name, rows, columns)
                if reached > stop:  # the scan ran past the range: its rows from stop on are another's
                    batch = batch.slice(0, _rows_before(batch, stop))
                    reached = stop
                if proto.name in protocols.EXTENSIONS:  # cut at the first frame the payload layer refuses
                    kept = batch.num_rows
                    batch, reached = _payload(proto, window, batch, direction, reached, limit)
                    refused = batch.num_rows < kept
                if batch.num_rows:
                    if pending:
                        yield arrow.frames_to_batch(path, pending, proto.name)
                        pending, held = [], 0
                    yield batch
            pos = reached
            if not refused and (pos >= stop or rows == batch_rows or (hi < size and pos + limit + 1 > hi)):
                continue  # the range is done, the batch is full, or the window ended: scan on in C
        # No whole valid frame at pos (or no compiled scanner): the pure scanner reports the stretch and
        # finds the next frames. The C scan resumes after RESUME_AFTER valid frames in a row (any frame's
        # end is a safe place, since the scanner holds no state there); on broken input Python goes on.
        resume = stop
        clean = 0
        rows = scan_windows(source, view, Scanner(proto, direction, mode, limit), pos, stop)
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
    batches = list(iter_batches(data, protocol, path, direction, mode, max_frame_size=max_frame_size,
                                batch_rows=WHOLE_ROWS, batch_bytes=WHOLE_BYTES))
    if not batches:
        return arrow.frames_to_batch(path, [], protocols.get(protocol).name)
    if len(batches) == 1:
        return batches[0]
    table = pa.Table.from_batches(batches, schema).combine_chunks()
    return pa.RecordBatch.from_arrays([column.chunk(0) if column.num_chunks else pa.array([], column.type)
                                       for column in table.columns], schema=schema)


# The compiled payload layers (generated from the payload specs: TubeMQ's .proto files, EventMesh's JSON
# schemas): verdicts over a batch's columns, one int32 a row, (message type index << 1 | response), or
# -1 where Python must decide. Which columns each reads is its verdicts() signature.
LAYERS = protocols.COMPILED_LAYERS  # protocol -> its part of the extension, from the specs' registry blocks


@cache
def _layer(protocol: str):
    """The compiled payload layer of a protocol (its part of the extension), or None (not loaded, or none)."""
    name = LAYERS.get(protocol)
    return None if name is None else part(name)


def _binary_buffers(array):
    """(offsets, data) of an Arrow string or binary array, its slice offset applied, as the C parts take them."""
    import numpy as np

    _, offsets, data = array.buffers()  # pyarrow (26) gives a string or binary array no .offsets
    if offsets is None:  # an empty array
        return np.zeros(1, np.int32), b""
    return np.frombuffer(offsets, "<i4", len(array) + 1, array.offset * 4), b"" if data is None else data


def _blocks_input(batch) -> tuple:
    """tubemq_layer's verdicts(rows, list_offsets, item_offsets, item_data): the frame's list of sized blocks."""
    import numpy as np

    blocks = batch.column("blocks")
    return (len(blocks), np.asarray(blocks.offsets), *_binary_buffers(blocks.values.field("data")))


def _package_input(batch) -> tuple:
    """eventmesh_layer's verdicts(rows, header_offsets, header_data, body_offsets, body_data): the package's
    header and body texts."""
    package = batch.column("package")
    header, body = package.field("header"), package.field("body")
    if package.offset:
        header, body = (child.slice(package.offset, len(package)) for child in (header, body))
    return (len(package), *_binary_buffers(header), *_binary_buffers(body))


# compiled part -> the columns its verdicts() reads (its C signature), so the part a spec's registry block
# names decides, not the protocol's name (eventmesh and eventmesh-legacy share eventmesh_layer)
LAYER_INPUTS = {"tubemq_layer": _blocks_input, "eventmesh_layer": _package_input}


def _layer_codes(proto: protocols.Protocol, batch, direction: str | None):
    """The compiled layer's codes for a batch's rows (numpy int32), or None when it has none."""
    import numpy as np

    layer = _layer(proto.name)
    if layer is None:
        return None
    answer = layer.verdicts(*LAYER_INPUTS[LAYERS[proto.name]](batch), _WANT[direction])
    return np.frombuffer(answer, "<i4")


def _payload(proto: protocols.Protocol, view, batch, direction: str | None, stop: int, limit: int):
    """(batch, stop) with each frame's message_type and direction from the protocol's payload layer. The
    compiled layer answers the frames it is sure of; the rest run exactly as the pure path runs them
    (frames.build_frame over the generated codec's decode of the frame). At the first frame the layer refuses,
    the batch is cut and stop moved there: the pure scanner then makes that frame's error row (and
    resynchronises), so the error is the pure path's by construction."""
    import numpy as np
    import pyarrow as pa

    rows = batch.num_rows
    codes = _layer_codes(proto, batch, direction)
    if codes is None:
        codes, type_names = np.full(rows, -1, np.int32), []
    else:
        type_names = list(_layer(proto.name).MESSAGE_TYPES)
    types, directions = (codes >> 1).astype(np.int32), (codes & 1).astype(np.int32)
    direction_names = ["request", "response"]
    asked = np.flatnonzero(codes < 0)
    if len(asked):
        codec = proto.codecs[0]
        decode, end = codec.module.decode, len(view)
        buffer = memoryview(view)
        offsets, lengths = batch.column("offset").to_numpy(), batch.column("length").to_numpy()
        for row in asked.tolist():
            offset, length = int(offsets[row]), int(lengths[row])
            message, _ = decode(buffer, offset, min(end, offset + limit + 1))
            try:
                frame = build_frame(proto, codec, message, offset, length, direction, False, offset)
            except DecodeError:
                stop = offset
                batch, types, directions = batch.slice(0, row), types[:row], directions[:row]
                break
            types[row] = _index(type_names, frame.message_type)
            directions[row] = _index(direction_names, frame.direction)
    columns = batch.columns
    columns[batch.schema.get_field_index("direction")] = pa.array(direction_names, pa.string()).take(directions)
    columns[batch.schema.get_field_index("message_type")] = pa.array(type_names, pa.string()).take(types)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema), stop


def _index(names: list, name) -> int:
    """name's place in names, appended when new (names a dictionary's values)."""
    try:
        return names.index(name)
    except ValueError:
        names.append(name)
        return len(names) - 1


def _python_batches(path: str, frames, protocol: str, batch_rows: int):
    chunk = []
    for frame in frames:
        chunk.append(frame)
        if len(chunk) == batch_rows:
            yield arrow.frames_to_batch(path, chunk, protocol)
            chunk = []
    if chunk:
        yield arrow.frames_to_batch(path, chunk, protocol)


def _batch(protocol: str, rows: int, columns: list):
    """The RecordBatch of one compiled scan: its columns (meta first, then depth-first) wrapped with
    from_buffers; the columns it does not produce (error, corrupt record, capture, another layout's) null."""
    import pyarrow as pa

    schema = arrow.frame_schema(protocol)
    described = _scanners()[1]
    leaves = iter(columns)
    own = {name: (kind, children) for name, kind, children in described[protocol]["columns"]}
    arrays = {name: _column(leaves, schema.field(name).type, "meta", [], rows)
              for name in ("path", "offset", "length", "protocol", "direction", "message_type")}
    for name, (kind, children) in own.items():
        arrays[name] = _column(leaves, schema.field(name).type, kind, children, rows)
    return pa.RecordBatch.from_arrays([arrays[f.name] if f.name in arrays else pa.nulls(rows, f.type)
                                       for f in schema], schema=schema)


def _column(leaves, field_type, kind: str, children: list, length: int):
    """One column from the scan's buffers (leaves: their iterator, depth-first). A module function, not a
    closure: a closure naming itself is a reference cycle that would hold the buffers until the next
    garbage collection."""
    import pyarrow as pa

    buffers = next(leaves)
    validity = None if buffers[0] is None else pa.py_buffer(buffers[0])
    if kind == "struct" and not children and field_type == pa.bool_():
        # a layout without fields is a BOOLEAN column (arrow.frame_schema): true where the row holds it
        return pa.Array.from_buffers(field_type, length, [validity, validity]) if validity is not None \
            else pa.array([True] * length, field_type)
    if kind == "struct":
        if [c[0] for c in children] != [f.name for f in field_type]:
            raise RuntimeError(f"compiled scanner's struct {children} does not match {field_type}")
        return pa.Array.from_buffers(field_type, length, [validity], children=[
            _column(leaves, field_type.field(i).type, c[1], c[2], length) for i, c in enumerate(children)])
    if kind == "list":  # the items' count is the last offset
        offsets = buffers[1]
        items = int.from_bytes(memoryview(offsets)[-4:], "little") if length else 0
        (_, item_kind, item_children), = children
        return pa.Array.from_buffers(field_type, length, [validity, pa.py_buffer(offsets)], children=[
            _column(leaves, field_type.value_type, item_kind, item_children, items)])
    return pa.Array.from_buffers(field_type, length, [validity] + [pa.py_buffer(b) for b in buffers[1:]])

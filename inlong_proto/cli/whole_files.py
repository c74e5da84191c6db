"""decode's fast path: files read whole through the compiled batch path, written as Arrow batches.

``inlong-proto decode -T parquet`` and ``-T csv`` on files (not stdin, not --follow), with no -e, -Y,
--records, --payload or --max-frame-size, read each file as ``spark.read.format("inlong")`` reads a file
in one piece (spark.source.piece_batches: the compiled scanners for a dump, the compiled capture walker
for a pcap / pcapng of at most CAPTURE_WHOLE bytes) and write the Arrow batches as they come:

- parquet: the reader's rows and schema exactly: its columns (``arrow.frame_schema``, or ``auto_schema``
  with -p auto), in Spark's Arrow form (``arrow.spark_arrow_form``), then the ``date`` column, last. A
  Parquet file so written reads back in Spark as ``spark.read.format("inlong")`` read the dump.
- csv: the same columns with every struct flattened into dotted columns (``capture.client``,
  ``text_message.attr``: the names -e takes), written by pyarrow.csv. Bytes are text when they are UTF-8,
  else ``{"hex": ...}`` (as decode's JSON shows them); a text cell is escaped as output.py's CSV cells are
  (printable(), and a leading quote before a formula start): by Arrow kernels where the text is ASCII,
  row by row through output.csv_cell where it is not (safe_text).
- jsonl: on raw dumps of a protocol whose JSON the batches hold whole, the same lines as the streaming
  path, rebuilt from the rows (JSON lines, below); any other file is streamed.

With -T csv / parquet and an -e, -Y, --records or --payload, and for -T json / table / wide, decode keeps its
streaming path (output.py): those need each item's JSON. The modes are the readers': PERMISSIVE
keeps error rows, DROPMALFORMED leaves them out, FAILFAST stops at the first with one error line (exit 1).
A capture's frames keep their TCP direction; -d keeps the frames of one direction, as the streaming path
does. Memory: a dump is mapped and scanned in place, a capture is read whole (CAPTURE_WHOLE); a batch at
a time is held (jsonl: a file's JSON text, JSONL_WHOLE). A file of PROGRESS_MIN bytes or more gets
cli.progress's bar on a terminal, at the furthest packet or frame end written yet.
"""
from __future__ import annotations

import json
import os

from inlong_proto.cli.failure import Failure
from inlong_proto.cli.progress import with_progress_at
from inlong_proto.cli.query import QueryError
from inlong_proto.core import arrow, protocols
from inlong_proto.core.plain import render_bytes

FORMATS = ("parquet", "csv")
FAST = True  # False: decode streams every file (the differential tests compare the two paths)
EXTRA = "inlong-proto[spark]"  # the extra that brings pyarrow (pyspark is not needed here)


def applies(files, output_format: str, follow: bool, fields, expression, as_records: bool, with_payload: bool,
            max_frame_size) -> bool:
    """Whether decode can take the fast path: every input a regular file, and nothing asks for item JSON."""
    if not FAST or output_format not in FORMATS or follow or fields or expression or as_records or with_payload:
        return False
    if max_frame_size is not None:
        return False
    return all(path != "-" and os.path.isfile(path) for path in files)


def require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise QueryError(f"-T parquet and -T csv need pyarrow: pip install '{EXTRA}'") from None


def reader_schema(protocol: str):
    """The Arrow schema of format("inlong")'s rows for a protocol (or auto), date column included."""
    table = arrow.auto_schema() if protocol == arrow.AUTO else arrow.frame_schema(protocol)
    return arrow.dated_schema(arrow.spark_arrow_form(table))


def file_batches(path: str, protocol: str, direction: str | None, mode: str):
    """One file's rows as reader_schema batches, read as format("inlong") reads a file in one piece."""
    import pyarrow.compute as pc

    from inlong_proto.capture.container import is_capture
    from inlong_proto.core.sources import file_uri, modification_date, open_source
    from inlong_proto.spark.source import detect_source, piece_batches

    schema = reader_schema(protocol)
    day = modification_date(path)
    with open_source(path) as src:
        if not src.size:
            raise Failure(f"{path}: empty: expected a raw dump or a .pcap / .pcapng capture")
        capture = is_capture(src.head(4))
        if protocol == arrow.AUTO and not capture and detect_source(src) is None:
            raise Failure(f"{path}: no known protocol reads its first frame (expected a capture, or a raw "
                          f"dump of {', '.join(protocols.every_name())}; name one with -p)")
        for batch in piece_batches(src, file_uri(path), protocol, direction, mode, max(src.size, 1), 0):
            batch = arrow.with_date(batch.cast(arrow.spark_arrow_form(batch.schema)), day)
            if capture and direction is not None:  # a capture's rows carry their TCP direction
                batch = batch.filter(pc.fill_null(pc.equal(batch.column("direction"), direction), False))
            if batch.num_rows:
                yield batch.cast(schema) if batch.schema != schema else batch


def write(files, protocol: str, direction: str | None, mode: str, output_format: str, stream) -> None:
    """Every file's rows to stream as Parquet or CSV (the module doc)."""
    require_pyarrow()
    schema = reader_schema(protocol)
    sink = stream.buffer if hasattr(stream, "buffer") else stream
    stream.flush()
    out = ParquetOut(sink, schema) if output_format == "parquet" else CsvOut(sink, schema)
    try:
        for path in files:
            for batch in with_progress_at(file_batches(path, protocol, direction, mode), path, _position):
                out.write(batch)
    finally:
        out.close()
        sink.flush()


def _position(batch) -> int:
    """How far into its file a batch's rows reach (for the progress bar): the furthest packet of a capture,
    the furthest frame end of a dump."""
    import pyarrow.compute as pc

    packets = pc.max(pc.struct_field(batch.column("capture"), "packet_offset")).as_py()
    if packets is not None:
        return packets
    return pc.max(pc.add(batch.column("offset"), batch.column("length"))).as_py() or 0


class ParquetOut:
    def __init__(self, sink, schema):
        import pyarrow.parquet as pq

        self.writer = pq.ParquetWriter(sink, schema)

    def write(self, batch) -> None:
        self.writer.write_batch(batch)

    def close(self) -> None:
        self.writer.close()


class CsvOut:
    """Flattened columns (the module doc); the header is written even when no row is."""

    def __init__(self, sink, schema):
        import pyarrow.csv as pcsv

        self.schema = csv_schema(schema)
        self.writer = pcsv.CSVWriter(sink, self.schema, write_options=pcsv.WriteOptions(batch_size=8192))

    def write(self, batch) -> None:
        self.writer.write_batch(csv_batch(batch, self.schema))

    def close(self) -> None:
        self.writer.close()


def _flat_fields(schema):
    import pyarrow as pa

    out = []
    for field in schema:
        if pa.types.is_struct(field.type):
            out += [child.with_name(f"{field.name}.{child.name}") for child in _flat_fields(list(field.type))]
        else:
            out.append(field)
    return out


def csv_schema(schema):
    """The CSV's columns: structs flattened to dotted names, bytes and nested values as text."""
    import pyarrow as pa

    return pa.schema([field.with_type(pa.string()) if _as_text(field.type) else field
                      for field in _flat_fields(schema)])


def _as_text(kind) -> bool:
    import pyarrow as pa

    return (pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_list(kind)
            or pa.types.is_map(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _flat_columns(batch):
    import pyarrow as pa
    import pyarrow.compute as pc

    def walk(name, column):
        if pa.types.is_struct(column.type):
            for index, child in enumerate(column.type):
                yield from walk(f"{name}.{child.name}", pc.struct_field(column, [index]))
        else:
            yield name, column

    for name, column in zip(batch.schema.names, batch.columns):
        yield from walk(name, column)


_CONTROLS = [*range(0x20), 0x7f]  # the ASCII characters printable() escapes, as repr writes them
_FORMULA = [ord(char) for char in "=+-@"]  # a formula start once the controls are escaped (\t, \r no longer lead)


def csv_batch(batch, schema):
    """batch flattened and its text made safe for CSV, in csv_schema's columns."""
    import pyarrow as pa

    from inlong_proto.cli.output import csv_cell

    columns = []
    for (name, column), field in zip(_flat_columns(batch), schema):
        kind = column.type
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            try:  # UTF-8 throughout (the usual case): the text path below, vectorised
                column = safe_text(column.cast(pa.string()))
            except pa.ArrowInvalid:
                column = pa.array([None if value is None else csv_cell(render_bytes(value))
                                   for value in column.to_pylist()], pa.string())
        elif pa.types.is_list(kind) or pa.types.is_map(kind):
            column = pa.array([None if value is None else csv_cell(list(value))
                               for value in column.to_pylist()], pa.string())
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            column = safe_text(column)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def safe_text(column):
    """A text column's cells as output.csv_cell writes them: printable ASCII that does not start like a
    formula as it is; other ASCII with its controls escaped (as printable() escapes them) and a quote before
    a formula start, by Arrow kernels; the rest (text that is not ASCII) row by row through csv_cell."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from inlong_proto.cli.output import csv_cell

    plain = pc.or_(pc.is_null(column), pc.and_(pc.fill_null(pc.ascii_is_printable(column), True),
                                               pc.invert(_formula(column))))
    if pc.all(plain).as_py():
        return column
    ascii_ = pc.fill_null(pc.string_is_ascii(column), False)
    vector = pc.and_(pc.invert(plain), ascii_)
    if pc.any(vector).as_py():
        part = pc.filter(column, vector)
        found = np.bincount(_text_bytes(part), minlength=128)
        for code in _CONTROLS:
            if found[code]:
                part = pc.replace_substring(part, chr(code), repr(chr(code))[1:-1])
        part = pc.if_else(_formula(part), pc.binary_join_element_wise(pa.scalar("'", part.type), part,
                                                                     pa.scalar("", part.type)), part)
        column = pc.replace_with_mask(column, vector, part)
    rest = pc.and_(pc.invert(plain), pc.invert(ascii_))
    if pc.any(rest).as_py():
        cells = pa.array([csv_cell(value) for value in pc.filter(column, rest).to_pylist()], column.type)
        column = pc.replace_with_mask(column, rest, cells)
    return column


def _offsets(column):
    import numpy as np
    import pyarrow as pa

    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    return np.frombuffer(column.buffers()[1], width, len(column) + 1, column.offset * np.dtype(width).itemsize)


def _text_bytes(column):
    """The UTF-8 bytes of a text array's values, end to end (numpy uint8)."""
    import numpy as np

    ends = _offsets(column)
    size = int(ends[-1] - ends[0])
    return np.frombuffer(column.buffers()[2], np.uint8, size, int(ends[0])) if size else np.zeros(0, np.uint8)


def _formula(column):
    """Where a text array's value starts with a formula character (false where empty; nulls left as they are)."""
    import numpy as np
    import pyarrow as pa

    ends = _offsets(column)
    starts, full = ends[:-1], ends[1:] > ends[:-1]
    first = np.zeros(len(column), np.uint8)
    if full.any():
        first[full] = np.frombuffer(column.buffers()[2], np.uint8)[starts[full]]
    return pa.array(np.isin(first, _FORMULA), mask=None)


# ------------------------------------------------------------------ JSON lines from the batches
# -T jsonl takes the batches too where they hold all of an item's JSON: raw dumps (not captures, whose items
# carry flow numbers and nanosecond times the batches do not) of a protocol named with -p whose frames are
# generated messages with no payload layer (dataproxy and broadcast; not TubeMQ's or EventMesh's). An item's
# JSON is rebuilt from its row by the frame type's FIELDS, as core.plain.to_plain builds it from the message.
# A file holding an error span (its JSON names the error's kind, which the batches do not) is decoded by the
# streaming path instead, as is a file over JSONL_WHOLE bytes (its JSON text is held until its end is known
# to hold no error span).
JSONL_WHOLE = 64 << 20


def jsonl_protocol(protocol: str) -> bool:
    """Whether a raw dump of protocol can be written as JSON lines from its batches (above)."""
    if protocol == arrow.AUTO or protocol in protocols.STREAM_PROTOCOLS:
        return False
    return all(codec.describe is None for codec in protocols.get(protocol).codecs)


def jsonl_applies(files, output_format: str, follow: bool, fields, expression, as_records: bool,
                  with_payload: bool, max_frame_size, protocol: str) -> bool:
    """Whether decode -T jsonl can read its files' batches (each file may still be streamed: write_jsonl)."""
    if output_format != "jsonl" or not jsonl_protocol(protocol):
        return False
    return applies(files, "parquet", follow, fields, expression, as_records, with_payload, max_frame_size)


def write_jsonl(path: str, protocol: str, direction: str | None, mode: str, stream, named: str | None) -> bool:
    """One raw dump's items as decode's JSON lines, from its batches; False (nothing written) where the file
    is to be streamed instead: a capture, an empty file, one over JSONL_WHOLE, one holding an error span."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    from inlong_proto.capture.container import is_capture
    from inlong_proto.cli.output import terminal_escapes
    from inlong_proto.core.errors import InlongProtoError
    from inlong_proto.core.sources import file_uri, open_source
    from inlong_proto.spark.source import piece_batches

    encode = json.JSONEncoder(ensure_ascii=False).encode

    try:
        (named or "").encode("utf-8")
    except UnicodeEncodeError:  # a file name with a lone surrogate: json_text escapes all of its line
        return False
    dropped = mode.upper() == "DROPMALFORMED"
    with open_source(path) as src:
        if not src.size or src.size > JSONL_WHOLE or is_capture(src.head(4)):
            return False
        items, texts = _items(protocol), []
        batches = piece_batches(src, file_uri(path), protocol, direction,
                                "DROPMALFORMED" if dropped else "PERMISSIVE", src.size, 0)
        try:
            for batch in with_progress_at(batches, path, _position):
                if batch.column("error").null_count != batch.num_rows:
                    return False
                lines = [encode({"file": named, **item} if named is not None else item) for item in items(batch)]
                if lines:  # as output.terminal_json writes each line (Arrow's text holds no lone surrogate)
                    text = "\n".join(lines) + "\n"
                    texts.append(text if text.isascii() and "\x7f" not in text else terminal_escapes(text))
        except (_NotCovered, InlongProtoError):  # the streaming path says what it makes of the file
            return False
    for text in texts:
        stream.write(text)
        stream.flush()
    return True


def _items(protocol: str):
    """batch -> its rows as decode's item dicts (Frame.to_dict), for a protocol jsonl_protocol takes."""
    frame_types = [(set(_column_names(cls)), _plain_of(cls)) for cls in protocols.get(protocol).frame_types]
    meta = [name for name, _ in arrow.META_COLUMNS]

    def items(batch):
        message_columns = [name for name in batch.schema.names if name not in meta and name != arrow.CAPTURE_COLUMN]
        for row in batch.to_pylist():
            held = {name for name in message_columns if row[name] is not None}
            plain = next((convert for names, convert in frame_types if held <= names), None)
            if plain is None:
                raise _NotCovered("a row of no one frame type")
            yield {"protocol": row["protocol"], "offset": row["offset"], "length": row["length"],
                   "message_type": row["message_type"], "direction": row["direction"], **plain(row)}

    return items


def _column_names(cls) -> list[str]:
    """A frame type's own columns (arrow._message_fields: a switch's cases lifted to its level)."""
    out = []
    for info in cls.FIELDS:
        out += [case for case, _ in info.detail] if info.kind == "switch" else [info.name]
    return out


class _NotCovered(Exception):
    """A row whose JSON the batch does not hold (a switch with no case: its raw bytes)."""


def _plain_of(cls):
    """{column: value} of cls's columns -> to_plain(message), from cls.FIELDS (core.plain.to_plain's rules):
    the fields in order, values that to_plain changes (enums, bytes, times, structs, lists, a switch) then
    converted in place."""
    from inlong_proto.core.plain import render_datetime

    names, values, switches = [], [], []
    for info in cls.FIELDS:
        name, kind = info.name, info.kind
        names.append(name)
        if kind == "switch":
            cases = [(case, _plain_of(case_cls) if case_cls.FIELDS else None) for case, case_cls in info.detail]
            switches.append((name, _switch(cases)))
        elif kind == "struct":
            values.append((name, _plain_of(info.detail)))
        elif kind == "list":
            values.append((name, _list_of(info.detail)))
        elif kind in ("enum", "bytes", "datetime"):
            values.append((name, _leaf(info, render_datetime)))

    def plain(row: dict) -> dict:
        out = {name: row.get(name) for name in names}
        for name, convert in values:
            value = out[name]
            if value is not None:
                out[name] = convert(value)
        for name, case in switches:
            out[name] = case(row)
        return out

    return plain


def _switch(cases):
    def step(row):
        for case, plain in cases:
            value = row.get(case)
            if value is not None and value is not False:
                return {case: plain(value) if plain is not None else {}}
        raise _NotCovered("a switch with no case")
    return step


def _list_of(info):
    if info.kind == "struct":
        convert = _plain_of(info.detail)
    elif info.kind == "list":
        convert = _list_of(info.detail)
    else:
        from inlong_proto.core.plain import render_datetime

        convert = _leaf(info, render_datetime)
    return lambda values: [None if value is None else convert(value) for value in values]


def _leaf(info, render_datetime):
    """A value's converter (never given None)."""
    if info.kind == "enum":
        members = set(info.detail.__members__)
        return lambda value: value if value in members else int(value)
    if info.kind == "bytes":
        return render_bytes
    if info.kind == "datetime":
        return render_datetime
    return lambda value: value

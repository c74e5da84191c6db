"""decode's fast path: files read whole through the compiled batch path, written as Arrow batches.

``inlong-proto decode -T parquet`` and ``-T csv`` on files (not stdin, not --follow), with no -e, -Y,
--records, --payload or --max-frame-size, read each file as ``spark.read.format("inlong")`` reads a file
in one piece (the compiled capture walker for a pcap / pcapng of at most CAPTURE_WHOLE bytes, called here;
spark.pieces.piece_batches for the rest: the compiled scanners for a dump) and write the Arrow batches as
they come:

- parquet: the reader's rows and schema exactly: its columns (``arrow.frame_schema``, or ``auto_schema``
  with -p auto, with the structs of the protocols the reader carries: auto_carried), in Spark's Arrow form
  (``arrow.spark_arrow_form``), then the ``date`` column, last. A
  Parquet file so written reads back in Spark as ``spark.read.format("inlong")`` read the dump.
- csv: the same columns with every struct flattened into dotted columns (``capture.client``,
  ``text_message.attr``: the names -e takes), written by pyarrow.csv. Bytes are text when they are UTF-8,
  else ``{"hex": ...}`` (as decode's JSON shows them); a text cell is escaped as output.py's CSV cells are
  (printable(), and a leading quote before a formula start): by Arrow kernels where the text is ASCII,
  row by row through output.csv_cell where it is not (safe_text).
- jsonl: on raw dumps and captures of a protocol whose JSON the batches hold whole, the same lines as the
  streaming path, built column by column from the rows (JSON lines, below), -p auto included (a capture's
  flows each in their own protocol); any other file is streamed.

- table (the packet list): on the files jsonl takes, its rows built column by column (cli.packet_list.cells_of),
  where each row's Info can be said from the columns (write_table); any other file is streamed.

With -T csv / parquet and an -e, -Y, --records or --payload, and for -T json / wide, decode keeps its streaming
path (output.py): those need each item's JSON. The modes are the readers': PERMISSIVE
keeps error rows, DROPMALFORMED leaves them out, FAILFAST stops at the first with one error line (exit 1).
A capture's frames keep their TCP direction; -d keeps the frames of one direction, as the streaming path
does. Memory: a dump is mapped and scanned in place, a capture is read whole (CAPTURE_WHOLE); a batch at
a time is held (jsonl: a file's JSON text, JSONL_WHOLE). A file of PROGRESS_MIN bytes or more gets
cli.progress's bar on a terminal, at the furthest packet or frame end written yet.
"""
from __future__ import annotations

import json
import os

from inlong_proto.cli.columns import by_protocol, text_bytes, text_offsets
from inlong_proto.cli.failure import Failure, require
from inlong_proto.cli.progress import with_progress_at
from inlong_proto.core import arrow, protocols
from inlong_proto.core.plain import render_bytes

FORMATS = ("parquet", "csv")
CAPTURE_WHOLE = 128 << 20  # a capture up to this size is read whole by the compiled walker, as the readers read one
FAST = True  # False: decode streams every file (the differential tests compare the two paths)


def applies(files, output_format: str, follow: bool, fields, expression, as_records: bool, with_payload: bool,
            max_frame_size) -> bool:
    """Whether decode can take the fast path: every input a regular file, and nothing asks for item JSON."""
    if not FAST or output_format not in FORMATS or follow or fields or expression or as_records or with_payload:
        return False
    if max_frame_size is not None:
        return False
    return all(path != "-" and os.path.isfile(path) for path in files)


def require_pyarrow(output_format: str) -> None:
    """pyarrow comes with the spark extra (pyspark is not needed here); without it, the one missing-extra line."""
    require("pyarrow", "spark", f"-T {output_format}")


def reader_schema(protocol: str, carried: tuple[str, ...] | None = None):
    """The Arrow schema of format("inlong")'s rows for a protocol (or auto, with the structs of the carried
    protocols: auto_carried), date column included."""
    table = arrow.auto_schema(carried) if protocol == arrow.AUTO else arrow.frame_schema(protocol)
    return arrow.dated_schema(arrow.spark_arrow_form(table))


def file_batches(path: str, protocol: str, direction: str | None, mode: str, carried: tuple[str, ...] | None = None):
    """One file's rows as reader_schema batches, read as format("inlong") reads a file in one piece."""
    import pyarrow.compute as pc

    from inlong_proto.capture.container import is_capture
    from inlong_proto.core.detect import HEAD_SIZE, classify
    from inlong_proto.core.sources import file_uri, modification_date, open_source
    from inlong_proto.core.errors import DumpDecodeError

    schema = reader_schema(protocol, carried)
    day = modification_date(path)
    with open_source(path) as src:
        if not src.size:
            raise Failure(f"{path}: empty: expected a raw dump or a .pcap / .pcapng capture")
        capture = is_capture(src.head(4))
        if protocol == arrow.AUTO and not capture and classify(src.head(HEAD_SIZE)) is None:
            raise Failure(f"{path}: no known protocol reads its first frame (expected a capture, or a raw "
                          f"dump of {', '.join(protocols.every_name())}; name one with -p)")
        batches = _whole_capture(src, file_uri(path), protocol, mode) if capture else None
        if batches is None:
            from inlong_proto.spark.pieces import piece_batches

            batches = piece_batches(src, file_uri(path), protocol, direction, mode, max(src.size, 1), 0,
                                    carried=carried)
        try:
            for batch in batches:
                batch = arrow.with_date(batch.cast(arrow.spark_arrow_form(batch.schema)), day)
                if capture and direction is not None:  # a capture's rows carry their TCP direction
                    batch = batch.filter(pc.fill_null(pc.equal(batch.column("direction"), direction), False))
                if batch.num_rows:
                    yield batch.cast(schema) if batch.schema != schema else batch
        except DumpDecodeError as error:  # named by its URI (the rows' path); the error line names the path given
            raise DumpDecodeError.of(path, error) from None


def _whole_capture(src, uri: str, protocol: str, mode: str):
    """A capture's batches from the compiled walker, the rows piece_batches gives for a capture it reads
    whole, read here without spark.source (whose import brings every Spark reader); None where the walker
    does not take the file (piece_batches then reads it, as the readers do)."""
    if src.size > CAPTURE_WHOLE:
        return None
    from inlong_proto.backends import compiled_capture

    return compiled_capture.compiled_batches(src.read(0, src.size), protocol, mode, uri, batch_rows=4096)


def auto_carried(files, protocol: str) -> tuple[str, ...] | None:
    """With -p auto, the protocols whose structs the table carries, as format("inlong") finds them on these
    files (spark.pieces.found_protocols: on dumps, those found at their start); None (every protocol) for a
    named protocol or where a capture is among the files (read without spark.source)."""
    from inlong_proto.capture.container import is_capture

    if protocol != arrow.AUTO:
        return None
    for path in files:
        with open(path, "rb") as file:
            if is_capture(file.read(4)):
                return None
    from inlong_proto.spark.pieces import found_protocols

    return found_protocols(files)


def write(files, protocol: str, direction: str | None, mode: str, output_format: str, stream) -> None:
    """Every file's rows to stream as Parquet or CSV (the module doc)."""
    require_pyarrow(output_format)
    carried = auto_carried(files, protocol)
    schema = reader_schema(protocol, carried)
    sink = stream.buffer if hasattr(stream, "buffer") else stream
    stream.flush()
    out = ParquetOut(sink, schema) if output_format == "parquet" else CsvOut(sink, schema)
    try:
        for path in files:
            for batch in with_progress_at(file_batches(path, protocol, direction, mode, carried), path, _position):
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
        found = np.bincount(text_bytes(part), minlength=128)
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


def _formula(column):
    """Where a text array's value starts with a formula character (false where empty; nulls left as they are)."""
    import numpy as np
    import pyarrow as pa

    ends = text_offsets(column)
    starts, full = ends[:-1], ends[1:] > ends[:-1]
    first = np.zeros(len(column), np.uint8)
    if full.any():
        first[full] = np.frombuffer(column.buffers()[2], np.uint8)[starts[full]]
    return pa.array(np.isin(first, _FORMULA), mask=None)


# ------------------------------------------------------------------ JSON lines from the batches
# -T jsonl takes the batches too where they hold all of an item's JSON: raw dumps and captures of a protocol
# named with -p whose frames are generated messages with no payload layer (dataproxy and broadcast; not
# TubeMQ's or EventMesh's). A capture is taken when the compiled walker reads it whole
# (compiled_capture.capture_items: its rows with their flow numbers and nanosecond times). Each line is built
# column by column (JsonText), as core.plain.to_plain and the json module build it from the message, with
# no Python object per row: numbers are cast by Arrow, text is quoted by Arrow kernels unless it holds a
# character JSON escapes (those cells go through json's own encode_basestring), and a batch's lines are
# joined by Arrow and written from its buffer. A file holding an error span (its JSON names the error's
# kind, which the batches do not) or a row the columns cannot say is decoded by the streaming path
# instead, as is a file over JSONL_WHOLE bytes (its JSON text is held until its end is known to hold none).
# With -p auto, a dump is read as the protocol its head settles on (as the streaming path chooses it), and a
# capture's rows (auto_schema: each protocol's columns in its struct) are said a protocol at a time, each
# protocol's rows taken out of its struct (by_protocol), and put back in row order.
JSONL_WHOLE = 64 << 20


def jsonl_protocol(protocol: str) -> bool:
    """Whether a file of protocol can be written as JSON lines from its batches (above); auto: whether some
    file may be (each row's own protocol decides)."""
    if protocol == arrow.AUTO:
        return any(jsonl_protocol(name) for name in protocols.every_name())
    if protocol in protocols.STREAM_PROTOCOLS:
        return False
    return all(codec.describe is None for codec in protocols.get(protocol).codecs)


def jsonl_applies(files, output_format: str, follow: bool, fields, expression, as_records: bool,
                  with_payload: bool, max_frame_size, protocol: str) -> bool:
    """Whether decode -T jsonl can read its files' batches (each file may still be streamed: write_jsonl)."""
    if output_format != "jsonl" or not jsonl_protocol(protocol):
        return False
    return applies(files, "parquet", follow, fields, expression, as_records, with_payload, max_frame_size)


def write_jsonl(path: str, protocol: str, direction: str | None, mode: str, stream, named: str | None) -> bool:
    """One file's items as decode's JSON lines, from its batches; False (nothing written) where the file is
    to be streamed instead: an empty file, one over JSONL_WHOLE, a capture the compiled walker does not take
    whole, one holding an error span or a row the columns cannot say."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    from inlong_proto.cli.output import terminal_escapes
    from inlong_proto.core.errors import InlongProtoError

    try:
        (named or "").encode("utf-8")
    except UnicodeEncodeError:  # a file name with a lone surrogate: json_text escapes all of its line
        return False
    read_mode = "DROPMALFORMED" if mode.upper() == "DROPMALFORMED" else "PERMISSIVE"
    texts = []
    try:
        whole = _whole_file(path, protocol, direction, read_mode)
        if whole is None:
            return False
        protocol, capture, batches = whole
        lines = AutoJsonText(named) if protocol == arrow.AUTO else JsonText(protocol, capture, named)
        for batch in with_progress_at(batches, path, _position):
            if batch.column("error").null_count != batch.num_rows:
                return False
            if batch.num_rows:
                texts.append(lines.text(batch))
    except (_NotCovered, InlongProtoError):  # the streaming path says what it makes of the file
        return False
    for text in texts:  # as output.terminal_json writes each line (Arrow's text holds no lone surrogate)
        if text.isascii() and b"\x7f" not in text:
            stream.write(text.decode("ascii"))
        else:
            stream.write(terminal_escapes(text.decode("utf-8")))
        stream.flush()
    return True


def table_applies(files, output_format: str, follow: bool, fields, expression, as_records: bool,
                  with_payload: bool, max_frame_size, protocol: str) -> bool:
    """Whether decode's packet list (-T table, no -e) can read its files' batches (write_table)."""
    return output_format == "table" and jsonl_applies(files, "jsonl", follow, fields, expression, as_records,
                                                      with_payload, max_frame_size, protocol)


def write_table(path: str, protocol: str, direction: str | None, mode: str, table) -> bool:
    """One file's items as rows of table (a cli.packet_list.PacketList) from its batches, a column at a
    time (packet_list.cells_of); False (nothing written) where the file is to be streamed instead: as
    write_jsonl, and where a row's Info cannot be said from the columns."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    from inlong_proto.cli.packet_list import cells_of
    from inlong_proto.core.errors import InlongProtoError

    read_mode = "DROPMALFORMED" if mode.upper() == "DROPMALFORMED" else "PERMISSIVE"
    rows = []
    try:
        whole = _whole_file(path, protocol, direction, read_mode)
        if whole is None:
            return False
        protocol, capture, batches = whole
        for batch in with_progress_at(batches, path, _position):
            cells = cells_of(batch, protocol, capture) if batch.num_rows else None
            if batch.num_rows and cells is None:
                return False
            if cells is not None:
                rows.append(cells)
    except InlongProtoError:  # the streaming path says what it makes of the file
        return False
    for cells in rows:
        table.write_columns(cells)
    return True


def _whole_file(path: str, protocol: str, direction: str | None, read_mode: str):
    """(the protocol a file is read as, whether it is a capture, its batches) where the columnar outputs take
    the file whole; None where they do not: an empty file, one over JSONL_WHOLE, a dump no protocol's head
    settles on, a capture the compiled walker does not take whole."""
    from inlong_proto.capture.container import is_capture

    with open(path, "rb") as handle:
        head = handle.read(4)
        size = os.fstat(handle.fileno()).st_size
        if not size or size > JSONL_WHOLE:
            return None
        protocol = _file_protocol(handle, protocol)
        if protocol is None:
            return None
        if not is_capture(head):
            return protocol, False, _dump_batches(path, protocol, direction, read_mode)
        handle.seek(0)
        data = handle.read()
    batches = _capture_batches(data, protocol, read_mode, direction)
    return None if batches is None else (protocol, True, batches)


def _file_protocol(handle, protocol: str) -> str | None:
    """The protocol a file's batches are read as: a capture's -p as it is (auto: per flow); with -p auto, a
    dump's that its head settles on, as the streaming path's _LiveDecoder chooses it (None: no protocol, or
    one whose JSON the batches do not hold; the streaming path then says what it makes of the file)."""
    from inlong_proto.capture.container import is_capture
    from inlong_proto.core.detect import HEAD_SIZE, settle

    handle.seek(0)
    head = handle.read(HEAD_SIZE)
    if protocol != arrow.AUTO or is_capture(head[:4]):
        return protocol
    found = settle(head)[0]
    return found if found is not None and jsonl_protocol(found) else None


def _capture_batches(data: bytes, protocol: str, mode: str, direction: str | None):
    """A capture's batches with compiled_capture.ITEM_COLUMNS, the items of -d's TCP direction kept (the
    streaming path keeps a capture's items by their stream); None: not taken whole."""
    import pyarrow.compute as pc

    from inlong_proto.backends import compiled_capture

    batches = compiled_capture.capture_items(data, protocol, mode)
    if batches is None or direction is None:
        return batches
    sender = "client" if direction == "request" else "server"
    return [batch.filter(pc.equal(pc.struct_field(batch.column(arrow.CAPTURE_COLUMN), "sender"), sender))
            for batch in batches]


def _dump_batches(path: str, protocol: str, direction: str | None, mode: str):
    """A raw dump's batches, read as format("inlong") reads a file in one piece."""
    from inlong_proto.core.sources import file_uri, open_source
    from inlong_proto.spark.pieces import piece_batches

    with open_source(path) as src:
        yield from piece_batches(src, file_uri(path), protocol, direction, mode, src.size, 0)


class _NotCovered(Exception):
    """A row whose JSON the columns do not say (a switch with no case, a type JsonText does not write)."""


class JsonText:
    """decode's JSON lines (Frame.to_dict, CaptureFrame.to_dict; {"file": ...} first when named) of a
    protocol's batches, as UTF-8 bytes (output.terminal_escapes is the caller's). Rows are grouped by which
    message columns hold a value, and which flag cases are true (so by frame type and switch case: a group
    has one key layout); a group's lines are joined from per-column JSON texts, and the groups are put back
    in row order."""

    def __init__(self, protocol: str, capture: bool, named: str | None):
        from json.encoder import encode_basestring

        self.frame_types = [(set(_column_names(cls)), cls) for cls in protocols.get(protocol).frame_types]
        self.flags = {case for _, cls in self.frame_types for info in cls.FIELDS if info.kind == "switch"
                      for case, case_cls in info.detail if not case_cls.FIELDS}  # cases without fields: bools
        self.capture = capture
        self.head = "{" + (f'"file": {encode_basestring(named)}, ' if named is not None else "")
        self.not_message = {name for name, _ in arrow.META_COLUMNS} | {arrow.CAPTURE_COLUMN, "flow_number",
                                                                       "timestamp_ns"}

    def text(self, batch) -> bytes:
        """The batch's lines, end to end (each ends in a newline)."""
        return text_bytes(self.lines(batch)).tobytes()

    def lines(self, batch):
        """The batch's lines, an Arrow text array."""
        import numpy as np
        import pyarrow as pa

        columns = [name for name in batch.schema.names if name not in self.not_message]
        flags = [name for name in columns if name in self.flags]
        if len(columns) + len(flags) > 62:
            raise _NotCovered("more message columns than a layout key holds")
        key = np.zeros(batch.num_rows, dtype=np.int64)
        for bit, name in enumerate(columns):
            key |= _mask(batch.column(name).is_valid()).astype(np.int64) << bit
        for bit, name in enumerate(flags, len(columns)):
            key |= _mask(batch.column(name).fill_null(False)).astype(np.int64) << bit
        types: dict = {}  # frame type -> {layout: (names held, flag cases true)}
        for layout in np.unique(key).tolist():
            held = {name for bit, name in enumerate(columns) if layout >> bit & 1}
            true = {name for bit, name in enumerate(flags, len(columns)) if layout >> bit & 1}
            cls = next((cls for names, cls in self.frame_types if held <= names), None)
            if cls is None:
                raise _NotCovered("a row of no one frame type")
            types.setdefault(cls, {})[layout] = held, true
        if len(types) == 1:
            (cls, layouts), = types.items()
            return self._lines(batch, cls, layouts, key)
        parts, order = [], []
        for cls, layouts in types.items():
            rows = np.flatnonzero(np.isin(key, list(layouts)))
            parts.append(self._lines(batch.take(pa.array(rows)), cls, layouts, key[rows]))
            order.append(rows)
        return pa.concat_arrays(parts).take(pa.array(np.argsort(np.concatenate(order), kind="stable")))

    def _lines(self, batch, cls, layouts: dict, key):
        """The lines of rows of one frame type; layouts: each row layout's message columns held and flag
        cases true, by its key (key: each row's)."""
        parts = [self.head]
        if self.capture:
            parts += self._capture_parts(batch)
        get = batch.column
        for name in ("protocol", "offset", "length", "message_type", "direction"):
            parts += [f'"{name}": ', _leaf_text(None, get(name)), ", "]
        parts.pop()
        for info in cls.FIELDS:
            parts.append(f', "{info.name}": ')
            parts.append(_switch_text(info, get, layouts, key) if info.kind == "switch"
                         else _value_text(info, get(info.name)))
        parts.append("}\n")
        return _joined(parts)

    @staticmethod
    def _capture_parts(batch) -> list:
        """CaptureFrame.to_dict's keys before the frame's: flow, stream, timestamp, timestamp_ns, file_offset."""
        import pyarrow as pa
        import pyarrow.compute as pc

        capture = batch.column(arrow.CAPTURE_COLUMN)
        field = capture.field
        ns = batch.column("timestamp_ns")
        values = ns.to_numpy(zero_copy_only=False)
        if ns.null_count or (values < 0).any() or (values >= _YEAR_10000_NS).any():
            raise _NotCovered("a capture time datetime does not hold")
        stamps = pc.cast(pa.array(values // 1000, pa.timestamp("us")), pa.string())  # 2026-11-22 16:13:10.000000
        stamps = pc.replace_substring(stamps, " ", "T", max_replacements=1)
        stamps = pc.replace_substring(stamps, ".000000", "")  # isoformat leaves out a zero fraction
        return ['"flow": {"number": ', _leaf_text(None, batch.column("flow_number")),
                ', "client": ', _leaf_text(None, field("client")),
                ', "client_port": ', _leaf_text(None, field("client_port")),
                ', "server": ', _leaf_text(None, field("server")),
                ', "server_port": ', _leaf_text(None, field("server_port")),
                ', "transport": "tcp", "first_packet_offset": ', _leaf_text(None, field("flow")),
                '}, "stream": ', pc.if_else(pc.equal(field("sender"), "client"), '"request"', '"response"'),
                ', "timestamp": "', stamps, '+00:00", "timestamp_ns": ', _leaf_text(None, ns),
                ', "file_offset": ', _leaf_text(None, field("packet_offset")), ", "]


class AutoJsonText:
    """JsonText for -p auto's capture batches: each protocol's rows said by its own JsonText (by_protocol)."""

    def __init__(self, named: str | None):
        self.named = named
        self.texts: dict[str, JsonText] = {}

    def text(self, batch) -> bytes:
        return text_bytes(by_protocol(batch, self._lines)).tobytes()

    def _lines(self, rows, name: str):
        if name not in self.texts:
            if not jsonl_protocol(name):
                raise _NotCovered(f"a {name} row (its JSON is not in the batches)")
            self.texts[name] = JsonText(name, True, self.named)
        return self.texts[name].lines(rows)


_YEAR_10000_NS = 253402300800 * 10**9  # capture.container.ns_datetime gives None from here on


def _mask(column):
    """A boolean Arrow array (no nulls) as numpy bools."""
    return column.to_numpy(zero_copy_only=False)


def _joined(parts: list):
    """Literal texts and per-row text arrays joined row by row (a literal alone stays a literal)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    merged: list = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    if len(merged) == 1 and isinstance(merged[0], str):
        return merged[0]
    return pc.binary_join_element_wise(*[pa.scalar(part, pa.string()) if isinstance(part, str) else part
                                         for part in merged], pa.scalar("", pa.string()))


def _switch_text(info, get, layouts: dict, key):
    """A switch's JSON ({case: its object}, {case: {}} for a flag case) row by row: each layout's case,
    written over its rows' values of that case's column and put in place."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = None
    for layout, (held, true) in layouts.items():
        case = next((case for case, case_cls in info.detail
                     if case in held and (case_cls.FIELDS or case in true)), None)
        if case is None:
            raise _NotCovered("a switch with no case")
        case_cls = dict(info.detail)[case]
        rows = key == layout
        mask = pa.array(rows) if len(layouts) > 1 else None
        if case_cls.FIELDS:
            column = get(case) if mask is None else pc.filter(get(case), mask)
            value = _joined([f'{{"{case}": ', _object_text(case_cls, column), "}"])
        else:
            value = f'{{"{case}": {{}}}}'
        if mask is None:
            return value
        if isinstance(value, str):
            value = pa.array([value] * int(rows.sum()), pa.string())
        text = pc.replace_with_mask(pa.nulls(len(key), pa.string()) if text is None else text, mask, value)
    return text


def _object_text(cls, column):
    """A struct column of a frame type's message class as JSON objects (null where the struct is)."""
    import pyarrow.compute as pc

    parts = ["{"]
    for info in cls.FIELDS:
        if info.kind == "switch":
            raise _NotCovered("a switch inside a struct")
        parts += [f'"{info.name}": ', _value_text(info, pc.struct_field(column, info.name)), ", "]
    parts[-1] = "}"
    text = _joined(parts)  # an array: FIELDS is never empty here (a case without fields is a flag)
    return pc.if_else(column.is_valid(), text, "null") if column.null_count else text


def _value_text(info, column):
    """A field's column as JSON texts, as core.plain.to_plain then json write its values."""
    if info.kind == "struct":
        return _object_text(info.detail, column)
    if info.kind == "enum":
        return _enum_text(column, set(info.detail.__members__))
    if info.kind == "bytes":
        import pyarrow as pa

        try:
            return _leaf_text(None, column.cast(pa.string()))
        except pa.ArrowInvalid:  # some value is not UTF-8: {"hex": ...} (render_bytes), value by value
            return _python_text(column, render_bytes)
    if info.kind == "datetime":
        from inlong_proto.core.plain import render_datetime

        return _python_text(column, render_datetime)
    if info.kind == "list":
        return _python_text(column, _list_of(info.detail))
    return _leaf_text(info, column)


def _leaf_text(info, column):
    """A column of values to_plain keeps as they are, as JSON texts by its Arrow type: integers cast and
    booleans spelt by Arrow, text quoted by Arrow unless it holds a character JSON escapes (json's own
    encode_basestring writes those), anything else value by value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_integer(kind):
        return pc.cast(column, pa.string()).fill_null("null")
    if pa.types.is_boolean(kind):
        return pc.if_else(column, "true", "false").fill_null("null")
    if pa.types.is_string(kind):
        from json.encoder import encode_basestring

        quote = pa.scalar('"', pa.string())
        text = pc.binary_join_element_wise(quote, column, quote, pa.scalar("", pa.string()))
        escaped = pc.fill_null(pc.match_substring_regex(column, r'["\\\x00-\x1f]'), False)
        if pc.any(escaped).as_py():
            cells = [encode_basestring(value) for value in pc.filter(column, escaped).to_pylist()]
            text = pc.replace_with_mask(text, escaped, pa.array(cells, pa.string()))
        return text.fill_null("null")
    return _python_text(column, lambda value: value)


def _enum_text(column, members: set):
    """An enum column (names; an unknown value's number as text) as to_plain writes it: a member's name as
    text, another value as its number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = _leaf_text(None, column)
    unknown = pc.and_(column.is_valid(), pc.invert(pc.is_in(column, value_set=pa.array(sorted(members),
                                                                                          pa.string()))))
    if pc.any(unknown).as_py():
        try:
            numbers = [str(int(value)) for value in pc.filter(column, unknown).to_pylist()]
        except ValueError:
            raise _NotCovered("an enum value that is neither a name nor a number") from None
        text = pc.replace_with_mask(text, unknown, pa.array(numbers, pa.string()))
    return text


def _python_text(column, convert):
    """A column's JSON texts value by value (json's encoder, as decode's streaming path writes them)."""
    import pyarrow as pa

    encode = json.JSONEncoder(ensure_ascii=False).encode
    try:
        return pa.array(["null" if value is None else encode(convert(value)) for value in column.to_pylist()],
                        pa.string())
    except (TypeError, ValueError):  # a value json cannot write
        raise _NotCovered("a value json cannot write") from None


def _column_names(cls) -> list[str]:
    """A frame type's own columns (arrow._message_fields: a switch's cases lifted to its level)."""
    out = []
    for info in cls.FIELDS:
        out += [case for case, _ in info.detail] if info.kind == "switch" else [info.name]
    return out


def _list_of(info):
    """A list field's values as to_plain writes them (given a list, never None)."""
    if info.kind == "struct":
        convert = _plain_of(info.detail)
    elif info.kind == "list":
        convert = _list_of(info.detail)
    else:
        convert = _leaf(info)
    return lambda values: [None if value is None else convert(value) for value in values]


def _plain_of(cls):
    """{column: value} of a struct's fields -> to_plain(message), from cls.FIELDS (lists of structs)."""
    converts = []
    for info in cls.FIELDS:
        if info.kind == "switch":
            raise _NotCovered("a switch inside a list")
        convert = (_plain_of(info.detail) if info.kind == "struct" else _list_of(info.detail)
                   if info.kind == "list" else _leaf(info))
        converts.append((info.name, convert))

    def plain(row: dict) -> dict:
        return {name: None if row.get(name) is None else convert(row[name]) for name, convert in converts}

    return plain


def _leaf(info):
    """A value's converter (never given None)."""
    if info.kind == "enum":
        members = set(info.detail.__members__)
        return lambda value: value if value in members else int(value)
    if info.kind == "bytes":
        return render_bytes
    if info.kind == "datetime":
        from inlong_proto.core.plain import render_datetime

        return render_datetime
    return lambda value: value

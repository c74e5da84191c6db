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
  (printable(), and a leading quote before a formula start), row by row only where a cell needs it.

With -T csv / parquet and an -e, -Y, --records or --payload, and for -T jsonl / json / table / wide, decode
keeps its streaming path (output.py): those need each item's JSON. The modes are the readers': PERMISSIVE
keeps error rows, DROPMALFORMED leaves them out, FAILFAST stops at the first with one error line (exit 1).
A capture's frames keep their TCP direction; -d keeps the frames of one direction, as the streaming path
does. Memory: a dump is mapped and scanned in place, a capture is read whole (CAPTURE_WHOLE); a batch at
a time is held.
"""
from __future__ import annotations

import os

from inlong_proto.cli.failure import Failure
from inlong_proto.cli.query import QueryError
from inlong_proto.core import arrow, protocols
from inlong_proto.core.plain import render_bytes

FORMATS = ("parquet", "csv")
EXTRA = "inlong-proto[spark]"  # the extra that brings pyarrow (pyspark is not needed here)


def applies(files, output_format: str, follow: bool, fields, expression, as_records: bool, with_payload: bool,
            max_frame_size) -> bool:
    """Whether decode can take the fast path: every input a regular file, and nothing asks for item JSON."""
    if output_format not in FORMATS or follow or fields or expression or as_records or with_payload:
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
            for batch in file_batches(path, protocol, direction, mode):
                out.write(batch)
    finally:
        out.close()
        sink.flush()


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
        self.writer = pcsv.CSVWriter(sink, self.schema)

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


# printable ASCII, no formula start: such a cell is written as it is; any other goes through output.csv_cell
_PLAIN = r"^([\x20-\x2a\x2c\x2e-\x3c\x3e\x3f\x41-\x7e][\x20-\x7e]*)?$"  # not = + - @ first


def csv_batch(batch, schema):
    """batch flattened and its text made safe for CSV, in csv_schema's columns."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from inlong_proto.cli.output import csv_cell

    columns = []
    for (name, column), field in zip(_flat_columns(batch), schema):
        kind = column.type
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            column = pa.array([None if value is None else csv_cell(render_bytes(value))
                               for value in column.to_pylist()], pa.string())
        elif pa.types.is_list(kind) or pa.types.is_map(kind):
            column = pa.array([None if value is None else csv_cell(list(value))
                               for value in column.to_pylist()], pa.string())
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            plain = pc.fill_null(pc.match_substring_regex(column, _PLAIN), True)
            if not pc.all(plain).as_py():
                values = column.to_pylist()
                flags = plain.to_pylist()
                column = pa.array([value if flag else csv_cell(value) for value, flag in zip(values, flags)],
                                  pa.string())
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)

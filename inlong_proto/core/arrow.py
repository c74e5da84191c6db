"""Arrow (and Spark) tables of decoded frames, walked from the FIELDS metadata the generator emits.

Nothing here knows a protocol: every column comes from a frame type's FIELDS, so a new spec gets a
table schema for free. One row per Frame; error spans keep their location, reason and bytes (the
corrupt-record column, as Spark's JSON and CSV readers name it) and leave the message columns null, so
a PERMISSIVE read still accounts for every byte of a dump.

Times: a timestamp the wire writes as zone-less wall-clock text (broadcast's bracketed
``[yyyy-MM-dd HH:mm:ss.SSS]``) is an Arrow timestamp without zone, TIMESTAMP_NTZ in Spark; an instant
(an epoch count: a pcap packet time, DataProxy's ``dt`` attribute) is an Arrow timestamp in UTC,
TIMESTAMP in Spark (shown in the session time zone). spark_schema maps one to the other.

pyarrow (and pyspark, for the Spark schema) are imported inside the functions: the core package must
work without the optional ``spark`` extra.
"""
from __future__ import annotations

import json
import re
from functools import cache
from typing import Iterable

from inlong_proto.core import protocols
from inlong_proto.core.errors import DecodeError

# The column holding an error row's raw bytes (null for frames), named as Spark's JSON and CSV readers name
# theirs; the readers rename it after their columnNameOfCorruptRecord option (with_corrupt_record).
CORRUPT_RECORD = "_corrupt_record"
# Columns every protocol's table starts with, in order; the frame type's own fields follow.
META_COLUMNS = (
    ("path", "string"), ("offset", "int64"), ("length", "int64"), ("protocol", "string"),
    ("direction", "string"), ("message_type", "string"), ("error", "string"), (CORRUPT_RECORD, "binary"),
)
# The last column of every table: where a frame read out of a pcap / pcapng capture came from (its TCP
# flow, which end sent it, the time and file offset of the packet holding its first byte); null for dumps.
CAPTURE_COLUMN = "capture"
_DECIMAL = re.compile(r"^decimal128\((\d+),\s*(\d+)\)$")


def _plain_type(arrow: str):
    """The pyarrow type named by a FieldInfo.arrow string (the generator's closed vocabulary)."""
    import pyarrow as pa

    match = _DECIMAL.match(arrow)
    if match:
        return pa.decimal128(int(match[1]), int(match[2]))
    if arrow == "timestamp[ms]":
        return pa.timestamp("ms")  # no zone: the generator's datetimes are zone-less wall-clock text
    return pa.type_for_alias(arrow)


def _message_fields(cls) -> list:
    """Arrow fields of one generated message class: a switch becomes one struct field per case."""
    import pyarrow as pa

    out = []
    for info in cls.FIELDS:
        if info.kind == "switch":
            out += [pa.field(case, _struct_type(case_cls)) for case, case_cls in info.detail]
        elif info.kind in ("struct", "list"):
            out.append(pa.field(info.name, _column_type(info)))
        else:
            out.append(pa.field(info.name, _plain_type(info.arrow)))
    _check_unique(cls.__name__, [f.name for f in out])
    return out


def _column_type(info):
    import pyarrow as pa

    if info.kind == "struct":
        return _struct_type(info.detail)
    if info.kind == "list":
        return pa.list_(_column_type(info.detail))
    return _plain_type(info.arrow)


def _struct_type(cls):
    """A message type's column: a struct of its fields, or BOOLEAN (true where the row holds it) for a type
    without fields, since Parquet, ORC and Spark's file sinks cannot write an empty struct."""
    import pyarrow as pa

    fields = _message_fields(cls)
    return pa.struct(fields) if fields else pa.bool_()


def _check_unique(owner: str, names: list[str]) -> None:
    seen, clashes = set(), set()
    for name in names:
        (clashes if name in seen else seen).add(name)
    if clashes:
        raise ValueError(f"{owner}: column name(s) {', '.join(sorted(clashes))} occur twice "
                         f"(a field, a switch case or a frame column share a name)")


@cache
def frame_schema(protocol: str | None):
    """The pyarrow.Schema of a protocol's frame table: META_COLUMNS, the frame type's fields, CAPTURE_COLUMN.

    protocol None: the table of bytes no registered protocol describes (META_COLUMNS and CAPTURE_COLUMN).
    """
    import pyarrow as pa

    fields = list(meta_schema())
    if protocol is None:
        return pa.schema(fields + [capture_field()])
    if protocol in protocols.STREAM_PROTOCOLS:
        fields += [pa.field(name, _stream_type(kind)) for name, (_, kind) in _stream_columns(protocol).items()]
        fields.append(capture_field())
        _check_unique(f"protocol {protocol}", [f.name for f in fields])
        return pa.schema(fields)
    proto = protocols.get(protocol)
    merged: dict = {}
    for frame_type in proto.frame_types:  # request and response layouts share one table
        for column in _message_fields(frame_type):
            if column.name in merged and merged[column.name].type != column.type:
                raise ValueError(f"protocol {protocol}: column {column.name} has different types in its "
                                 f"request and response layouts")
            merged.setdefault(column.name, column)
    fields += merged.values()
    fields.append(capture_field())
    _check_unique(f"protocol {protocol}", [f.name for f in fields])
    return pa.schema(fields)


@cache
def meta_schema():
    """The pyarrow.Schema of the META_COLUMNS alone."""
    import pyarrow as pa

    return pa.schema([pa.field(name, _plain_type(arrow)) for name, arrow in META_COLUMNS])


@cache
def capture_field():
    """CAPTURE_COLUMN's field; its time is an instant (pcap stores UTC epoch times), unlike wire times."""
    import pyarrow as pa

    return pa.field(CAPTURE_COLUMN, pa.struct([
        ("flow", pa.int64()), ("client", pa.string()), ("client_port", pa.int32()), ("server", pa.string()),
        ("server_port", pa.int32()), ("sender", pa.string()), ("time", pa.timestamp("us", tz="UTC")),
        ("packet_offset", pa.int64())]))


def capture_value(item) -> tuple:
    """The CAPTURE_COLUMN value of an inlong_proto.capture.CaptureFrame (sender: "client" or "server")."""
    flow = item.flow
    if flow is None:  # a broken stretch of the capture file itself
        return (None, None, None, None, None, None, item.timestamp, item.file_offset)
    return (flow.first_packet_offset, flow.client, flow.client_port, flow.server, flow.server_port,
            "client" if item.direction == "request" else "server", item.timestamp, item.file_offset)


def spark_schema(protocol: str, corrupt_record: str = CORRUPT_RECORD):
    """The Spark StructType of frame_schema, the corrupt-record column named corrupt_record.

    Zone-less Arrow timestamps (wall-clock text on the wire) become TIMESTAMP_NTZ, UTC ones (instants such
    as capture.time) TIMESTAMP.
    """
    return to_spark_schema(frame_schema(protocol), corrupt_record)


def to_spark_schema(schema, corrupt_record: str = CORRUPT_RECORD):
    """A pyarrow schema of this module's tables as a Spark StructType: zone-less timestamps as
    TIMESTAMP_NTZ, UTC ones as TIMESTAMP, and CORRUPT_RECORD renamed to corrupt_record."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return with_corrupt_record(from_arrow_schema(schema, prefer_timestamp_ntz=True), corrupt_record)


def with_corrupt_record(schema, name: str):
    """A Spark StructType with its CORRUPT_RECORD field renamed to name (columnNameOfCorruptRecord)."""
    from pyspark.sql.types import StructField, StructType

    name = check_corrupt_record(name, schema.fieldNames())
    if name == CORRUPT_RECORD:
        return schema
    return StructType([StructField(name, field.dataType, field.nullable, field.metadata)
                       if field.name == CORRUPT_RECORD else field for field in schema.fields])


def check_corrupt_record(name, columns) -> str:
    """name, if it can name the corrupt-record column of a table with these columns (no clash)."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"columnNameOfCorruptRecord must be a non-empty column name, not {name!r}")
    if name != CORRUPT_RECORD and name.lower() in {column.lower() for column in columns}:
        raise ValueError(f"columnNameOfCorruptRecord {name!r} is already a column of the table")
    return name


def spark_ddl(protocol: str, corrupt_record: str = CORRUPT_RECORD) -> str:
    """spark_schema as a DDL string, e.g. for a UDTF returnType; needs no running SparkContext."""
    return ", ".join(f"`{field.name}` {field.dataType.simpleString()}"
                     for field in spark_schema(protocol, corrupt_record))


def frame_row(path: str, frame) -> dict:
    """One Frame as a {column: value} dict of its protocol's frame_schema (structs as nested dicts).

    A convenience for looking at one row; tables are built by frames_to_batch.
    """
    protocol = frame.protocol if frame.protocol in protocols.every_name() else None
    return frames_to_batch(path, [frame], protocol).to_pylist()[0]


def frame_tuple(path: str, frame, protocol: str | None, capture: tuple | None = None) -> tuple:
    """One Frame as a tuple in frame_schema(protocol) order (structs as tuples); missing columns are null.

    Spark and Arrow take the tuples as they are. capture: the frame's capture_value, if it has one. An
    error row's CORRUPT_RECORD is its Frame.raw (null for frames).
    """
    message, error = frame.message, frame.error
    if error is None and protocol in protocols.STREAM_PROTOCOLS:
        columns = _stream_row(protocol, frame)
    elif message is None or protocol is None:
        columns = _EMPTY[protocol]
    else:
        columns = _row_function(protocol, type(message))(message)
    if error is None:
        return (path, frame.offset, frame.length, frame.protocol, frame.direction, frame.message_type,
                None, None) + columns + (capture,)
    return (path, frame.offset, frame.length, frame.protocol, frame.direction, frame.message_type,
            str(error), _bytes_or_none(frame.raw)) + columns + (capture,)


def frames_to_batch(path: str, frames: Iterable, protocol: str | None, captures: Iterable | None = None):
    """A pyarrow.RecordBatch of frame_schema(protocol) holding the given Frames (error spans included).

    captures: each frame's capture_value, for frames read out of a capture. Built column by column from
    frame_tuple rows: pyarrow converts a list per column in C, several times faster than from_pylist
    over one dict per row.
    """
    if captures is None:
        rows = [frame_tuple(path, frame, protocol) for frame in frames]
    else:
        rows = [frame_tuple(path, frame, protocol, capture) for frame, capture in zip(frames, captures)]
    return rows_to_batch(rows, frame_schema(protocol))


def rows_to_batch(rows: list, schema):
    """A pyarrow.RecordBatch of schema from frame_tuple rows."""
    import pyarrow as pa

    columns = zip(*rows) if rows else ((),) * len(schema)
    return pa.RecordBatch.from_arrays([pa.array(column, type=field.type) for column, field
                                       in zip(columns, schema)], schema=schema)


def row_bytes(value) -> int:
    """About the bytes a frame_tuple row (or any of its values) takes in Arrow: text and bytes by length,
    other values 8, and 4 more for each value (offsets, validity). The Spark readers cut batches and bound
    rows by it, before any Arrow memory is taken. Leaves are weighed inline (this runs once per row)."""
    kind = type(value)
    if kind is not tuple and kind is not list:
        return _leaf_bytes(value) if kind is not dict else row_bytes(list(value.items()))
    total = 4
    for item in value:
        kind = type(item)
        if kind is str:
            total += (len(item) if item.isascii() else len(item.encode("utf-8", "surrogatepass"))) + 4
        elif item is None:
            total += 1
        elif kind is tuple or kind is list or kind is dict:
            total += row_bytes(item)
        else:
            total += _leaf_bytes(item)
    return total


def _leaf_bytes(value) -> int:
    kind = type(value)
    if kind is bytes or kind is bytearray:
        return len(value) + 4
    if kind is memoryview:
        return value.nbytes + 4
    if kind is str:
        return (len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))) + 4
    return 8 if value is not None else 1


class _EmptyColumns(dict):
    """protocol -> the all-null frame columns of an error row."""

    def __missing__(self, protocol):
        self[protocol] = (None,) * (len(frame_schema(protocol)) - len(META_COLUMNS) - 1)
        return self[protocol]


_EMPTY = _EmptyColumns()


@cache
def _row_function(protocol: str, cls):
    """message -> its frame columns as a tuple in frame_schema(protocol) order: the frame_columns function that
    tools/ksygen/rows.py generated for the spec of cls (generated/rows, next to its codec), checked once against
    the columns this module derives from FIELDS."""
    import importlib

    codec = cls.__module__
    if not codec.startswith(_CODECS):
        raise TypeError(f"{cls.__name__} is not a generated frame type")
    rows = importlib.import_module(_ROWS + codec[len(_CODECS):])
    if rows.FRAME is not cls or rows.PROTOCOL != protocol:
        raise TypeError(f"{cls.__name__} is not a frame of protocol {protocol!r}")
    columns = tuple(frame_schema(protocol).names[len(META_COLUMNS):-1])
    if rows.COLUMNS != columns:
        raise RuntimeError(f"{rows.__name__} is stale: its columns are not those of the codecs (run make generate)")
    return rows.frame_columns


_CODECS = "inlong_proto.generated.codec."
_ROWS = "inlong_proto.generated.rows."


# ------------------------------------------------------------------ stream protocols (HTTP/1.1, HTTP/2 + gRPC)
# Their items are not generated messages: each module's COLUMNS names the to_dict keys of its struct column and
# their types, in the generator's vocabulary plus three for nested values (below).
@cache
def _stream_columns(protocol: str) -> dict:
    """{column: (to_dict key, type)} of a stream protocol's frame columns."""
    import importlib

    columns = importlib.import_module(protocols.STREAM_PROTOCOLS[protocol]).COLUMNS
    return {name: spec if isinstance(spec, tuple) else (name, spec) for name, spec in columns.items()}


def _stream_type(kind: str):
    import pyarrow as pa

    if kind == "json":  # any JSON value, as its text
        return pa.string()
    if kind in ("list<json>", "list<string>"):
        return pa.list_(pa.string())
    if kind == "headers":
        return pa.list_(pa.struct([("name", pa.string()), ("value", pa.string())]))
    return _plain_type(kind)


def _stream_row(protocol: str, item) -> tuple:
    """An item's columns of frame_schema(protocol), from its to_dict."""
    values = item.to_dict()
    return tuple(_stream_value(kind, values.get(key)) for key, kind in _stream_columns(protocol).values())


def _stream_value(kind: str, value):
    if value is None:
        return None
    if kind == "json":
        return json.dumps(value, ensure_ascii=False)
    if kind == "list<json>":
        return [json.dumps(item, ensure_ascii=False) for item in value]
    if kind == "list<string>":
        return [_as_text(item) for item in value]
    if kind == "headers":
        return [(_as_text(name), _as_text(text)) for name, text in value]
    return value


def _as_text(value):
    """Text as it is; anything else (a {"hex": ...} rendering of bytes that are not UTF-8) as its JSON."""
    return value if value is None or isinstance(value, str) else json.dumps(value)


def _bytes_or_none(value):
    return None if value is None else bytes(value)


# ---------------------------------------------------------------------------------------------------
# protocol=auto: one struct of frame columns per protocol (the data source's and the compiled capture walker's)

AUTO = "auto"


@cache
def auto_schema(carried: tuple[str, ...] | None = None):
    """The pyarrow schema of protocol=auto: the meta columns (the corrupt-record column among them), one
    struct of frame columns per protocol carried (carried_protocols; None: every protocol), then the capture
    column."""
    import pyarrow as pa

    meta = len(META_COLUMNS)
    fields = list(meta_schema())
    for name in carried_protocols(carried):
        fields.append(pa.field(protocols.column_name(name), pa.struct(list(frame_schema(name))[meta:-1])))
    return pa.schema(fields + [capture_field()])


def carried_protocols(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """The protocols whose structs an auto table carries, checked, once each, in the registry's order (so the
    table's columns do not depend on how the list was spelt); None: every protocol."""
    if names is None:
        return tuple(protocols.every_name())
    given = {protocols.checked(name) for name in names}
    return tuple(name for name in protocols.every_name() if name in given)


def carry(batch, carried: tuple[str, ...] | None, mode: str = "PERMISSIVE"):
    """An auto_schema() batch as the table of auto_schema(carried) holds it: the other protocols' structs left
    out, and a frame of one of them made an error row, never dropped unsaid. That row keeps its meta columns
    (protocol, direction, offset, length) and loses its message_type; its error says which protocol the table
    lacks; its corrupt-record column stays null (the frame's bytes are at offset and length). DROPMALFORMED
    leaves such rows out; FAILFAST keeps them, for the caller to fail at the first (first_error). carried None:
    every protocol, the batch as it is."""
    import pyarrow as pa
    import pyarrow.compute as pc

    carried = carried_protocols(carried)
    if len(carried) == len(_protocol_names()):
        return batch
    error, protocol = batch.column("error"), batch.column("protocol")
    foreign = pc.and_(pc.is_null(error), pc.invert(pc.fill_null(pc.is_in(protocol, pa.array(carried)), True)))
    if pc.any(foreign).as_py():
        reason = pc.binary_join_element_wise(
            "a ", protocol, f" frame, a protocol this table has no column for (it carries "
                            f"{', '.join(carried)}: name the protocols it should carry)", "")
        if mode == "DROPMALFORMED":
            batch = batch.filter(pc.invert(foreign))
        else:
            columns = dict(zip(batch.schema.names, batch.columns))
            columns["error"] = pc.if_else(foreign, reason, error)
            columns["message_type"] = pc.if_else(foreign, pa.scalar(None, pa.string()), columns["message_type"])
            batch = pa.RecordBatch.from_arrays(list(columns.values()), schema=batch.schema)
    schema = auto_schema(carried)
    return pa.RecordBatch.from_arrays([batch.column(name) for name in schema.names], schema=schema)


def first_error(batch) -> DecodeError | None:
    """The error of a batch's first error row (offset and reason), or None: where a FAILFAST read stops."""
    import pyarrow.compute as pc

    errors = batch.column("error")
    if errors.null_count == len(errors):
        return None
    first = pc.index(pc.is_valid(errors), True).as_py()
    return DecodeError(batch.column("offset")[first].as_py(), "", errors[first].as_py())


def auto_batch(path: str, frames: list, captures: list | None = None):
    """An auto_schema batch: each frame's columns go into the struct of its own protocol (a capture mixes
    protocols); frames of no registered protocol have the meta and capture columns only. The meta columns,
    the corrupt-record bytes among them, are frame_tuple's."""
    captures = captures if captures is not None else [None] * len(frames)
    return rows_batch(AUTO, [(own, frame_tuple(path, frame, own, capture))
                             for frame, capture in zip(frames, captures)
                             for own in [own_protocol(frame)]])


def own_protocol(frame) -> str | None:
    """The protocol whose struct holds a frame's columns under protocol=auto."""
    return frame.protocol if frame.protocol in _protocol_names() else None


@cache
def _protocol_names() -> frozenset:
    return frozenset(protocols.every_name())


def rows_batch(protocol: str, chunk: list):
    """The batch of (own protocol, frame_tuple row) pairs: frame_schema(protocol), or with
    protocol=auto auto_schema, each row's frame columns in the struct of its own protocol."""
    import pyarrow as pa

    rows = [row for _, row in chunk]
    if protocol != AUTO:
        return rows_to_batch(rows, frame_schema(protocol))
    schema, meta = auto_schema(), len(META_COLUMNS)
    columns = rows_to_batch([row[:meta] for row in rows], meta_schema()).columns
    where: dict[str | None, list[int]] = {}
    for index, (own, _) in enumerate(chunk):
        where.setdefault(own, []).append(index)
    for name in protocols.every_name():
        kind = schema.field(protocols.column_name(name)).type
        picked = where.get(name)
        if not picked:
            columns.append(pa.nulls(len(rows), kind))
            continue
        own_rows = [rows[i] for i in picked] if len(picked) != len(rows) else rows
        struct = _protocol_struct(rows_to_batch(own_rows, frame_schema(name)), kind)
        if len(picked) != len(rows):  # scatter: row i takes item k of struct, or null
            slot = dict(zip(picked, range(len(picked))))
            struct = struct.take(pa.array([slot.get(i) for i in range(len(rows))], type=pa.int64()))
        columns.append(struct)
    columns.append(pa.array([row[-1] for row in rows], type=capture_field().type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def auto_of(batch, protocol: str):
    """A frame_schema(protocol) batch (one dump's rows) as an auto_schema batch: its frame columns in
    the protocol's struct, the other protocols' structs null."""
    import pyarrow as pa

    schema, meta = auto_schema(), len(META_COLUMNS)
    columns = batch.columns[:meta]
    for name in protocols.every_name():
        kind = schema.field(protocols.column_name(name)).type
        columns.append(_protocol_struct(batch, kind) if name == protocol else pa.nulls(batch.num_rows, kind))
    columns.append(batch.column(CAPTURE_COLUMN))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _protocol_struct(batch, kind):
    """A protocol's frame columns of a frame_schema batch as its auto struct, null on error rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa.StructArray.from_arrays(batch.columns[len(META_COLUMNS):-1], fields=list(kind),
                                      mask=pc.is_valid(batch.column("error")))


# ---------------------------------------------------------------------------------------------------
# The date column of the readers' tables, for partitionBy("protocol", "date")

DATE = "date"


def date_field():
    """The DATE column: an Arrow date32, DATE in Spark."""
    import pyarrow as pa

    return pa.field(DATE, pa.date32())


def spark_arrow_form(schema):
    """schema as Spark's readers hand their batches over (spark.common.spark_arrow_schema, without pyspark):
    every timestamp in microseconds, its zone kept; the rest unchanged. What `decode -T parquet` writes."""
    import pyarrow as pa

    def form(kind):
        if pa.types.is_timestamp(kind):
            return pa.timestamp("us", kind.tz)
        if pa.types.is_struct(kind):
            return pa.struct([field.with_type(form(field.type)) for field in kind])
        if pa.types.is_list(kind):
            return pa.list_(kind.value_field.with_type(form(kind.value_type)))
        return kind

    return pa.schema([field.with_type(form(field.type)) for field in schema], metadata=schema.metadata)


def dated_schema(schema):
    """A pyarrow schema with the DATE column appended."""
    return schema.append(date_field())


def check_date_column(schema, name: str) -> str:
    """name, a dotted path through struct columns of a pyarrow schema (``data_response.timestamp``;
    ``broadcast.data_response.timestamp`` under protocol=auto) to a timestamp or date column; a ValueError
    naming what is wrong otherwise."""
    import pyarrow as pa

    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"dateColumn must name a timestamp or date column, not {name!r}")
    kind, where = pa.struct(list(schema)), []
    for part in name.split("."):
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            raise ValueError(f"dateColumn {name!r}: {'.'.join(where) or 'the table'} has no column {part!r}")
        kind = kind.field(part).type
        where.append(part)
    if not (pa.types.is_timestamp(kind) or pa.types.is_date(kind)):
        raise ValueError(f"dateColumn {name!r} is {kind}, not a timestamp or date")
    return name


def with_date(batch, day=None, date_column: str | None = None):
    """batch with the DATE column appended: the date of date_column's value (a check_date_column path) where
    it has one, else the UTC date of the capture time (a frame read out of a pcap / pcapng capture), else
    day (a datetime.date: the file's modification date, UTC), else null. A wall-clock timestamp (zone-less)
    gives its own date, an instant its UTC date."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dates = pa.nulls(batch.num_rows, pa.date32())
    sources = [CAPTURE_COLUMN + ".time"] if CAPTURE_COLUMN in batch.schema.names else []
    for path in ([date_column] if date_column else []) + sources:
        column = batch
        for part in path.split("."):
            column = column.column(part) if column is batch else pc.struct_field(column, part)
        if pa.types.is_timestamp(column.type) and column.type.tz is not None:
            column = pc.cast(column, pa.timestamp(column.type.unit))  # the UTC wall clock of the instant
        dates = pc.coalesce(dates, pc.cast(column, pa.date32()))
    if day is not None:
        dates = pc.fill_null(dates, pa.scalar(day, pa.date32()))
    return pa.RecordBatch.from_arrays(batch.columns + [dates], schema=batch.schema.append(date_field()))

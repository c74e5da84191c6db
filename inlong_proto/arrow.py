"""Arrow (and Spark) tables of decoded frames, walked from the FIELDS metadata the generator emits.

Nothing here knows a protocol: every column comes from a frame type's FIELDS, so a new spec gets a
table schema for free. One row per Frame; error spans keep their location and reason and leave the
message columns null, so a PERMISSIVE read still accounts for every byte of a dump.

pyarrow (and pyspark, for the Spark schema) are imported inside the functions: the core package must
work without the optional ``spark`` extra.
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import Iterable

from . import protocols

# Columns every protocol's table starts with, in order; the frame type's own fields follow.
META_COLUMNS = (
    ("path", "string"), ("offset", "int64"), ("length", "int64"), ("protocol", "string"),
    ("direction", "string"), ("message_type", "string"), ("error", "string"),
)
_DECIMAL = re.compile(r"^decimal128\((\d+),\s*(\d+)\)$")


def _plain_type(arrow: str):
    """The pyarrow type named by a FieldInfo.arrow string (the generator's closed vocabulary)."""
    import pyarrow as pa

    match = _DECIMAL.match(arrow)
    if match:
        return pa.decimal128(int(match[1]), int(match[2]))
    if arrow == "timestamp[ms]":
        return pa.timestamp("ms")  # no zone: the wire carries local wall-clock times
    return pa.type_for_alias(arrow)


def _message_fields(cls) -> list:
    """Arrow fields of one generated message class: a switch becomes one struct field per case."""
    import pyarrow as pa

    out = []
    for info in cls.FIELDS:
        if info.kind == "switch":
            out += [pa.field(case, pa.struct(_message_fields(case_cls))) for case, case_cls in info.detail]
        elif info.kind in ("struct", "list"):
            out.append(pa.field(info.name, _column_type(info)))
        else:
            out.append(pa.field(info.name, _plain_type(info.arrow)))
    _check_unique(cls.__name__, [f.name for f in out])
    return out


def _column_type(info):
    import pyarrow as pa

    if info.kind == "struct":
        return pa.struct(_message_fields(info.detail))
    if info.kind == "list":
        return pa.list_(_column_type(info.detail))
    return _plain_type(info.arrow)


def _check_unique(owner: str, names: list[str]) -> None:
    seen, clashes = set(), set()
    for name in names:
        (clashes if name in seen else seen).add(name)
    if clashes:
        raise ValueError(f"{owner}: column name(s) {', '.join(sorted(clashes))} occur twice "
                         f"(a field, a switch case or a frame column share a name)")


@cache
def frame_schema(protocol: str):
    """The pyarrow.Schema of a protocol's frame table: META_COLUMNS, then the frame type's fields."""
    import pyarrow as pa

    proto = protocols.get(protocol)
    fields = [pa.field(name, _plain_type(arrow)) for name, arrow in META_COLUMNS]
    merged: dict = {}
    for frame_type in proto.frame_types:  # request and response layouts share one table
        for column in _message_fields(frame_type):
            if column.name in merged and merged[column.name].type != column.type:
                raise ValueError(f"protocol {protocol}: column {column.name} has different types in its "
                                 f"request and response layouts")
            merged.setdefault(column.name, column)
    fields += merged.values()
    _check_unique(f"protocol {protocol}", [f.name for f in fields])
    return pa.schema(fields)


def spark_schema(protocol: str):
    """The Spark StructType of frame_schema (timestamps as TIMESTAMP_NTZ: the wire has no zone)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(frame_schema(protocol), prefer_timestamp_ntz=True)


def spark_ddl(protocol: str) -> str:
    """spark_schema as a DDL string, e.g. for a UDTF returnType; needs no running SparkContext."""
    return ", ".join(f"`{field.name}` {field.dataType.simpleString()}" for field in spark_schema(protocol))


def _message_values(cls, message, out: dict) -> dict:
    """Fill out with one message's column values, in the shape _message_fields gives them."""
    for info in cls.FIELDS:
        value = getattr(message, info.name)
        if info.kind == "switch":
            for case, case_cls in info.detail:
                # A body the spec has no case for (raw bytes) fills no case column.
                out[case] = _message_values(case_cls, value, {}) if type(value) is case_cls else None
        else:
            out[info.name] = _column_value(info, value)
    return out


def _column_value(info, value):
    if value is None:
        return None
    if info.kind == "struct":
        return _message_values(info.detail, value, {})
    if info.kind == "list":
        return [_column_value(info.detail, item) for item in value]
    return _plain_value(info, value)


def _plain_value(info, value):
    if value is None:
        return None
    if info.kind == "enum":
        member = info.detail._value2member_map_.get(int(value))
        return member.name if member is not None else str(int(value))
    if info.arrow.startswith("decimal128"):
        return Decimal(value)  # Spark's Arrow conversion wants Decimal, not int, for DECIMAL columns
    if info.kind == "bytes":
        return bytes(value)
    return value


def frame_row(path: str, frame) -> dict:
    """One Frame as a {column: value} dict of frame_schema (structs as nested dicts)."""
    row = {"path": path, "offset": frame.offset, "length": frame.length, "protocol": frame.protocol,
           "direction": frame.direction, "message_type": frame.message_type,
           "error": None if frame.error is None else str(frame.error)}
    if frame.message is not None:
        _message_values(type(frame.message), frame.message, row)
    return row


def frame_tuple(path: str, frame, protocol: str) -> tuple:
    """frame_row as a tuple in schema order (what a Python UDTF yields); missing columns are null."""
    row = frame_row(path, frame)
    return tuple(row.get(name) for name in frame_schema(protocol).names)


def frames_to_batch(path: str, frames: Iterable, protocol: str):
    """A pyarrow.RecordBatch of frame_schema(protocol) holding the given Frames (error spans included)."""
    import pyarrow as pa

    return pa.RecordBatch.from_pylist([frame_row(path, frame) for frame in frames],
                                      schema=frame_schema(protocol))

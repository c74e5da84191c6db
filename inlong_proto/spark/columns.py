"""decode_column: a binary column of one message per value (Spark's Kafka source `value`, a table of stored
frames) decoded into the protocol's own struct, by an Arrow UDF. pyspark is imported only when it is called.

The struct is the protocol's frame_schema (inlong_proto.core.arrow) without the dump columns (path, offset,
capture): message_type, direction, length, error, the corrupt record (the value's bytes, on error rows) and the
protocol's columns. A null value gives a null struct; a value that is not exactly one valid frame gives a row
whose error says why (the PERMISSIVE rule of the readers: nothing is silently dropped).
"""
from __future__ import annotations

from inlong_proto.core import arrow, protocols
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import Frame, decode
from inlong_proto.core.stream import check_direction

_DROPPED = ("path", "offset", "capture")


def value_schema(protocol: str):
    """The pyarrow schema of decode_column's struct for protocol."""
    import pyarrow as pa

    full = arrow.frame_schema(protocol)
    return pa.schema([field for field in full if field.name not in _DROPPED])


def decode_values(values, protocol: str, direction: str | None = None, max_frame_size: int | None = None):
    """A pyarrow.StructArray of value_schema(protocol): one row per value of a binary pyarrow.Array (or any
    sequence of bytes / None). The Arrow UDF's body; usable without Spark."""
    import pyarrow as pa

    full = arrow.frame_schema(protocol)
    keep = [i for i, field in enumerate(full) if field.name not in _DROPPED]
    rows, nulls = [], []
    for value in (values.to_pylist() if hasattr(values, "to_pylist") else values):
        if value is None:
            nulls.append(True)
            rows.append(arrow.frame_tuple("", Frame(protocol, 0, 0, None, None, direction), protocol))
            continue
        nulls.append(False)
        try:
            frame = decode(value, protocol, direction, max_frame_size=max_frame_size)
        except DecodeError as exc:
            frame = Frame(protocol, 0, len(value), None, None, direction, exc, bytes(value))
        rows.append(arrow.frame_tuple("", frame, protocol))
    batch = arrow.rows_to_batch([tuple(row[i] for i in keep) for row in rows], value_schema(protocol))
    return pa.StructArray.from_arrays(batch.columns, fields=list(batch.schema), mask=pa.array(nulls, pa.bool_()))


def decode_column(col, protocol: str, direction: str | None = None, *, max_frame_size: int | None = None):
    """A Spark Column: col (a binary column, or its name) decoded as one `protocol` frame per value, into
    the protocol's struct (value_schema). Framed protocols only (a stream protocol's messages are not one per
    value). Use it as df.select(decode_column("value", "eventmesh-frame").alias("frame"))."""
    from pyspark.sql.functions import arrow_udf, col as column

    check_direction(direction)
    protocol = protocols.canonical(protocol)
    if protocol in protocols.STREAM_PROTOCOLS:
        raise ValueError(f"{protocol} is a stream protocol: decode_column takes framed protocols "
                         f"({', '.join(n for n in protocols.names() if n not in protocols.STREAM_PROTOCOLS)})")
    protocols.get(protocol)  # an unknown name fails here, on the driver
    return_type = arrow.to_spark_schema(value_schema(protocol))

    @arrow_udf(return_type)
    def _decode(values):
        return decode_values(values, protocol, direction, max_frame_size)

    return _decode(column(col) if isinstance(col, str) else col)

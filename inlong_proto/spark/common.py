"""What the Spark readers share (the UDTF readers in dumps and records, the data source in source, the capture
reader in captures): the import check, the error naming a file, argument checks and the Arrow form Spark wants.
One module that they all import, so that none of them imports another for these."""
from __future__ import annotations

from inlong_proto.core import arrow, protocols
from inlong_proto.core.arrow import AUTO, auto_schema
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.stream import check_direction, check_mode

SPARK_EXTRA = "pip install 'inlong-proto[spark]'"


def require_spark() -> None:
    """Import what the Spark readers need (pyspark, pyarrow, pandas), or raise an ImportError that names
    the extra bringing them, rather than a bare ModuleNotFoundError from deep inside a call."""
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"the Spark readers of inlong-proto need pyspark, pyarrow and pandas ({exc}); "
                          f"install the spark extra: {SPARK_EXTRA}", name=exc.name) from exc


class DumpDecodeError(DecodeError):
    """A DecodeError that also names the dump file, so a failed FAILFAST job says where to look."""

    def __init__(self, path: str, offset: int, field: str, reason: str, kind: str = DecodeError.kind):
        super().__init__(offset, field, reason)
        self.path, self.kind = path, kind
        self.args = (f"{path}: {self.args[0]}",)

    @classmethod
    def of(cls, path: str, error: DecodeError) -> "DumpDecodeError":
        return cls(path, error.offset, error.field, error.reason, error.kind)

    def shifted(self, delta: int) -> "DumpDecodeError":
        return type(self)(self.path, self.offset + delta, self.field, self.reason, self.kind)


def check_reader_args(protocol: str, direction: str | None, mode: str) -> tuple[str, str]:
    """(protocol, mode) as the project spells them (public: every Spark reader checks its arguments so); fails
    on the driver, at call time, rather than later
    inside every task."""
    protocol = protocols.checked(protocol)
    check_direction(direction)
    return protocol, check_mode(mode)


def spark_arrow_schema(protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD):
    """The Arrow form Spark wants the batches in (microseconds; TIMESTAMP values as UTC instants)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema(protocol, corrupt_record), timezone="UTC")


def spark_schema(protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD):
    """The Spark schema of format inlong for a protocol (or auto); InlongDataSource lists the columns.
    Zone-less timestamps (wall-clock text on the wire) are TIMESTAMP_NTZ, instants TIMESTAMP."""
    if protocol == AUTO:
        return arrow.to_spark_schema(auto_schema(), corrupt_record)
    return arrow.spark_schema(protocol, corrupt_record)


def spark_batch(batch, protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD):
    """A frame_schema (or auto_schema) batch in the Arrow form Spark wants, the corrupt-record column
    renamed (no copy)."""
    import pyarrow as pa

    typed = batch.cast(spark_arrow_schema(protocol))
    if corrupt_record == arrow.CORRUPT_RECORD:
        return typed
    return pa.RecordBatch.from_arrays(typed.columns, schema=spark_arrow_schema(protocol, corrupt_record))

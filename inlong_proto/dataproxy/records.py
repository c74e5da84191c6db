"""The records of DataProxy data requests, from decoded frames: plain Python, no Spark.

``records(frames)`` turns any iterable of Frames (``iter_frames``, ``StreamDecoder``) into (Frame, Record)
pairs; ``record_rows`` and ``capture_record_rows`` give one row per record, in the columns the Spark reader
(``inlong_proto.spark.records.read_records``) shows. pyarrow is imported inside the schema functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Iterator

from inlong_proto.core import arrow
from inlong_proto.capture import iter_capture_frames
from inlong_proto.core.errors import DecodeError, ValidationError
from inlong_proto.core.frames import Frame
from inlong_proto.core.plain import render_bytes, render_datetime
from inlong_proto.dataproxy.payload import Pairs, Record, payload

PROTOCOL = "dataproxy"


def records(frames: Iterable[Frame], *, on_error: str = "raise") -> Iterator[tuple[Frame, Record]]:
    """(frame, record) for every record of every data request among frames, in order.

    Error frames are skipped (the frame decoder's mode has already dealt with them), and so are frames
    without readable records: heartbeats, responses, encrypted bodies (see payload() for those). A frame
    whose payload cannot be read (bad Snappy, bad item lengths, bad attributes, a MsgType 6 body that is
    not InLongMsg v3 pairs) raises its DecodeError, or is skipped with on_error="skip".
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    for frame in frames:
        if frame.error is not None or frame.protocol != PROTOCOL:
            continue
        try:
            content = payload(frame, strict=True)
        except DecodeError:
            if on_error == "raise":
                raise
            continue
        if content.direction == "request":
            for record in content.records:
                yield frame, record


@dataclass(frozen=True, slots=True)
class RecordRow:
    """One row of the records table: a record, or (record_index None, error set) a frame or payload that
    could not be read, so that a PERMISSIVE read loses nothing without a word. data_time is naive UTC
    (an instant: the wire counts from the epoch)."""

    frame_offset: int
    record_index: int | None
    group_id: str | None
    stream_id: str | None
    data_time: datetime | None
    data: bytes | None
    text: str | None
    record_attrs: Pairs
    message_type: str | None
    error: DecodeError | None

    def to_dict(self) -> dict:
        """The row as decode --records prints it: the record table's columns, as JSON."""
        error = self.error
        return {"frame_offset": self.frame_offset, "record_index": self.record_index, "group_id": self.group_id,
                "stream_id": self.stream_id,
                "data_time": None if self.data_time is None else render_datetime(self.data_time),
                "data": None if self.data is None else render_bytes(self.data), "text": self.text,
                "attributes": _attr_map(self.record_attrs), "message_type": self.message_type,
                "error": None if error is None else {"kind": error.kind, "offset": error.offset,
                                                     "field": error.field, "reason": error.reason}}


def _error_row(frame: Frame, error: DecodeError, data: bytes | None) -> RecordRow:
    message_type = None
    if frame.message is not None:
        message_type = frame.message.base_type.name
    return RecordRow(frame.offset, None, None, None, None, data, None, (), message_type, error)


def record_rows(frames: Iterable[Frame], mode: str = "PERMISSIVE") -> Iterator[RecordRow]:
    """RecordRows of the data requests among frames (the rows of read_records).

    PERMISSIVE: an error frame, a payload that cannot be read, a body whose records cannot be read
    (Payload.error: a MsgType 6 body that is not InLongMsg v3 pairs), or an encrypted body (no key to read
    it) gives one row with error set and the frame's bytes (error frames) or body (the last two) as data.
    DROPMALFORMED skips them; FAILFAST raises the first as a DecodeError.
    """
    mode = mode.upper()
    for frame in frames:
        if frame.protocol != PROTOCOL:
            continue
        error, data = frame.error, frame.raw
        content = None
        if error is None:
            try:
                content = payload(frame)
            except DecodeError as exc:
                error, data = exc, None
        if content is not None and content.direction != "request":
            continue
        if content is not None and content.encrypted:
            error = ValidationError(frame.offset, "encrypted", "the body is AES-encrypted by the SDK; its "
                                                              "records cannot be read without the key")
            data = content.body
        elif content is not None and content.error is not None:
            error, data = content.error, content.body
        if error is not None:
            if mode == "FAILFAST":
                raise error
            if mode == "PERMISSIVE":
                yield _error_row(frame, error, data)
            continue
        message_type = content.base_type.name
        for record in content.records:
            yield RecordRow(frame.offset, record.index, record.group_id, record.stream_id, record.data_time,
                            record.data, record.text, record.attrs, message_type, None)


def capture_record_rows(data: bytes, mode: str = "PERMISSIVE") -> Iterator[tuple[RecordRow, tuple]]:
    """(RecordRow, arrow.capture_value) of the data requests in the DataProxy flows of a pcap / pcapng file.

    Flows are classified as with protocol="auto" and only what DataProxy clients sent is read, so the
    other flows of a mixed capture (and their errors) are no concern of the records; mode applies to the
    DataProxy request streams (gaps included) and to a broken container, which may have cut them.
    frame_offset is then the offset in the flow's request stream; the capture value says which flow.
    """
    for item in iter_capture_frames(data, "auto", "PERMISSIVE"):
        frame = item.frame
        if item.flow is None:  # the container itself: its error row stands for what it may have held
            frame = frame._replace(protocol=PROTOCOL)
        elif frame.protocol != PROTOCOL or item.direction != "request":
            continue
        for row in record_rows((frame,), mode):
            yield row, arrow.capture_value(item)


# ---------------------------------------------------------------------------------------------------
# Spark

RECORD_COLUMNS = ("path", "frame_offset", "record_index", "group_id", "stream_id", "data_time", "data",
                  "text", "record_attrs", "message_type", "error", arrow.CAPTURE_COLUMN)


def record_schema():
    """The pyarrow.Schema of the records table (read_records lists the columns).

    data_time is an instant, the wire's epoch count (DataProxy's ``dt`` attribute in milliseconds, a
    MsgType 7 DataTime in seconds): a UTC timestamp, TIMESTAMP in Spark, like capture.time. record_attrs
    is a map; a key a record repeats keeps its first value, as attr_value reads attributes. capture is
    the frame's, as in the frame tables (null for dumps)."""
    import pyarrow as pa

    return pa.schema([
        pa.field("path", pa.string()), pa.field("frame_offset", pa.int64()), pa.field("record_index", pa.int32()),
        pa.field("group_id", pa.string()), pa.field("stream_id", pa.string()),
        pa.field("data_time", pa.timestamp("ms", tz="UTC")),
        pa.field("data", pa.binary()), pa.field("text", pa.string()),
        pa.field("record_attrs", pa.map_(pa.string(), pa.string())), pa.field("message_type", pa.string()),
        pa.field("error", pa.string()), arrow.capture_field(),
    ])


def record_spark_schema():
    """record_schema as a Spark StructType (data_time and capture.time as TIMESTAMP, record_attrs as
    MAP<STRING, STRING>)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(record_schema(), prefer_timestamp_ntz=True)


def _attr_map(pairs: Pairs) -> dict[str, str]:
    """A record's attributes as the record_attrs map: the first value of a repeated key (attr_value's)."""
    out: dict[str, str] = {}
    for key, value in pairs:
        out.setdefault(key, value)
    return out


def row_tuple(path: str, row: RecordRow, capture: tuple | None = None) -> tuple:
    """A record row as a tuple in RECORD_COLUMNS order (the Spark records reader's rows, spark.records)."""
    data_time = None if row.data_time is None else row.data_time.replace(tzinfo=timezone.utc)
    return (path, row.frame_offset, row.record_index, row.group_id, row.stream_id, data_time, row.data,
            row.text, _attr_map(row.record_attrs), row.message_type,
            None if row.error is None else str(row.error), capture)


# house-plan (issue 25): the Spark reader of records moved to inlong_proto.spark.records; these names still work
# from here for one release, with a DeprecationWarning.
_MOVED = ("read_records", "records_udtf", "register_records_udtf")


def __getattr__(name: str):
    if name in _MOVED:
        from inlong_proto.core.deprecation import forward

        return forward(__name__, "inlong_proto.spark.records")(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

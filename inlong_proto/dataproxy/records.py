"""The records of DataProxy data requests, from decoded frames, in Python or as a Spark table.

``records(frames)`` turns any iterable of Frames (``iter_frames``, ``StreamDecoder``) into (Frame, Record)
pairs. ``read_records`` reads dump files and pcap / pcapng captures with Spark: binaryFile, then an
Arrow-optimized Python UDTF (the machinery of ``inlong_proto.spark``) yielding one row per record. pyspark
and pyarrow are imported inside the functions, so the core package works without the ``spark`` extra.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Iterator, Sequence

from inlong_proto.core import arrow
from inlong_proto.capture import iter_capture_frames
from inlong_proto.capture.container import is_capture
from inlong_proto.core.errors import DecodeError, ValidationError
from inlong_proto.core.frames import Frame, iter_frames
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


def _row_tuple(path: str, row: RecordRow, capture: tuple | None = None) -> tuple:
    data_time = None if row.data_time is None else row.data_time.replace(tzinfo=timezone.utc)
    return (path, row.frame_offset, row.record_index, row.group_id, row.stream_id, data_time, row.data,
            row.text, _attr_map(row.record_attrs), row.message_type,
            None if row.error is None else str(row.error), capture)


def records_udtf(direction: str | None = None, mode: str = "PERMISSIVE"):
    """An Arrow-optimized Python UDTF turning (path, content) of DataProxy dumps into record rows.

    Called like ``inlong_proto.spark.dumps.parse_udtf``: two scalar arguments or one TABLE argument with path
    and content columns. direction is passed to iter_frames (None: both layouts, ambiguous frames
    inferred; "request" for dumps of what SDKs sent). A pcap / pcapng file gives the records its DataProxy
    clients sent (capture_record_rows); there TCP says who sent what and direction does not apply.
    """
    from inlong_proto.spark.dumps import _check, dump_udtf, require_spark

    require_spark()
    _, mode = _check(PROTOCOL, direction, mode)

    def rows(path, content):
        if is_capture(content[:4]):
            for row, capture in capture_record_rows(content, mode):
                yield _row_tuple(path, row, capture)
            return
        for row in record_rows(iter_frames(content, PROTOCOL, direction, mode), mode):
            yield _row_tuple(path, row)

    return dump_udtf("dataproxy_records", rows, record_spark_schema())


def register_records_udtf(spark, direction: str | None = None, mode: str = "PERMISSIVE",
                          name: str = "dataproxy_records"):
    """Register records_udtf for SQL, e.g.
    ``SELECT * FROM dataproxy_records(TABLE(SELECT path, content FROM dumps))``."""
    return spark.udtf.register(name, records_udtf(direction, mode))


def read_records(spark, path: str | Sequence[str], mode: str = "PERMISSIVE", direction: str | None = None):
    """A DataFrame with one row per record of every DataProxy data request in the dump file(s) at path.

    path: a file, a glob, a directory (read recursively) or a list of them; pcap / pcapng files among
    them give the records of their DataProxy flows, with the capture column (flow, client, packet time).
    PERMISSIVE keeps what cannot be read as rows with error set (malformed spans, bad payloads, encrypted
    bodies); DROPMALFORMED leaves them out; FAILFAST fails the job with the first, naming file and offset.

    Columns (RECORD_COLUMNS, record_schema, with Spark types):

    - ``path`` STRING: the file's URI as Spark's binaryFile reports it
    - ``frame_offset`` BIGINT: the offset of the record's frame in the file (for a capture: in the
      flow's request stream)
    - ``record_index`` INT: the record's position in its frame; null for an error row
    - ``group_id`` STRING, ``stream_id`` STRING: the frame's group and stream (names, or the numbers of
      a numeric-id frame as text)
    - ``data_time`` TIMESTAMP: the frame's data time, an instant (the wire counts from the epoch:
      milliseconds in the ``dt`` attribute, seconds in a MsgType 7 header), shown in the session time
      zone
    - ``data`` BINARY: the record's bytes; for an error row the bytes that could not be read (the
      malformed span, an encrypted body, a MsgType 6 body not in its layout), null when the payload
      layer failed
    - ``text`` STRING: data as UTF-8 text, null when it is not valid UTF-8
    - ``record_attrs`` MAP<STRING, STRING>: the record's own attributes (MsgType 6, MsgType 7 with
      ExtField bit 0), empty otherwise; a repeated key keeps its first value
    - ``message_type`` STRING: the frame's MsgType name
    - ``error`` STRING: null for a record, what could not be read otherwise
    - ``capture`` STRUCT<flow: BIGINT, client: STRING, client_port: INT, server: STRING,
      server_port: INT, sender: STRING, time: TIMESTAMP, packet_offset: BIGINT>: null for a dump, the
      frame's capture column (read_dumps) for a pcap / pcapng file
    """
    from inlong_proto.spark.dumps import dump_files

    return records_udtf(direction, mode)(dump_files(spark, path))

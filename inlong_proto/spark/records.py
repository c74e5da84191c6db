"""DataProxy records as a Spark table: binaryFile, then an Arrow-optimized Python UDTF (the machinery of
``inlong_proto.spark.dumps``) yielding one row per record of the dump files and pcap / pcapng captures. The
record logic itself is plain Python in ``inlong_proto.dataproxy.records``; pyspark is imported when a reader runs.
"""
from __future__ import annotations

from typing import Sequence

from inlong_proto.capture.container import is_capture
from inlong_proto.core.frames import iter_frames
from inlong_proto.dataproxy.records import (PROTOCOL, capture_record_rows, record_rows, record_spark_schema,
                                            row_tuple)
from inlong_proto.spark.common import check_reader_args, require_spark, worker_backend
from inlong_proto.spark.dumps import dump_files, dump_udtf


def records_udtf(direction: str | None = None, mode: str = "PERMISSIVE"):
    """An Arrow-optimized Python UDTF turning (path, content) of DataProxy dumps into record rows.

    Called like ``inlong_proto.spark.dumps.parse_udtf``: two scalar arguments or one TABLE argument with path
    and content columns. direction is passed to iter_frames (None: both layouts, ambiguous frames
    inferred; "request" for dumps of what SDKs sent). A pcap / pcapng file gives the records its DataProxy
    clients sent (capture_record_rows); there TCP says who sent what and direction does not apply.
    """
    require_spark()
    _, mode = check_reader_args(PROTOCOL, direction, mode)

    def rows(path, content):
        if is_capture(content[:4]):
            for row, capture in capture_record_rows(content, mode):
                yield row_tuple(path, row, capture)
            return
        for row in record_rows(iter_frames(content, PROTOCOL, direction, mode), mode):
            yield row_tuple(path, row)

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
    - ``date`` DATE, last, for ``partitionBy("date")``: the UTC date of ``capture.time`` for a record of a
      capture, else that of the file's modification time (as read_dumps' date column)
    """
    worker_backend(spark)
    return records_udtf(direction, mode)(dump_files(spark, path))

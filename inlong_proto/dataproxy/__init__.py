"""Apache InLong DataProxy (TCP v0) beyond the frame layout: payloads, records, and frame builders.

``read_payload(frame)`` reads what a decoded frame carries (records, attributes, ids, times, status);
``iter_records(frames)`` yields the records of data requests; the builders in ``builders`` write the frames
the Java SDK and the DataProxy server write; the Spark reader is ``inlong_proto.spark.records.read_records``.
The package's ``payload`` and ``records`` are its submodules (where the same functions are ``payload.payload``
and ``records.records``): a function of the same name used to shadow them.
"""
from inlong_proto.dataproxy.builders import (bin_request, bin_response, heartbeat_request, heartbeat_response,
                                             legacy_heartbeat_request, legacy_heartbeat_response, text_request,
                                             text_response)
from inlong_proto.dataproxy import payload, records
from inlong_proto.dataproxy.payload import (ErrCode, MsgType, Payload, Record, format_attrs, infer_direction,
                                            parse_attrs, response_status)
from inlong_proto.dataproxy.payload import payload as read_payload
from inlong_proto.dataproxy.records import RecordRow, record_rows
from inlong_proto.dataproxy.records import records as iter_records

__all__ = [
    "ErrCode", "MsgType", "Payload", "Record", "RecordRow", "bin_request", "bin_response", "format_attrs",
    "heartbeat_request", "heartbeat_response", "infer_direction", "iter_records", "legacy_heartbeat_request",
    "legacy_heartbeat_response", "parse_attrs", "payload", "read_payload", "record_rows", "records",
    "response_status", "text_request", "text_response",
]

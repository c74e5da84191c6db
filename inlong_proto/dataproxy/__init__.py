"""Apache InLong DataProxy (TCP v0) beyond the frame layout: payloads, records, and frame builders.

``payload(frame)`` reads what a decoded frame carries (records, attributes, ids, times, status);
``records(frames)`` yields the records of data requests; the builders in ``builders`` write the frames the
Java SDK and the DataProxy server write. Spark readers are in ``inlong_proto.dataproxy.records``
(``read_records``); import that module with ``from inlong_proto.dataproxy.records import ...``, since
the package attribute ``records`` is the function.
"""
from .builders import (bin_request, bin_response, heartbeat_request, heartbeat_response, legacy_heartbeat_request,
                       legacy_heartbeat_response, text_request, text_response)
from .payload import (ErrCode, MsgType, Payload, Record, format_attrs, infer_direction, parse_attrs, payload,
                      response_status)
from .records import RecordRow, record_rows, records

__all__ = [
    "ErrCode", "MsgType", "Payload", "Record", "RecordRow", "bin_request", "bin_response", "format_attrs",
    "heartbeat_request", "heartbeat_response", "infer_direction", "legacy_heartbeat_request",
    "legacy_heartbeat_response", "parse_attrs", "payload", "record_rows", "records", "response_status",
    "text_request", "text_response",
]

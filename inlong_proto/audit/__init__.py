"""Where was data lost? A message-level audit of the wire (issue 28). Sans-IO, streaming.

Every message sent (DataProxy data requests, TubeMQ sendMessageP2B, EventMesh TCP and HTTP sends and gRPC
publish calls) is paired with its answer on its connection (pairing.Auditor; each protocol package's audit
reader, which the registry names, says how its answers match: readers.py), and counted per system, group or
topic, stream and time window (table.AuditTable), with deliveries to consumers beside.
walk.audit_chunks runs a capture through it, walk.audit_dump a raw dump of one protocol; docs/how-to/audit.md
maps the columns to InLong Audit's.

This floor sits over the protocol packages and capture/, under spark/ (inlong_proto.spark.audit).
"""
from inlong_proto.audit.pairing import AuditedMessage, Auditor, Delivered
from inlong_proto.audit.table import COLUMNS, DIFF_COLUMNS, AuditTable, diff, parse_window
from inlong_proto.audit.walk import audit_capture, audit_chunks, audit_dump

__all__ = ["AuditTable", "AuditedMessage", "Auditor", "COLUMNS", "DIFF_COLUMNS", "Delivered", "audit_capture",
           "audit_chunks", "audit_dump", "diff", "parse_window"]

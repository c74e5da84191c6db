"""The Spark readers: the ``inlong`` data source (source), the binaryFile + UDTF reader (dumps), the capture
splitter (captures), the job (job), the audit of captured messages (wire_audit: ``audit``,
``audit_messages``) and decode_column (columns: a binary column of one frame per value, e.g. Kafka's value, as
the protocol's struct), and one_line (errors: the one line of format("inlong")'s error in a Spark exception).
pyspark is imported only when a reader runs."""
from inlong_proto.spark.columns import decode_column
from inlong_proto.spark.dumps import local_session, read_dumps, register_udtf
from inlong_proto.spark.errors import one_line
from inlong_proto.spark.wire_audit import audit, audit_messages

__all__ = ["audit", "audit_messages", "decode_column", "local_session", "one_line", "read_dumps", "register_udtf"]

"""The Spark readers: the ``inlong`` data source (source), the binaryFile + UDTF reader (dumps), the capture
splitter (captures) and the job (job). pyspark is imported only when a reader runs."""
from inlong_proto.spark.dumps import local_session, read_dumps, register_udtf

__all__ = ["local_session", "read_dumps", "register_udtf"]

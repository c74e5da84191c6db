"""Deprecated: moved to ``inlong_proto.spark.source`` (the data source) and ``inlong_proto.spark.pieces`` (a file's reading)
(house-plan: deprecation shim, kept for one release)."""
from inlong_proto.core.deprecation import forward

__getattr__ = forward(__name__, "inlong_proto.spark.pieces", "inlong_proto.spark.source")

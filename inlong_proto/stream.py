"""Deprecated: moved to ``inlong_proto.core.stream``
(house-plan: deprecation shim, kept for one release)."""
from inlong_proto.core.deprecation import forward

__getattr__ = forward(__name__, "inlong_proto.core.stream")

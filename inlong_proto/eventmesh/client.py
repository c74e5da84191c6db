"""Deprecated: moved to ``inlong_proto.endpoints.eventmesh_client`` (examples/make_dumps.py imported it here)
(house-plan: deprecation shim, kept for one release)."""
from inlong_proto.core.deprecation import forward

__getattr__ = forward(__name__, "inlong_proto.endpoints.eventmesh_client")

"""Which rule of specs/eventmesh/conformance.yaml a TCP frame that does not decode breaks.

The strict EventMesh peers (issue 29, item 3) report bytes the other side sends that the runtime's decoder
refuses; the decode error's field says which part of the frame (tcp_frame.ksy, tcp_header.schema.json,
commands.yaml) is wrong, and so which rule. Both the server and the client use it: the frame rules hold
in both directions.
"""
from __future__ import annotations

from inlong_proto.core.errors import DecodeError, FrameTooLargeError, TruncatedError

__all__ = ["frame_rule"]


def frame_rule(error: DecodeError) -> str:
    """The rule id a frame's decode error breaks."""
    field = error.field or ""
    if isinstance(error, (FrameTooLargeError, TruncatedError)) or field == "package_length":
        return "eventmesh.tcp-package-length"
    if field in ("magic", "version"):
        return "eventmesh.tcp-magic"
    if field == "package.header_length":
        return "eventmesh.tcp-header-length"
    if field == "package.header.cmd":
        return "eventmesh.tcp-command"
    if field == "package.header" or field.startswith("package.header."):
        return "eventmesh.tcp-header"
    return "eventmesh.tcp-body"

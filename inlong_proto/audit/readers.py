"""What each protocol's frames mean to the audit: a sent message, its answer, a pull, a delivery.

Each protocol package holds its own reader (dataproxy.audit, tubemq.audit, eventmesh.audit), which turns a
decoded frame of one direction into events (core.audit_events) for the pairing engine (pairing.py) and says
which request an answer belongs to, as the upstream client matches it (docs/how-to/audit.md). The registry
names each one (`audit-reader`); here they are looked up by the frame's protocol, and no protocol is named.
"""
from __future__ import annotations

from functools import cache

from inlong_proto.core.audit_events import Answer, Call, Delivery, Done, Pull, Sent
from inlong_proto.core.protocols import AUDIT_READERS, DUMP_DIRECTIONS, function

__all__ = ["Answer", "Call", "Delivery", "Done", "Pull", "Sent", "dump_direction", "events"]


@cache
def _reader(protocol: str):
    path = AUDIT_READERS.get(protocol)
    return None if path is None else function(path)


def events(frame, direction: str | None) -> list:
    """The audit events of one decoded frame (not an error span) of one direction."""
    reader = _reader(frame.protocol)
    if reader is None or frame.error is not None or direction not in ("request", "response"):
        return []
    return reader(frame, direction)


def dump_direction(frame) -> str | None:
    """Which way a frame of a raw dump went: its own direction, or, for bytes that fit both layouts (DataProxy's
    text MsgTypes and heartbeats), the likelier one as its protocol's `dump-direction` judges (a body, dpIp,
    errCode)."""
    if frame.direction is not None or frame.error is not None:
        return frame.direction
    path = DUMP_DIRECTIONS.get(frame.protocol)
    return None if path is None else function(path)(frame.message)

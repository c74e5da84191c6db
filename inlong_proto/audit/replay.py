"""What `inlong-proto replay` re-sends, and how each request is renumbered. Sans-IO (the sending is
endpoints/replayer.py's).

The requests come from the audit of a capture or a raw dump (walk.audit_chunks / audit_dump, keeping each
request's frame): the messages sent of one protocol (DataProxy data requests, TubeMQ sendMessageP2B, EventMesh
TCP ASYNC / BROADCAST_MESSAGE_TO_SERVER and REQUEST_TO_SERVER, EventMesh HTTP sends: every protocol whose
registry names a `replay`), in capture order, each with the outcome the audit found. With only_unacked, those not acknowledged OK (failed, unanswered, not asked,
unknown: a dump of the requests only tells nothing), leaving out any whose re-send (same client, group,
stream and message) was acknowledged.

Renumbering (fresh_request): what upstream clients match answers on is made fresh, unique within the replay,
so that no answer to an old request can be taken for a new one's. Each protocol's registry names how
(`replay`: dataproxy.audit.resend, tubemq.audit.resend, eventmesh.audit.tcp_resend and http_resend say what
they change); the answer's key is then read back from the bytes by the protocol's audit reader.

Nothing else changes: records, groups, topics, times, message ids inside the payload.
"""
from __future__ import annotations

from dataclasses import dataclass

from inlong_proto.audit.pairing import Auditor
from inlong_proto.audit.readers import Sent, events
from inlong_proto.audit.walk import audit_capture, audit_dump
from inlong_proto.capture import is_capture
from inlong_proto.core.detect import HEAD_SIZE, settle
from inlong_proto.core.frames import iter_frames
from inlong_proto.core.protocols import REPLAYERS, function

__all__ = ["PROTOCOLS", "ReplayItem", "fresh_request", "replay_items"]

PROTOCOLS = tuple(REPLAYERS)  # the protocols replay sends: those whose registry names a `replay`


@dataclass(frozen=True)
class ReplayItem:
    request: object  # the request Frame as captured
    outcome: str  # what the audit found ("unknown" for a dump of the requests only)
    group: str
    stream: str
    records: int


def replay_items(data: bytes, protocol: str | None = None, *, only_unacked: bool = False,
                 timeout: float | None = None, max_frame_size: int | None = None) -> list[ReplayItem]:
    """The requests of `protocol` to replay from a capture or a raw dump of that protocol, in capture order
    (protocol None: a capture's requests of every protocol in PROTOCOLS, a dump's protocol by its first frames)."""
    if protocol is None and not is_capture(data):
        protocol = settle(data[:HEAD_SIZE])[0]
    if protocol not in PROTOCOLS and not (protocol is None and is_capture(data)):
        raise ValueError(f"replay sends {', '.join(PROTOCOLS)}, not {protocol!r}")
    wanted = set(PROTOCOLS) if protocol is None else {protocol}
    if is_capture(data):
        audited = audit_capture(data, auditor=Auditor(timeout=timeout, keep_requests=True),
                                max_frame_size=max_frame_size)
    else:
        audited = audit_dump([data], protocol, auditor=Auditor(keep_requests=True, may_lack_answers=True),
                             max_frame_size=max_frame_size)
    items = [item for item in audited
             if getattr(item, "request", None) is not None and item.request.protocol in wanted]
    items.sort(key=lambda item: (item.time_ns is None, item.time_ns or 0))
    acked = {(i.client, i.group, i.stream, i.message_id) for i in items if i.outcome == "ok" and i.message_id}
    out = []
    for item in items:
        if only_unacked and (item.outcome == "ok" or (item.client, item.group, item.stream, item.message_id) in acked):
            continue
        out.append(ReplayItem(item.request, item.outcome, item.group, item.stream, item.records))
    return out


def fresh_request(request, number: int) -> tuple[bytes, tuple | None]:
    """The bytes to send for a captured request Frame, renumbered with `number` (its protocol's `replay`), and
    the key its answer will carry (readers.Sent.key of the bytes, read back: what the replayer waits for; None:
    no answer asked)."""
    protocol = request.protocol
    if protocol not in REPLAYERS:
        raise ValueError(f"replay sends {', '.join(PROTOCOLS)}, not {protocol!r}")
    data = function(REPLAYERS[protocol])(request, number)
    sent = [event for frame in iter_frames(data, protocol, "request")
            for event in events(frame, "request") if isinstance(event, Sent)]
    return data, sent[0].key

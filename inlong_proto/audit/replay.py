"""What `inlong-proto replay` re-sends, and how each request is renumbered. Sans-IO (the sending is
endpoints/dataproxy_replay.py's).

From a capture: the DataProxy data requests, each with the outcome the audit found; with only_unacked, those
not acknowledged OK (failed, unanswered, sent without asking for an ack), leaving out any whose re-send
(same client, group, stream and id) was acknowledged. From a raw dump of requests (a server's record
file): every data request (a dump holds no answers, so nothing is known to be acknowledged).

Renumbering (fresh): the Java SDK matches answers by UniqueId (MsgType 7) or the messageId attribute (2-6),
so each replayed request gets a fresh one, unique within the replay; isAck=false is dropped so that every
replayed request is answered and the replay can tell what was accepted. Nothing else changes (the sid of
types 2-6, the records, the times).
"""
from __future__ import annotations

from dataclasses import dataclass

from inlong_proto.audit.pairing import Auditor
from inlong_proto.audit.readers import events
from inlong_proto.audit.walk import audit_capture
from inlong_proto.capture import is_capture
from inlong_proto.core.frames import iter_frames
from inlong_proto.dataproxy.payload import MsgType, format_attrs, parse_attrs

__all__ = ["ReplayItem", "renumber", "replay_items"]

_DATA_TYPES = frozenset(range(2, 8))


@dataclass(frozen=True)
class ReplayItem:
    message: object  # the DataproxyRequest as captured
    outcome: str | None  # what the audit found (None: a dump, not known)
    group: str
    stream: str
    records: int


def replay_items(data: bytes, *, only_unacked: bool = False, timeout: float | None = None,
                 max_frame_size: int | None = None) -> list[ReplayItem]:
    """The requests to replay from a capture or a raw dump of DataProxy requests, in capture order."""
    if not is_capture(data):
        out = []
        for frame in iter_frames(data, "dataproxy", "request", mode="PERMISSIVE", max_frame_size=max_frame_size):
            if frame.error is None and frame.message.base_type in _DATA_TYPES:
                sent = events(frame, "request")
                if sent:
                    out.append(ReplayItem(frame.message, None, sent[0].group, sent[0].stream, sent[0].records))
        return out
    items = [item for item in audit_capture(data, auditor=Auditor(timeout=timeout, keep_requests=True),
                                            max_frame_size=max_frame_size)
             if getattr(item, "system", None) == "dataproxy" and getattr(item, "request", None) is not None]
    items.sort(key=lambda item: (item.time_ns is None, item.time_ns or 0))
    acked = {(i.client, i.group, i.stream, i.message_id) for i in items if i.outcome == "ok" and i.message_id}
    out = []
    for item in items:
        if only_unacked and (item.outcome == "ok" or (item.client, item.group, item.stream, item.message_id) in acked):
            continue
        out.append(ReplayItem(item.request.message, item.outcome, item.group, item.stream, item.records))
    return out


def renumber(message, number: int):
    """The request with a fresh id (UniqueId of MsgType 7, messageId of 2-6) and without isAck=false."""
    body = message.body
    pairs = [(key, value) for key, value in parse_attrs(body.attr or "", strict=False)
             if not (key == "isAck" and value.strip().lower() == "false")]
    if message.base_type == MsgType.bin_multi_body:
        body = body._replace(unique_id=number % (1 << 32), attr=format_attrs(pairs, strict=False))
    else:
        pairs = [(key, str(number) if key == "messageId" else value) for key, value in pairs]
        if not any(key == "messageId" for key, _ in pairs):
            pairs.append(("messageId", str(number)))
        body = body._replace(attr=format_attrs(pairs, strict=False))
    return message._replace(body=body)

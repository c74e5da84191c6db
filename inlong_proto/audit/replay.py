"""What `inlong-proto replay` re-sends, and how each request is renumbered. Sans-IO (the sending is
endpoints/replayer.py's).

The requests come from the audit of a capture or a raw dump (walk.audit_chunks / audit_dump, keeping each
request's frame): the messages sent of one system (DataProxy data requests, TubeMQ sendMessageP2B, EventMesh
TCP ASYNC / BROADCAST_MESSAGE_TO_SERVER and REQUEST_TO_SERVER, EventMesh HTTP sends), in capture order, each
with the outcome the audit found. With only_unacked, those not acknowledged OK (failed, unanswered, not asked,
unknown: a dump of the requests only tells nothing), leaving out any whose re-send (same client, group,
stream and message) was acknowledged.

Renumbering (fresh_request): what upstream clients match answers on is made fresh, unique within the replay,
so that no answer to an old request can be taken for a new one's:

* DataProxy: UniqueId (MsgType 7) or the messageId attribute (2-6); isAck=false is dropped so that every
  replayed request is answered and the replay can tell what was accepted.
* TubeMQ: the RPC serial number (the call is rebuilt as the Java client sends it: rpc.request_frame).
* EventMesh TCP: the header seq (ten digits, as the SDK's); the body is sent as captured.
* EventMesh HTTP: nothing (HTTP/1.1 answers in order); the request is rewritten by h11 with its captured
  method, target, headers and body: the same bytes, but that a chunked body is sent with a Content-Length.

Nothing else changes: records, groups, topics, times, message ids inside the payload.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from inlong_proto.audit.pairing import Auditor
from inlong_proto.audit.readers import SEND_METHOD, Sent, events
from inlong_proto.audit.walk import audit_capture, audit_dump
from inlong_proto.capture import is_capture
from inlong_proto.core.frames import encode, iter_frames
from inlong_proto.dataproxy.payload import MsgType, format_attrs, parse_attrs

__all__ = ["PROTOCOLS", "ReplayItem", "fresh_request", "renumber", "replay_items"]

# the protocols replay sends, and the audit system their messages are counted under
PROTOCOLS = {"dataproxy": "dataproxy", "tubemq": "tubemq", "eventmesh": "eventmesh",
             "eventmesh-http": "eventmesh-http"}


@dataclass(frozen=True)
class ReplayItem:
    request: object  # the request Frame as captured
    outcome: str  # what the audit found ("unknown" for a dump of the requests only)
    group: str
    stream: str
    records: int


def replay_items(data: bytes, protocol: str | None = "dataproxy", *, only_unacked: bool = False,
                 timeout: float | None = None, max_frame_size: int | None = None) -> list[ReplayItem]:
    """The requests of `protocol` to replay from a capture or a raw dump of that protocol, in capture order
    (protocol None: a capture's requests of every protocol in PROTOCOLS)."""
    if protocol not in PROTOCOLS and not (protocol is None and is_capture(data)):
        raise ValueError(f"replay sends {', '.join(PROTOCOLS)}, not {protocol!r}")
    systems = set(PROTOCOLS.values()) if protocol is None else {PROTOCOLS[protocol]}
    if is_capture(data):
        audited = audit_capture(data, auditor=Auditor(timeout=timeout, keep_requests=True),
                                max_frame_size=max_frame_size)
    else:
        audited = audit_dump([data], protocol, auditor=Auditor(keep_requests=True, may_lack_answers=True),
                             max_frame_size=max_frame_size)
    items = [item for item in audited
             if getattr(item, "system", None) in systems and getattr(item, "request", None) is not None]
    items.sort(key=lambda item: (item.time_ns is None, item.time_ns or 0))
    acked = {(i.client, i.group, i.stream, i.message_id) for i in items if i.outcome == "ok" and i.message_id}
    out = []
    for item in items:
        if only_unacked and (item.outcome == "ok" or (item.client, item.group, item.stream, item.message_id) in acked):
            continue
        out.append(ReplayItem(item.request, item.outcome, item.group, item.stream, item.records))
    return out


def fresh_request(request, number: int) -> tuple[bytes, tuple | None]:
    """The bytes to send for a captured request Frame, renumbered with `number`, and the key its answer will
    carry (readers.Sent.key of the bytes, read back: what the replayer waits for; None: no answer asked)."""
    protocol = request.protocol
    if protocol == "dataproxy":
        data = encode(renumber(request.message, number))
    elif protocol == "tubemq":
        from inlong_proto.tubemq.rpc import request_frame

        data = encode(request_frame(number, SEND_METHOD, request.payload.business))
    elif protocol in ("eventmesh", "eventmesh-legacy"):
        from inlong_proto.eventmesh import tcp

        message = request.payload
        header = dataclasses.replace(message.header, seq=f"{number % 10**10:010d}")
        cloudevents = message.protocol_type == "cloudevents"
        data = encode(tcp.frame(header, message.raw_body if cloudevents else message.body,
                                legacy=message.length_form == "legacy"))
    elif protocol == "eventmesh-http":
        from inlong_proto.eventmesh.http import build_request

        headers = [(name, None if name.lower() == "content-length" else value) for name, value in request.headers
                   if name.lower() != "transfer-encoding"]  # (a None Content-Length is filled in, in its place)
        data = build_request(request.method, request.target, headers, request.body)
    else:
        raise ValueError(f"replay sends {', '.join(PROTOCOLS)}, not {protocol!r}")
    sent = [event for frame in iter_frames(data, protocol, "request")
            for event in events(frame, "request") if isinstance(event, Sent)]
    return data, sent[0].key


def renumber(message, number: int):
    """A DataProxy request with a fresh id (UniqueId of MsgType 7, messageId of 2-6) and without isAck=false."""
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

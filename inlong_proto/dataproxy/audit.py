"""What DataProxy frames mean to the audit (inlong_proto.audit): data requests sent and their answers, and how
replay renumbers a request. Sans-IO; every byte was already read by dataproxy.payload; the only choice made here
is which request an answer belongs to, as the SDK matches it (facts 1.6, 1.10; docs/how-to/audit.md):

MsgType 7 by UniqueId (the SDK's message id, echoed in the response); MsgType 2-6 by the ``messageId``
attribute (echoed, what the SDK's DecodeObject matches on); a request without one is matched to the oldest open
request of its kind on the connection (the source path answers in order). ``isAck=false`` (any case) gets no
answer unless syncSend/proxySend=true conflicts with it (errors 150/151, which are answered). errCode missing or
0 is success (DecodeObject.handleAttr). Heartbeats (MsgType 1, 8) are not messages.

Replay (resend) makes UniqueId (MsgType 7) or the messageId attribute (2-6) fresh and drops isAck=false, so that
every replayed request is answered and the replay can tell what was accepted.
"""
from __future__ import annotations

from inlong_proto.core.audit_events import Answer, Sent
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import encode
from inlong_proto.dataproxy.payload import (ErrCode, MsgType, attr_value, format_attrs, parse_attrs, request_tally,
                                            response_status)

__all__ = ["events", "renumber", "resend"]

_DATA_TYPES = frozenset({MsgType.common_service, MsgType.ack_service, MsgType.original_return,
                         MsgType.multi_body, MsgType.multi_body_attr, MsgType.bin_multi_body})


def _key(base: int, unique_id, message_id) -> tuple:
    return ("bin", unique_id) if base == MsgType.bin_multi_body else ("text", message_id)


def events(frame, direction: str) -> list:
    """The audit events of a decoded DataProxy frame sent in `direction` (request or response)."""
    base = frame.message.base_type  # (an int: MsgType's members hash and compare as theirs)
    if base not in _DATA_TYPES:
        return []
    if direction == "response":  # (its attributes read as payload.response reads them, without the rest)
        inner = frame.message.body
        unique_id = getattr(inner, "unique_id", None) if base == MsgType.bin_multi_body else None
        attrs = parse_attrs(getattr(inner, "attr", "") or "", strict=False)
        key = _key(base, unique_id, attr_value(attrs, "messageId"))
        try:
            code, message = response_status(attrs)
        except DecodeError as exc:  # an errCode that is not a number: the SDK fails the call
            return [Answer(key, False, f"unreadable answer: {exc.reason}")]
        if code in (0, None):
            return [Answer(key, True, None)]
        name = code.name if isinstance(code, ErrCode) else "unknown"
        return [Answer(key, False, f"{int(code)} {name}" + (f": {message}" if message else ""))]
    inner = frame.message.body
    try:
        read = request_tally(frame)  # (payload's reading, its records counted, not built)
        attrs = read.attrs
    except DecodeError:  # the server answers such a request with an error (or closes): still a message sent
        read, attrs = None, parse_attrs(getattr(inner, "attr", "") or "", strict=False)
    group = (read.group_id if read is not None else attr_value(attrs, "groupId")) or ""
    stream = (read.stream_id if read is not None else attr_value(attrs, "streamId")) or ""
    if read is not None and read.records:
        records, size = read.records, read.size
    else:
        records = (read.record_count if read is not None else None) or 0
        size = read.body_size if read is not None else len(getattr(inner, "body", b"") or b"")
    unique_id = getattr(inner, "unique_id", None) if base == MsgType.bin_multi_body else None
    message_id = attr_value(attrs, "messageId")
    asked = (attr_value(attrs, "isAck") or "").strip().lower() != "false" or any(
        (attr_value(attrs, name) or "").strip().lower() == "true" for name in ("syncSend", "proxySend"))
    ident = unique_id if base == MsgType.bin_multi_body else message_id
    return [Sent("dataproxy", group, stream, _key(base, unique_id, message_id) if asked else None,
                 None if ident is None else str(ident), records, size, frame.length)]


def resend(request, number: int) -> bytes:
    """The bytes replay sends for a captured request Frame: renumbered with `number`."""
    return encode(renumber(request.message, number))


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

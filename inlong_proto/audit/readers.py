"""What each protocol's frames mean to the audit: a sent message, its answer, a pull, a delivery.

One function per protocol turns a decoded frame of one direction into events for the pairing engine
(pairing.py). Sans-IO; every byte was already read by the protocol packages (dataproxy.payload,
tubemq.rpc, eventmesh.tcp); the only choices made here are which request an answer belongs to, each as the
upstream client matches it (docs/how-to/audit.md):

* DataProxy (facts 1.6, 1.10): MsgType 7 by UniqueId (the SDK's message id, echoed in the response);
  MsgType 2-6 by the ``messageId`` attribute (echoed, what the SDK's DecodeObject matches on); a request
  without one is matched to the oldest open request of its kind on the connection (the source path answers
  in order). ``isAck=false`` (any case) gets no answer unless syncSend/proxySend=true conflicts with it
  (errors 150/151, which are answered). errCode missing or 0 is success (DecodeObject.handleAttr).
  Heartbeats (MsgType 1, 8) are not messages.
* TubeMQ: by serial number per connection (as rpc.CallPairer pairs). sendMessageP2B is one message of its
  topic; an exception answer or SendMessageResponseB2P.success false is a failure. A re-send repeats the
  message's data and flag (there is no producer message id). getMessagesC2B is a pull: the messages of its
  answer are deliveries of the pull's topic. Every other call (register, heartbeat, commit, close) is paired
  with its answer and counted as nothing.
* EventMesh TCP (facts 3.x): ASYNC_MESSAGE_TO_SERVER, BROADCAST_MESSAGE_TO_SERVER and REQUEST_TO_SERVER by
  header seq, answered by their _ACK (or RESPONSE_TO_CLIENT, or the command echoed with code 1); code 0 is
  success. Pushes (*_TO_CLIENT) are deliveries.
* EventMesh HTTP: the send codes (MSG_SEND_SYNC, MSG_SEND_ASYNC, MSG_BATCH_SEND, MSG_BATCH_SEND_V2) by the
  request code, which the runtime's answer echoes in its ``code`` header, oldest first on the connection
  (HTTP/1.1 answers in order); retCode 0 with status 200 is success. The runtime's webhook pushes
  (HTTP_PUSH_CLIENT_ASYNC / SYNC) are deliveries.
* EventMesh gRPC: publish, batchPublish and requestReply calls, which eventmesh.h2 pairs by stream; success
  is grpc-status 0 and the answer's ``statuscode`` attribute 0 (or absent). The events a subscribeStream
  call answers with (those without a ``statuscode``, which marks the subscription's own answer) are
  deliveries.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from inlong_proto.core.errors import DecodeError
from inlong_proto.core.plain import lenient_text
from inlong_proto.dataproxy.payload import (ErrCode, MsgType, attr_value, infer_direction, parse_attrs,
                                            request_tally, response_status)
from inlong_proto.eventmesh.convert import event_from_tcp
from inlong_proto.eventmesh.http import RequestCode
from inlong_proto.eventmesh.tcp import Command
from inlong_proto.tubemq.rpc import messages_of

__all__ = ["Answer", "Call", "Delivery", "Done", "Pull", "Sent", "dump_direction", "events"]

SEND_METHOD = "sendMessageP2B"
PULL_METHOD = "getMessagesC2B"
_DATA_TYPES = frozenset({MsgType.common_service, MsgType.ack_service, MsgType.original_return,
                         MsgType.multi_body, MsgType.multi_body_attr, MsgType.bin_multi_body})

# EventMesh TCP: the commands that send a message, and the command that answers each
_EM_SENDS = {Command.ASYNC_MESSAGE_TO_SERVER: Command.ASYNC_MESSAGE_TO_SERVER_ACK,
             Command.BROADCAST_MESSAGE_TO_SERVER: Command.BROADCAST_MESSAGE_TO_SERVER_ACK,
             Command.REQUEST_TO_SERVER: Command.RESPONSE_TO_CLIENT}
_EM_ANSWERS = frozenset(_EM_SENDS.values())
_EM_PUSHES = frozenset({Command.ASYNC_MESSAGE_TO_CLIENT, Command.BROADCAST_MESSAGE_TO_CLIENT,
                        Command.REQUEST_TO_CLIENT})


@dataclass(frozen=True, slots=True)
class Sent:
    """A message sent: key pairs it with its answer on its connection (None: no answer is asked for)."""

    system: str
    group: str
    stream: str
    key: tuple | None
    message_id: str | None  # the id the sender gave it; None when the protocol carries none
    records: int
    size: int  # the records' data bytes (InLong Audit's size)
    frame_bytes: int
    resent_as: object = None  # what a re-send repeats, when not message_id (TubeMQ: its data); duplicates

    @property
    def identity(self):
        """What two copies of one message share (None: copies cannot be told apart from new messages)."""
        return self.message_id if self.resent_as is None else self.resent_as


@dataclass(frozen=True, slots=True)
class Pull:
    """A request asking for messages (TubeMQ getMessagesC2B); its answer carries deliveries."""

    system: str
    group: str
    stream: str
    key: tuple


@dataclass(frozen=True, slots=True)
class Call:
    """A request that is neither a send nor a pull (a TubeMQ register, heartbeat or close): its answer is
    paired with it and ignored, so it is not reported as an answer that matched no request."""

    key: tuple


@dataclass(frozen=True, slots=True)
class Answer:
    key: tuple
    ok: bool
    error: str | None  # what failed, short (an errCode and its name, an exception class)
    delivered: int = 0  # messages an answer to a Pull carries
    size: int = 0


@dataclass(frozen=True, slots=True)
class Done:
    """A message and its outcome at once (a gRPC call, which the HTTP/2 layer pairs itself): ok None means
    unanswered (the call did not end within the capture or its connection)."""

    sent: Sent
    ok: bool | None
    error: str | None
    latency_s: float | None


@dataclass(frozen=True, slots=True)
class Delivery:
    """Messages pushed to a consumer (EventMesh pushes), not paired with anything."""

    system: str
    group: str
    stream: str
    records: int
    size: int


def events(frame, direction: str | None) -> list:
    """The audit events of one decoded frame (not an error span) of one direction."""
    reader = _READERS.get(frame.protocol)
    if reader is None or frame.error is not None or direction not in ("request", "response"):
        return []
    return reader(frame, direction)


def dump_direction(frame) -> str | None:
    """Which way a frame of a raw dump went: its own direction, or, for DataProxy bytes that fit both layouts
    (text MsgTypes, heartbeats), the likelier one (dataproxy.payload.infer_direction: a body, dpIp, errCode)."""
    if frame.direction is not None or frame.error is not None:
        return frame.direction
    if frame.protocol == "dataproxy":
        return infer_direction(frame.message)
    return None


# ------------------------------------------------------------------------------------------- DataProxy

def _dp_key(base: int, unique_id, message_id) -> tuple:
    return ("bin", unique_id) if base == MsgType.bin_multi_body else ("text", message_id)


def _dataproxy(frame, direction: str) -> list:
    base = frame.message.base_type  # (an int: MsgType's members hash and compare as theirs)
    if base not in _DATA_TYPES:
        return []
    if direction == "response":  # (its attributes read as payload.response reads them, without the rest)
        inner = frame.message.body
        unique_id = getattr(inner, "unique_id", None) if base == MsgType.bin_multi_body else None
        attrs = parse_attrs(getattr(inner, "attr", "") or "", strict=False)
        key = _dp_key(base, unique_id, attr_value(attrs, "messageId"))
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
    return [Sent("dataproxy", group, stream, _dp_key(base, unique_id, message_id) if asked else None,
                 None if ident is None else str(ident), records, size, frame.length)]


# ------------------------------------------------------------------------------------------- TubeMQ

def _tubemq(frame, direction: str) -> list:
    rpc = frame.payload
    if rpc is None:
        return []
    key = ("rpc", rpc.serial_no)
    if direction == "request":
        business = rpc.business
        if rpc.method == SEND_METHOD and business is not None:
            data = messages_of(rpc)
            return [Sent("tubemq", business.topicName, "", key, None, len(data),
                         sum(len(item.payload) for item in data), frame.length, _resent_as(business))]
        if rpc.method == PULL_METHOD and business is not None:
            return [Pull("tubemq", business.topicName, "", key)]
        return [Call(key)]
    if rpc.exception is not None:
        return [Answer(key, False, lenient_text(rpc.exception.class_name).rsplit(".", 1)[-1])]
    business = rpc.business
    success = getattr(business, "success", True)
    if not success:
        return [Answer(key, False, f"{business.errCode} {lenient_text(getattr(business, 'errMsg', '') or '')}".strip())]
    data = messages_of(rpc)
    return [Answer(key, True, None, len(data), sum(len(item.payload) for item in data))]


def _resent_as(business) -> tuple:
    """A TubeMQ message carries no producer id: a re-send repeats its data (attributes and payload, with the
    minute $msgTime$ the producer stamped) and flag, whatever partition it goes to. A 16-byte digest of them
    is kept, so equal data sent twice on purpose also counts as a re-send (docs/how-to/audit.md)."""
    return ("data", business.flag, hashlib.blake2b(business.data, digest_size=16).digest())


# ------------------------------------------------------------------------------------------- EventMesh TCP

def _eventmesh_tcp(frame, direction: str) -> list:
    message = frame.payload
    if message is None:
        return []
    command, seq = message.command, message.header.seq
    if direction == "request" and command in _EM_SENDS and not message.error_echo:
        try:
            event = event_from_tcp(message)
            topic, ident = event.subject or "", event.id or None
            data = event.data
            size = len(data.encode("utf-8") if isinstance(data, str) else (data or b""))
        except (DecodeError, ValueError):
            topic, ident, size = "", None, len(message.raw_body)
        return [Sent("eventmesh", topic, "", ("seq", seq), ident, 1, size, frame.length)]
    if direction == "response" and (command in _EM_ANSWERS or message.error_echo):
        code = message.header.code
        ok = code == 0
        return [Answer(("seq", seq), ok, None if ok else f"{code} {message.header.desc or ''}".strip())]
    if direction == "response" and command in _EM_PUSHES:
        try:
            event = event_from_tcp(message)
            data = event.data
            size = len(data.encode("utf-8") if isinstance(data, str) else (data or b""))
            topic = event.subject or ""
        except (DecodeError, ValueError):
            topic, size = "", len(message.raw_body)
        return [Delivery("eventmesh", topic, "", 1, size)]
    return []


# ------------------------------------------------------------------------------------------- EventMesh HTTP

_HTTP_SENDS = frozenset(code for code in RequestCode if code.name in (
    "MSG_SEND_SYNC", "MSG_SEND_ASYNC", "MSG_BATCH_SEND", "MSG_BATCH_SEND_V2"))


def _http_event(fields: dict) -> tuple[str, str | None, int]:
    """(topic, unique id, content bytes) of a send's form fields (EventMeshMessage fields or a CloudEvent)."""
    content = fields.get("content")
    if content is not None and not isinstance(content, (str, bytes)):  # a CloudEvent
        data = getattr(content, "data", None)
        return (getattr(content, "subject", None) or fields.get("topic") or "", getattr(content, "id", None),
                len(data.encode("utf-8") if isinstance(data, str) else (data or b"")))
    data = content or b""
    return (str(fields.get("topic") or ""), fields.get("uniqueid") or None,
            len(data.encode("utf-8") if isinstance(data, str) else data))


def _eventmesh_http(frame, direction: str) -> list:
    code = getattr(frame, "code", None)
    if direction == "request" and frame.kind == "request" and code in _HTTP_SENDS:
        topic, ident, size = _http_event(frame.fields)
        count = frame.fields.get("size")
        records = int(count) if isinstance(count, str) and count.isdigit() else 1
        return [Sent("eventmesh-http", topic, "", ("code", int(code)), ident, records, size, frame.length)]
    if direction == "request" and frame.kind == "push":
        topic, _, size = _http_event(frame.fields)
        return [Delivery("eventmesh-http", topic, "", 1, size)]
    if direction == "response" and frame.kind == "runtime" and code in _HTTP_SENDS:
        ret = frame.ret
        ok = frame.status == 200 and ret is not None and ret.ret_code == 0
        if ok:
            return [Answer(("code", int(code)), True, None)]
        what = (f"{ret.ret_code} {frame.ret_code_name or ''}".strip() + (f": {ret.ret_msg}" if ret.ret_msg else "")
                if ret is not None else f"HTTP {frame.status}")
        return [Answer(("code", int(code)), False, what)]
    return []


# ------------------------------------------------------------------------------------------- EventMesh gRPC

_GRPC_SENDS = ("publish", "batchPublish", "requestReply")


def _attribute(body: dict, name: str):
    value = (body.get("attributes") or {}).get(name)
    if isinstance(value, dict):
        return next(iter(value.values()), None)
    return value


def _grpc_event(body: dict) -> tuple[str, str | None, int]:
    data = body.get("text_data") or body.get("binary_data") or ""
    if isinstance(data, dict):  # bytes rendered as {"hex": ...}
        data = bytes.fromhex(data.get("hex", ""))
    return (str(_attribute(body, "subject") or ""), body.get("id") or None,
            len(data.encode("utf-8") if isinstance(data, str) else data))


def _eventmesh_grpc(frame, direction: str) -> list:
    kind = getattr(frame, "kind", None)
    if kind == "message" and direction == "response" and frame.message_type == "subscribeStream":
        body = frame.body or {}
        if _attribute(body, "statuscode") is not None:  # the subscription's own answer, not an event
            return []
        topic, _, size = _grpc_event(body)
        return [Delivery("eventmesh-grpc", topic, "", 1, size)]
    if kind != "call" or frame.message_type not in _GRPC_SENDS:
        return []
    events_sent = []
    for request in frame.requests:
        body = request.get("body") or {}
        events_sent += body.get("events") or [body]  # batchPublish: a CloudEventBatch
    if not events_sent:
        return []
    topic, ident, _ = _grpc_event(events_sent[0])
    size = sum(_grpc_event(event)[2] for event in events_sent)
    sent = Sent("eventmesh-grpc", topic, "", None, ident, len(events_sent), size, 0)
    latency = None if frame.latency_ms is None else frame.latency_ms / 1000
    if frame.status is None:
        why = f"reset ({frame.reset})" if frame.reset else "no answer before the call's end was seen"
        return [Done(sent, None, why, None)]
    codes = [str(_attribute(response.get("body") or {}, "statuscode") or "0") for response in frame.responses]
    bad = next((code for code in codes if code not in ("0", "SUCCESS")), None)
    if frame.status != 0:
        return [Done(sent, False, f"grpc-status {frame.status}" + (f": {frame.status_message}"
                                                                  if frame.status_message else ""), latency)]
    if bad is not None:
        message = next((_attribute(r.get("body") or {}, "responsemessage") for r in frame.responses), None)
        return [Done(sent, False, f"statuscode {bad}" + (f": {message}" if message else ""), latency)]
    return [Done(sent, True, None, latency)]


_READERS = {"dataproxy": _dataproxy, "tubemq": _tubemq, "eventmesh": _eventmesh_tcp,
            "eventmesh-legacy": _eventmesh_tcp, "eventmesh-http": _eventmesh_http, "eventmesh-grpc": _eventmesh_grpc}

"""What EventMesh frames mean to the audit (inlong_proto.audit): messages sent, their answers, pushes to
consumers; one reader per transport, each named by its protocol's registry (`audit-reader`). Sans-IO; every
byte was already read by eventmesh.tcp, eventmesh.http and eventmesh.h2 (docs/how-to/audit.md):

* TCP (facts 3.x; both length forms): ASYNC_MESSAGE_TO_SERVER, BROADCAST_MESSAGE_TO_SERVER and
  REQUEST_TO_SERVER by header seq, answered by their _ACK (or RESPONSE_TO_CLIENT, or the command echoed with
  code 1); code 0 is success. Pushes (*_TO_CLIENT) are deliveries.
* HTTP: the send codes (MSG_SEND_SYNC, MSG_SEND_ASYNC, MSG_BATCH_SEND, MSG_BATCH_SEND_V2) by the request code,
  which the runtime's answer echoes in its ``code`` header, oldest first on the connection (HTTP/1.1 answers in
  order); retCode 0 with status 200 is success. The runtime's webhook pushes (HTTP_PUSH_CLIENT_ASYNC / SYNC)
  are deliveries.
* gRPC: publish, batchPublish and requestReply calls, which eventmesh.h2 pairs by stream; success is
  grpc-status 0 and the answer's ``statuscode`` attribute 0 (or absent). The events a subscribeStream call
  answers with (those without a ``statuscode``, which marks the subscription's own answer) are deliveries.

Replay (tcp_resend, http_resend): a TCP request gets a fresh header seq (ten digits, as the SDK's), its body sent
as captured; an HTTP request nothing (HTTP/1.1 answers in order): h11 rewrites it with its captured method,
target, headers and body, the same bytes but that a chunked body is sent with a Content-Length.
"""
from __future__ import annotations

import dataclasses

from inlong_proto.core.audit_events import Answer, Delivery, Done, Sent
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import encode
from inlong_proto.eventmesh import tcp
from inlong_proto.eventmesh.convert import event_from_tcp
from inlong_proto.eventmesh.http import RequestCode, build_request
from inlong_proto.eventmesh.tcp import Command

__all__ = ["grpc_events", "http_events", "http_resend", "tcp_events", "tcp_resend"]


def _size(data) -> int:
    """An event's data bytes: text as UTF-8."""
    return len(data.encode("utf-8") if isinstance(data, str) else (data or b""))


# ------------------------------------------------------------------------------------------- TCP

# the commands that send a message, and the command that answers each
_TCP_SENDS = {Command.ASYNC_MESSAGE_TO_SERVER: Command.ASYNC_MESSAGE_TO_SERVER_ACK,
              Command.BROADCAST_MESSAGE_TO_SERVER: Command.BROADCAST_MESSAGE_TO_SERVER_ACK,
              Command.REQUEST_TO_SERVER: Command.RESPONSE_TO_CLIENT}
_TCP_ANSWERS = frozenset(_TCP_SENDS.values())
_TCP_PUSHES = frozenset({Command.ASYNC_MESSAGE_TO_CLIENT, Command.BROADCAST_MESSAGE_TO_CLIENT,
                         Command.REQUEST_TO_CLIENT})


def tcp_events(frame, direction: str) -> list:
    """The audit events of a decoded EventMesh TCP frame (either length form) sent in `direction`."""
    message = frame.payload
    if message is None:
        return []
    command, seq = message.command, message.header.seq
    if direction == "request" and command in _TCP_SENDS and not message.error_echo:
        try:
            event = event_from_tcp(message)
            topic, ident, size = event.subject or "", event.id or None, _size(event.data)
        except (DecodeError, ValueError):
            topic, ident, size = "", None, len(message.raw_body)
        return [Sent("eventmesh", topic, "", ("seq", seq), ident, 1, size, frame.length)]
    if direction == "response" and (command in _TCP_ANSWERS or message.error_echo):
        code = message.header.code
        ok = code == 0
        return [Answer(("seq", seq), ok, None if ok else f"{code} {message.header.desc or ''}".strip())]
    if direction == "response" and command in _TCP_PUSHES:
        try:
            event = event_from_tcp(message)
            topic, size = event.subject or "", _size(event.data)
        except (DecodeError, ValueError):
            topic, size = "", len(message.raw_body)
        return [Delivery("eventmesh", topic, "", 1, size)]
    return []


def tcp_resend(request, number: int) -> bytes:
    """The bytes replay sends for a captured TCP request Frame: its header seq made `number`'s ten digits."""
    message = request.payload
    header = dataclasses.replace(message.header, seq=f"{number % 10**10:010d}")
    cloudevents = message.protocol_type == "cloudevents"
    return encode(tcp.frame(header, message.raw_body if cloudevents else message.body,
                            legacy=message.length_form == "legacy"))


# ------------------------------------------------------------------------------------------- HTTP

_HTTP_SENDS = frozenset(code for code in RequestCode if code.name in (
    "MSG_SEND_SYNC", "MSG_SEND_ASYNC", "MSG_BATCH_SEND", "MSG_BATCH_SEND_V2"))


def _http_event(fields: dict) -> tuple[str, str | None, int]:
    """(topic, unique id, content bytes) of a send's form fields (EventMeshMessage fields or a CloudEvent)."""
    content = fields.get("content")
    if content is not None and not isinstance(content, (str, bytes)):  # a CloudEvent
        return (getattr(content, "subject", None) or fields.get("topic") or "", getattr(content, "id", None),
                _size(getattr(content, "data", None)))
    return str(fields.get("topic") or ""), fields.get("uniqueid") or None, _size(content)


def http_events(frame, direction: str) -> list:
    """The audit events of a decoded EventMesh HTTP message sent in `direction`."""
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


def http_resend(request, number: int) -> bytes:
    """The bytes replay sends for a captured HTTP request: as captured (number unused: answers come in order)."""
    headers = [(name, None if name.lower() == "content-length" else value) for name, value in request.headers
               if name.lower() != "transfer-encoding"]  # (a None Content-Length is filled in, in its place)
    return build_request(request.method, request.target, headers, request.body)


# ------------------------------------------------------------------------------------------- gRPC

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
    return str(_attribute(body, "subject") or ""), body.get("id") or None, _size(data)


def grpc_events(frame, direction: str) -> list:
    """The audit events of an EventMesh gRPC item (a call the HTTP/2 layer paired, a streamed message)."""
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

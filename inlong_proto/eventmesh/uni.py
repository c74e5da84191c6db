"""The new runtime's uni HTTP API (specs/eventmesh/uni_http.yaml) beside the legacy request-code API: route
typing of requests, and the SSE (text/event-stream) reader that eventmesh.http's stream decoder feeds event by
event while a response is still open. No I/O.

A request whose path matches a uni route (longest string prefix, as the JDK HttpServer's contexts match) is
typed by that route: its query parameters, its body (a CloudEvent, an array of them, a JSON object, or an
EventMeshFrame for the lite -bytes route) and what the runtime would answer without asking storage (405 wrong
method, 400 a missing required parameter, 413 a Content-Length over MAX_MESSAGE_SIZE). An SSE answer is read
as the HTML standard's event stream; each event becomes an SseEvent, its data typed by its keys (a delivery
with its CloudEvent, or a StreamChunk of a session stream).

Answers are typed by the route of the request they answer when both directions of a connection are read
together (a capture: the registry's connection context, Exchanges): the status must be one the route lists,
the body the shape the table gives that status (told apart by content type where a status has two), and the
JDK server's own text/html rejects are typed on every route. A body that does not match is a warning naming
its JSON path, its stream offset and the reason; it never stops the stream.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import unquote_plus

from inlong_proto.core.errors import DecodeError, ValidationError
from inlong_proto.core.plain import render_bytes
from inlong_proto.generated.eventmesh.bodies.cloud_event import CloudEvent
from inlong_proto.generated.tables.eventmesh.uni_http import DATA as SPEC

PROTOCOL = "eventmesh-http"
ROUTES = sorted(SPEC["routes"], key=lambda r: -len(r["path"].split("{", 1)[0]))  # longest prefix first
LIMITS = SPEC["limits"]
SSE = SPEC["sse"]
DATA_KINDS = SSE["data-kinds"]
BODY_KINDS = SPEC["body-kinds"]
ANSWER_SHAPES = SPEC["answers"]
JDK = SPEC["jdk-server"]
JDK_REJECTS = {(r["status"], r["message"]) for r in JDK["rejects"]}
_JDK_BODY = re.compile(r"<h1>([0-9]{3}) ([^<]*)</h1>(.*)", re.DOTALL)
# response kinds this module adds to eventmesh.http's (message_type of each)
RESPONSE_KINDS = {"sse": {"name": "SSE_STREAM", "doc": "The head of a text/event-stream answer; its events follow "
                                                       "as SseEvent items, then an SSE_END item."},
                  "uni": {"doc": "An answer on a uni route (paired with its request): message_type is the "
                                 "route's name, answer the body typed by the route table."}}
MAX_UNANSWERED = 1024  # requests a connection may have in flight before Exchanges stops pairing


class Exchanges:
    """What both directions of one HTTP/1.1 connection share: the uni route (or None) of each request not yet
    answered, in order, since answers come in request order. A request is counted at its head (the JDK server
    may answer 413 before the body has arrived). A gap in either direction, or more than MAX_UNANSWERED
    requests in flight, ends the pairing for the connection: a lost request or answer would shift every
    answer after it onto the wrong route."""

    def __init__(self):
        self.unanswered: deque = deque()
        self.paired = True
        self.now_ns: int | None = None  # the capture clock, set by the capture layer (unused here)

    def asked(self, route: dict | None) -> None:
        if self.paired and len(self.unanswered) >= MAX_UNANSWERED:
            self.lost()
        if self.paired:
            self.unanswered.append(route)

    def answered(self) -> dict | None:
        """The route of the request this final answer answers (None: not a uni route, or not known)."""
        return self.unanswered.popleft() if self.paired and self.unanswered else None

    def lost(self) -> None:
        self.paired = False
        self.unanswered.clear()


def route_of(target: str, *, legacy_routes: bool = True) -> dict | None:
    """The uni route of a request target (path and query), or None. legacy_routes=False leaves out the
    /eventmesh/* bridge, whose paths the legacy HandlerService also serves."""
    path = target.split("?", 1)[0]
    for route in ROUTES:
        if not legacy_routes and route.get("legacy"):
            continue
        prefix = route["path"].split("{", 1)[0]
        if path.startswith(prefix.rstrip("/") if "{" in route["path"] else prefix):
            return route
    return None


def query_params(target: str) -> dict[str, str]:
    """The query as the runtime's param() reads it: split at '&', the first '=' of a pair, URL-decoded value,
    the first pair of a name wins, a pair without a name or '=' ignored."""
    _, _, query = target.partition("?")
    out: dict[str, str] = {}
    for pair in query.split("&") if query else ():
        name, eq, value = pair.partition("=")
        if eq and name and name not in out:
            out[name] = unquote_plus(value)
    return out


def _json(body: bytes, notes: list[str]):
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        notes.append(f"the body is not JSON ({exc}); the runtime answers 400 or 500")
        return None


def _cloud_event(value, where: str, notes: list[str]):
    if not isinstance(value, dict):
        notes.append(f"{where} is not a CloudEvent object; the runtime answers 400")
        return None
    try:
        return CloudEvent.from_json(value, where)
    except DecodeError as exc:
        notes.append(f"{where} is not a valid CloudEvent ({exc.reason}); the runtime answers 400")
        return None


def _frame(body: bytes, notes: list[str]):
    from inlong_proto.core.frames import decode

    try:
        return decode(body, "eventmesh-frame").payload
    except DecodeError as exc:
        notes.append(f"the body is not one EventMeshFrame ({exc})")
        return None


def read_request(route: dict, method: str, target: str, headers, body: bytes) -> tuple[dict, list[str]]:
    """(fields, warnings) of a request on a uni route: fields["query"] the parameters, fields["path_id"] a
    {id} path parameter, fields["body"] the typed body (a CloudEvent, a list of them, a JSON object, a
    FramePayload), per the route's body kind."""
    notes: list[str] = []
    fields: dict = {}
    if method != route["method"]:
        notes.append(f"{route['path']} takes {route['method']}, not {method}: the runtime answers 405")
    query = query_params(target)
    if query:
        fields["query"] = query
    for param in route.get("query", ()):
        if param.get("required") and param["name"] not in query:
            notes.append(f"query parameter {param['name']!r} is missing: the runtime answers 400")
    if "{" in route["path"]:
        prefix = route["path"].split("{", 1)[0]
        path = target.split("?", 1)[0]
        fields["path_id"] = path[len(prefix):] if path.startswith(prefix) else ""
        if not fields["path_id"]:
            notes.append("no id after the route's path: the runtime answers 400")
    if route["path"] in LIMITS["max-message-size-routes"]:
        length = next((v for k, v in headers if k.lower() == "content-length"), None)
        if length is not None and length.strip().isdecimal() and int(length) > LIMITS["max-message-size"]:
            notes.append(f"Content-Length {int(length)} is over MAX_MESSAGE_SIZE ({LIMITS['max-message-size']}): "
                         "the runtime answers 413")
    kind = route["body"]
    if kind == "cloudevent" and body:
        parsed = _json(body, notes)
        if parsed is not None:
            fields["body"] = _cloud_event(parsed, "body", notes)
    elif kind == "cloudevent-array" and body:
        parsed = _json(body, notes)
        if isinstance(parsed, list):
            fields["body"] = [_cloud_event(item, f"body[{i}]", notes) for i, item in enumerate(parsed)]
        elif parsed is not None:
            notes.append("expected a CloudEvent JSON array: the runtime answers 400")
    elif kind in ("json", "stream-chunk") and body:
        parsed = _json(body, notes)
        if parsed is not None:
            if isinstance(parsed, dict) and isinstance(parsed.get("event"), dict) and "event" in route.get("fields", ()):
                parsed = {**parsed, "event": _cloud_event(parsed["event"], "body.event", notes)}
            fields["body"] = parsed
    elif kind == "eventmesh-frame":
        if not body:
            notes.append("empty body: the runtime answers 400")
        else:
            fields["body"] = _frame(body, notes)
    elif kind == "none" and body:
        fields["body"] = render_bytes(body)
    if kind == "json" and route.get("fields") and not route.get("legacy"):
        seen = fields.get("body") if isinstance(fields.get("body"), dict) else {}
        missing = [f for f in route["fields"][:1] if f not in seen]
        if missing:
            notes.append(f"no {missing[0]!r} in the body: the runtime answers 400")
    return fields, notes


# ------------------------------------------------------------------------------------------- answers
def _shapes(route: dict, status: int) -> list:
    listed = route["answers"].get(status)
    return [] if listed is None else listed if isinstance(listed, list) else [listed]


def _shape_name(shape) -> str:
    return shape if isinstance(shape, str) else "{" + ", ".join(shape["keys"]) + "}"


def answer_content_type(shape) -> str:
    """The content type the runtime writes an answer of this shape with (writeJson's unless the kind names one)."""
    if isinstance(shape, dict) or shape in ANSWER_SHAPES:
        return "application/json"
    return BODY_KINDS[shape].get("content-type", "application/json")


def sse_data_kind(route: dict | None) -> str | None:
    """The data kind (sse.data-kinds) of the events of this route's 200 text/event-stream answer, if it has one."""
    for shape in _shapes(route, 200) if route else ():
        if isinstance(shape, str) and "data-kind" in BODY_KINDS.get(shape, {}):
            return BODY_KINDS[shape]["data-kind"]
    return None


def jdk_reject(status: int, body: bytes) -> str | None:
    """The message of the JDK server's own reject() answer (jdk-server), or None when body is not one."""
    found = _JDK_BODY.fullmatch(body.decode("latin-1"))
    if found and int(found.group(1)) == status and (status, found.group(3)) in JDK_REJECTS:
        return found.group(3)
    return None


class _Answer:
    """One answer's reading: its notes say the JSON path, the stream offset and the reason of each mismatch."""

    def __init__(self, route: dict, status: int, label: str, where):
        self.route, self.status, self.label, self.where = route, status, label, where
        self.notes: list[str] = []

    def note(self, path: str, offset: int, reason: str) -> None:
        self.notes.append(f"{path} at offset {offset}: {reason} (the route table: {self.route['name']} answers "
                          f"{self.status} with {self.label})")

    def json(self, body: bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self.note("body", self.where(exc.start), f"not valid UTF-8: {exc.reason}")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            self.note("body", self.where(len(text[:exc.pos].encode("utf-8"))), f"not valid JSON: {exc.msg}")
        except (ValueError, RecursionError) as exc:
            self.note("body", self.where(0), f"not valid JSON: {exc}")
        return None

    def typed(self, check, value, path: str):
        try:
            return check(value, path, self.where(0))
        except DecodeError as exc:
            self.note(exc.field or path, exc.offset, exc.reason)
            return None

    def array(self, value, item):
        if not isinstance(value, list):
            return self.note("body", self.where(0), f"expected a JSON array, got {type(value).__name__}")
        return [item(v, f"body[{i}]") for i, v in enumerate(value)]


def _object(value, path: str, offset: int) -> dict:
    if not isinstance(value, dict):
        raise ValidationError(offset, path, f"expected a JSON object, got {type(value).__name__}")
    return value


def _delivery(value, path: str, offset: int) -> dict:
    value = _object(value, path, offset)
    if not isinstance(value.get("deliveryId"), str):
        raise ValidationError(offset, f"{path}.deliveryId", "required, a string")
    return {**value, "event": CloudEvent.from_json(value.get("event"), f"{path}.event", offset)}


def _base64_frame(value, path: str, offset: int):
    from inlong_proto.core.frames import decode

    if not isinstance(value, str):
        raise ValidationError(offset, path, f"expected a base64 string, got {type(value).__name__}")
    try:
        data = base64.b64decode(value, validate=True)
    except binascii.Error as exc:
        raise ValidationError(offset, path, f"not base64: {exc}") from None
    try:
        return decode(data, "eventmesh-frame").payload
    except DecodeError as exc:
        raise ValidationError(offset, path, f"not one EventMeshFrame: {exc}") from None


def read_answer(route: dict, status: int, headers, body: bytes, where) -> tuple[object, list[str]]:
    """(typed body, warnings) of a final answer to a request on route: the status must be one the route lists
    (or the JDK server's own reject), the body the shape the table gives it, chosen by content type where a
    status has more than one. where(i) is the stream offset of body byte i."""
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "").split(";", 1)[0].strip().lower()
    message = jdk_reject(status, body)
    if message is not None:
        notes = [] if content_type == "text/html" else [f"the JDK server's reject, but Content-Type {content_type!r}"]
        return {"jdk_reject": message}, notes
    shapes = _shapes(route, status)
    if not shapes:
        return None, [f"{route['name']} does not answer {status} (the route table lists "
                      f"{', '.join(map(str, sorted(route['answers'])))})"]
    fitting = [s for s in shapes if answer_content_type(s) == content_type]
    answer = _Answer(route, status, " or ".join(map(_shape_name, shapes)), where)
    if not fitting:
        answer.notes.append(f"Content-Type {content_type or 'none'!r}: {route['name']}'s {status} is written as "
                            f"{' or '.join(sorted({answer_content_type(s) for s in shapes}))}")
    shape = (fitting or shapes)[0]
    if shape == JDK["answer"]:
        answer.note("body", where(0), "not one of the JDK server's reject() answers")
        return None, answer.notes
    value = answer.json(body)
    if value is None:
        return None, answer.notes
    if isinstance(shape, dict) or shape in ANSWER_SHAPES:
        keys = (shape if isinstance(shape, dict) else ANSWER_SHAPES[shape])["keys"]
        if answer.typed(_object, value, "body") is not None:
            missing, extra = [k for k in keys if k not in value], [k for k in value if k not in keys]
            if missing:
                answer.note("body", where(0), f"no {', '.join(missing)}")
            if extra:
                answer.note("body", where(0), f"unexpected {', '.join(extra)}")
        return value, answer.notes
    if shape == "cloudevent":
        return answer.typed(CloudEvent.from_json, value, "body"), answer.notes
    if shape == "cloudevent-array":
        return answer.array(value, lambda v, p: answer.typed(CloudEvent.from_json, v, p)), answer.notes
    if shape == "deliveries":
        return answer.array(value, lambda v, p: answer.typed(_delivery, v, p)), answer.notes
    if shape == "frames-base64":
        return answer.array(value, lambda v, p: answer.typed(_base64_frame, v, p)), answer.notes
    answer.note("body", where(0), f"a {shape} answer is not a whole body")  # an SSE kind: read as a stream
    return value, answer.notes


def plain(value):
    """Typed values as JSON data."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------------------------- SSE
@dataclass(frozen=True)
class SseEvent:
    """One dispatched event of a text/event-stream answer (or, end=True, the bytes that close the stream:
    the last chunk and any event never dispatched). Its span runs from the previous item's end to the end of
    its blank line, so chunk framing between events belongs to the event after it."""

    offset: int
    length: int
    event: str | None
    id: str | None
    retry: int | None
    data: str | None
    data_kind: str | None  # delivery, stream_chunk, json, text (sse.data-kinds)
    value: object  # the data typed: {"deliveryId", "event": CloudEvent}, a StreamChunk dict, JSON, or None
    end: bool = False
    warnings: tuple[str, ...] = field(default=())
    direction = "response"
    error = None
    protocol = PROTOCOL
    message = None
    kind = "sse_event"

    @property
    def message_type(self) -> str:
        if self.end:
            return "SSE_END"
        return {"delivery": "SSE_DELIVERY", "stream_chunk": "SSE_STREAM_CHUNK"}.get(self.data_kind, "SSE_EVENT")

    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "sse", "warnings")

    def to_dict(self) -> dict:
        sse = {name: getattr(self, name) for name in ("event", "id", "retry", "data", "data_kind")
               if getattr(self, name) is not None}
        if self.value is not None:
            sse["value"] = plain(self.value)
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "sse": sse}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def is_event_stream(headers) -> bool:
    """Whether a response's headers say text/event-stream."""
    return any(name.lower() == b"content-type" and value.split(b";", 1)[0].strip().lower()
               == SSE["content-type"].encode("ascii") for name, value in headers)


def _typed(data: str, notes: list[str]):
    try:
        value = json.loads(data)
    except ValueError:
        return "text", None
    for kind in DATA_KINDS:
        if isinstance(value, dict) and all(key in value for key in kind["keys"]):
            if kind["name"] == "delivery":
                value = {**value, "event": _cloud_event(value["event"], "data.event", notes)}
            return kind["name"], value
    return "json", value


class SseReader:
    """Incremental event-stream parser over a response body's bytes. feed(data) -> [(end index in data,
    SseEvent)] for each event dispatched in data; `pending` is the bytes held (one unfinished line and the
    fields of the event being built), which the caller charges to its memory budget. An event that would hold
    more than `limit` bytes stops the reader (over = True) at that byte: nothing past it is read."""

    def __init__(self, limit: int, data_kind: str | None = None):
        self.limit = limit  # the most bytes of one event held (the decoder's max_body)
        self.data_kind = data_kind  # what the route says each event's data is (sse.data-kinds), None: any
        self.over = False  # an event passed the limit: feed stopped there
        self._line = bytearray()
        self._cr = False  # the last byte fed was CR: a LF right after it ends nothing more
        self._fields: dict = {}
        self._data: list[str] = []
        self._notes: list[str] = []
        self._size = 0

    @property
    def pending(self) -> int:
        return len(self._line) + self._size

    @property
    def open_event(self) -> bool:
        return bool(self._line or self._fields or self._data)

    def feed(self, data: bytes) -> list[tuple[int, SseEvent]]:
        out = []
        for index, byte in enumerate(data):
            if self._cr and byte == 0x0A:
                self._cr = False
                continue
            self._cr = byte == 0x0D
            if byte in (0x0A, 0x0D):
                event = self._line_done()
                if event is not None:
                    out.append((index + 1, event))
            else:
                self._line.append(byte)
                if self.pending > self.limit:
                    self.over = True
                    return out
        return out

    def _line_done(self):
        raw = bytes(self._line)
        self._line.clear()
        if not raw:
            return self._dispatch()
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "replace")
            self._notes.append("a line that is not UTF-8 (read with replacement characters)")
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        self._size += len(raw)
        if name == "data":
            self._data.append(value)
        elif name in ("event", "id"):
            if name == "id" and "\0" in value:
                return None
            self._fields[name] = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._fields["retry"] = int(value)
            else:
                self._notes.append(f"retry {value!r} is not digits: ignored")
        else:
            self._notes.append(f"unknown field {name!r}: ignored")
        return None

    def _dispatch(self):
        fields, data, notes = self._fields, self._data, self._notes
        self._fields, self._data, self._notes, self._size = {}, [], [], 0
        if not data and not fields:
            return None  # a blank line with nothing before it
        if not data:
            notes.append("no data lines: an EventSource does not dispatch this event")
        text = "\n".join(data) if data else None
        kind, value = _typed(text, notes) if text is not None else (None, None)
        if self.data_kind is not None and text is not None and kind != self.data_kind:
            keys = next(k["keys"] for k in DATA_KINDS if k["name"] == self.data_kind)
            notes.append(f"the data is not a {self.data_kind} (keys {', '.join(keys)}), as the route's stream carries")
        return SseEvent(0, 0, fields.get("event"), fields.get("id"), fields.get("retry"), text, kind, value,
                        warnings=tuple(notes))

    def close_notes(self) -> list[str]:
        """What is lost when the stream ends here (an event without its blank line is never dispatched)."""
        if self.open_event:
            return ["the stream ended inside an event: it is never dispatched"]
        return []


def frames_of_poll_bytes(values) -> list:
    """The FramePayloads of a /events/lite/poll-bytes answer (a JSON array of base64 EventMeshFrames)."""
    from inlong_proto.core.frames import decode

    return [decode(base64.b64decode(v), "eventmesh-frame").payload for v in values]

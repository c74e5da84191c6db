"""EventMesh HTTP: the legacy request-code API, the runtime's answers and the webhook push, in HTTP/1.1 dumps.

HTTP/1.1 framing (request and status lines, headers, Content-Length and chunked bodies, pipelining) is
parsed and written by h11; what EventMesh puts inside is declared in specs/eventmesh/http.yaml (read here
from its generated table) and in the JSON Schemas under specs/eventmesh/bodies:

* requests: the request code from the ``code`` header (POST) or query parameter (GET), or a URI route of
  the newer API; the protocol headers the runtime reads (exact lowercase names); the form fields typed by
  the code's body kind (text, or JSON text typed by a schema: SubscriptionItem, HeartbeatEntity, ...);
* responses: the runtime's ``{"retCode","retMsg","resTime"}`` with the retCode table, the sync reply
  inside retMsg, or a subscriber's webhook reply with what the runtime does with it (complete / retry);
* the webhook push (codes 105/106) as a request like any other.

What the HTTP layer or the spec cannot read (garbage, a cut stream, a field that is not the JSON its type
says, a bad %-escape) is a DecodeError with the byte offset in the stream; what the runtime only answers
with an error (an unknown code, a missing field, a non-numeric pid) is a warning on the message, as in
the TCP layer. Builders write what the Java SDK, the runtime and its push client write, through h11.
"""
from __future__ import annotations

import ast
import dataclasses
import bisect
import importlib
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache, partial
from http import HTTPStatus
from typing import Callable, Iterator

import h11

from inlong_proto.core.errors import DecodeError, EncodeError, TruncatedError, ValidationError
from inlong_proto.generated.eventmesh.bodies.batch_message_entity import BatchMessageEntity
from inlong_proto.generated.eventmesh.bodies.cloud_event import CloudEvent
from inlong_proto.generated.eventmesh.bodies.heartbeat_entity import HeartbeatEntity
from inlong_proto.generated.eventmesh.bodies.http_response_body import HttpResponseBody
from inlong_proto.generated.eventmesh.bodies.reply_message import ReplyMessage
from inlong_proto.generated.eventmesh.bodies.subscription_item import (SubscriptionItem, SubscriptionMode,
                                                                       SubscriptionType)
from inlong_proto.generated.eventmesh.bodies.webhook_reply import WebhookReply
from inlong_proto.generated.tables.eventmesh.http import DATA as SPEC
from inlong_proto.core.stream import DEFAULT_LIMITS, Limits, StreamDecoderBase, over_limit
from inlong_proto.core.plain import printable, render_bytes
from inlong_proto.eventmesh import uni
from inlong_proto.eventmesh.tcp import dumps

PROTOCOL = "eventmesh-http"

__all__ = ["BatchMessageEntity", "ClientConfig", "ClientRetCode", "CloudEvent", "HeartbeatEntity", "HttpError",
           "HttpRequest", "HttpResponse", "HttpStreamDecoder", "ReplyMessage", "RequestCode", "RetCode",
           "SubscriptionItem", "SubscriptionMode", "SubscriptionType", "WebhookReply", "batch_send",
           "batch_send_v2", "build_request", "build_response", "error_status", "form_encode", "h11_reason",
           "heartbeat", "iter_messages", "java_hashmap_order", "push", "reply_message", "response", "send_cloudevent",
           "send_message", "subscribe", "unsubscribe", "webhook_reply"]

# ----------------------------------------------------------------------------------- the spec's tables
RequestCode = IntEnum("RequestCode", {e["name"]: e["code"] for e in SPEC["request-codes"]["codes"]})
RequestCode.__doc__ = "common/protocol/http/common/RequestCode.java (specs/eventmesh/http.yaml)."
RetCode = IntEnum("RetCode", {e["name"]: e["code"] for e in SPEC["ret-codes"]["codes"]})
RetCode.__doc__ = "EventMeshRetCode, the runtime's retCode table (specs/eventmesh/http.yaml)."
ClientRetCode = IntEnum("ClientRetCode", {e["name"]: e["code"] for e in SPEC["push"]["client-ret-codes"]})
ClientRetCode.__doc__ = "ClientRetCode, what a subscriber answers a push with (specs/eventmesh/http.yaml)."

CODES = {e["code"]: e for e in SPEC["request-codes"]["codes"]}
RET_CODES = {e["code"]: e for e in SPEC["ret-codes"]["codes"]}
CLIENT_RET_CODES = {e["code"]: e for e in SPEC["push"]["client-ret-codes"]}
BODIES = SPEC["bodies"]
FIELD_TYPES = SPEC["field-types"]
TRANSPORT = SPEC["transport"]
HEADER_KEYS = {e["key"]: e for e in SPEC["header-keys"]["request"]}
ROUTES = sorted(SPEC["uri-routes"]["routes"], key=lambda r: -len(r["path"]))  # longest prefix first
PUSH = SPEC["push"]
RESPONSES = SPEC["responses"]
SDK = SPEC["java-sdk"]
_RESYNC = {"request": re.compile(SPEC["resync"]["request"].encode("ascii")),
           "response": re.compile(SPEC["resync"]["response"].encode("ascii"))}
_PROBE = SPEC["resync"]["direction-probe"].encode("ascii")
MAX_HEAD = SPEC["resync"]["max-head-bytes"]
_SLICE = 1 << 16  # bytes handed to h11 at a time, so that its buffer (and trailing_data) stays small
_RESYNC_WINDOW = 1 << 20  # an unresynchronised malformed span is reported in pieces of at most this
_SEGMENT_COST = 128  # about what one body piece's (a chunk's) bookkeeping takes in memory, charged to max_body


@cache
def _schema_module(path: str):
    """The generated module of a JSON Schema named in the spec (bodies/x.schema.json -> ...bodies.x)."""
    dotted = path.removesuffix(".schema.json").replace("/", ".")
    return importlib.import_module(f"inlong_proto.generated.eventmesh.{dotted}")


# ----------------------------------------------------------------------------------------- form fields
_FORM_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                       + TRANSPORT["form"]["safe"].encode("ascii"))
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def form_encode(pairs) -> bytes:
    """application/x-www-form-urlencoded as Apache HttpClient writes it (the spec's safe set, '+' for
    space, upper-case %XX); a None value is written as the bare key."""
    out = []
    for name, value in pairs:
        item = _form_escape(name)
        if value is not None:
            item += b"=" + _form_escape(value)
        out.append(item)
    return b"&".join(out)


def _form_escape(text: str) -> bytes:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("body", f"not encodable as UTF-8: {exc.reason}") from None
    space = TRANSPORT["form"]["space"].encode("ascii")
    return b"".join(bytes((b,)) if b in _FORM_SAFE else space if b == 0x20 else b"%%%02X" % b for b in data)


@dataclass(frozen=True)
class FormField:
    """One decoded form field: its key, its text, and where its raw value sits in the stream."""

    key: str
    text: str
    raw: bytes
    at: int  # index of the raw value in the body (or query string)
    where: Callable[[int], int] = field(repr=False, compare=False)

    @property
    def offset(self) -> int:
        return self.where(self.at)

    def offset_of(self, char_index: int) -> int:
        """Stream offset of a character of the decoded text (through %-escapes and UTF-8)."""
        wanted = len(self.text[:char_index].encode("utf-8", "surrogatepass"))
        raw_index = decoded = 0
        while raw_index < len(self.raw) and decoded < wanted:
            raw_index += 3 if self.raw[raw_index] == 0x25 else 1
            decoded += 1
        return self.where(self.at + raw_index)


def _form_decode(raw: bytes, where: Callable[[int], int], path: str, notes: list[str]) -> list[FormField]:
    """Form fields as Netty's HttpPostRequestDecoder reads them: '&'-separated, a key without '=' is "",
    empty pieces are skipped; an empty name or a bad %-escape is refused (the runtime answers 500)."""
    fields, start = [], 0
    for piece in raw.split(b"&"):
        at, start = start, start + len(piece) + 1
        if not piece:
            continue
        name_raw, eq, value_raw = piece.partition(b"=")
        if not name_raw:
            raise ValidationError(where(at), path, "a form field with an empty name (the runtime's decoder "
                                                   "throws, HTTP 500)")
        name = _unescape(name_raw, at, where, path, notes)
        value_at = at + len(name_raw) + len(eq)
        value = _unescape(value_raw, value_at, where, f"{path}.{name}", notes)
        fields.append(FormField(name, value, value_raw, value_at, where))
    return fields


def _unescape(raw: bytes, at: int, where, path: str, notes: list[str]) -> str:
    bad = _BAD_ESCAPE.search(raw)
    if bad:
        raise ValidationError(where(at + bad.start()), path, f"bad %-escape {bytes(raw[bad.start():bad.start() + 3])!r}"
                                                              " (the runtime's decoder throws, HTTP 500)")
    data = urllib.parse.unquote_to_bytes(raw.replace(b"+", b" "))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        notes.append(f"{path}: not valid UTF-8; read with U+FFFD replacements, as Netty reads it")
        return data.decode("utf-8", "replace")


# ------------------------------------------------------------------------------------------ JSON text
def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


_JSON = json.JSONDecoder(parse_constant=_refuse_constant)


def _parse_json(text: str, locate: Callable[[int], int], path: str, notes: list[str]):
    """JSON as the runtime's Jackson mapper reads it: NaN refused, text after the value ignored (noted);
    locate turns a character index of text into a stream offset for errors."""
    offset = locate(0)
    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        value, end = _JSON.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ValidationError(locate(exc.pos), path, f"not valid JSON: {exc.msg} (character {exc.pos})") from None
    except ValueError as exc:
        raise ValidationError(offset, path, f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ValidationError(offset, path, "JSON nested too deeply") from None
    if text[end:].strip(" \t\r\n"):
        notes.append(f"{path}: text after the JSON value is ignored, as Jackson ignores trailing tokens")
    return value


def _json_string(value, path: str, offset: int) -> str | None:
    """An element Jackson binds to a String: text, or a scalar's text; objects and arrays are refused."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    raise ValidationError(offset, path, f"expected a string, got {type(value).__name__}")


def _typed_json(shape: dict, value, path: str, offset: int):
    """A parsed JSON value typed by a field type's json/items/values/schema."""
    if shape["json"] == "array":
        if not isinstance(value, list):
            raise ValidationError(offset, path, f"expected a JSON array, got {_kind(value)}")
        items = shape["items"]
        if items == "string":
            return [_json_string(v, f"{path}[{i}]", offset) for i, v in enumerate(value)]
        module = _schema_module(items["schema"])
        return [module.from_json(v, f"{path}[{i}]", offset) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise ValidationError(offset, path, f"expected a JSON object, got {_kind(value)}")
    if "schema" in shape:
        return _schema_module(shape["schema"]).from_json(value, path, offset)
    return {str(k): _json_string(v, f"{path}.{k}", offset) for k, v in value.items()}


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _type_field(type_name, item: FormField, headers: dict, path: str, notes: list[str]):
    shape = FIELD_TYPES[type_name] if isinstance(type_name, str) else type_name
    if "by-header" in shape:
        chosen = shape["cases"].get(headers.get(shape["by-header"]), shape["default"])
        return _type_field(chosen, item, headers, path, notes)
    if "json" not in shape:
        return item.text
    return _typed_json(shape, _parse_json(item.text, item.offset_of, path, notes), path, item.offset)


def _plain(value):
    """Typed values as JSON data (generated classes through to_json, payload types through to_dict)."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _text(data: bytes):
    """Body bytes for to_dict: UTF-8 text, else {"hex": ...}."""
    return render_bytes(bytes(data))


# ------------------------------------------------------------------------------------------- messages
@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request of the stream with what EventMesh reads from it.

    kind: "request" (a client calling the runtime by request code), "push" (the runtime's webhook push,
    code 105/106), "route" (the URI-path API), or "uni" (the new runtime's routes, specs/eventmesh/uni_http.yaml:
    fields hold the query, a path id and the typed body); fields are typed per the code's body kind,
    other_fields keep the rest as text (nothing is dropped)."""

    offset: int
    length: int
    method: str
    target: str
    http_version: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    chunked: bool
    kind: str
    code_text: str | None  # the request code as sent
    code: RequestCode | None
    route: str | None
    protocol_headers: dict
    fields: dict
    other_fields: dict
    warnings: tuple[str, ...] = ()
    direction = "request"
    error = None  # as on frames.Frame: only HttpError spans carry one
    protocol = PROTOCOL  # as on frames.Frame, so that frame tables (Spark's auto) hold these rows:
    message = None  # meta columns only, since HTTP has no generated frame columns

    @property
    def message_type(self) -> str:
        if self.route is not None:
            return self.route
        return self.code.name if self.code is not None else RequestCode.UNKNOWN.name

    # every key to_dict can give (decode -e / -Y check paths against it)
    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "method", "target",
                 "http_version", "headers", "chunked", "route", "request_code", "protocol_headers", "fields",
                 "other_fields", "body", "warnings")

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "method": self.method, "target": self.target,
               "http_version": self.http_version, "headers": [list(h) for h in self.headers],
               "chunked": self.chunked}
        if self.route is not None:
            out["route"] = self.route
        else:
            out["request_code"] = self.code_text
        out["protocol_headers"] = dict(self.protocol_headers)
        out["fields"] = _plain(self.fields)
        if self.other_fields:
            out["other_fields"] = dict(self.other_fields)
        if self.kind == "route" or not (self.fields or self.other_fields) and self.body \
                or self.kind == "uni" and "body" not in self.fields and self.body:
            out["body"] = _text(self.body)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


@dataclass(frozen=True)
class HttpResponse:
    """One HTTP response of the stream: the runtime's answer (retCode table), a subscriber's webhook
    reply (with what the runtime does about it), a 1xx, or other."""

    offset: int
    length: int
    status: int
    reason: str
    http_version: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    chunked: bool
    kind: str  # runtime, webhook_reply, informational, other
    code_text: str | None  # the `code` response header
    code: RequestCode | None
    ret: HttpResponseBody | WebhookReply | None
    reply: ReplyMessage | None = None  # a successful MSG_SEND_SYNC's reply, from retMsg
    push_outcome: dict | None = None  # webhook replies: the ClientRetCode read and complete/retry
    warnings: tuple[str, ...] = ()
    route: str | None = None  # the uni route of the request it answers (both directions read together)
    answer: object = None  # a uni answer's body typed by the route table
    direction = "response"
    error = None
    protocol = PROTOCOL
    message = None

    @property
    def message_type(self) -> str:
        if self.kind == "uni":
            return self.route
        kind = RESPONSES["kinds"].get(self.kind) or uni.RESPONSE_KINDS[self.kind]
        if "name" in kind:
            return kind["name"]
        return self.code.name if self.code is not None else RequestCode.UNKNOWN.name

    @property
    def ret_code_name(self) -> str | None:
        if self.kind != "runtime" or self.ret is None or self.ret.ret_code not in RET_CODES:
            return None
        return RET_CODES[self.ret.ret_code]["name"]

    # every key to_dict can give (decode -e / -Y check paths against it)
    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "status", "reason",
                 "http_version", "headers", "chunked", "route", "request_code", "ret", "ret_code_name", "body",
                 "answer", "reply", "push", "warnings")

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "status": self.status, "reason": self.reason,
               "http_version": self.http_version, "headers": [list(h) for h in self.headers],
               "chunked": self.chunked}
        if self.route is not None:
            out["route"] = self.route
        if self.code_text is not None:
            out["request_code"] = self.code_text
        if self.ret is not None:
            out["ret"] = self.ret.to_json()
            if self.kind == "runtime":
                out["ret_code_name"] = self.ret_code_name
        elif self.body:
            out["body"] = _text(self.body)
        if self.answer is not None:
            out["answer"] = uni.plain(self.answer)
        if self.reply is not None:
            out["reply"] = self.reply.to_json()
        if self.push_outcome is not None:
            out["push"] = dict(self.push_outcome)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


@dataclass(frozen=True)
class HttpError:
    """A malformed span (PERMISSIVE): where, how long, why, and its bytes, so nothing is dropped."""

    offset: int
    length: int
    error: DecodeError
    raw: bytes
    direction: str | None
    message_type = None
    protocol = PROTOCOL
    message = None

    def to_dict(self) -> dict:
        return {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": None,
                "direction": self.direction,
                "error": {"kind": self.error.kind, "offset": self.error.offset, "field": self.error.field,
                          "reason": self.error.reason},
                "raw": render_bytes(self.raw)}


# What a stream of this protocol yields, besides HttpError spans (decode -e / -Y read their JSON_KEYS).
MESSAGE_TYPES = (HttpRequest, HttpResponse, uni.SseEvent)
# The protocol's own struct column in Spark and Arrow tables (inlong_proto.core.arrow): each to_dict key beyond the
# meta columns, with its column type; "json" keeps a nested value as its JSON text (Spark's from_json and
# get_json_object read it), "headers" is ARRAY<STRUCT<name, value>> in wire order.
COLUMNS = {"kind": "string", "method": "string", "target": "string", "status": "int32", "reason": "string",
           "http_version": "string", "headers": "headers", "chunked": "bool", "route": "string",
           "request_code": "string", "protocol_headers": "json", "fields": "json", "other_fields": "json",
           "ret": "json", "ret_code_name": "string", "reply": "json", "push": "json", "body": "json",
           "answer": "json", "sse": "json", "warnings": "list<string>"}


# ------------------------------------------------------------------------------- reading one message
def _header_pairs(head) -> tuple[tuple[str, str], ...]:
    return tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in head.headers.raw_items())


def _any_case(headers, key: str) -> str | None:
    """Netty's HttpHeaders.get: the first value, name in any case."""
    for name, value in headers:
        if name.lower() == key:
            return value
    return None


def _protocol_headers(headers, notes: list[str], push: bool = False) -> dict:
    """The spec's header keys as the runtime reads them: `code`/`version` in any case, the rest by exact
    name from a HashMap of the headers (so the last duplicate wins); a push adds its eventmesh* keys."""
    exact = {}
    for name, value in headers:
        exact[name] = value
    found = {}
    keys = {**HEADER_KEYS, **{k: {"key": k} for k in PUSH["headers"] if k not in HEADER_KEYS}} if push else HEADER_KEYS
    for key, entry in keys.items():
        value = _any_case(headers, key) if entry.get("any-case") else exact.get(key)
        if value is None and not entry.get("any-case"):
            other = next((name for name, _ in headers if name.lower() == key and name != key), None)
            if other is not None:
                notes.append(f"header {other!r} is not read: the runtime looks up {key!r} exactly")
        if value is not None:
            found[key] = value
    return found


def _route(target: str) -> str | None:
    for route in ROUTES:
        if target.startswith(route["path"]):
            return route["name"]
    return None


def _code(text: str | None) -> RequestCode | None:
    if text is None or not text.isascii() or not text.isdecimal():
        return None
    return RequestCode._value2member_map_.get(int(text))


def _where(segments: list[tuple[int, int, int]], fallback: int) -> Callable[[int], int]:
    """Body index -> stream offset, through the Data events' positions (exact for chunked bodies too)."""
    starts = [s[0] for s in segments]

    def where(index: int) -> int:
        if not segments:
            return fallback
        i = max(0, bisect.bisect_right(starts, index) - 1)
        body_at, stream_at, size = segments[i]
        return stream_at + min(index - body_at, size)

    return where


def h11_reason(exc: h11.RemoteProtocolError) -> tuple[str, bytes | None]:
    """h11's reason for refusing bytes, and the bytes it names: h11 quotes them by their Python repr
    (bytearray(b'...')), which the reason shows instead as peer text is shown, their text with controls
    escaped (plain.printable), or their hex when they are not UTF-8 (plain.render_bytes)."""
    reason = str(exc)
    quoted = re.search(r"bytearray\((b'.*'|b\".*\")\)", reason)
    if not quoted:
        return reason, None
    try:
        named = ast.literal_eval(quoted.group(1))
    except (ValueError, SyntaxError):
        return reason, None
    shown = render_bytes(named)
    text = printable(shown) if isinstance(shown, str) else f"hex {shown['hex']}"
    return reason.replace(quoted.group(0), text), named


def _read_request(head, body: bytes, segments, offset: int, length: int, head_end: int, chunked: bool) -> HttpRequest:
    notes: list[str] = []
    headers = _header_pairs(head)
    method = head.method.decode("ascii", "replace")
    target = head.target.decode("latin-1")
    code_text = _any_case(headers, TRANSPORT["code"]["header"]) if method != "GET" else None
    push = _code(code_text) is not None and int(_code(code_text)) in PUSH["request-codes"]
    protocol = _protocol_headers(headers, notes, push)
    uni_route = uni.route_of(target, legacy_routes=False)
    if uni_route is not None:
        fields, more = uni.read_request(uni_route, method, target, headers, body)
        return HttpRequest(offset, length, method, target, head.http_version.decode("ascii"), headers, body, chunked,
                           "uni", None, None, uni_route["name"], protocol, fields, {}, tuple(notes + more))
    route = _route(target)
    fields, others = {}, {}
    if route is not None:
        return HttpRequest(offset, length, method, target, head.http_version.decode("ascii"), headers, body, chunked,
                           "route", None, None, route, protocol, fields, others, tuple(notes))
    if method == "GET":
        path, _, query = target.partition("?")
        query_at = offset + len(head.method) + 1 + len(path) + 1
        items = _form_decode(query.encode("latin-1"), lambda i: query_at + i, "query", notes)
        code_text = next((f.text for f in reversed(items) if f.key == TRANSPORT["code"]["query-parameter"]), None)
    else:
        items = []
        content_type = (_any_case(headers, "content-type") or "").lower()
        if method == "POST" and body:
            if content_type.startswith("multipart/"):
                notes.append("multipart body: the runtime keeps only its attributes; not decoded here")
            else:
                if not content_type.startswith(TRANSPORT["form"]["content-type"]):
                    notes.append(f"content type {content_type or 'none'!r}: the body is read as a form anyway, "
                                 "as the runtime's decoder does")
                items = _form_decode(body, _where(segments, head_end), "body", notes)
    code = _code(code_text)
    entry = CODES.get(int(code)) if code is not None else None
    kind = "push" if code is not None and int(code) in PUSH["request-codes"] else "request"
    spec_fields = {f["key"]: f for f in BODIES[entry["body"] if entry else "none"]["fields"]}
    latest: dict[str, FormField] = {}
    for item in items:
        if item.key in latest:
            notes.append(f"form field {item.key!r} is repeated; the runtime keeps the last one")
        latest[item.key] = item
    for key, item in latest.items():
        if key in spec_fields:
            fields[key] = _type_field(spec_fields[key]["type"], item, protocol, f"body.{key}", notes)
        elif not (method == "GET" and key == TRANSPORT["code"]["query-parameter"]):
            others[key] = item.text
    if kind == "request":
        notes += _runtime_checks(method, code_text, entry, protocol, fields, latest)
    return HttpRequest(offset, length, method, target, head.http_version.decode("ascii"), headers, body, chunked,
                       kind, code_text, code, None, protocol, fields, others, tuple(notes))


def _runtime_checks(method: str, code_text, entry, protocol: dict, fields: dict, items: dict) -> list[str]:
    """What the runtime answers with an error (not a decode error): reported, never raised."""
    notes = []
    if method not in TRANSPORT["methods"]["allowed"]:
        return [f"method {method}: the runtime answers {TRANSPORT['methods']['refused-status']}"]
    version = (protocol.get("version") or "").strip() or TRANSPORT["version"]["default"]
    if version not in TRANSPORT["version"]["allowed"]:
        return [f"version {version!r} is not 1.0 or 2.0: the runtime answers {TRANSPORT['version']['refused-status']}"]
    if entry is None or not entry["served"] or code_text != str(entry["code"]):
        what = "no request code" if not (code_text or "").strip() else f"request code {code_text!r} is not served"
        return [f"{what}: the runtime answers 400 with retCode {int(RetCode.EVENTMESH_REQUESTCODE_INVALID)}"]
    check = SPEC["header-keys"]["header-check"]
    if entry.get("header-checks"):
        for key, spec in HEADER_KEYS.items():
            value = protocol.get(key) or ""
            if spec.get("checked") and not value.strip():
                notes.append(f"header {key!r} is blank: retCode {check['ret-code']}")
            elif spec.get("numeric") and not (value.isascii() and value.isdecimal()):
                notes.append(f"header {key!r} is not numeric ({value!r}): retCode {check['ret-code']}")
    body = BODIES[entry["body"]]
    required = body.get("required-by-protocol", {}).get(protocol.get("protocoltype"))
    for spec in body["fields"]:
        key = spec["key"]
        if spec.get("required") and (required is None or key in required):
            value = items[key].text if key in items else ""
            if not value.strip():
                notes.append(f"form field {key!r} is missing or blank: retCode {body['missing-ret-code']}")
            elif isinstance(fields.get(key), list) and not fields[key]:
                notes.append(f"form field {key!r} is an empty list: retCode {body['missing-ret-code']}")
    limit = TRANSPORT["max-event-size"]
    for key in limit["fields"]:
        text = items[key].text if key in items and entry["body"] == "send_message" else ""
        if len(text) > limit["characters"]:
            notes.append(f"{key} has {len(text)} characters, over {limit['characters']}: retCode {limit['ret-code']}")
    return notes


def _read_response(head, body: bytes, segments, offset: int, length: int, head_end: int, chunked: bool,
                   route: dict | None = None) -> HttpResponse:
    """route: the uni route of the request it answers, when both directions are read together (eventmesh.uni)."""
    notes: list[str] = []
    headers = _header_pairs(head)
    status = head.status_code
    reason = head.reason.decode("latin-1")
    version = head.http_version.decode("ascii")
    code_text = _any_case(headers, "code")
    code = _code(code_text)
    if status < 200:
        return HttpResponse(offset, length, status, reason, version, headers, body, chunked, "informational",
                            code_text, code, None)
    where = _where(segments, head_end)
    if route is not None:
        answer, notes = uni.read_answer(route, status, headers, body, where)
        return HttpResponse(offset, length, status, reason, version, headers, body, chunked, "uni", code_text, code,
                            None, None, None, tuple(notes), route["name"], answer)
    parsed, text = None, None
    if body.strip():
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            if code_text is not None:
                raise ValidationError(where(exc.start), "body", f"not valid UTF-8: {exc.reason}") from None
        if text is not None:
            try:
                parsed = _parse_json(text, lambda i: where(len(text[:i].encode("utf-8"))), "body", notes)
            except ValidationError:
                if code_text is not None:
                    raise  # the runtime always answers JSON next to its code header
    if code_text is not None or isinstance(parsed, dict) and "resTime" in parsed:
        ret, reply = None, None
        if parsed is None:
            notes.append("no JSON body next to the code header (the runtime always writes one)")
        else:
            ret = HttpResponseBody.from_json(parsed, "body", where(0))
            if ret.ret_code is not None and ret.ret_code not in RET_CODES:
                notes.append(f"retCode {ret.ret_code} is not in the runtime's table")
            reply = _sync_reply(code, ret, where(0), notes)
        return HttpResponse(offset, length, status, reason, version, headers, body, chunked, "runtime", code_text,
                            code, ret, reply, None, tuple(notes))
    if isinstance(parsed, dict) and "retCode" in parsed:
        ret = WebhookReply.from_json(parsed, "body", where(0))
        outcome = _push_outcome(status, ret, headers)
        return HttpResponse(offset, length, status, reason, version, headers, body, chunked, "webhook_reply",
                            code_text, code, ret, None, outcome, tuple(notes))
    statuses = PUSH["statuses"]
    outcome = None
    if status == statuses["retry-after"] or status in statuses["no-retry"]:
        outcome = _push_outcome(status, WebhookReply(), headers)  # statuses only a subscriber answers with
    elif status in statuses["read-body"]:
        outcome = _push_outcome(status, WebhookReply(), headers)  # no retCode: FAIL (the runtime never
        # answers 2xx without its code header)
    meaning = next((s["doc"] for s in RESPONSES["statuses"] if s["status"] == status), None)
    if meaning is not None and outcome is None:
        notes.append(f"HTTP {status} from the runtime: {meaning}")
    return HttpResponse(offset, length, status, reason, version, headers, body, chunked, "other", code_text, code,
                        None, None, outcome, tuple(notes))


def _sync_reply(code, ret: HttpResponseBody, offset: int, notes: list[str]) -> ReplyMessage | None:
    rule = RESPONSES["sync-reply"]
    if code is None or int(code) != rule["request-code"] or ret.ret_code != rule["ret-code"] or not ret.ret_msg:
        return None
    try:
        value = _parse_json(ret.ret_msg, lambda i: offset, "body.retMsg", notes)
        return _typed_json(rule["ret-msg"], value, "body.retMsg", offset)
    except ValidationError as exc:
        notes.append(f"retMsg of a successful MSG_SEND_SYNC is not a reply message: {exc.reason}")
        return None


def _push_outcome(status: int, ret: WebhookReply, headers) -> dict:
    """What the runtime does with a subscriber's answer (AsyncHTTPPushRequest)."""
    statuses = PUSH["statuses"]
    if status == statuses["retry-after"]:
        after = _any_case(headers, "retry-after")
        return {"outcome": "retry", "retry_after_ms": int(after) if after and after.isdecimal() else None}
    if status in statuses["no-retry"]:
        return {"outcome": "no_retry"}
    if status not in statuses["read-body"]:
        return {"outcome": "retry"}
    value = ret.ret_code
    if type(value) is int and -2**31 <= value < 2**31 and value in CLIENT_RET_CODES:
        entry = CLIENT_RET_CODES[value]
    else:
        entry = PUSH["otherwise"]
    return {"client_ret_code": entry["name"], "outcome": entry["outcome"]}


# ------------------------------------------------------------------------------------ stream decoding
def _chunked(head) -> bool:
    return any(name.lower() == b"transfer-encoding" and b"chunked" in value.lower()
               for name, value in head.headers.raw_items())


class HttpStreamDecoder(StreamDecoderBase):
    """Feed one direction of an HTTP/1.1 connection, split anywhere; get EventMesh messages back.

    direction "request" is the client's bytes, "response" the server's, None: told from the first bytes.
    Modes as in frames.StreamDecoder: FAILFAST raises the first DecodeError (messages decoded before it in
    the same call come first); PERMISSIVE yields an HttpError for a malformed span and resumes at the next
    plausible message start (the spec's resync patterns); DROPMALFORMED resumes silently. Blank lines
    between messages are skipped, as RFC 7230 3.5 allows. offset: the stream offset of the first byte
    fed, for a decoder restarted mid-stream (after a capture's gap). limits.max_body bounds a message's body
    (with what its chunks' bookkeeping costs): a longer one is never held. A Content-Length body is reported
    as error spans of at most that size as it goes and the next message is read as usual; a chunked one is
    a malformed span up to the next plausible message start (reading a flood of tiny chunks one by one would
    take h11 minutes).
    """

    def __init__(self, direction: str | None = None, *, mode: str = "FAILFAST", offset: int = 0,
                 limits: Limits | None = None, connection: uni.Exchanges | None = None):
        super().__init__(direction, mode, offset)
        self.limits = limits or DEFAULT_LIMITS
        self.exchanges = connection  # shared with the other direction's decoder: answers typed by their route
        self._start = 0  # buffer index where the current message starts
        self._conn: h11.Connection | None = None
        self._bad_start: int | None = None  # an open malformed span
        self._bad_error: DecodeError | None = None
        self._search_from = 0
        self._refused: DecodeError | None = None  # the message's body passed max_body: it is being skipped
        self._route: dict | None = None  # the uni route of the request the response being read answers

    def close(self, end_calls: bool = True) -> list:
        """The end of this direction's bytes; end_calls=False for a capture's gap, after which the connection's
        answers are no longer paired with their requests (Exchanges)."""
        if not end_calls and self.exchanges is not None:
            self.exchanges.lost()
        return super().close()

    @property
    def retained(self) -> int:
        if self._conn is None:
            return 0
        return len(self._body) + _SEGMENT_COST * len(self._segments) + (self._sse.pending if self._sse else 0)

    # ---- the loop
    def _loop(self, out: list, final: bool) -> None:
        buf = self._buf
        while True:
            if self._bad_start is not None:
                if not self._resync(out, final):
                    return
                continue
            if self._conn is None:
                while self._start < len(buf) and buf[self._start] in b"\r\n":
                    self._start += 1  # blank lines between messages
                if self._start >= len(buf):
                    return
                if self.direction is None:
                    head = bytes(buf[self._start:self._start + len(_PROBE)])
                    if len(head) < len(_PROBE) and _PROBE.startswith(head) and not final:
                        return
                    self.direction = "response" if head == _PROBE else "request"
                self._open()
            try:
                if not self._step(out, final):
                    return
            except DecodeError as exc:
                self._malformed(exc, self._start, out)

    def _open(self) -> None:
        """A fresh h11 connection for the message starting at self._start (keep-alive or not, pipelined or
        not, every message is read the same way)."""
        role = h11.SERVER if self.direction == "request" else h11.CLIENT
        conn = h11.Connection(role, max_incomplete_event_size=MAX_HEAD)
        if role is h11.CLIENT:  # h11 reads a response only after its request; say we sent a POST
            conn.send(h11.Request(method="POST", target="/", headers=[("Host", "-"), ("Content-Length", "0")]))
            conn.send(h11.EndOfMessage())
        self._conn, self._fed, self._eof = conn, self._start, False
        self._head, self._head_end, self._last = None, None, self._start
        self._body, self._segments = bytearray(), []
        self._refused = None
        self._sse: uni.SseReader | None = None  # a text/event-stream answer being read event by event

    def _next(self, final: bool):
        """The next h11 event, feeding it slices of the buffer; None when more bytes are needed."""
        conn, buf = self._conn, self._buf
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                if self._eof:  # h11 refusing the end of stream: the message was cut
                    raise self._truncated(str(exc)) from None
                if (str(exc) == "illegal request line" and self._head is None and not final
                        and len(buf) - self._start < MAX_HEAD):
                    # h11 judged a partial first line by its first byte: wait for the whole line, so that the
                    # error reads the same however the bytes arrive. A fresh connection at the same start, not
                    # none: that would skip blank lines again, which a response after a 100 Continue never
                    # gets when its bytes come in one piece (found by tools/fuzz.py).
                    self._open()
                    return None
                raise self._h11_error(exc) from None
            if event is not h11.NEED_DATA:
                return event
            if self._fed < len(buf):
                piece = bytes(buf[self._fed:self._fed + _SLICE])
                conn.receive_data(piece)
                self._fed += len(piece)
                continue
            if not final:
                return None
            if self._eof:
                raise self._truncated("")
            conn.receive_data(b"")  # end of stream: a body read until close ends here
            self._eof = True

    def _step(self, out: list, final: bool) -> bool:
        event = self._next(final)
        if event is None:
            return False
        conn = self._conn
        pos = self._fed - len(conn.trailing_data[0])
        if isinstance(event, h11.InformationalResponse):
            out.append(self._message(_read_response, event, b"", [], self._start, pos, pos, False))
            self._start = self._last = pos
        elif isinstance(event, (h11.Request, h11.Response)):
            self._head, self._head_end, self._last = event, pos, pos
            if self.exchanges is not None and isinstance(event, h11.Request):
                self.exchanges.asked(uni.route_of(event.target.decode("latin-1"), legacy_routes=False))
            elif self.exchanges is not None:
                self._route = self.exchanges.answered()
            if isinstance(event, h11.Response) and event.status_code == 200 \
                    and uni.is_event_stream(event.headers.raw_items()):
                self._sse_head(out, event, pos)
        elif isinstance(event, h11.Data) and self._sse is not None:
            self._last = pos
            self._sse_data(out, event.data, pos)
        elif isinstance(event, h11.EndOfMessage) and self._sse is not None:
            self._sse_end(out, pos)
        elif isinstance(event, h11.Data):
            self._last = pos
            if self._refused is None and self.retained + len(event.data) + _SEGMENT_COST > self.limits.max_body:
                self._refused = over_limit(self._base + self._start, "http.body", "max_body", self.limits.max_body,
                                           "a message body of more bytes (or chunks)")
                self._body, self._segments = bytearray(), []
                if _chunked(self._head):  # h11 would take every chunk in turn: skip to the next message start
                    raise self._refused
            if self._refused is not None:
                if pos - self._start >= self.limits.max_body:
                    self._refused_piece(out, pos)
                return True
            self._segments.append((len(self._body), self._base + pos - len(event.data), len(event.data)))
            self._body += event.data
        elif isinstance(event, h11.EndOfMessage) and self._refused is not None:
            self._refused_piece(out, pos)
            self._conn = None
        elif isinstance(event, h11.EndOfMessage):
            head = self._head
            chunked = _chunked(head)
            reader = _read_request if isinstance(head, h11.Request) else partial(_read_response, route=self._route)
            start, self._start, self._conn = self._start, pos, None
            try:
                out.append(self._message(reader, head, bytes(self._body), self._segments, start, pos,
                                         self._head_end, chunked))
            except DecodeError as exc:  # well framed, but not what the spec says: the message is the span
                self._malformed(exc, start, out, end=pos)
        else:  # ConnectionClosed or PAUSED: nothing more can come on this connection
            raise ValidationError(self._base + pos, "http", f"h11 stopped with {type(event).__name__}")
        return True

    # ---- SSE answers, event by event (eventmesh.uni)
    def _sse_head(self, out: list, head, pos: int) -> None:
        """The head of an event stream is an item of its own (kind sse); its events follow as they arrive."""
        headers = _header_pairs(head)
        code_text = _any_case(headers, "code")
        route, notes = self._route, []
        data_kind = uni.sse_data_kind(route)
        if route is not None and data_kind is None:
            notes.append(f"{route['name']} does not answer 200 with a text/event-stream (the route table)")
        out.append(HttpResponse(self._base + self._start, pos - self._start, head.status_code,
                                head.reason.decode("latin-1"), head.http_version.decode("ascii"), headers, b"",
                                _chunked(head), "sse", code_text, _code(code_text), None, warnings=tuple(notes),
                                route=route["name"] if route else None))
        self._sse, self._start = uni.SseReader(self.limits.max_body, data_kind), pos

    def _sse_data(self, out: list, data: bytes, pos: int) -> None:
        """Each event dispatched in data, spanning from the previous item's end to the end of its blank line.
        Only the unfinished event is held; one over max_body is refused (the rest of the stream is then an error
        span, as a refused chunked body is)."""
        at = pos - len(data)
        for end, event in self._sse.feed(data):
            stop = at + end
            out.append(dataclasses.replace(event, offset=self._base + self._start, length=stop - self._start))
            self._start = self._head_end = stop
        if self._sse.over:
            raise over_limit(self._base + self._start, "http.body", "max_body", self.limits.max_body,
                             "an SSE event of more bytes")

    def _sse_end(self, out: list, pos: int) -> None:
        notes = self._sse.close_notes()
        if pos > self._start or notes:
            out.append(uni.SseEvent(self._base + self._start, pos - self._start, None, None, None, None, None, None,
                                    end=True, warnings=tuple(notes)))
        self._start, self._conn, self._sse = pos, None, None

    def _refused_piece(self, out: list, pos: int) -> None:
        """The part of a refused message up to pos, as an error span; the message's start moves on to pos."""
        error = self._refused
        if pos > self._start:
            self._report(out, HttpError(self._base + self._start, pos - self._start, error,
                                        bytes(self._buf[self._start:pos]), self.direction), error)
        self._start = pos
        if self._head_end is not None and self._head_end < pos:
            self._head_end = pos

    def _message(self, reader, head, body, segments, start: int, end: int, head_end: int, chunked: bool):
        return reader(head, body, segments, self._base + start, end - start, self._base + head_end, chunked)

    # ---- errors and resynchronisation
    def _h11_error(self, exc: h11.RemoteProtocolError) -> DecodeError:
        reason, line = h11_reason(exc)
        reason = reason or type(exc).__name__
        if self._head is not None:
            if reason.startswith("malformed chunk footer"):  # h11 quotes however much had arrived
                reason = "malformed chunk footer: the chunk's data is not followed by CRLF"
            return ValidationError(self._base + self._last, "http.body", reason)
        at = self._start
        if line is not None:  # point at the offending line
            found = self._buf.find(line, self._start, self._start + MAX_HEAD + len(line))
            at = found if found >= 0 else at
        if "Receive buffer too long" in reason:
            reason = f"no end of the header block within {MAX_HEAD} bytes"
        return ValidationError(self._base + at, "http.head", reason)

    def _truncated(self, detail: str) -> TruncatedError:
        end = len(self._buf)
        part = "head" if self._head is None else "body"
        detail = f" ({detail})" if detail else ""
        return TruncatedError(self._base + end, f"http.{part}", f"input ends inside a message's {part}: "
                                                                f"{end - self._start} bytes from offset "
                                                                f"{self._base + self._start} present{detail}")

    def _malformed(self, error: DecodeError, start: int, out: list, end: int | None = None) -> None:
        """FAILFAST: raise. Otherwise a well-framed message the spec refuses (end given) is reported as
        exactly that span; anything else opens a span that _resync closes at the next plausible start
        (a cut stream: at its end)."""
        self._conn = None
        if self.mode == "FAILFAST":
            raise error
        if end is not None:
            if self.mode == "PERMISSIVE":
                out.append(HttpError(self._base + start, end - start, error, bytes(self._buf[start:end]),
                                     self.direction))
            return
        self._bad_start, self._bad_error = start, error
        self._search_from = len(self._buf) if isinstance(error, TruncatedError) else start + 1

    def _resync(self, out: list, final: bool) -> bool:
        """Close the malformed span at the next plausible message start; False when more bytes are needed."""
        buf = self._buf
        found = _RESYNC[self.direction or "request"].search(buf, self._search_from)
        if found is None and not final:  # a start still to come lies after the last line feed, and a
            # request line longer than a whole head would be refused anyway
            self._search_from = max(self._search_from, buf.rfind(b"\n") + 1, len(buf) - MAX_HEAD)
            if len(buf) - self._bad_start <= _RESYNC_WINDOW:
                return False
            stop = self._search_from  # a long garbage run: report what is certainly garbage so far
        else:
            stop = found.start() if found is not None else len(buf)
        if self.mode == "PERMISSIVE" and stop > self._bad_start:
            out.append(HttpError(self._base + self._bad_start, stop - self._bad_start, self._bad_error,
                                 bytes(buf[self._bad_start:stop]), self.direction))
        if found is None and not final:
            self._bad_start = stop
            return False
        self._bad_start, self._bad_error, self._start = None, None, stop
        return True

    def _keep(self) -> int:
        """Bytes before the current message (or malformed span) are forgotten, so memory stays bounded."""
        return self._start if self._bad_start is None else self._bad_start  # no message is open beside a span

    def _dropped(self, keep: int) -> None:
        self._start = max(0, self._start - keep)
        self._search_from = max(0, self._search_from - keep)
        if self._bad_start is not None:
            self._bad_start -= keep
        if self._conn is not None:
            self._fed -= keep
            self._last -= keep
            if self._head_end is not None:
                self._head_end -= keep


def iter_messages(data: bytes, direction: str | None = None, mode: str = "FAILFAST") -> Iterator:
    """Every message of a complete one-direction dump (HttpRequest / HttpResponse, and HttpError spans in
    PERMISSIVE mode), in stream order."""
    decoder = HttpStreamDecoder(direction, mode=mode)
    yield from decoder.feed(data)
    yield from decoder.close()


# ------------------------------------------------------------------------------------------- builders
def _java_hash(text: str) -> int:
    """java.lang.String.hashCode over UTF-16 code units, as an unsigned 32-bit value."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def java_hashmap_order(pairs) -> list[tuple[str, object]]:
    """(key, value) pairs in the order a java.util.HashMap filled with them iterates: by bucket
    (hash ^ hash >>> 16, masked by a table that doubles past 3/4 full), insertion order within a bucket;
    a repeated key keeps its first place and takes the last value."""
    values: dict[str, object] = {}
    for key, value in pairs:
        values[key] = value
    capacity = 16
    while len(values) > capacity * 3 // 4:
        capacity *= 2
    order = {key: i for i, key in enumerate(values)}

    def bucket(key: str) -> int:
        h = _java_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(values.items(), key=lambda kv: (bucket(kv[0]), order[kv[0]]))


def _encode_headers(headers) -> list[tuple[bytes, bytes]]:
    out = []
    for name, value in headers:
        try:
            out.append((name.encode("ascii"), str(value).encode("latin-1")))
        except UnicodeEncodeError as exc:
            raise EncodeError(f"headers.{name}", f"not writable in an HTTP header: {exc.reason}") from None
    return out


def _framed(headers, body: bytes, chunked: bool):
    """Headers with the body's framing: Content-Length, or Transfer-Encoding: chunked instead."""
    length = [(n, len(body) if v is None and n.lower() == "content-length" else v) for n, v in headers]
    if not chunked:
        if not any(n.lower() == "content-length" for n, _ in length):
            length.append(("Content-Length", len(body)))
        return length
    chunked_headers, placed = [], False
    for name, value in length:
        if name.lower() == "content-length":
            chunked_headers.append(("Transfer-Encoding", "chunked"))
            placed = True
        else:
            chunked_headers.append((name, value))
    return chunked_headers if placed else chunked_headers + [("Transfer-Encoding", "chunked")]


def _body_events(body: bytes, chunked: bool, chunk_size: int) -> list:
    if not body:
        return []
    if not chunked:
        return [h11.Data(data=body)]
    return [h11.Data(data=body[i:i + chunk_size]) for i in range(0, len(body), chunk_size)]


def build_request(method: str, target: str, headers, body: bytes = b"", *, chunked: bool = False,
                  chunk_size: int = 64) -> bytes:
    """One HTTP/1.1 request written by h11 (it puts Host first). A Content-Length header given with
    value None is filled in; chunked=True sends the body as chunks of chunk_size bytes instead."""
    conn = h11.Connection(h11.CLIENT)
    try:
        out = conn.send(h11.Request(method=method, target=target,
                                    headers=_encode_headers(_framed(headers, body, chunked))))
        for event in _body_events(body, chunked, chunk_size):
            out += conn.send(event)
        return out + conn.send(h11.EndOfMessage())
    except h11.LocalProtocolError as exc:
        raise EncodeError("http", str(exc)) from None


def build_response(status: int, headers, body: bytes = b"", *, reason: str | None = None, chunked: bool = False,
                   chunk_size: int = 64) -> bytes:
    """One HTTP/1.1 response written by h11 (reason: the standard phrase unless given)."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"POST / HTTP/1.1\r\nHost: -\r\nContent-Length: 0\r\n\r\n")  # h11 answers a request
    conn.next_event(), conn.next_event()
    phrase = reason if reason is not None else HTTPStatus(status).phrase
    try:
        out = conn.send(h11.Response(status_code=status, reason=phrase.encode("latin-1"),
                                     headers=_encode_headers(_framed(headers, body, chunked))))
        for event in _body_events(body, chunked, chunk_size):
            out += conn.send(event)
        return out + conn.send(h11.EndOfMessage())
    except (h11.LocalProtocolError, UnicodeEncodeError) as exc:
        raise EncodeError("http", str(exc)) from None


@dataclass(frozen=True)
class ClientConfig:
    """What EventMeshHttpClientConfig gives the SDK's requests (defaults: ProtocolKey's sample values)."""

    env: str = "env"
    idc: str = "idc"
    ip: str = "127.0.0.1"
    pid: str = "1234"
    sys: str = "1234"
    username: str = "eventmesh"
    passwd: str = "pass"
    consumer_group: str = "EventMeshTest-consumerGroup"
    producer_group: str = "EventMeshTest-producerGroup"
    host: str = SDK["host"]
    user_agent: str = next(h["value"] for h in SDK["client-headers"] if h["name"] == "User-Agent")

    def header(self, key: str, protocol: dict) -> str:
        if key in protocol:
            return protocol[key]
        if key in SDK["constants"]:
            return SDK["constants"][key]
        return getattr(self, key)


def _sdk_request(name: str, config: ClientConfig, fields: list, *, code: int | None = None,
                 protocol: dict | None = None, chunked: bool = False) -> bytes:
    """A request as RequestParam + HttpUtils.post send it: HashMap-ordered headers (the header set, then
    code) and form fields, then Apache HttpClient's own headers."""
    plan = SDK["requests"][name]
    code = plan["code"] if code is None else code
    protocol = protocol or {}
    keys = SDK["header-sets"][plan["headers"]]
    headers = java_hashmap_order([(k, config.header(k, protocol)) for k in keys] + [("code", str(code))])
    body = form_encode(java_hashmap_order(fields))
    client = [(h["name"], config.host if h["name"] == "Host" else
               config.user_agent if h["name"] == "User-Agent" else h["value"]) for h in SDK["client-headers"]]
    return build_request("POST", SDK["request-target"], headers + client, body, chunked=chunked)


def heartbeat(config: ClientConfig, topics: list[str], url: str, **kw) -> bytes:
    """EventMeshHttpConsumer.heartBeat: clientType SUB and one HeartbeatEntity (topic, url) per topic."""
    entities = [HeartbeatEntity(topic=topic, url=url).to_json() for topic in topics]
    fields = [("consumerGroup", config.consumer_group), ("clientType", SDK["constants"]["clientType"]),
              ("heartbeatEntities", dumps(entities))]
    return _sdk_request("heartbeat", config, fields, **kw)


def subscribe(config: ClientConfig, items: list[SubscriptionItem], url: str, **kw) -> bytes:
    """EventMeshHttpConsumer.subscribe: the items as a JSON array in `topic`."""
    fields = [("consumerGroup", config.consumer_group), ("topic", dumps([i.to_json() for i in items])),
              ("consumerGroup", config.consumer_group), ("url", url)]
    return _sdk_request("subscribe", config, fields, **kw)


def unsubscribe(config: ClientConfig, topics: list[str], url: str, **kw) -> bytes:
    """EventMeshHttpConsumer.unsubscribe: the topics as a JSON array of strings."""
    fields = [("consumerGroup", config.consumer_group), ("topic", dumps(list(topics))), ("url", url)]
    return _sdk_request("unsubscribe", config, fields, **kw)


def send_message(config: ClientConfig, topic: str, content: str, *, ttl: str | None = None,
                 bizseqno: str | None = None, uniqueid: str | None = None, sync: bool = False, **kw) -> bytes:
    """EventMeshMessageProducer: MSG_SEND_ASYNC (or MSG_SEND_SYNC) with protocoltype eventmeshmessage;
    a None ttl/bizseqno/uniqueid goes out as a bare key, as HttpClient writes a null value."""
    fields = [("producergroup", config.producer_group), ("topic", topic), ("content", content), ("ttl", ttl),
              ("bizseqno", bizseqno), ("uniqueid", uniqueid)]
    code = RequestCode.MSG_SEND_SYNC if sync else RequestCode.MSG_SEND_ASYNC
    protocol = {"protocoltype": "eventmeshmessage", "protocolversion": "1.0"}
    return _sdk_request("send_message", config, fields, code=int(code), protocol=protocol, **kw)


def send_cloudevent(config: ClientConfig, event: CloudEvent | str, *, sync: bool = False, **kw) -> bytes:
    """CloudEventProducer: the event's structured JSON in `content`, protocolversion = its specversion."""
    text = event if isinstance(event, str) else dumps(event.to_json())
    spec_version = json.loads(text).get("specversion", "1.0") if isinstance(event, str) else event.specversion
    code = RequestCode.MSG_SEND_SYNC if sync else RequestCode.MSG_SEND_ASYNC
    protocol = {"protocoltype": "cloudevents", "protocolversion": spec_version}
    return _sdk_request("send_cloudevent", config, [("producergroup", config.producer_group), ("content", text)],
                        code=int(code), protocol=protocol, **kw)


_MESSAGE_PROTOCOL = {"protocoltype": "eventmeshmessage", "protocolversion": "1.0"}


def batch_send(config: ClientConfig, batch_id: str, contents: list[BatchMessageEntity], *, size: str | None = None,
               **kw) -> bytes:
    """MSG_BATCH_SEND (not sent by the SDK; written with its conventions)."""
    fields = [("batchId", batch_id), ("size", str(len(contents)) if size is None else size),
              ("producerGroup", config.producer_group), ("contents", dumps([c.to_json() for c in contents]))]
    return _sdk_request("batch_send", config, fields, protocol=_MESSAGE_PROTOCOL, **kw)


def batch_send_v2(config: ClientConfig, topic: str, msg: str, *, bizseqno: str, tag: str = "", ttl: str = "4000",
                  **kw) -> bytes:
    """MSG_BATCH_SEND_V2 (not sent by the SDK; written with its conventions)."""
    fields = [("bizseqno", bizseqno), ("topic", topic), ("msg", msg), ("tag", tag), ("ttl", ttl),
              ("producergroup", config.producer_group)]
    return _sdk_request("batch_send_v2", config, fields, protocol=_MESSAGE_PROTOCOL, **kw)


def reply_message(config: ClientConfig, orig_topic: str, content: str, *, bizseqno: str, uniqueid: str,
                  ext_fields: dict[str, str] | None = None, **kw) -> bytes:
    """REPLY_MESSAGE (not sent by the SDK; written with its conventions)."""
    fields = [("origtopic", orig_topic), ("bizseqno", bizseqno), ("uniqueid", uniqueid), ("content", content),
              ("extFields", dumps(ext_fields or {})), ("producergroup", config.producer_group)]
    return _sdk_request("reply_message", config, fields, protocol=_MESSAGE_PROTOCOL, **kw)


def push(url: str, content: str, topic: str, *, bizseqno: str, unique_id: str, random_no: str,
         ext_fields: dict[str, str], sync: bool = False, cluster: str = "EventMeshCluster",
         eventmesh_ip: str = "127.0.0.1", env: str = "env", idc: str = "idc",
         user_agent: str = ClientConfig.user_agent, chunked: bool = False) -> bytes:
    """The runtime's webhook push (AsyncHTTPPushRequest): headers and fields in code order."""
    parts = urllib.parse.urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    code = RequestCode.HTTP_PUSH_CLIENT_SYNC if sync else RequestCode.HTTP_PUSH_CLIENT_ASYNC
    values = {"code": str(int(code)), "language": SDK["constants"]["language"], "version": SDK["constants"]["version"],
              "eventmeshcluster": cluster, "eventmeship": eventmesh_ip, "eventmeshenv": env, "eventmeshidc": idc}
    headers = [(k, values[k]) for k in PUSH["headers"]]
    fields = [("content", content), ("bizseqno", bizseqno), ("uniqueId", unique_id), ("randomNo", random_no),
              ("topic", topic), ("extFields", dumps(ext_fields))]
    client = [(h["name"], parts.netloc if h["name"] == "Host" else user_agent if h["name"] == "User-Agent"
               else h["value"]) for h in SDK["client-headers"]]
    return build_request("POST", target, headers + client, form_encode(fields), chunked=chunked)


def response(request_code, ret_code: int, ret_msg: str | None, res_time: int, *, status: int = 200,
             instance: dict | None = None, chunked: bool = False) -> bytes:
    """The runtime's answer (HttpCommand.httpResponse): Netty's three headers, then the response header's
    HashMap (code plus the eventmesh* keys given in instance; only code when instance is None)."""
    spec = SDK["runtime-response"]
    body = dumps(HttpResponseBody(ret_code=ret_code, ret_msg=ret_msg, res_time=res_time).to_json()).encode("utf-8")
    values = {"code": str(int(request_code)) if isinstance(request_code, int) else str(request_code),
              **(instance or {})}
    extra = java_hashmap_order([(k, values[k]) for k in spec["instance-headers"] if k in values])
    return build_response(status, [(h["name"], h["value"]) for h in spec["headers"]] + extra, body, chunked=chunked)


def error_status(status: int) -> bytes:
    """The runtime's sendError: an empty text/plain answer (400, 405, 500); the connection is then closed."""
    spec = SDK["runtime-response"]
    return build_response(status, [(h["name"], h["value"]) for h in spec["headers"]])


def webhook_reply(ret_code, *, status: int = 200, content_type: str = "application/json",
                  chunked: bool = False) -> bytes:
    """A subscriber's answer to a push, {"retCode": n} as the examples reply."""
    body = dumps(WebhookReply(ret_code=ret_code).to_json()).encode("utf-8")
    return build_response(status, [("Content-Type", content_type), ("Content-Length", None)], body, chunked=chunked)

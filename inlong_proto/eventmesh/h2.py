"""EventMesh gRPC on the wire: HTTP/2 read by a passive observer, then gRPC calls. Sans-IO.

    decoder = GrpcStreamDecoder("request", mode="PERMISSIVE")      # one per direction of a connection
    for item in decoder.feed(data) + decoder.close(): item.to_dict()

Layers:

* Framing: each direction's bytes (after the client's 24-byte connection preface) are cut into frames with
  the generated codec of specs/eventmesh/http2_frame.ksy (the 9-byte frame header); python-hyper's
  hyperframe reads each payload (padding, settings, error codes, ...). A HEADERS frame and its
  CONTINUATION frames are one item (they are contiguous on the wire); every other frame is one item.
* Header blocks: python-hyper's hpack, one decoder per direction as the peers keep them. A capture that
  starts mid-connection misses the dynamic-table entries sent before it: a reference to one is read as an
  unknown field (name and/or value None, noted in the item), never as another entry; entries
  the block adds still take their slots, so later blocks stay in step. A block that breaks hpack in any
  other way loses the table: every later block of that direction is an error span saying so.
* gRPC messages: each stream's DATA payloads are joined per direction and cut into length-prefixed
  messages (specs/eventmesh/grpc_message.ksy); the protobuf type comes from the stream's :path through
  the method table, built from the service descriptors of eventmesh-service.proto and (pre-1.9)
  eventmesh-client.proto. gzip / deflate per grpc-encoding. When the :path was not seen (mid-connection),
  the type is inferred only when exactly one candidate type of that direction reads the bytes with no
  unknown field (the item says `inferred` and names the candidates); otherwise the message is an error
  span with the reason. A stream whose first DATA was not seen from its start cannot be cut reliably: its
  first prefix is tried, and if the bytes do not read as a message the stream's data of that direction is
  marked undecodable.
* Calls: when a call ends (the server's END_STREAM, or RST_STREAM either way) a GrpcCall item carries its
  method, request and response messages, grpc-status / grpc-message and, with capture times, latency.
  Both directions of a connection share an H2Connection for this (the capture framer passes one);
  a single-direction dump gets calls with only that direction's messages.

Items and offsets: H2Frame items (and error spans) tile each direction's bytes in PERMISSIVE mode.
GrpcMessage and GrpcCall items are zero-length, placed at the end of the frame that completed them, so
the tiling holds; a GrpcMessage's first_frame_offset says where its prefix began. Error spans that are
about a message or a header block's meaning (not its framing) are zero-length too, and keep the bytes in
`raw`. Modes as everywhere: FAILFAST raises the first error, PERMISSIVE yields error spans,
DROPMALFORMED leaves them out.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from functools import cache
from typing import Iterator
from urllib.parse import unquote

from hpack import Decoder as _HpackDecoder
from hpack.exceptions import HPACKError, InvalidTableIndex
from hpack.table import HeaderTable
from hyperframe import frame as hf
from hyperframe.exceptions import HyperframeError

from inlong_proto.core.errors import DecodeError, TruncatedError, ValidationError
from inlong_proto.generated.codec.eventmesh.grpc_message import decode_message_prefix
from inlong_proto.generated.codec.eventmesh.http2_frame import FrameType, decode_frame_header
from inlong_proto.core.stream import CALL_COST, DEFAULT_LIMITS, Budget, Limits, StreamDecoderBase, over_limit
from inlong_proto.core.plain import protobuf_plain, render_bytes
from inlong_proto.core.protocols import DIRECTIONS

PROTOCOL = "eventmesh-grpc"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"  # RFC 9113 section 3.4
HEADER_SIZE = 9  # the generated frame header's size (FrameHeader), checked below
PREFIX_SIZE = 5  # the generated gRPC message prefix's size
DEFAULT_MAX_FRAME = 16384  # SETTINGS_MAX_FRAME_SIZE's initial value: the bound for resynchronising
HPACK_DECODE_BOUND = 1 << 20  # a block is decoded up to this many bytes to keep the table in step; beyond, it is lost
MAX_GARBAGE = 1 << 20  # bytes searched for a frame start before they are reported
CLOSED_KEPT = 1024  # ids of ended calls remembered, so that late frames of theirs start no new call

# canonical gRPC status codes (grpc/grpc doc/statuscodes.md)
GRPC_STATUS = ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
               "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
               "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")
# HTTP/2 error codes (RFC 9113 section 7)
H2_ERRORS = ("NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
             "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
             "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED")


def _error_name(code: int) -> str:
    return H2_ERRORS[code] if 0 <= code < len(H2_ERRORS) else f"0x{code:x}"


def _status_name(code: int | None) -> str | None:
    if code is None:
        return None
    return GRPC_STATUS[code] if 0 <= code < len(GRPC_STATUS) else "UNKNOWN_CODE"


# ------------------------------------------------------------------------------------------ methods
@dataclass(frozen=True)
class Method:
    """One gRPC method of the EventMesh services, from the proto descriptors."""

    path: str  # "/<package>.<Service>/<method>", as in :path
    service: str
    name: str
    input: type
    output: type
    client_streaming: bool
    server_streaming: bool

    def message_class(self, direction: str) -> type:
        return self.input if direction == "request" else self.output


@cache
def methods() -> dict[str, Method]:
    """:path -> Method for every service of eventmesh-service.proto and eventmesh-client.proto."""
    from google.protobuf.message_factory import GetMessageClass

    from inlong_proto.generated.protobuf.eventmesh import eventmesh_client_pb2, eventmesh_service_pb2

    table = {}
    for module in (eventmesh_service_pb2, eventmesh_client_pb2):
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                table[path] = Method(path, service.full_name, method.name, GetMessageClass(method.input_type),
                                     GetMessageClass(method.output_type), method.client_streaming,
                                     method.server_streaming)
    return table


@cache
def candidates(direction: str | None) -> tuple[type, ...]:
    """The message classes a direction's messages may be (every direction's when it is not known)."""
    seen: dict[str, type] = {}
    for method in methods().values():
        for d in DIRECTIONS:
            if direction in (None, d):
                cls = method.message_class(d)
                seen.setdefault(cls.DESCRIPTOR.full_name, cls)
    return tuple(seen.values())


def _no_unknown_fields(message) -> bool:
    from google.protobuf.unknown_fields import UnknownFieldSet

    if len(UnknownFieldSet(message)):
        return False
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.message_type.GetOptions().map_entry:
            values = value.values() if descriptor.message_type.fields_by_name["value"].message_type else ()
        else:
            values = value if descriptor.is_repeated else (value,)
        if not all(_no_unknown_fields(item) for item in values):
            return False
    return True


def _strict_parse(cls: type, data: bytes):
    """The message when data reads as cls with no unknown field anywhere, else None."""
    from google.protobuf.message import DecodeError as ProtoDecodeError

    try:
        message = cls.FromString(data)
    except ProtoDecodeError:
        return None
    return message if _no_unknown_fields(message) else None


# -------------------------------------------------------------------------------------------- items
def _headers_json(headers) -> list:
    return [[None if n is None else _text(n), None if v is None else _text(v)] for n, v in headers]


def _text(value: bytes):
    return render_bytes(bytes(value))


@dataclass(frozen=True)
class H2Frame:
    """One HTTP/2 frame of a direction (a HEADERS frame with its CONTINUATION frames is one item), or the
    client's connection preface. message_type: the frame type (SETTINGS, HEADERS, DATA, ..., PREFACE)."""

    offset: int
    length: int
    direction: str | None
    message_type: str
    stream_id: int = 0
    flags: tuple[str, ...] = ()
    info: dict = field(default_factory=dict)  # the type's payload fields as hyperframe reads them
    headers: tuple | None = None  # decoded header fields ((name, value), ...); None parts are unknown
    path: str | None = None
    notes: tuple[str, ...] = ()
    kind = "frame"
    error = None
    raw = None
    message = None  # no generated frame columns (Spark rows get the meta columns)
    protocol = PROTOCOL

    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "stream_id", "flags", "info",
                 "headers", "path", "notes")

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "stream_id": self.stream_id, "flags": list(self.flags)}
        if self.info:
            out["info"] = dict(self.info)
        if self.headers is not None:
            out["headers"] = _headers_json(self.headers)
        if self.path is not None:
            out["path"] = self.path
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class GrpcMessage:
    """One gRPC message of a call, at the end of the DATA frame that completed it (length 0).
    message_type: the method's name (publish, subscribeStream, ...), or the inferred type's when the
    method is not known."""

    offset: int
    direction: str | None
    stream_id: int
    index: int  # the message's number in its stream and direction, from 0 (when seen from the start)
    first_frame_offset: int  # where its prefix began
    size: int  # bytes as sent (after the prefix)
    compressed: bool
    type_name: str
    body: dict
    path: str | None = None
    inferred: tuple[str, ...] = ()  # the candidate types tried, when the type was inferred
    encoding: str | None = None
    length = 0
    kind = "message"
    error = None
    raw = None
    message = None
    protocol = PROTOCOL

    @property
    def message_type(self) -> str:
        return self.path.rsplit("/", 1)[-1] if self.path else self.type_name.rsplit(".", 1)[-1]

    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "stream_id", "index",
                 "first_frame_offset", "size", "compressed", "encoding", "path", "type", "inferred", "body")

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": 0, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "stream_id": self.stream_id, "index": self.index,
               "first_frame_offset": self.first_frame_offset, "size": self.size, "compressed": self.compressed}
        if self.encoding is not None:
            out["encoding"] = self.encoding
        if self.path is not None:
            out["path"] = self.path
        out["type"] = self.type_name
        if self.inferred:
            out["inferred"] = list(self.inferred)
        out["body"] = self.body
        return out


@dataclass(frozen=True)
class GrpcCall:
    """One call (stream) as a record, when it ends: at the end of the frame that ended it (length 0)."""

    offset: int
    direction: str | None
    stream_id: int
    path: str | None
    requests: tuple[dict, ...]
    responses: tuple[dict, ...]
    status: int | None
    status_message: str | None
    reset: str | None  # the RST_STREAM error code's name, when the call was reset
    complete: bool  # False: the capture ended (or the call began) outside what was seen
    latency_ms: float | None
    request_headers: tuple | None = None
    response_headers: tuple | None = None
    trailers: tuple | None = None
    undecoded: int = 0  # messages of the call that are error spans
    omitted: int = 0  # messages decoded (each an item of its own) but not held in the record: the limits
    notes: tuple[str, ...] = ()
    length = 0
    kind = "call"
    error = None
    raw = None
    message = None
    protocol = PROTOCOL

    @property
    def message_type(self) -> str:
        return self.path.rsplit("/", 1)[-1] if self.path else "unknown"

    JSON_KEYS = ("protocol", "offset", "length", "message_type", "direction", "kind", "stream_id", "path",
                 "service", "requests", "responses", "status", "status_name", "status_message", "reset",
                 "complete", "latency_ms", "request_headers", "response_headers", "trailers", "undecoded", "omitted",
                 "notes")

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": 0, "message_type": self.message_type,
               "direction": self.direction, "kind": self.kind, "stream_id": self.stream_id, "path": self.path}
        if self.path:
            out["service"] = self.path.strip("/").rsplit("/", 1)[0]
        out.update({"requests": list(self.requests), "responses": list(self.responses), "status": self.status,
                    "status_name": _status_name(self.status), "status_message": self.status_message,
                    "reset": self.reset, "complete": self.complete, "latency_ms": self.latency_ms})
        for key in ("request_headers", "response_headers", "trailers"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _headers_json(value)
        if self.undecoded:
            out["undecoded"] = self.undecoded
        if self.omitted:
            out["omitted"] = self.omitted
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class GrpcError:
    """A malformed or undecodable span (PERMISSIVE): where, how long, why, and its bytes."""

    offset: int
    length: int
    error: DecodeError
    raw: bytes
    direction: str | None
    stream_id: int | None = None
    kind = "error"
    message_type = None
    message = None
    protocol = PROTOCOL

    def to_dict(self) -> dict:
        out = {"protocol": PROTOCOL, "offset": self.offset, "length": self.length, "message_type": None,
               "direction": self.direction,
               "error": {"kind": self.error.kind, "offset": self.error.offset, "field": self.error.field,
                         "reason": self.error.reason},
               "raw": render_bytes(bytes(self.raw))}
        if self.stream_id is not None:
            out["stream_id"] = self.stream_id
        return out


# What a stream of this protocol yields, besides GrpcError spans (decode -e / -Y read their JSON_KEYS).
MESSAGE_TYPES = (H2Frame, GrpcMessage, GrpcCall)
# The protocol's own struct column in Spark and Arrow tables (inlong_proto.core.arrow): each to_dict key beyond the
# meta columns, with its column type; "json" keeps a nested value (a protobuf message as JSON) as its JSON
# text, "list<json>" a list of them, "headers" is ARRAY<STRUCT<name, value>> (null parts: not decodable). A
# (key, type) pair names a column after something other than its key: `path` is the file's column already.
COLUMNS = {"kind": "string", "stream_id": "int64", "grpc_path": ("path", "string"), "service": "string", "status": "int32",
           "status_name": "string", "status_message": "string", "reset": "string", "complete": "bool",
           "latency_ms": "double", "requests": "list<json>", "responses": "list<json>", "undecoded": "int32",
           "omitted": "int32",
           "index": "int64", "first_frame_offset": "int64", "size": "int64", "compressed": "bool",
           "encoding": "string", "type": "string", "inferred": "list<string>", "body": "json",
           "flags": "list<string>", "info": "json", "headers": "headers", "request_headers": "headers",
           "response_headers": "headers", "trailers": "headers", "notes": "list<string>"}


# --------------------------------------------------------------------------------- connection state
_UNKNOWN_NAME = bytes(bytearray(b"\x00unknown name: an HPACK entry sent before the capture began"))
_UNKNOWN_VALUE = bytes(bytearray(b"\x00unknown value: an HPACK entry sent before the capture began"))


class _ObserverTable(HeaderTable):
    """hpack's table, except that a dynamic index past what was seen reads as an unknown entry instead of
    failing: dynamic indices count from the newest entry, so those we hold are the peer's newest and
    answer exactly; only older ones are unknown. Entries a block adds (even with an unknown name) still
    take their slots, so later references stay in step."""

    def get_by_index(self, index: int):
        try:
            return super().get_by_index(index)
        except InvalidTableIndex:
            if index <= HeaderTable.STATIC_TABLE_LENGTH:
                raise
            return _UNKNOWN_NAME, _UNKNOWN_VALUE


def _hpack_decoder(mid_connection: bool, limits: Limits) -> _HpackDecoder:
    decoder = _HpackDecoder(max_header_list_size=HPACK_DECODE_BOUND)
    decoder.header_table = _ObserverTable()
    if mid_connection:  # the peer may have grown its table before we joined: keep more, never less
        decoder.header_table.maxsize = limits.max_hpack_table
    decoder.max_allowed_table_size = limits.max_hpack_table  # a size update over it is refused (an HPACKError)
    return decoder


class _Half:
    """One direction of a stream: its headers, message buffer and messages."""

    def __init__(self):
        self.headers: tuple | None = None
        self.trailers: tuple | None = None
        self.encoding: str | None = None
        self.buf = bytearray()
        self.buf_start = 0  # stream offset of the frame where buf's first byte arrived
        self.sync = "start"  # start: from the stream's first byte; probe: first prefix unverified; lost
        self.messages: list[dict] = []
        self.omitted = 0  # messages not kept in the call record (Limits.max_call_messages or max_retained)
        self.count = 0
        self.undecoded = 0
        self.ended = False
        self.headers_seen = False


class _Call:
    def __init__(self, stream_id: int, now_ns: int | None):
        self.stream_id = stream_id
        self.path: str | None = None
        self.halves = {d: _Half() for d in DIRECTIONS}
        self.start_ns = now_ns
        self.status: int | None = None
        self.status_message: str | None = None
        self.reset: str | None = None
        self.seen_from_start = False
        self.done = False
        self.cost = CALL_COST  # bytes charged to the connection's budget for this call
        self.notes: list[str] = []

    @property
    def method(self) -> Method | None:
        return methods().get(self.path) if self.path else None


class H2Connection:
    """What both directions of one connection share: the streams (calls) by id, and the capture clock
    (now_ns, set by whoever feeds the bytes; None in a raw dump)."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS):
        self.limits = limits
        self.budget = Budget(limits.max_retained)  # decoded state held for both directions
        self.calls: dict[int, _Call] = {}  # open calls, oldest first
        self.ended: dict[int, None] = {}  # ids of calls already recorded (the latest CLOSED_KEPT), in order
        self.evicted: list[_Call] = []  # open calls pushed out by max_open_calls, for a decoder to emit
        self.now_ns: int | None = None
        self.max_frame = DEFAULT_MAX_FRAME

    def call(self, stream_id: int, create: bool = True) -> _Call | None:
        """The call of a stream; None for one already recorded (frames still in flight after its end)."""
        call = self.calls.get(stream_id)
        if call is None and stream_id in self.ended:
            return None
        if call is None and create:
            if len(self.calls) >= self.limits.max_open_calls:  # the oldest open call leaves as incomplete
                oldest = self.calls.pop(next(iter(self.calls)))
                oldest.notes.append(f"emitted before its end: over max_open_calls ({self.limits.max_open_calls})")
                self.evicted.append(oldest)
            call = self.calls[stream_id] = _Call(stream_id, self.now_ns)
            self.budget.used += CALL_COST  # charged even over the budget: max_open_calls bounds these
        return call

    def grow(self, call: _Call, half: _Half, data: bytes) -> bool:
        """Add DATA bytes to a half's partial message, if the budget holds them."""
        if not self.budget.take(len(data)):
            return False
        call.cost += len(data)
        half.buf += data
        return True

    def shrink(self, call: _Call, half: _Half, size: int) -> None:
        """size bytes of a half's partial message were used up (or dropped)."""
        size = min(size, len(half.buf))
        del half.buf[:size]
        call.cost -= size
        self.budget.give(size)

    def lost(self, direction: str) -> None:
        """A gap in one direction: every open stream's message boundaries of it are unknown again."""
        for call in self.calls.values():
            half = call.halves[direction]
            self.shrink(call, half, len(half.buf))
            half.sync = "probe"


# ------------------------------------------------------------------------------------- the decoder
_CONNECTION_ONLY = {FrameType.settings, FrameType.ping, FrameType.goaway}
_STREAM_ONLY = {FrameType.data, FrameType.headers, FrameType.priority, FrameType.rst_stream,
                FrameType.continuation, FrameType.push_promise}
_FIXED_LENGTH = {FrameType.ping: 8, FrameType.window_update: 4, FrameType.rst_stream: 4, FrameType.priority: 5}


def _plausible(header, max_frame: int) -> bool:
    """Whether a frame header may really start a frame here (used only to find frames again after
    bytes that are not one: a capture that began mid-frame, or a gap)."""
    kind = header.type
    if not isinstance(kind, FrameType) or header.reserved or header.length > max_frame:
        return False
    if header.unused_0x80 or header.unused_0x40 or header.unused_0x10 or header.unused_0x02:
        return False
    if kind in _CONNECTION_ONLY and header.stream_id or kind in _STREAM_ONLY and not header.stream_id:
        return False
    if kind in _FIXED_LENGTH and header.length != _FIXED_LENGTH[kind]:
        return False
    if kind is FrameType.settings and (header.length % 6 or header.end_stream_or_ack and header.length):
        return False
    return True


@cache
def _candidate_starts(max_frame: int) -> re.Pattern:
    """Positions where _plausible may hold: the length's first byte at most max_frame's, a known frame type and
    the reserved bit clear. Resynchronising tests only these, so random bytes are skipped at the regex's speed."""
    types = b"".join(re.escape(bytes([t.value])) for t in FrameType)
    return re.compile(b"(?=[\\x00-%s][\\s\\S]{2}[%s][\\s\\S][\\x00-\\x7f])"
                      % (re.escape(bytes([min(max_frame >> 16, 255)])), types), re.DOTALL)


def looks_like_http2(head: bytes, frames: int = 3) -> bool:
    """Whether bytes (a flow's first, with no preface) are HTTP/2 frames from their first byte: `frames`
    plausible frame headers in a row (or every whole frame of a shorter head, at least two), each where
    the previous frame's length puts it. Content detection of a capture that began mid-connection."""
    pos = count = 0
    while pos + HEADER_SIZE <= len(head) and count < frames:
        header = decode_frame_header(head, pos)[0]
        if not _plausible(header, DEFAULT_MAX_FRAME):
            return False
        pos += HEADER_SIZE + header.length
        count += 1
    return count >= frames or count >= 2 and pos >= len(head)


def _flag_names(frame) -> tuple[str, ...]:
    return tuple(sorted(frame.flags))


class _Block:
    """A header block being read: its first frame, where it began, the bytes of its frames and its fragments.
    refused: over Limits.max_header_list, so never decoded; raw holds only the part not reported yet."""

    def __init__(self, header, frame, offset: int):
        self.header, self.frame, self.offset = header, frame, offset
        self.name = "PUSH_PROMISE" if header.type is FrameType.push_promise else "HEADERS"
        self.raw = bytearray()
        self.fragments: list[bytes] = []
        self.size = 0
        self.refused = False


class GrpcStreamDecoder(StreamDecoderBase):
    """Feed one direction of an HTTP/2 connection, split anywhere; get H2Frame / GrpcMessage / GrpcCall
    items (and GrpcError spans) back. direction: "request" (the client's bytes), "response", or None (the
    preface or the first header block tells). connection: the H2Connection both directions share (a
    fresh one when not given, with `limits`). offset: the stream offset of the first byte fed (a restart
    after a gap). What the decoder holds is bounded by the connection's Limits (inlong_proto.core.stream)."""

    def __init__(self, direction: str | None = None, *, mode: str = "FAILFAST", offset: int = 0,
                 connection: H2Connection | None = None, limits: Limits | None = None):
        super().__init__(direction, mode, offset)
        if connection is None:
            connection = H2Connection(limits or DEFAULT_LIMITS)
        self.conn, self.limits = connection, connection.limits
        self._pos = 0
        self._restarted = offset > 0
        if self._restarted and direction is not None:
            self.conn.lost(direction)
        self._preface = direction != "response" and not self._restarted  # the preface may still come
        self._synced = False  # whether _pos is known to be at a frame start
        self._hpack = None
        self._hpack_lost: str | None = None
        self._block: _Block | None = None  # the header block being read (HEADERS + CONTINUATION frames)
        self._scan = 0  # where the search for a frame start goes on
        self._end_calls = True

    @property
    def retained(self) -> int:
        return self.conn.budget.used

    def close(self, end_calls: bool = True) -> list:
        """The end of this direction's bytes; end_calls=False for a gap (the calls go on after it)."""
        self._end_calls = end_calls
        return super().close()

    # ---- the loop
    def _keep(self) -> int:
        return self._pos

    def _dropped(self, count: int) -> None:
        self._scan = max(0, self._scan - count)
        self._pos = 0

    def _loop(self, out: list, final: bool) -> None:
        buf = self._buf
        while True:
            if self._preface:
                have = bytes(buf[self._pos:self._pos + len(PREFACE)])
                if PREFACE.startswith(have) and len(have) < len(PREFACE) and not final:
                    break
                self._preface = False
                if have == PREFACE:
                    self.direction = self.direction or "request"
                    out.append(H2Frame(self._at(self._pos), len(PREFACE), self.direction, "PREFACE"))
                    self._pos += len(PREFACE)
                    self._synced = True
                    self._hpack = _hpack_decoder(False, self.limits)
                    continue
            if not self._synced:
                if not self._sync(out, final):
                    break
                continue
            if len(buf) - self._pos < HEADER_SIZE:
                break
            header, _ = decode_frame_header(buf, self._pos)
            end = self._pos + HEADER_SIZE + header.length
            if end > len(buf):
                break
            self._frame(header, end, out)
            self._pos = end
            if self.conn.evicted:
                self._emit_evicted(out, self._at(end))
        if final:
            self._finish(out)

    def _sync(self, out: list, final: bool) -> bool:
        """Not at a known frame start (no preface, or after a gap): take the first position whose header is
        plausible and is followed by another plausible one (or, at the end, by nothing). False: wait.
        Only the positions _candidate_starts finds are judged."""
        buf, limit = self._buf, self.conn.max_frame
        starts = _candidate_starts(limit)
        pos = max(self._pos, self._scan)
        while True:
            found = starts.search(buf, pos)
            pos = found.start() if found is not None else max(pos, len(buf) - HEADER_SIZE + 1)
            if pos + HEADER_SIZE > len(buf):
                if not final:
                    self._scan = pos
                    if pos - self._pos >= MAX_GARBAGE:
                        self._skip_to(pos, out)
                    return False
                self._skip_to(len(buf), out)
                return False
            head = decode_frame_header(buf, pos)[0]
            if _plausible(head, limit):
                after = pos + HEADER_SIZE + head.length
                if after + HEADER_SIZE <= len(buf):
                    if _plausible(decode_frame_header(buf, after)[0], limit):
                        break
                elif not final:
                    self._scan = pos
                    return False  # the next header decides
                else:
                    break
            pos += 1
        self._skip_to(pos, out)
        self._synced, self._scan = True, 0
        if self._hpack is None:
            self._hpack = _hpack_decoder(True, self.limits)
        return True

    def _skip_to(self, pos: int, out: list) -> None:
        """Bytes from self._pos to pos are no frame: one error span."""
        if pos == self._pos:
            return
        start = self._pos
        why = ("no HTTP/2 frame starts here (the capture began inside a frame, or these bytes are not HTTP/2); "
               f"{pos - start} bytes skipped to the next plausible frame header")
        self._pos = pos
        self._scan = 0
        self._error(out, start, pos - start, ValidationError(self._at(start), "frame", why), bytes(self._buf[start:pos]))

    # ---- errors
    def _error(self, out: list, index_or_offset: int, length: int, error: DecodeError, raw: bytes,
               stream_id: int | None = None, absolute: bool = False) -> None:
        offset = index_or_offset if absolute else self._at(index_or_offset)
        self._report(out, GrpcError(offset, length, error, raw, self.direction, stream_id), error)

    # ---- one frame
    def _frame(self, header, end: int, out: list) -> None:
        start = self._pos
        raw = bytes(self._buf[start:end])
        offset = self._at(start)
        block = self._block
        if block is not None and header.type is not FrameType.continuation:
            self._broken_block(out, "a header block was not ended by CONTINUATION frames before another frame")
        try:
            if isinstance(header.type, FrameType):
                frame, _ = hf.Frame.parse_frame_header(memoryview(raw[:HEADER_SIZE]))
            else:  # a type the spec does not define is an extension, ignored (RFC 9113 5.5), even one hyperframe
                frame = hf.ExtensionFrame(type=header.type, stream_id=header.stream_id)  # reads (ALTSVC)
            frame.parse_body(memoryview(raw[HEADER_SIZE:]))
        except (HyperframeError, ValueError) as exc:
            if self._block is not None:  # a malformed CONTINUATION: the block it was to continue ends before it
                self._broken_block(out, "a header block was cut by a malformed CONTINUATION frame")
            name = header.type.name.upper() if isinstance(header.type, FrameType) else f"type {header.type}"
            self._error(out, start, end - start, ValidationError(offset, "payload", f"malformed {name} frame: {exc}"),
                        raw, header.stream_id or None)
            return
        kind = header.type
        if kind is FrameType.data:
            self._data(frame, offset, end - start, out)
        elif kind is FrameType.headers or kind is FrameType.push_promise:
            self._block = _Block(header, frame, offset)
            self._add_fragment(frame, raw, out, end)
        elif kind is FrameType.continuation:
            if block is None or block.header.stream_id != header.stream_id:
                if block is not None:
                    self._broken_block(out, "CONTINUATION of another stream inside a header block")
                self._error(out, start, end - start, ValidationError(
                    offset, "frame", "CONTINUATION without a HEADERS frame before it (the capture began inside a "
                                     "header block, or the peer broke the protocol)"), raw, header.stream_id)
                return
            self._add_fragment(frame, raw, out, end)
        else:
            out.append(self._control(frame, offset, end - start))
            call = self.conn.call(header.stream_id) if kind is FrameType.rst_stream else None
            if call is not None:
                call.reset = _error_name(frame.error_code)
                self._end_call(call, out, self._at(end), complete=True)

    def _control(self, frame, offset: int, length: int) -> H2Frame:
        info: dict = {}
        if isinstance(frame, hf.SettingsFrame):
            info = {"settings": {_setting_name(k): v for k, v in frame.settings.items()}}
            size = frame.settings.get(hf.SettingsFrame.MAX_FRAME_SIZE)
            if size:
                self.conn.max_frame = max(self.conn.max_frame, size)
        elif isinstance(frame, hf.PingFrame):
            info = {"opaque_data": frame.opaque_data.hex()}
        elif isinstance(frame, hf.WindowUpdateFrame):
            info = {"window_increment": frame.window_increment}
        elif isinstance(frame, hf.GoAwayFrame):
            info = {"last_stream_id": frame.last_stream_id, "error_code": _error_name(frame.error_code),
                    "additional_data": render_bytes(frame.additional_data)}
        elif isinstance(frame, hf.RstStreamFrame):
            info = {"error_code": _error_name(frame.error_code)}
        elif isinstance(frame, hf.PriorityFrame):
            info = {"depends_on": frame.depends_on, "stream_weight": frame.stream_weight,
                    "exclusive": frame.exclusive}
        elif isinstance(frame, hf.ExtensionFrame):
            info = {"type": frame.type, "body": frame.body.hex()}
        name = "EXTENSION" if isinstance(frame, hf.ExtensionFrame) else FrameType(frame.type).name.upper()
        return H2Frame(offset, length, self.direction, name, frame.stream_id, _flag_names(frame), info)

    # ---- header blocks
    def _add_fragment(self, frame, raw: bytes, out: list, end: int) -> None:
        """One frame of the header block being read. A block whose encoded bytes pass max_header_list is
        refused: never decoded (the direction's HPACK table is lost with it) and reported in pieces of at most
        that size, so that a HEADERS + CONTINUATION run that never ends is never held."""
        block, limit = self._block, self.limits.max_header_list
        block.raw += raw
        if not block.refused:
            block.fragments.append(frame.data)
            block.size += len(frame.data)
            if block.size > limit:
                block.refused, block.fragments = True, []
                self._hpack_lost = self._hpack_lost or f"a header block over max_header_list at offset {block.offset}"
                self._refused_piece(out, block, f"a header block of more than {block.size} bytes")
        elif len(block.raw) >= limit:
            self._refused_piece(out, block, "a further part of a refused header block")
        if "END_HEADERS" in frame.flags:
            if block.refused:
                self._block = None
                self._refused_piece(out, block, "the end of a refused header block")
                self._headers_seen(block.header.stream_id, block.frame, out, end, block.name)
            else:
                self._end_block(out, end)

    def _refused_piece(self, out: list, block: "_Block", what: str) -> None:
        if block.raw:
            limit = self.limits.max_header_list
            error = over_limit(block.offset, "header_block", "max_header_list", limit, what)
            self._error(out, block.offset, len(block.raw), error, bytes(block.raw), block.header.stream_id,
                        absolute=True)
        block.offset += len(block.raw)
        block.raw = bytearray()

    def _broken_block(self, out: list, why: str) -> None:
        block, self._block = self._block, None
        if block.refused:
            self._refused_piece(out, block, "the rest of a refused header block, cut by another frame")
        else:
            self._error(out, block.offset, len(block.raw), ValidationError(block.offset, "header_block", why),
                        bytes(block.raw), block.header.stream_id, absolute=True)
            self._hpack_lost = self._hpack_lost or f"a header block was cut at offset {block.offset}"

    def _end_block(self, out: list, end: int) -> None:
        block, self._block = self._block, None
        header, frame, offset = block.header, block.frame, block.offset
        raw = bytes(block.raw)
        length = len(raw)
        stream_id, name = header.stream_id, block.name
        flags = _flag_names(frame)
        if self._hpack is None:
            self._hpack = _hpack_decoder(True, self.limits)
        if self._hpack_lost:
            self._error(out, offset, length, ValidationError(
                offset, "header_block", f"header block not decoded: the HPACK table of this direction was lost "
                                        f"({self._hpack_lost})"), raw, stream_id, absolute=True)
            self._headers_seen(stream_id, frame, out, end, name)
            return
        try:
            pairs = self._hpack.decode(b"".join(block.fragments), raw=True)
        except (HPACKError, ValueError, IndexError) as exc:
            self._hpack_lost = f"hpack failed at offset {offset}: {exc}"
            self._error(out, offset, length, ValidationError(offset, "header_block", f"header block not decoded: "
                                                                                     f"{exc}"), raw, stream_id,
                        absolute=True)
            self._headers_seen(stream_id, frame, out, end, name)
            return
        size = sum(len(n) + len(v) + 32 for n, v in pairs)
        if size > self.limits.max_header_list:  # decoded (the table stays in step), but not kept
            self._error(out, offset, length, over_limit(offset, "header_block", "max_header_list",
                                                        self.limits.max_header_list,
                                                        f"a header list of {size} bytes"), raw, stream_id,
                        absolute=True)
            self._headers_seen(stream_id, frame, out, end, name)
            return
        headers = tuple((None if n is _UNKNOWN_NAME else bytes(n), None if v is _UNKNOWN_VALUE else bytes(v))
                        for n, v in pairs)
        unknown = sum((n is None) + (v is None) for n, v in headers)
        notes = []
        if unknown:
            notes.append(f"{unknown} header names or values refer to HPACK table entries sent before the capture "
                         "began (shown as null)")
        fields = {n: v for n, v in headers if n is not None and v is not None}
        if self.direction is None:
            self.direction = "request" if b":path" in fields or b":method" in fields else (
                "response" if b":status" in fields or b"grpc-status" in fields else None)
        path = fields.get(b":path")
        info = {}
        if isinstance(frame, hf.PushPromiseFrame):
            info["promised_stream_id"] = frame.promised_stream_id
        if getattr(frame, "depends_on", None) and "PRIORITY" in frame.flags:
            info.update(depends_on=frame.depends_on, stream_weight=frame.stream_weight, exclusive=frame.exclusive)
        call = self.conn.call(stream_id) if header.type is FrameType.headers else None
        if header.type is FrameType.headers and call is None:
            notes.append("the stream's call has already ended")
        elif call is not None:
            direction = self.direction or "request"
            half = call.halves[direction]
            end_stream = "END_STREAM" in frame.flags
            kept = headers if self._retain(call, size) else None
            if half.headers is not None or end_stream and direction == "response" and b":status" not in fields:
                half.trailers, name = kept, "TRAILERS"
            else:
                half.headers = kept
                if end_stream and direction == "response":
                    half.trailers = kept  # a Trailers-Only response
                if b"grpc-encoding" in fields:
                    half.encoding = fields[b"grpc-encoding"].decode("latin-1")
            self._opened(call, direction)
            if path is not None and direction == "request":
                call.path = path.decode("utf-8", "replace")
                if call.method is None:
                    notes.append("no EventMesh method has this path: its messages are typed by inference")
            if b"grpc-status" in fields and direction == "response":
                call.status = _int(fields[b"grpc-status"])
                if b"grpc-message" in fields:
                    call.status_message = unquote(fields[b"grpc-message"].decode("latin-1"))
        out.append(H2Frame(offset, length, self.direction, name, stream_id, flags, info, headers,
                           path.decode("utf-8", "replace") if path is not None else None, tuple(notes)))
        if call is not None and "END_STREAM" in frame.flags:
            self._end_stream(stream_id, out, self._at(end))

    def _retain(self, call: _Call, size: int) -> bool:
        """Whether the budget keeps size more bytes for this call's record (a note on it says when not)."""
        if self.conn.budget.take(size):
            call.cost += size
            return True
        note = f"not all of the call is kept: over max_retained ({self.limits.max_retained})"
        if note not in call.notes:
            call.notes.append(note)
        return False

    def _headers_seen(self, stream_id: int, frame, out: list, end: int, name: str) -> None:
        """A header block that could not be read still opens (or ends) its stream."""
        call = self.conn.call(stream_id) if name == "HEADERS" else None
        if call is not None:
            self._opened(call, self.direction or "request")
            if "END_STREAM" in frame.flags:
                self._end_stream(stream_id, out, self._at(end))

    def _opened(self, call: _Call, direction: str) -> None:
        """A header block of this half was seen: its DATA is read from a message start."""
        half = call.halves[direction]
        if not half.headers_seen:
            half.headers_seen = True
            if direction == "request":
                call.seen_from_start = True
                if self.conn.now_ns is not None:
                    call.start_ns = self.conn.now_ns

    # ---- data and messages
    def _data(self, frame, offset: int, length: int, out: list) -> None:
        stream_id = frame.stream_id
        direction = self.direction
        call = self.conn.call(stream_id)
        info = {"data_length": len(frame.data), "pad_length": frame.pad_length if "PADDED" in frame.flags else 0}
        notes = () if call is not None else ("the stream's call has already ended: not read",)
        out.append(H2Frame(offset, length, direction, "DATA", stream_id, _flag_names(frame), info, notes=notes))
        if call is None:
            return
        end = offset + length
        half = call.halves[direction or "request"]
        if half.sync == "start" and not half.headers_seen and half.count == 0 and not half.buf:
            half.sync = "probe"  # the stream began before the capture: its first byte may be mid-message
        if half.sync == "lost":
            half.undecoded += 1
            self._error(out, end, 0, ValidationError(offset, "data", f"stream {stream_id}: message boundaries "
                                                                     "unknown, DATA not decoded"),
                        bytes(frame.data), stream_id, absolute=True)
        else:
            if not half.buf:
                half.buf_start = offset
            if self.conn.grow(call, half, frame.data):
                self._messages(call, half, direction, out, offset, end)
            else:
                self._lose(half, call, over_limit(offset, "data", "max_retained", self.limits.max_retained,
                                                  f"stream {stream_id}: partial messages of open calls"),
                           out, end, bytes(frame.data))
        if "END_STREAM" in frame.flags:
            if half.buf and half.sync != "lost":
                half.undecoded += 1
                self._error(out, end, 0, TruncatedError(half.buf_start, "message", f"stream {stream_id} ended "
                                                        f"inside a gRPC message ({len(half.buf)} bytes)"),
                            bytes(half.buf), stream_id, absolute=True)
                self.conn.shrink(call, half, len(half.buf))
            self._end_stream(stream_id, out, end)

    def _messages(self, call: _Call, half: _Half, direction: str | None, out: list, frame_offset: int,
                  end: int) -> None:
        buf = half.buf
        while len(buf) >= PREFIX_SIZE:
            try:
                prefix, _ = decode_message_prefix(buf, 0)
                if prefix.length > self.limits.max_message:
                    raise over_limit(half.buf_start, "length", "max_message", self.limits.max_message,
                                     f"a gRPC message of {prefix.length} bytes")
            except DecodeError as exc:
                self._lose(half, call, exc, out, end)
                return
            size = PREFIX_SIZE + prefix.length
            if len(buf) < size:
                return
            data = bytes(buf[PREFIX_SIZE:size])
            first = half.buf_start
            self.conn.shrink(call, half, size)
            half.buf_start = frame_offset  # what is left began in this frame
            item = self._message(call, half, direction, data, bool(prefix.compressed), first, end)
            if isinstance(item, DecodeError):
                if half.sync == "probe":
                    self._lose(half, call, ValidationError(first, "message", f"stream {call.stream_id} began "
                                                           f"before the capture and its bytes do not read as a gRPC "
                                                           f"message ({item.reason}): DATA of this stream not decoded"),
                               out, end, data)
                    return
                half.undecoded += 1
                self._error(out, end, 0, item, data, call.stream_id, absolute=True)
            else:
                half.sync = "start" if half.sync == "start" else "verified"
                out.append(item)
            half.count += 1

    def _lose(self, half: _Half, call: _Call, error: DecodeError, out: list, end: int, data: bytes = b"") -> None:
        half.undecoded += 1
        self._error(out, end, 0, error, data + bytes(half.buf), call.stream_id, absolute=True)
        self.conn.shrink(call, half, len(half.buf))
        half.sync = "lost"

    def _message(self, call: _Call, half: _Half, direction: str | None, data: bytes, compressed: bool, first: int,
                 end: int):
        """A GrpcMessage, or the DecodeError saying why these bytes are not one."""
        encoding = half.encoding
        if compressed:
            if encoding in (None, "identity") and data[:2] == b"\x1f\x8b" and not call.seen_from_start:
                encoding = "gzip"  # the headers were not seen: the gzip magic says it
            try:
                data = _inflate(data, encoding, self.limits.max_message)
            except _InflatedTooLarge:
                return over_limit(first, "message", "max_message", self.limits.max_message,
                                  f"a {encoding} message that inflates to more")
            except ValueError as exc:
                return ValidationError(first, "message", f"compressed message not inflated: {exc}")
        method = call.method
        inferred: tuple[str, ...] = ()
        if method is not None and direction is not None:
            cls = method.message_class(direction)
            try:
                message = cls.FromString(data)
            except Exception as exc:  # protobuf's DecodeError, or upb's own
                return ValidationError(first, "message", f"not a {cls.DESCRIPTOR.full_name} ({method.path}): {exc}")
        else:
            options = candidates(direction)
            fits = [(cls, m) for cls in options if (m := _strict_parse(cls, data)) is not None]
            inferred = tuple(cls.DESCRIPTOR.full_name for cls in options)
            why = ("its call's :path was not seen" if call.path is None else f"{call.path} is no EventMesh method")
            if len(fits) != 1:
                named = ", ".join(cls.DESCRIPTOR.full_name for cls, _ in fits) or "none"
                return ValidationError(first, "message", f"message type unknown ({why}); candidate types that read "
                                                         f"it with no unknown field: {named}")
            cls, message = fits[0]
        body = protobuf_plain(message)
        record = {"type": cls.DESCRIPTOR.full_name, "body": body}
        if inferred:
            record["inferred"] = True
        if len(half.messages) < self.limits.max_call_messages and self._retain(call, len(data) + 64):
            half.messages.append(record)
        else:
            half.omitted += 1
        return GrpcMessage(end, direction, call.stream_id, half.count, first, len(data), compressed,
                           cls.DESCRIPTOR.full_name, body, call.path if method is not None else None, inferred,
                           encoding if compressed else None)

    # ---- calls
    def _end_stream(self, stream_id: int, out: list, end: int) -> None:
        call = self.conn.call(stream_id)
        if call is None:
            return
        direction = self.direction or "request"
        call.halves[direction].ended = True
        if direction == "response":
            self._end_call(call, out, end, complete=True)

    def _end_call(self, call: _Call, out: list, offset: int, complete: bool) -> None:
        if call.done:
            return
        call.done = True
        now = self.conn.now_ns
        latency = None
        if complete and call.seen_from_start and now is not None and call.start_ns is not None:
            latency = (now - call.start_ns) / 1e6
        request, response = call.halves["request"], call.halves["response"]
        out.append(GrpcCall(offset, self.direction, call.stream_id, call.path, tuple(request.messages),
                            tuple(response.messages), call.status, call.status_message, call.reset,
                            complete and call.seen_from_start, latency, request.headers, response.headers,
                            response.trailers, request.undecoded + response.undecoded,
                            request.omitted + response.omitted, tuple(call.notes)))
        self.conn.calls.pop(call.stream_id, None)  # an evicted call has left the table already
        self.conn.budget.give(call.cost)
        ended = self.conn.ended
        ended[call.stream_id] = None
        if len(ended) > CLOSED_KEPT:
            del ended[next(iter(ended))]

    def _emit_evicted(self, out: list, offset: int) -> None:
        evicted, self.conn.evicted = self.conn.evicted, []
        for call in evicted:
            self._end_call(call, out, offset, complete=False)

    def _finish(self, out: list) -> None:
        end = len(self._buf)
        block, self._block = self._block, None
        if block is not None and block.refused:
            self._refused_piece(out, block, "the rest of a refused header block, cut by the stream's end")
        elif block is not None:
            self._error(out, block.offset, len(block.raw), TruncatedError(
                block.offset, "header_block", "the stream ended inside a header block"), bytes(block.raw),
                block.header.stream_id, absolute=True)
        if self._pos < end:
            self._error(out, self._pos, end - self._pos, TruncatedError(
                self._at(self._pos), "frame", f"the stream ended inside a frame ({end - self._pos} bytes)"),
                bytes(self._buf[self._pos:end]))
            self._pos = end
        for call in list(self.conn.calls.values()) if self._end_calls else ():  # still open at the end
            self._end_call(call, out, self._at(end), complete=False)


def _setting_name(key: int) -> str:
    names = {hf.SettingsFrame.HEADER_TABLE_SIZE: "HEADER_TABLE_SIZE", hf.SettingsFrame.ENABLE_PUSH: "ENABLE_PUSH",
             hf.SettingsFrame.MAX_CONCURRENT_STREAMS: "MAX_CONCURRENT_STREAMS",
             hf.SettingsFrame.INITIAL_WINDOW_SIZE: "INITIAL_WINDOW_SIZE",
             hf.SettingsFrame.MAX_FRAME_SIZE: "MAX_FRAME_SIZE",
             hf.SettingsFrame.MAX_HEADER_LIST_SIZE: "MAX_HEADER_LIST_SIZE",
             hf.SettingsFrame.ENABLE_CONNECT_PROTOCOL: "ENABLE_CONNECT_PROTOCOL"}
    return names.get(key, f"0x{key:x}")


def _int(value: bytes) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


class _InflatedTooLarge(ValueError):
    pass


def _inflate(data: bytes, encoding: str | None, limit: int) -> bytes:
    if encoding == "gzip":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        inflater = zlib.decompressobj()
    else:
        raise ValueError(f"the compressed flag is set but grpc-encoding is {encoding!r}")
    try:
        out = inflater.decompress(data, limit)
    except zlib.error as exc:
        raise ValueError(f"{encoding}: {exc}") from None
    if inflater.unconsumed_tail:
        raise _InflatedTooLarge()
    if not inflater.eof:
        raise ValueError(f"{encoding} stream cut short")
    return out


# the names frames.stream_decoder and the capture framer use for a stream protocol's decoder
HttpStreamDecoder = GrpcStreamDecoder


def iter_messages(data: bytes, direction: str | None = None, mode: str = "FAILFAST") -> Iterator:
    """Every item of a complete one-direction dump, in stream order."""
    decoder = GrpcStreamDecoder(direction, mode=mode)
    yield from decoder.feed(data)
    yield from decoder.close()

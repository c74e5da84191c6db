"""The TubeMQ RPC layer: the protobuf message stream carried by a frame's blocks.

A frame (specs/tubemq/tubemq_frame.ksy) is a counted list of blocks; their data joined is a stream of
varint-length-delimited protobuf messages: RpcConnHeader, then RequestHeader + RequestBody, or
ResponseHeader + RspResponseBody (SUCCESS) / RspExceptionBody (ERROR, FATAL). The business message
inside the body is chosen by method id from the declarative method table (specs/tubemq/methods.yaml,
generated into inlong_proto.generated.tables). The protobuf classes are grpcio-tools output run on
the upb backend; the varint framing is protobuf's own (writeDelimitedTo).
"""
from __future__ import annotations

import dataclasses
import sys
import zlib
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from datetime import timezone
from functools import cache

from google.protobuf import message as protobuf_message
from google.protobuf.internal.decoder import _DecodeVarint32
from google.protobuf.internal.encoder import _VarintBytes

from inlong_proto.core.block_walks import joined
from inlong_proto.core.errors import DecodeError, EncodeError, TruncatedError, ValidationError
from inlong_proto.generated.codec.tubemq import tubemq_message
from inlong_proto.generated.codec.tubemq.tubemq_frame import Block, TubemqFrame, decode_tubemq_frame
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2, MasterService_pb2, RPC_pb2
from inlong_proto.generated.tables.tubemq.methods import DATA as TABLE
from inlong_proto.core.plain import lenient_text, protobuf_plain as plain, render_text  # noqa: F401  (rpc.plain)

BLOCK_SIZE = TABLE["frame"]["RPC_MAX_BUFFER_SIZE"]["value"]
STANDBY = "StandbyException"
#: Where TubeMQ's exception classes live, as the server names them to a protocol-version-3 client.
EXCEPTION_PACKAGE = "org.apache.inlong.tubemq."
# The package an older client is told instead (methods.yaml enums.protocol_version, MixUtils).
_EXCEPTION_PACKAGES = {1: "com.tencent.tubemq.", 2: "com.apache.tubemq."}
STANDBY_CLASS = EXCEPTION_PACKAGE + "corerpc.exception." + STANDBY
#: Message flag bit 0: the data starts with the attribute header (MessageFlagUtils).
FLAG_HAS_ATTRIBUTE = 1
FLAG_RESPONSE = TABLE["enums"]["rpc_flag"]["values"]["MSG_TYPE_RESPONSE"]
SERVICE_TYPES = TABLE["enums"]["service_type"]["values"]
METHODS = {entry["id"]: entry for entry in TABLE["methods"]}
UNSUPPORTED_METHODS = {entry["id"]: entry for entry in TABLE["unsupported_methods"]["entries"]}
STATUS = TABLE["enums"]["response_status"]["values"]
ANSWERS = TABLE["answers"]
# The bytes fields of the envelope that carry the business message (shown decoded, as "message").
PAYLOAD_FIELDS = {message: field for message, field in (
    TABLE["envelope"][key].split(".") for key in ("request_payload_field", "response_payload_field"))}


@cache
def message_class(name: str) -> type:
    """The generated protobuf class of a message named in the method table."""
    for module in (RPC_pb2, MasterService_pb2, BrokerService_pb2):
        if name in module.DESCRIPTOR.message_types_by_name:
            return getattr(module, name)
    raise KeyError(name)


@dataclass(frozen=True)
class RpcException:
    """An RspExceptionBody: the Java exception class name and its message (not a stack trace).

    Both are proto2 strings, which nobody checks for UTF-8: when they are not, they hold the bytes as sent
    (to_dict shows them as {"hex": ...}) and is_standby reads them as Java does, with U+FFFD in place."""

    class_name: str | bytes
    message: str | bytes

    @property
    def is_standby(self) -> bool:
        """The master is not the active one; true whatever package prefix the protocol version gave it."""
        return lenient_text(self.class_name).rsplit(".", 1)[-1] == STANDBY

    def to_dict(self) -> dict:
        return {"class_name": render_text(self.class_name), "message": render_text(self.message),
                "is_standby": self.is_standby}


@dataclass(frozen=True)
class RpcMessage:
    """One decoded RPC: the envelope messages, the method, and the business message (or its raw bytes)."""

    serial_no: int
    direction: str
    conn_header: object
    header: object
    body: object
    method_id: int | None
    method: str | None
    business: object | None  # the decoded request/response message, when the method is known
    raw_business: bytes | None  # the undecoded bytes when it is not
    exception: RpcException | None
    trailing: bytes  # bytes after the last message (C++ clients pad requests with zeros)
    messages: tuple = ()  # MessageData of a SendMessageRequestP2B / GetMessageResponseB2C

    @property
    def message_type(self) -> str:
        if self.exception is not None:
            return "exception"
        return self.method or f"method_{self.method_id}"

    # every key to_dict can give (decode -e / -Y check paths against it)
    JSON_KEYS = ("serial_no", "direction", "method_id", "method", "conn_header", "header", "body", "exception",
                 "message", "raw_message", "messages", "parsed", "trailing")

    def to_dict(self) -> dict:
        """Every field of the three envelope messages under its protobuf name (conn_header, header, body),
        except the bytes field that carries the business message, which is shown decoded ("message") or
        as hex ("raw_message"); then what they mean (method, exception, parsed strings, carried messages)."""
        out = {"serial_no": self.serial_no, "direction": self.direction, "method_id": self.method_id,
               "method": self.method, "conn_header": plain(self.conn_header), "header": plain(self.header),
               "body": plain(self.body, PAYLOAD_FIELDS.get(type(self.body).__name__))}
        if self.exception is not None:
            out["exception"] = self.exception.to_dict()
        elif self.business is not None:
            out["message"] = {type(self.business).__name__: plain(self.business)}
        if self.raw_business is not None:
            out["raw_message"] = {"hex": self.raw_business.hex(),
                                  "reason": f"no message is known for method {self.method_id}"}
        if self.messages:
            out["messages"] = [message.to_dict() for message in self.messages]
        parsed = structured(self.business) if self.business is not None else {}
        if parsed:
            out["parsed"] = parsed
        if self.trailing:
            out["trailing"] = {"hex": self.trailing.hex()}
        return out


class _Stream:
    """Reads delimited messages from the joined block data, reporting offsets in the frame.

    Blocks are joined only as far as a message reaches (block_walks.Joined: in runs that double, in C), and
    nothing is measured over all the blocks unless the stream ends short. A resynchronising scan builds
    this for every candidate frame, and a crafted frame claims thousands of tiny blocks (issue 11: 3,584
    blocks of 12 bytes at every 16th offset), so its cost must follow what is read, not what is claimed;
    a frame a scan took from a run of blocks (block_walks) reads the run's data, joined once for all its
    frames (issue 24, item 20: every offset re-joined the same 16 KB of blocks)."""

    def __init__(self, frame: TubemqFrame):
        self.joined, first = joined(frame.blocks)  # the frame's blocks are items [first, last) of it
        self.last = first + len(frame.blocks)
        starts = self.joined.starts
        self.first, self.base = first, starts[first] if first < len(starts) else self.joined.start(first)
        self.pos = 0

    def _reach(self, stop: int) -> int:
        """How many bytes of the frame's data are joined: at least stop, or all there are."""
        return self.joined.reach(self.base + stop, self.last) - self.base

    def _bytes(self, start: int, stop: int) -> bytes:
        return bytes(memoryview(self.joined.data)[self.base + start:self.base + stop])  # one copy, not two

    def rest(self) -> bytes:
        """What follows the messages read."""
        return self._bytes(self.pos, self._reach(sys.maxsize))

    def frame_offset(self, stream_offset: int) -> int:
        """Where a byte of the joined data is in the frame: after the 12-byte header and, per block up to
        the last one starting at or before it, a 4-byte length (and the data before it)."""
        self._reach(stream_offset + 1)  # every block starting at or before it is joined
        starts = self.joined.starts
        index = bisect_right(starts, self.base + stream_offset, self.first, min(self.last, len(starts) - 1))
        return 12 if index == self.first else 12 + 4 * (index - self.first) + stream_offset

    def read(self, name: str):
        cls = message_class(name)
        at = self.pos
        have = self._reach(at + 10)  # a varint is at most 10 bytes
        try:  # read in place: the data may go on past the frame's, so where the varint ends is checked
            size, after = _DecodeVarint32(self.joined.data, self.base + at)
        except (IndexError, protobuf_message.DecodeError):
            after = None
        if after is None or after - self.base > have:
            raise ValidationError(self.frame_offset(at), f"rpc.{name}", "the message stream ends before this "
                                                                        "message's length")
        self.pos = after - self.base
        left = self._reach(self.pos + size) - self.pos
        if size > left:  # every block is joined: the stream ends short
            raise ValidationError(self.frame_offset(at), f"rpc.{name}",
                                  f"{size} bytes announced, {left} left in the blocks")
        chunk, self.pos = self._bytes(self.pos, self.pos + size), self.pos + size
        return parse(cls, chunk, self.frame_offset(at), f"rpc.{name}")


def parse(cls, data: bytes, offset: int, field: str):
    """A protobuf message from bytes; garbage and missing required fields are ValidationErrors."""
    message = cls()
    try:
        message.ParseFromString(data)
    except (protobuf_message.DecodeError, RuntimeError, ValueError) as exc:
        raise ValidationError(offset, field, f"not a valid {cls.__name__}: {exc}") from None
    if not message.IsInitialized():
        missing = ", ".join(message.FindInitializationErrors())
        raise ValidationError(offset, field, f"{cls.__name__} lacks required field(s): {missing}")
    return message


def decode_rpc(frame: TubemqFrame, direction: str | None = None) -> RpcMessage:
    """The RPC carried by a decoded frame. Without a direction, RpcConnHeader.flag says it (1 = response;
    anything else is a request, since the Go client sends 10)."""
    stream = _Stream(frame)
    conn_header = stream.read("RpcConnHeader")
    if direction is None:
        direction = "response" if conn_header.flag == FLAG_RESPONSE else "request"
    exception = business = raw = None
    method_id = None
    if direction == "request":
        header, body = stream.read("RequestHeader"), stream.read("RequestBody")
        method_id, payload, side = body.method, body.request, "request"
    else:
        header = stream.read("ResponseHeader")
        if header.status == RPC_pb2.ResponseHeader.SUCCESS:
            body = stream.read("RspResponseBody")
            method_id, payload, side = body.method, body.data, "response"
        else:
            body = stream.read("RspExceptionBody")
            exception = RpcException(body.exceptionName, body.stackTrace)
    entry = METHODS.get(method_id)
    if exception is None:
        if entry is not None:
            business = parse(message_class(entry[side]), payload, stream.frame_offset(stream.pos),
                             f"rpc.{entry[side]}")
        else:
            raw = payload
    method = entry["name"] if entry else (UNSUPPORTED_METHODS.get(method_id, {}).get("constant"))
    rpc = RpcMessage(frame.serial_no, direction, conn_header, header, body, method_id, method, business, raw,
                     exception, stream.rest())
    carried = messages_of(rpc)
    return dataclasses.replace(rpc, messages=tuple(carried)) if carried else rpc


def describe(frame: TubemqFrame, direction: str | None):
    """The runtime's extension hook: (message type, direction, RpcMessage) of a decoded frame."""
    rpc = decode_rpc(frame, direction)
    return rpc.message_type, rpc.direction, rpc


def delimited(*messages) -> bytes:
    """Messages as writeDelimitedTo writes them: varint length, then the bytes."""
    out = []
    for message in messages:
        data = message.SerializeToString()
        out += [_VarintBytes(len(data)), data]
    return b"".join(out)


def frame_of(serial_no: int, stream: bytes) -> TubemqFrame:
    """A frame carrying `stream`, cut into blocks of exactly 8192 bytes (the last holds the rest), as
    every TubeMQ client does; list_size and block lengths are derived when it is encoded."""
    pieces = [stream[i:i + BLOCK_SIZE] for i in range(0, len(stream), BLOCK_SIZE)] or [b""]
    return TubemqFrame(serial_no=serial_no, blocks=tuple(Block(data=piece) for piece in pieces))


def _method_entry(method: int | str) -> dict:
    for entry in METHODS.values():
        if method in (entry["id"], entry["name"]):
            return entry
    raise EncodeError("method", f"unknown method {method!r}")


def request_frame(serial_no: int, method: int | str, message, *, protocol_ver: int = 3,
                  timeout_ms: int = 10000, service_type: int | None = None, flag: int = 0) -> TubemqFrame:
    """What the Java client sends for a call: its service type, protocol version 3, a 10 s timeout."""
    entry = _method_entry(method)
    header = RPC_pb2.RequestHeader(serviceType=service_type or SERVICE_TYPES[entry["service_type"]],
                                   protocolVer=protocol_ver)
    body = RPC_pb2.RequestBody(method=entry["id"], timeout=timeout_ms, request=message.SerializeToString())
    return frame_of(serial_no, delimited(RPC_pb2.RpcConnHeader(flag=flag), header, body))


def response_frame(serial_no: int, method: int | str, message, *, protocol_ver: int = 3) -> TubemqFrame:
    """A SUCCESS response as the server writes it (flag 1, no serviceType in the header)."""
    entry = _method_entry(method)
    header = RPC_pb2.ResponseHeader(status=RPC_pb2.ResponseHeader.SUCCESS, protocolVer=protocol_ver)
    body = RPC_pb2.RspResponseBody(method=entry["id"], data=message.SerializeToString())
    return frame_of(serial_no, delimited(RPC_pb2.RpcConnHeader(flag=FLAG_RESPONSE), header, body))


def exception_frame(serial_no: int, class_name: str, text: str, *, status: int = STATUS["ERROR"],
                    protocol_ver: int = 3) -> TubemqFrame:
    """An ERROR (1) or FATAL (2) response carrying an exception, with the ResponseHeader fields the
    server sets for that status (methods.yaml, answers.response_header_fields): an ERROR header carries
    protocol_ver, a FATAL one carries the status only, whatever protocol_ver says. text is the
    stackTrace exactly as sent; fatal_frame adds the server's prefix to a FATAL answer's message."""
    status_name = next((name for name, value in STATUS.items() if value == status and name != "SUCCESS"), None)
    if status_name is None:
        raise EncodeError("status", f"an exception answer is ERROR or FATAL, not {status!r}")
    values = {"status": status, "protocolVer": protocol_ver}
    header = RPC_pb2.ResponseHeader(**{name: values[name] for name in
                                       ANSWERS["response_header_fields"][status_name]})
    body = RPC_pb2.RspExceptionBody(exceptionName=class_name, stackTrace=text)
    return frame_of(serial_no, delimited(RPC_pb2.RpcConnHeader(flag=FLAG_RESPONSE), header, body))


def fatal_frame(serial_no: int, class_name: str, message: str, *, stage: str = "handle") -> TubemqFrame:
    """A FATAL answer as the server's channel handler writes it: the header holds the status only, and the
    stackTrace is the stage's fixed prefix followed by the exception's message (stage "read": the envelope
    could not be read or the server is not running; "handle": the request could not be handed over). The
    facts are in methods.yaml `answers`, read from apache/inlong NettyRpcServer.java (NettyServerHandler)."""
    prefixes = ANSWERS["fatal_stack_trace_prefixes"]
    if stage not in prefixes:
        raise EncodeError("stage", f"a FATAL answer's stage is one of {', '.join(prefixes)}, not {stage!r}")
    return exception_frame(serial_no, class_name, prefixes[stage]["text"] + message, status=STATUS["FATAL"])


def exception_class(name: str, protocol_ver: int | None) -> str:
    """A TubeMQ exception class name as the server writes it for a request of protocol_ver: versions 1 and
    2 get the package renamed (methods.yaml enums.protocol_version), others the name unchanged."""
    package = _EXCEPTION_PACKAGES.get(protocol_ver)
    if package is not None and name.startswith(EXCEPTION_PACKAGE):
        return package + name[len(EXCEPTION_PACKAGE):]
    return name


def unsupported_method_frame(serial_no: int, method_id: int) -> TubemqFrame:
    """The server's FATAL answer to a request whose method id has no message mapping (e.g. 11, 12, 14, 19)."""
    entry = ANSWERS["unsupported_method"]
    return fatal_frame(serial_no, entry["exception_name"], entry["message_format"].format(id=method_id),
                       stage=entry["stage"])


def unreadable_request_frame(serial_no: int, field: str, reason: str) -> TubemqFrame:
    """The server's FATAL answer to a whole frame whose RPC envelope or business message does not parse (field:
    the decoder's error field, rpc.<message>); methods.yaml answers.unreadable_request."""
    entry = ANSWERS["unreadable_request"]
    envelope = field.removeprefix("rpc.") in TABLE["envelope"]["request"]
    return fatal_frame(serial_no, entry["exception_name"], reason,
                       stage=entry["envelope_stage"] if envelope else entry["message_stage"])


def frame_serial(data: bytes) -> int | None:
    """The serial of a frame whose framing the spec accepts, whatever its blocks hold (None otherwise): what
    the server answers a request it cannot read under."""
    try:
        return decode_tubemq_frame(data)[0].serial_no
    except DecodeError:
        return None


@dataclass(frozen=True)
class MessageData:
    """The data of one TubeMQ message, split by its flag and checked against its checksum."""

    attributes: tuple[tuple[str, str], ...]
    payload: bytes
    checksum: int | None  # what the message carried (None: -1, "do not check")
    checksum_ok: bool | None  # None when not checked
    container: str | None  # an InLong message container recognised by its magic, e.g. "InLongMsg v4"
    error: str | None = None  # why the attribute header could not be read (the payload is then the raw data)

    def to_dict(self) -> dict:
        from inlong_proto.core.plain import render_bytes

        out = {"attributes": dict(self.attributes), "payload": render_bytes(self.payload),
               "checksum": self.checksum, "checksum_ok": self.checksum_ok, "container": self.container}
        if self.error:
            out["error"] = self.error
        return out


def checksum_of(data: bytes) -> int:
    """TubeMQ's check value: CRC32 with the top bit cleared."""
    return zlib.crc32(data) & 0x7FFFFFFF


def container_of(payload: bytes) -> str | None:
    """InLong message containers start (and end) with 0x0F and their version byte; report, don't decode."""
    if len(payload) >= 4 and payload[0] == 0x0F and payload[:2] == payload[-2:]:
        return f"InLongMsg v{payload[1]}"
    return None


def encode_message_data(payload: bytes, attribute: str = "") -> tuple[bytes, int]:
    """SendMessageRequestP2B.data and flag as the Java producer builds them (encodePayload): a non-blank
    attribute goes first with its length and sets flag bit 0, otherwise the data is the payload alone and
    the flag 0 (the producer's quirk Q-T11, bit 0 set for an empty attribute, is not reproduced)."""
    if not attribute.strip():
        return bytes(payload), 0
    header = tubemq_message.DataWithAttribute(attribute=attribute, payload=bytes(payload))
    return tubemq_message.encode_data_with_attribute(header), FLAG_HAS_ATTRIBUTE


def message_data(data: bytes, flag: int, checksum: int = -1, *, offset: int = 0, field: str = "data",
                 strict: bool = True) -> MessageData:
    """Attributes and payload of SendMessageRequestP2B.data or TransferedMessage.payLoadData.

    A checksum mismatch is reported in checksum_ok, never hidden (the consumer drops such messages
    silently). An unreadable attribute header raises, or with strict=False is reported in `error` with the
    data kept whole as payload: inside a valid RPC one bad message must not hide the others (quirk Q-T11
    makes real producers write exactly that).
    """
    if flag & FLAG_HAS_ATTRIBUTE and not strict:
        try:
            return message_data(data, flag, checksum, offset=offset, field=field)
        except ValidationError as exc:
            plain = message_data(data, 0, checksum)
            return MessageData((), data, plain.checksum, plain.checksum_ok, plain.container,
                               f"flag bit 0 is set but {exc.field} is unreadable: {exc.reason}")
    if flag & FLAG_HAS_ATTRIBUTE:
        try:
            parsed, _ = tubemq_message.decode_data_with_attribute(data, 0, len(data), field + ".")
        except TruncatedError as exc:  # the data is whole: a length that runs past it is wrong, not short
            raise ValidationError(offset, exc.field, f"overruns the message data: {exc.reason}") from None
        attributes = tuple(tuple(item.split("=", 1)) if "=" in item else (item, "")
                           for item in parsed.attribute.split(",") if item)
        payload = parsed.payload
    else:
        attributes, payload = (), data
    checked = checksum != -1
    return MessageData(attributes, payload, checksum if checked else None,
                       checksum_of(data) == checksum if checked else None, container_of(payload))


def messages_of(rpc: RpcMessage) -> list[MessageData]:
    """Every message a SendMessageRequestP2B or GetMessageResponseB2C carries."""
    business = rpc.business
    if isinstance(business, BrokerService_pb2.SendMessageRequestP2B):
        return [message_data(business.data, business.flag, business.checkSum if business.HasField("checkSum")
                             else -1, strict=False)]
    if isinstance(business, BrokerService_pb2.GetMessageResponseB2C):
        return [message_data(m.payLoadData, m.flag, m.checkSum, strict=False) for m in business.messages]
    return []


@dataclass(frozen=True)
class Call:
    """A request and its response, matched by serial number (either may be missing)."""

    serial_no: int
    method: str | None
    request: object | None  # Frame
    response: object | None  # Frame
    latency: float | None  # seconds, when both frames have timestamps

    @property
    def failed(self) -> bool:
        return self.response is not None and self.response.payload.exception is not None


class CallPairer:
    """pair_calls for a stream: feed one connection's frames in order, get each call as soon as its response
    comes (an unanswered request at close()). Memory: the calls still open.

    merged=True is for frames that may come from several connections with no way to tell them apart (a
    dump, or dumps concatenated): serial numbers then collide (each connection counts from 1). A second
    request with an open serial stays open beside the first, and a response goes to the oldest open call
    of its serial and method (of its serial, when the response names no method). Each collision (a
    second request before the answer, or a response whose method no open call of its serial has) is
    counted in `collisions`, by method in `collided`, so that the caller can say the figures may be wrong."""

    def __init__(self, merged: bool = False):
        self.merged = merged
        self.open: dict[int, list] = {}  # serial -> [serial, method, request, response, start, end]
        self.pending: dict[int, list[list]] = {}  # merged: serial -> the open calls of that serial, oldest first
        self.collisions = 0
        self.collided: Counter = Counter()  # method -> collisions it was part of

    def feed(self, frame, at=None) -> list[Call]:
        if frame.error is not None or frame.payload is None:
            return []
        at = _seconds(at)
        serial = frame.payload.serial_no
        if self.merged:
            return self._feed_merged(frame, serial, at)
        if frame.direction == "request":
            replaced = self.open.pop(serial, None)  # its serial reused before an answer: it stays unanswered
            self.open[serial] = [serial, frame.payload.method, frame, None, at, None]
            return [_call(replaced)] if replaced is not None else []
        call = self.open.pop(serial, None)
        if call is None:
            return [_call([serial, frame.payload.method, None, frame, None, at])]
        call[3], call[5] = frame, at
        call[1] = call[1] or frame.payload.method
        return [_call(call)]

    def _collide(self, *methods) -> None:
        self.collisions += 1
        for method in set(methods):
            self.collided[method or "unknown"] += 1

    def _feed_merged(self, frame, serial: int, at) -> list[Call]:
        method = frame.payload.method
        waiting = self.pending.setdefault(serial, [])
        if frame.direction == "request":
            if waiting:  # a second request before the answer: another connection's, most likely
                self._collide(method, *(call[1] for call in waiting))
            waiting.append([serial, method, frame, None, at, None])
            return []
        match = next((call for call in waiting if method is None or call[1] is None or call[1] == method), None)
        if match is None:
            if waiting:  # same serial, another method
                self._collide(method, *(call[1] for call in waiting))
            else:
                del self.pending[serial]
            return [_call([serial, method, None, frame, None, at])]
        waiting.remove(match)
        if not waiting:
            del self.pending[serial]
        match[3], match[5] = frame, at
        match[1] = match[1] or method
        return [_call(match)]

    def close(self) -> list[Call]:
        calls = [_call(call) for call in self.open.values()]
        calls += [_call(call) for waiting in self.pending.values() for call in waiting]
        self.open, self.pending = {}, {}
        return calls


def _call(call: list) -> Call:
    serial, method, request, response, start, end = call
    return Call(serial, method, request, response, end - start if start is not None and end is not None else None)


def pair_calls(frames, timestamps=None) -> list[Call]:
    """Match request and response frames of one connection by serial number, in request order.

    timestamps, if given, is one capture time per frame (seconds as numbers, or datetimes), and yields each
    call's latency in seconds (a float either way). A serial number reused after its call completed starts a
    new call; unmatched frames stay as calls with one side None, so nothing disappears from the result.
    """
    pairer = CallPairer()
    times = list(timestamps) if timestamps is not None else None
    order: dict[int, int] = {}  # id of a call's first frame -> its position among the frames
    calls: list[Call] = []
    for index, frame in enumerate(frames):
        order.setdefault(id(frame), index)
        calls += pairer.feed(frame, times[index] if times is not None else None)
    calls += pairer.close()
    return sorted(calls, key=lambda call: order[id(call.request if call.request is not None else call.response)])


def _seconds(at) -> float | None:
    """A capture time as seconds: a number as it is, a datetime by its POSIX time (zone-less: as UTC)."""
    if at is None or isinstance(at, (int, float)):
        return at
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return at.timestamp()


# Fields holding TubeMQ's structured strings, and the parser for each (see strings.py).
_STRUCTURED = {"brokerInfos": "broker_info", "topicInfos": "topic_info", "subscribeInfo": "subscribe_info",
               "partitionInfo": "partition", "failureInfo": "failure_info"}


def structured(business) -> dict:
    """The business message's structured strings parsed (brokers, topics, subscriptions, partitions,
    failures, events, the sender's address) as plain data; values that do not parse say why."""
    from dataclasses import asdict

    from inlong_proto.core.errors import DecodeError
    from inlong_proto.tubemq import strings

    out = {}
    for field in business.DESCRIPTOR.fields:
        name = field.name
        if name in _STRUCTURED:
            parse = getattr(strings, _STRUCTURED[name])
            items = []
            for text in getattr(business, name):
                try:
                    items.append(asdict(parse(text, name)))
                except DecodeError as exc:
                    items.append({"text": render_text(text), "error": exc.reason})
            if items:
                out[name] = items
        elif name == "event" and business.HasField("event"):
            try:
                out["event"] = asdict(strings.event(business.event))
            except DecodeError as exc:
                out["event"] = {"error": exc.reason}
        elif name == "sentAddr" and business.HasField("sentAddr"):
            out["sentAddr"] = strings.sent_address(business.sentAddr)
        elif name == "clientId" and business.HasField("clientId"):
            try:
                parsed = strings.client_id(business.clientId)
            except DecodeError as exc:
                out["clientId"] = {"text": render_text(business.clientId), "error": exc.reason}
                continue
            if parsed.role != "unknown":
                out["clientId"] = {k: v for k, v in asdict(parsed).items() if v is not None}
    return out

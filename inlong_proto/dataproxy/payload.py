"""What a DataProxy frame carries: its records, attributes, ids, times and status.

The generated codecs decode a frame's layout; the layout leaves the body as bytes and the attributes as
text. This module reads those the way the DataProxy server reads requests and the SDKs read responses:
the attribute string, the Snappy body, and the record layouts of ``specs/dataproxy/dataproxy_payload.ksy``.
Every binary layout comes from the generated codecs; the only choices made here are the protocol's rules
(which layout a MsgType uses, when a body is compressed, how records are separated), each cited where made.

Errors are :class:`~inlong_proto.core.errors.DecodeError` subclasses whose offsets count from the start of the
buffer the frame was decoded from (``frame.offset`` + the position in the frame; for a bare message, from
the frame's first byte), like every other error of the package.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable, Mapping

import cramjam

from inlong_proto.core.errors import DecodeError, EncodeError, TruncatedError, ValidationError
from inlong_proto.core.frames import Frame, encode
from inlong_proto.core.plain import to_plain, utf8_or_none
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common
from inlong_proto.generated.codec.dataproxy import dataproxy_payload as layouts
from inlong_proto.generated.codec.dataproxy import dataproxy_request as request_codec
from inlong_proto.generated.codec.dataproxy import dataproxy_response as response_codec

ErrCode = common.ErrCode
MsgType = common.MsgType

Pairs = tuple[tuple[str, str], ...]

# Guava's CharMatcher.whitespace(), which the server's Splitter.trimResults() strips from each entry.
# (Python's str.strip() would also strip U+001C..U+001F, which the server keeps.)
GUAVA_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

# A Snappy block states its uncompressed size up front; a body claiming more than this is refused before
# anything is allocated, so a small hostile frame cannot make the decoder allocate gigabytes.
MAX_BODY_SIZE = 64 * 1024 * 1024
# The most a Snappy raw block expands: its densest element, a copy with a 2-byte offset, writes 64 bytes from
# 3 (format_description.txt), so no block of n bytes holds more than 64 / 3 * n; a larger claim is refused
# before anything is allocated (a 133-byte frame claiming 60 MB made the fuzzer's memory check fail).
SNAPPY_MAX_EXPANSION = 22

_TEXT_TYPES = frozenset({MsgType.common_service, MsgType.ack_service, MsgType.original_return,
                         MsgType.multi_body, MsgType.multi_body_attr})
_LINE_TYPES = frozenset({MsgType.common_service, MsgType.ack_service, MsgType.original_return})
_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")  # what Long.parseLong / Integer.parseInt accept
_EPOCH = datetime(1970, 1, 1)
INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1


# ---------------------------------------------------------------------------------------------------
# Attributes


def parse_attrs(text: str, *, strict: bool = True, offset: int = 0, field: str = "attr") -> Pairs:
    """``k=v&k=v`` as (key, value) pairs, in order.

    strict (requests): exactly what the server's Guava ``Splitter.on("&").trimResults()
    .withKeyValueSeparator("=")`` accepts. Each entry is trimmed as a whole (so whitespace next to the
    ``=`` stays part of the key or value, as on the server); an empty entry, an entry without ``=``, with
    two ``=`` or repeating a key raises ValidationError at ``offset`` + the entry's byte position, since
    the server answers 109 SPLIT_ATTR_ERROR to it.

    Not strict (responses, heartbeats): keeps what the strict mode refuses, because the server writes
    such strings itself (duplicate keys, quirk Q14; ``errMsg`` text holding ``=``). Duplicates stay in
    order, empty entries are skipped, an entry is split at its first ``=``, one without ``=`` becomes
    (entry, ""). A blank string is () in both modes (the server does not split a blank attr).
    """
    if not text.strip():
        return ()
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    start = 0
    for raw in text.split("&"):
        entry_at, start = start, start + len(raw) + 1
        entry = raw.strip(GUAVA_WHITESPACE)
        if not strict:
            if entry:
                key, _, value = entry.partition("=")
                pairs.append((key, value))
            continue
        parts = entry.split("=")
        if len(parts) != 2:
            problem = "is empty" if not entry else "has no '='" if len(parts) == 1 else "has more than one '='"
        elif parts[0] in seen:
            problem = f"repeats the key {parts[0]!r}"
        else:
            seen.add(parts[0])
            pairs.append((parts[0], parts[1]))
            continue
        raise ValidationError(offset + len(text[:entry_at].encode("utf-8")), field,
                              f"attribute entry {entry!r} {problem}; the server's splitter refuses it and "
                              f"answers 109 SPLIT_ATTR_ERROR")
    return tuple(pairs)


def format_attrs(pairs: Mapping[str, object] | Iterable[tuple[str, object]], *, strict: bool = True) -> str:
    """The inverse of parse_attrs: pairs (or a mapping) joined as ``k=v&k=v``, values by str().

    strict (requests): refuses what would not come back from parse_attrs(strict=True) unchanged, since the
    protocol has no escaping: a blank key, '&' or '=' in a key or value, whitespace the server would trim,
    a repeated key. Not strict (responses): writes the text as the server does, unchecked.
    """
    items = [(str(key), value) for key, value in (pairs.items() if isinstance(pairs, Mapping) else pairs)]
    text = "&".join(f"{key}={value}" for key, value in items)
    if strict:
        seen: set[str] = set()
        for key, value in items:
            value = str(value)
            where = f"attribute {key}={value}"
            if not key or key != key.strip(GUAVA_WHITESPACE) or value != value.strip(GUAVA_WHITESPACE):
                raise EncodeError("attr", f"{where!r}: a blank key or surrounding whitespace does not survive "
                                          f"the server's trimming")
            if "&" in key + value or "=" in key + value:
                raise EncodeError("attr", f"{where!r}: '&' and '=' cannot be escaped in attributes")
            if key in seen:
                raise EncodeError("attr", f"{where!r}: key repeated; the server answers 109 SPLIT_ATTR_ERROR")
            seen.add(key)
    return text


def attr_value(attrs: Pairs, key: str) -> str | None:
    """The first value of key (the one the server wrote first, when a response repeats keys), or None."""
    for name, value in attrs:
        if name == key:
            return value
    return None


def response_status(attrs: Pairs | Mapping[str, str], *, offset: int = 0,
                    field: str = "attr") -> tuple[ErrCode | int, str | None]:
    """(error code, error message) of a response's attributes, as the SDK reads them.

    A missing or "0" errCode is success (DecodeObject.handleAttr); a number the enum does not know is kept
    as an int; a non-numeric errCode raises ValidationError. The message is errMsg, or None when absent.
    """
    pairs = tuple(attrs.items()) if isinstance(attrs, Mapping) else attrs
    code_text = attr_value(pairs, "errCode")
    message = attr_value(pairs, "errMsg")
    if code_text is None or not code_text.strip():
        return ErrCode.success, message
    code_text = code_text.strip()
    if not _JAVA_INTEGER.fullmatch(code_text):
        raise ValidationError(offset, field, f"errCode {code_text!r} is not a decimal number")
    code = int(code_text)
    return (ErrCode(code) if code in ErrCode._value2member_map_ else code), message


# ---------------------------------------------------------------------------------------------------
# Records and payloads


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a data request, with what the frame says about it.

    data_time is naive UTC; attrs are the record's own attributes (MsgType 6, MsgType 7 with ExtField
    bit 0), else ().
    index is the record's position in its frame.
    """

    group_id: str | None
    stream_id: str | None
    data_time: datetime | None
    data: bytes
    attrs: Pairs
    index: int

    @property
    def text(self) -> str | None:
        """The data as UTF-8 text, or None when it is not valid UTF-8 (never silently replaced)."""
        return utf8_or_none(self.data)

    def to_dict(self) -> dict:
        return {"index": self.index, "group_id": self.group_id, "stream_id": self.stream_id,
                "data_time": to_plain(self.data_time), "data": to_plain(self.data), "attrs": [list(p) for p in self.attrs]}


@dataclass(frozen=True)
class Payload:
    """The content of one DataProxy frame, read as its MsgType, flags and attributes say.

    body is the decompressed body, or the body as sent when it is encrypted (not decoded: no open-source
    server decrypts it) or when the frame is a response or heartbeat. records is () for those. error_code
    and error_message are set for responses only. data_time_unit says what the wire carried: "s" (MsgType 7
    DataTime, heartbeat responses), "ms" (the dt attribute), None (no time).

    error is set (and records is ()) when the frame is well-formed and the server accepts it, but its body
    does not hold records in its layout: a MsgType 6 body that is not InLongMsg v3 {len, data}{len, attr}
    pairs, which the real server drops while answering success (dataproxy_payload.ksy,
    multi_body_attr_items). payload(strict=True) raises it instead.
    """

    base_type: MsgType
    direction: str | None
    attrs: Pairs
    group_id: str | None
    stream_id: str | None
    data_time: datetime | None
    data_time_unit: str | None
    compressed: bool
    encrypted: bool
    records: tuple[Record, ...]
    body: bytes
    error_code: ErrCode | int | None
    error_message: str | None
    message_id: str | None
    unique_id: int | None
    record_count: int | None
    error: DecodeError | None = None

    def attr(self, key: str) -> str | None:
        """The first value of an attribute, or None."""
        return attr_value(self.attrs, key)

    # every key to_dict can give (decode -e / -Y check paths against it)
    JSON_KEYS = ("base_type", "direction", "attrs", "group_id", "stream_id", "data_time", "data_time_unit",
                 "compressed", "encrypted", "records", "message_id", "unique_id", "record_count", "error_code",
                 "error_message", "body", "error")

    def to_dict(self) -> dict:
        """JSON-able, for `inlong-proto decode --payload` (attributes as [key, value] pairs: order and
        repeated keys are kept)."""
        out = {"base_type": to_plain(self.base_type), "direction": self.direction,
               "attrs": [list(pair) for pair in self.attrs], "group_id": self.group_id,
               "stream_id": self.stream_id, "data_time": to_plain(self.data_time),
               "data_time_unit": self.data_time_unit, "compressed": self.compressed, "encrypted": self.encrypted,
               "records": [record.to_dict() for record in self.records], "message_id": self.message_id,
               "unique_id": self.unique_id, "record_count": self.record_count,
               "error_code": to_plain(self.error_code), "error_message": self.error_message}
        if self.encrypted:
            out["body"] = to_plain(self.body)
        if self.error is not None:
            out["error"] = str(self.error)
        return out


def infer_direction(message) -> str:
    """Which way a frame whose bytes fit both layouts (text layout, heartbeats) was most likely sent.

    A heartbeat with a body (the node load) is a response; SDKs send none. A MsgType 1 text frame is the
    Go SDK's legacy heartbeat request. Other text frames are responses when the body is empty (the server
    refuses such requests with 105; sink-path responses have none) or when the attributes hold dpIp or
    errCode, which only the server writes; otherwise requests.
    """
    if type(message) is response_codec.DataproxyResponse:
        return "response"
    inner = message.body
    if type(inner) is request_codec.BinMessage:
        return "request"
    if type(inner) is common.BinHeartbeat:
        return "response" if inner.body else "request"
    if message.base_type == MsgType.heartbeat:
        return "request"
    if not inner.body:
        return "response"
    keys = {key for key, _ in parse_attrs(inner.attr, strict=False)}
    return "response" if keys & {"dpIp", "errCode"} else "request"


def payload(frame_or_message, direction: str | None = None, *, max_body_size: int = MAX_BODY_SIZE,
            strict: bool = False) -> Payload:
    """The Payload of a decoded DataProxy frame (a Frame, or a DataproxyRequest/DataproxyResponse).

    direction matters only for frames whose bytes fit both layouts (a Frame with direction None); when not
    given it is inferred (infer_direction). Requests' attributes are parsed strictly (as the server does),
    responses' and heartbeats' leniently. An error Frame raises its error. A body the server accepts but
    whose records cannot be read (Payload.error) is reported in Payload.error, or raised with strict=True
    (FAILFAST readers).
    """
    read = _payload(frame_or_message, direction, max_body_size)
    if strict and read.error is not None:
        raise read.error
    return read


# the bodies _payload does not read as a text request (MsgType 2-6), whatever the direction asked
_NOT_TEXT_REQUESTS = (response_codec.BinResponse, response_codec.LegacyHeartbeatReply, common.BinHeartbeat)


@dataclass(frozen=True, slots=True)
class RequestTally:
    """What payload(frame, "request") says of a request, its records counted rather than built: records and
    size (their data bytes), body_size (the body as read: decompressed), record_count (cnt / MsgCnt)."""

    attrs: Pairs
    group_id: str | None
    stream_id: str | None
    records: int
    size: int
    body_size: int
    record_count: int | None


def request_tally(frame_or_message, *, max_body_size: int = MAX_BODY_SIZE) -> RequestTally:
    """payload(frame_or_message, "request") counted: the same reading (the same head, body and layout, so the
    same counts and the same errors), without a Record, a time or a Payload made; what the audit counts by."""
    frame, message = _unwrap(frame_or_message)
    _direction(frame, message, "request")
    reader = _Reader(message, frame.offset if frame is not None else 0, max_body_size)
    inner = message.body
    if type(inner) is request_codec.BinMessage:
        attrs, group_id, stream_id = reader.bin_head()
        body, data = reader.bin_data()
        record_count = inner.msg_cnt
    elif type(inner) not in _NOT_TEXT_REQUESTS and message.base_type != MsgType.heartbeat:  # as _payload reads
        _, attrs, group_id, stream_id, compressed = reader.text_head()
        body, data, _ = reader.text_data(attrs, compressed)
        record_count = java_int(attr_value(attrs, "cnt"), INT_MAX)
    else:  # a heartbeat, or an answer's layout: no records
        read = _payload(frame_or_message, "request", max_body_size)
        return RequestTally(read.attrs, read.group_id, read.stream_id, 0, 0, len(read.body), read.record_count)
    return RequestTally(attrs, group_id, stream_id, len(data), sum(len(item) for item, _ in data), len(body),
                        record_count)


def _payload(frame_or_message, direction: str | None, max_body_size: int) -> Payload:
    frame, message = _unwrap(frame_or_message)
    direction = _direction(frame, message, direction)
    reader = _Reader(message, frame.offset if frame is not None else 0, max_body_size)
    inner = message.body
    if type(inner) is request_codec.BinMessage:
        return reader.bin_request()
    if type(inner) is response_codec.BinResponse:
        return reader.response(inner.attr, unique_id=inner.unique_id)
    if type(inner) is response_codec.LegacyHeartbeatReply:
        return reader.response("")
    if type(inner) is common.BinHeartbeat:
        return reader.heartbeat(direction)
    if direction == "response":
        return reader.response(inner.attr, body=inner.body)
    if message.base_type == MsgType.heartbeat:
        return reader.heartbeat(direction)
    return reader.text_request()


def _unwrap(frame_or_message):
    if isinstance(frame_or_message, Frame):
        if frame_or_message.error is not None:
            raise frame_or_message.error
        if frame_or_message.protocol != "dataproxy":
            raise ValueError(f"a {frame_or_message.protocol} frame has no DataProxy payload")
        return frame_or_message, frame_or_message.message
    if type(frame_or_message) in (request_codec.DataproxyRequest, response_codec.DataproxyResponse):
        return None, frame_or_message
    raise TypeError(f"expected a dataproxy Frame, DataproxyRequest or DataproxyResponse, "
                    f"not {type(frame_or_message).__name__}")


def _direction(frame: Frame | None, message, asked: str | None) -> str:
    if asked is not None and asked not in ("request", "response"):
        raise ValueError(f"direction must be request, response or None, not {asked!r}")
    if frame is not None and frame.direction is None:
        known = None  # the bytes fit both layouts; the class of frame.message says nothing
    elif type(message) is response_codec.DataproxyResponse:
        known = "response"
    else:
        known = "request"
    if known is not None and asked is not None and asked != known:
        raise ValueError(f"the frame is a {known}, but direction={asked} was asked for")
    return known or asked or infer_direction(message)


def _rebuilt(message, **changes):
    """A copy of a generated message with changes, its derived fields (lengths) left for encode."""
    values = {info.name: getattr(message, info.name) for info in type(message).FIELDS if not info.derived}
    values.update(changes)
    return type(message)(**values)


def offset_in_frame(message, field: str) -> int | None:
    """Where ``message.body.<field>`` starts in the encoded frame, or None if it cannot be told.

    Found from the spec, not from a constant: the frame is encoded with two one-byte values of the field
    that differ, and the first byte where the encodings differ is the field's.
    """
    inner = message.body
    marks = ("0", "1") if isinstance(getattr(inner, field, None), str) else (b"\x00", b"\x01")
    try:
        first, second = (encode(_rebuilt(message, body=_rebuilt(inner, **{field: mark}))) for mark in marks)
    except (EncodeError, TypeError):
        return None
    return next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), None)


def _time(value: int, unit: str) -> datetime | None:
    try:
        return _EPOCH + (timedelta(seconds=value) if unit == "s" else timedelta(milliseconds=value))
    except OverflowError:
        return None


def java_int(text: str | None, maximum: int) -> int | None:
    """The value Java's parseInt/parseLong gives, or None where it throws (the server then uses a default)."""
    if text is None or not _JAVA_INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if -maximum - 1 <= value <= maximum else None


def _lines(body: bytes, strip_trailing_newline: bool) -> tuple[bytes, ...]:
    """Records joined by LF; one trailing LF or CRLF is stripped first (CodecTextMsg.encEventPackage)."""
    if strip_trailing_newline:
        if body.endswith(b"\r\n"):
            body = body[:-2]
        elif body.endswith(b"\n"):
            body = body[:-1]
    return tuple(body.split(b"\n")) if body else ()


def _records(group_id: str | None, stream_id: str | None, data_time: datetime | None, data: list) -> tuple:
    """The Records of a request's (data, attribute text or None) list."""
    return tuple(Record(group_id, stream_id, data_time, item, () if attr is None else parse_attrs(attr, strict=False),
                        index) for index, (item, attr) in enumerate(data))


class _Reader:
    """Builds the Payload of one frame message; knows where the frame came from, for error offsets."""

    def __init__(self, message, base: int, max_body_size: int):
        self.message, self.inner, self.base, self.max_body_size = message, message.body, base, max_body_size

    def at(self, field: str) -> int:
        """Absolute offset of a field of the inner message (the frame's start if it cannot be told)."""
        return self.base + (offset_in_frame(self.message, field) or 0)

    def attrs(self, text: str, strict: bool) -> Pairs:
        try:
            return parse_attrs(text, strict=strict, field="body.attr")
        except ValidationError as exc:
            raise exc.shifted(self.at("attr")) from None

    def decompress(self, body: bytes, server_error: bool) -> bytes:
        """A Snappy raw block (xerial Snappy / cramjam), bounded by max_body_size."""
        why = "; the server answers 96 UNCOMPRESS_DATA_ERROR" if server_error else ""
        try:
            size = cramjam.snappy.decompress_raw_len(body)
        except (cramjam.DecompressionError, ValueError, OverflowError) as exc:
            raise ValidationError(self.at("body"), "body.body", f"not a Snappy raw block: {exc}{why}") from None
        if size > self.max_body_size:
            raise ValidationError(self.at("body"), "body.body", f"the Snappy block claims {size} bytes "
                                  f"uncompressed, over max_body_size {self.max_body_size}")
        if size > SNAPPY_MAX_EXPANSION * len(body):  # never allocate what the block cannot hold
            raise ValidationError(self.at("body"), "body.body", f"the Snappy block claims {size} bytes "
                                  f"uncompressed, more than {len(body)} compressed bytes can hold{why}")
        out = bytearray(size)
        try:
            written = cramjam.snappy.decompress_raw_into(body, out)
        except (cramjam.DecompressionError, ValueError, OverflowError) as exc:
            raise ValidationError(self.at("body"), "body.body", f"cannot decompress the Snappy block: "
                                  f"{exc}{why}") from None
        if written != size:
            raise ValidationError(self.at("body"), "body.body", f"the Snappy block claims {size} bytes "
                                  f"but holds {written}{why}")
        return bytes(out)

    def items(self, decode, body: bytes, compressed: bool):
        """body decoded with a dataproxy_payload layout; its errors located in the frame."""
        try:
            value, _ = decode(body, 0, len(body), "body.body.")
            return value
        except (ValidationError, TruncatedError) as exc:
            reason = f"overruns the body: {exc.reason}" if isinstance(exc, TruncatedError) else exc.reason
            if compressed:  # offsets inside the decompressed body do not point into the frame
                raise ValidationError(self.at("body"), exc.field,
                                      f"{reason} (at offset {exc.offset} of the decompressed body)") from None
            raise ValidationError(self.at("body") + exc.offset, exc.field, reason) from None

    def text_head(self) -> tuple[MsgType, Pairs, str | None, str | None, bool]:
        """A MsgType 2-6 request's type, attributes (strict, as the server splits them), group, stream and
        whether the body is Snappy (the cp attribute non-blank)."""
        base_type = MsgType(self.message.base_type)
        attrs = self.attrs(self.inner.attr, strict=True)
        compressed = bool((attr_value(attrs, "cp") or "").strip())
        return base_type, attrs, attr_value(attrs, "groupId"), attr_value(attrs, "streamId"), compressed

    def text_data(self, attrs: Pairs, compressed: bool) -> tuple[bytes, list, ValidationError | None]:
        """A MsgType 2-6 request's records as the server reads them (CodecTextMsg): the body (decompressed),
        each record's (data, attribute text or None), and the error of a body the server loses (MsgType 6).
        An encrypted body is not read: no records."""
        message, body = self.message, self.inner.body
        if message.encrypted:
            return body, [], None
        if compressed:
            body = self.decompress(body, server_error=True)
            if not body:
                raise ValidationError(self.at("body"), "body.body", "the Snappy block holds no data; "
                                      "the server answers 96 UNCOMPRESS_DATA_ERROR")
        if message.base_type == MsgType.multi_body:
            items = self.items(layouts.decode_text_items, body, compressed).items
            return body, [(item.data, None) for item in items], None
        if message.base_type == MsgType.multi_body_attr:
            # InLongMsg v3 pairs. The server takes any body and loses what is not in this layout without
            # an error code (CodecTextMsg.encEventPackage, InLongMsg.addMsg/checkData/parseMixAttr):
            # flagged in Payload.error, raised only with strict=True, since the frame itself is well-formed.
            try:
                items = self.items(layouts.decode_multi_body_attr_items, body, compressed).items
            except ValidationError as exc:
                return body, [], ValidationError(exc.offset, exc.field, f"MsgType 6 body is not InLongMsg v3 "
                                                 f"{{len, data}}{{len, attr}} pairs: {exc.reason}; the real server "
                                                 f"loses such a body's records without an error code")
            return body, [(item.data, item.attr) for item in items], None
        if attr_value(attrs, "mt") == "pb":  # a protobuf: the server keeps its last byte, and so
            return body, [(body, None)] if body else [], None  # does this; cutting it at 0x0A would break it
        return body, [(data, None) for data in _lines(body, strip_trailing_newline=True)], None

    def text_request(self) -> Payload:
        """MsgType 2-6 (CodecTextMsg): Snappy when the cp attribute is non-blank, then the type's layout."""
        message = self.message
        base_type, attrs, group_id, stream_id, compressed = self.text_head()
        dt = java_int(attr_value(attrs, "dt"), _LONG_MAX)
        data_time = _time(dt, "ms") if dt is not None else None
        body, data, error = self.text_data(attrs, compressed)
        return Payload(base_type, "request", attrs, group_id, stream_id, data_time,
                       "ms" if data_time is not None else None, compressed, bool(message.encrypted),
                       _records(group_id, stream_id, data_time, data), body, None, None,
                       attr_value(attrs, "messageId"), None, java_int(attr_value(attrs, "cnt"), INT_MAX), error)

    def bin_head(self) -> tuple[Pairs, str | None, str | None]:
        """A MsgType 7 request's attributes (strict), group and stream (names, or numbers when ExtField says
        the ids are numeric: DataProxy's configuration maps them; 0 means none)."""
        inner = self.inner
        attrs = self.attrs(inner.attr, strict=True)
        if inner.ext_field.ids_as_strings:
            return attrs, attr_value(attrs, "groupId"), attr_value(attrs, "streamId")
        return (attrs, str(inner.group_num) if inner.group_num else None,
                str(inner.stream_num) if inner.stream_num else None)

    def bin_data(self) -> tuple[bytes, list]:
        """A MsgType 7 request's records (CodecBinMsg, InLongMsg.parseBinMsg: flag bit 5 is Snappy, ExtField
        picks the layout): the body (decompressed) and each record's (data, attribute text or None). An
        encrypted body is not read: no records."""
        message, inner = self.message, self.inner
        body, ext = inner.body, inner.ext_field
        if message.encrypted:
            return body, []
        if message.compressed:
            body = self.decompress(body, server_error=False)
        if ext.per_record_attributes:
            items = self.items(layouts.decode_bin_items_with_attrs, body, message.compressed).items
            return body, [(item.data, item.attr) for item in items]
        if ext.separated_by_lf:
            block = self.items(layouts.decode_lf_block, body, message.compressed)
            return body, [(data, None) for data in _lines(block.data, strip_trailing_newline=False)]
        items = self.items(layouts.decode_bin_items, body, message.compressed).items
        return body, [(item.data, None) for item in items]

    def bin_request(self) -> Payload:
        """MsgType 7: the head, then the records (bin_head, bin_data)."""
        message, inner = self.message, self.inner
        attrs, group_id, stream_id = self.bin_head()
        data_time = _time(inner.data_time, "s")
        body, data = self.bin_data()
        return Payload(MsgType.bin_multi_body, "request", attrs, group_id, stream_id, data_time, "s",
                       bool(message.compressed), bool(message.encrypted),
                       _records(group_id, stream_id, data_time, data), body, None, None,
                       attr_value(attrs, "messageId"), inner.unique_id, inner.msg_cnt)

    def response(self, attr_text: str, *, body: bytes = b"", unique_id: int | None = None) -> Payload:
        """Any response but the heartbeat's: status from errCode/errMsg, the echoed request attributes."""
        attrs = self.attrs(attr_text, strict=False)
        code, text = response_status(attrs, offset=self.at("attr") if attr_text else self.base, field="body.attr")
        dt = java_int(attr_value(attrs, "dt"), _LONG_MAX)
        data_time = _time(dt, "ms") if dt is not None else None
        return Payload(MsgType(self.message.base_type), "response", attrs, attr_value(attrs, "groupId"),
                       attr_value(attrs, "streamId"), data_time, "ms" if data_time is not None else None,
                       False, bool(self.message.encrypted), (), body, code, text,
                       attr_value(attrs, "messageId"), unique_id, java_int(attr_value(attrs, "cnt"), INT_MAX))

    def heartbeat(self, direction: str) -> Payload:
        """MsgType 8 (and the legacy MsgType 1 request): no records; the server does not parse the attrs.

        A request's DataTime is not a time the protocol fixes (the Java SDK sends truncated milliseconds,
        the C++ SDK seconds), so it is left out; a response's is the server's time in seconds.
        """
        inner = self.inner
        attrs = self.attrs(inner.attr, strict=False)
        is_binary = type(inner) is common.BinHeartbeat
        data_time = _time(inner.data_time, "s") if is_binary and direction == "response" else None
        code, text = (response_status(attrs, offset=self.at("attr"), field="body.attr")
                      if direction == "response" else (None, None))
        return Payload(MsgType(self.message.base_type), direction, attrs, None, None, data_time,
                       "s" if data_time is not None else None, False, bool(self.message.encrypted), (),
                       inner.body, code, text, None, None, None)

"""Generic conversions of generated messages, driven by the FIELDS metadata the generator emits.

Text that is not UTF-8, one rule for every protocol (issue 11), following what the upstream reader does:

* text the format checks (JSON: EventMesh TCP headers and bodies, HTTP JSON bodies; fields typed `str`
  in the specs, e.g. DataProxy attributes, TubeMQ message attributes) is a ValidationError at the first
  bad byte, since upstream refuses it too (Jackson) or the spec says the field is UTF-8 text;
* text nobody checks (TubeMQ's proto2 `string` fields: Java reads them with U+FFFD in place, upb hands
  them back as bytes) is valid: the value keeps its exact bytes and to_dict shows {"hex": ...}
  (render_text), as it shows any opaque bytes (render_bytes); comparisons upstream makes on such a field
  read it as Java does (lenient_text);
* form fields Netty decodes leniently (EventMesh HTTP) are read with U+FFFD, as Netty reads them, with a
  note saying so.
"""
from __future__ import annotations

from datetime import datetime
from enum import IntEnum

from inlong_proto.core.errors import EncodeError


def utf8_or_none(data: bytes) -> str | None:
    """The bytes as UTF-8 text, or None when they are not valid UTF-8 (never silently replaced)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def render_bytes(data: bytes) -> str | dict:
    """Bytes as text when they are valid UTF-8, else as {"hex": ...} (JSON cannot hold raw bytes; the
    object form keeps the way back unambiguous, so `encode` reads what `decode` prints)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": data.hex()}


def render_text(value: str | bytes) -> str | dict:
    """A text field that may hold bytes: what a wire format calls text but never checks (protobuf proto2
    `string`, which upb hands back as bytes when they are not UTF-8 and Java reads with U+FFFD in place)
    keeps its exact bytes, shown as render_bytes shows them. Text a format does check (JSON, the specs'
    `str` fields) never gets here: its decoder raises ValidationError at the offending byte instead."""
    return value if isinstance(value, str) else render_bytes(bytes(value))


def lenient_text(value: str | bytes) -> str:
    """Such a field as the Java side reads it (String from bytes, invalid UTF-8 replaced by U+FFFD), for
    comparisons the upstream code makes on it; never for output, which must keep the bytes."""
    return value if isinstance(value, str) else bytes(value).decode("utf-8", "replace")


def parse_bytes(value, where: str = "") -> bytes:
    """The inverse of render_bytes (also accepts a list of byte values)."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and set(value) == {"hex"}:
        try:
            return bytes.fromhex(value["hex"])
        except ValueError as exc:
            raise EncodeError(where, f"bad hex: {exc}") from None
    try:
        return bytes(value)
    except (TypeError, ValueError):
        raise EncodeError(where, f"expected text, {{\"hex\": ...}} or bytes, got {type(value).__name__}") from None


def render_datetime(value: datetime) -> str:
    return value.isoformat(sep=" ", timespec="milliseconds")


def to_plain(value):
    """A decoded value as JSON-able data: enums by name, bytes as text or hex, times as ISO text."""
    fields = getattr(type(value), "FIELDS", None)
    if fields is not None:
        out = {}
        for info in fields:
            item = getattr(value, info.name)
            if info.kind == "switch":
                name = case_name(info, item)
                out[info.name] = {name: to_plain(item)} if name else render_bytes(item)
            else:
                out[info.name] = to_plain(item)
        return out
    if isinstance(value, IntEnum):
        return value.name
    if isinstance(value, (bytes, bytearray)):
        return render_bytes(bytes(value))
    if isinstance(value, datetime):
        return render_datetime(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def case_name(info, item) -> str | None:
    for name, cls in info.detail:
        if type(item) is cls:
            return name
    return None


def from_plain(cls, data: dict, path: str = ""):
    """Build a message from to_plain()'s shape; derived fields may be given (they are checked) or left out."""
    if not isinstance(data, dict):
        raise EncodeError(path, f"expected an object for {cls.__name__}, got {type(data).__name__}")
    known = {info.name for info in cls.FIELDS}
    unknown = set(data) - known
    if unknown:
        raise EncodeError(path, f"unknown field(s) for {cls.__name__}: {', '.join(sorted(unknown))}")
    kwargs = {}
    for info in cls.FIELDS:
        where = f"{path}{info.name}"
        if info.name not in data:
            if info.derived or info.default is not NotImplemented:
                continue
            raise EncodeError(where, "missing")
        kwargs[info.name] = _field_from_plain(info, data[info.name], where)
    return cls(**kwargs)


def _field_from_plain(info, value, where: str):
    if info.kind == "enum":
        if isinstance(value, str):
            try:
                return info.detail[value]
            except KeyError:
                raise EncodeError(where, f"{value!r} is not a member of {info.detail.__name__}") from None
        return value
    if info.kind == "datetime":
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value)
            except ValueError as exc:
                raise EncodeError(where, f"not an ISO timestamp: {exc}") from None
        return value
    if info.kind == "bytes":
        return parse_bytes(value, where)
    if info.kind == "list":
        if not isinstance(value, (list, tuple)):
            raise EncodeError(where, f"expected a list, got {type(value).__name__}")
        return tuple(_field_from_plain(info.detail, item, f"{where}[{index}]") for index, item in enumerate(value))
    if info.kind == "struct":
        return from_plain(info.detail, value, where + ".")
    if info.kind == "switch":
        if not isinstance(value, dict) or len(value) != 1:
            raise EncodeError(where, "expected an object with exactly one message type as key")
        (name, body), = value.items()
        for case, cls in info.detail:
            if case == name:
                return from_plain(cls, body, where + "." + name + ".")
        raise EncodeError(where, f"unknown message type {name!r}; expected one of "
                                 f"{', '.join(case for case, _ in info.detail)}")
    return value


def json_text(value) -> str:
    """value as one line of JSON, readable text where it can be: a lone surrogate (Java writes them
    in JSON, as EventMesh's Jackson does) cannot be encoded as UTF-8 on the way out, so then every
    non-ASCII character is escaped instead."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def protobuf_plain(message, leave_out: str | None = None) -> dict:
    """A protobuf message (TubeMQ's RPC bodies, EventMesh's gRPC messages) as JSON-able data (json_format's
    mapping: every set field under its own name, int64 as a decimal string, bytes as base64, an enum by its
    name), except that a string field holding bytes that are not UTF-8 is shown as {"hex": ...}: json_format
    would print str(bytes), "b'...'", which reads as text that was never sent; map entries come in key order.
    leave_out names a field shown elsewhere."""
    from google.protobuf import json_format

    out = _mend_strings(message, json_format.MessageToDict(message, preserving_proto_field_name=True))
    if leave_out is not None:
        out.pop(leave_out, None)
    return out


def _mend_strings(message, out: dict) -> dict:
    """Walk the set fields beside their json_format rendering and replace what it made of non-UTF-8 text."""
    for field, value in message.ListFields():
        repeated = field.is_repeated
        if field.type == field.TYPE_STRING:
            if repeated and any(isinstance(item, bytes) for item in value):
                out[field.name] = [render_text(item) for item in value]
            elif not repeated and isinstance(value, bytes):
                out[field.name] = render_text(value)
        elif field.type in (field.TYPE_MESSAGE, field.TYPE_GROUP) and field.name in out:
            if field.message_type.GetOptions().map_entry:
                # upb iterates a map in an order that differs from process to process (EventMesh's CloudEvent
                # attributes): sorted, a message renders the same everywhere (Spark workers, diffs of output)
                out[field.name] = dict(sorted(out[field.name].items()))
                continue
            for item, rendered in zip(value, out[field.name]) if repeated else ((value, out[field.name]),):
                _mend_strings(item, rendered)
    return out


def printable(text: str) -> str:
    """text with every character that repr escapes (C0 and C1 controls such as ESC and CSI, DEL, line
    breaks, format characters such as bidi overrides) written as repr writes it (\\x1b, \\n, \\u202e), so that
    frame content printed to a terminal can neither drive it nor hide text. inspect shows values by repr;
    this is the same rule for text shown bare (table and CSV cells, error lines): quotes and backslashes
    stay as they are."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)

"""EventMeshFrame's payload layer: what the new runtime makes of a decoded frame (specs/eventmesh/eventmesh_frame.ksy).

The frame codec is generated; this module reads a decoded frame further, the way the runtime's own readers do
(docs/protocols/eventmesh.md, section 5): the attributes as an ordered map (a name written twice keeps its
first place and its last value, as Java's LinkedHashMap does), the flags by name, the data as text where the
frame type says it is text (STREAM_REQ's prompt, STREAM_CHUNK's chunk) and, for EVENT frames, the CloudEvent
(inlong_proto.eventmesh.convert.event_from_frame). Builders make frames of the three kinds; lengths and counts
are derived by the generated encoder. No I/O.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field

from inlong_proto.core.errors import EncodeError
from inlong_proto.core.plain import utf8_or_none
from inlong_proto.generated.codec.eventmesh.eventmesh_wire_frame import Attribute, EventmeshWireFrame, MsgType

# the frame types whose data is UTF-8 text (upstream's str(data) on toStreamRequest / toChunk)
_TEXT_TYPES = (MsgType.stream_req, MsgType.stream_chunk)


@dataclass(frozen=True)
class FramePayload:
    """One EventMeshFrame as the runtime reads it."""

    msg_type: MsgType
    seq: int
    done: bool
    has_error: bool
    has_meta: bool
    attributes: tuple[tuple[str, str], ...]  # as on the wire, in order, duplicates kept
    data: bytes
    warnings: tuple[str, ...] = field(default=())

    @property
    def message_type(self) -> str:
        return self.msg_type.name

    @property
    def attribute_map(self) -> dict[str, str]:
        """The attributes as upstream's decode keeps them: insertion order, the last value of a repeated name."""
        out: dict[str, str] = {}
        for name, value in self.attributes:
            out[name] = value
        return out

    @property
    def text(self) -> str | None:
        """The data as text: a stream frame's prompt or chunk, or an EVENT's data when it is valid UTF-8."""
        return utf8_or_none(self.data)

    # every key to_dict can give (decode -e / -Y check paths against it)
    JSON_KEYS = ("msg_type", "seq", "done", "has_error", "has_meta", "attributes", "data", "data_base64",
                 "warnings")

    def to_dict(self) -> dict:
        out = {"msg_type": self.msg_type.name, "seq": self.seq, "done": self.done, "has_error": self.has_error,
               "has_meta": self.has_meta, "attributes": self.attribute_map}
        text = self.text
        if text is not None:
            out["data"] = text
        else:
            out["data_base64"] = base64.b64encode(self.data).decode("ascii")
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def read(message: EventmeshWireFrame) -> FramePayload:
    """The FramePayload of a decoded frame (the generated message)."""
    pairs = tuple((a.name, a.value) for a in message.attributes)
    names = [name for name, _ in pairs]
    warnings = tuple(f"attribute {name!r} is written {names.count(name)} times; upstream keeps the last value"
                     for name in dict.fromkeys(names) if names.count(name) > 1)
    if message.msg_type not in _TEXT_TYPES and (message.done or message.has_error or message.has_meta):
        warnings += (f"flags {message.flags:#x} on a {message.msg_type.name} frame (only STREAM_CHUNK sets flags)",)
    if message.msg_type in _TEXT_TYPES:
        try:
            message.data.decode("utf-8")
        except UnicodeDecodeError:
            warnings += ("the data is not UTF-8 text (upstream reads it with replacement characters)",)
    return FramePayload(msg_type=MsgType(message.msg_type), seq=message.seq, done=message.done,
                        has_error=message.has_error, has_meta=message.has_meta, attributes=pairs,
                        data=bytes(message.data), warnings=warnings)


def describe(message, direction: str | None):
    """The runtime's extension hook: (message type, direction, FramePayload) of a decoded frame. Frames have
    no direction of their own (they travel through storage, not one connection)."""
    payload = read(message)
    return payload.message_type, direction, payload


def payload(frame_or_message, direction: str | None = None) -> FramePayload:
    """`decode --payload`'s reader: the FramePayload of a Frame or of a decoded message."""
    message = getattr(frame_or_message, "message", frame_or_message)
    return read(message)


# ------------------------------------------------------------------------------------------- builders
def _pairs(attributes) -> tuple[Attribute, ...]:
    items = attributes.items() if isinstance(attributes, dict) else attributes
    out = []
    for index, item in enumerate(items):
        try:
            name, value = item
        except (TypeError, ValueError):
            raise EncodeError(f"attributes[{index}]", "expected a (name, value) pair") from None
        if not isinstance(name, str) or not isinstance(value, str):
            raise EncodeError(f"attributes[{index}]", "names and values are str (upstream writes toString())")
        out.append(Attribute(name=name, value=value))
    return tuple(out)


def _data(data) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    raise EncodeError("data", f"expected bytes or str, got {type(data).__name__}")


def frame(msg_type, attributes=(), data=b"", *, seq: int = 0, done: bool = False, has_error: bool = False,
          has_meta: bool = False) -> EventmeshWireFrame:
    """A frame of any type; attributes a dict or (name, value) pairs, kept in order."""
    flags = (1 if done else 0) | (2 if has_error else 0) | (4 if has_meta else 0)
    return EventmeshWireFrame(msg_type=MsgType(msg_type), flags=flags, seq=seq, attributes=_pairs(attributes),
                          data=_data(data))


def event_frame(attributes, data=b"") -> EventmeshWireFrame:
    """An EVENT frame (upstream's EventMeshFrame.event / fromCloudEvent): flags 0, seq 0."""
    return frame(MsgType.event, attributes, data)


def chunk_frame(session_id: str, seq: int, chunk: str = "", *, done: bool = False, error: str | None = None,
                event_type: str | None = None, meta_json: str | None = None) -> EventmeshWireFrame:
    """A STREAM_CHUNK as upstream's fromChunk writes it: sid, then err (hasError), etype, meta (hasMeta), in
    that order, the empty or absent ones left out."""
    attributes = [("sid", session_id or "")]
    if error:
        attributes.append(("err", error))
    if event_type:
        attributes.append(("etype", event_type))
    if meta_json:
        attributes.append(("meta", meta_json))
    return frame(MsgType.stream_chunk, attributes, chunk or "", seq=seq, done=done, has_error=bool(error),
                 has_meta=bool(meta_json))


def request_frame(session_id: str, prompt: str = "", *, reply_to: str | None = None, model: str | None = None,
                  conversation_id: str | None = None) -> EventmeshWireFrame:
    """A STREAM_REQ as upstream's fromRequest writes it: sid, then replyTo, model, conv when not empty."""
    attributes = [("sid", session_id or "")]
    for name, value in (("replyTo", reply_to), ("model", model), ("conv", conversation_id)):
        if value:
            attributes.append((name, value))
    return frame(MsgType.stream_req, attributes, prompt or "")

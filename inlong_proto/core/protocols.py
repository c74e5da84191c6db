"""Protocol registry: each protocol is one generated frame codec, or one per direction when requests and
responses have different layouts (DataProxy), or a stream protocol's decoder, plus what the runtime needs to
know of them. All of it comes from the specs' `registry` blocks (generated/registry.py, tools/ksygen/registry.py):
nothing here is a table kept by hand."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType

from inlong_proto.core.errors import InlongProtoError
from inlong_proto.generated.registry import PROTOCOLS as REGISTRY

DIRECTIONS = ("request", "response")


def _registered(key: str) -> dict:
    return {name: entry[key] for name, entry in REGISTRY.items() if entry.get(key)}


# Runtime layers above a protocol's generated frame codec: describe(message, direction) returns
# (message type, direction, payload object with to_dict()) and raises DecodeError for a bad payload.
EXTENSIONS = _registered("extension")
# Optional readers of what a frame carries, for `decode --payload`: payload(frame) -> object with to_dict().
PAYLOAD_READERS = _registered("payload_reader")
# The class of each protocol's payload (decode's "payload" key), with JSON_KEYS: the keys its to_dict gives.
PAYLOAD_TYPES = _registered("payload_type")  # module:Class (protocols.function loads it)
# Protocols that are not one spec's frames (HTTP/1.1 streams; HTTP/2 + gRPC): each module provides
# iter_messages(data: bytes, direction: str | None, mode: str) -> Iterator[object with to_dict()],
# HttpStreamDecoder (its incremental decoder, under that name) and MESSAGE_TYPES (with JSON_KEYS).
STREAM_PROTOCOLS = _registered("module")
# The compiled payload layer of a protocol: an extension module of the package (inlong_proto.backends.compiled).
COMPILED_LAYERS = _registered("compiled_layer")
# The Info column of decode's table: each protocol's pieces of text with {dotted.path} placeholders (registry/summary).
SUMMARIES = _registered("summary")
# What a frame means to the audit (inlong_proto.audit): module:function(frame, direction) giving core.audit_events.
AUDIT_READERS = _registered("audit_reader")
# Which way a frame of a raw dump went where its bytes fit both layouts: module:function(message) -> direction.
DUMP_DIRECTIONS = _registered("dump_direction")
# What `inlong-proto replay` sends: module:function(request, number) -> a captured request's bytes, renumbered.
REPLAYERS = _registered("replay")
# Protocols no upstream implements: their specs define them (their vectors are the spec's examples).
SPEC_DEFINED = frozenset(name for name, entry in REGISTRY.items() if entry.get("upstream") is False)
# The folder of each protocol's frame vectors under tests/vectors (the protocol's name unless the spec says).
VECTOR_FOLDERS = {name: entry.get("vectors", name) for name, entry in REGISTRY.items()}
# The real servers' default ports: a capture's flow with no other clue is the protocol of its server port.
SERVER_PORTS = {port: name for name, entry in REGISTRY.items() for port in entry["ports"]}
# Detection order: stream openings first, then the framed protocols (ties go to the earlier).
DETECT_ORDER = tuple(REGISTRY)


def connection_context(name: str):
    """A fresh instance of the state both directions of a connection of this protocol share (HTTP/2's
    streams and calls), or None when each direction stands alone."""
    path = REGISTRY.get(canonical(name), {}).get("connection")
    return None if path is None else function(path)()


@cache
def function(path: str):
    """What a registry key names as module:name: a function (audit-reader, dump-direction, replay) or a class
    (connection)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


class UnknownProtocolError(InlongProtoError, ValueError):
    """A protocol name that no spec defines."""


@dataclass(frozen=True)
class Codec:
    """One generated frame module; direction is None when its frame type carries both directions."""

    direction: str | None
    module: ModuleType
    describe: object = None
    message_field: str | None = field(init=False)
    message_types: dict = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "message_field", self.module.MESSAGE_FIELD)
        object.__setattr__(self, "message_types", self.module.MESSAGE_TYPES)

    def message_of(self, message) -> tuple[str, str | None]:
        """(message type, direction) of a decoded frame, from the spec's -inlong annotations."""
        body = getattr(message, self.message_field) if self.message_field else message
        message_type, direction = self.message_types.get(type(body)) or (type(body).__name__, None)
        return message_type, self.direction or direction


@dataclass(frozen=True)
class Protocol:
    name: str
    codecs: tuple[Codec, ...]

    @property
    def frame_types(self) -> tuple[type, ...]:
        return tuple(codec.module.FRAME for codec in self.codecs)

    @property
    def max_frame_size(self) -> int:
        return max(codec.module.MAX_FRAME_SIZE for codec in self.codecs)

    @property
    def header_size(self) -> int:
        return min(codec.module.HEADER_SIZE for codec in self.codecs)

    @property
    def directional(self) -> bool:
        return self.codecs[0].direction is not None

    def candidates(self, direction: str | None) -> tuple[Codec, ...]:
        """The codecs to try for bytes sent in `direction` (all of them when it is not known)."""
        if direction is None or not self.directional:
            return self.codecs
        return tuple(codec for codec in self.codecs if codec.direction == direction)

    def frame_type_for(self, direction: str | None) -> type:
        """The frame class that bytes sent in `direction` decode to (the first layout if unknown)."""
        return self.candidates(direction)[0].module.FRAME

    def codec_of(self, message) -> Codec | None:
        for codec in self.codecs:
            if type(message) is codec.module.FRAME:
                return codec
        return None


def names() -> list[str]:
    """The framed protocols: one generated frame codec (or one per direction) each."""
    from inlong_proto.generated.codec import PROTOCOLS

    return sorted(PROTOCOLS)


def every_name() -> list[str]:
    """Every protocol a reader takes: the framed ones and the STREAM_PROTOCOLS."""
    return sorted([*names(), *STREAM_PROTOCOLS])


def checked(name: str) -> str:
    """The project's spelling of any protocol name (framed or stream); UnknownProtocolError otherwise."""
    spelt = canonical(str(name).strip())
    if spelt not in STREAM_PROTOCOLS:
        get(spelt)  # the framed protocols' error, listing them
    return spelt


@cache
def canonical(name: str) -> str:
    """A protocol name as the project spells it: words joined by hyphens (eventmesh-legacy, eventmesh-http).
    The underscore spelling is read too, since Spark columns and Python names need it (column_name)."""
    spelt = name.replace("_", "-")
    return spelt if spelt in names() or spelt in STREAM_PROTOCOLS else name


def column_name(name: str) -> str:
    """The identifier of a protocol where one is needed: its struct column in Spark's auto schema."""
    return name.replace("-", "_")


def get(name: str) -> Protocol:
    return _get(canonical(name))


@cache
def _get(name: str) -> Protocol:
    from inlong_proto.generated.codec import PROTOCOLS

    if name in STREAM_PROTOCOLS:
        raise UnknownProtocolError(f"{name} is read as a stream of HTTP messages, not as frames of one layout: "
                                   f"frames.iter_frames and frames.stream_decoder read it")
    if name not in PROTOCOLS:
        raise UnknownProtocolError(f"unknown protocol {name!r}; known: {', '.join(every_name())}")
    extension = EXTENSIONS.get(name)
    describe = importlib.import_module(extension).describe if extension else None
    return Protocol(name, tuple(Codec(direction, importlib.import_module(module), describe)
                                for direction, module in PROTOCOLS[name]))

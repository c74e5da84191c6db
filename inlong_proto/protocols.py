"""Protocol registry: each protocol is a generated frame codec module plus what the runtime needs of it."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from .errors import InlongProtoError

DIRECTIONS = ("request", "response")


class UnknownProtocolError(InlongProtoError, ValueError):
    """A protocol name that no spec defines."""


@dataclass(frozen=True)
class Protocol:
    """One wire protocol as the runtime sees it; everything here comes from the generated module."""

    name: str
    codec: ModuleType

    @property
    def frame_type(self) -> type:
        return self.codec.FRAME

    @property
    def max_frame_size(self) -> int:
        return self.codec.MAX_FRAME_SIZE

    @property
    def header_size(self) -> int:
        return self.codec.HEADER_SIZE

    def message_of(self, message) -> tuple[str, str | None]:
        """(message type, direction) of a decoded frame, from the spec's -inlong annotations."""
        body = getattr(message, self._message_field) if self._message_field else message
        return self._message_types.get(type(body)) or (type(body).__name__, None)

    def __post_init__(self):
        object.__setattr__(self, "_message_field", self.codec.MESSAGE_FIELD)
        object.__setattr__(self, "_message_types", self.codec.MESSAGE_TYPES)


def names() -> list[str]:
    from .generated.codec import PROTOCOLS

    return sorted(PROTOCOLS)


@cache
def get(name: str) -> Protocol:
    from .generated.codec import PROTOCOLS

    if name not in PROTOCOLS:
        raise UnknownProtocolError(f"unknown protocol {name!r}; known: {', '.join(sorted(PROTOCOLS))}")
    return Protocol(name, importlib.import_module(PROTOCOLS[name]))

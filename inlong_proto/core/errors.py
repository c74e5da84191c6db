"""One error family for every protocol: where in the input, which field, and why."""
from __future__ import annotations

from typing import NamedTuple


class InlongProtoError(Exception):
    """Base of every error the public API raises on purpose."""


class DecodeError(InlongProtoError, ValueError):
    """Input bytes that do not form a valid frame.

    offset is absolute in the buffer (or stream) handed to the API; field is a dotted path such as
    ``body.last_timestamp.month``; reason says what is wrong in words. A reason never holds a position:
    positions live in attributes that ``shifted`` moves, so the same bytes give the same text whichever
    buffer (a whole dump, a trimmed stream buffer, a split's window) they were found in.
    """

    kind = "invalid"
    where = ""  # in a capture: the flow and direction whose stream the offset is in (capture.in_flow)

    def __init__(self, offset: int, field: str, reason: str):
        self.offset, self.field, self.reason = offset, field, reason
        where = f" in {field}" if field else ""
        super().__init__(f"offset {offset}{where}: {reason}")

    def shifted(self, delta: int) -> "DecodeError":
        """The same error with its offset moved by delta (for frames found inside a larger stream)."""
        return type(self)(self.offset + delta, self.field, self.reason)


class Claim(NamedTuple):
    """The length field that claims the bytes a sized field needs: its path, where it is, its value."""

    field: str
    offset: int
    value: int


class TruncatedError(DecodeError):
    """The input ends before the frame does.

    offset is where the input (or the region bounding the field) ended. claim, when a length field sized
    what is missing, names that field; where the frame's own size says the bytes should be there, the
    runtime reports the overrun at the claim instead (frames.decode_with).
    """

    kind = "truncated"

    def __init__(self, offset: int, field: str, reason: str, claim: Claim | None = None):
        super().__init__(offset, field, reason)
        self.claim = claim

    def shifted(self, delta: int) -> "TruncatedError":
        claim = self.claim
        if claim is not None:
            claim = claim._replace(offset=claim.offset + delta)
        return type(self)(self.offset + delta, self.field, self.reason, claim)


class ValidationError(DecodeError):
    """A field holds a value the spec does not allow (bad magic, out of range, unknown enum, ...)."""


class FrameTooLargeError(DecodeError):
    """A length field claims more than max_frame_size; nothing that large is ever buffered."""

    kind = "too_large"


class LimitError(DecodeError):
    """A stream decoder's limit (inlong_proto.core.stream.Limits) was crossed: what was over it is not kept, and the
    stream goes on. The reason names the limit and its value."""

    kind = "limit"


class DumpDecodeError(DecodeError):
    """A DecodeError that also names the file it is in, so a failed FAILFAST read says where to look (the Spark
    readers' and the command line's whole-file output alike)."""

    def __init__(self, path: str, offset: int, field: str, reason: str, kind: str = DecodeError.kind,
                 where: str = ""):
        super().__init__(offset, field, reason)
        self.path, self.kind, self.where = path, kind, where
        self.args = (f"{path}: {where + ', ' if where else ''}{self.args[0]}",)

    @classmethod
    def of(cls, path: str, error: DecodeError) -> "DumpDecodeError":
        return cls(path, error.offset, error.field, error.reason, error.kind, error.where)

    def shifted(self, delta: int) -> "DumpDecodeError":
        return type(self)(self.path, self.offset + delta, self.field, self.reason, self.kind, self.where)


class EncodeError(InlongProtoError, ValueError):
    """A value that cannot be put on the wire as the spec says."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(f"{field}: {reason}" if field else reason)


class FieldInfo(NamedTuple):
    """What generated code tells the runtime about one field (see tools/ksygen)."""

    name: str
    kind: str  # int, float, enum, bytes, str, datetime, struct, switch
    arrow: str
    detail: object  # enum class, struct class, or ((case name, class), ...) for a switch
    derived: bool  # computed on encode (lengths, discriminators)
    default: object = NotImplemented  # the value a message takes when the field is left out, if any


def truncated(path: str, pos: int, end: int, layout: tuple) -> TruncatedError:
    """Name the first field of a fixed-size run that the input cuts (where it ends is the offset)."""
    available = end - pos
    for offset, name, size in layout:
        if offset + size > available:
            return TruncatedError(end, path + name, f"needs {size} bytes, only {max(0, available - offset)} "
                                                    f"available")
    return TruncatedError(end, path, "input ends early")

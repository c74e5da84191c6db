"""The stream-decoder contract every stream decoder builds on: framed (frames.StreamDecoder), HTTP/1.1
(eventmesh.http) and HTTP/2 + gRPC (eventmesh.h2).

One receive buffer with the stream offset of its first byte, one failure latch, the three modes, and named
limits with a byte budget, so that no length field, header block, body or count of open calls can make a
decoder hold more than its limits say, whatever the input. Crossing a limit never stops a stream: the call,
message or span concerned becomes an error item naming the limit and its value, and decoding goes on.

    decoder.feed(data) -> items      # bytes as they arrive, split anywhere
    decoder.close() -> items         # the end of the stream
    decoder.buffered                 # input bytes held back
    decoder.retained                 # bytes of decoded state held (headers, bodies, open calls)
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from inlong_proto.core.errors import DecodeError, LimitError
from inlong_proto.core.protocols import DIRECTIONS

MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")
KiB, MiB = 1 << 10, 1 << 20


def check_mode(mode: str) -> str:
    mode = mode.upper()
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def check_direction(direction: str | None) -> None:
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"direction must be request, response or None, not {direction!r}")


@dataclass(frozen=True)
class Limits:
    """What one connection's stream decoders may hold. The defaults are what the real peers allow, so a
    capture of traffic they accept decodes whole; anything beyond is refused there too.

    Every limit is a count of bytes (or of items) on the wire's terms, not of Python memory."""

    #: Decoded bytes of one HTTP/2 header list (name + value + 32 per field, RFC 9113 section 6.5.2): grpc-java's
    #: and Netty's default SETTINGS_MAX_HEADER_LIST_SIZE (8 KiB). A larger list is an error span; the HPACK table
    #: stays in step. Its encoded block may not exceed it either (a field never decodes to fewer bytes than it
    #: takes on the wire), so a HEADERS + CONTINUATION run is refused as soon as it passes this size.
    max_header_list: int = 8 * KiB
    #: The HPACK dynamic table size a peer may set (a size update over it is a COMPRESSION_ERROR for the peers;
    #: here the direction's table is lost). HTTP/2's SETTINGS_HEADER_TABLE_SIZE default is 4 KiB; a decoder joining
    #: mid-connection keeps this much so as never to hold less than the peer did.
    max_hpack_table: int = 64 * KiB
    #: One gRPC message, as sent and inflated: grpc-java's default maxInboundMessageSize (4 MiB), which EventMesh's
    #: gRPC server keeps.
    max_message: int = 4 * MiB
    #: One EventMesh HTTP body: EventMesh's 4 MiB frame bound (FRAME_MAX_LENGTH of its TCP codec, the largest
    #: event the runtime takes on any transport).
    max_body: int = 4 * MiB
    #: Calls (HTTP/2 streams) open at once on one connection. HTTP/2 leaves SETTINGS_MAX_CONCURRENT_STREAMS
    #: unlimited by default and RFC 9113 asks for at least 100; past this, the oldest open call is emitted as
    #: incomplete.
    max_open_calls: int = 1000
    #: Messages a call record holds in each direction; the rest are items of their own (they always are).
    max_call_messages: int = 100
    #: Bytes of decoded state one connection holds in all: header lists, the messages of open call records,
    #: partial messages and open calls (CALL_COST each). Over it, a call stops being retained.
    max_retained: int = 64 * MiB

    def __post_init__(self):
        for item in fields(self):
            value = getattr(self, item.name)
            if type(value) is not int or value < 1:
                raise ValueError(f"limit {item.name} must be a positive int, not {value!r}")


DEFAULT_LIMITS = Limits()
CALL_COST = 1 * KiB  # what an open call's bookkeeping is charged to the budget, besides what it retains


class Budget:
    """The bytes of decoded state one connection holds, against Limits.max_retained."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0

    def take(self, size: int) -> bool:
        """Charge size bytes if they fit; False (nothing charged) if they would cross the limit."""
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def give(self, size: int) -> None:
        self.used -= size


def over_limit(offset: int, field: str, name: str, value: int, what: str) -> LimitError:
    return LimitError(offset, field, f"{what}: over {name} ({value})")


class StreamDecoderBase:
    """The receive buffer, its stream offset, the failure latch and the modes that every stream decoder shares.

    A subclass implements _loop(out, final), appending items, and _keep(): the first buffer index still
    needed afterwards (everything before it is dropped and the base offset moves on). FAILFAST: the first
    DecodeError is raised; items decoded before it in the same call are returned first, and the error is
    raised again by every later call.
    """

    def __init__(self, direction: str | None, mode: str, offset: int):
        check_direction(direction)
        self.direction, self.mode = direction, check_mode(mode)
        self._buf = bytearray()
        self._base = offset  # stream offset of _buf[0]
        self._failed: DecodeError | None = None

    @property
    def buffered(self) -> int:
        """Input bytes held back (the rest of a frame, message head or span still to come)."""
        return len(self._buf)

    @property
    def retained(self) -> int:
        """Bytes of decoded state held beside the buffer (0 for decoders that hold none)."""
        return 0

    def feed(self, data: bytes) -> list:
        return self._run(data, final=False)

    def close(self) -> list:
        return self._run(b"", final=True)

    def _run(self, data: bytes, final: bool) -> list:
        if self._failed is not None:
            raise self._failed
        self._buf += data
        out: list = []
        try:
            self._loop(out, final)
        except DecodeError as exc:
            self._failed = exc
            if not out:
                raise
        keep = self._keep()
        if keep > 0:
            del self._buf[:keep]
            self._base += keep
            self._dropped(keep)
        return out

    def _loop(self, out: list, final: bool) -> None:
        raise NotImplementedError

    def _keep(self) -> int:
        raise NotImplementedError

    def _dropped(self, count: int) -> None:
        """Buffer indices held by the subclass move back by count (the buffer's head was dropped)."""

    def _at(self, index: int) -> int:
        return self._base + index

    def _report(self, out: list, item, error: DecodeError) -> None:
        """An error item by the mode: raised (FAILFAST), kept (PERMISSIVE) or left out (DROPMALFORMED)."""
        if self.mode == "FAILFAST":
            raise error
        if self.mode == "PERMISSIVE":
            out.append(item)

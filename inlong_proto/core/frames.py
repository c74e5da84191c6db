"""The sans-IO core: decode, encode, iter_frames and StreamDecoder over any registered protocol."""
from __future__ import annotations

import re
import struct
from functools import lru_cache
from typing import Iterator, NamedTuple

from inlong_proto.core import protocols
from inlong_proto.core.block_walks import Chains
from inlong_proto.core.errors import DecodeError, EncodeError, FrameTooLargeError, TruncatedError, ValidationError
from inlong_proto.core.stream import MODES, StreamDecoderBase, check_direction, check_mode  # noqa: F401 (MODES: frames.MODES)
from inlong_proto.core.plain import render_bytes, to_plain

_tuple_new = tuple.__new__


class Frame(NamedTuple):
    """One decoded frame (or, in PERMISSIVE mode, one malformed span with its error).

    offset/length locate the frame in the input; message is the generated message object; for an error
    span, error says what is wrong and raw holds its bytes, so nothing is silently dropped.
    """

    protocol: str
    offset: int
    length: int
    message: object | None
    message_type: str | None
    direction: str | None
    error: DecodeError | None = None
    raw: bytes | None = None
    payload: object | None = None  # what the protocol's extension decoded inside the frame (TubeMQ RPC)

    def to_dict(self) -> dict:
        out = {"protocol": self.protocol, "offset": self.offset, "length": self.length,
               "message_type": self.message_type, "direction": self.direction}
        if self.error is not None:
            out["error"] = {"kind": self.error.kind, "offset": self.error.offset, "field": self.error.field,
                            "reason": self.error.reason}
            out["raw"] = render_bytes(self.raw or b"")
        else:
            out.update(to_plain(self.message))
            if self.payload is not None:
                out["payload"] = self.payload.to_dict()
        return out




def build_frame(proto: protocols.Protocol, codec: protocols.Codec, message, offset: int, length: int,
                direction: str | None, ambiguous: bool, pos: int) -> Frame:
    """A decoded message as a Frame (public: the compiled scanner builds its frames the same way).

    offset: the frame's offset in the whole stream; pos: in the buffer being scanned. Errors raised
    here are buffer-relative like the codec's own, since the caller shifts them into the stream."""
    payload = None
    if codec.describe is not None:  # a payload layer (TubeMQ's protobuf stream) names the message
        try:
            message_type, actual, payload = codec.describe(message, direction)
        except DecodeError as exc:
            raise exc.shifted(pos) from None
    else:
        message_type, actual = codec.message_of(message)
    if ambiguous:
        actual = None  # the bytes are valid in both directions; say so rather than guess
    elif direction is not None and actual is not None and actual != direction:
        raise ValidationError(pos, codec.message_field or "",
                              f"a {message_type} is a {actual}, but direction={direction} was asked for")
    return _tuple_new(Frame, (proto.name, offset, length, message, message_type, actual, None, None, payload))


def _frame_size(codec: protocols.Codec, buf, pos: int, end: int, max_frame_size: int) -> int | None:
    """Probe the header; refuse sizes over the limit before anything is buffered."""
    if codec.module.frame_length is None:
        return None
    size = codec.module.frame_length(buf, pos, end)
    if size is not None and size > max_frame_size:
        raise FrameTooLargeError(pos, "", f"frame claims {size} bytes, over max_frame_size {max_frame_size}")
    return size


def decode_with(codec: protocols.Codec, view, pos: int, end: int, limit: int, chains: Chains | None = None):
    """(message, size) of the frame at pos; (None, size or None) if more bytes are needed.

    The generated decoder runs first, bounded by the frame's own length fields; the header probe runs
    only when it stops short, to tell "wait for more bytes" from "a field overruns its frame". It sees no
    more than limit + 1 bytes: whatever a length field claims, the outcome at pos depends on
    [pos, pos + limit + 1) alone, so a reader holding that window (a remote split) decides as one holding
    the whole file, and a hostile length never makes a decoder walk further. chains: the scan's memo of
    counted-list walks over this view (TubeMQ's blocks), for layouts that take one; the outcome is the same.
    """
    end = min(end, pos + limit + 1)
    try:
        if chains is not None and codec.module.CHAINS:
            message, stop = codec.module.decode(view, pos, end, "", chains)
        else:
            message, stop = codec.module.decode(view, pos, end)
    except TruncatedError as exc:
        if codec.module.frame_length is None:  # no length header: ran out of input, or too much of it
            if end - pos > limit:
                raise FrameTooLargeError(pos, "", f"no complete frame within max_frame_size {limit} bytes "
                                                  f"({exc.field}: {exc.reason})") from None
            return None, None
        size = _frame_size(codec, view, pos, end, limit)
        if size is None or end - pos < size:
            return None, size
        raise _overrun(exc) from None
    if stop - pos > limit:
        raise FrameTooLargeError(pos, "", f"frame claims {stop - pos} bytes, over max_frame_size {limit}")
    return message, stop - pos


def _overrun(exc: TruncatedError) -> ValidationError:
    """A field that needs more than its frame's declared size holds: the bytes are all there, so the cause
    is a length field, reported where it is with its value (its claim), not where the frame ends."""
    claim = exc.claim
    if claim is None:  # a fixed run cut by the frame's end, or a size no single field claims
        return ValidationError(exc.offset, exc.field, f"overruns the frame's declared size: {exc.reason}")
    return ValidationError(claim.offset, claim.field, f"value {claim.value} overruns the frame's declared size: "
                                                      f"{exc.field} {exc.reason}")


def decode_at(proto: protocols.Protocol, candidates: tuple, view, pos: int, end: int, limit: int,
               base: int, direction: str | None, chains: Chains | None = None) -> tuple[Frame | None, int | None]:
    """The frame at pos decoded with each candidate layout: (frame, size), or (None, size) for more bytes.

    With one candidate (the usual case) this is a plain decode. With several (direction not given for a
    protocol whose requests and responses differ), the layouts that decode win: one is reported with its
    direction, several with direction None; if none does, the first layout's error is raised.
    """
    if len(candidates) == 1:
        codec = candidates[0]
        message, size = decode_with(codec, view, pos, end, limit, chains)
        if message is None:
            return None, size
        return build_frame(proto, codec, message, base + pos, size, direction, False, pos), size
    found, first_error, need = [], None, None
    try:
        for codec in candidates:
            try:
                message, size = decode_with(codec, view, pos, end, limit, chains)
            except DecodeError as exc:
                first_error = first_error or exc
                continue
            if message is None:
                need = (size,)
            else:
                found.append((codec, message, size))
        if found:
            codec, message, size = found[0]
            return build_frame(proto, codec, message, base + pos, size, direction, len(found) > 1, pos), size
        if need is not None:
            return None, need[0]
        raise first_error
    finally:  # a local holding an error whose traceback holds this frame is a cycle, which would keep the
        first_error = None  # callers' frames (a scan's view of a mapped file) alive until a garbage collection


def _probe_size(proto: protocols.Protocol, view, pos: int, end: int, limit: int) -> int | None:
    for codec in proto.codecs:
        try:
            return _frame_size(codec, view, pos, end, limit)
        except DecodeError:
            continue
    return None


def decode(data: bytes, protocol: str, direction: str | None = None, *,
           max_frame_size: int | None = None) -> Frame:
    """Decode exactly one frame that fills `data`."""
    check_direction(direction)
    proto = protocols.get(protocol)
    limit = max_frame_size or proto.max_frame_size
    frame, size = decode_at(proto, proto.candidates(direction), data, 0, len(data), limit, 0, direction)
    if frame is None:
        raise TruncatedError(len(data), "", f"the input holds {len(data)} bytes, the frame needs "
                                            f"{size if size is not None else 'at least ' + str(proto.header_size)}")
    if size != len(data):
        raise ValidationError(size, "", f"{len(data) - size} bytes follow the frame; use iter_frames for streams")
    return frame


def _pure_encode(module, message) -> bytes:
    return module.encode(message)


_encoder = _pure_encode  # the compiled backend replaces it through register_encoder when it is imported


def register_encoder(function) -> None:
    """Send encode() through ``function(module, message)``, which must give the generated ``module.encode``'s
    bytes or raise its error. The compiled backend registers itself here, so the core never imports a backend."""
    global _encoder
    _encoder = function


def encode(frame) -> bytes:
    """Bytes of a Frame or of a generated message; lengths and discriminators are derived."""
    message = frame.message if isinstance(frame, Frame) else frame
    for name in protocols.names():
        codec = protocols.get(name).codec_of(message)
        if codec is not None:
            try:
                return _encoder(codec.module, message)
            except EncodeError:
                raise
            except (TypeError, AttributeError, ValueError, OverflowError, struct.error) as exc:
                raise EncodeError("", f"cannot encode {type(message).__name__}: {exc}") from None
    raise EncodeError("", f"{type(message).__name__} is not a frame of any known protocol")


class Starts:
    """Where a frame of the candidate layouts may begin: their generated START patterns as one regex.

    After a malformed position the scanner tries only these: every other position holds a header that
    the decoder refuses whatever follows, so jumping over it changes nothing but the time taken.
    spark.pieces.DumpWalker finds its candidates the same way, so the two stay identical.
    """

    def __init__(self, proto: protocols.Protocol, direction: str | None, limit: int):
        patterns = []
        for codec in proto.candidates(direction):
            module = codec.module  # START assumes frames of at most MAX_FRAME_SIZE; a larger limit takes any
            pattern = (module.START if limit <= module.MAX_FRAME_SIZE else module.START_ANY).pattern
            if pattern not in patterns:
                patterns.append(pattern)
        self.regex = re.compile(b"|".join(b"(?:%s)" % p for p in patterns) if len(patterns) > 1 else patterns[0],
                                re.DOTALL)
        self.size = max(codec.module.START_SIZE for codec in proto.candidates(direction))

    def next(self, view, pos: int, stop: int, end: int) -> int:
        """The first position in [pos, stop) where a frame may begin (stop if none). Only a position with
        size bytes before end is judged; nearer the end every position is one (it may be waiting for bytes)."""
        upto = min(stop, end - self.size + 1)
        if pos >= upto:
            return min(pos, stop)
        found = self.regex.search(view, pos, upto + self.size - 1)
        return upto if found is None or found.start() > upto else found.start()


@lru_cache(maxsize=None)
def starts(protocol: str, direction: str | None, limit: int) -> Starts:
    """The candidate filter the scanner uses, for readers that walk a buffer themselves (spark.source)."""
    return Starts(protocols.get(protocol), direction, limit)


class Scanner:
    """Finds frames in a buffer, resynchronising past malformed bytes as if one offset at a time.

    A malformed span stays open until a valid frame (or the end of input) closes it, and is cut into
    pieces of at most max_frame_size bytes so that garbage never grows the buffer without bound. After
    a malformed position only the next one where a frame may begin (Starts) is decoded, or the next cut.
    """

    def __init__(self, proto: protocols.Protocol, direction: str | None, mode: str, limit: int):
        self.proto, self.direction, self.mode, self.limit = proto, direction, mode, limit
        self.candidates = proto.candidates(direction)
        self.starts = starts(proto.name, direction, limit)
        self.chained = any(codec.module.CHAINS for codec in self.candidates)
        self.bad_start: int | None = None  # buffer position where the open malformed span began
        self.bad_error: DecodeError | None = None
        self.keep_from = 0  # first buffer position still needed after scan()
        self.stopped_at = 0  # where scan() stopped waiting for more bytes
        self.waiting_for: int | None = None  # the size the frame at stopped_at claims, when it waits on one

    def scan(self, view, pos: int, base: int, final: bool, horizon: int | None = None) -> Iterator[Frame]:
        """horizon: decide no position past it yet (stop there as if waiting for bytes); a reader whose
        view ends short of the file passes its end minus limit + 1, where every decision is final."""
        end = len(view)
        last = end if horizon is None else min(end, horizon + 1)
        chains = Chains() if self.chained else None  # valid for this view only
        self.waiting_for = None
        while pos < last:
            try:
                frame, size = decode_at(self.proto, self.candidates, view, pos, end, self.limit, base,
                                         self.direction, chains)
                if frame is None:
                    if not final:
                        self.waiting_for = size
                        break  # wait for the rest of the frame (at most limit bytes)
                    # The input ends inside what pos claims: malformed, and the bytes after pos are
                    # scanned on, so that a damaged length never swallows the frames behind it.
                    raise self._truncated(view, pos, end)
            except DecodeError as exc:
                error = exc.shifted(base)
                if self.mode == "FAILFAST":
                    raise error from None
                if self.bad_start is None:
                    self.bad_start, self.bad_error = pos, error
                elif pos - self.bad_start >= self.limit:
                    yield from self._close_bad(view, pos, base)
                    self.bad_start, self.bad_error = pos, error
                # On to the next position that may hold a frame, stopping where the span is cut.
                pos = self.starts.next(view, pos + 1, min(last, self.bad_start + self.limit), end)
                continue
            if self.bad_start is not None:
                yield from self._close_bad(view, pos, base)
            yield frame
            pos += size
        self.stopped_at = pos
        if final:
            if self.bad_start is not None:
                yield from self._close_bad(view, end, base)
            pos = end
        self.keep_from = self.bad_start if self.bad_start is not None else pos

    def _truncated(self, view, pos: int, end: int) -> TruncatedError:
        size = _probe_size(self.proto, view, pos, end, self.limit)
        return TruncatedError(end, "", f"input ends inside a frame: {end - pos} of "
                              f"{size if size is not None else 'at least ' + str(self.proto.header_size)}"
                              f" bytes present")

    def _close_bad(self, view, pos: int, base: int) -> Iterator[Frame]:
        start, error = self.bad_start, self.bad_error
        self.bad_start = self.bad_error = None
        if self.mode == "PERMISSIVE":
            yield Frame(self.proto.name, base + start, pos - start, None, None, None, error,
                        bytes(view[start:pos]))


def iter_frames(data: bytes, protocol: str, direction: str | None = None, mode: str = "FAILFAST", *,
                max_frame_size: int | None = None) -> Iterator[Frame]:
    """Every frame in a complete dump, lazily. In PERMISSIVE mode frames and error spans cover every byte.

    A stream protocol (eventmesh-http, eventmesh-grpc) gives its stream decoder's messages instead (HTTP/1.1
    requests and responses; HTTP/2 frames, gRPC messages and calls), max_frame_size unused."""
    check_direction(direction)
    mode = check_mode(mode)
    if protocols.canonical(protocol) in protocols.STREAM_PROTOCOLS:
        decoder = stream_decoder(protocol, direction, mode=mode)
        return iter(decoder.feed(bytes(data)) + decoder.close())
    proto = protocols.get(protocol)
    scanner = Scanner(proto, direction, mode, max_frame_size or proto.max_frame_size)
    return scanner.scan(memoryview(data), 0, 0, final=True)


class StreamDecoder(StreamDecoderBase):
    """Feed bytes as they arrive, split anywhere; get whole frames back. Sans-IO, bounded memory (the
    buffer never holds much more than max_frame_size, whatever a length field claims).

    FAILFAST raises the first DecodeError (frames decoded before it in the same feed are returned first,
    and the error is raised by the next call). PERMISSIVE returns error Frames for malformed spans and
    resynchronises; DROPMALFORMED resynchronises silently. Call close() at end of stream. offset: the
    stream offset of the first byte fed, for a decoder restarted mid-stream (after a capture's gap).
    """

    def __init__(self, protocol: str, direction: str | None = None, *, mode: str = "FAILFAST",
                 max_frame_size: int | None = None, offset: int = 0):
        super().__init__(direction, mode, offset)
        self.proto = protocols.get(protocol)
        self.max_frame_size = max_frame_size or self.proto.max_frame_size
        self._scanner = Scanner(self.proto, direction, self.mode, self.max_frame_size)
        self._resume = 0  # buffer position where scanning continues
        self._retry_at = 0  # buffer length before which a new scan cannot decide anything new

    def _run(self, data: bytes, final: bool) -> list[Frame]:
        if self._failed is None and not final and len(self._buf) + len(data) < self._retry_at:
            self._buf += data
            return []  # still inside a frame whose claimed size is not all here: nothing to decide yet
        return super()._run(data, final)

    def _loop(self, out: list, final: bool) -> None:
        view = memoryview(self._buf)
        scanner = self._scanner
        try:
            for frame in scanner.scan(view, self._resume, self._base, final):
                out.append(frame)
        except DecodeError:
            scanner.keep_from = scanner.stopped_at = len(view)
            raise
        finally:
            view.release()

    def _keep(self) -> int:
        scanner = self._scanner
        keep = scanner.keep_from
        self._resume = scanner.stopped_at - keep
        if scanner.bad_start is not None:
            scanner.bad_start -= keep
        self._retry_at = 0
        if scanner.waiting_for is not None and self._failed is None:
            # The frame at _resume claims waiting_for bytes and cannot end sooner; try again when they are
            # all here, or earlier as the buffer doubles, so that a bad field further on (garbage with a
            # plausible length) is still found in time logarithmic in the claim, not after all of it.
            held = len(self._buf) - keep - self._resume
            self._retry_at = self._resume + min(scanner.waiting_for, max(2 * held, held + 4096))
        return keep


# The largest max_frame_size the CLI and the bulk readers take (a reader holds up to about twice that per
# stream or split): above every spec's own limit (TubeMQ's 3584 blocks, about 28 MiB).
MAX_FRAME_SIZE_CEILING = 64 << 20


def check_max_frame_size(value) -> int | None:
    """A max_frame_size option: None (the spec's own limit, per protocol) or a whole number of bytes in
    [1, MAX_FRAME_SIZE_CEILING]; anything else is a ValueError saying what is accepted."""
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"max_frame_size must be a number of bytes, not {value!r}") from None
    if number != value and str(number) != str(value).strip():
        raise ValueError(f"max_frame_size must be a whole number of bytes, not {value!r}")
    if not 1 <= number <= MAX_FRAME_SIZE_CEILING:
        raise ValueError(f"max_frame_size {number} is out of range: 1 to {MAX_FRAME_SIZE_CEILING} bytes (64 MiB)")
    return number


def stream_decoder(protocol: str, direction: str | None = None, *, mode: str = "FAILFAST", offset: int = 0,
                   connection=None, max_frame_size: int | None = None):
    """The incremental decoder of any protocol `protocols` lists: StreamDecoder for framed ones, the stream
    protocols' decoders (HTTP/1.1, HTTP/2 + gRPC); all take bytes in pieces and give frames back. connection:
    the state both directions of a connection share, for a protocol whose registry entry has one
    (protocols.connection_context). max_frame_size (None: the spec's limit) bounds a framed protocol's
    frames; the stream protocols have their own limits."""
    protocol = protocols.canonical(protocol)
    if protocol in protocols.STREAM_PROTOCOLS:
        import importlib

        module = importlib.import_module(protocols.STREAM_PROTOCOLS[protocol])
        shared = {} if connection is None else {"connection": connection}
        return module.HttpStreamDecoder(direction, mode=mode, offset=offset, **shared)
    return StreamDecoder(protocol, direction, mode=mode, offset=offset, max_frame_size=max_frame_size)


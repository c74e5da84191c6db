"""Which protocol a dump holds, from its first bytes. Sans-IO: bytes in, a protocol name (or None) out.

Every registered protocol is tried on the head of the dump; the one under which the most frames decode
back to back from offset 0 wins:

* EventMesh (both length forms) starts with the magic ``EventMesh`` and TubeMQ with the begin token
  ``FF 7F F4 FE`` (``SIGNATURES``); a protocol whose signature is absent is not tried at all.
* DataProxy and broadcast have no magic: the generated ``frame_length`` probe must accept the header
  (plausible lengths, known message types) and the full decode (every ``valid`` of the spec, the
  payload layer where there is one) must accept the frame, and the next ones after it.

Up to ``PROBE_FRAMES`` frames are decoded. Each complete frame scores 2; a head that ends inside a
frame whose header is plausible scores 1 for that frame (a dump whose first frame is larger than the
head, or a single truncated frame); reaching the end of ``data`` exactly on a frame boundary adds 1.
Decoding stops at the first malformed frame, so corruption later in the dump does not matter, but a
dump whose *first* frame is malformed matches nothing. Ties go to the earlier name in ``ORDER`` (the
current EventMesh form before the legacy one, which reads the same magic).

Stream protocols have exact openings, declared in their registry entry (``detect``: an ``opening``,
``patterns`` that must match at the first byte, or a ``probe`` function), and are tried first. ``classify``
is the one "auto" rule every reader follows: content (stream openings, then the framed scores, client first),
then the server port the registry gives.
"""
from __future__ import annotations

import importlib
import re
from functools import cache

from inlong_proto.core import protocols
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import decode_at

# Leading bytes every frame of a protocol starts with: the `contents` of its frame types' first field,
# as the generator emits it (LEADING); protocols without one are found by their length headers.
def _signature(name: str) -> bytes | None:
    leading = {getattr(frame_type, "LEADING", None) for frame_type in protocols.get(name).frame_types}
    return leading.pop() if len(leading) == 1 else None  # None: no layout, or layouts that differ


SIGNATURES = {name: signature for name in protocols.names() if (signature := _signature(name)) is not None}
ORDER = tuple(name for name in protocols.DETECT_ORDER if name not in protocols.STREAM_PROTOCOLS)
PROBE_FRAMES = 4
HEAD_SIZE = 1 << 20  # what a caller should pass when it has more: enough for several frames of any protocol


def candidates() -> list[str]:
    """The protocols detect() tries, in tie-breaking order (ORDER first, then any newer ones)."""
    names = protocols.names()
    return [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]


def score(data: bytes, protocol: str) -> int:
    """How well the start of data reads as `protocol` (0: not at all); see the module doc."""
    signature = SIGNATURES.get(protocol)
    if signature is not None and not bytes(data[:len(signature)]) == signature:
        return 0
    proto = protocols.get(protocol)
    codecs = proto.candidates(None)
    limit, end = proto.max_frame_size, len(data)
    pos = points = frames = 0
    while frames < PROBE_FRAMES and pos < end:
        try:
            frame, _ = decode_at(proto, codecs, data, pos, end, limit, 0, None)
        except DecodeError:
            return points
        if frame is None:  # the head ends inside this frame
            return points + (1 if _plausible_header(proto, data, pos, end) else 0)
        frames += 1
        points += 2
        pos += frame.length
    return points + (1 if pos == end and frames else 0)


def _plausible_header(proto: protocols.Protocol, data: bytes, pos: int, end: int) -> bool:
    """A frame that the head cuts: its header must pass the probe (or, without one, the signature)."""
    for codec in proto.codecs:
        probe = codec.module.frame_length
        if probe is None:
            return proto.name in SIGNATURES  # the signature matched; nothing more to check cheaply
        try:
            if probe(data, pos, end) is not None:
                return True
        except DecodeError:
            continue
    return False


def detect(data: bytes) -> str | None:
    """The protocol the dump starting with `data` is in, or None if no protocol reads its first frame.

    Pass the whole dump or at least its first HEAD_SIZE bytes; a head that ends inside a frame is fine.
    """
    return best_match(data)[0]


@cache
def _openings() -> tuple:
    """(name, opening bytes, compiled patterns, probe) of every stream protocol, in detection order."""
    out = []
    for name in protocols.DETECT_ORDER:
        if name not in protocols.STREAM_PROTOCOLS:
            continue
        hints = protocols.REGISTRY[name]["detect"]
        opening = hints.get("opening", "").encode("latin-1")
        patterns = tuple(re.compile(p.encode("ascii")) for p in hints.get("patterns", ()))
        probe = None
        if "probe" in hints:
            module, _, function = hints["probe"].partition(":")
            probe = getattr(importlib.import_module(module), function)
        out.append((name, opening, patterns, probe))
    return tuple(out)


def detect_stream(head: bytes) -> str | None:
    """The stream protocol a one-direction dump (or a flow's first bytes) starts with, or None: its opening
    (HTTP/2's client preface: a head that is a prefix of it counts), a pattern matching at the first byte
    (an HTTP/1.1 request or status line), and then the probes (HTTP/2 frames from the first byte: a capture
    begun mid-connection). These are exact, so they are tried before the framed protocols' scores."""
    head = bytes(head)
    stages = _openings()
    for name, opening, patterns, _ in stages:
        if head and opening and opening.startswith(head[:len(opening)]) or any(p.match(head) for p in patterns):
            return name
    for name, _, _, probe in stages:
        if probe is not None and probe(head):
            return name
    return None


STREAM_HEAD = 64  # bytes that settle a stream protocol's opening (HTTP/2's 24-byte preface, an HTTP/1.1 line)


def settle(head: bytes) -> tuple[str | None, bool]:
    """What a one-direction head is (a stream opening, else the framed protocols' best score), and whether more
    bytes could no longer change it: the opening seen in STREAM_HEAD bytes, or PROBE_FRAMES whole frames of
    the best framed protocol (a live reader decides on this before HEAD_SIZE bytes have come)."""
    head = bytes(head)
    stream = detect_stream(head)
    if stream is not None:
        return stream, len(head) >= STREAM_HEAD
    found, points = best_match(head)
    return found, points >= 2 * PROBE_FRAMES


def classify(client_head: bytes, server_head: bytes = b"", server_port: int = 0) -> str | None:
    """The protocol of a connection, or of a one-direction dump (its bytes as client_head): the one "auto"
    rule. Content first (the client's bytes, or the server's when the client sent none: a stream opening, then
    the framed protocols' scores), then the registry's server port; None when nothing says."""
    return settle(client_head or server_head)[0] or protocols.SERVER_PORTS.get(server_port)


def best_match(data: bytes) -> tuple[str | None, int]:
    """detect()'s answer and its score (module doc): a caller holding only part of a stream can tell
    whether the head already reads as PROBE_FRAMES whole frames, the most any protocol can score."""
    data = bytes(data)
    best, best_score = None, 0
    for name in candidates():
        points = score(data, name)
        if points > best_score:
            best, best_score = name, points
    return best, best_score

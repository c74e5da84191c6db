"""A capture or a raw dump through the auditor: chunks of a file in, audited messages out, streaming.

Captures: the capture decoder tells which connections closed (its per-flow totals); each closed connection's
open requests are then unanswered, and its totals are dropped, so memory follows the open connections and the
open requests, not the file.

Raw dumps (audit_dump): one protocol's frames as a file holds them, no times, no connections. A dump of both
directions in order (a relay's, the interleaved dumps of examples/data) is audited as one connection, exactly
as a capture's; requests still open at its end are unanswered. A dump of the requests only (a server's record
file) cannot tell what was answered: while no answer at all has been seen, open requests come out "unknown"
(pairing.NO_ANSWERS), never unanswered. Windows are unknown (no capture time): window_start is None.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator

from inlong_proto.audit.pairing import Auditor
from inlong_proto.audit.readers import dump_direction
from inlong_proto.capture import CaptureDecoder
from inlong_proto.core.frames import stream_decoder

__all__ = ["DUMP_ENDED", "audit_capture", "audit_chunks", "audit_dump"]

DUMP_ENDED = "the dump ended before the answer"


def audit_chunks(chunks: Iterable[bytes], *, timeout: float | None = None, max_frame_size: int | None = None,
                 auditor: Auditor | None = None, decoder: CaptureDecoder | None = None) -> Iterator:
    """AuditedMessage and Delivered items of a capture given as chunks of its bytes."""
    auditor = auditor if auditor is not None else Auditor(timeout=timeout)
    decoder = decoder if decoder is not None else CaptureDecoder("auto", "PERMISSIVE", max_frame_size=max_frame_size)
    seen: Counter = Counter()  # flow number -> its items come out so far
    for chunk in chunks:
        yield from _items(auditor, decoder, decoder.feed(chunk), seen)
    yield from _items(auditor, decoder, decoder.close(), seen)
    yield from auditor.close()


def _items(auditor: Auditor, decoder: CaptureDecoder, items: list, seen: Counter) -> Iterator:
    flows = decoder.flows
    for item in items:
        yield from auditor.feed(item)
        if item.flow is not None:
            number = item.flow.number
            seen[number] += 1
            totals = flows.get(number)
            if totals is not None and totals["closed"] and seen[number] >= _made(totals):
                yield from _end(auditor, flows, seen, number)
    for number in [number for number, totals in flows.items() if totals["closed"] and seen[number] >= _made(totals)]:
        yield from _end(auditor, flows, seen, number)  # closed connections whose last item came earlier


def _made(totals: dict) -> int:
    """The items a connection gave: with protocol "auto" the decoder may hold them back while another flow
    waits to be classified, so a closed connection is over only once all of them came out."""
    return sum(totals["frames"].values()) + sum(totals["errors"].values())


def _end(auditor: Auditor, flows: dict, seen: Counter, number: int) -> Iterator:
    totals = flows.pop(number)
    seen.pop(number, None)
    yield from auditor.end_flow(totals["flow"])


def audit_capture(data: bytes, **kw) -> list:
    """Every audited item of a whole capture in memory (tests, small files)."""
    view = memoryview(data)
    return list(audit_chunks((view[at:at + (1 << 20)] for at in range(0, len(view), 1 << 20)), **kw))


def audit_dump(chunks: Iterable[bytes], protocol: str, *, max_frame_size: int | None = None,
               auditor: Auditor | None = None, name: str = "dump") -> Iterator:
    """AuditedMessage and Delivered items of a raw dump of `protocol` frames given as chunks of its bytes
    (the auditor, if given, should say may_lack_answers=True). Malformed stretches are skipped (PERMISSIVE)."""
    auditor = auditor if auditor is not None else Auditor(may_lack_answers=True)
    decoder = stream_decoder(protocol, None, mode="PERMISSIVE", max_frame_size=max_frame_size)
    for chunk in chunks:
        yield from _dump_frames(auditor, decoder.feed(chunk), name)
    yield from _dump_frames(auditor, decoder.close(), name)
    yield from auditor.close(DUMP_ENDED)


def _dump_frames(auditor: Auditor, frames: list, name: str) -> Iterator:
    for frame in frames:
        if frame.error is None:
            yield from auditor.feed_frame(frame, dump_direction(frame), None, name)

"""A capture through the auditor: chunks of a pcap / pcapng file in, audited messages out, streaming.

The capture decoder tells which connections closed (its per-flow totals); each closed connection's open
requests are then unanswered, and its totals are dropped, so memory follows the open connections and the
open requests, not the file.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from inlong_proto.audit.pairing import Auditor
from inlong_proto.capture import CaptureDecoder

__all__ = ["audit_chunks", "audit_capture"]


def audit_chunks(chunks: Iterable[bytes], *, timeout: float | None = None, max_frame_size: int | None = None,
                 auditor: Auditor | None = None, decoder: CaptureDecoder | None = None) -> Iterator:
    """AuditedMessage and Delivered items of a capture given as chunks of its bytes."""
    auditor = auditor if auditor is not None else Auditor(timeout=timeout)
    decoder = decoder if decoder is not None else CaptureDecoder("auto", "PERMISSIVE", max_frame_size=max_frame_size)
    for chunk in chunks:
        yield from _items(auditor, decoder, decoder.feed(chunk))
    yield from _items(auditor, decoder, decoder.close())
    yield from auditor.close()


def _items(auditor: Auditor, decoder: CaptureDecoder, items: list) -> Iterator:
    for item in items:
        yield from auditor.feed(item)
    for number in [number for number, totals in decoder.flows.items() if totals["closed"]]:
        totals = decoder.flows.pop(number)
        yield from auditor.end_flow(totals["flow"])


def audit_capture(data: bytes, **kw) -> list:
    """Every audited item of a whole capture in memory (tests, small files)."""
    view = memoryview(data)
    return list(audit_chunks((view[at:at + (1 << 20)] for at in range(0, len(view), 1 << 20)), **kw))

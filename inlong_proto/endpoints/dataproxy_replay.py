"""Replaying DataProxy requests (`inlong-proto replay`): each request sent on one connection, its answer
waited for, and a report of what the server accepted. The requests and their fresh ids come from
audit.replay (sans-IO); answers are decoded by the runtime's StreamDecoder and matched as the audit
matches them (audit.readers), so no byte is laid out here.
"""
from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

from inlong_proto.audit.readers import Answer, Sent, events
from inlong_proto.audit.replay import ReplayItem, renumber
from inlong_proto.core.frames import Frame, StreamDecoder, encode

READ_SIZE = 65536


@dataclass
class ReplayReport:
    """What the replay did: sent, accepted (errCode 0) with their records, failed (by error), unanswered."""

    sent: int = 0
    accepted: int = 0
    accepted_records: int = 0
    failed: Counter = field(default_factory=Counter)
    unanswered: int = 0
    by_key: Counter = field(default_factory=Counter)  # (group, stream) -> records accepted
    reason: str | None = None  # why the replay stopped early

    @property
    def ok(self) -> bool:
        return self.sent == self.accepted and self.reason is None

    def to_dict(self) -> dict:
        return {"sent": self.sent, "accepted": self.accepted, "accepted_records": self.accepted_records,
                "failed": sum(self.failed.values()), "errors": dict(self.failed), "unanswered": self.unanswered,
                "accepted_by_group_stream": [{"group": g, "stream": s, "records": n}
                                             for (g, s), n in sorted(self.by_key.items())],
                "stopped": self.reason}


async def replay(host: str, port: int, items: list[ReplayItem], *, rate: float | None = None,
                 timeout: float = 10.0, first_id: int = 1) -> ReplayReport:
    """Send each item (renumbered from first_id) and wait up to timeout seconds for its answer."""
    report = ReplayReport()
    reader, writer = await asyncio.open_connection(host, port)
    decoder = StreamDecoder("dataproxy", "response", mode="PERMISSIVE")
    waiting: list[Frame] = []
    try:
        for number, item in enumerate(items, first_id):
            started = time.monotonic()
            message = renumber(item.message, number)
            data = encode(message)
            frame = Frame("dataproxy", 0, len(data), message, None, "request")
            sent = next(event for event in events(frame, "request") if isinstance(event, Sent))
            writer.write(data)
            await writer.drain()
            report.sent += 1
            answer = await _answer(reader, decoder, waiting, sent.key, timeout)
            if answer is None:
                report.unanswered += 1
                report.reason = "no answer" if not reader.at_eof() else "the server closed the connection"
                break  # one connection, answers in order: a lost one leaves the rest unknown
            if answer.ok:
                report.accepted += 1
                report.accepted_records += item.records
                report.by_key[item.group, item.stream] += item.records
            else:
                report.failed[answer.error or "unknown"] += 1
            if rate:
                await asyncio.sleep(max(0.0, 1.0 / rate - (time.monotonic() - started)))
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass
    report.unanswered += len(items) - report.sent
    return report


async def _answer(reader, decoder, waiting: list, key, timeout: float) -> Answer | None:
    deadline = time.monotonic() + timeout
    while True:
        while waiting:
            for event in events(waiting.pop(0), "response"):
                if isinstance(event, Answer) and event.key == key:
                    return event
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        try:
            data = await asyncio.wait_for(reader.read(READ_SIZE), remaining)
        except asyncio.TimeoutError:
            return None
        if not data:
            return None
        waiting += [frame for frame in decoder.feed(data) if frame.error is None]

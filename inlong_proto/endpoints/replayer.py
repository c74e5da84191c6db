"""Replaying captured requests (`inlong-proto replay`): each request sent on one connection, its answer waited
for, and a report of what the server accepted. DataProxy, TubeMQ (to a broker), EventMesh TCP (a session is
opened first with HELLO_REQUEST, as a publisher) and EventMesh HTTP.

The requests and their fresh ids come from audit.replay (sans-IO); answers are cut by the runtime's stream
decoder and matched as the audit matches them (audit.readers), so no byte is laid out here.
"""
from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

from inlong_proto.audit.readers import Answer, events
from inlong_proto.audit.replay import ReplayItem, fresh_request
from inlong_proto.core.frames import encode, stream_decoder

__all__ = ["ReplayConnection", "ReplayReport", "replay"]

READ_SIZE = 65536


@dataclass
class ReplayReport:
    """What the replay did: sent, accepted (the protocol's success) with their records, failed (by error),
    unanswered."""

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


class ReplayConnection:
    """One connection to a server of `protocol`: `await open()`, then `await send(data, key)` per request gives
    its Answer (None: none within timeout seconds, or the server closed the connection: see `lost`)."""

    def __init__(self, host: str, port: int, protocol: str, *, timeout: float = 10.0):
        self.host, self.port, self.protocol, self.timeout = host, port, protocol, timeout
        self.lost: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._decoder = stream_decoder(protocol, "response", mode="PERMISSIVE")
        self._frames: list = []

    async def open(self) -> "ReplayConnection":
        self._reader, self._writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port),
                                                            self.timeout)
        if self.protocol in ("eventmesh", "eventmesh-legacy"):
            await self._hello()
        return self

    async def _hello(self) -> None:
        """A publisher's session, as the SDK opens it (the server refuses other commands without one)."""
        from inlong_proto.endpoints.eventmesh_client import make_user_agent
        from inlong_proto.eventmesh import tcp

        seq = "0000000000"
        self._writer.write(encode(tcp.hello(make_user_agent(purpose="pub"), seq)))
        reply = await self._next(lambda frame: frame.payload is not None
                                 and frame.payload.command == tcp.Command.HELLO_RESPONSE)
        if reply is None or reply.payload.header.code != 0:
            why = "no answer" if reply is None else f"code {reply.payload.header.code} {reply.payload.header.desc}"
            raise ConnectionError(f"{self.host}:{self.port}: HELLO_REQUEST refused ({why})")

    async def send(self, data: bytes, key) -> Answer | None:
        self._writer.write(data)
        await self._writer.drain()
        found: list[Answer] = []

        def answers(frame) -> bool:
            found.extend(event for event in events(frame, "response") if isinstance(event, Answer) and event.key == key)
            return bool(found)

        return found[0] if await self._next(answers) is not None else None

    async def _next(self, wanted):
        """The first frame from the server that wanted(frame) accepts, the others dropped; None on timeout or
        end of the connection."""
        deadline = time.monotonic() + self.timeout
        while True:
            while self._frames:
                frame = self._frames.pop(0)
                if wanted(frame):
                    return frame
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.lost = self.lost or "no answer"
                return None
            try:
                data = await asyncio.wait_for(self._reader.read(READ_SIZE), remaining)
            except asyncio.TimeoutError:
                self.lost = "no answer"
                return None
            if not data:
                self.lost = "the server closed the connection"
                return None
            self._frames += [frame for frame in self._decoder.feed(data) if frame.error is None]

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass


async def replay(host: str, port: int, items: list[ReplayItem], *, rate: float | None = None,
                 timeout: float = 10.0, first_id: int = 1) -> ReplayReport:
    """Send each item (renumbered from first_id) and wait up to timeout seconds for its answer. The
    protocol is the items' (one protocol per replay)."""
    report = ReplayReport()
    if not items:
        return report
    connection = await ReplayConnection(host, port, items[0].request.protocol, timeout=timeout).open()
    try:
        for number, item in enumerate(items, first_id):
            started = time.monotonic()
            data, key = fresh_request(item.request, number)
            report.sent += 1
            answer = await connection.send(data, key)
            if answer is None:
                report.unanswered += 1
                report.reason = connection.lost
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
        await connection.close()
    report.unanswered += len(items) - report.sent
    return report

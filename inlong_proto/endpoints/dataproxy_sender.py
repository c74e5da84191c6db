"""Reference asyncio DataProxy sender: a configurable mix of data messages and heartbeats, acks matched.

Data messages are MsgType 2-6 (text layout, matched by the `messageId` attr the server echoes) and
MsgType 7 (binary layout, matched by the echoed UniqueId); heartbeats are MsgType 8 (and 1, the legacy
one), matched in order since their replies carry no id. Every message is built by `builders` and every
response decoded by the runtime's StreamDecoder, so no byte is laid out here. The report says what was
sent, acknowledged (errCode 0), failed (errCode != 0, with the codes), lost (no reply before the
timeout or before the server closed the connection) and unexpected (replies matching nothing sent,
and malformed bytes).
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import Counter, deque
from collections.abc import AsyncIterable, Callable, Iterable
from dataclasses import dataclass, field
from typing import BinaryIO

from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError, EncodeError
from inlong_proto.endpoints.common import RawStream
from inlong_proto.core.frames import Frame, StreamDecoder, encode
from inlong_proto.generated.codec.dataproxy.dataproxy_common import MsgType
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode, attr_value, format_attrs, parse_attrs, response_status

log = logging.getLogger(__name__)

PROTOCOL = "dataproxy"
READ_SIZE = 65536
TEXT_TYPES = (2, 3, 4, 5, 6)
DATA_TYPES = (*TEXT_TYPES, 7)
HEARTBEAT_TYPES = (1, 8)
SENDABLE = DATA_TYPES + HEARTBEAT_TYPES


def parse_mix(mix: Iterable[str | int] | str) -> tuple[int, ...]:
    """MsgTypes from "3,5,7,8" or an iterable of ints/strings; each must be one the sender can build."""
    if isinstance(mix, str):
        mix = [part for part in mix.replace(" ", "").split(",") if part]
    out = []
    for item in mix:
        try:
            value = int(item)
        except (TypeError, ValueError):
            raise ValueError(f"not a MsgType: {item!r}") from None
        if value not in SENDABLE:
            raise ValueError(f"MsgType {value} cannot be sent; choose from {', '.join(map(str, SENDABLE))}")
        out.append(value)
    if not out:
        raise ValueError("the mix is empty")
    if not any(value in DATA_TYPES for value in out):
        raise ValueError("the mix needs at least one data MsgType (2-7) to carry the records")
    return tuple(out)


@dataclass
class SendReport:
    """What a run did. ok: nothing failed, was lost or could not be sent, and the connection held."""

    sent: int = 0  # messages written (data and heartbeats)
    records: int = 0  # records carried by the data messages written
    acknowledged: int = 0  # replies with errCode 0 (or none) to a message sent
    acknowledged_records: int = 0  # records in the acknowledged data messages
    failed: int = 0  # replies with errCode != 0
    error_codes: Counter = field(default_factory=Counter)  # errCode -> replies
    lost: int = 0  # messages that expected a reply and got none
    no_ack_expected: int = 0  # data messages sent with isAck=false (the server stays silent)
    unexpected: int = 0  # replies matching nothing sent, and malformed stretches of bytes
    unsendable: int = 0  # records no message could be built for (e.g. a LF inside a MsgType 3 record)
    by_type: Counter = field(default_factory=Counter)  # MsgType -> messages sent
    error: str | None = None  # why the run stopped early (connection refused or lost)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.lost and not self.unsendable and self.error is None

    def to_dict(self) -> dict:
        return {
            "sent": self.sent, "records": self.records, "acknowledged": self.acknowledged,
            "acknowledged_records": self.acknowledged_records, "failed": self.failed,
            "error_codes": {str(code): count for code, count in sorted(self.error_codes.items())},
            "lost": self.lost, "no_ack_expected": self.no_ack_expected, "unexpected": self.unexpected,
            "unsendable": self.unsendable,
            "by_type": {str(kind): count for kind, count in sorted(self.by_type.items())},
            "error": self.error, "ok": self.ok,
        }


@dataclass(frozen=True)
class _Pending:
    msg_type: int
    records: int


class DataProxySender:
    """Sends records to a DataProxy server over one connection and matches the acknowledgements.

    mix: MsgTypes used in turn ("3", "5", "7", "8", ...); each data type carries the next batch of
    records, each heartbeat type sends one heartbeat (MsgType 6 gives each record its own attribute
    ``index=<position in the batch>``, since its InLongMsg v3 pairs need one). is_ack: None leaves the attr out, False asks the
    server not to answer data messages (they count as no_ack_expected). timeout: seconds to wait for
    the connection, and for the outstanding replies after the last message (or while the window of
    max_in_flight unanswered messages is full). strict: the conformance report (core.conformance) of the
    rules of specs/dataproxy/conformance.yaml the server's replies break; the run goes on as without it.
    """

    def __init__(self, host: str, port: int, *, mix: Iterable[str | int] | str = ("3", "5", "7", "8"),
                 group_id: str = "demo_group", stream_id: str = "demo_stream", compress: bool = False,
                 record: str | os.PathLike | None = None, timeout: float = 10.0, is_ack: bool | None = None,
                 max_in_flight: int = 256, clock: Callable[[], float] = time.time, strict: Report | None = None):
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.host, self.port = host, port
        self.mix = parse_mix(mix)
        self.group_id, self.stream_id, self.compress = group_id, stream_id, compress
        self.record, self.timeout, self.is_ack = record, timeout, is_ack
        self.max_in_flight, self.clock, self.strict = max_in_flight, clock, strict
        self.report = SendReport()
        self._next_id = 1
        self._pending: dict[tuple[str, object], _Pending] = {}
        self._heartbeats: dict[int, deque[_Pending]] = {1: deque(), 8: deque()}
        self._changed: asyncio.Event | None = None
        self._closed = False  # the server closed the connection (or it broke)

    # -- the run -------------------------------------------------------------------------------

    @property
    def outstanding(self) -> int:
        return len(self._pending) + sum(len(queue) for queue in self._heartbeats.values())

    async def run(self, records: Iterable[bytes] | AsyncIterable[bytes], batch_size: int = 10) -> SendReport:
        """Send every record (batch_size per data message), wait for the replies, return the report.

        records may be an async iterable (e.g. lines arriving on stdin). A batch then waits for
        batch_size records, unless the iterator has a ready() method saying how many records it holds
        already: a batch is then sent as soon as those run out, so a slow source is not held back.
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        report = self.report
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.timeout)
        except OSError as exc:  # refused, unreachable, or TimeoutError
            report.error = f"cannot connect to {self.host}:{self.port}: {exc or type(exc).__name__}"
            log.error("%s", report.error)
            return report
        log.info("connected to %s:%d, mix %s", self.host, self.port, ",".join(map(str, self.mix)))
        self._changed, self._closed = asyncio.Event(), False
        with self._open_record() as record:
            receiver = asyncio.create_task(self._receive(reader, record), name="dataproxy-sender-receive")
            try:
                await self._send_all(writer, records, batch_size)
                await self._settle(self.timeout)
            finally:
                self._count_lost()
                receiver.cancel()
                await asyncio.gather(receiver, return_exceptions=True)
                writer.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer.wait_closed(), 1.0)
        return report  # the caller reports it (the CLI: one JSON line on stdout)

    def _open_record(self) -> contextlib.AbstractContextManager[BinaryIO | None]:
        if self.record is None:
            return contextlib.nullcontext()
        return open(self.record, "ab")

    async def _send_all(self, writer: asyncio.StreamWriter, records, batch_size: int) -> None:
        take = _taker(records)
        for msg_type in itertools.cycle(self.mix):
            batch = None
            if msg_type in DATA_TYPES:
                batch = await take(batch_size)
                if not batch:
                    return
            if not await self._window():
                return
            try:
                message, pending, key = self._build(msg_type, batch)
                data = encode(message)
            except EncodeError as exc:  # records this MsgType cannot carry (a LF in a text record, ...)
                self.report.unsendable += len(batch or ())
                log.error("cannot build a MsgType %d message of %d record(s): %s", msg_type, len(batch or ()), exc)
                continue
            try:
                writer.write(data)
                await writer.drain()
            except OSError as exc:
                self._stop(f"connection to {self.host}:{self.port} lost while sending: {exc}")
                return
            self._sent(msg_type, pending, key)

    async def _window(self) -> bool:
        """Wait until fewer than max_in_flight replies are outstanding; False if that never happens."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while self.outstanding >= self.max_in_flight and not self._closed:
            if not await self._wait_change(deadline - loop.time()):
                self._stop(f"no reply for {self.timeout}s with {self.outstanding} message(s) unanswered")
                return False
        return not self._closed

    async def _settle(self, timeout: float) -> None:
        """Wait for the outstanding replies, at most `timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.outstanding and not self._closed:
            if not await self._wait_change(deadline - loop.time()):
                log.warning("%d message(s) still unanswered after %gs", self.outstanding, timeout)
                return

    async def _wait_change(self, remaining: float) -> bool:
        if remaining <= 0:
            return False
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), remaining)
        except TimeoutError:
            return False
        return True

    def _stop(self, reason: str) -> None:
        if self.report.error is None:
            self.report.error = reason
        log.warning("%s", reason)

    def _count_lost(self) -> None:
        lost = self.outstanding
        if lost:
            log.warning("%d message(s) got no reply", lost)
        self.report.lost += lost
        self._pending.clear()
        for queue in self._heartbeats.values():
            queue.clear()

    # -- building --------------------------------------------------------------------------------

    def _build(self, msg_type: int, batch: list[bytes] | None):
        now_ms = int(self.clock() * 1000)
        if msg_type == 8:
            return builders.heartbeat_request(data_time_ms=now_ms), _Pending(8, 0), None
        if msg_type == 1:
            return builders.legacy_heartbeat_request(), _Pending(1, 0), None
        ident = self._next_id
        self._next_id = self._next_id % 0xFFFFFFFF + 1
        if msg_type == 7:
            message = builders.bin_request(batch, group_id=self.group_id, stream_id=self.stream_id,
                                           data_time_ms=now_ms, unique_id=ident, compress=self.compress)
            if self.is_ack is not None:  # bin_request has no is_ack and keeps isAck out of extra_attrs
                attrs = (*parse_attrs(message.body.attr), ("isAck", "true" if self.is_ack else "false"))
                message = message._replace(body=message.body._replace(attr=format_attrs(attrs)))
            key = ("bin", ident)
        else:
            message = builders.text_request(batch, group_id=self.group_id, stream_id=self.stream_id,
                                            data_time_ms=now_ms, message_id=str(ident), msg_type=msg_type,
                                            compress=self.compress, is_ack=self.is_ack,
                                            record_attrs=([{"index": i} for i in range(len(batch))]
                                                          if msg_type == 6 else None))
            key = ("text", str(ident))
        return message, _Pending(msg_type, len(batch)), key

    def _sent(self, msg_type: int, pending: _Pending, key) -> None:
        report = self.report
        report.sent += 1
        report.records += pending.records
        report.by_type[msg_type] += 1
        if key is None:
            self._heartbeats[msg_type].append(pending)
        elif self.is_ack is False:
            report.no_ack_expected += 1
        else:
            self._pending[key] = pending

    # -- receiving -------------------------------------------------------------------------------

    async def _receive(self, reader: asyncio.StreamReader, record: BinaryIO | None) -> None:
        decoder = StreamDecoder(PROTOCOL, direction="response", mode="PERMISSIVE")
        raw = RawStream()
        try:
            while True:
                try:
                    data = await reader.read(READ_SIZE)
                except OSError as exc:
                    self._closed = True
                    if self.outstanding:
                        self._stop(f"connection to {self.host}:{self.port} lost: {exc}")
                    return
                raw.add(data)
                for frame in decoder.feed(data) if data else decoder.close():
                    self._on_response(frame, raw.take(frame), record)
                if not data:
                    self._closed = True
                    if self.outstanding:
                        self._stop(f"{self.host}:{self.port} closed the connection with "
                                   f"{self.outstanding} message(s) unanswered")
                    return
        except Exception as exc:  # a bug here must end the run with a report, not hang it
            log.exception("receiving failed")
            self._closed = True
            self._stop(f"receiving failed: {exc!r}")
        finally:
            self._changed.set()

    def _on_response(self, frame: Frame, chunk: bytes, record: BinaryIO | None) -> None:
        report = self.report
        try:
            if frame.error is not None:
                report.unexpected += 1
                log.warning("ignoring %d malformed bytes at offset %d: %s", frame.length, frame.offset, frame.error)
                self._broke("dataproxy.response-frame", frame, f"{frame.error.kind}: {frame.error}")
                return
            if record is not None:
                record.write(chunk)
                record.flush()
            pending, code, text = self._match(frame)
            if pending is None:
                report.unexpected += 1
                log.warning("a reply that matches nothing sent: %s", frame.message)
                self._broke("dataproxy.response-match", frame, _reply_key(frame))
                return
            if code == 0:
                report.acknowledged += 1
                report.acknowledged_records += pending.records
            else:
                report.failed += 1
                report.error_codes[int(code)] += 1
                log.warning("MsgType %d message refused: errCode %s%s", pending.msg_type, int(code),
                            f" ({text})" if text else "")
        finally:
            self._changed.set()

    def _broke(self, rule: str, frame: Frame, got: str) -> None:
        if self.strict is not None:
            self.strict(rule, peer=f"{self.host}:{self.port}", offset=frame.offset, length=frame.length, got=got)

    def _match(self, frame: Frame) -> tuple[_Pending | None, int, str | None]:
        message = frame.message
        base = int(message.base_type)
        if base in HEARTBEAT_TYPES:
            queue = self._heartbeats[base]
            return (queue.popleft() if queue else None), 0, None
        attrs = parse_attrs(message.body.attr, strict=False)
        if base == MsgType.bin_multi_body:
            key = ("bin", message.body.unique_id)
        else:
            message_id = attr_value(attrs, "messageId")
            key = ("text", message_id.strip() if message_id else None)
        pending = self._pending.pop(key, None)
        if pending is not None and pending.msg_type != base:
            log.warning("reply of MsgType %d to a MsgType %d message", base, pending.msg_type)
            self._broke("dataproxy.response-type", frame, f"MsgType {base} answering a MsgType {pending.msg_type} "
                                                         f"message ({_reply_key(frame)})")
        try:
            code, text = response_status(attrs)
        except DecodeError as exc:  # a non-numeric errCode: not a success either
            log.warning("reply with an unreadable errCode: %s", exc)
            code, text = ErrCode.unknown_error, None
        return pending, code, text


def _reply_key(frame: Frame) -> str:
    """What identifies a reply, in words: its MsgType and the id it echoes."""
    message = frame.message
    base = int(message.base_type)
    if base in HEARTBEAT_TYPES:
        return f"a MsgType {base} heartbeat reply"
    if base == MsgType.bin_multi_body:
        return f"a MsgType 7 reply with UniqueId {message.body.unique_id}"
    message_id = attr_value(parse_attrs(message.body.attr, strict=False), "messageId")
    return f"a MsgType {base} reply with messageId {message_id!r}"


def _taker(records):
    """An async take(n) -> up to n next records ([] at the end) over a sync or async iterable."""
    if hasattr(records, "__aiter__"):
        source = aiter(records)
        ready = getattr(source, "ready", None)

        async def take_async(n: int) -> list[bytes]:
            batch: list[bytes] = []
            while len(batch) < n and (not batch or ready is None or ready() > 0):
                try:
                    batch.append(await anext(source))
                except StopAsyncIteration:
                    break
            return batch

        return take_async
    iterator = iter(records)

    async def take(n: int) -> list[bytes]:
        return list(itertools.islice(iterator, n))

    return take


async def send(host: str, port: int, records: Iterable[bytes] | AsyncIterable[bytes], *, batch_size: int = 10,
               **options) -> SendReport:
    """Connect, send every record, wait for the replies; options go to DataProxySender."""
    return await DataProxySender(host, port, **options).run(records, batch_size)

"""Reference asyncio client of the broadcasting protocol.

It asks for everything after the last value it holds, so a reconnect resumes exactly where the
stream broke. Each accepted item is printed as one text line,

    2026-11-22 13:34:30.123 history 42

(timestamp, status name from the spec's status enum, value), and its exact wire bytes are appended to
the record file, so the file is a clean raw dump that `inlong-proto decode -p broadcast` reads back
as exactly the printed items. Malformed bytes and torn frames are logged, never printed or recorded.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from datetime import datetime
from typing import BinaryIO, TextIO

from inlong_proto.endpoints.common import RawStream
from inlong_proto.core.frames import Frame, StreamDecoder, encode, iter_frames
from inlong_proto.generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest, DataResponse, Status
from inlong_proto.endpoints.broadcast_history import EPOCH, format_timestamp

log = logging.getLogger(__name__)

READ_SIZE = 65536


def format_item(response: DataResponse) -> str:
    """The printed form of one item: `yyyy-MM-dd HH:mm:ss.SSS status value`."""
    return f"{format_timestamp(response.timestamp)} {Status(response.status).name} {response.data}"


def last_recorded(path: str | os.PathLike) -> tuple[datetime, int] | None:
    """(timestamp, value) of the last item in a record file, to resume after it; None if it has none."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    last = None
    for frame in iter_frames(data, "broadcast", "response", "DROPMALFORMED"):
        last = frame.message.body
    return (last.timestamp, last.data) if last is not None else None


class BroadcastClient:
    """Receives items, resuming after the last one it holds across reconnects and across run() calls.

    retries: consecutive failed connections (refused, or closed before delivering any item) tolerated
    before giving up with ConnectionError; the wait before each retry doubles from `backoff` up to
    `max_backoff`. idle_timeout: seconds without any byte after which the connection counts as dead.
    """

    def __init__(self, host: str, port: int, *, record: str | os.PathLike | None = None,
                 out: TextIO | None = None, on_item: Callable[[DataResponse], None] | None = None,
                 resume: tuple[datetime, int] | None = None, retries: int = 5, backoff: float = 0.2,
                 max_backoff: float = 5.0, connect_timeout: float = 10.0, idle_timeout: float | None = None):
        self.host, self.port = host, port
        self.record, self.out, self.on_item = record, out, on_item
        self.last_timestamp, self.last_data = resume if resume is not None else (EPOCH, 0)
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.connect_timeout, self.idle_timeout = connect_timeout, idle_timeout
        self.received = 0  # items accepted over this client's lifetime
        self.connections = 0  # successful connects over this client's lifetime

    async def run(self, count: int | None = None) -> int:
        """Receive `count` more items (None: until cancelled); returns how many this call received."""
        received = failures = attempts = 0
        with self._open_record() as record:
            while count is None or received < count:
                attempts += 1
                if attempts > 1:
                    delay = min(self.max_backoff, self.backoff * 2 ** failures)
                    log.info("reconnecting to %s:%d in %.2fs", self.host, self.port, delay)
                    await asyncio.sleep(delay)
                try:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection(self.host, self.port), self.connect_timeout)
                except OSError as exc:  # refused, unreachable, or TimeoutError
                    failures += 1
                    reason = str(exc) or type(exc).__name__
                    log.warning("cannot connect to %s:%d (attempt %d): %s", self.host, self.port, failures, reason)
                    if failures > self.retries:
                        raise ConnectionError(f"cannot connect to {self.host}:{self.port} after "
                                              f"{failures} attempts: {reason}") from None
                    continue
                self.connections += 1
                try:
                    got = await self._session(reader, writer, record,
                                              None if count is None else count - received)
                finally:
                    writer.close()
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(writer.wait_closed(), 1.0)
                received += got
                failures = 0 if got else failures + 1
                if failures > self.retries:
                    raise ConnectionError(f"{self.host}:{self.port} closed {failures} connections in a row "
                                          f"without sending an item")
        return received

    def _open_record(self) -> contextlib.AbstractContextManager[BinaryIO | None]:
        if self.record is None:
            return contextlib.nullcontext()
        return open(self.record, "ab")

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       record: BinaryIO | None, wanted: int | None) -> int:
        """One connection: request, then accept items until `wanted`, EOF, a network error or idleness.

        Only socket errors end the session; a failing stdout or record file propagates, since
        reconnecting cannot fix it.
        """
        got = 0
        request = DataRequest(last_timestamp=self.last_timestamp, last_data=self.last_data)
        decoder = StreamDecoder("broadcast", direction="response", mode="PERMISSIVE")
        raw = RawStream()
        log.info("connected to %s:%d, asking for data after [%s] %d", self.host, self.port,
                 format_timestamp(self.last_timestamp), self.last_data)
        try:
            writer.write(encode(BroadcastFrame(body=request)))
            await writer.drain()
        except OSError as exc:
            log.warning("connection to %s:%d lost: %s", self.host, self.port, exc)
            return got
        while True:
            try:
                data = await asyncio.wait_for(reader.read(READ_SIZE), self.idle_timeout)
            except TimeoutError:  # before OSError: in 3.11 it is one
                log.warning("nothing received for %gs, dropping the connection", self.idle_timeout)
                return got
            except OSError as exc:
                log.warning("connection to %s:%d lost: %s", self.host, self.port, exc)
                return got
            raw.add(data)
            for frame in decoder.feed(data) if data else decoder.close():
                if self._accept(frame, raw.take(frame), record):
                    got += 1
                    if wanted is not None and got >= wanted:
                        return got
            if not data:
                log.warning("%s:%d closed the connection", self.host, self.port)
                return got

    def _accept(self, frame: Frame, chunk: bytes, record: BinaryIO | None) -> bool:
        """Print and record one item; False for malformed bytes and for items already held."""
        if frame.error is not None:
            log.warning("ignoring %d malformed bytes at offset %d: %s", frame.length, frame.offset, frame.error)
            return False
        response: DataResponse = frame.message.body
        if response.timestamp <= self.last_timestamp:
            # A server that no longer knows our last item replays all it has: skip what we hold.
            log.info("skipping an item already held: %s", format_item(response))
            return False
        if record is not None:
            record.write(chunk)
            record.flush()
        out = self.out if self.out is not None else sys.stdout
        out.write(format_item(response) + "\n")
        out.flush()
        self.last_timestamp, self.last_data = response.timestamp, response.data
        self.received += 1
        if self.on_item is not None:
            self.on_item(response)
        return True


async def run_client(host: str, port: int, count: int | None = None,
                     record: str | os.PathLike | None = None, **options) -> int:
    """Connect, print (and record) `count` items (None: forever); options go to BroadcastClient."""
    return await BroadcastClient(host, port, record=record, **options).run(count)

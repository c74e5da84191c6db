"""Reference asyncio server of the broadcasting protocol.

A thin I/O adapter: History and Replay decide what a request gets, the generated codec (through the
runtime's encode and StreamDecoder) turns messages into bytes and back. One bad or vanishing client must
never disturb the others, so every per-connection failure is logged and confined to that connection.

Hostile or broken clients (the shared defences are `inlong_proto.endpoints.common.Link`'s):

* A replay is written a chunk at a time, each chunk only once the client has read the previous ones,
  and live pushes are capped by max_pending: a client that does not read costs at most the transport's
  high-water mark plus one chunk during a replay, max_pending once live, however many requests it sends.
  Requests are answered one after the other; the next one is not even read while a replay is waiting.
* The history is bounded (max_history, default DEFAULT_MAX_HISTORY items).
* A client must send its request within idle_timeout seconds of connecting, finish every frame it starts
  within idle_timeout seconds of its last progress, and read a replay fast enough that each wait for it to
  read ends within idle_timeout seconds. A live client with no unfinished frame may stay silent: it only
  reads, and the cap on unread bytes, not the deadline, watches it.
* Log lines about a client are rate-limited per connection (log_rate).
"""
from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from inlong_proto.endpoints.common import (DEFAULT_LOG_RATE, DEFAULT_MAX_PENDING, Link, LinkStats, ListeningServer,
                                           connection_scope)
from inlong_proto.core.conformance import Report
from inlong_proto.core.frames import Frame, StreamDecoder, encode
from inlong_proto.generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest, DataResponse, Status
from inlong_proto.endpoints.broadcast_history import History, Replay, format_timestamp

log = logging.getLogger(__name__)

READ_SIZE = 4096  # a client sends one 37-byte request per connection; more is read as it is answered
#: Values kept for replay: 10,000 is 2 h 46 min at the default interval of 1 s, a 380,000-byte replay.
DEFAULT_MAX_HISTORY = 10_000
#: Seconds a client has for its request (and for any frame it starts, or to read a waiting replay chunk).
DEFAULT_IDLE_TIMEOUT = 60.0
REPLAY_CHUNK = 256  # responses per replay write (9,728 bytes), fewer when max_pending leaves less room
RESPONSE_SIZE = 38  # every response frame (spec)


def encode_responses(responses: list[DataResponse]) -> bytes:
    """Wire bytes of consecutive response frames."""
    return b"".join(encode(BroadcastFrame(body=response)) for response in responses)


@dataclass(eq=False)
class _Connection:
    """Per-client state: real-time pushes go only to clients whose replay has been written (live)."""

    link: Link
    live: bool = False
    garbage: int = 0  # malformed bytes received so far
    received: int = 0  # bytes received so far (a finding's offset in what this peer sent)

    @property
    def peer(self) -> str:
        return self.link.name


class BroadcastServer(ListeningServer):
    """Pushes a random value every `interval` seconds to every live client, after replaying history.

    Usable as `async with BroadcastServer(port=0) as server:`; `server.port` is the bound port.
    history: serve from this History (with its own bound) instead of a new one of max_history items
    (None: unbounded). max_garbage: malformed bytes a client may send before its connection is closed
    (None: never). max_pending: bytes a client may leave unread before it is dropped (None: no limit).
    idle_timeout: seconds without progress before a connection is closed (None: never; see the module
    doc). log_rate: log lines per second per connection (None: no limit). `link_stats` counts what these
    limits did.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, interval: float = 1.0, *,
                 rng: random.Random | None = None, history: History | None = None,
                 max_history: int | None = DEFAULT_MAX_HISTORY, clock: Callable[[], datetime] = datetime.now,
                 max_garbage: int | None = 65536, max_pending: int | None = DEFAULT_MAX_PENDING,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, log_rate: float | None = DEFAULT_LOG_RATE,
                 strict: Report | None = None):
        """strict: the conformance report (core.conformance) of the rules of specs/broadcast/conformance.yaml
        a client breaks; answers stay the same."""
        if interval <= 0:
            raise ValueError(f"interval must be positive, not {interval!r}")
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self._init_listening(host, port, {}, log)
        self.interval = interval
        self.history = history if history is not None else History(max_length=max_history)
        self.rng = rng if rng is not None else random.Random()
        self.clock = clock
        self.max_garbage, self.max_pending = max_garbage, max_pending
        self.idle_timeout, self.log_rate = idle_timeout, log_rate
        self.link_stats = LinkStats()
        self.strict = strict
        self._ticker: asyncio.Task[None] | None = None
        self._connections: set[_Connection] = set()

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def clients(self) -> int:
        """Connections currently open."""
        return len(self._connections)

    def _open_links(self):
        return (connection.link for connection in self._connections)

    async def _started(self) -> None:
        """Values start once the port is open."""
        self._ticker = asyncio.create_task(self._tick(), name="broadcast-ticker")
        log.info("listening on %s:%d, a value every %gs", *self.address, self.interval)

    async def _stopping(self) -> None:
        ticker, self._ticker = self._ticker, None
        if ticker is not None:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)

    def disconnect_clients(self) -> int:
        """Close every client connection from the server side (clients are expected to reconnect)."""
        connections = list(self._connections)
        for connection in connections:
            connection.link.writer.close()
        return len(connections)

    # -- production ----------------------------------------------------------------------------

    async def _tick(self) -> None:
        """Produce on a fixed schedule (no drift), pushing each value to live clients."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due += self.interval
            await asyncio.sleep(max(0.0, due - loop.time()))
            if loop.time() - due > self.interval:  # fell far behind (e.g. suspended): do not burst
                due = loop.time()
            try:
                self.push(self.history.produce(self.rng, self.clock).response(Status.real_time))
            except Exception:  # a failing tick must not end production for everyone
                log.exception("producing a value failed")

    def push(self, response: DataResponse) -> None:
        """Send one response to every live client; one that left max_pending bytes unread is dropped."""
        data = encode_responses([response])
        for connection in list(self._connections):
            if connection.live:
                connection.link.write(data)

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, log, idle_timeout=self.idle_timeout, max_pending=self.max_pending,
                    log_rate=self.log_rate, stats=self.link_stats)
        connection = _Connection(link)
        self._connections.add(connection)
        try:
            async with connection_scope(self._handlers, link):
                await self._converse(reader, connection)
        finally:
            self._connections.discard(connection)
            if self.strict is not None and link.expired and not connection.live:
                self.strict("broadcast.request-first", peer=connection.peer, offset=connection.received,
                            got=f"no whole request within {self.idle_timeout:g} s")

    async def _converse(self, reader: asyncio.StreamReader, connection: _Connection) -> None:
        link = connection.link
        decoder = StreamDecoder("broadcast", direction="request", mode="PERMISSIVE")
        while not link.closing:
            data = await reader.read(READ_SIZE)
            connection.received += len(data)
            for frame in decoder.feed(data) if data else decoder.close():
                if not await self._on_frame(connection, frame):
                    return
            if not data:
                return
            if connection.live and not decoder.buffered:
                link.rest()  # it only reads from now on: the cap on unread bytes watches it, not the deadline
            else:
                link.expect()
            await link.drain()  # stop reading from a client that does not read replies

    async def _on_frame(self, connection: _Connection, frame: Frame) -> bool:
        """Handle one decoded frame or malformed span; False closes the connection."""
        link = connection.link
        if frame.error is not None:  # not progress: garbage never keeps a connection open
            if self.strict is not None:
                self.strict("broadcast.request-frame", peer=connection.peer, offset=frame.offset,
                            length=frame.length, got=f"{frame.error.kind}: {frame.error}")
            connection.garbage += frame.length
            link.log.warning("ignoring %d malformed bytes at offset %d: %s", frame.length, frame.offset, frame.error)
            if self.max_garbage is not None and connection.garbage >= self.max_garbage:
                link.log.always(logging.WARNING, "%d malformed bytes in all, closing the connection",
                                connection.garbage)
                return False
            return True
        request = frame.message.body
        assert isinstance(request, DataRequest)  # direction="request" lets nothing else through
        link.progress()
        return await self._answer(connection, request)

    async def _answer(self, connection: _Connection, request: DataRequest) -> bool:
        """Write the replay as the client reads it, then make the client live; False closes the connection.

        While the replay is written the client is not live, so pushes skip it; the Replay's position takes
        in what is produced meanwhile (as real_time). The client becomes live right after the position is
        found at the end of the history, with no await in between, so no value produced meanwhile can be
        missed by both the replay and the real-time push, or sent by both.
        """
        link = connection.link
        connection.live = False
        replay = Replay(self.history, request.last_timestamp, request.last_data)
        link.log.info("request after [%s] %d: replaying %d item(s)%s", format_timestamp(request.last_timestamp),
                      request.last_data, replay.remaining,
                      "" if replay.found or not replay.remaining else " (last data not found)")
        while True:
            await link.drain()  # each chunk only once the client has read the backlog
            if link.closing:
                return False
            if replay.lost:
                link.log.always(logging.WARNING, "fell behind: values it still needed have left the history "
                                "(%s kept), closing the connection", self.history.max_length)
                return False
            if replay.done:
                connection.live = True
                return True
            room = link.room
            count = REPLAY_CHUNK if room is None else max(1, min(REPLAY_CHUNK, room // RESPONSE_SIZE))
            if not link.write(encode_responses(replay.take(count))):
                return False


async def serve(host: str, port: int, interval: float, *, seed: int | None = None,
                max_history: int | None = DEFAULT_MAX_HISTORY, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                log_rate: float | None = DEFAULT_LOG_RATE, strict: Report | None = None) -> None:
    """Run a server until cancelled (Ctrl-C under asyncio.run); seed makes the values reproducible; strict
    receives each rule violation of a peer (BroadcastServer)."""
    async with BroadcastServer(host, port, interval, rng=random.Random(seed), max_history=max_history,
                               idle_timeout=idle_timeout, log_rate=log_rate, strict=strict) as server:
        await server.serve_forever()

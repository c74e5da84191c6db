"""Reference asyncio server of the broadcasting protocol.

A thin I/O adapter: History decides what a request gets, the generated codec (through the runtime's
encode and StreamDecoder) turns messages into bytes and back. One bad or vanishing client must never
disturb the others, so every per-connection failure is logged and confined to that connection.
"""
from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..endpoints import connection_scope
from ..frames import Frame, StreamDecoder, encode
from ..generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest, DataResponse, Status
from .history import History, format_timestamp

log = logging.getLogger(__name__)

READ_SIZE = 65536


def encode_responses(responses: list[DataResponse]) -> bytes:
    """Wire bytes of consecutive response frames."""
    return b"".join(encode(BroadcastFrame(body=response)) for response in responses)


@dataclass(eq=False)
class _Connection:
    """Per-client state: real-time pushes go only to clients whose replay has been written (live)."""

    writer: asyncio.StreamWriter
    peer: str
    live: bool = False
    garbage: int = 0  # malformed bytes received so far
    allowance: int = 0  # write-buffer size above which the client counts as stalled

    def send(self, data: bytes) -> bool:
        """Queue bytes unless the connection is already going away; never blocks the caller."""
        if self.writer.is_closing():
            return False
        self.writer.write(data)
        return True


class BroadcastServer:
    """Pushes a random value every `interval` seconds to every live client, after replaying history.

    Usable as `async with BroadcastServer(port=0) as server:`; `server.port` is the bound port.
    max_garbage: malformed bytes a client may send before its connection is closed (None: never).
    max_pending: bytes a live client may leave unread (beyond its replay) before it is dropped, so
    a client that stops reading cannot grow the server's memory without bound (None: no limit).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, interval: float = 1.0, *,
                 rng: random.Random | None = None, history: History | None = None,
                 max_history: int | None = None, clock: Callable[[], datetime] = datetime.now,
                 max_garbage: int | None = 65536, max_pending: int | None = 1 << 20):
        if interval <= 0:
            raise ValueError(f"interval must be positive, not {interval!r}")
        if history is not None and max_history is not None:
            raise ValueError("pass either history or max_history, not both")
        self.host, self.requested_port, self.interval = host, port, interval
        self.history = history if history is not None else History(max_length=max_history)
        self.rng = rng if rng is not None else random.Random()
        self.clock = clock
        self.max_garbage, self.max_pending = max_garbage, max_pending
        self._server: asyncio.Server | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._connections: set[_Connection] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        self._stopped = asyncio.Event()

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) actually bound; the port is the real one when 0 was asked for."""
        if self._server is None or not self._server.sockets:
            raise RuntimeError("the server is not started")
        host, port = self._server.sockets[0].getsockname()[:2]
        return host, port

    @property
    def port(self) -> int:
        return self.address[1]

    @property
    def clients(self) -> int:
        """Connections currently open."""
        return len(self._connections)

    async def start(self) -> None:
        """Bind and start producing values; returns once the port is open."""
        if self._server is not None:
            raise RuntimeError("the server is already started")
        self._stopped.clear()
        self._server = await asyncio.start_server(self._handle, self.host, self.requested_port)
        self._ticker = asyncio.create_task(self._tick(), name="broadcast-ticker")
        log.info("listening on %s:%d, a value every %gs", *self.address, self.interval)

    async def serve_forever(self) -> None:
        """Start if needed and wait until stop() (or cancellation, e.g. Ctrl-C)."""
        if self._server is None:
            await self.start()
        await self._stopped.wait()

    async def stop(self) -> None:
        """Stop accepting, stop the ticker, close every connection and wait for their handlers."""
        server, ticker = self._server, self._ticker
        self._server = self._ticker = None
        if server is not None:
            server.close()
        if ticker is not None:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
        self.disconnect_clients()
        # Closed connections end their handlers at EOF; cancel only stragglers (asyncio 3.11 logs a
        # spurious error for a cancelled stream handler, so cancelling is the last resort).
        handlers = list(self._handlers)
        if handlers:
            _, pending = await asyncio.wait(handlers, timeout=2.0)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if server is not None:
            await server.wait_closed()
        self._stopped.set()
        log.info("stopped")

    async def __aenter__(self) -> "BroadcastServer":
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.stop()

    def disconnect_clients(self) -> int:
        """Close every client connection from the server side (clients are expected to reconnect)."""
        connections = list(self._connections)
        for connection in connections:
            connection.writer.close()
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
        """Send one response to every live client, dropping clients that stopped reading."""
        data = encode_responses([response])
        for connection in list(self._connections):
            if not connection.live:
                continue
            pending = connection.writer.transport.get_write_buffer_size()
            if self.max_pending is not None and pending > connection.allowance:
                log.warning("%s: %d bytes unread, dropping the client", connection.peer, pending)
                connection.writer.transport.abort()
                continue
            connection.send(data)

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peername = writer.get_extra_info("peername")
        connection = _Connection(writer, f"{peername[0]}:{peername[1]}" if peername else "?")
        self._connections.add(connection)
        try:
            async with connection_scope(self._handlers, connection.peer, writer, log):
                await self._converse(reader, connection)
        finally:
            self._connections.discard(connection)
            log.info("%s: disconnected", connection.peer)

    async def _converse(self, reader: asyncio.StreamReader, connection: _Connection) -> None:
        decoder = StreamDecoder("broadcast", direction="request", mode="PERMISSIVE")
        while not connection.writer.is_closing():
            data = await reader.read(READ_SIZE)
            for frame in decoder.feed(data) if data else decoder.close():
                if not self._on_frame(connection, frame):
                    return
            if not data:
                return
            await connection.writer.drain()  # stop reading from a client that does not read replies

    def _on_frame(self, connection: _Connection, frame: Frame) -> bool:
        """Handle one decoded frame or malformed span; False closes the connection."""
        if frame.error is not None:
            connection.garbage += frame.length
            log.warning("%s: ignoring %d malformed bytes at offset %d: %s",
                        connection.peer, frame.length, frame.offset, frame.error)
            if self.max_garbage is not None and connection.garbage >= self.max_garbage:
                log.warning("%s: %d malformed bytes in all, closing the connection",
                            connection.peer, connection.garbage)
                return False
            return True
        request = frame.message.body
        assert isinstance(request, DataRequest)  # direction="request" lets nothing else through
        self._answer(connection, request)
        return True

    def _answer(self, connection: _Connection, request: DataRequest) -> None:
        """Write the replay and make the client live in one step.

        No await separates reading the history, queueing the replay and setting live, so no value
        produced meanwhile can be missed by both the replay and the real-time push, or sent by both.
        """
        replay = self.history.replay(request.last_timestamp, request.last_data)
        if replay:
            connection.send(encode_responses(replay))
        connection.live = True
        if self.max_pending is not None:
            connection.allowance = connection.writer.transport.get_write_buffer_size() + self.max_pending
        log.info("%s: request after [%s] %d: replaying %d item(s)%s", connection.peer,
                 format_timestamp(request.last_timestamp), request.last_data, len(replay),
                 " (last data not found)" if replay and replay[0].status == Status.last_data_not_found else "")


async def serve(host: str, port: int, interval: float, *, seed: int | None = None,
                max_history: int | None = None) -> None:
    """Run a server until cancelled (Ctrl-C under asyncio.run); seed makes the values reproducible."""
    async with BroadcastServer(host, port, interval, rng=random.Random(seed), max_history=max_history) as server:
        await server.serve_forever()

"""A recording TCP relay: what the demo captures with when tcpdump cannot run (no root, no capture rights).

Clients connect to the tap's port, the tap connects to the real server and copies bytes both ways,
noting when each piece went which way. pcap() then writes every connection as the TCP conversation
between the client and the real server (handshake, the pieces in time order, FIN), with the capture
writer (writer.Conversation), so the capture readers see what tcpdump on the server's port would show,
minus retransmissions and window updates.
"""
from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from inlong_proto.capture.writer import Conversation, pcap_file

CHUNK = 65536


@dataclass
class _Connection:
    client: tuple[str, int]
    server: tuple[str, int]
    opened_ns: int
    pieces: list[tuple[int, str, bytes]] = field(default_factory=list)  # (time ns, "client"/"server", bytes)
    closed_ns: int | None = None


class Tap:
    """Relays for any number of servers; `async with Tap() as tap: port = await tap.relay(server_port)`."""

    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self.connections: list[_Connection] = []
        self._servers: list[asyncio.base_events.Server] = []
        self._tasks: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()  # of the connections still open

    async def relay(self, server_port: int, server_host: str | None = None, listen_port: int = 0) -> int:
        """Start a relay to server_host:server_port on listen_port (0: a free one); the port clients should
        use instead."""
        target = (server_host or self.host, server_port)

        async def handle(reader, writer):
            task = asyncio.current_task()
            self._tasks.add(task)
            try:
                await self._pipe(reader, writer, target)
            finally:
                self._tasks.discard(task)

        server = await asyncio.start_server(handle, self.host, listen_port)
        self._servers.append(server)
        return server.sockets[0].getsockname()[1]

    async def _pipe(self, client_reader, client_writer, target) -> None:
        peer = client_writer.get_extra_info("peername")[:2]
        try:
            server_reader, server_writer = await asyncio.open_connection(*target)
        except OSError:
            client_writer.close()
            return
        conn = _Connection(peer, target, time.time_ns())
        self.connections.append(conn)
        self._writers |= {client_writer, server_writer}

        async def copy(reader, writer, side: str):
            try:
                while data := await reader.read(CHUNK):
                    conn.pieces.append((time.time_ns(), side, data))
                    writer.write(data)
                    await writer.drain()
            except ConnectionError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    writer.write_eof()

        try:
            await asyncio.gather(copy(client_reader, server_writer, "client"),
                                 copy(server_reader, client_writer, "server"))
        finally:
            conn.closed_ns = time.time_ns()
            for writer in (client_writer, server_writer):
                self._writers.discard(writer)
                writer.close()

    async def close(self) -> None:
        """Stop relaying: connections still open are closed (their pipes end as if the peers had)."""
        for server in self._servers:
            server.close()
        for writer in list(self._writers):
            writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def __aenter__(self) -> "Tap":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    def pcap(self) -> bytes:
        """Every relayed connection as a TCP conversation, all packets in time order."""
        packets = []
        for number, conn in enumerate(self.connections):
            conv = Conversation(conn.client, conn.server, isn=(1000 + number * 7919, 5000 + number * 104729))
            packets += conv.open(conn.opened_ns)
            for at, side, data in conn.pieces:
                packets += conv.send(side, data, at)
            packets += conv.close(conn.closed_ns or (conn.pieces[-1][0] if conn.pieces else conn.opened_ns))
        packets.sort(key=lambda packet: packet[0])  # stable: each connection's own order is kept
        return pcap_file(packets, nano=True)

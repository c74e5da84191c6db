"""The EventMesh TCP reference server under hostile peers (issue 11, items 7 and 8).

The probe's reproducer: the 120 s idle timeout counted bytes, so one byte a second kept a connection open
forever; now only whole frames (or reading a backlog) are progress. Also: a client that floods without
reading, one whose heartbeats keep it alive, one that makes the server log a line per frame. Memory is
the server's own accounting (`stats.links.peak_unread`), not RSS. Timeouts are fractions of a second;
every body runs under a hard deadline, loopback only.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time

from click.testing import CliRunner

import inlong_proto
from inlong_proto.cli import eventmesh as cli
from inlong_proto.eventmesh import tcp
from inlong_proto.endpoints.eventmesh_client import make_user_agent
from inlong_proto.endpoints.eventmesh_server import DEFAULT_IDLE_TIMEOUT, EventMeshServer
from peers import HIGH_WATER, HOST, closed_by_server, run, until

READ_SIZE = 65536


def hello(seq: str = "1") -> bytes:
    return inlong_proto.encode(tcp.hello(make_user_agent(purpose="pub"), seq))


def heartbeat(seq: str = "2") -> bytes:
    return inlong_proto.encode(tcp.heartbeat(seq))


async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes, every: float) -> int:
    """Send data one byte at a time; how many bytes went out before the server closed the connection."""
    sent = 0
    with contextlib.suppress(ConnectionError):
        while sent < len(data) and not reader.at_eof():
            writer.write(data[sent:sent + 1])
            await writer.drain()
            sent += 1
            await asyncio.sleep(every)
    return sent


def test_a_byte_at_a_time_no_longer_keeps_a_session_open():
    """After a hello, a heartbeat sent one byte every 50 ms (it would take seconds): closed at the 0.4 s
    deadline although a byte arrives every 50 ms, which kept the old byte-counting timeout from firing."""
    async def body():
        async with EventMeshServer(HOST, 0, idle_timeout=0.4) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(hello())
            await writer.drain()
            await asyncio.sleep(0.1)
            started = time.monotonic()
            sent = await trickle(reader, writer, heartbeat() * 3, 0.05)
            await closed_by_server(reader)
            elapsed = time.monotonic() - started
            writer.close()
            return sent, elapsed, server.stats

    sent, elapsed, stats = run(body())
    assert sent < len(heartbeat()) and elapsed < 3
    assert stats.links.closed_idle == 1 and stats.received == {"HELLO_REQUEST": 1}


def test_heartbeats_keep_a_session_open_past_many_deadlines():
    async def body():
        async with EventMeshServer(HOST, 0, idle_timeout=0.5) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            decoder = inlong_proto.StreamDecoder("eventmesh", direction="response")
            writer.write(hello())
            replies = 0
            for n in range(15):  # 1.5 s, three deadlines
                writer.write(heartbeat(str(10 + n)))
                await writer.drain()
                await asyncio.sleep(0.1)
                replies += len(decoder.feed(await asyncio.wait_for(reader.read(65536), 2)))
            async with asyncio.timeout(5):
                while replies < 16:
                    replies += len(decoder.feed(await reader.read(65536)))
            writer.close()
            return replies, server.stats

    replies, stats = run(body())
    assert replies == 16 and stats.links.closed_idle == 0


def test_a_client_that_floods_and_never_reads_costs_a_bounded_buffer_and_is_closed():
    async def body():
        async with EventMeshServer(HOST, 0, idle_timeout=0.5) as server:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, (HOST, server.port))
            reader, writer = await asyncio.open_connection(sock=sock)
            await until(lambda: len(server.connections) == 1)
            server.connections[0].writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                                               4096)
            burst = hello() + b"".join(heartbeat(str(n)) for n in range(200))

            async def flood():
                with contextlib.suppress(ConnectionError):
                    for _ in range(1000):
                        writer.write(burst)
                        await writer.drain()

            sender = asyncio.create_task(flood())
            await until(lambda: server.stats.links.closed_idle == 1, timeout=10)
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            writer.transport.abort()
            await until(lambda: not server.connections)
            return server.stats

    stats = run(body())
    assert stats.links.peak_unread <= HIGH_WATER + 2 * READ_SIZE, stats.links
    assert stats.received["HEARTBEAT_REQUEST"] < 1000 * 200  # it stopped reading long before the end


def test_a_client_causing_a_warning_per_frame_cannot_grow_the_log(caplog):
    """Heartbeats before a hello each get a code 1 reply and were each a warning line."""
    caplog.set_level(logging.INFO, logger="inlong_proto")

    async def body():
        async with EventMeshServer(HOST, 0, log_rate=1) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b"".join(heartbeat(str(n)) for n in range(200)))
            await writer.drain()
            decoder = inlong_proto.StreamDecoder("eventmesh", direction="response")
            replies = 0
            async with asyncio.timeout(5):
                while replies < 200:
                    replies += len(decoder.feed(await reader.read(65536)))
            writer.close()
            await until(lambda: not server.connections)
            return server.stats

    stats = run(body())
    warnings = [r for r in caplog.records if "HEARTBEAT_RESPONSE code 1" in r.getMessage()]
    assert stats.refused == 200 and len(warnings) <= 5
    assert len(warnings) + stats.links.suppressed_lines == 200
    assert any("suppressed" in r.getMessage() for r in caplog.records)
    assert stats.to_dict()["suppressed_lines"] == stats.links.suppressed_lines


def test_cli_serve_has_the_options_with_the_documented_defaults():
    defaults = {param.name: param.default for param in cli.eventmesh.commands["serve"].params}
    assert defaults["idle_timeout"] == DEFAULT_IDLE_TIMEOUT == 120.0
    help_text = CliRunner().invoke(cli.eventmesh, ["serve", "--help"]).output
    assert "--idle-timeout" in help_text and "--log-rate" in help_text

"""The DataProxy reference server under hostile peers (issue 11, items 7 and 8).

A client that floods requests and never reads its replies, one that trickles bytes, one whose frames keep
it alive, one that makes the server log an error per frame. Memory is the server's own accounting
(`link_stats.peak_unread`, the largest write buffer after any write), not RSS. Timeouts are fractions of
a second; every body runs under a hard deadline, loopback only.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from click.testing import CliRunner

import inlong_proto
from inlong_proto.dataproxy import builders
from inlong_proto.cli import dataproxy as cli
from inlong_proto.endpoints.dataproxy_server import DEFAULT_IDLE_TIMEOUT, READ_SIZE, DataProxyServer
from peers import HIGH_WATER, HOST, closed_by_server, open_small_window, run, small_server_side, until

T_MS = 1_700_000_000_000


def heartbeat() -> bytes:
    return inlong_proto.encode(builders.heartbeat_request(data_time_ms=T_MS))


def padded_text(pad: int, message_id: int = 1) -> bytes:
    """A text message whose reply echoes a `pad`-byte attribute: the reply is as big as the request."""
    return inlong_proto.encode(builders.text_request([b"record"], group_id="g1", stream_id="s1", data_time_ms=T_MS,
                                                     message_id=message_id, extra_attrs={"pad": "x" * pad}))


def no_group() -> bytes:
    """A message the server answers with errCode 100 (and a warning line)."""
    message = builders.text_request([b"a"], group_id="g1", stream_id="s1", data_time_ms=T_MS, message_id=1)
    return inlong_proto.encode(message._replace(body=message.body._replace(attr="streamId=s1&messageId=1")))


async def small_window_client(server: DataProxyServer):
    """A client with a small receive buffer, and the server's side with a small send buffer, so that
    replies back up into the server's write buffer after kilobytes rather than megabytes."""
    reader, writer = await open_small_window(server.port)
    await small_server_side(server)
    return reader, writer


async def flood(writer: asyncio.StreamWriter, data: bytes, total: int) -> None:
    """Write `data` again and again, never reading, until `total` bytes or the connection breaks."""
    with contextlib.suppress(ConnectionError):
        for _ in range(total // len(data)):
            writer.write(data)
            await writer.drain()


def test_a_client_that_floods_and_never_reads_costs_a_bounded_buffer_and_is_closed():
    """The server stops reading from a client whose replies back up, so what it holds is its high-water mark
    plus the replies to one read; the deadline closes the connection once the client stops reading."""
    async def body():
        async with DataProxyServer(HOST, 0, idle_timeout=0.5, keep_payloads=False) as server:
            reader, writer = await small_window_client(server)
            sender = asyncio.create_task(flood(writer, padded_text(2000) * 16, 64 << 20))
            started = time.monotonic()
            await until(lambda: server.link_stats.closed_idle == 1, timeout=10)
            elapsed = time.monotonic() - started
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            writer.transport.abort()
            await until(lambda: server.clients == 0)
            return server.link_stats, server.stats, elapsed

    links, stats, elapsed = run(body())
    assert links.peak_unread <= HIGH_WATER + 2 * READ_SIZE, links
    assert links.dropped_unread == 0 and elapsed < 5
    assert 0 < stats.frames < (64 << 20) // 2100  # it stopped reading long before the flood ended


def test_a_client_over_max_pending_is_dropped_not_fed():
    async def body():
        async with DataProxyServer(HOST, 0, idle_timeout=None, max_pending=16384, keep_payloads=False) as server:
            reader, writer = await small_window_client(server)
            sender = asyncio.create_task(flood(writer, padded_text(2000) * 64, 64 << 20))
            await until(lambda: server.link_stats.dropped_unread == 1, timeout=10)
            await closed_by_server(reader)
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            writer.close()
            await until(lambda: server.clients == 0)
            return server.link_stats

    links = run(body())
    assert links.peak_unread <= 16384


def test_a_peer_trickling_a_frame_is_closed_by_the_deadline():
    async def body():
        async with DataProxyServer(HOST, 0, idle_timeout=0.4) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            frame, sent = heartbeat(), 0
            started = time.monotonic()
            with contextlib.suppress(ConnectionError):
                while sent < len(frame) and not reader.at_eof():
                    writer.write(frame[sent:sent + 1])
                    await writer.drain()
                    sent += 1
                    await asyncio.sleep(0.05)
            await closed_by_server(reader)
            elapsed = time.monotonic() - started
            writer.close()
            return sent, len(frame), elapsed, server

    sent, length, elapsed, server = run(body())
    assert sent < length and elapsed < 3
    assert server.link_stats.closed_idle == 1 and server.stats.frames == 0


def test_whole_frames_keep_a_connection_open_past_many_deadlines():
    async def body():
        async with DataProxyServer(HOST, 0, idle_timeout=0.5) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            decoder = inlong_proto.StreamDecoder("dataproxy", direction="response")
            replies = 0
            for _ in range(15):  # 1.5 s, three deadlines
                writer.write(heartbeat())
                await writer.drain()
                replies += len(decoder.feed(await asyncio.wait_for(reader.read(4096), 2)))
                await asyncio.sleep(0.1)
            async with asyncio.timeout(5):
                while replies < 15:
                    replies += len(decoder.feed(await reader.read(4096)))
            writer.close()
            return replies, server.link_stats

    replies, links = run(body())
    assert replies == 15 and links.closed_idle == 0


def test_a_client_causing_a_warning_per_frame_cannot_grow_the_log(caplog):
    caplog.set_level(logging.INFO, logger="inlong_proto")

    async def body():
        async with DataProxyServer(HOST, 0, log_rate=1) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(no_group() * 200)
            await writer.drain()
            decoder = inlong_proto.StreamDecoder("dataproxy", direction="response")
            replies = 0
            async with asyncio.timeout(5):
                while replies < 200:
                    replies += len(decoder.feed(await reader.read(65536)))
            writer.close()
            await until(lambda: server.clients == 0)
            return server

    server = run(body())
    warnings = [r for r in caplog.records if "errCode 100" in r.getMessage()]
    summaries = [r for r in caplog.records if "suppressed" in r.getMessage()]
    assert server.stats.error_codes == {100: 200}  # every frame was still answered and counted
    assert len(warnings) <= 5 and len(summaries) >= 1
    assert len(warnings) + server.link_stats.suppressed_lines == 200
    assert any("disconnected" in r.getMessage() for r in caplog.records)  # lifecycle lines are never suppressed


def test_cli_serve_has_the_options_with_the_documented_defaults():
    defaults = {param.name: param.default for param in cli.dataproxy.commands["serve"].params}
    assert defaults["idle_timeout"] == DEFAULT_IDLE_TIMEOUT == 180.0
    help_text = CliRunner().invoke(cli.dataproxy, ["serve", "--help"]).output
    assert "--idle-timeout" in help_text and "--log-rate" in help_text

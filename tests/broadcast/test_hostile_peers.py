"""The broadcast server under hostile peers (issue 11, items 7 and 8), and the shared defences they rely on.

Reproducers of the probe's findings: a 64 KiB burst of requests from a client that never reads, a peer that
trickles bytes, a slow reader behind a bounded history, and the log limiter. Memory is measured as the
server's own accounting (`link_stats.peak_unread`: the largest write buffer after any write, exact), not
RSS. Timeouts are fractions of a second; every body runs under a hard deadline, loopback only.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

import inlong_proto
from inlong_proto.cli import broadcast as cli
from inlong_proto.endpoints.broadcast_history import EPOCH, History, Item, Replay
from inlong_proto.endpoints.broadcast_server import (DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_HISTORY, REPLAY_CHUNK,
                                                     BroadcastServer)
from inlong_proto.endpoints.common import PeerLog
from inlong_proto.generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest, DataResponse, Status
from peers import HIGH_WATER, HOST, closed_by_server, open_small_window, run, small_server_side, until

T0 = datetime(2026, 11, 22, 13, 34, 30, 123000)
REQUEST = 37
RESPONSE = 38


def items(n: int, start: datetime = T0) -> list[Item]:
    return [Item(start + timedelta(milliseconds=10 * i), (7 * i) % 100) for i in range(n)]


def request_bytes(timestamp: datetime = EPOCH, value: int = 0) -> bytes:
    return inlong_proto.encode(BroadcastFrame(body=DataRequest(last_timestamp=timestamp, last_data=value)))


# -- replays under back-pressure -----------------------------------------------------------------------

def test_a_burst_of_requests_from_a_client_that_never_reads_stays_bounded():
    """The probe's reproducer: 64 KiB of requests, each asking for the whole history, nothing read. Before,
    every request queued a full replay (1771 of 2000 items here: 134 MB); now a replay is written only as
    fast as the client reads, so the server holds at most its high-water mark plus one chunk, and the
    deadline closes the connection once the client stops reading."""
    burst = request_bytes() * (65536 // REQUEST)

    async def body():
        history = History(items(2000))
        async with BroadcastServer(HOST, 0, 3600, history=history, idle_timeout=0.5) as server:
            reader, writer = await open_small_window(server.port)
            await small_server_side(server)
            writer.write(burst)
            await writer.drain()
            started = time.monotonic()
            await until(lambda: server.link_stats.closed_idle == 1, timeout=10)
            elapsed = time.monotonic() - started
            writer.transport.abort()
            await until(lambda: server.clients == 0)
            # Everyone else is still served in full.
            good_reader, good_writer = await asyncio.open_connection(HOST, server.port)
            good_writer.write(request_bytes())
            data = await good_reader.readexactly(2000 * RESPONSE)
            good_writer.close()
            return server.link_stats, elapsed, data

    stats, elapsed, data = run(body())
    assert stats.peak_unread <= HIGH_WATER + REPLAY_CHUNK * RESPONSE, stats
    assert stats.dropped_unread == 0 and stats.closed_idle == 1
    assert elapsed < 5
    frames = list(inlong_proto.iter_frames(data, "broadcast", "response"))
    assert len(frames) == 2000 and frames[0].message.body.status == Status.last_data_not_found


def test_a_client_that_reads_gets_every_burst_request_answered_in_order():
    """Back-pressure delays a reading client, it does not refuse it: three requests in one write, three
    full replays, one after the other."""
    async def body():
        async with BroadcastServer(HOST, 0, 3600, history=History(items(600))) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            anchor = items(600)[100]
            writer.write(request_bytes() + request_bytes(anchor.timestamp, anchor.value) + request_bytes())
            data = await reader.readexactly((600 + 499 + 600) * RESPONSE)
            writer.close()
            return [f.message.body for f in inlong_proto.iter_frames(data, "broadcast", "response")]

    got = run(body())
    expected = [(i.timestamp, i.value) for i in items(600)]
    assert [(r.timestamp, r.data) for r in got] == expected + expected[101:] + expected
    flagged = [n for n, r in enumerate(got) if r.status == Status.last_data_not_found]
    assert flagged == [0, 600 + 499]


def test_a_replay_longer_than_max_pending_reaches_a_client_that_reads():
    """The cap bounds what is unread, not what a replay may hold: written as the client reads, a replay
    forty times max_pending arrives whole, and the buffer never held more than the cap."""
    async def body():
        async with BroadcastServer(HOST, 0, 3600, history=History(items(4000)), max_pending=4096) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(request_bytes())
            data = await asyncio.wait_for(reader.readexactly(4000 * RESPONSE), 10)
            writer.close()
            return data, server.link_stats

    data, stats = run(body())
    assert len(list(inlong_proto.iter_frames(data, "broadcast", "response"))) == 4000
    assert stats.dropped_unread == 0 and stats.peak_unread <= 4096


def test_live_pushes_to_a_client_that_stops_reading_are_capped():
    """Pushes a client leaves unread are capped by max_pending: the client is dropped, not fed beyond it."""
    push = DataResponse(status=Status.real_time, timestamp=T0, data=1)

    async def body():
        async with BroadcastServer(HOST, 0, 3600, max_pending=8192, idle_timeout=None) as server:
            reader, writer = await open_small_window(server.port)
            connection = await small_server_side(server)
            writer.write(request_bytes())
            await until(lambda: connection.live)
            for _ in range(1_000_000):  # far more than any kernel buffer holds
                server.push(push)
                if server.link_stats.dropped_unread:
                    break
            await closed_by_server(reader)
            writer.close()
            await until(lambda: server.clients == 0)
            return server.link_stats

    stats = run(body())
    assert stats.dropped_unread == 1 and stats.peak_unread <= 8192


def test_a_slow_reader_that_falls_behind_a_bounded_history_is_closed(caplog):
    """Values it still needed left the history while it was not reading: it is closed (and resumes with
    last_data_not_found on reconnecting) rather than sent a replay with a silent gap."""
    caplog.set_level(logging.INFO, logger="inlong_proto")
    old = items(3000)

    async def body():
        async with BroadcastServer(HOST, 0, 3600, history=History(old, max_length=3000),
                                   idle_timeout=None) as server:
            reader, writer = await open_small_window(server.port)
            connection = await small_server_side(server)
            writer.write(request_bytes())
            await until(lambda: connection.link.unread > HIGH_WATER)  # waiting for us to read
            for item in items(3000, T0 + timedelta(hours=1)):  # meanwhile the whole history turns over
                server.history.append(item)
            data = bytearray()
            async with asyncio.timeout(10):
                while chunk := await reader.read(65536):
                    data += chunk
            writer.close()
            return bytes(data)

    data = run(body())
    got = [(f.message.body.timestamp, f.message.body.data) for f in inlong_proto.iter_frames(data, "broadcast")]
    assert 0 < len(got) < 3000
    assert got == [(i.timestamp, i.value) for i in old[:len(got)]]  # a prefix, no gap
    assert any("fell behind" in r.getMessage() for r in caplog.records)


# -- deadlines -------------------------------------------------------------------------------------------

def test_a_peer_trickling_bytes_is_closed_by_the_deadline_before_its_frame_completes():
    """One byte every 50 ms (a request would take 1.85 s): closed at the 0.4 s deadline although bytes keep
    coming, since bytes that do not complete a frame are not progress."""
    async def body():
        async with BroadcastServer(HOST, 0, 3600, history=History(items(3)), idle_timeout=0.4) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            frame, sent = request_bytes(), 0
            started = time.monotonic()
            try:
                while sent < len(frame) and not reader.at_eof():
                    writer.write(frame[sent:sent + 1])
                    await writer.drain()
                    sent += 1
                    await asyncio.sleep(0.05)
            except ConnectionError:
                pass
            await closed_by_server(reader)
            elapsed = time.monotonic() - started
            writer.close()
            return sent, elapsed, server.link_stats

    sent, elapsed, stats = run(body())
    assert sent < REQUEST and elapsed < 3
    assert stats.closed_idle == 1


def test_a_connection_that_never_asks_is_closed_and_a_live_one_may_stay_silent():
    async def body():
        async with BroadcastServer(HOST, 0, 0.02, idle_timeout=0.3) as server:
            silent_reader, silent_writer = await asyncio.open_connection(HOST, server.port)
            live_reader, live_writer = await asyncio.open_connection(HOST, server.port)
            live_writer.write(request_bytes())
            await closed_by_server(silent_reader)  # no request within the deadline
            received = 0
            async with asyncio.timeout(5):
                started = time.monotonic()
                while time.monotonic() - started < 1.0:  # over three deadlines, only reading
                    received += len(await live_reader.read(4096))
            live_writer.close()
            silent_writer.close()
            return received, server.link_stats

    received, stats = run(body())
    assert received >= 10 * RESPONSE
    assert stats.closed_idle == 1


# -- the history bound -----------------------------------------------------------------------------------

def test_history_is_bounded_by_default_and_from_the_cli():
    assert BroadcastServer().history.max_length == DEFAULT_MAX_HISTORY == 10_000
    assert BroadcastServer(max_history=None).history.max_length is None
    serve = cli.broadcast.commands["serve"]
    defaults = {param.name: param.default for param in serve.params}
    assert defaults["max_history"] == DEFAULT_MAX_HISTORY
    assert defaults["idle_timeout"] == DEFAULT_IDLE_TIMEOUT
    help_text = CliRunner().invoke(cli.broadcast, ["serve", "--help"]).output
    assert "--max-history" in help_text and "--idle-timeout" in help_text and "--log-rate" in help_text


def test_a_long_history_is_bounded():
    history = History(max_length=100)
    rng = random.Random(1)
    clock = iter(T0 + timedelta(milliseconds=n) for n in range(100_000))
    for _ in range(50_000):
        history.produce(rng, lambda: next(clock))
    assert len(history) == 100 and (history.start, history.end) == (49_900, 50_000)
    assert len(history._items) <= 100 + 1024  # the list behind it is compacted as it goes
    assert [i.timestamp for i in history] == [T0 + timedelta(milliseconds=n) for n in range(49_900, 50_000)]


# -- the replay position ---------------------------------------------------------------------------------

def test_a_replay_taken_in_chunks_is_the_replay_at_once():
    history = History(items(1000))
    for anchor in (None, items(1000)[400]):
        stamp, value = (EPOCH, 0) if anchor is None else (anchor.timestamp, anchor.value)
        replay, chunks = Replay(history, stamp, value), []
        while not replay.done:
            chunks += replay.take(REPLAY_CHUNK)
        assert chunks == history.replay(stamp, value)


def test_values_produced_during_a_replay_follow_it_as_real_time():
    history = History(items(5))
    replay = Replay(history, EPOCH, 0)
    first = replay.take(2)
    for item in items(3, T0 + timedelta(seconds=1)):
        history.append(item)
    rest = replay.take(100)
    assert [r.status for r in first + rest] == ([Status.last_data_not_found] + [Status.history] * 4
                                                + [Status.real_time] * 3)
    assert replay.done and replay.take(10) == []


def test_a_replay_whose_next_value_left_the_history_is_lost():
    history = History(items(10), max_length=10)
    replay = Replay(history, EPOCH, 0)
    replay.take(3)
    for item in items(5, T0 + timedelta(seconds=1)):
        history.append(item)
    assert replay.lost
    with pytest.raises(LookupError):
        replay.take(1)


def test_an_empty_history_then_real_time_items_are_not_flagged():
    history = History()
    replay = Replay(history, EPOCH, 0)
    assert replay.done
    history.append(items(1)[0])
    assert [r.status for r in replay.take(5)] == [Status.real_time]


# -- the log limiter (shared by the three servers) -------------------------------------------------------

class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_log_limiter_suppresses_and_summarises(caplog):
    caplog.set_level(logging.INFO, logger="test.limiter")
    clock = FakeClock()
    peer_log = PeerLog(logging.getLogger("test.limiter"), "1.2.3.4:5", rate=2, clock=clock)
    for n in range(10):
        peer_log.info("line %d", n)
    peer_log.warning("a warning, suppressed too")
    assert [r.getMessage() for r in caplog.records] == ["1.2.3.4:5: line 0", "1.2.3.4:5: line 1"]
    clock.now = 1.0  # two more tokens
    peer_log.info("later")
    messages = [(r.levelno, r.getMessage()) for r in caplog.records[2:]]
    assert messages == [(logging.WARNING, "1.2.3.4:5: suppressed 9 log line(s)"), (logging.INFO, "1.2.3.4:5: later")]
    peer_log.always(logging.INFO, "always written")
    for _ in range(5):
        peer_log.info("more")
    caplog.clear()
    peer_log.flush()
    assert [r.getMessage() for r in caplog.records] == ["1.2.3.4:5: suppressed 4 log line(s)"]
    assert peer_log.total_suppressed == 13


def test_lines_below_the_level_cost_nothing_and_no_limit_means_none(caplog):
    caplog.set_level(logging.INFO, logger="test.limiter")
    clock = FakeClock()
    peer_log = PeerLog(logging.getLogger("test.limiter"), "p", rate=1, clock=clock)
    for _ in range(100):
        peer_log.debug("not written, no token spent")
    peer_log.info("written")
    unlimited = PeerLog(logging.getLogger("test.limiter"), "q", rate=None, clock=clock)
    for _ in range(100):
        unlimited.info("x")
    assert len(caplog.records) == 101 and unlimited.total_suppressed == 0


def test_a_chatty_client_cannot_grow_the_server_log(caplog):
    """Each malformed span and each request was one line; now at most the limit's, then a summary."""
    caplog.set_level(logging.INFO, logger="inlong_proto")

    async def body():
        async with BroadcastServer(HOST, 0, 3600, log_rate=1, max_garbage=None) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            # Garbage then a request, 500 times: 500 malformed spans and 500 (empty) replays.
            writer.write((b"junk" + request_bytes()) * 500)
            await writer.drain()
            writer.close()
            await until(lambda: server.clients == 0)
            return server.link_stats

    stats = run(body())
    lines = [r for r in caplog.records if "malformed bytes" in r.getMessage() or "replaying" in r.getMessage()]
    summaries = [r.getMessage() for r in caplog.records if "suppressed" in r.getMessage()]
    assert len(lines) <= 5 and summaries
    assert len(lines) + stats.suppressed_lines == 1000

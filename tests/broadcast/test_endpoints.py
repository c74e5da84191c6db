"""The reference server and client over loopback: replay rule, resume without loss or duplicates, garbage.

Every test is bounded: loops poll with short sleeps under asyncio timeouts, intervals are tens of ms.
"""
from __future__ import annotations

import asyncio
import io
import random
import re
import signal
import socket
import sys
from datetime import datetime, timedelta

import pytest

import inlong_proto
from inlong_proto.endpoints.broadcast_client import BroadcastClient, format_item, last_recorded, run_client
from inlong_proto.endpoints.broadcast_history import EPOCH, History, Item, next_item
from inlong_proto.endpoints.broadcast_server import BroadcastServer, encode_responses
from inlong_proto.generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest, DataResponse, Status
from peers import HOST, run, until

INTERVAL = 0.02
T0 = datetime(2026, 11, 22, 13, 34, 30, 123000)


def items(n: int, start: datetime = T0) -> list[Item]:
    return [Item(start + timedelta(milliseconds=10 * i), (7 * i) % 100) for i in range(n)]


def request_bytes(timestamp: datetime, value: int) -> bytes:
    return inlong_proto.encode(BroadcastFrame(body=DataRequest(last_timestamp=timestamp, last_data=value)))


def responses_in(data: bytes) -> list[DataResponse]:
    """Decode a raw dump strictly: any malformed byte fails the test."""
    return [frame.message.body for frame in inlong_proto.iter_frames(data, "broadcast", "response")]


def history_as(server: BroadcastServer) -> list[tuple[datetime, int]]:
    return [(item.timestamp, item.value) for item in server.history]


def pairs(responses) -> list[tuple[datetime, int]]:
    return [(r.timestamp, r.data) for r in responses]


class RawPeer:
    """A hand-driven protocol peer over a plain socket, to see exactly what the server sends."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.decoder = inlong_proto.StreamDecoder("broadcast", direction="response")
        self.frames: list[DataResponse] = []

    @classmethod
    async def connect(cls, port: int) -> "RawPeer":
        return cls(*await asyncio.open_connection(HOST, port))

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def collect(self, n: int) -> list[DataResponse]:
        """Read until at least n responses have arrived in all."""
        while len(self.frames) < n:
            data = await self.reader.read(4096)
            assert data, f"server closed the connection after {len(self.frames)} responses"
            self.frames += [frame.message.body for frame in self.decoder.feed(data)]
        return self.frames

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


# -- History: the replay rule of the spec doc, without sockets -------------------------------------

def test_replay_found_sends_every_later_item_as_history():
    history = History(items(5))
    replay = history.replay(items(5)[1].timestamp, items(5)[1].value)
    assert pairs(replay) == [(i.timestamp, i.value) for i in items(5)[2:]]
    assert [r.status for r in replay] == [Status.history] * 3


def test_replay_found_newest_item_sends_nothing():
    history = History(items(5))
    assert history.replay(items(5)[-1].timestamp, items(5)[-1].value) == []


@pytest.mark.parametrize("timestamp, value", [
    (EPOCH, 0),  # a client that holds nothing
    (T0 + timedelta(milliseconds=10), 8),  # right timestamp, wrong value
    (T0 + timedelta(milliseconds=15), 7),  # right value, no such timestamp
    (T0 + timedelta(days=1), 0),  # newer than anything held
])
def test_replay_not_found_sends_whole_history_first_flagged(timestamp, value):
    history = History(items(4))
    replay = history.replay(timestamp, value)
    assert pairs(replay) == [(i.timestamp, i.value) for i in items(4)]
    assert [r.status for r in replay] == [Status.last_data_not_found, Status.history, Status.history,
                                         Status.history]


def test_replay_empty_history_sends_nothing():
    assert History().replay(EPOCH, 0) == []
    assert History().replay(T0, 5) == []


def test_replay_single_item_history():
    history = History(items(1))
    assert history.replay(T0, 0) == []
    assert [(r.status, r.data) for r in history.replay(EPOCH, 0)] == [(Status.last_data_not_found, 0)]


def test_bounded_history_forgets_oldest_and_then_cannot_find_it():
    history = History(items(6), max_length=3)
    assert [i.timestamp for i in history] == [i.timestamp for i in items(6)[3:]]
    replay = history.replay(items(6)[1].timestamp, items(6)[1].value)  # evicted: not found
    assert len(replay) == 3 and replay[0].status == Status.last_data_not_found


def test_history_rejects_timestamps_that_do_not_increase():
    history = History(items(2))
    with pytest.raises(ValueError):
        history.append(Item(items(2)[1].timestamp, 1))
    with pytest.raises(ValueError):
        Item(T0, 100)
    with pytest.raises(ValueError):
        Item(T0.replace(microsecond=123456), 1)


def test_new_items_are_millisecond_stamps_strictly_increasing_even_on_a_stuck_clock():
    stuck = datetime(2026, 1, 1, 0, 0, 0, 999999)
    history = History()
    made = [history.produce(random.Random(1), lambda: stuck) for _ in range(3)]
    assert [i.timestamp for i in made] == [datetime(2026, 1, 1, 0, 0, 0, 999000),
                                           datetime(2026, 1, 1, 0, 0, 1, 0),
                                           datetime(2026, 1, 1, 0, 0, 1, 1000)]
    stepped_back = next_item(made[-1].timestamp, random.Random(), lambda: datetime(2025, 1, 1))
    assert stepped_back.timestamp == made[-1].timestamp + timedelta(milliseconds=1)


def test_new_item_values_are_in_range_and_reproducible_from_the_seed():
    first = [next_item(None, rng, datetime.now).value for rng in [random.Random(42)] for _ in range(200)]
    again = [next_item(None, rng, datetime.now).value for rng in [random.Random(42)] for _ in range(200)]
    assert first == again
    assert set(first) <= set(range(100)) and len(set(first)) > 50


# -- the server, seen through raw sockets ----------------------------------------------------------

def test_server_replays_history_then_pushes_real_time():
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL, rng=random.Random(3)) as server:
            await until(lambda: len(server.history) >= 3)
            peer = await RawPeer.connect(server.port)
            await peer.send(request_bytes(EPOCH, 0))
            got = await peer.collect(len(server.history) + 3)
            statuses = [r.status for r in got]
            replayed = statuses.index(Status.real_time)
            assert replayed >= 3
            assert statuses == ([Status.last_data_not_found] + [Status.history] * (replayed - 1)
                                + [Status.real_time] * (len(got) - replayed))
            assert pairs(got) == history_as(server)[:len(got)]  # all of it, in order, once
            await peer.close()
    run(body())


def test_server_answers_a_second_request_from_its_point():
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 4)
            peer = await RawPeer.connect(server.port)
            await peer.send(request_bytes(EPOCH, 0))
            first = list(await peer.collect(6))
            anchor = first[1]
            await peer.send(request_bytes(anchor.timestamp, anchor.data))
            # Real-time items may still come first; then history from item 2 on, then real time again.
            while not (Status.history in [r.status for r in peer.frames[6:]]
                       and peer.frames[-1].status == Status.real_time):
                await peer.collect(len(peer.frames) + 1)
            await peer.collect(len(peer.frames) + 2)
            after = peer.frames[6:]
            start = [r.status for r in after].index(Status.history)
            second = after[start:]
            assert Status.last_data_not_found not in [r.status for r in second]
            statuses = [r.status for r in second]
            live = statuses.index(Status.real_time)
            assert statuses[:live] == [Status.history] * live
            assert set(statuses[live:]) == {Status.real_time}
            assert pairs(second) == history_as(server)[2:2 + len(second)]
            await peer.close()
    run(body())


def test_server_with_empty_history_sends_nothing_until_real_time():
    async def body():
        async with BroadcastServer(HOST, 0, 0.2) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(request_bytes(EPOCH, 0))
            await until(lambda: server.clients == 1)
            got = await peer.collect(1)
            assert got[0].status == Status.real_time
            assert pairs(got) == history_as(server)[:1]
            await peer.close()
    run(body())


def test_server_resyncs_after_garbage_on_the_same_connection(caplog):
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 2)
            peer = await RawPeer.connect(server.port)
            await peer.send(b"GET / HTTP/1.1\r\n\r\n" + request_bytes(EPOCH, 0))
            got = await peer.collect(3)
            assert got[0].status == Status.last_data_not_found
            assert pairs(got) == history_as(server)[:3]
            await peer.close()
    run(body())
    assert any("malformed bytes" in record.getMessage() for record in caplog.records)


def test_server_closes_a_connection_that_sends_too_much_garbage():
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL, max_garbage=100) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(b"\xff" * 200 + request_bytes(EPOCH, 0))
            async with asyncio.timeout(5):
                assert await peer.reader.read() == b""  # closed without an answer
            await until(lambda: server.clients == 0)
            await peer.close()
    run(body())


def test_garbage_clients_do_not_disturb_a_good_client():
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 2)
            good_out = io.StringIO()
            good = asyncio.create_task(run_client(HOST, server.port, 15, out=good_out))
            # One sends garbage and leaves, one a torn request and leaves, one stays and sends only garbage.
            for junk in (b"\x00\x00\x00\x26garbage" * 50, request_bytes(EPOCH, 0)[:20]):
                peer = await RawPeer.connect(server.port)
                await peer.send(junk)
                await peer.close()
            squatter = await RawPeer.connect(server.port)
            await squatter.send(bytes(range(256)) * 4)
            assert await good == 15
            lines = good_out.getvalue().splitlines()
            stamps = [datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f") for line in lines]
            assert stamps == [t for t, _ in history_as(server)[:15]]
            # Still serving newcomers.
            newcomer = await RawPeer.connect(server.port)
            await newcomer.send(request_bytes(EPOCH, 0))
            assert (await newcomer.collect(1))[0].status == Status.last_data_not_found
            await squatter.close()
            await newcomer.close()
    run(body())


def test_clients_vanishing_mid_replay_do_not_disturb_the_server():
    async def body():
        async with BroadcastServer(HOST, 0, 0.005) as server:
            await until(lambda: len(server.history) >= 50)
            for n in range(20):  # ask for the whole history, then reset or close without reading
                peer = await RawPeer.connect(server.port)
                await peer.send(request_bytes(EPOCH, 0))
                if n % 2:
                    peer.writer.transport.abort()
                else:
                    await peer.close()
            out = io.StringIO()
            assert await run_client(HOST, server.port, 60, out=out) == 60
            await until(lambda: server.clients == 0)
            assert len(out.getvalue().splitlines()) == 60
    run(body())


# -- client and server end to end --------------------------------------------------------------------

def test_client_prints_and_records_exactly_what_it_received(tmp_path):
    record = tmp_path / "dump.bin"

    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL, rng=random.Random(7)) as server:
            await until(lambda: len(server.history) >= 3)
            out = io.StringIO()
            assert await run_client(HOST, server.port, count=15, record=record, out=out) == 15
            return out.getvalue().splitlines(), history_as(server)

    lines, history = run(body())
    recorded = responses_in(record.read_bytes())
    assert len(record.read_bytes()) == 15 * 38
    assert lines == [format_item(r) for r in recorded]
    assert pairs(recorded) == history[:15]
    statuses = [r.status for r in recorded]
    live = statuses.index(Status.real_time)
    assert live >= 3
    assert statuses == [Status.last_data_not_found] + [Status.history] * (live - 1) + [Status.real_time] * (15 - live)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} last_data_not_found \d{1,2}", lines[0])


def test_client_resumes_after_the_server_drops_it():
    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 2)
            seen: list[DataResponse] = []

            def on_item(response: DataResponse) -> None:
                seen.append(response)
                if len(seen) in (4, 9):
                    server.disconnect_clients()

            client = BroadcastClient(HOST, server.port, out=io.StringIO(), on_item=on_item, backoff=0.01)
            assert await client.run(16) == 16
            return seen, client.connections, history_as(server)

    seen, connections, history = run(body())
    assert connections == 3
    assert pairs(seen) == history[:16]  # no duplicate, no gap
    assert [r.status for r in seen].count(Status.last_data_not_found) == 1


def test_client_resumes_across_runs_without_loss_or_duplicates(tmp_path):
    record = tmp_path / "dump.bin"

    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 2)
            client = BroadcastClient(HOST, server.port, record=record, out=io.StringIO())
            assert await client.run(5) == 5
            await asyncio.sleep(INTERVAL * 5)  # values produced while it is away come back as history
            assert await client.run(5) == 5
            resumed = BroadcastClient(HOST, server.port, record=record, out=io.StringIO(),
                                      resume=last_recorded(record))
            assert await resumed.run(5) == 5
            return history_as(server)

    history = run(body())
    recorded = responses_in(record.read_bytes())
    assert pairs(recorded) == history[:15]
    assert recorded[5].status == Status.history  # found: replay after it, nothing flagged
    assert [r.status for r in recorded].count(Status.last_data_not_found) == 1


async def _fake_server(script):
    """A server that runs `script(reader, writer, requests)` per connection, recording the requests."""
    requests: list[DataRequest] = []

    async def handle(reader, writer):
        data = await reader.readexactly(37)
        requests.append(inlong_proto.decode(data, "broadcast", "request").message.body)
        try:
            await script(writer, len(requests))
        finally:
            writer.close()

    server = await asyncio.start_server(handle, HOST, 0)
    return server, server.sockets[0].getsockname()[1], requests


def _responses(entries) -> bytes:
    return encode_responses([DataResponse(status=s, timestamp=t, data=v) for s, t, v in entries])


def test_client_survives_a_server_that_sends_garbage(tmp_path):
    record = tmp_path / "dump.bin"
    t = items(3)
    wrong_way = request_bytes(T0, 1)  # a valid frame, but a request: not for a client

    async def script(writer, _):
        writer.write(b"junk" + _responses([(Status.last_data_not_found, t[0].timestamp, t[0].value)])
                     + b"\x00\x00\x00\x26\x00\x00\x00\x01" + b"?" * 30 + wrong_way
                     + _responses([(Status.history, i.timestamp, i.value) for i in t[1:]]))
        await writer.drain()
        await asyncio.sleep(5)

    async def body():
        server, port, _ = await _fake_server(script)
        async with server:
            out = io.StringIO()
            assert await run_client(HOST, port, 3, record, out=out) == 3
            return out.getvalue().splitlines()

    lines = run(body())
    recorded = responses_in(record.read_bytes())  # only the good frames were recorded
    assert pairs(recorded) == [(i.timestamp, i.value) for i in t]
    assert lines == [format_item(r) for r in recorded]


def test_client_resumes_from_its_last_whole_item_after_a_torn_frame():
    t = items(4)

    async def script(writer, connection):
        if connection == 1:  # two items and half of a third, then the connection breaks
            data = _responses([(Status.last_data_not_found, i.timestamp, i.value) for i in t[:3]])
            writer.write(data[:38 * 2 + 19])
        else:
            writer.write(_responses([(Status.history, i.timestamp, i.value) for i in t[2:]]))
        await writer.drain()

    async def body():
        server, port, requests = await _fake_server(script)
        async with server:
            seen: list[DataResponse] = []
            client = BroadcastClient(HOST, port, out=io.StringIO(), on_item=seen.append, backoff=0.01)
            assert await client.run(4) == 4
            return seen, requests

    seen, requests = run(body())
    assert pairs(seen) == [(i.timestamp, i.value) for i in t]
    assert [(r.last_timestamp, r.last_data) for r in requests] == [(EPOCH, 0), (t[1].timestamp, t[1].value)]


def test_client_reconnects_when_the_server_goes_silent():
    t = items(2)

    async def script(writer, connection):  # one item per connection, then silence
        writer.write(_responses([(Status.history, t[connection - 1].timestamp, t[connection - 1].value)]))
        await writer.drain()
        await asyncio.sleep(5)

    async def body():
        server, port, requests = await _fake_server(script)
        async with server:
            seen: list[DataResponse] = []
            client = BroadcastClient(HOST, port, out=io.StringIO(), on_item=seen.append, backoff=0.01,
                                     idle_timeout=0.2)
            assert await client.run(2) == 2
            return seen, requests

    seen, requests = run(body())
    assert pairs(seen) == [(i.timestamp, i.value) for i in t]
    assert [(r.last_timestamp, r.last_data) for r in requests] == [(EPOCH, 0), (t[0].timestamp, t[0].value)]


def test_client_skips_items_it_already_holds_when_the_server_forgot_them():
    t = items(4)

    async def script(writer, _):  # answers as a server that lost our item: everything, flagged
        writer.write(_responses([(Status.last_data_not_found if n == 0 else Status.history, i.timestamp, i.value)
                                 for n, i in enumerate(t)]))
        await writer.drain()
        await asyncio.sleep(5)

    async def body():
        server, port, _ = await _fake_server(script)
        async with server:
            seen: list[DataResponse] = []
            client = BroadcastClient(HOST, port, out=io.StringIO(), on_item=seen.append,
                                     resume=(t[1].timestamp, t[1].value))
            assert await client.run(2) == 2
            return seen

    assert pairs(run(body())) == [(i.timestamp, i.value) for i in t[2:]]


def test_client_gives_up_after_its_retries():
    with socket.socket() as probe:  # a port with nothing listening
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]

    async def body():
        client = BroadcastClient(HOST, port, retries=2, backoff=0.01, out=io.StringIO())
        with pytest.raises(ConnectionError, match="after 3 attempts"):
            await client.run(1)
    run(body(), timeout=10)


# -- the CLI, as a user runs it -----------------------------------------------------------------------

CLI = [sys.executable, "-m", "inlong_proto", "broadcast"]


async def _cli(*args: str, timeout: float = 60.0):
    process = await asyncio.create_subprocess_exec(*CLI, *args, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode, stdout.decode(), stderr.decode()


def test_cli_client_prints_records_and_resumes(tmp_path):
    record = tmp_path / "dump.bin"

    async def body():
        async with BroadcastServer(HOST, 0, INTERVAL) as server:
            await until(lambda: len(server.history) >= 3)
            port = str(server.port)
            first = await _cli("client", "--port", port, "--count", "6", "--record", str(record))
            second = await _cli("client", "--port", port, "--count", "4", "--record", str(record), "--resume")
            return first, second, history_as(server)

    (rc1, out1, err1), (rc2, out2, err2), history = run(body(), timeout=120)
    assert (rc1, rc2) == (0, 0), err1 + err2
    recorded = responses_in(record.read_bytes())
    assert (out1 + out2).splitlines() == [format_item(r) for r in recorded]
    assert pairs(recorded) == history[:10]
    assert recorded[0].status == Status.last_data_not_found
    assert recorded[6].status in (Status.history, Status.real_time)  # resumed: found, not flagged
    assert "Traceback" not in err1 + err2


def test_cli_client_unreachable_server_is_one_error_line(tmp_path):
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    rc, out, err = run(_cli("client", "--port", str(port), "--retries", "0", "--log-level", "ERROR"),
                       timeout=120)
    assert rc == 1 and out == ""
    assert "Traceback" not in err and "cannot connect" in err


async def _interrupt(process: asyncio.subprocess.Process) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, stderr.decode()


def test_cli_ctrl_c_stops_client_and_server_cleanly():
    async def body():
        server = await asyncio.create_subprocess_exec(*CLI, "serve", "--port", "0", "--interval", str(INTERVAL),
                                                      "--seed", "5", stderr=asyncio.subprocess.PIPE)
        try:
            async with asyncio.timeout(60):
                line = ""
                while "listening on" not in line:
                    line = (await server.stderr.readline()).decode()
                    assert line, "server exited before listening"
            port = re.search(r"listening on [\d.]+:(\d+)", line).group(1)
            client = await asyncio.create_subprocess_exec(*CLI, "client", "--port", port,
                                                          stdout=asyncio.subprocess.PIPE,
                                                          stderr=asyncio.subprocess.PIPE)
            async with asyncio.timeout(60):
                first = (await client.stdout.readline()).decode()
            assert re.fullmatch(r"\S+ \S+ last_data_not_found \d{1,2}\n", first)
            client_rc, client_err = await _interrupt(client)
            server_rc, server_err = await _interrupt(server)
        finally:
            for process in (server,):
                if process.returncode is None:
                    process.kill()
                    await process.wait()
        return client_rc, client_err, server_rc, server_err

    client_rc, client_err, server_rc, server_err = run(body(), timeout=150)
    assert client_rc == 0 and "Traceback" not in client_err, client_err
    assert server_rc == 0 and "Traceback" not in server_err, server_err
    assert "interrupted" in client_err and "stopped" in server_err

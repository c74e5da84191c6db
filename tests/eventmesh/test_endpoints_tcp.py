"""The EventMesh TCP reference server and client over loopback: sessions, pub/sub, pushes and acks,
heartbeats, redirect, refusals as the runtime words them, bad peers, recorded dumps, and the CLI.

Every test is bounded: async bodies run under asyncio timeouts, timers are tens of milliseconds,
subprocesses are waited for with deadlines. Only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
import socket
import sys
from collections import Counter

import pytest

import inlong_proto
from inlong_proto.eventmesh import tcp
from inlong_proto.endpoints.eventmesh_client import EventMeshClient, EventMeshError, make_user_agent, text_message
from inlong_proto.endpoints.eventmesh_server import NO_PROCESSOR, NO_SESSION, EventMeshServer
from inlong_proto.eventmesh.tcp import CloudEvent, Command, RedirectInfo, SubscriptionMode, SubscriptionType
from peers import HOST, run, until

TOPIC = "inlong-proto-test"


def commands(data: bytes, direction: str | None = None) -> list[str]:
    """The commands of a dump, decoded strictly: any malformed byte fails the test."""
    return [frame.message_type for frame in inlong_proto.iter_frames(data, "eventmesh", direction)]


def payloads(data: bytes, direction: str | None = None) -> list[tcp.TcpMessage]:
    return [frame.payload for frame in inlong_proto.iter_frames(data, "eventmesh", direction)]


def client(port: int, purpose: str = "pub", group: str = "g-pub", **options) -> EventMeshClient:
    options.setdefault("heartbeat_interval", None)
    options.setdefault("timeout", 5.0)
    return EventMeshClient(HOST, port, user_agent=make_user_agent(purpose=purpose, group=group), **options)


def wire(message) -> bytes:
    return inlong_proto.encode(message)


class RawPeer:
    """A hand-driven EventMesh client over a plain socket, to see exactly what the server answers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.decoder = inlong_proto.StreamDecoder("eventmesh", direction="response")
        self.replies: list[tcp.TcpMessage] = []

    @classmethod
    async def connect(cls, port: int) -> "RawPeer":
        return cls(*await asyncio.open_connection(HOST, port))

    async def send(self, *chunks) -> None:
        for chunk in chunks:
            self.writer.write(chunk if isinstance(chunk, (bytes, bytearray)) else wire(chunk))
        await self.writer.drain()

    async def expect(self, n: int, timeout: float = 5.0) -> list[tcp.TcpMessage]:
        """Read until at least n frames have arrived in all."""
        async with asyncio.timeout(timeout):
            while len(self.replies) < n:
                data = await self.reader.read(4096)
                assert data, f"the server closed the connection after {len(self.replies)} frames"
                self.replies += [frame.payload for frame in self.decoder.feed(data)]
        return self.replies

    async def expect_closed(self, timeout: float = 5.0) -> list[tcp.TcpMessage]:
        """Read until the server closes; returns every frame that arrived meanwhile."""
        async with asyncio.timeout(timeout):
            while True:
                try:
                    data = await self.reader.read(4096)
                except ConnectionResetError:
                    break
                if not data:
                    break
                self.replies += [frame.payload for frame in self.decoder.feed(data)]
        return self.replies

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


def hello_frame(seq: str = "1000000001", **agent):
    agent.setdefault("purpose", "pub")
    return tcp.hello(make_user_agent(**agent), seq)


# -- the whole exchange between two clients, and its dumps ---------------------------------------

def test_publish_reaches_subscriber_through_server_and_dumps_hold_exactly_the_exchange(tmp_path):
    files = {name: tmp_path / f"{name}.bin" for name in
             ("server_rx", "server_tx", "sub_rx", "sub_tx", "pub_rx", "pub_tx")}

    async def body():
        async with EventMeshServer(HOST, 0, record=files["server_rx"], record_sent=files["server_tx"]) as server:
            sub = client(server.port, "sub", "g-sub", record=files["sub_rx"], record_sent=files["sub_tx"])
            pub = client(server.port, "pub", "g-pub", record=files["pub_rx"], record_sent=files["pub_tx"])
            async with sub, pub:
                subscribed = await sub.subscribe(TOPIC)
                listened = await sub.listen()
                beat = await pub.heartbeat()
                ack = await pub.publish_async(text_message(TOPIC, "hello, subscriber", properties={"k1": "v1"}))
                pushed = await sub.receive(timeout=5)
                await until(lambda: server.stats.push_acked == 1)
            await until(lambda: not server.connections)
            return server.stats, sub.report, pub.report, (subscribed, listened, beat, ack, pushed)

    stats, sub_report, pub_report, (subscribed, listened, beat, ack, pushed) = run(body())
    assert [m.command for m in (subscribed, listened, beat, ack)] == [
        Command.SUBSCRIBE_RESPONSE, Command.LISTEN_RESPONSE, Command.HEARTBEAT_RESPONSE,
        Command.ASYNC_MESSAGE_TO_SERVER_ACK]
    assert all((m.header.code, m.header.desc) == (0, "success") for m in (subscribed, listened, beat, ack))
    assert pushed.command == Command.ASYNC_MESSAGE_TO_CLIENT and pushed.protocol_type == "eventmeshmessage"
    assert pushed.header.properties == {"protocoltype": "eventmeshmessage"}  # pushes carry only protocoltype
    assert (pushed.body.topic, pushed.body.body) == (TOPIC, "hello, subscriber")
    assert pushed.body.properties == {"protocoltype": "eventmeshmessage", "protocolversion": "1.0",
                                      "protocoldesc": "tcp", "k1": "v1"}
    assert pushed.body.headers == {"datacontenttype": "text/plain"}
    assert (sub_report.messages, sub_report.acked, pub_report.publish_acked) == (1, 1, 1)
    assert sub_report.ok and pub_report.ok and sub_report.error is None and pub_report.error is None
    assert (stats.published, stats.pushed, stats.push_acked, stats.refused, stats.sessions) == (1, 1, 1, 0, 2)

    data = {name: path.read_bytes() for name, path in files.items()}
    assert commands(data["sub_tx"], "request") == [
        "HELLO_REQUEST", "SUBSCRIBE_REQUEST", "LISTEN_REQUEST", "ASYNC_MESSAGE_TO_CLIENT_ACK", "CLIENT_GOODBYE_REQUEST"]
    assert commands(data["sub_rx"], "response") == [
        "HELLO_RESPONSE", "SUBSCRIBE_RESPONSE", "LISTEN_RESPONSE", "ASYNC_MESSAGE_TO_CLIENT", "CLIENT_GOODBYE_RESPONSE"]
    assert commands(data["pub_tx"], "request") == [
        "HELLO_REQUEST", "HEARTBEAT_REQUEST", "ASYNC_MESSAGE_TO_SERVER", "CLIENT_GOODBYE_REQUEST"]
    assert commands(data["pub_rx"], "response") == [
        "HELLO_RESPONSE", "HEARTBEAT_RESPONSE", "ASYNC_MESSAGE_TO_SERVER_ACK", "CLIENT_GOODBYE_RESPONSE"]
    # the reports count exactly what the dumps hold
    assert Counter(commands(data["sub_rx"])) == sub_report.received
    assert Counter(commands(data["sub_tx"])) == sub_report.sent
    # the server's dumps are the two clients' dumps merged
    assert Counter(commands(data["server_rx"], "request")) == Counter(commands(data["sub_tx"]) + commands(data["pub_tx"]))
    assert Counter(commands(data["server_tx"], "response")) == Counter(commands(data["sub_rx"]) + commands(data["pub_rx"]))
    assert stats.received == Counter(commands(data["server_rx"])) and stats.sent == Counter(commands(data["server_tx"]))

    # replies echo the request's seq; the ack echoes the push's seq and its body as a Java String
    for requests, replies in ((payloads(data["sub_tx"]), payloads(data["sub_rx"])),
                              (payloads(data["pub_tx"]), payloads(data["pub_rx"]))):
        sent_seqs = [m.header.seq for m in requests if not m.command.name.endswith("_ACK")]
        got_seqs = [m.header.seq for m in replies if m.command != Command.ASYNC_MESSAGE_TO_CLIENT]
        assert sent_seqs == got_seqs
        assert all(re.fullmatch(r"[0-8]{10}", seq) for seq in sent_seqs)
    push = payloads(data["sub_rx"])[3]
    ack_of_push = payloads(data["sub_tx"])[3]
    assert ack_of_push.header.seq == push.header.seq and ack_of_push.body == push.raw_body.decode()
    assert ack_of_push.raw_body == tcp.json_bytes(push.raw_body.decode())  # JSON-quoted
    assert push.raw_body == pushed.raw_body


def test_clustering_gives_one_member_per_group_and_broadcasting_gives_everyone():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            a1, a2 = client(server.port, "sub", "group-a"), client(server.port, "sub", "group-a")
            b1 = client(server.port, "sub", "group-b")
            everyone = client(server.port, "sub", "group-c")
            pub = client(server.port)
            async with a1, a2, b1, everyone, pub:
                for sub in (a1, a2, b1):
                    await sub.subscribe(TOPIC, SubscriptionMode.CLUSTERING, SubscriptionType.ASYNC)
                    await sub.listen()
                await everyone.subscribe(TOPIC, "BROADCASTING", "ASYNC")
                await everyone.listen()
                for i in range(4):
                    await pub.publish_async(text_message(TOPIC, f"m{i}"))
                await until(lambda: server.stats.push_acked == 12)
                got = {}
                for name, sub in (("a1", a1), ("a2", a2), ("b1", b1), ("everyone", everyone)):
                    got[name] = [await sub.receive(timeout=5) for _ in range(sub.report.messages)]
            return got

    got = run(body())
    bodies = {name: [m.body.body for m in messages] for name, messages in got.items()}
    assert sorted(bodies["a1"] + bodies["a2"]) == ["m0", "m1", "m2", "m3"]  # each once within the group
    assert bodies["a1"] and bodies["a2"]  # in turn
    assert bodies["b1"] == bodies["everyone"] == ["m0", "m1", "m2", "m3"]
    assert {m.command for m in got["everyone"]} == {Command.BROADCAST_MESSAGE_TO_CLIENT}
    assert {m.command for m in got["a1"] + got["b1"]} == {Command.ASYNC_MESSAGE_TO_CLIENT}


def test_sync_subscribers_get_request_to_client_and_broadcast_publish_is_acked():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            sub, pub = client(server.port, "sub", "g-sync"), client(server.port)
            async with sub, pub:
                await sub.subscribe(TOPIC, type=SubscriptionType.SYNC)
                await sub.listen()
                ack = await pub.publish_broadcast(text_message(TOPIC, "sync please"))
                pushed = await sub.receive(timeout=5)
                await until(lambda: server.stats.push_acked == 1)
                return ack, pushed, sub.report

    ack, pushed, report = run(body())
    assert ack.command == Command.BROADCAST_MESSAGE_TO_SERVER_ACK and ack.header.code == 0
    assert pushed.command == Command.REQUEST_TO_CLIENT and report.sent["REQUEST_TO_CLIENT_ACK"] == 1


def test_a_push_before_listen_answers_the_listen_early_and_unsubscribe_stops_pushes():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            sub, pub = client(server.port, "sub", "g-sub"), client(server.port)
            async with sub, pub:
                await sub.subscribe(TOPIC)
                await pub.publish_async(text_message(TOPIC, "early"))
                first = await sub.receive(timeout=5)
                listened = await sub.listen()  # already answered by the push: nothing is sent
                await sub.unsubscribe()
                await pub.publish_async(text_message(TOPIC, "nobody listens"))
                await pub.heartbeat()  # the publish is handled by now
                with pytest.raises(TimeoutError):
                    await sub.receive(timeout=0.2)
                return first, listened, sub.report, server.stats

    first, listened, report, stats = run(body())
    assert first.body.body == "early"
    assert (listened.command, listened.header.code, listened.header.desc, listened.header.seq) == (
        Command.LISTEN_RESPONSE, 0, "succeed", None)
    assert "LISTEN_REQUEST" not in report.sent and report.messages == 1
    assert (stats.published, stats.pushed) == (2, 1)


def test_cloudevents_message_is_pushed_as_raw_bytes():
    event = CloudEvent(specversion="1.0", id="e-1", source="/test", type="demo", subject=TOPIC,
                       datacontenttype="application/cloudevents+json", data="payload")

    async def body():
        async with EventMeshServer(HOST, 0) as server:
            sub, pub = client(server.port, "sub", "g-sub"), client(server.port)
            async with sub, pub:
                await sub.subscribe(TOPIC)
                await sub.listen()
                await pub.publish_async(event)
                return await sub.receive(timeout=5)

    pushed = run(body())
    assert pushed.protocol_type == "cloudevents" and pushed.header.properties == {"protocoltype": "cloudevents"}
    assert pushed.body == event and pushed.raw_body == tcp.json_bytes(event)


# -- timers and server-initiated frames -------------------------------------------------------------

def test_heartbeats_go_out_on_a_timer():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            async with client(server.port, heartbeat_interval=0.03) as beating:
                await until(lambda: beating.report.heartbeats_answered >= 4)
                return beating.report, server.stats

    report, stats = run(body())
    assert report.heartbeats_answered >= 4 and report.sent["HEARTBEAT_REQUEST"] >= 4
    assert stats.received["HEARTBEAT_REQUEST"] >= 4 and report.ok


def test_redirect_is_received_reported_and_the_session_closed_later(tmp_path):
    received = tmp_path / "rx.bin"
    seen: list[RedirectInfo] = []

    async def body():
        async with EventMeshServer(HOST, 0) as server:
            c = client(server.port, "sub", "g-sub", record=received, on_redirect=seen.append)
            async with c:
                await until(lambda: len(server.sessions) == 1)
                server.redirect(server.sessions[0], "10.0.0.1", 10000, close_after=0.1)
                await c.wait_closed(timeout=5)
                return c.report, server.stats

    report, stats = run(body())
    assert report.redirects == [{"ip": "10.0.0.1", "port": 10000}]
    assert seen == [RedirectInfo(ip="10.0.0.1", port=10000)] and stats.redirects == 1
    assert "closed the connection" in report.error  # the session ended while it was open
    frames = payloads(received.read_bytes(), "response")
    assert [m.command for m in frames] == [Command.HELLO_RESPONSE, Command.REDIRECT_TO_CLIENT]
    redirect = frames[1]
    assert (redirect.header.code, redirect.header.desc, redirect.header.seq) == (0, None, None)


def test_stopping_the_server_says_goodbye_to_every_session():
    async def body():
        server = EventMeshServer(HOST, 0)
        await server.start()
        c = client(server.port)
        try:
            await c.connect()
            await c.hello()
            await server.stop()
            await c.wait_closed(timeout=5)
        finally:
            await c.close()
        return c.report, server.stats

    report, stats = run(body())
    assert report.server_goodbye == {"code": 0, "desc": "graceful normal quit from eventmesh"}
    assert report.error is None and stats.goodbyes == 1


# -- refusals, as the runtime words them ----------------------------------------------------------

def test_commands_before_hello_get_their_reply_command_with_code_1():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            c = client(server.port)
            try:
                await c.connect()
                errors = []
                for call in (c.heartbeat(), c.subscribe(TOPIC), c.listen(),
                             c.publish_async(text_message(TOPIC, "too early"))):
                    with pytest.raises(EventMeshError) as caught:
                        await call
                    errors.append(caught.value)
                hello = await c.hello()  # the connection is still usable
                return errors, hello, c.report
            finally:
                await c.close()

    errors, hello, report = run(body())
    assert [e.command for e in errors] == [Command.HEARTBEAT_RESPONSE, Command.SUBSCRIBE_RESPONSE,
                                           Command.LISTEN_RESPONSE, Command.ASYNC_MESSAGE_TO_SERVER_ACK]
    assert {(e.code, e.desc) for e in errors} == {(1, NO_SESSION)}
    assert hello.header.code == 0 and report.publish_failed == 1


def test_an_ack_before_hello_is_echoed_and_unregistered_commands_get_the_npe():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            try:
                ack = tcp.frame(tcp.header(Command.ASYNC_MESSAGE_TO_CLIENT_ACK, seq="42"), '{"x":1}')
                await peer.send(ack, hello_frame("1"), tcp.frame(tcp.header(Command.REGISTER_REQUEST, seq="2")),
                                tcp.reply(Command.HELLO_RESPONSE, "3"),  # a server command, sent by a client
                                tcp.frame(tcp.header(Command.RESPONSE_TO_SERVER, seq="4")),  # no reply at all
                                tcp.heartbeat("5"))
                return await peer.expect(5)
            finally:
                await peer.close()

    echo, hello, register, response, heartbeat = run(body())
    assert (echo.command, echo.header.code, echo.header.desc, echo.header.seq, echo.error_echo) == (
        Command.ASYNC_MESSAGE_TO_CLIENT_ACK, 1, NO_SESSION, "42", True)
    assert hello.command == Command.HELLO_RESPONSE and hello.header.code == 0
    assert (register.command, register.header.code, register.header.desc) == (Command.REGISTER_REQUEST, 1, NO_PROCESSOR)
    assert (response.command, response.header.code, response.header.desc) == (Command.HELLO_RESPONSE, 1, NO_PROCESSOR)
    assert (heartbeat.command, heartbeat.header.seq) == (Command.HEARTBEAT_RESPONSE, "5")


@pytest.mark.parametrize("agent, reason", [
    ({"purpose": "both"}, "purpose"),
    ({"group": "  "}, "group"),
    ({"version": None}, "version"),
])
def test_a_refused_hello_answers_code_1_and_closes_the_session(agent, reason):
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            try:
                await peer.send(hello_frame("7", **agent))
                return await peer.expect_closed()
            finally:
                await peer.close()

    (reply,) = run(body())
    assert (reply.command, reply.header.code, reply.header.seq) == (Command.HELLO_RESPONSE, 1, "7")
    assert reason in reply.header.desc


def test_messages_the_runtime_refuses_get_a_failed_ack_and_the_session_goes_on():
    async def body():
        async with EventMeshServer(HOST, 0) as server:
            async with client(server.port) as pub:
                outcomes = []
                for message in (text_message(TOPIC, "x", properties={"TTL": "4000"}),  # not a CE extension name
                                text_message(TOPIC, "x" * 1001),  # over maxEventSize
                                text_message("", "no topic"),
                                text_message(TOPIC, "x" * 1000)):  # at the limit: fine
                    try:
                        outcomes.append(await pub.publish_async(message))
                    except EventMeshError as exc:
                        outcomes.append(exc)
                peer = await RawPeer.connect(server.port)
                try:  # a message without the protocol properties, as a careless client sends it
                    bare = tcp.frame(tcp.header(Command.ASYNC_MESSAGE_TO_SERVER, seq="9"),
                                     text_message(TOPIC, "bare"))
                    await peer.send(hello_frame("8"), bare)
                    _, missing = await peer.expect(2)
                finally:
                    await peer.close()
                return outcomes, missing, pub.report

    (bad_name, too_big, no_topic, fine), missing, report = run(body())
    assert "Abnormal propKey: TTL" in bad_name.desc and bad_name.code == 1
    assert too_big.desc == "event size exceeds the limit: 1000"
    assert "topic" in no_topic.desc
    assert fine.command == Command.ASYNC_MESSAGE_TO_SERVER_ACK and fine.header.code == 0
    assert (missing.command, missing.header.code, missing.header.seq) == (Command.ASYNC_MESSAGE_TO_SERVER_ACK, 1, "9")
    assert "protocoltype" in missing.header.desc
    assert (report.publish_failed, report.publish_acked, report.ok) == (3, 1, False)


def test_recommend_is_answered_without_a_session():
    async def body():
        async with EventMeshServer(HOST, 0, recommend="10.0.0.2:10000") as server:
            peer = await RawPeer.connect(server.port)
            try:
                await peer.send(tcp.frame(tcp.header(Command.RECOMMEND_REQUEST, seq="1"),
                                          make_user_agent(purpose="sub")))
                return await peer.expect(1)
            finally:
                await peer.close()

    (reply,) = run(body())
    assert (reply.command, reply.header.code, reply.body) == (Command.RECOMMEND_RESPONSE, 0, "10.0.0.2:10000")
    assert reply.raw_body == b'"10.0.0.2:10000"'  # a Java String: JSON-quoted


# -- bad peers ---------------------------------------------------------------------------------------

def test_garbage_and_torn_frames_close_only_their_own_connection(caplog):
    caplog.set_level(logging.INFO, logger="inlong_proto")

    async def body():
        async with EventMeshServer(HOST, 0, idle_timeout=0.5) as server:
            # the well-behaved clients keep their sessions alive with heartbeats
            sub = client(server.port, "sub", "g-sub", heartbeat_interval=0.1)
            pub = client(server.port, heartbeat_interval=0.1)
            async with sub, pub:
                await sub.subscribe(TOPIC)
                await sub.listen()
                await pub.publish_async(text_message(TOPIC, "before"))

                http = await RawPeer.connect(server.port)
                await http.send(b"GET / HTTP/1.1\r\nHost: eventmesh\r\n\r\n")
                bad_json = await RawPeer.connect(server.port)  # a good hello, then a header that is no JSON
                await bad_json.send(wire(hello_frame()) + wire(tcp.TcpFrame(package=tcp.Package(header='{"cmd":',
                                                                                                body=b""))))
                huge = await RawPeer.connect(server.port)  # magic, version, then a length far over the limit
                await huge.send(b"EventMesh0000\x7f\xff\xff\xff\x00\x00\x00\x10")
                torn = await RawPeer.connect(server.port)  # half a frame, then gone
                await torn.send(wire(hello_frame()) + wire(tcp.heartbeat("2"))[:30])
                await torn.close()
                silent = await RawPeer.connect(server.port)  # half a frame, then silence
                await silent.send(wire(tcp.heartbeat("3"))[:25])

                await pub.publish_async(text_message(TOPIC, "during"))
                closed = [await peer.expect_closed() for peer in (http, bad_json, huge)]
                silent_replies = await silent.expect_closed(timeout=5)  # the idle timeout closes it
                for peer in (http, bad_json, huge, silent):
                    await peer.close()
                await pub.publish_async(text_message(TOPIC, "after"))
                got = [(await sub.receive(timeout=5)).body.body for _ in range(3)]
                await until(lambda: len(server.connections) == 2)
                return got, closed, silent_replies, server.stats

    got, (http, bad_json, huge), silent, stats = run(body())
    assert got == ["before", "during", "after"]
    assert http == [] and huge == [] and silent == []  # closed silently, as the runtime's decoder does
    assert [m.command for m in bad_json] == [Command.HELLO_RESPONSE]  # the frame before the bad one is answered
    assert stats.closed_for_bad_input == 4  # http, bad JSON, huge length, the torn frame at EOF
    assert stats.push_acked == 3
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "a bad peer must not cause an error"
    assert any("idle" in r.getMessage() for r in caplog.records)


def test_the_client_survives_a_server_that_sends_garbage_or_vanishes_mid_frame():
    async def garbage(reader, writer):
        await reader.read(65536)
        writer.write(b"this is not EventMesh\r\n")
        await writer.drain()
        await reader.read(65536)
        writer.close()

    async def torn(reader, writer):
        frames = inlong_proto.StreamDecoder("eventmesh", "request").feed(await reader.read(65536))
        writer.write(wire(tcp.reply(Command.HELLO_RESPONSE, frames[0].payload.header.seq))[:40])
        await writer.drain()
        writer.close()

    async def body():
        outcomes = []
        for handler in (garbage, torn):
            server = await asyncio.start_server(handler, HOST, 0)
            async with server:
                c = client(server.sockets[0].getsockname()[1])
                with pytest.raises(ConnectionError):
                    async with c:
                        pass
                outcomes.append((c.closed, c.report.error))
        return outcomes

    (closed1, error1), (closed2, error2) = run(body())
    assert closed1 and "do not decode" in error1
    assert closed2 and "do not decode" in error2  # the stream ends inside a frame


def test_a_refused_connection_is_a_connection_error():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        free = probe.getsockname()[1]

    async def body():
        c = client(free)
        with pytest.raises(ConnectionError):
            await c.connect()
        return c.report

    assert "cannot connect" in run(body()).error


# -- the CLI, as a user runs it ----------------------------------------------------------------------

CLI = [sys.executable, "-m", "inlong_proto", "eventmesh"]


class _Process:
    """A CLI subprocess whose stderr is collected as it comes (so it can be waited on)."""

    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process
        self.stderr: list[str] = []
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, *args: str) -> "_Process":
        return cls(await asyncio.create_subprocess_exec(*CLI, *args, stdin=asyncio.subprocess.DEVNULL,
                                                        stdout=asyncio.subprocess.PIPE,
                                                        stderr=asyncio.subprocess.PIPE))

    async def _read(self) -> None:
        while line := await self.process.stderr.readline():
            self.stderr.append(line.decode())

    def logged(self, text: str) -> int:
        return sum(text in line for line in self.stderr)

    async def finish(self, interrupt: bool = False, timeout: float = 60.0) -> tuple[int, str, str]:
        try:
            if interrupt:
                self.process.send_signal(signal.SIGINT)
            stdout = await asyncio.wait_for(self.process.stdout.read(), timeout)
            await asyncio.wait_for(self.process.wait(), timeout)
            await asyncio.wait_for(self._reader, timeout)
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
        return self.process.returncode, stdout.decode(), "".join(self.stderr)


def _lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_cli_serve_and_clients(tmp_path):
    server_rx, server_tx, listener_rx, listener_tx = (tmp_path / f"{n}.bin" for n in ("srx", "stx", "lrx", "ltx"))

    async def body():
        started: list[_Process] = []

        async def start(*args: str) -> _Process:
            started.append(await _Process.start(*args))
            return started[-1]

        try:
            server = await start("serve", "--port", "0", "--record", str(server_rx), "--record-sent", str(server_tx))
            await until(lambda: server.logged("listening on"), timeout=60)
            port = re.search(r"listening on [\d.]+:(\d+)", "".join(server.stderr)).group(1)
            listener = await start("client", "--port", port, "--topic", "T1", "--listen", "--count", "3",
                                   "--record", str(listener_rx), "--record-sent", str(listener_tx),
                                   "--heartbeat-interval", "0.1")
            idle = await start("client", "--port", port, "--topic", "T2", "--listen")
            await until(lambda: server.logged("subscribed to") == 2, timeout=60)
            publisher = await start("client", "--port", port, "--topic", "T1", "--publish", "3", "--body", "hi")
            published = await publisher.finish()
            listened = await listener.finish()
            interrupted = await idle.finish(interrupt=True)
            stopped = await server.finish(interrupt=True)
        finally:
            for process in started:
                if process.process.returncode is None:
                    process.process.kill()
                    await process.process.wait()
        return published, listened, interrupted, stopped

    published, listened, interrupted, stopped = run(body(), timeout=200)
    for rc, out, err in (published, listened, interrupted, stopped):
        assert rc == 0, out + err
        assert "Traceback" not in err, err

    (summary,) = _lines(published[1])
    assert (summary["published"], summary["publish_acked"], summary["ok"]) == (3, 3, True)

    *messages, summary = _lines(listened[1])
    assert [(m["command"], m["topic"], m["body"]) for m in messages] == [
        ("ASYNC_MESSAGE_TO_CLIENT", "T1", f"hi-{i}") for i in range(3)]
    assert (summary["messages"], summary["acked"], summary["ok"]) == (3, 3, True)
    assert summary["heartbeats_answered"] >= 1
    assert Counter(commands(listener_rx.read_bytes(), "response")) == summary["received"]
    assert Counter(commands(listener_tx.read_bytes(), "request")) == summary["sent"]
    assert commands(listener_tx.read_bytes())[-1] == "CLIENT_GOODBYE_REQUEST"

    (summary,) = _lines(interrupted[1])
    assert summary["interrupted"] is True and summary["sent"]["CLIENT_GOODBYE_REQUEST"] == 1 and summary["ok"]

    stats = _lines(stopped[1])[-1]
    assert (stats["sessions"], stats["published"], stats["pushed"], stats["push_acked"]) == (3, 3, 3, 3)
    assert Counter(commands(server_rx.read_bytes(), "request")) == stats["received"]
    assert Counter(commands(server_tx.read_bytes(), "response")) == stats["sent"]


def test_cli_client_exits_1_when_it_cannot_connect_or_its_options_clash():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        free = str(probe.getsockname()[1])

    async def body():
        refused = await (await _Process.start("client", "--port", free, "--publish", "1")).finish()
        clash = await (await _Process.start("client", "--port", free, "--count", "2")).finish()
        return refused, clash

    (rc1, out1, err1), (rc2, _, err2) = run(body(), timeout=120)
    assert rc1 == 1 and "cannot connect" in json.loads(out1)["error"], err1
    assert rc2 == 2 and "--count needs --listen" in err2
    assert "Traceback" not in err1 + err2

"""The EventMesh HTTP and gRPC reference runtimes against clients that try to turn them on their network
(issue 24, items 10 and 11).

* 10, webhook SSRF: any client could subscribe any url, and one publish made the runtime POST the client's
  content there (a plain TCP sink on loopback got `POST /internal/admin?x=1`), through `http-serve` and
  through gRPC `ConsumerService.subscribe`. Now a url first gets the CloudEvents abuse-protection handshake
  (OPTIONS with WebHook-Request-Origin) and a POST only once it answered 200 with WebHook-Allowed-Origin;
  --webhook-allow names the targets that skip it.
* 10, floods: 17,000 subscriptions and one publish queued 10,000 pushes (46 -> 149 MiB) and wrote 15,500 log
  lines in 6 s. Now one client holds at most max_subscriptions, pushes waiting are capped, and log lines are
  limited over all peers and webhooks together (endpoints.LogBudget), not only per webhook.
* 11: `grpc-serve --idle-timeout 2` kept 400 silent or preface-only connections open for 30 s and more.

Every body runs under a deadline; only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import time
import tracemalloc

import pytest

from inlong_proto.endpoints.common import LogBudget, PeerLog
from inlong_proto.eventmesh.http import RetCode, SubscriptionItem, SubscriptionMode, SubscriptionType
from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpClient, EventMeshHttpError, WebhookReceiver
from inlong_proto.endpoints.eventmesh_http_server import (DEFAULT_MAX_SUBSCRIPTIONS, DEFAULT_WEBHOOK_ORIGIN,
                                                          EventMeshHttpServer)
from peers import HOST, run, until

TOPIC = "inlong-proto-hardening"
ADMIN = "/internal/admin?x=1"


def item(topic: str = TOPIC) -> SubscriptionItem:
    return SubscriptionItem(topic=topic, mode=SubscriptionMode("BROADCASTING"), type=SubscriptionType("ASYNC"))


class Sink:
    """A loopback TCP service that is no webhook: it records every byte each connection sends and, once a
    request head is in, answers `answer` (b"": nothing) and closes, as a naive internal HTTP service might."""

    def __init__(self, answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"retCode\": 0}\n"):
        self.answer = answer
        self.received: list[bytes] = []
        self.server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        return self.server.sockets[0].getsockname()[1]

    def url(self, path: str = ADMIN) -> str:
        return f"http://{HOST}:{self.port}{path}"

    @property
    def everything(self) -> bytes:
        return b"".join(self.received)

    async def _handle(self, reader, writer) -> None:
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = await asyncio.wait_for(reader.read(65536), 5)
                if not chunk:
                    break
                data += chunk
            self.received.append(data)
            writer.write(self.answer)
            await writer.drain()
        except (OSError, TimeoutError):
            self.received.append(data)
        finally:
            writer.close()

    async def __aenter__(self) -> "Sink":
        self.server = await asyncio.start_server(self._handle, HOST, 0)
        return self

    async def __aexit__(self, *exc_info) -> None:
        self.server.close()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


# -- the handshake, over HTTP ---------------------------------------------------------------------------------

def test_a_service_that_never_agreed_gets_no_post_only_the_handshake():
    """The recipe: subscribe a url on a loopback service of the client's choosing, publish. The service (a
    naive one that answers 200 to anything) sees one OPTIONS request for that url and never a POST; its
    refusal is remembered, so later publishes do not even connect."""
    async def body():
        async with Sink() as sink, EventMeshHttpServer(HOST, 0) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            try:
                await client.subscribe([item()], sink.url())
                for i in range(2):
                    await client.publish(TOPIC, f"attacker content {i}")
                await until(lambda: server.stats.push_refused == 2)
                await client.publish(TOPIC, "attacker content 2")
                await until(lambda: server.stats.push_refused == 3)
                await asyncio.sleep(0.1)
            finally:
                await client.close()
            return sink.received, server.stats

    received, stats = run(body())
    assert len(received) == 1, received
    head = received[0].lower()
    assert head.startswith(f"options {ADMIN} http/1.1\r\n".encode())
    assert f"webhook-request-origin: {DEFAULT_WEBHOOK_ORIGIN}\r\n".encode() in head
    assert b"post" not in head and b"attacker" not in head
    assert (stats.handshakes, stats.webhooks_refused, stats.push_refused, stats.pushed) == (1, 1, 3, 0)
    assert stats.published == 3 and stats.push_ok == 0


@pytest.mark.parametrize("answer", [
    b"", b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nWebHook-Allowed-Origin: someone-else\r\nContent-Length: 0\r\n\r\n"])
def test_no_answer_or_a_wrong_one_is_no_agreement(answer):
    """Silence is retried like a push that got no answer (then counted failed), a non-HTTP answer, a 403 or
    another origin is a refusal: in no case does a POST go out."""
    async def body():
        async with Sink(answer) as sink, EventMeshHttpServer(HOST, 0, retry_delay=0.01, push_timeout=1) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            try:
                await client.subscribe([item()], sink.url())
                await client.publish(TOPIC, "attacker content")
                await until(lambda: server.stats.push_failed + server.stats.push_refused == 1)
            finally:
                await client.close()
            return sink.received, server.stats

    received, stats = run(body())
    assert all(r.startswith(b"OPTIONS ") for r in received) and b"attacker" not in b"".join(received)
    assert stats.pushed == 0
    if answer:
        assert (len(received), stats.webhooks_refused, stats.push_refused) == (1, 1, 1)
    else:
        assert (len(received), stats.push_retries, stats.push_failed) == (4, 3, 1)


def test_the_reference_webhook_agrees_for_its_origins_only():
    async def body():
        async with EventMeshHttpServer(HOST, 0) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            async with WebhookReceiver(allowed_origins=["someone-else"]) as no, \
                    WebhookReceiver(allowed_origins=[DEFAULT_WEBHOOK_ORIGIN.upper()]) as yes:
                await client.subscribe([item()], no.url)
                await client.subscribe([item()], yes.url)
                await client.publish(TOPIC, "only for yes")
                async with asyncio.timeout(5):
                    push = await yes.receive()
                await until(lambda: server.stats.push_refused == 1)
            await client.close()
            return push, no.report, yes.report, server.stats

    push, no, yes, stats = run(body())
    assert push.fields["content"] == "only for yes"
    assert (dict(no.handshakes), no.messages) == ({"refused": 1}, 0)
    assert (dict(yes.handshakes), yes.messages) == ({"allowed": 1}, 1)
    assert (stats.handshakes, stats.webhooks_refused, stats.pushed, stats.push_ok) == (2, 1, 1, 1)


def test_the_allow_list_skips_the_handshake_and_nothing_else_does():
    """--webhook-allow HOST:PORT: pushed to at once, no OPTIONS (even a service that would refuse it)."""
    async def body():
        async with Sink() as listed, Sink() as other:
            async with EventMeshHttpServer(HOST, 0, webhook_allow=[f"localhost:{closed_port()}",
                                                                   f"{HOST}:{listed.port}"]) as server:
                client = EventMeshHttpClient(HOST, server.port, timeout=5)
                try:
                    await client.subscribe([item()], listed.url("/hook"))
                    await client.subscribe([item()], other.url("/hook"))
                    await client.publish(TOPIC, "for the listed one")
                    await until(lambda: server.stats.pushed == 1 and server.stats.push_refused == 1)
                finally:
                    await client.close()
                return listed.received, other.received, server.stats

    listed, other, stats = run(body())
    assert [r.split(b" ", 2)[:2] for r in listed] == [[b"POST", b"/hook"]]
    assert [r.split(b" ", 2)[:2] for r in other] == [[b"OPTIONS", b"/hook"]]
    assert stats.handshakes == 1


def test_webhook_allowed_rate_paces_the_pushes():
    """A webhook answering WebHook-Allowed-Rate: 1200 (per minute) gets a push every 50 ms at most."""
    n = 5

    async def body():
        async with EventMeshHttpServer(HOST, 0) as server, WebhookReceiver(allowed_rate=1200) as hook:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            await client.subscribe([item()], hook.url)
            for i in range(n):
                await client.publish(TOPIC, f"m{i}")
            started = time.monotonic()
            async with asyncio.timeout(5):
                got = [await hook.receive() for _ in range(n)]
            await client.close()
            return time.monotonic() - started, [p.fields["content"] for p in got]

    elapsed, contents = run(body())
    assert contents == [f"m{i}" for i in range(n)]
    assert elapsed >= (n - 1) * 0.05 * 0.9, elapsed


# -- floods ---------------------------------------------------------------------------------------------------

def test_one_client_cannot_subscribe_its_way_to_thousands_of_pushes():
    """The recipe, scaled: one client subscribes 400 webhook urls and publishes once. It holds
    DEFAULT_MAX_SUBSCRIPTIONS of them (the rest get retCode 19), so at most that many pushes wait, and the
    server grows by well under 4 MiB (the 17,000-subscription run grew it by 103 MiB)."""
    tries = 400
    port = closed_port()

    async def body():
        async with EventMeshHttpServer(HOST, 0, retry_delay=60) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                refused = []
                for i in range(tries):
                    try:
                        await client.subscribe([item()], f"http://{HOST}:{port}/hook/{i}")
                    except EventMeshHttpError as exc:
                        refused.append(exc.ret_code)
                await client.publish(TOPIC, "to everyone")
                pending = server.pending_pushes
                growth = tracemalloc.get_traced_memory()[0] - before
            finally:
                tracemalloc.stop()
                await client.close()
            return refused, pending, growth, server.stats

    refused, pending, growth, stats = run(body(), timeout=60)  # a hard deadline, not a speed
    assert refused == [int(RetCode.EVENTMESH_SUBSCRIBE_ERR)] * (tries - DEFAULT_MAX_SUBSCRIPTIONS)
    assert stats.subscriptions == DEFAULT_MAX_SUBSCRIPTIONS and stats.subscriptions_refused == len(refused)
    assert pending <= DEFAULT_MAX_SUBSCRIPTIONS
    assert growth < 4 << 20, growth


def test_log_lines_are_limited_over_all_webhooks_together(caplog):
    """1,000 webhooks that all fail at once: each webhook's own limit lets its first lines through, which
    added up to thousands of lines; the shared budget (20 lines per second here) keeps the total near
    20 + 20 per second, and counts the rest."""
    caplog.set_level(logging.INFO, logger="inlong_proto")
    webhooks = 1000
    port = closed_port()
    budget = LogBudget(rate=20)

    async def body():
        async with EventMeshHttpServer(HOST, 0, retry_delay=60, max_subscriptions=webhooks,
                                       log_budget=budget) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            try:
                for i in range(webhooks):
                    await client.subscribe([item()], f"http://{HOST}:{port}/hook/{i}")
                started = time.monotonic()
                caplog.clear()
                await client.publish(TOPIC, "to everyone")
                await until(lambda: server.stats.handshakes == webhooks)
                await until(lambda: server.stats.push_retries == webhooks)  # every handshake failed and was logged
                elapsed = time.monotonic() - started
                lines = len(caplog.records)
            finally:
                await client.close()
            return lines, elapsed

    lines, elapsed = run(body(), timeout=60)
    assert lines <= 20 + 20 * elapsed + 5, (lines, elapsed)
    assert budget.total_suppressed >= webhooks - lines
    assert any("over the global limit" in r.getMessage() for r in caplog.records)


def test_the_log_budget_folds_summaries_it_cannot_write_into_one_line(caplog):
    caplog.set_level(logging.INFO, logger="test.budget")
    clock = [0.0]
    budget = LogBudget(rate=1, burst=2, clock=lambda: clock[0])
    logger = logging.getLogger("test.budget")
    a, b = (PeerLog(logger, name, rate=10, clock=lambda: clock[0], budget=budget) for name in "ab")
    for i in range(3):
        a.info("a %d", i)
    b.info("b 0")
    a.flush()
    b.flush()
    assert [r.getMessage() for r in caplog.records] == ["a: a 0", "a: a 1"]
    clock[0] = 1.0
    b.info("b 1")
    assert [r.getMessage() for r in caplog.records][2:] == [
        "suppressed 2 log line(s) over the global limit of 1 per second", "b: b 1"]
    assert (a.total_suppressed, b.total_suppressed, budget.total_suppressed) == (1, 1, 2)


# -- gRPC -----------------------------------------------------------------------------------------------------

grpc_needed = pytest.mark.skipif(not __import__("importlib").util.find_spec("grpc"), reason="grpcio not installed")


@grpc_needed
def test_grpc_subscribe_gets_the_same_handshake():
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient
    from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer

    async def body():
        async with Sink() as sink, EventMeshGrpcServer(HOST, 0) as server, WebhookReceiver() as hook:
            async with EventMeshGrpcClient(HOST, server.port) as client:
                await client.subscribe([(TOPIC, "BROADCASTING", "ASYNC")], sink.url())
                await client.subscribe([(TOPIC, "BROADCASTING", "ASYNC")], hook.url)
                await client.publish(client.message(TOPIC, "attacker content"))
                async with asyncio.timeout(5):
                    push = await hook.receive()
                await until(lambda: server.stats.push_refused == 1)
            return sink.received, push, server.stats

    received, push, stats = run(body())
    assert len(received) == 1 and received[0].startswith(f"OPTIONS {ADMIN} ".encode())
    assert b"attacker" not in received[0] and push.fields["content"] == "attacker content"
    assert (stats.handshakes, stats.webhooks_refused, stats.pushed, stats.push_ok) == (2, 1, 1, 1)


@grpc_needed
def test_grpc_subscriptions_are_capped_per_client_over_webhooks_and_streams():
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient, EventMeshGrpcError
    from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer

    async def body():
        async with EventMeshGrpcServer(HOST, 0, max_subscriptions=3) as server:
            async with EventMeshGrpcClient(HOST, server.port) as client:
                url = f"http://{HOST}:{closed_port()}/"
                await client.subscribe(["t1", "t2"], url)
                await client.subscribe(["t1", "t2"], url)  # the same ones again: nothing new
                stream = await client.stream(["t3"])
                refused = []
                for attempt in (lambda: client.subscribe(["t4"], url), lambda: client.stream(["t5"])):
                    try:
                        await attempt()
                    except EventMeshGrpcError as exc:
                        refused.append(exc.response.code if exc.response else str(exc))
                await stream.close()
            return refused, server.stats.subscriptions_refused

    refused, counted = run(body())
    assert refused == ["17", "17"] and counted == 2


@grpc_needed
def test_grpc_serve_closes_silent_and_preface_only_connections_after_the_idle_timeout():
    """The recipe, scaled: 100 silent and 100 preface-only connections to a server with idle_timeout 1 are
    all closed within 1 + 2 s (they were all open after 30 s), and a client whose connection went idle
    between two calls still gets both answered."""
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient
    from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer

    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    async def body():
        async with EventMeshGrpcServer(HOST, 0, idle_timeout=1) as server:
            socks = []
            for i in range(200):
                sock = socket.create_connection((HOST, server.port))
                sock.setblocking(False)
                if i % 2:
                    sock.send(preface)
                socks.append(sock)
            started = time.monotonic()
            closed: dict[int, float] = {}
            try:
                async with asyncio.timeout(3):
                    while len(closed) < len(socks):
                        await asyncio.sleep(0.05)
                        for n, sock in enumerate(socks):
                            if n in closed:
                                continue
                            try:
                                while sock.recv(65536):
                                    pass
                                closed[n] = time.monotonic() - started
                            except BlockingIOError:
                                pass
                            except OSError:
                                closed[n] = time.monotonic() - started
            except TimeoutError:
                pass
            finally:
                for sock in socks:
                    sock.close()
            async with EventMeshGrpcClient(HOST, server.port) as client:
                first = await client.publish(client.message(TOPIC, "before"))
                await asyncio.sleep(1.5)
                second = await client.publish(client.message(TOPIC, "after an idle second and a half"))
            return closed, first.ok, second.ok

    closed, first, second = run(body())
    assert len(closed) == 200, f"{200 - len(closed)} connections still open after 3 s"
    assert 0.5 < min(closed.values()) and max(closed.values()) < 3
    assert first and second


# -- the CLI --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["http-serve", "grpc-serve"])
def test_cli_webhook_allow_takes_host_port_only(command):
    done = subprocess.run([sys.executable, "-m", "inlong_proto", "eventmesh", command, "--webhook-allow",
                           "http://127.0.0.1/", "--port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "HOST:PORT" in done.stderr and "Traceback" not in done.stderr

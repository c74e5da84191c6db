"""The EventMesh HTTP reference server, client and webhook over loopback: publish, subscribe by webhook,
heartbeat, unsubscribe, sync request-reply, webhook failures, hostile input, recorded dumps, and the CLI.

Every message an endpoint writes is recorded and decoded strictly (FAILFAST) by the project's own
decoder, which must find nothing to warn about. Every test is bounded; only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
from collections import Counter

import pytest

from inlong_proto.eventmesh import http
from inlong_proto.eventmesh.http import ClientRetCode, RetCode, SubscriptionItem, SubscriptionMode, SubscriptionType
from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpClient, EventMeshHttpError, WebhookReceiver
from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer, Refused, RequestReader
from peers import HOST, closed_by_server, run, until

TOPIC = "inlong-proto-http"


def messages(path, direction: str) -> list:
    """Every message of a recorded dump, decoded strictly; none may carry a warning."""
    found = list(http.iter_messages(path.read_bytes(), direction))
    assert all(m.direction == direction and not m.warnings for m in found), [m.warnings for m in found]
    return found


def item(topic: str = TOPIC, type_: str = "ASYNC", mode: str = "CLUSTERING") -> SubscriptionItem:
    return SubscriptionItem(topic=topic, mode=SubscriptionMode(mode), type=SubscriptionType(type_))


async def receive(receiver: WebhookReceiver, n: int, timeout: float = 10.0) -> list:
    async with asyncio.timeout(timeout):
        return [await receiver.receive() for _ in range(n)]


# -- the whole exchange, and its dumps ----------------------------------------------------------------

def test_published_messages_reach_the_webhook_and_every_dump_decodes(tmp_path):
    names = ("srx", "stx", "spush", "sreply", "crx", "ctx", "wpush", "wreply", "prx", "ptx")
    files = {name: tmp_path / f"{name}.bin" for name in names}
    n = 8

    async def body():
        async with EventMeshHttpServer(HOST, 0, record=files["srx"], record_sent=files["stx"],
                                       record_pushes=files["spush"], record_push_replies=files["sreply"]) as server:
            sub = EventMeshHttpClient(HOST, server.port, record=files["crx"], record_sent=files["ctx"], timeout=5)
            pub = EventMeshHttpClient(HOST, server.port, record=files["prx"], record_sent=files["ptx"], timeout=5)
            async with WebhookReceiver(record_pushes=files["wpush"], record_push_replies=files["wreply"]) as hook:
                await sub.subscribe([item()], hook.url)
                beat = await sub.heartbeat([TOPIC], hook.url)
                answers = [await pub.publish(TOPIC, f"message {i} ünïcode & = +") for i in range(n)]
                pushes = await receive(hook, n)
                await until(lambda: server.stats.push_ok == n)
                await sub.unsubscribe([TOPIC], hook.url)
                await pub.publish(TOPIC, "after the unsubscribe")
                await asyncio.sleep(0.3)
                late = hook.waiting
            await sub.close()
            await pub.close()
        return server.stats, sub.report, pub.report, beat, answers, pushes, late

    stats, sub_report, pub_report, beat, answers, pushes, late = run(body())
    assert [p.fields["content"] for p in pushes] == [f"message {i} ünïcode & = +" for i in range(n)]
    assert {p.fields["topic"] for p in pushes} == {TOPIC} and {p.code for p in pushes} == {
        http.RequestCode.HTTP_PUSH_CLIENT_ASYNC}
    assert pushes[0].fields["extFields"]["producergroup"] == "EventMeshTest-producerGroup"
    assert (beat.ret.ret_code, beat.ret.ret_msg) == (0, "success")
    assert all(a.ret.ret_msg.startswith("successSendResult[topic=") for a in answers)
    assert late == 0, "a message published after the unsubscribe was pushed"
    assert (stats.published, stats.pushed, stats.push_ok, stats.push_failed, stats.heartbeats) == (n + 1, n, n, 0, 1)
    assert stats.subscriptions == 1 and stats.refused == 0
    assert pub_report.ok and (pub_report.published, pub_report.publish_ok) == (n + 1, n + 1)
    assert sub_report.heartbeats_answered == 1

    # each dump holds exactly the exchange, in one direction, and decodes without a warning
    received = messages(files["srx"], "request")
    assert Counter(m.message_type for m in received) == stats.received
    assert Counter(m.ret_code_name for m in messages(files["stx"], "response")) == stats.answered
    assert [m.message_type for m in messages(files["ctx"], "request")] == ["SUBSCRIBE", "HEARTBEAT", "UNSUBSCRIBE"]
    assert [m.message_type for m in messages(files["crx"], "response")] == ["SUBSCRIBE", "HEARTBEAT", "UNSUBSCRIBE"]
    assert len(messages(files["ptx"], "request")) == len(messages(files["prx"], "response")) == n + 1
    assert files["spush"].read_bytes() == files["wpush"].read_bytes()  # one conversation, seen from both ends
    assert files["sreply"].read_bytes() == files["wreply"].read_bytes()
    assert [m.fields["content"] for m in messages(files["spush"], "request")] == [p.fields["content"] for p in pushes]
    assert {m.push_outcome["client_ret_code"] for m in messages(files["sreply"], "response")} == {"OK"}


def test_broadcasting_reaches_every_webhook_and_clustering_one_per_group():
    async def body():
        async with EventMeshHttpServer(HOST, 0) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            async with WebhookReceiver() as a, WebhookReceiver() as b, WebhookReceiver() as c:
                await client.subscribe([item(mode="BROADCASTING")], a.url)
                await client.subscribe([item(mode="BROADCASTING")], b.url)
                for _ in range(2):
                    await client.publish(TOPIC, "to all")
                await receive(a, 2)
                await receive(b, 2)
                await client.unsubscribe([TOPIC], a.url)
                await client.unsubscribe([TOPIC], b.url)
                await client.subscribe([item()], a.url)
                await client.subscribe([item()], c.url)  # the same group: they take turns
                for _ in range(4):
                    await client.publish(TOPIC, "to one")
                await until(lambda: server.stats.push_ok == 8)
                counts = a.waiting, c.waiting
            await client.close()
        return counts

    assert run(body()) == (2, 2)


def test_sync_message_is_answered_by_the_subscribers_reply():
    async def body():
        async with EventMeshHttpServer(HOST, 0, reply_timeout=0.5) as server:
            sub = EventMeshHttpClient(HOST, server.port, timeout=5)
            pub = EventMeshHttpClient(HOST, server.port, timeout=5)
            async with WebhookReceiver() as hook:
                await sub.subscribe([item(type_="SYNC")], hook.url)

                async def replier():
                    push = await hook.receive()
                    await sub.reply(push, "re: " + push.fields["content"])
                    return push

                task = asyncio.create_task(replier())
                answer = await pub.publish(TOPIC, "question", sync=True)
                push = await task
                with pytest.raises(EventMeshHttpError) as unanswered:  # nobody replies this time
                    await pub.publish(TOPIC, "unanswered", sync=True)
            await sub.close()
            await pub.close()
        return server.stats, answer, push, unanswered.value

    stats, answer, push, unanswered = run(body())
    assert push.code == http.RequestCode.HTTP_PUSH_CLIENT_SYNC
    assert (answer.reply.topic, answer.reply.body) == (TOPIC, "re: question")
    assert unanswered.ret_code == RetCode.EVENTMESH_WAITING_RR_MSG_ERR
    assert (stats.replies, stats.sync_timeouts) == (1, 1)


@pytest.mark.parametrize("reply_code, pushes, retries", [(ClientRetCode.FAIL, 1, 0), (ClientRetCode.RETRY, 4, 3)])
def test_a_webhook_that_answers_an_error_is_reported(reply_code, pushes, retries, tmp_path):
    replies = tmp_path / "replies.bin"

    async def body():
        async with EventMeshHttpServer(HOST, 0, retry_delay=0.01, record_push_replies=replies) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            async with WebhookReceiver(reply_code=reply_code) as hook:
                await client.subscribe([item()], hook.url)
                await client.publish(TOPIC, "refused")
                await until(lambda: server.stats.push_failed == 1)
                queued = hook.waiting
            await client.close()
        return server.stats, queued

    stats, queued = run(body())
    assert (stats.pushed, stats.push_retries, stats.push_ok, queued) == (pushes, retries, 0, 0)
    assert [m.push_outcome["client_ret_code"] for m in messages(replies, "response")] == [reply_code.name] * pushes


def test_an_unreachable_webhook_is_retried_then_counted_failed():
    async def body():
        async with EventMeshHttpServer(HOST, 0, retry_delay=0.01, push_timeout=1) as server:
            async with WebhookReceiver() as hook:
                url = hook.url  # closed when the block ends: nothing listens there any more
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            await client.subscribe([item()], url)
            await client.publish(TOPIC, "nobody home")
            await until(lambda: server.stats.push_failed == 1)
            await client.close()
        return server.stats

    stats = run(body())
    assert (stats.push_retries, stats.push_ok, stats.pushed) == (3, 0, 0)


def test_pending_pushes_are_capped():
    async def body():
        async with EventMeshHttpServer(HOST, 0, max_pending_pushes=3, push_timeout=0.5, retry_delay=5) as server:
            gate = await asyncio.start_server(lambda r, w: None, HOST, 0)  # accepts, never answers
            url = f"http://{HOST}:{gate.sockets[0].getsockname()[1]}/"
            client = EventMeshHttpClient(HOST, server.port, timeout=5)
            await client.subscribe([item()], url)
            for i in range(10):
                await client.publish(TOPIC, f"m{i}")
            pending = server.pending_pushes
            await client.close()
            gate.close()
        return server.stats, pending

    stats, pending = run(body())
    assert (pending, stats.push_dropped, stats.published) == (3, 7, 10)


# -- what the runtime refuses -------------------------------------------------------------------------

async def _exchange(port: int, data: bytes) -> tuple[list, bool]:
    """Send raw bytes; the answers read until the server closes or goes quiet, and whether it closed."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(data)
    decoder = http.HttpStreamDecoder("response")
    answers, closed = [], False
    try:
        while True:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                break
            if not chunk:
                closed = True
                break
            answers += decoder.feed(chunk)
    finally:
        writer.close()
    return answers, closed


def test_refusals_as_the_runtime_answers_them():
    config = http.ClientConfig()
    bad_pid = http.ClientConfig(pid="12a")
    no_topic = http.send_message(config, "", "text", bizseqno="1", uniqueid="2")
    cases = [
        (http.build_request("POST", "/", [("Host", "x"), ("code", "999"), ("Content-Length", None)]), 400, 2, False),
        (http.heartbeat(bad_pid, [TOPIC], "http://127.0.0.1:1/"), 200, 6, False),
        (no_topic, 200, 7, False),
        (http.send_message(config, TOPIC, "x" * 1001, bizseqno="1", uniqueid="2"), 200, 8, False),
        (http.batch_send(config, "b", []), 200, 10, False),
        (http.subscribe(config, [item()], "ftp://nowhere/"), 200, 7, False),
        (http.build_request("PUT", "/", [("Host", "x"), ("code", "104"), ("Content-Length", None)]), 405, None, True),
        (http.build_request("POST", "/", [("Host", "x"), ("code", "203"), ("version", "3.0"),
                                         ("Content-Length", None)]), 400,
         None, True),
        (http.build_request("POST", "/", [("Host", "x"), ("code", "203"), ("Content-Length", None)],
                           b"a=%zz"), 500, None, True),
    ]

    async def body():
        async with EventMeshHttpServer(HOST, 0) as server:
            return [await _exchange(server.port, data) for data, *_ in cases]

    for (data, status, ret_code, closes), (answers, closed) in zip(cases, run(body())):
        (answer,) = answers
        assert answer.status == status, data[:60]
        assert (answer.ret.ret_code if answer.ret is not None else None) == ret_code, data[:60]
        assert closed == closes, data[:60]


def test_hostile_input_gets_4xx_and_a_close_without_growing_memory():
    async def body():
        async with EventMeshHttpServer(HOST, 0, max_request_size=1000) as server:
            huge = b"POST / HTTP/1.1\r\nHost: x\r\ncode: 104\r\nContent-Length: 99999999999\r\n\r\n"
            garbage = b"\x00\x01garbage that is no HTTP\r\n\r\n"
            long_head = b"POST / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100000
            results = [await _exchange(server.port, data) for data in (huge, garbage, long_head)]
            reader, writer = await asyncio.open_connection(HOST, server.port)  # a body bigger than it said
            writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in range(20):
                writer.write(b"100\r\n" + b"z" * 256 + b"\r\n")
            await closed_by_server(reader)
            writer.close()
        return results, server.stats

    results, stats = run(body())
    assert [[a.status for a in answers] for answers, _ in results] == [[413], [400], [431]]
    assert all(closed for _, closed in results)
    assert stats.closed_for_bad_input == 4 and stats.answered["HTTP 413"] == 2


def test_request_reader_refuses_before_buffering():
    reader = RequestReader(max_body=10)
    with pytest.raises(Refused) as refused:
        reader.feed(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n")
    assert refused.value.status == 413
    pipelined = RequestReader(max_body=10)
    two = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"
    assert pipelined.feed(two + two[:20]) == [two] and pipelined.feed(two[20:]) == [two]


def test_idle_connection_is_closed():
    async def body():
        async with EventMeshHttpServer(HOST, 0, idle_timeout=0.2) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b"POST / HTTP/1.1\r\n")  # never finished
            await closed_by_server(reader, timeout=5)
            writer.close()
            return server.stats

    assert run(body()).links.closed_idle == 1


# -- the CLI, as a user runs it ------------------------------------------------------------------------

CLI = [sys.executable, "-m", "inlong_proto", "eventmesh"]


async def _start(*args: str, stdin: bytes | None = None) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *CLI, *args, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def _finish(process, stdin: bytes | None = None, timeout: float = 60) -> tuple[int, str, str]:
    out, err = await asyncio.wait_for(process.communicate(stdin), timeout)
    return process.returncode, out.decode(), err.decode()


def test_cli_serve_subscribe_publish(tmp_path):
    files = {name: tmp_path / f"{name}.bin" for name in ("srx", "stx", "pushes", "replies", "prx", "ptx")}

    async def body():
        server = await _start("http-serve", "--port", "0", "--record", str(files["srx"]), "--record-sent",
                              str(files["stx"]), "--record-pushes", str(files["pushes"]))
        started = [server]
        try:
            head = b""
            while not (found := re.search(rb"listening on [\d.]+:(\d+)", head)):
                head += await asyncio.wait_for(server.stderr.readline(), 60)
            port = found.group(1).decode()
            sub = await _start("http-client", "--port", port, "--topic", "T", "subscribe", "--count", "3",
                               "--timeout", "60", "--heartbeat-interval", "0.1",
                               "--record-push-replies", str(files["replies"]))
            started.append(sub)
            while b"subscribed" not in await asyncio.wait_for(server.stderr.readline(), 60):
                pass
            pub = await _start("http-client", "--port", port, "--topic", "T", "--record", str(files["prx"]),
                               "--record-sent", str(files["ptx"]), "publish", stdin=b"")
            started.append(pub)
            published = await _finish(pub, b"one\ntwo\nthree\n")
            subscribed = await _finish(sub)
            lonely = await _finish(await _start("http-client", "--port", port, "subscribe", "--count", "1",
                                                "--timeout", "0.5"))
            server.send_signal(signal.SIGINT)
            stopped = await _finish(server)
        finally:
            for process in started:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
        return published, subscribed, lonely, stopped

    published, subscribed, lonely, stopped = run(body(), timeout=200)
    for rc, out, err in (published, subscribed, stopped):
        assert rc == 0 and "Traceback" not in err, out + err
    (summary,) = map(json.loads, published[1].splitlines())
    assert (summary["published"], summary["publish_ok"], summary["ok"]) == (3, 3, True)
    *lines, summary = map(json.loads, subscribed[1].splitlines())
    assert [(m["request_code"], m["topic"], m["content"]) for m in lines] == [
        ("105", "T", c) for c in ("one", "two", "three")]
    assert (summary["messages"], summary["lost"], summary["ok"]) == (3, 0, True)
    assert summary["heartbeats_answered"] >= 1 and summary["sent"]["UNSUBSCRIBE"] == 1
    rc, out, err = lonely
    assert rc == 1 and json.loads(out)["lost"] == 1 and "Traceback" not in err
    stats = json.loads(stopped[1].splitlines()[-1])
    assert (stats["published"], stats["push_ok"], stats["subscriptions"]) == (3, 3, 2)
    assert Counter(m.message_type for m in messages(files["srx"], "request")) == stats["received"]
    assert len(messages(files["stx"], "response")) == sum(stats["answered"].values())
    assert len(messages(files["pushes"], "request")) == len(messages(files["replies"], "response")) == 3
    assert [m.message_type for m in messages(files["ptx"], "request")] == ["MSG_SEND_ASYNC"] * 3
    assert len(messages(files["prx"], "response")) == 3
    for path in files.values():  # what the decode command reads too
        done = decode_cli(path)
        assert done.returncode == 0 and done.stdout.count("\n") >= 3, done.stderr


def decode_cli(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "eventmesh-http", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_cli_publish_exits_1_when_the_server_is_gone():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        free = str(probe.getsockname()[1])

    async def body():
        return await _finish(await _start("http-client", "--port", free, "publish", "--count", "1"))

    rc, out, err = run(body())
    assert rc == 1 and json.loads(out)["error"] and "Traceback" not in err

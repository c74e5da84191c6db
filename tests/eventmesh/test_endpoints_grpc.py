"""The EventMesh gRPC reference server and client over loopback: publish to a subscribeStream with nothing
lost, batchPublish, requestReply, heartbeat, unsubscribe, refusals with the runtime's statuscodes, idle
expiry, the webhook push, the CLI in subprocesses and its --capture pcap.

Every test is bounded; only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

pytest.importorskip("grpc")

from inlong_proto.capture import CaptureDecoder, iter_capture_frames  # noqa: E402
from inlong_proto.eventmesh.grpc import Event, Key, from_cloud_event, response_of, to_cloud_event  # noqa: E402
from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient, EventMeshGrpcError  # noqa: E402
from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer  # noqa: E402
from peers import HOST, run, until  # noqa: E402

TOPIC = "inlong-proto-grpc"


async def receive(stream, n: int, timeout: float = 10.0) -> list:
    async with asyncio.timeout(timeout):
        return [from_cloud_event(await stream.receive()) for _ in range(n)]


def test_published_events_reach_the_stream_subscriber_all_and_intact():
    n = 50

    async def body():
        async with EventMeshGrpcServer(HOST, 0) as server:
            async with EventMeshGrpcClient(HOST, server.port) as sub, EventMeshGrpcClient(HOST, server.port) as pub:
                stream = await sub.stream([TOPIC])
                sent = [pub.message(TOPIC, f"event {i} ünïcode") for i in range(n)]
                answers = [await pub.publish(event) for event in sent]
                got = await receive(stream, n)
                beat = await sub.heartbeat([TOPIC])
                batch = [pub.message(TOPIC, b"\x00\xffbinary", content_type="application/octet-stream"),
                         pub.message(TOPIC, '{"k": 1}', content_type="application/json")]
                batch_answer = await pub.batch_publish(batch)
                got_batch = await receive(stream, 2)
                return answers, sent, got, beat, batch_answer, batch, got_batch, server.stats, pub.report

    answers, sent, got, beat, batch_answer, batch, got_batch, stats, report = run(body())
    assert all(a.ok and a.time is not None for a in answers)
    assert [e.data for e in got] == [e.data for e in sent]
    assert [e.ext(Key.UNIQUE_ID) for e in got] == [e.ext(Key.UNIQUE_ID) for e in sent]
    assert got[0] == sent[0]  # every attribute travels unchanged
    assert beat.ok
    assert batch_answer.ok and [e.data for e in got_batch] == [e.data for e in batch]
    assert stats.published == n + 2 and stats.delivered == n + 2 and stats.dropped == 0
    assert report.ok and report.publish_ok == n + 2


def test_request_reply_is_answered_by_a_stream_subscriber():
    async def body():
        async with EventMeshGrpcServer(HOST, 0, reply_timeout=5) as server:
            async with EventMeshGrpcClient(HOST, server.port) as sub, EventMeshGrpcClient(HOST, server.port) as pub:
                stream = await sub.stream([(TOPIC, "CLUSTERING", "SYNC")])

                async def answer():
                    request = await stream.receive()
                    await stream.reply(request, "pong: " + request.text_data)

                responder = asyncio.create_task(answer())
                reply = await pub.request_reply(pub.message(TOPIC, "ping"))
                await responder
                await stream.close()
                await until(lambda: not server.subscribers)
                with pytest.raises(EventMeshGrpcError) as nobody:
                    await pub.request_reply(pub.message(TOPIC, "anyone?"))
                return reply, nobody.value.response

    reply, nobody = run(body())
    assert reply.text_data == "pong: ping" and Key.SUB_MESSAGE_TYPE not in reply.attributes
    assert nobody.code == "22" and "no stream subscriber" in nobody.message


def test_unsubscribe_stops_delivery():
    async def body():
        async with EventMeshGrpcServer(HOST, 0) as server:
            async with EventMeshGrpcClient(HOST, server.port) as sub, EventMeshGrpcClient(HOST, server.port) as pub:
                stream = await sub.stream([TOPIC, "other"])
                await pub.publish(pub.message(TOPIC, "before"))
                first = await receive(stream, 1)
                answer = await sub.unsubscribe([TOPIC])
                await pub.publish(pub.message(TOPIC, "after"))
                await pub.publish(pub.message("other", "still subscribed"))
                second = await receive(stream, 1)
                again = await sub.heartbeat([TOPIC])
                return first, answer, second, again, server.stats

    first, answer, second, again, stats = run(body())
    assert first[0].data == "before" and answer.ok
    assert second[0].data == "still subscribed"  # "after" was never delivered
    assert stats.unrouted == 1
    assert again.code == "30"  # the heartbeat names a topic no longer subscribed: resubscribe


def test_bad_events_are_refused_with_the_runtime_status():
    async def body():
        async with EventMeshGrpcServer(HOST, 0) as server:
            async with EventMeshGrpcClient(HOST, server.port) as pub:
                no_identity = await pub.publish(Event(id="1", subject=TOPIC, data="x", data_content_type="text/plain"))
                good = pub.message(TOPIC, "x")
                no_unique = Event(id="2", subject=TOPIC, data="x", data_content_type="text/plain",
                                  extensions={k: v for k, v in good.extensions.items() if k != Key.UNIQUE_ID})
                no_body = await pub.publish(no_unique)
                batch = await pub.batch_publish([good, no_unique])
                subscription = to_cloud_event(Event(id="3", data="[]", data_content_type="application/json",
                                                    extensions=dict(pub.identity)))
                refused_sub = response_of(await pub.consumer.subscribe(subscription))
                return no_identity, no_body, batch, refused_sub, server.stats, pub.report

    no_identity, no_body, batch, refused_sub, stats, report = run(body())
    assert no_identity.code == "6" and "idc is empty" in no_identity.message
    assert no_body.code == "7" and "uniqueid is empty" in no_body.message
    assert batch.code == "7" and "event 1" in batch.message
    assert refused_sub.code == "7" and "consumergroup" in refused_sub.message
    assert stats.published == 0  # nothing of a refused batch is delivered
    assert not report.ok and report.publish_failed == 4


def test_an_idle_stream_is_expired_with_resubscribe():
    async def body():
        async with EventMeshGrpcServer(HOST, 0, idle_timeout=0.3) as server:
            async with EventMeshGrpcClient(HOST, server.port) as sub:
                stream = await sub.stream([TOPIC])
                with pytest.raises(EventMeshGrpcError) as ended:
                    await receive(stream, 1, timeout=5)
                return ended.value.response, server.stats

    ended, stats = run(body())
    assert ended.code == "30" and stats.closed_idle == 1


def test_a_full_subscriber_queue_drops_and_counts():
    async def body():
        async with EventMeshGrpcServer(HOST, 0, max_queued=3) as server:
            async with EventMeshGrpcClient(HOST, server.port) as sub, EventMeshGrpcClient(HOST, server.port) as pub:
                await sub.stream([TOPIC])
                (subscriber,) = server.subscribers
                subscriber.wakeup.set = lambda: None  # the writer never wakes: events stay queued
                for i in range(10):
                    await pub.publish(pub.message(TOPIC, f"{i}"))
                return subscriber.queued, server.stats.dropped

    assert run(body()) == (3, 7)


def test_webhook_subscribers_get_the_http_push():
    from inlong_proto.endpoints.eventmesh_http_client import WebhookReceiver

    async def body():
        async with EventMeshGrpcServer(HOST, 0) as server, WebhookReceiver() as hook:
            async with EventMeshGrpcClient(HOST, server.port) as sub, EventMeshGrpcClient(HOST, server.port) as pub:
                answer = await sub.subscribe([TOPIC], hook.url)
                event = pub.message(TOPIC, "to the webhook")
                await pub.publish(event)
                async with asyncio.timeout(10):
                    push = await hook.receive()
                await until(lambda: server.stats.pushed == 1)
                return answer, event, push

    answer, event, push = run(body())
    assert answer.ok
    assert push.fields["content"] == "to the webhook" and push.fields["topic"] == TOPIC
    assert push.fields["uniqueId"] == event.ext(Key.UNIQUE_ID)


@pytest.mark.parametrize("reply_code, pushes, retries, ok", [("RETRY", 4, 3, 0), ("FAIL", 1, 0, 0), ("OK", 1, 0, 1)])
def test_webhook_pushes_are_retried_as_the_runtime_retries_them(reply_code, pushes, retries, ok):
    """The gRPC runtime pushes through the HTTP runtime's pusher: a webhook answering RETRY gets the push again
    up to the spec's limit, FAIL ends it, OK completes it, and an unreachable webhook is retried too."""
    from inlong_proto.eventmesh.http import ClientRetCode
    from inlong_proto.endpoints.eventmesh_http_client import WebhookReceiver

    async def body():
        async with EventMeshGrpcServer(HOST, 0, retry_delay=0.01) as server:
            async with WebhookReceiver(reply_code=ClientRetCode[reply_code]) as hook:
                async with EventMeshGrpcClient(HOST, server.port) as client:
                    await client.subscribe([TOPIC], hook.url)
                    await client.publish(client.message(TOPIC, "again?"))
                    await until(lambda: server.stats.push_ok + server.stats.push_failed == 1)
            stats = server.stats
            return stats.pushed, stats.push_retries, stats.push_ok, server.pusher.pending

    assert run(body()) == (pushes, retries, ok, 0)


def test_an_unreachable_webhook_is_retried_then_counted_failed():
    from inlong_proto.endpoints.eventmesh_http_client import WebhookReceiver

    async def body():
        async with EventMeshGrpcServer(HOST, 0, retry_delay=0.01, push_timeout=1) as server:
            async with WebhookReceiver() as hook:
                url = hook.url  # closed when the block ends: nothing listens there any more
            async with EventMeshGrpcClient(HOST, server.port) as client:
                await client.subscribe([TOPIC], url)
                await client.publish(client.message(TOPIC, "nobody home"))
                await until(lambda: server.stats.push_failed == 1)
            return server.stats.push_retries, server.stats.push_ok, server.stats.pushed

    assert run(body()) == (3, 0, 0)


# -- the CLI -----------------------------------------------------------------------------------------

def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inlong_proto", "eventmesh", *args], capture_output=True,
                          text=True, timeout=60, **kw)


def _start_server(*args: str) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, "-m", "inlong_proto", "eventmesh", "grpc-serve", "--port", "0",
                               *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in server.stderr:
        if "listening on" in line:
            return server, int(line.split("listening on ", 1)[1].split()[0].rsplit(":", 1)[1])
    raise AssertionError(f"the server did not start: {server.wait(5)}")


def _wait_for_line(server: subprocess.Popen, text: str) -> None:
    """Read the server's log until a line holds text, then keep draining it in a thread."""
    for line in server.stderr:
        if text in line:
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return
    raise AssertionError(f"the server never logged {text!r}")


def test_cli_moves_events_and_captures_the_http2_conversation(tmp_path):
    pcap = tmp_path / "server.pcap"
    server, port = _start_server("--capture", str(pcap))
    try:
        common = ["grpc-client", "--port", str(port), "--topic", "cli"]
        subscriber = subprocess.Popen([sys.executable, "-m", "inlong_proto", "eventmesh", *common, "subscribe",
                                       "--count", "3", "--timeout", "20"], stdout=subprocess.PIPE, text=True)
        _wait_for_line(server, "subscribes to cli")
        publish = _cli(*common, "publish", "--count", "2")
        from_stdin = _cli(*common, "publish", "--batch", "5", input="third line\n")
        out, _ = subscriber.communicate(timeout=30)
        short = _cli(*common, "subscribe", "--count", "1", "--timeout", "0.5")
        bad_port = _cli("grpc-client", "--port", "1", "--timeout", "0.5", "publish", "--count", "1")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert server.returncode == 0
    assert publish.returncode == 0 and json.loads(publish.stdout.splitlines()[-1])["publish_ok"] == 2
    assert from_stdin.returncode == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["data"] for line in lines[:-1]] == ["message-0", "message-1", "third line"]
    assert subscriber.returncode == 0 and lines[-1]["ok"] and lines[-1]["messages"] == 3
    assert short.returncode == 1 and json.loads(short.stdout.splitlines()[-1])["lost"] == 1
    assert bad_port.returncode == 1 and json.loads(bad_port.stdout.splitlines()[-1])["error"]
    stats = json.loads(server.stdout.read().splitlines()[-1])
    assert stats["delivered"] == 3

    data = pcap.read_bytes()
    client_bytes = bytearray()
    decoder = CaptureDecoder(on_bytes=lambda flow, direction, chunk: client_bytes.extend(
        chunk.data or b"") if direction == "request" else None)
    list(decoder.feed(data))
    list(decoder.close())
    assert {totals["protocol"] for totals in decoder.flows.values()} == {"eventmesh-grpc"}
    assert b"PRI * HTTP/2.0" in client_bytes
    frames = list(iter_capture_frames(data, mode="PERMISSIVE"))
    assert frames and {f.frame.protocol for f in frames if f.flow is not None} == {"eventmesh-grpc"}


def test_cli_client_capture_holds_the_preface(tmp_path):
    pcap = tmp_path / "client.pcap"
    server, port = _start_server()
    try:
        done = _cli("grpc-client", "--port", str(port), "--capture", str(pcap), "heartbeat")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(20)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[0])["statuscode"] == "0"
    frames = list(iter_capture_frames(pcap.read_bytes(), mode="PERMISSIVE"))
    # the server's SETTINGS may be captured before the client's preface (it writes on accept): the client
    # stream's first item is the preface, whichever side the capture shows first
    first_request = next(item for item in frames if item.direction == "request")
    assert first_request.frame.protocol == "eventmesh-grpc" and first_request.frame.message_type == "PREFACE"
    assert {item.frame.protocol for item in frames} == {"eventmesh-grpc"}


def test_cli_without_grpcio_says_so_in_one_line():
    code = ("import sys; sys.modules['grpc'] = None; sys.argv = ['inlong-proto', 'eventmesh', 'grpc-serve']; "
            "from inlong_proto.cli.commands import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ})
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "grpcio" in done.stderr and "Traceback" not in done.stderr

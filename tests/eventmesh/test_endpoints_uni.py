"""The uni HTTP reference endpoint (eventmesh uni-serve): answers as UniHttpServer does, stores events as
EventMeshFrames, streams deliveries as SSE; its traffic read back by the decoder."""
import asyncio
import base64
import json

import pytest

from inlong_proto.core.frames import decode
from inlong_proto.endpoints.eventmesh_uni_server import UniServer
from inlong_proto.eventmesh import http

CE = {"specversion": "1.0", "id": "e-1", "source": "/orders", "type": "created",
      "datacontenttype": "application/json", "data": {"a": 1}}


def request(method, target, body=b"", headers=()):
    body = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    head = f"{method} {target} HTTP/1.1\r\nHost: x\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    return head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def exchange(port, *raws):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answers = []
    for raw in raws:
        writer.write(raw)
        await writer.drain()
        data = b""
        while True:
            data += await reader.read(65536)
            found = list(http.iter_messages(data, "response", "PERMISSIVE"))
            if found and found[-1].error is None:
                break
        answers.append(found[-1])
    writer.close()
    return answers


def test_publish_subscribe_poll_ack_and_the_refusals():
    async def main():
        server = UniServer(rate_limit=2)
        await server.start()
        try:
            answers = await exchange(
                server.port,
                request("POST", "/events/subscribe", {"clientId": "c1", "topic": "orders", "mode": "CLUSTERING"}),
                request("POST", "/events/publish?topic=orders", CE),
                request("GET", "/events/publish?topic=orders"),
                request("POST", "/events/publish", CE),
                request("POST", "/events/publish?topic=orders", {"id": "x"}),
                request("POST", "/events/publish?topic=orders", CE),
                request("POST", "/events/publish?topic=orders", CE),
                request("GET", "/events/poll?clientId=c1&max=1"),
                request("POST", "/events/lite/create?topic=a&lite=b"),
                request("GET", "/nowhere"),
            )
            statuses = [a.status for a in answers]
            assert statuses == [200, 202, 405, 400, 400, 202, 429, 200, 200, 404]
            polled = json.loads(answers[7].body)
            assert polled[0]["event"]["id"] == "e-1" and polled[0]["event"]["data"] == {"a": 1}
            [ack, again] = await exchange(server.port,
                                          request("POST", "/events/ack", {"deliveryId": polled[0]["deliveryId"]}),
                                          request("POST", "/events/ack", {"deliveryId": polled[0]["deliveryId"]}))
            assert (ack.status, again.status) == (200, 404)
            big = request("POST", "/events/publish?topic=orders", b"x" * ((1 << 20) + 1))
            [too_big] = await exchange(server.port, big)
            assert too_big.status == 413
            topic, frame = server.log[0]
            message = decode(frame, "eventmesh-frame").message
            assert topic == "orders" and message.msg_type.name == "event"
            assert [a.name for a in message.attributes][:4] == ["specversion", "id", "source", "type"]
        finally:
            await server.stop()

    asyncio.run(main())


def test_sse_stream_delivers_as_events_arrive():
    async def main():
        server = UniServer()
        await server.start()
        try:
            await exchange(server.port, request("POST", "/events/subscribe",
                                                {"clientId": "c2", "topic": "t", "mode": "BROADCASTING"}))
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET /events/stream?clientId=c2 HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            decoder = http.HttpStreamDecoder("response")
            items = decoder.feed(await reader.read(65536))
            assert [i.message_type for i in items] == ["SSE_STREAM"]
            for n in range(3):
                await exchange(server.port, request("POST", "/events/publish?topic=t", {**CE, "id": f"e-{n}"}))
                while not any(i.message_type == "SSE_DELIVERY" for i in items[1 + n:]):
                    items += decoder.feed(await asyncio.wait_for(reader.read(65536), 5))
            ids = [i.to_dict()["sse"]["value"]["event"]["id"] for i in items if i.message_type == "SSE_DELIVERY"]
            assert ids == ["e-0", "e-1", "e-2"]
            writer.close()
        finally:
            await server.stop()

    asyncio.run(main())


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_cli_uni_serve_answers_and_prints_its_counters(stop, tmp_path):
    """Stopped by Ctrl-C or by kill, it prints its counters and writes its --dump-frames file."""
    import re
    import signal
    import subprocess
    import sys

    import inlong_proto

    dump = tmp_path / "frames.bin"
    proc = subprocess.Popen([sys.executable, "-m", "inlong_proto", "eventmesh", "uni-serve", "--port", "0",
                             "--dump-frames", str(dump), "--log-level", "INFO"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        while port is None:
            line = proc.stderr.readline()
            assert line, "uni-serve exited before listening"
            found = re.search(r"uni HTTP ingress on [^:]+:(\d+)", line)
            port = int(found.group(1)) if found else None
        [answer] = asyncio.run(exchange(port, request("POST", "/events/publish?topic=t", CE)))
        assert answer.status == 202 and json.loads(answer.body) == {"status": "accepted"}
    finally:
        proc.send_signal(getattr(signal, stop))
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and json.loads(out.strip().splitlines()[-1])["published"] == 1
    assert [f.message_type for f in inlong_proto.iter_frames(dump.read_bytes(), "eventmesh-frame")] == ["event"]


def test_the_control_plane_answers_503_with_upstreams_text_per_route():
    """No registrar, matchmaker or session router here, as in a runtime started without them: each route's
    503 carries the text its handler writes (the route table's `unconfigured`)."""
    async def main():
        server = UniServer()
        await server.start()
        try:
            return await exchange(server.port, request("POST", "/session/open", {"clientId": "c"}),
                                  request("POST", "/session/close/s-1"),
                                  request("POST", "/session/stream/s-1", {"prompt": "hi"}),
                                  request("GET", "/session/subscribe/s-1"))
        finally:
            await server.stop()

    answers = asyncio.run(main())
    assert [(a.status, json.loads(a.body)["error"]) for a in answers] == [
        (503, "matchmaker not configured"), (503, "matchmaker not configured"),
        (503, "session router not configured"), (503, "session publish/subscribe not configured on this runtime")]


def test_batch_request_reply_and_lite_bytes_answer_as_the_route_table_says():
    from inlong_proto.eventmesh import frame as frames
    from inlong_proto.core.frames import encode

    chunk = encode(frames.chunk_frame("s-1", 1, "partial"))

    async def main():
        server = UniServer(rate_limit=3)
        await server.start()
        try:
            batch = [{**CE, "id": f"b-{n}"} for n in range(2)]
            answers = await exchange(
                server.port,
                request("POST", "/events/publish-batch?topic=orders", batch),
                request("POST", "/events/publish-batch?topic=orders", {"not": "an array"}),
                request("POST", "/events/publish-batch?topic=orders", [{"id": "x"}]),
                request("POST", "/events/publish-batch?topic=orders", batch),  # one token left: 429
                request("POST", "/events/lite/publish-bytes?topic=p&lite=l", chunk),
                request("POST", "/events/lite/publish-bytes?topic=p&lite=l"),
                request("GET", "/events/lite/poll-bytes?topic=p&lite=l&timeoutMs=0"),
                request("POST", "/agent/register", {"agentId": "a"}),
                request("GET", "/events/stream"),
                request("POST", "/events/request?topic=rpc&timeoutMs=50", CE),
            )
            assert [a.status for a in answers] == [202, 400, 500, 429, 202, 400, 200, 503, 400, 504]
            assert [base64.b64decode(v) for v in json.loads(answers[6].body)] == [chunk]
            assert json.loads(answers[7].body) == {"error": "agent registrar not configured"}  # upstream's text
            assert [t for t, _ in server.log] == ["orders"] * 3 + ["p/l", "rpc"]

            await exchange(server.port, request("POST", "/events/subscribe",
                                                {"clientId": "responder", "topic": "rpc", "mode": "CLUSTERING"}))
            waiting = asyncio.ensure_future(exchange(server.port, request("POST", "/events/request?topic=rpc", CE)))
            while not server.buffers["responder"]:
                await asyncio.sleep(0.01)
            [polled] = await exchange(server.port, request("GET", "/events/poll?clientId=responder"))
            [delivery] = json.loads(polled.body)
            correlation = delivery["event"]["emcorrelationid"]
            reply = {**CE, "id": "answer", "data": {"ok": True}}
            [replied, late] = await exchange(
                server.port, request("POST", "/events/reply", {"correlationId": correlation, "event": reply}),
                request("POST", "/events/reply", {"correlationId": correlation, "event": reply}))
            assert (replied.status, late.status) == (200, 404)
            [answer] = await waiting
            assert answer.status == 200 and dict(answer.headers)["Content-type"] == "application/cloudevents+json"
            assert json.loads(answer.body)["id"] == "answer" and json.loads(answer.body)["data"] == {"ok": True}
        finally:
            await server.stop()

    asyncio.run(main())


def test_a_malformed_max_gets_the_jdk_servers_reject_and_the_connection_closes():
    async def main():
        server = UniServer()
        await server.start()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(request("GET", "/events/poll?clientId=c&max=lots") + request("GET", "/events/poll?clientId=c"))
            answer = await asyncio.wait_for(reader.read(), 5)  # to EOF: the second request is never answered
            writer.close()
            return answer
        finally:
            await server.stop()

    answer = asyncio.run(main())
    [only] = http.iter_messages(answer, "response", "FAILFAST")
    assert only.status == 400 and only.body == b"<h1>400 Bad Request</h1>NumberFormatException thrown"

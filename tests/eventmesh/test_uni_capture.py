"""uni-serve and uni-client talking over loopback, captured as an operator would: tcpdump on lo (the recording
relay, endpoints.tap, where tcpdump cannot capture). Every exchange and SSE event of the capture decodes, each
answer typed by its request's route without a warning (publish, batch, 413, 429 from --rate-limit, subscribe,
poll, ack, the SSE stream, request/reply and the lite routes), and the frames uni-serve dumps decode to exactly
the events published."""
import asyncio
import contextlib
import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from inlong_proto.capture import iter_capture_frames
from inlong_proto.core.frames import encode, iter_frames
from inlong_proto.eventmesh import convert
from inlong_proto.eventmesh.frame import chunk_frame
from inlong_proto.endpoints.eventmesh_uni_client import UniClient, cloud_event
from inlong_proto.endpoints.tap import Tap

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = [("e-1", "hello 1"), ("e-2", "hello 2"), ("e-3", "hello 3"), ("b-1", "batch 1"), ("b-2", "batch 2")]
RATE = 20  # uni-serve --rate-limit: events per second and topic


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cli(*args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "inlong_proto", "eventmesh", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def _wait_for(process: subprocess.Popen, pattern: str) -> re.Match:
    """The first stderr line of process matching pattern (its log), or the test fails when it exits first."""
    while True:
        line = process.stderr.readline()
        assert line, f"{process.args} exited before logging {pattern!r}"
        found = re.search(pattern, line)
        if found:
            return found


@contextlib.contextmanager
def _tcpdump(path: Path, port: int):
    """tcpdump on lo for port, started and stopped when it has written all it saw; None when it cannot run."""
    if shutil.which("tcpdump") is None:
        yield None
        return
    process = subprocess.Popen(["tcpdump", "-i", "lo", "--immediate-mode", "-B", "32768", "-U", "-s", "0", "-Z", "root",
                                "-w", str(path), f"tcp port {port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if b"listening on" not in process.stderr.readline():
        process.wait()
        yield None
        return
    try:
        yield "tcpdump"
    finally:
        size = -1
        while path.stat().st_size != size:  # -U writes each packet as read: the file stops growing when done
            size = path.stat().st_size
            time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        process.wait(10)


@contextlib.contextmanager
def _relay(path: Path, port: int):
    """The recording relay in a thread of its own: (the port clients use); the capture written at the end."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    tap = Tap()
    try:
        yield asyncio.run_coroutine_threadsafe(tap.relay(port), loop).result(10)
    finally:
        asyncio.run_coroutine_threadsafe(tap.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        path.write_bytes(tap.pcap())


def _talk(port: int) -> dict:
    """Subscribers by SSE and by long poll, then three publishes, a batch of two and one over 1 MiB (413)."""
    follower = _cli("uni-client", "--port", str(port), "--timeout", "60", "--log-level", "info", "stream",
                    "--topic", "orders", "--client-id", "sse", "--count", str(len(PUBLISHED)))
    poller = _cli("uni-client", "--port", str(port), "--timeout", "60", "--log-level", "info", "poll",
                  "--topic", "orders", "--client-id", "poller", "--count", str(len(PUBLISHED)))
    for process in (follower, poller):
        _wait_for(process, "subscribed")
    for args in (["--count", "3"], ["--batch", "--count", "2", "--id-prefix", "b-", "--data", "batch"]):
        published = subprocess.run([sys.executable, "-m", "inlong_proto", "eventmesh", "uni-client", "--port",
                                    str(port), "publish", "--topic", "orders", *args], cwd=ROOT, capture_output=True,
                                   text=True, timeout=60)
        assert published.returncode == 0, published.stderr
    with socket.create_connection(("127.0.0.1", port)) as sock:
        body = b"x" * ((1 << 20) + 1)
        sock.sendall(b"POST /events/publish?topic=orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 ")
    out = {"more": asyncio.run(_more(port))}
    for name, process in (("sse", follower), ("poll", poller)):
        stdout, _ = process.communicate(timeout=60)
        assert process.returncode == 0, stdout
        out[name] = [json.loads(line) for line in stdout.splitlines()]
    return out


async def _more(port: int) -> dict:
    """Request/reply (a replier polls the request and answers its correlation id), the lite routes, a burst on
    one topic until the rate limit answers 429, and a poll whose max is not a number: what each returned."""
    client, replier = UniClient("127.0.0.1", port), UniClient("127.0.0.1", port)
    try:
        await replier.subscribe("replier", "rpc")
        asking = asyncio.create_task(client.request("rpc", cloud_event("q-1", "question"), timeout_ms=20000))
        [delivery] = await replier.poll("replier", 1, 20000)
        await replier.reply(delivery["event"]["emcorrelationid"], cloud_event("r-1", "answer"))
        await replier.ack(delivery["deliveryId"])
        reply = await asking
        lite = "?topic=jobs&lite=agent-7"
        await client.call("POST", "/events/lite/create" + lite)
        await client.call("POST", "/events/lite/publish" + lite, json.dumps(cloud_event("l-1", "lite")).encode(),
                          content_type="application/cloudevents+json", expect=(202,))
        lite_events = json.loads((await client.call("GET", "/events/lite/poll" + lite + "&timeoutMs=0")).body)
        await client.lite_publish_bytes("jobs", "agent-7", encode(chunk_frame("s-1", 1, "token", done=True)))
        lite_frames = await client.lite_poll_bytes("jobs", "agent-7", timeout_ms=0)
        accepted = 0
        for n in range(2 * RATE + 1):
            event = json.dumps(cloud_event(f"x-{n}", "burst")).encode()
            answer = await client.call("POST", "/events/publish?topic=burst", event,
                                       content_type="application/cloudevents+json", expect=(202, 429))
            if answer.status == 429:
                break
            accepted += 1
        rejecting = UniClient("127.0.0.1", port)  # the JDK server's own 400 closes the connection
        rejected = await rejecting.call("GET", "/events/poll?clientId=poller&max=lots", expect=(400,))
        await rejecting.close()
        return {"reply": reply, "lite": lite_events, "lite_frames": lite_frames, "burst": accepted,
                "rejected": rejected.body.decode("latin-1")}
    finally:
        await client.close()
        await replier.close()


def test_captured_uni_traffic_decodes_and_the_dumped_frames_are_the_events_published(tmp_path):
    pcap, dump, serve_port = tmp_path / "uni.pcap", tmp_path / "frames.bin", _free_port()
    server = _cli("uni-serve", "--port", str(serve_port), "--dump-frames", str(dump), "--log-level", "info",
                  "--rate-limit", str(RATE))
    try:
        _wait_for(server, "uni HTTP ingress on")
        with _tcpdump(pcap, serve_port) as how:
            printed = _talk(serve_port) if how is not None else None
        if printed is None:
            with _relay(pcap, serve_port) as port:
                printed = _talk(port)
    finally:
        server.send_signal(signal.SIGINT)
        stdout, _ = server.communicate(timeout=30)
    more = printed["more"]
    assert more["reply"]["id"] == "r-1" and [e["id"] for e in more["lite"]] == ["l-1"] and len(more["lite_frames"]) == 1
    assert RATE <= more["burst"] <= 2 * RATE
    assert more["rejected"] == "<h1>400 Bad Request</h1>NumberFormatException thrown"
    logged = len(PUBLISHED) + 1 + 2 + more["burst"]  # the orders, the request, the lite event and frame, the burst
    assert server.returncode == 0 and json.loads(stdout.splitlines()[-1])["published"] == logged

    # what the clients printed: every event, in order, by SSE and by poll
    for name in ("sse", "poll"):
        deliveries, summary = printed[name][:-1], printed[name][-1]
        assert [(d["event"]["id"], d["event"]["data"]) for d in deliveries] == PUBLISHED and summary["ok"]

    # the capture: every exchange typed by its route, every answer there, every SSE event read as it came
    items = list(iter_capture_frames(pcap.read_bytes(), "auto", "PERMISSIVE"))
    assert not [item.frame.to_dict() for item in items if item.frame.error is not None]
    assert {item.frame.protocol for item in items} == {"eventmesh-http"}
    seen = Counter((item.direction, item.frame.message_type) for item in items)
    assert seen[("request", "UNI_SUBSCRIBE")] == 3 and seen[("request", "UNI_STREAM")] == 1
    assert seen[("request", "UNI_PUBLISH")] == 4 + more["burst"] + 1 and seen[("request", "UNI_PUBLISH_BATCH")] == 1
    assert seen[("request", "UNI_ACK")] == 2 * len(PUBLISHED) + 1 and seen[("request", "UNI_POLL")] >= 2
    assert seen[("response", "SSE_STREAM")] == 1 and seen[("response", "SSE_DELIVERY")] == len(PUBLISHED)
    in_flow_order = sorted(items, key=lambda item: (item.flow.number, item.frame.offset))
    requests = [item for item in in_flow_order if item.direction == "request"]
    answers = [item for item in in_flow_order if item.direction == "response" and item.frame.kind != "sse_event"]
    assert len(answers) == len(requests)  # the stream's answer is its head
    statuses = Counter((item.frame.route, answer.frame.status) for item, answer in zip(requests, answers))
    assert statuses[("UNI_PUBLISH", 202)] == 3 + more["burst"] and statuses[("UNI_PUBLISH", 413)] == 1
    assert statuses[("UNI_PUBLISH_BATCH", 202)] == 1 and statuses[("UNI_ACK", 200)] == 2 * len(PUBLISHED) + 1
    assert statuses[("UNI_PUBLISH", 429)] == 1
    for route, status in (("UNI_REQUEST", 200), ("UNI_REPLY", 200), ("UNI_LITE_CREATE", 200), ("UNI_LITE_PUBLISH", 202),
                          ("UNI_LITE_POLL", 200), ("UNI_LITE_PUBLISH_BYTES", 202), ("UNI_LITE_POLL_BYTES", 200)):
        assert statuses[(route, status)] == 1, (route, status)
    # every answer typed by its request's route (eventmesh.uni.Exchanges), as the route table shapes it
    assert [(a.frame.route, a.frame.status) for a in answers] == [(r.frame.route, a.frame.status)
                                                                  for r, a in zip(requests, answers)]
    assert not [(a.frame.route, a.frame.warnings) for a in answers if a.frame.warnings]
    typed = {(a.frame.route, a.frame.status): a.frame.to_dict().get("answer") for a in answers}
    assert typed[("UNI_REQUEST", 200)]["id"] == "r-1" and typed[("UNI_PUBLISH", 429)]["error"].startswith("rate")
    assert typed[("UNI_LITE_POLL_BYTES", 200)][0]["msg_type"] == "stream_chunk"
    assert typed[("UNI_POLL", 400)] == {"jdk_reject": "NumberFormatException thrown"}  # the table's [error, jdk-reject]
    sse = [item.frame for item in items if item.frame.message_type == "SSE_DELIVERY"]
    assert [(e.id, e.data) for e in map(convert.event_from_uni, sse)] == PUBLISHED

    # the events the publish requests carried (the batch's one by one), against the dumped topic log
    sent = []
    for item in requests:
        if item.frame.route == "UNI_PUBLISH" and item.frame.fields["query"]["topic"] == "orders" \
                and "body" in item.frame.fields:
            sent.append(convert.event_from_uni(item.frame))
        elif item.frame.route == "UNI_PUBLISH_BATCH":
            sent += [convert.from_cloud_event_json(event) for event in item.frame.fields["body"]]
    frames = list(iter_frames(dump.read_bytes(), "eventmesh-frame"))
    dumped = [convert.event_from_frame(frame.message) for frame in frames[:len(PUBLISHED)]]
    assert [(e.id, e.data) for e in sent] == PUBLISHED
    assert dumped == sent and len(frames) == logged

"""The generated Wireshark plugin on EventMesh's new runtime (issue 30, item 6), in the real tshark: the uni HTTP
API's routes as a postdissector over HTTP (eventmesh_uni: the route, its query parameters, the answer the route
table gives a status, expert info where the runtime refuses a request), agreeing with `decode -p eventmesh-http`
on a capture of uni-serve talking to uni-client; and the EventMeshFrame dissector applied with Decode As to a
TCP port (frames cut across segments; its TCP heuristic, on the magic, finds them unasked too) and to a UDP port,
agreeing with `decode -p eventmesh-frame`."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import struct
import subprocess
from collections import defaultdict
from ipaddress import ip_address
from pathlib import Path

from inlong_proto.capture import iter_capture_frames
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.core.frames import encode, iter_frames
from inlong_proto.endpoints.eventmesh_uni_client import UniClient, UniHttpError, cloud_event
from inlong_proto.endpoints.eventmesh_uni_server import UniServer
from inlong_proto.endpoints.tap import Tap
from inlong_proto.eventmesh import frame as frames
from inlong_proto.generated.codec.capture import ipv4_packet as ip4

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "generated" / "wireshark" / "inlong_proto.lua"
T0 = 1_790_000_000 * 10**9
EVENT = encode(frames.event_frame([("specversion", "1.0"), ("id", "e-1"), ("source", "/orders"), ("type", "created"),
                                   ("datacontenttype", "text/plain")], b"hello"))
CHUNK = encode(frames.chunk_frame("s-1", 7, "partial answer", done=True))


def tshark(tmp_path: Path, capture: Path, *args: str) -> list[list[str]]:
    """tshark -T fields rows (one per packet, '|' between a field's occurrences), HOME fresh, no Lua error."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"), "TZ": "UTC"}
    env.pop("WIRESHARK_CONFIG_DIR", None)
    done = subprocess.run([shutil.which("tshark"), "-X", f"lua_script:{PLUGIN}", "-r", str(capture), "-T", "fields",
                           "-E", "occurrence=a", "-E", "aggregator=|", *args], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "Lua" not in done.stderr, done.stderr[-3000:]
    return [line.split("\t") for line in done.stdout.splitlines()]


async def _uni_talk(path: Path) -> int:
    """uni-serve's UniServer and the uni-client's UniClient through the recording relay; the server's port."""
    server = UniServer()
    await server.start()
    port = server.port
    try:
        async with Tap() as tap:
            client = UniClient("127.0.0.1", await tap.relay(server.port))
            await client.subscribe("c1", "orders")
            async with contextlib.aclosing(client.follow("c1")) as stream:
                async for item in stream:
                    if item.message_type == "SSE_STREAM":
                        await client.publish("orders", cloud_event("e-1", "one"))
                    if item.message_type == "SSE_DELIVERY":
                        break
            await client.publish_batch("orders", [cloud_event("b-1", "two")])
            await client.poll("c1", 10, 0)
            await client.lite_publish_bytes("jobs", "agent-7", CHUNK)
            await client.lite_poll_bytes("jobs", "agent-7", timeout_ms=0)
            for method, target in (("GET", "/events/publish?topic=orders"), ("POST", "/events/publish"),
                                   ("POST", "/session/close/")):
                with contextlib.suppress(UniHttpError):
                    await client.call(method, target, b"{}", content_type="application/json")
            await client.close()
            rejecting = UniClient("127.0.0.1", await tap.relay(server.port))  # the JDK's 400 closes the connection
            await rejecting.call("GET", "/events/poll?clientId=c1&max=lots", expect=(400,))
            await rejecting.close()
            await tap.close()
            path.write_bytes(tap.pcap())
    finally:
        await server.stop()
    return port


def test_uni_routes_in_tshark_agree_with_the_decoder(tmp_path):
    capture = tmp_path / "uni.pcap"
    port = asyncio.run(_uni_talk(capture))
    rows = tshark(tmp_path, capture, "-d", f"tcp.port=={port},http", "-e", "eventmesh_uni.route",
                  "-e", "eventmesh_uni.method", "-e", "eventmesh_uni.query.topic", "-e", "eventmesh_uni.query.lite",
                  "-e", "eventmesh_uni.status", "-e", "eventmesh_uni.answer", "-e", "eventmesh_frame.msg_type",
                  "-e", "eventmesh_frame.seq", "-e", "_ws.expert.message", "-e", "tcp.stream")
    shown = [row for row in rows if row[0]]
    in_tshark = defaultdict(list)  # connection -> (route, status) of each request and answer, in order
    for row in shown:
        in_tshark[row[9]].append((row[0], row[4]))

    items = list(iter_capture_frames(capture.read_bytes(), "eventmesh-http", "PERMISSIVE"))
    assert not [item for item in items if item.frame.error is not None]
    in_decoder = defaultdict(list)
    for number in sorted({item.flow.number for item in items}):
        flow = sorted((i for i in items if i.flow.number == number), key=lambda i: i.frame.offset)
        requests = [i.frame for i in flow if i.direction == "request"]
        answers = [i.frame for i in flow if i.direction == "response" and i.frame.kind != "sse_event"]
        assert len(requests) == len(answers)
        for request, answer in zip(requests, answers):
            in_decoder[number] += [(request.route, ""), (request.route, str(answer.status))]
    assert sorted(in_tshark.values()) == sorted(in_decoder.values())
    assert sum(len(v) for v in in_decoder.values()) == 2 * 11  # seven calls, the stream and four refusals

    by_route = {}
    for row in shown:
        by_route.setdefault((row[0], row[4]), row)
    assert by_route[("UNI_PUBLISH", "")][2] == "orders" and by_route[("UNI_PUBLISH", "202")][5] == "ack"
    assert by_route[("UNI_POLL", "200")][5] == "deliveries" and by_route[("UNI_STREAM", "200")][5] == "sse-deliveries"
    assert by_route[("UNI_SUBSCRIBE", "200")][5] == "{subscriptionId, instanceUrl}"
    lite = by_route[("UNI_LITE_PUBLISH_BYTES", "")]
    assert (lite[1], lite[2], lite[3]) == ("POST", "jobs", "agent-7")
    assert (lite[6], lite[7]) == ("2", "7")  # the body read as the STREAM_CHUNK EventMeshFrame it is
    assert by_route[("UNI_LITE_POLL_BYTES", "200")][5] == "frames-base64"
    refusals = [row[8] for row in shown if row[0] in ("UNI_PUBLISH", "UNI_SESSION_CLOSE") and not row[4]]
    assert any("takes POST, not GET: the runtime answers 405" in text for text in refusals)
    assert any("query parameter topic is missing: the runtime answers 400" in text for text in refusals)
    assert any("no id after the route's path: the runtime answers 400" in text for text in refusals)
    assert by_route[("UNI_SESSION_CLOSE", "503")][5] == "error"
    assert by_route[("UNI_POLL", "400")][5] == "jdk-reject: NumberFormatException thrown"  # the server's own answer


def _udp(src: tuple[str, int], dst: tuple[str, int], payload: bytes) -> bytes:
    datagram = struct.pack(">HHHH", src[1], dst[1], 8 + len(payload), 0) + payload  # checksum 0: none
    return ip4.encode_ipv4_packet(ip4.Ipv4Packet(
        version=4, ihl=5, dscp=0, ecn=0, total_length=20 + len(datagram), identification=0, reserved_flag=False,
        dont_fragment=True, more_fragments=False, fragment_offset=0, ttl=64, protocol=17, header_checksum=0,
        src_addr=ip_address(src[0]).packed, dst_addr=ip_address(dst[0]).packed, options=b"", rest=datagram))


def test_eventmesh_frame_decodes_as_on_tcp_and_udp_ports(tmp_path):
    dump = EVENT + CHUNK
    expected = [(str(f.message.msg_type.value), str(f.message.seq), ",".join(a.name for a in f.message.attributes))
                for f in iter_frames(dump, "eventmesh-frame")]
    assert len(expected) == 2
    conv = Conversation(client=("10.0.0.1", 40000), server=("10.0.0.2", 5555))
    cut = len(EVENT) + 5  # the second frame's header spans two segments
    packets = conv.open(T0) + conv.send("client", dump[:cut], T0 + 1000) + conv.send("client", dump[cut:], T0 + 2000)
    tcp_capture, udp_capture = tmp_path / "tcp.pcap", tmp_path / "udp.pcap"
    tcp_capture.write_bytes(pcap_file(packets + conv.close(T0 + 3000)))
    udp_capture.write_bytes(pcap_file([(T0, _udp(("10.0.0.1", 40001), ("10.0.0.2", 5556), dump))]))
    fields = ["-e", "eventmesh_frame.msg_type", "-e", "eventmesh_frame.seq", "-e", "eventmesh_frame.attributes.name"]

    def shown(capture, *decode_as):
        return [row for row in tshark(tmp_path, capture, *decode_as, *fields) if row[0]]

    assert shown(tcp_capture) == shown(tcp_capture, "-d", "tcp.port==5555,eventmesh_frame")  # the TCP heuristic
    assert shown(udp_capture) == []  # UDP: no port, no heuristic, only Decode As
    for capture, decode_as in ((tcp_capture, "tcp.port==5555"), (udp_capture, "udp.port==5556")):
        rows = shown(capture, "-d", f"{decode_as},eventmesh_frame")
        got = [(msg_type, seq) for row in rows for msg_type, seq in zip(row[0].split("|"), row[1].split("|"))]
        assert got == [(msg_type, seq) for msg_type, seq, _ in expected]
        assert "|".join(row[2] for row in rows) == "|".join(names.replace(",", "|") for _, _, names in expected)


def _sse_capture(path: Path) -> bytes:
    """GET /events/stream answered by a chunked text/event-stream of three events (a delivery with a multi-line
    split, a comment, CRLF line ends, an event with event/id/retry) cut across segments, then its last chunk."""
    delivery = json.dumps({"deliveryId": "d-1", "event": cloud_event("e-1", "one")})
    events = [f"data: {delivery}\n\n", ": keep-alive\r\nevent: note\r\nid: 7\r\nretry: 3000\r\ndata: plain\r\n\r\n",
              f"data: {delivery.replace('d-1', 'd-2')}\n\n"]
    body = b"".join(b"%x\r\n%s\r\n" % (len(e.encode()), e.encode()) for e in events) + b"0\r\n\r\n"
    answer = (b"HTTP/1.1 200 OK\r\nContent-type: text/event-stream\r\nCache-control: no-cache\r\n"
              b"Transfer-encoding: chunked\r\n\r\n" + body)
    conv = Conversation(client=("127.0.0.1", 41000), server=("127.0.0.1", 18080))
    packets = conv.open(T0) + conv.send("client", b"GET /events/stream?clientId=c1 HTTP/1.1\r\nHost: x\r\n\r\n", T0 + 1)
    for n, at in enumerate(range(0, len(answer), 97)):  # segments that cut lines, chunks and events
        packets += conv.send("server", answer[at:at + 97], T0 + 2 + n)
    path.write_bytes(pcap_file(packets + conv.close(T0 + 1000)))
    return answer


def test_sse_events_in_tshark_agree_with_the_decoder(tmp_path):
    capture = tmp_path / "sse.pcap"
    _sse_capture(capture)
    rows = tshark(tmp_path, capture, "-d", "tcp.port==18080,http", "-e", "eventmesh_sse.data_kind",
                  "-e", "eventmesh_sse.event", "-e", "eventmesh_sse.id", "-e", "eventmesh_sse.retry",
                  "-e", "eventmesh_sse.data", "-e", "json.member_with_value", "-e", "eventmesh_uni.answer")
    [row] = [row for row in rows if row[4]]  # the packet with the last chunk: the body, whole
    items = [i.frame for i in iter_capture_frames(capture.read_bytes(), "eventmesh-http", "PERMISSIVE")]
    events = [f for f in items if f.kind == "sse_event" and not f.end]
    assert [e.data for e in events] == row[4].split("|")
    assert [e.data_kind for e in events] == ["delivery", "text", "delivery"]
    assert row[0].split("|") == ["delivery"] * 3  # the route's kind (UNI_STREAM: sse-deliveries) on every event
    assert (row[1], row[2], row[3]) == ("note", "7", "3000")
    members = row[5].split("|")
    assert "deliveryId:d-1" in members and "deliveryId:d-2" in members and "id:e-1" in members  # json dissector
    assert row[6] == "sse-deliveries"

"""Captures of every protocol's flows, written with the capture writer from the test vectors: the flows are
classified, and each direction decodes to what its raw stream decodes to, gaps and interleaving included."""
from __future__ import annotations

import json

import pytest

from inlong_proto import iter_frames
from inlong_proto.capture import CaptureDecoder, GapError, iter_capture_frames
from inlong_proto.capture.writer import pcap_file
from inlong_proto.core.errors import TruncatedError
from inlong_proto.eventmesh import http
from vectors import HTTP_STREAMS as HTTP, ROOT, STREAMS, T0, mixed_capture, talk

def expected(protocol: str, data: bytes, direction: str) -> list:
    """What decoding the raw stream gives (PERMISSIVE)."""
    if protocol == "eventmesh-http":
        return list(http.iter_messages(data, direction, "PERMISSIVE"))
    if protocol == "dataproxy":
        return list(iter_frames(data, protocol, direction, "PERMISSIVE"))
    return list(iter_frames(data, protocol, None, "PERMISSIVE"))


def frames_of(items, number: int, direction: str) -> list:
    return [i.frame for i in items if i.flow.number == number and i.direction == direction]


def assert_tiles(frames: list, size: int) -> None:
    spans = sorted((f.offset, f.length) for f in frames if f.length or not f.error)
    assert [o for o, _ in spans] == [0] + [o + n for o, n in spans[:-1]]
    assert sum(n for _, n in spans) == size


def test_vectors_make_real_streams():
    assert HTTP["request"].startswith(b"POST ") and HTTP["response"].startswith(b"HTTP/1.")
    assert HTTP["response"].endswith(b'{"retCode":0}')  # the read-to-close reply is last
    for protocol, (client, server) in STREAMS.items():
        if protocol != "eventmesh-grpc":
            assert not [f for f in expected(protocol, client, "request") if f.error], protocol
            assert not [f for f in expected(protocol, server, "response") if f.error], protocol


@pytest.mark.parametrize("protocol, port", [("eventmesh-http", 10105), ("eventmesh-http", 18080),
                                            ("tubemq", 8715), ("tubemq", 18715)])
@pytest.mark.parametrize("mss", [7, 1460])
def test_flow_decodes_as_its_raw_streams(protocol, port, mss):
    client, server = STREAMS[protocol]
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    items = decoder.feed(pcap_file(talk(client, server, port, mss=mss))) + decoder.close()
    assert decoder.flows[0]["protocol"] == protocol and decoder.flows[0]["closed"]
    assert decoder.flows[0]["bytes"] == {"request": len(client), "response": len(server)}
    for direction, data in (("request", client), ("response", server)):
        got = frames_of(items, 0, direction)
        assert got == expected(protocol, data, direction)
        assert len(got) > 1 and not [f for f in got if f.error]  # pipelined: many messages per stream
        assert_tiles(got, len(data))
    assert decoder.flows[0]["frames"] == {d: len(frames_of(items, 0, d)) for d in ("request", "response")}
    starts = {i.timestamp_ns for i in items}
    assert min(starts) > T0 and max(starts) < T0 + 9 * 10**6


def test_tubemq_method_names_both_ways():
    client, server = STREAMS["tubemq"]
    items = list(iter_capture_frames(pcap_file(talk(client, server, 18715)), "auto", "PERMISSIVE"))
    names = {d: [f.message_type for f in frames_of(items, 0, d)] for d in ("request", "response")}
    files = sorted((ROOT / "tubemq" / "valid").glob("*.json"))
    vectors = [json.loads(p.read_text()) for p in files]
    for direction in ("request", "response"):
        assert names[direction] == [v["message_type"] for v in vectors if v["direction"] == direction]
        assert {f.direction for f in frames_of(items, 0, direction)} == {direction}
    assert "sendMessageP2B" in names["request"] and "sendMessageP2B" in names["response"]


@pytest.mark.parametrize("lost", ["request", "response"])
def test_http_stream_cut_by_a_gap_resynchronises(lost):
    """A lost segment: the message it cuts is a truncated span, then the gap, then the decoder restarts
    at the next message start, exactly as if the rest of the stream were decoded on its own."""
    client, server = STREAMS["eventmesh-http"]
    mss = 200
    packets = talk(client, server, 18080, mss=mss, turns=1)
    side = "client" if lost == "request" else "server"
    data = client if lost == "request" else server
    first = 3 + (0 if side == "client" else -(-len(client) // mss))
    drop = first + 2  # the third segment: bytes 400..600
    del packets[drop]
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    items = decoder.feed(pcap_file(packets)) + decoder.close()
    assert decoder.flows[0]["protocol"] == "eventmesh-http" and decoder.flows[0]["gaps"] == 1
    got = frames_of(items, 0, lost)
    before = list(http.iter_messages(data[:2 * mss], lost, "PERMISSIVE"))
    restarted = http.HttpStreamDecoder(lost, mode="PERMISSIVE", offset=3 * mss)
    after = restarted.feed(data[3 * mss:]) + restarted.close()
    (gap,) = [f for f in got if isinstance(f.error, GapError)]
    assert (gap.offset, gap.length) == (2 * mss, mss)
    index = got.index(gap)
    assert [f.to_dict() for f in got[:index]] == [f.to_dict() for f in before]  # (errors compare by identity)
    assert isinstance(before[-1].error, TruncatedError)
    assert [f.to_dict() for f in got[index + 1:]] == [f.to_dict() for f in after]
    assert after[0].error is not None and after[-1].error is None  # resynchronised at a message start
    assert_tiles(got, len(data))
    other = "response" if lost == "request" else "request"
    assert frames_of(items, 0, other) == expected("eventmesh-http", server if lost == "request" else client, other)


def test_grpc_flow_is_recognised_and_its_bytes_accounted_for():
    """The vector's gRPC flow is a preface then bytes that are no HTTP/2 frame: the preface is an item, the
    rest error spans that keep every byte (whole conversations: tests/eventmesh/test_h2_grpc.py)."""
    client, server = STREAMS["eventmesh-grpc"]
    for port in (10205, 18081):
        decoder = CaptureDecoder("auto", "PERMISSIVE")
        items = decoder.feed(pcap_file(talk(client, server, port, mss=11))) + decoder.close()
        assert decoder.flows[0]["protocol"] == "eventmesh-grpc"
        assert items[0].frame.message_type == "PREFACE" and any(i.frame.error for i in items)
        for direction, data in (("request", client), ("response", server)):
            got = frames_of(items, 0, direction)
            assert_tiles(got, len(data))
            assert b"".join(f.raw for f in got if f.error and f.length) == data[len(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"):] \
                or direction == "response"


def test_mixed_capture_flows_and_frames():
    data, flows = mixed_capture()
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    items = []
    for at in range(0, len(data), 1000):  # fed in chunks, as from a file
        items += decoder.feed(data[at:at + 1000])
    items += decoder.close()
    assert sorted(decoder.flows) == sorted(flows)
    numbers = [i.flow.number for i in items]
    assert numbers != sorted(numbers)  # the flows' frames come interleaved, in capture order
    for number, (protocol, client, server) in flows.items():
        stats = decoder.flows[number]
        assert stats["protocol"] == protocol and stats["closed"] and stats["gaps"] == 0
        assert stats["flow"].client_port == 41000 + number
        assert stats["bytes"] == {"request": len(client), "response": len(server)}
        for direction, stream in (("request", client), ("response", server)):
            got = frames_of(items, number, direction)
            assert_tiles(got, len(stream))
            counted = len([f for f in got if not f.error]), len([f for f in got if f.error])
            assert (stats["frames"][direction], stats["errors"][direction]) == counted
            if protocol != "eventmesh-grpc":
                assert got == expected(protocol, stream, direction)
    assert decoder.stats["packets"] == decoder.stats["tcp"]


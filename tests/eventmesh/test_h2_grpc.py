"""EventMesh gRPC on the wire (inlong_proto.eventmesh.h2): HTTP/2 connections written with python-hyper's
encoders (hyperframe, hpack), then read back as frames, gRPC messages and call records, raw and in
captures, from the start and from the middle of the connection."""
from __future__ import annotations

import gzip
from collections import Counter
import json
import subprocess
import sys

import pytest
from hpack import Encoder
from hyperframe import frame as hf

from inlong_proto.capture import CaptureDecoder
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.core.errors import DecodeError
from inlong_proto.eventmesh import h2
from inlong_proto.generated.protobuf.eventmesh import eventmesh_client_pb2 as legacy
from inlong_proto.generated.protobuf.eventmesh import eventmesh_cloudevents_pb2 as ce

PUBLISH = "/org.apache.eventmesh.cloudevents.v1.PublisherService/publish"
STREAM = "/org.apache.eventmesh.cloudevents.v1.ConsumerService/subscribeStream"
HEARTBEAT = "/eventmesh.common.protocol.grpc.HeartbeatService/heartbeat"
T0 = 1_700_000_000 * 10**9


def event(n: int, text: str = "hello") -> ce.CloudEvent:
    e = ce.CloudEvent(id=f"id-{n}", source="/", spec_version="1.0", type="org.apache.eventmesh", text_data=text)
    e.attributes["subject"].ce_string = "TEST-TOPIC"
    return e


def grpc_message(message, compress: bool = False) -> bytes:
    data = message.SerializeToString()
    if compress:
        data = gzip.compress(data)
    return bytes([int(compress)]) + len(data).to_bytes(4, "big") + data


class Peer:
    """One side of an HTTP/2 connection: an hpack Encoder (its table lives as long as the connection) and
    the frames it sent, each kept apart so that a test can send them in any order or drop some."""

    def __init__(self, client: bool):
        self.encoder = Encoder()
        self.frames: list[bytes] = [h2.PREFACE] if client else []
        self.frames.append(hf.SettingsFrame(0, settings={hf.SettingsFrame.MAX_CONCURRENT_STREAMS: 100}).serialize())

    def headers(self, stream_id: int, headers, *, end_stream: bool = False, pieces: int = 1, pad: int = 0) -> None:
        block = self.encoder.encode(headers)
        cut = [block[len(block) * i // pieces:len(block) * (i + 1) // pieces] for i in range(pieces)]
        first = hf.HeadersFrame(stream_id, data=cut[0])
        if end_stream:
            first.flags.add("END_STREAM")
        if pad:
            first.flags.add("PADDED")
            first.pad_length = pad
        if pieces == 1:
            first.flags.add("END_HEADERS")
        out = first.serialize()
        for index, piece in enumerate(cut[1:], 1):
            cont = hf.ContinuationFrame(stream_id, data=piece)
            if index == pieces - 1:
                cont.flags.add("END_HEADERS")
            out += cont.serialize()
        self.frames.append(out)

    def data(self, stream_id: int, data: bytes, *, end_stream: bool = False, pad: int = 0) -> None:
        frame = hf.DataFrame(stream_id, data=data)
        if end_stream:
            frame.flags.add("END_STREAM")
        if pad:
            frame.flags.add("PADDED")
            frame.pad_length = pad
        self.frames.append(frame.serialize())

    def frame(self, frame) -> None:
        self.frames.append(frame.serialize())

    @property
    def stream(self) -> bytes:
        return b"".join(self.frames)


def request_headers(path: str, *, gzip_encoding: bool = False) -> list:
    out = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1:10205"),
           ("content-type", "application/grpc"), ("te", "trailers"), ("user-agent", "grpc-java-netty/1.68")]
    if gzip_encoding:
        out += [("grpc-encoding", "gzip"), ("grpc-accept-encoding", "gzip")]
    return out


def response_headers(*, gzip_encoding: bool = False) -> list:
    return [(":status", "200"), ("content-type", "application/grpc")] + (
        [("grpc-encoding", "gzip")] if gzip_encoding else [])


def conversation():
    """Two interleaved unary publishes (stream 1 gzip, split over frames, padded, its headers in three
    CONTINUATION pieces), a failed heartbeat of the legacy service (trailers with an error), a
    subscribeStream with two messages each way, plus PING, WINDOW_UPDATE and GOAWAY. Returns the client
    and server Peers and the order of the frames as [(side, index)]."""
    client, server = Peer(True), Peer(False)
    order = [("client", 0), ("client", 1), ("server", 0)]

    def c(fn, *a, **kw):
        fn(*a, **kw)
        order.append(("client", len(client.frames) - 1))

    def s(fn, *a, **kw):
        fn(*a, **kw)
        order.append(("server", len(server.frames) - 1))

    c(client.frame, hf.SettingsFrame(0, flags=["ACK"]))
    s(server.frame, hf.SettingsFrame(0, flags=["ACK"]))
    big = grpc_message(event(1, "x" * 300), compress=True)
    c(client.headers, 1, request_headers(PUBLISH, gzip_encoding=True), pieces=3)
    c(client.headers, 3, request_headers(PUBLISH))
    c(client.data, 1, big[:7], pad=4)
    c(client.data, 3, grpc_message(event(2)), end_stream=True)
    c(client.data, 1, big[7:], end_stream=True, pad=10)
    s(server.headers, 3, response_headers())
    s(server.data, 3, grpc_message(event(20, "ok")))
    s(server.headers, 3, [("grpc-status", "0")], end_stream=True)
    s(server.headers, 1, response_headers(gzip_encoding=True))
    s(server.data, 1, grpc_message(event(10, "ok"), compress=True))
    s(server.headers, 1, [("grpc-status", "0")], end_stream=True)
    beat = legacy.Heartbeat(clientType=legacy.Heartbeat.SUB, consumerGroup="g")
    c(client.headers, 5, request_headers(HEARTBEAT))
    c(client.data, 5, grpc_message(beat), end_stream=True)
    s(server.headers, 5, [(":status", "200"), ("content-type", "application/grpc"), ("grpc-status", "16"),
                          ("grpc-message", "not%20authenticated")], end_stream=True)
    c(client.headers, 7, request_headers(STREAM))
    both = grpc_message(event(30)) + grpc_message(event(31))
    c(client.data, 7, both)  # two messages in one frame
    s(server.headers, 7, response_headers())
    s(server.data, 7, grpc_message(event(40)) + grpc_message(event(41))[:3])
    s(server.data, 7, grpc_message(event(41))[3:])
    c(client.frame, hf.PingFrame(0, opaque_data=b"12345678"))
    s(server.frame, hf.PingFrame(0, flags=["ACK"], opaque_data=b"12345678"))
    c(client.frame, hf.WindowUpdateFrame(0, window_increment=65535))
    c(client.frame, hf.RstStreamFrame(7, error_code=8))
    s(server.frame, hf.GoAwayFrame(0, last_stream_id=7, error_code=0))
    return client, server, order


def decode_both(client: Peer, server: Peer, order, mode="PERMISSIVE", skip: int = 0):
    """Both directions fed frame by frame in the order they were sent (as a capture would), sharing the
    connection state; skip: leave out the first frames, as a capture started mid-connection does."""
    connection = h2.H2Connection()
    decoders = {side: h2.GrpcStreamDecoder(direction, mode=mode, connection=connection)
                for side, direction in (("client", "request"), ("server", "response"))}
    out = []
    for side, index in order[skip:]:
        out += decoders[side].feed((client if side == "client" else server).frames[index])
    return out + decoders["client"].close() + decoders["server"].close()


def assert_tiles(items: list, size: int) -> None:
    spans = sorted((i.offset, i.length) for i in items if i.length)
    assert [o for o, _ in spans] == [0] + [o + n for o, n in spans[:-1]]
    assert sum(n for _, n in spans) == size


def by_kind(items, kind):
    return [i for i in items if getattr(i, "kind", None) == kind]


# ------------------------------------------------------------------------------------- raw streams
def test_the_frame_header_comes_from_the_spec():
    from inlong_proto.generated.codec.eventmesh.http2_frame import FrameType, decode_frame_header

    raw = hf.HeadersFrame(0x7ffffff1, data=b"abc", flags=["END_HEADERS", "END_STREAM"]).serialize()
    header, end = decode_frame_header(raw)
    assert end == h2.HEADER_SIZE and header.length == 3 and header.type is FrameType.headers
    assert header.stream_id == 0x7ffffff1 and header.end_headers and header.end_stream_or_ack and not header.padded


def test_method_table_comes_from_the_service_descriptors():
    table = h2.methods()
    assert table[PUBLISH].input.DESCRIPTOR.full_name == "org.apache.eventmesh.cloudevents.v1.CloudEvent"
    assert table[STREAM].client_streaming and table[STREAM].server_streaming
    assert table[HEARTBEAT].output.DESCRIPTOR.full_name == "eventmesh.common.protocol.grpc.Response"
    assert len(table) == 16


def test_a_whole_connection_decodes_to_frames_messages_and_calls():
    client, server, order = conversation()
    items = decode_both(client, server, order, "FAILFAST")
    for direction, data in (("request", client.stream), ("response", server.stream)):
        mine = [i for i in items if i.direction == direction and i.kind == "frame"]
        assert_tiles(mine, len(data))
    frames = [i.message_type for i in items if i.kind == "frame" and i.direction == "request"]
    assert frames[:3] == ["PREFACE", "SETTINGS", "SETTINGS"]
    assert {"PING", "WINDOW_UPDATE", "RST_STREAM", "HEADERS", "DATA"} <= set(frames)
    continued = [i for i in items if i.kind == "frame" and i.stream_id == 1 and i.message_type == "HEADERS"][0]
    assert continued.path == PUBLISH and continued.length == sum(
        len(f) for f in [client.frames[3]])  # HEADERS and its two CONTINUATIONs are one item
    messages = by_kind(items, "message")
    publish = [m for m in messages if m.stream_id == 1]
    assert [(m.direction, m.compressed, m.encoding) for m in publish] == [("request", True, "gzip"),
                                                                         ("response", True, "gzip")]
    assert publish[0].body["text_data"] == "x" * 300 and publish[0].message_type == "publish"
    calls = {c.stream_id: c for c in by_kind(items, "call")}
    assert set(calls) == {1, 3, 5, 7}
    assert calls[3].status == 0 and [r["body"]["id"] for r in calls[3].requests] == ["id-2"]
    assert [r["body"]["id"] for r in calls[3].responses] == ["id-20"]
    beat = calls[5].to_dict()
    assert beat["status_name"] == "UNAUTHENTICATED" and beat["status_message"] == "not authenticated"
    assert beat["requests"][0]["body"]["consumerGroup"] == "g" and beat["message_type"] == "heartbeat"
    stream = calls[7].to_dict()
    assert [m["body"]["id"] for m in stream["requests"]] == ["id-30", "id-31"]
    assert [m["body"]["id"] for m in stream["responses"]] == ["id-40", "id-41"]
    assert stream["reset"] == "CANCEL" and stream["status"] is None
    streaming = [m.to_dict()["body"]["id"] for m in messages if m.stream_id == 7]
    assert streaming == ["id-30", "id-31", "id-40", "id-41"]  # every message of a stream is its own item
    assert all(json.dumps(i.to_dict()) for i in items)


@pytest.mark.parametrize("mode", ["FAILFAST", "PERMISSIVE"])
def test_frame_types_beyond_the_spec_are_extensions_even_altsvc(mode):
    """RFC 9113 5.5: a type the spec does not define is ignored, whatever its body. hyperframe reads ALTSVC
    (type 10, RFC 7838) by its own rules; the fuzzer found that it crashed the decoder (ValueError: 10 is not
    a valid FrameType), and a malformed one would have been an error where the spec says ignore."""
    client = Peer(True)
    client.frame(hf.AltSvcFrame(0, origin=b"example.com", field=b'h2=":443"'))
    client.frames.append(bytes([0, 0, 1, 10, 0, 0, 0, 0, 0, 0xFF]))  # ALTSVC whose origin length runs off
    client.frames.append(bytes([0, 0, 3, 0xB, 0, 0, 0, 0, 0]) + b"ext")  # an unassigned type
    client.frame(hf.PingFrame(0, opaque_data=b"8 bytes!"))
    items = h2.GrpcStreamDecoder("request", mode=mode).feed(b"".join(client.frames))
    frames = [(i.message_type, i.to_dict().get("info", {}).get("type")) for i in items if i.kind == "frame"]
    assert frames[2:] == [("EXTENSION", 10), ("EXTENSION", 10), ("EXTENSION", 11), ("PING", None)]
    assert not [i for i in items if i.kind == "error"]


def test_a_malformed_continuation_ends_its_header_block_first():
    """The fuzzer's tiling find: HEADERS without END_HEADERS, then a CONTINUATION on stream 0 (malformed).
    The cut block is reported before the malformed frame, so the items tile the stream in order."""
    client = Peer(True)
    client.frame(hf.HeadersFrame(1, data=b"\x82"))  # no END_HEADERS: a CONTINUATION must follow
    client.frames.append(bytes([0, 0, 1, 9, 4, 0, 0, 0, 0, 0x86]))  # CONTINUATION on stream 0
    client.frame(hf.PingFrame(0, opaque_data=b"8 bytes!"))
    data = b"".join(client.frames)
    items = h2.GrpcStreamDecoder("request", mode="PERMISSIVE").feed(data)
    assert_tiles(items, len(data))
    assert [(i.kind, i.message_type) for i in items][-3:] == [("error", None), ("error", None), ("frame", "PING")]
    assert [i.error.field for i in items if i.kind == "error"] == ["header_block", "payload"]


def test_split_anywhere_gives_the_same_items():
    client, server, _ = conversation()
    whole = [i.to_dict() for i in h2.iter_messages(client.stream, "request")]
    decoder = h2.GrpcStreamDecoder("request")
    pieces = []
    for at in range(0, len(client.stream), 7):
        pieces += decoder.feed(client.stream[at:at + 7])
    pieces += decoder.close()
    assert [i.to_dict() for i in pieces] == whole


def test_direction_is_told_by_the_preface_and_the_headers():
    client, server, _ = conversation()
    assert {i.direction for i in h2.iter_messages(client.stream)} == {"request"}
    assert {i.direction for i in h2.iter_messages(server.stream)} - {None} == {"response"}


def test_a_response_dump_alone_infers_types_or_says_why_not():
    _, server, _ = conversation()
    items = list(h2.iter_messages(server.stream, "response", "PERMISSIVE"))
    messages = by_kind(items, "message")
    assert messages and all(m.inferred for m in messages)  # no request headers: types inferred, and said so
    assert {m.type_name for m in messages} == {"org.apache.eventmesh.cloudevents.v1.CloudEvent"}


def test_bad_frames_are_error_spans_that_tile_and_failfast_raises():
    client, _, _ = conversation()
    bad = bytearray(hf.DataFrame(1, data=b"abc").serialize())
    bad[4] |= 0x08  # PADDED with a pad length larger than the payload
    bad[9] = 200
    data = client.stream[:100] + bytes(bad) + client.stream[100:]
    cut = sum(len(f) for f in client.frames[:4])
    data = client.stream[:cut] + bytes(bad) + client.stream[cut:]
    items = list(h2.iter_messages(data, "request", "PERMISSIVE"))
    errors = [i for i in items if i.error is not None]
    assert errors and errors[0].offset == cut and errors[0].length == len(bad)
    assert_tiles([i for i in items if i.kind == "frame" or i.error is not None], len(data))
    with pytest.raises(DecodeError):
        list(h2.iter_messages(data, "request", "FAILFAST"))
    dropped = list(h2.iter_messages(data, "request", "DROPMALFORMED"))
    assert not [i for i in dropped if i.error is not None]
    assert len(dropped) == len(items) - len(errors)


def test_a_cut_stream_ends_with_a_truncated_span():
    client, _, _ = conversation()
    data = client.stream[:-3]
    items = list(h2.iter_messages(data, "request", "PERMISSIVE"))
    assert items[-1].error is None or items[-1].error.kind == "truncated"
    assert [i for i in items if i.error is not None and i.error.kind == "truncated"]
    assert_tiles([i for i in items if i.length], len(data))


def test_a_wrong_message_under_a_known_path_is_an_error_not_a_guess():
    client = Peer(True)
    client.headers(1, request_headers(PUBLISH))
    client.data(1, b"\x00\x00\x00\x00\x03\xff\xff\xff", end_stream=True)  # not a CloudEvent
    items = list(h2.iter_messages(client.stream, "request", "PERMISSIVE"))
    errors = [i for i in items if i.error is not None]
    assert len(errors) == 1 and "CloudEvent" in errors[0].error.reason and errors[0].raw == b"\xff\xff\xff"
    call = by_kind(items, "call")[0]
    assert call.undecoded == 1 and not call.complete


# ------------------------------------------------------------------------------- mid-connection
def test_mid_connection_reads_what_it_can_and_marks_the_rest():
    """Starting after the preface, the first SETTINGS and the first publish's HEADERS: the HPACK entries
    they added are unknown, so later headers that use them have null parts; stream 1's DATA is typed by
    inference; nothing is dropped."""
    client, server, order = conversation()
    skip = 6  # preface, settings x2, settings ack x2... and stream 1's HEADERS
    kept = order[skip:]
    request = b"".join(client.frames[i] for side, i in kept if side == "client")
    response = b"".join(server.frames[i] for side, i in kept if side == "server")
    items = decode_both(client, server, order, skip=skip)
    for direction, data in (("request", request), ("response", response)):
        assert_tiles([i for i in items if i.direction == direction and i.length], len(data))
    stream1 = [i for i in by_kind(items, "message") if i.stream_id == 1]
    assert stream1 and all(m.inferred for m in stream1)
    assert stream1[0].body["text_data"] == "x" * 300  # the gzip magic named the encoding
    headers3 = [i for i in items if i.kind == "frame" and i.stream_id == 3 and i.message_type == "HEADERS"
                and i.direction == "request"][0]
    assert headers3.path == PUBLISH or any(n is None or v is None for n, v in headers3.headers)
    calls = {c.stream_id: c for c in by_kind(items, "call")}
    assert calls[1].path is None and not calls[1].complete


def test_mid_frame_start_is_skipped_to_the_next_frame():
    client, _, _ = conversation()
    start = sum(len(f) for f in client.frames[:4]) + 5  # inside stream 1's first DATA frame
    data = client.stream[start:]
    items = list(h2.iter_messages(data, "request", "PERMISSIVE"))
    assert items[0].error is not None and items[0].offset == 0
    assert "no HTTP/2 frame starts here" in items[0].error.reason
    assert_tiles([i for i in items if i.length], len(data))
    assert by_kind(items, "message")  # later streams still decode


# ------------------------------------------------------------------------------------ captures
def packets_of(client: Peer, server: Peer, order, *, drop: int = 0, handshake: bool = True, mss: int = 1460):
    conv = Conversation(("10.0.0.1", 40000), ("10.0.0.2", 10205), mss=mss)
    packets = conv.open(T0) if handshake else []
    t = T0
    for side, index in order:
        t += 10**6
        data = (client if side == "client" else server).frames[index]
        packets += conv.send("client" if side == "client" else "server", data, t)
    packets += conv.close(t + 10**6)
    if drop:
        packets = packets[3 + drop:]
    return packets


def test_capture_decodes_calls_with_latency():
    client, server, order = conversation()
    decoder = CaptureDecoder("auto", "FAILFAST")
    items = decoder.feed(pcap_file(packets_of(client, server, order, mss=50))) + decoder.close()
    assert decoder.flows[0]["protocol"] == "eventmesh-grpc"
    calls = [i.frame for i in items if i.frame.kind == "call"]
    assert {c.stream_id for c in calls} == {1, 3, 5, 7}
    assert all(c.latency_ms and c.latency_ms > 0 for c in calls if c.reset is None)
    for direction, data in (("request", client.stream), ("response", server.stream)):
        assert_tiles([i.frame for i in items if i.direction == direction and i.frame.length], len(data))


def test_capture_started_mid_connection_decodes_what_it_can():
    client, server, order = conversation()
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    items = decoder.feed(pcap_file(packets_of(client, server, order, drop=6, handshake=True))) + decoder.close()
    assert decoder.flows[0]["protocol"] == "eventmesh-grpc"
    frames = [i.frame for i in items]
    assert by_kind(frames, "message") and by_kind(frames, "call")
    for direction in ("request", "response"):
        total = decoder.flows[0]["bytes"][direction]
        assert_tiles([i.frame for i in items if i.direction == direction and i.frame.length], total)


def test_a_gap_keeps_the_calls_going():
    client, server, order = conversation()
    packets = packets_of(client, server, order)
    lost = next(i for i, (_, p) in enumerate(packets) if i > 12)
    del packets[lost]
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    items = decoder.feed(pcap_file(packets)) + decoder.close()
    frames = [i.frame for i in items]
    assert [f for f in frames if f.error is not None and f.error.kind == "gap"]
    assert by_kind(frames, "call")
    for direction in ("request", "response"):
        total = decoder.flows[0]["bytes"][direction]
        assert_tiles([i.frame for i in items if i.direction == direction and (i.frame.length)], total)


def test_cli_decodes_a_capture_with_auto(tmp_path):
    client, server, order = conversation()
    path = tmp_path / "grpc.pcap"
    path.write_bytes(pcap_file(packets_of(client, server, order)))
    run = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "--mode", "PERMISSIVE",
                          "-Y", 'kind == "call"', "-e", "message_type", "-e", "status", str(path)],
                         capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert sorted(r["message_type"] for r in rows) == ["heartbeat", "publish", "publish", "subscribeStream"]
    assert {r["status"] for r in rows} == {0, 16, None}


def test_cli_decodes_a_raw_dump(tmp_path):
    client, _, _ = conversation()
    path = tmp_path / "grpc.bin"
    path.write_bytes(client.stream)
    run = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "eventmesh-grpc", "-d", "request",
                          "-Y", 'kind == "message"', "-e", "body.id", str(path)],
                         capture_output=True, text=True, check=True)
    ids = [json.loads(line)["body.id"] if line.startswith("{") else line for line in run.stdout.splitlines()]
    assert len(ids) == 5


def test_cli_auto_detects_a_raw_dump(tmp_path):
    """-p auto on a one-direction dump: the client's (the preface) and the server's (HTTP/2 frames from the
    first byte) are both told to be eventmesh-grpc, as a capture's flow would be."""
    client, server, _ = conversation()
    for name, stream, direction in (("client.bin", client.stream, "request"), ("server.bin", server.stream, "response")):
        (tmp_path / name).write_bytes(stream)
        run = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "--mode", "PERMISSIVE",
                              str(tmp_path / name)], capture_output=True, text=True, check=True)
        rows = [json.loads(line) for line in run.stdout.splitlines()]
        assert {r["protocol"] for r in rows} == {"eventmesh-grpc"} and all("error" not in r for r in rows)
        # the server's first frames (SETTINGS) come before anything tells the direction: null there
        assert {r["direction"] for r in rows if r["kind"] == "frame"} - {None} == {direction}
        shown = subprocess.run([sys.executable, "-m", "inlong_proto", "inspect", "-p", "auto", str(tmp_path / name)],
                               capture_output=True, text=True, check=True).stdout
        assert "frame SETTINGS" in shown and "stream_id = " in shown


def _grpc_capture(tmp_path):
    client, server, order = conversation()
    data = pcap_file(packets_of(client, server, order, mss=64))
    (tmp_path / "grpc.pcap").write_bytes(data)
    return client, server, data


def _expected_columns(item) -> dict:
    """The eventmesh_grpc columns an item should get: its to_dict, nested values as JSON text."""
    values = item.to_dict()
    out = {"kind": values["kind"], "stream_id": values.get("stream_id"), "grpc_path": values.get("path")}
    for key in ("status", "status_name", "latency_ms", "complete", "index", "size", "compressed", "type"):
        out[key] = values.get(key)
    out["body"] = None if "body" not in values else json.dumps(values["body"], ensure_ascii=False)
    out["requests"] = None if "requests" not in values else [json.dumps(r, ensure_ascii=False) for r in values["requests"]]
    return out


def test_spark_auto_gives_grpc_rows_with_their_own_struct(spark, tmp_path):
    """spark.read.format("inlong") with protocol auto: one row per item of the gRPC flow, its columns in the
    eventmesh_grpc struct (calls with path, status, latency and messages; messages with their bodies)."""
    pytest.importorskip("pyspark")
    from inlong_proto.capture import iter_capture_frames
    from inlong_proto.spark.source import register

    client, server, data = _grpc_capture(tmp_path)
    register(spark)
    rows = spark.read.format("inlong").option("protocol", "auto").load(str(tmp_path)).toArrow().to_pylist()
    items = list(iter_capture_frames(data, "auto", "PERMISSIVE"))
    assert len(rows) == len(items) and {r["protocol"] for r in rows} == {"eventmesh-grpc"}
    assert all(r["error"] is None and r["eventmesh_grpc"] is not None and r["eventmesh_http"] is None
               and r["dataproxy"] is None for r in rows)
    assert Counter(r["message_type"] for r in rows) == Counter(i.frame.message_type for i in items)
    for sender, stream in (("client", client.stream), ("server", server.stream)):
        assert sum(r["length"] for r in rows if r["capture"]["sender"] == sender) == len(stream)
    for row, item in zip(rows, items):
        got = {key: row["eventmesh_grpc"][key] for key in _expected_columns(item.frame)}
        assert got == _expected_columns(item.frame)
    calls = {r["eventmesh_grpc"]["stream_id"]: r["eventmesh_grpc"] for r in rows if r["eventmesh_grpc"]["kind"] == "call"}
    assert calls[5]["status_name"] == "UNAUTHENTICATED" and calls[5]["status_message"] == "not authenticated"
    assert calls[1]["latency_ms"] == 10.0 and json.loads(calls[1]["requests"][0])["body"]["id"] == "id-1"
    assert {"name": "grpc-encoding", "value": "gzip"} in calls[1]["request_headers"]
    assert calls[7]["reset"] == "CANCEL"


def test_spark_named_grpc_reads_captures_and_raw_dumps_alike(spark, tmp_path):
    """protocol eventmesh-grpc: flat columns, from a capture (format inlong and read_captures agree) and from
    raw one-direction dumps (cut into splits, still read whole by the first: HTTP/2 has no sync points),
    and SQL's parse_eventmesh_grpc over binaryFile; protocol auto detects the raw dumps."""
    pytest.importorskip("pyspark")
    from inlong_proto.core import arrow
    from inlong_proto.core.frames import iter_frames
    from inlong_proto.spark.dumps import read_dumps, register_udtf
    from inlong_proto.spark.captures import read_captures
    from inlong_proto.spark.source import register

    client, server, data = _grpc_capture(tmp_path)
    register(spark)
    named = spark.read.format("inlong").option("protocol", "eventmesh_grpc").load(str(tmp_path / "grpc.pcap"))
    assert named.columns == arrow.frame_schema("eventmesh-grpc").names + [arrow.DATE]
    assert named.columns[named.columns.index("kind"):][:3] == ["kind", "stream_id", "grpc_path"]
    parallel = read_captures(spark, str(tmp_path / "grpc.pcap"), protocol="eventmesh-grpc", split_size=1024)
    assert sorted(map(tuple, named.collect())) == sorted(map(tuple, parallel.collect()))
    statuses = {r.stream_id: r.status for r in named.where("kind = 'call'").collect()}
    assert statuses == {1: 0, 3: 0, 5: 16, 7: None}

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "client.bin").write_bytes(client.stream)
    (raw / "server.bin").write_bytes(server.stream)
    expected = {name: [item.to_dict() for item in iter_frames(stream, "eventmesh-grpc", None, "PERMISSIVE")]
                for name, stream in (("client.bin", client.stream), ("server.bin", server.stream))}
    for protocol in ("eventmesh-grpc", "auto"):
        rows = (spark.read.format("inlong").option("protocol", protocol).option("splitSize", "256")
                .load(str(raw)).toArrow().to_pylist())
        for name, items in expected.items():
            got = sorted((r for r in rows if r["path"].endswith(name)), key=lambda r: (r["offset"], r["length"]))
            want = sorted(items, key=lambda i: (i["offset"], i["length"]))
            assert [(r["offset"], r["message_type"], r["error"]) for r in got] == \
                [(i["offset"], i["message_type"], None) for i in want]
            own = [r if protocol != "auto" else r["eventmesh_grpc"] for r in got]
            assert [r["kind"] for r in own] == [i["kind"] for i in want]
    dumps = read_dumps(spark, str(raw), "eventmesh-grpc").where("kind = 'message'")
    assert dumps.count() == sum(1 for items in expected.values() for i in items if i["kind"] == "message")
    register_udtf(spark, "eventmesh-grpc")
    spark.sql(f"CREATE OR REPLACE TEMP VIEW grpc_dumps USING binaryFile OPTIONS (path '{raw}')")
    ids = spark.sql("SELECT get_json_object(p.body, '$.id') AS id FROM grpc_dumps, "
                    "LATERAL parse_eventmesh_grpc(path, content) p WHERE p.kind = 'message' AND "
                    "p.direction = 'request'").collect()
    assert sorted(r.id or "" for r in ids) == ["", "id-1", "id-2", "id-30", "id-31"]  # "": the heartbeat

def test_map_fields_render_in_key_order():
    """upb iterates a protobuf map in an order that differs between processes: a body's attributes come out
    sorted, so that the same message reads the same in every Spark worker (found by read_captures' check
    against the sequential reader on the grpcio capture vector)."""
    from inlong_proto.core.plain import protobuf_plain

    e = event(1)
    for key in ("zeta", "alpha", "mid", "beta", "omega", "kappa"):
        e.attributes[key].ce_string = key
    body = protobuf_plain(e)
    assert list(body["attributes"]) == sorted(body["attributes"])

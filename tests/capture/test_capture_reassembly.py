"""Synthetic captures (headers encoded by the generated codecs): reassembly rules, containers, errors."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from inlong_proto import DecodeError
from inlong_proto.capture import CaptureDecoder, GapError, iter_capture_frames, iter_packets
from inlong_proto.capture.writer import LINK_RAW, LINK_SLL, Conversation, pcap_file, segment, sll
from inlong_proto.capture.tcp import Reassembler
from tools.make_captures import pcapng_file
from vectors import T0, valid_frames

BROADCAST = valid_frames()["broadcast"]
REQUEST = next(f for f in BROADCAST if len(f) == 37)
RESPONSES = b"".join(f for f in BROADCAST if len(f) == 38) * 2
CLIENT, SERVER = ("10.0.0.1", 40000), ("10.0.0.2", 9000)


def conversation(request, response, *, isn=(1000, 5000), split=7, server=SERVER):
    """Handshake, request, response (segments of `split` bytes), close: bare packets, stamped 1 s apart
    by pcap_file so that tests can drop and reorder them by index."""
    conv = Conversation(CLIENT, server, isn=isn, mss=split)
    talk = conv.open(0) + conv.send("client", request, 0) + conv.send("server", response, 0) + conv.close(0)
    return [packet for _, packet in talk]


def run(packets, mode="PERMISSIVE", protocol="auto", **kw):
    decoder = CaptureDecoder(protocol, mode)
    items = decoder.feed(pcap_file(packets, **kw)) + decoder.close()
    return decoder, items


def by_direction(items, direction):
    return [i.frame for i in items if i.direction == direction]


def test_in_order_conversation_decodes_with_roles_and_times():
    packets = conversation(REQUEST, RESPONSES)
    decoder, items = run(packets, "FAILFAST")
    assert [f.message_type for f in by_direction(items, "request")] == ["data_request"]
    assert b"".join(f.raw or b"" for f in by_direction(items, "response")) == b""
    assert [f.length for f in by_direction(items, "response")] == [38] * (len(RESPONSES) // 38)
    flow = items[0].flow
    assert (flow.client, flow.client_port, flow.server, flow.server_port) == (*CLIENT, *SERVER)
    first_request_packet = 4  # handshake is 3 packets; timestamps are 1 s apart from 1 s
    assert items[0].timestamp_ns == first_request_packet * 10**9
    assert decoder.stats == {"packets": len(packets), "tcp": len(packets), "not_tcp": 0, "malformed": 0}


def test_out_of_order_and_retransmitted_segments():
    packets = conversation(REQUEST, RESPONSES, split=5)
    data = packets[3:-3]
    shuffled = packets[:3] + data[::-1] + data[:4] + packets[-3:]  # reversed, then four repeated
    decoder, items = run(shuffled, "FAILFAST")
    assert b"".join(encode_all(by_direction(items, "response"))) == RESPONSES
    assert not [i for i in items if i.frame.error]


def encode_all(frames):
    from inlong_proto import encode

    return [encode(f) for f in frames]


def test_overlap_with_different_bytes_is_reported_and_first_copy_kept():
    base = conversation(REQUEST, b"", split=37)
    c = 1001
    altered = bytearray(REQUEST)
    altered[-1] ^= 0xFF
    packets = base[:4] + [segment(CLIENT, SERVER, c, bytes(altered), ack=5001)] + base[4:]
    decoder, items = run(packets)
    errors = [i.frame for i in items if i.frame.error]
    assert len(errors) == 1 and errors[0].length == 0 and "differ" in errors[0].error.reason
    assert [f.message_type for f in by_direction(items, "request") if not f.error] == ["data_request"]
    with pytest.raises(DecodeError, match="differ"):
        run(packets, "FAILFAST")


def test_gap_is_an_error_span_and_the_framer_resyncs():
    talk = conversation(REQUEST, RESPONSES, split=38)
    lost = 3 + 1 + 2  # the third response segment
    packets = [p for index, p in enumerate(talk) if index != lost]
    decoder, items = run(packets)
    responses = by_direction(items, "response")
    gaps = [f for f in responses if isinstance(f.error, GapError)]
    assert [(g.offset, g.length, g.error.kind) for g in gaps] == [(76, 38, "gap")]
    assert [f.offset for f in responses if not f.error] == [o for o in range(0, len(RESPONSES), 38) if o != 76]
    with pytest.raises(GapError):
        run(packets, "FAILFAST")
    assert not [i for i in run(packets, "DROPMALFORMED")[1] if i.frame.error]


def test_a_failfast_error_names_its_flow_and_direction():
    """A FAILFAST error's offset is one of a direction's reassembled stream: its message leads with that flow
    and direction (error.where), a gap's and a retransmission's too, and so does decode's error line."""
    from click.testing import CliRunner

    from inlong_proto.cli import main

    talk = conversation(REQUEST, RESPONSES, split=38)
    with pytest.raises(GapError) as info:
        run([p for index, p in enumerate(talk) if index != 3 + 1 + 2], "FAILFAST")
    where = "flow 0 10.0.0.1:40000 → 10.0.0.2:9000 response"
    assert info.value.where == where and str(info.value) == f"{where}, offset 76 in tcp: {info.value.reason}"
    assert info.value.offset == 76  # offset, field and reason stay as they were
    altered = bytearray(REQUEST)
    altered[-1] ^= 0xFF
    base = conversation(REQUEST, b"", split=37)
    with pytest.raises(DecodeError, match=r"^flow 0 10\.0\.0\.1:40000 → 10\.0\.0\.2:9000 request, .*differ"):
        run(base[:4] + [segment(CLIENT, SERVER, 1001, bytes(altered), ack=5001)] + base[4:], "FAILFAST")
    mixed = Path(__file__).resolve().parents[2] / "examples" / "data" / "mixed.pcap"
    result = CliRunner().invoke(main, ["decode", "-p", "dataproxy", str(mixed)])
    assert result.exit_code == 1
    assert result.stderr == (f"inlong-proto: error: {mixed}: flow 0 10.9.0.11:41000 → 10.9.1.1:9000 request, "
                             "offset 4 in base_type: value 0 is not a known msg_type\n")


def test_gap_inside_a_frame_makes_a_truncated_span_then_the_gap():
    talk = conversation(REQUEST, RESPONSES, split=25)
    lost = 3 + 2 + 1  # after 2 request segments: response bytes 25..50
    packets = [p for index, p in enumerate(talk) if index != lost]
    _, items = run(packets)
    spans = [(f.offset, f.length, f.error.kind if f.error else f.message_type) for f in by_direction(items, "response")]
    assert spans[:3] == [(0, 25, "truncated"), (25, 25, "gap"), (50, 26, "invalid")]
    assert spans[3] == (76, 38, "data_response")


def test_snap_length_cut_is_a_gap_where_the_bytes_fall():
    talk = conversation(REQUEST, b"", split=37)
    cut = segment(CLIENT, SERVER, 1001, REQUEST, ack=5001, cut=10)
    packets = talk[:3] + [cut] + talk[4:]
    _, items = run(packets)
    spans = [(f.offset, f.length, f.error.kind if f.error else f.message_type) for f in by_direction(items, "request")]
    assert spans == [(0, 27, "truncated"), (27, 10, "gap")]


def test_sequence_wraparound():
    packets = conversation(REQUEST, RESPONSES, isn=(2**32 - 20, 2**32 - 100), split=9)
    _, items = run(packets, "FAILFAST")
    assert b"".join(encode_all(by_direction(items, "response"))) == RESPONSES


def test_mid_stream_start_without_handshake_uses_the_known_server_port():
    talk = conversation(REQUEST, RESPONSES, split=38)
    _, items = run(talk[3:], "FAILFAST")
    assert items[0].flow.server_port == 9000 and items[0].flow.client_port == 40000  # higher port is the client
    assert len(by_direction(items, "response")) == len(RESPONSES) // 38


def test_connection_reuse_after_close_is_a_new_flow():
    once = conversation(REQUEST, RESPONSES[:38])
    again = conversation(REQUEST, RESPONSES[38:76], isn=(7000, 9000))
    decoder, items = run(once + again, "FAILFAST")
    assert sorted({i.flow.number for i in items}) == [0, 1]
    assert len(decoder.flows) == 2 and all(f["closed"] for f in decoder.flows.values())


def test_reset_closes_the_connection():
    talk = conversation(REQUEST, RESPONSES[:38])
    packets = talk[:-3] + [segment(CLIENT, SERVER, 1001 + 37, rst=True)]
    decoder, items = run(packets, "FAILFAST")
    assert decoder.flows[0]["closed"] and len(items) == 2


def test_unrecognised_flow_is_error_spans_covering_its_bytes():
    garbage = bytes(range(256)) * 2
    packets = conversation(garbage, b"")
    decoder, items = run(packets)
    assert decoder.flows[0]["protocol"] == "unknown"
    assert sum(i.frame.length for i in items) == len(garbage) and all(i.frame.error for i in items)


def test_content_wins_over_port_and_grpc_is_flagged():
    packets = conversation(REQUEST, RESPONSES[:38], server=("10.0.0.2", 46801))  # DataProxy's port
    grpc = conversation(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"")
    decoder, items = run(packets)
    assert decoder.flows[0]["protocol"] == "broadcast" and not [i for i in items if i.frame.error]
    decoder, items = run(grpc)
    assert decoder.flows[0]["protocol"] == "eventmesh-grpc"
    assert [i.frame.message_type for i in items] == ["PREFACE"]  # decoded: tests/eventmesh/test_h2_grpc.py


@pytest.mark.parametrize("le", [True, False])
@pytest.mark.parametrize("nano", [True, False])
def test_pcap_byte_orders_and_resolutions(le, nano):
    stamp = 1_700_000_000_123_456_789
    data = pcap_file([(stamp, segment(CLIENT, SERVER, 1, b"x", ack=1))], le=le, nano=nano, linktype=LINK_RAW)
    (packet,) = iter_packets(data)
    assert packet.timestamp_ns == (stamp if nano else stamp // 1000 * 1000)
    assert packet.file_offset == 24 and packet.linktype == 101


def test_linux_sll_and_ipv6():
    _, items = run(conversation(REQUEST, RESPONSES), "FAILFAST", linktype=LINK_SLL)
    assert len(by_direction(items, "response")) == len(RESPONSES) // 38
    v6 = [segment(("::1", 40000), ("::2", 9000), 10, REQUEST)]
    _, items = run(v6, "FAILFAST")
    assert items[0].flow.client == "::1" and items[0].frame.message_type == "data_request"


def test_non_tcp_packets_are_counted_and_skipped():
    from inlong_proto.generated.codec.capture import ipv4_packet as ip4

    udp = ip4.encode_ipv4_packet(ip4.Ipv4Packet(
        version=4, ihl=5, dscp=0, ecn=0, total_length=28, identification=0, reserved_flag=False, dont_fragment=False,
        more_fragments=False, fragment_offset=0, ttl=1, protocol=17, header_checksum=0, src_addr=bytes(4),
        dst_addr=bytes(4), options=b"", rest=bytes(8)))
    decoder, items = run([udp, b"\x45\x00"])
    assert decoder.stats["not_tcp"] == 1 and decoder.stats["malformed"] == 1 and items == []


def test_pcapng_several_interfaces_and_tsresol():
    first = segment(CLIENT, SERVER, 1, REQUEST, ack=1)
    data = pcapng_file([(101, None), (113, 9), (101, 0x80 | 10)],
                       [(0, 5_000_001, first, len(first)), (1, 7_000_000_001, sll(first), len(first) + 16),
                        (2, 3 * 1024, first, len(first))], le=False)
    packets = list(iter_packets(data))
    assert [(p.interface, p.linktype, p.timestamp_ns) for p in packets] == \
        [(0, 101, 5_000_001_000), (1, 113, 7_000_000_001), (2, 101, 3 * 10**9)]
    unknown = struct.pack(">II", 0x0BAD, 16) + b"abcd" + struct.pack(">I", 16)
    assert len(list(iter_packets(data + unknown))) == 3


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"])
def test_truncated_and_garbage_files(mode):
    data = pcap_file([segment(CLIENT, SERVER, 1, REQUEST, ack=1)] * 2)
    cut = data[:-5]
    if mode == "FAILFAST":
        with pytest.raises(DecodeError) as info:
            list(iter_capture_frames(cut, mode=mode))
        assert info.value.offset == len(cut)
        with pytest.raises(DecodeError, match="not a pcap"):
            list(iter_capture_frames(b"garbage!" * 4, mode=mode))
        return
    items = list(iter_capture_frames(cut, mode=mode))
    errors = [i for i in items if i.flow is None]
    if mode == "PERMISSIVE":
        (error,) = errors
        assert error.frame.protocol == "capture" and error.frame.error.offset == len(cut)
        assert error.file_offset + error.frame.length == len(cut)
    else:
        assert errors == []
    corrupt = bytearray(data)
    corrupt[24 + 8:24 + 12] = (10**7).to_bytes(4, "little")  # incl_len over the limit
    items = list(iter_capture_frames(bytes(corrupt), mode=mode))
    assert all(i.flow is None for i in items) and len(items) == (1 if mode == "PERMISSIVE" else 0)


def test_incremental_feeding_matches_whole_file():
    data = pcap_file(conversation(REQUEST, RESPONSES, split=11))
    whole = list(iter_capture_frames(data, mode="FAILFAST"))
    decoder = CaptureDecoder("auto", "FAILFAST")
    items = []
    for at in range(0, len(data), 7):
        items += decoder.feed(data[at:at + 7])
        assert decoder.reader._buf.__len__() < 200
    assert items + decoder.close() == whole


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_shuffled_and_duplicated_segments_reassemble_to_the_stream(data):
    payload = data.draw(st.binary(min_size=1, max_size=300))
    isn = data.draw(st.integers(0, 2**32 - 1))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(payload)), max_size=12))) | {0, len(payload)})
    pieces = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1) if cuts[i] < cuts[i + 1]]
    pieces += data.draw(st.lists(st.sampled_from(pieces), max_size=6))  # retransmissions
    order = data.draw(st.permutations(pieces))
    stream = Reassembler()
    stream.syn(isn)
    out = []
    for start, end in order:
        out += stream.add((isn + 1 + start) % 2**32, payload[start:end], 0, 0, 0)
    out += stream.finish("end")
    assert all(c.data is not None for c in out) and b"".join(c.data for c in out) == payload
    assert [c.offset for c in out] == sorted(c.offset for c in out) and stream.conflicts == []


def test_tiny_segments_each_leaving_a_hole_stay_bounded_in_pieces_and_memory():
    """Issue 11 reproducer: 300k one-byte segments each leaving a hole took 33 s and 713 MiB (pieces were
    capped in bytes only, and holes were declared with list.insert(0)/pop(0)). Here 100k of them: the
    pending pieces stay under the cap, memory stays small, and data and gaps tile the stream."""
    import tracemalloc

    from inlong_proto.capture.tcp import Reassembler

    stream = Reassembler(max_pieces=1024)
    stream.syn(999)
    at = data = 0

    def take(chunks):  # data and gaps must tile the stream; kept as counts, not objects
        nonlocal at, data
        for chunk in chunks:
            assert chunk.offset == at
            at += chunk.length
            data += chunk.length if chunk.data is not None else 0

    tracemalloc.start()
    try:
        for i in range(1, 100_001):
            take(stream.add(1000 + 2 * i, b"x", 0, i, i))
            assert len(stream._pending) <= 1024
        take(stream.finish("end of capture"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20
    assert (data, at) == (100_000, 200_001)


def _idle_capture(count: int, *, close: bool, spacing_s: float) -> list:
    """Packets of `count` connections one after another, each a handshake and one request, closed or left
    half-open, `spacing_s` seconds of capture time apart."""
    from inlong_proto.capture.writer import Conversation

    from vectors import SERVER

    request = valid_frames(["request"])["dataproxy"][0]  # one whole frame
    packets = []
    for number in range(count):
        conv = Conversation((f"10.1.{number // 250}.{number % 250 + 1}", 40000), (SERVER, 46801))
        steps = conv.open(0) + conv.send("client", request, 0) + (conv.close(0) if close else [])
        packets += [(T0 + int(number * spacing_s * 1e9) + index, p) for index, (_, p) in enumerate(steps)]
    return packets


@pytest.mark.parametrize("close", [True, False])
def test_connections_are_forgotten_after_the_idle_timeout_of_capture_time(close):
    """Issue 11: finished connections stayed in the decoder's tables and half-open ones were never
    expired, so memory grew with every connection a capture ever held."""
    from inlong_proto.capture import IDLE_TIMEOUT, CaptureDecoder
    from inlong_proto.capture.writer import pcap_file

    count = 3000  # 30 idle timeouts
    data = pcap_file(_idle_capture(count, close=close, spacing_s=IDLE_TIMEOUT / 100))
    decoder = CaptureDecoder("dataproxy", "PERMISSIVE", keep_flows=False)
    most = 0
    for at in range(0, len(data), 1 << 16):
        frames = decoder.feed(data[at:at + (1 << 16)])
        most = max(most, len(decoder._open))
        assert all(f.frame.error is None for f in frames)
    frames = decoder.close()
    assert most <= (101 if not close else 1), most  # 100 connections per timeout; a closed one is freed at once
    assert not decoder.flows and not decoder._open and not decoder._closed


def test_a_half_open_connection_ends_idle_and_its_4_tuple_starts_over():
    from inlong_proto.capture import IDLE_TIMEOUT, CaptureDecoder
    from inlong_proto.capture.writer import Conversation, pcap_file

    from vectors import SERVER

    request = max(valid_frames(["request"])["dataproxy"], key=len)
    assert len(request) > 100
    conv = Conversation(("10.1.0.1", 40000), (SERVER, 46801))
    first = [p for _, p in conv.open(0) + conv.send("client", request[:50], 0)]
    later = [p for _, p in conv.send("client", request[50:], 0)]
    silence = int((IDLE_TIMEOUT + 1) * 1e9)
    packets = [(T0 + i, p) for i, p in enumerate(first)] + [(T0 + silence + i, p) for i, p in enumerate(later)]
    items = list(iter_capture_frames(pcap_file(packets), "dataproxy", "PERMISSIVE"))
    flows = sorted({item.flow.number for item in items})
    assert flows == [0, 1]
    first_flow = [item.frame for item in items if item.flow.number == 0]
    assert [(f.offset, f.length, f.error.kind) for f in first_flow] == [(0, 50, "truncated")]
    decoder = CaptureDecoder("dataproxy", "PERMISSIVE", idle_timeout=None)
    kept = decoder.feed(pcap_file(packets)) + decoder.close()
    assert {item.flow.number for item in kept} == {0} and all(item.frame.error is None for item in kept)

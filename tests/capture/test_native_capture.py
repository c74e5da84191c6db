"""The compiled capture path (capture.native_path) equals the pure one, row for row and in order.

The reference is built here, independently of native_path: arrow.frames_to_batch over
iter_capture_frames with arrow.capture_value. Captures: the recorded vectors, captures written from the
protocol vectors (many flows interleaved, tiny and large segments, link types, IPv6, pcapng), captures with
anomalies the walker must hand over (the report says which path ran), and mutated captures.
"""
from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest

from inlong_proto import DecodeError
from inlong_proto.core import arrow
from inlong_proto.capture import iter_capture_frames, tcp
from inlong_proto.backends import compiled_capture as native_path
from inlong_proto.capture.writer import LINK_ETHERNET, LINK_RAW, LINK_SLL, Conversation, pcap_file, segment
from tools.make_captures import pcapng_file
from vectors import STREAMS, T0, talk

pytestmark = pytest.mark.skipif(native_path._extension() is None,
                                reason="the compiled capture walker (inlong_proto._compiled.capture) is not built")


@pytest.fixture(autouse=True)
def compiled_backend(monkeypatch):
    """These tests compare the two paths: the compiled one runs whatever INLONG_PROTO_BACKEND the run has."""
    monkeypatch.delenv("INLONG_PROTO_BACKEND", raising=False)

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "capture"
FRAMED = ("broadcast", "dataproxy", "eventmesh", "tubemq")
PORTS = {"broadcast": 9000, "dataproxy": 46801, "eventmesh": 10000, "tubemq": 8715}
MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")


def reference(data: bytes, protocol: str, mode: str, path: str = "t.pcap"):
    """The pure path's table, or the DecodeError it raises."""
    try:
        items = list(iter_capture_frames(data, protocol, mode))
    except DecodeError as exc:
        return exc
    return arrow.frames_to_batch(path, [i.frame for i in items], protocol, [arrow.capture_value(i) for i in items])


def compiled(data: bytes, protocol: str, mode: str, path: str = "t.pcap", batch_rows: int = native_path.BATCH_ROWS):
    report: dict = {}
    try:
        batches = list(native_path.capture_batches(data, protocol, mode, path, batch_rows=batch_rows, report=report))
    except DecodeError as exc:
        return exc, report
    assert all(batch.num_rows <= batch_rows for batch in batches)
    return pa.Table.from_batches(batches, arrow.frame_schema(protocol)), report


def check(data: bytes, protocol: str, mode: str = "PERMISSIVE", path: str | None = None, **kw) -> dict:
    """Assert both paths agree; returns the report (which path ran, and why the pure one)."""
    got, report = compiled(data, protocol, mode, **kw)
    want = reference(data, protocol, mode)
    if isinstance(want, DecodeError) or isinstance(got, DecodeError):
        assert type(got) is type(want) and str(got) == str(want), report
    else:
        want = pa.Table.from_batches([want])
        if not got.equals(want):
            rows = list(zip(got.to_pylist(), want.to_pylist()))
            diff = next(((i, a, b) for i, (a, b) in enumerate(rows) if a != b), (got.num_rows, want.num_rows))
            pytest.fail(f"{report}: first difference {diff}")
    if path is not None:
        assert report["path"] == path, report
    return report


# ------------------------------------------------------------------ recorded vectors
@pytest.mark.parametrize("name", sorted(p.name for p in VECTORS.glob("*.pcap*")))
@pytest.mark.parametrize("mode", MODES)
def test_recorded_vectors(name, mode):
    data = (VECTORS / name).read_bytes()
    own = name.split("_lo")[0].split("_any")[0]  # eventmesh_grpc is not a framed protocol
    for protocol in FRAMED:
        report = check(data, protocol, mode)
        if protocol == own:
            assert report["path"] == "compiled", report


# ------------------------------------------------------------------ captures written from the protocol vectors
@pytest.mark.parametrize("protocol", FRAMED)
@pytest.mark.parametrize("mss", [1, 7, 97, 1460, 60000])
def test_protocol_vectors_in_segments_of_any_size(protocol, mss):
    client, server = STREAMS[protocol]
    packets = talk(client, server, PORTS[protocol], mss=mss)
    for mode in MODES:
        check(pcap_file(packets), protocol, mode, path="compiled")


def flow(client: bytes, server: bytes, port: int, *, host: str, client_port: int, mss: int, t0: int,
         turns: int = 4) -> list:
    """vectors.talk, with an IPv6 server for an IPv6 client."""
    conv = Conversation((host, client_port), ("fd00::ffff" if ":" in host else "10.0.0.2", port), mss=mss)
    packets = conv.open(t0)
    for turn in range(turns):
        for index, (side, data) in enumerate((("client", client), ("server", server))):
            piece = data[len(data) * turn // turns:len(data) * (turn + 1) // turns]
            packets += conv.send(side, piece, t0 + (2 * turn + index + 1) * 10**6)
    return packets + conv.close(t0 + (2 * turns + 1) * 10**6)


@pytest.mark.parametrize("linktype", [LINK_ETHERNET, LINK_SLL, LINK_RAW])
@pytest.mark.parametrize("le, nano", [(True, False), (False, True)])
def test_link_types_and_byte_orders(linktype, le, nano):
    client, server = STREAMS["dataproxy"]
    packets = talk(client, server, 46801, mss=53) + flow(client, server, 46801, host="fd00::1", client_port=41000,
                                                         mss=211, t0=T0 + 5 * 10**5)
    check(pcap_file(sorted(packets, key=lambda p: p[0]), linktype=linktype, le=le, nano=nano), "dataproxy",
          path="compiled")


def many_flows(protocol: str, count: int, seed: int) -> list:
    """count connections of one protocol, interleaved: segment sizes from 1 byte up, IPv4 and IPv6,
    without handshake, closed by RST, left open, and a 4-tuple reused after its close."""
    rng = random.Random(seed)
    client, server = STREAMS[protocol]
    packets = []
    for number in range(count):
        host = f"fd00::{number + 1:x}" if number % 3 == 0 else f"10.1.{number >> 8}.{number & 255}"
        tiny = number % 7 == 0  # one byte a segment
        talked = flow(client[:200] if tiny else client * rng.randrange(1, 3), server[:100] if tiny else server,
                      PORTS[protocol], host=host, client_port=42000 + number,
                      mss=1 if tiny else rng.choice([3, 50, 97, 1460, 9000]), t0=T0 + number * 3 * 10**5,
                      turns=rng.randrange(1, 6))
        shape = number % 5
        if shape == 1:
            talked = talked[3:]  # the capture began after the handshake
        elif shape == 2:
            ts, _ = talked[-3]
            server_host = "fd00::ffff" if ":" in host else "10.0.0.2"
            talked = talked[:-3] + [(ts, segment((host, 42000 + number), (server_host, PORTS[protocol]), 0, rst=True))]
        elif shape == 3:
            talked = talked[:-3]  # still open at the end of the capture
        packets += talked
    reused = talk(client, server, PORTS[protocol], host="10.9.9.9", client_port=43000, mss=31, t0=T0)
    packets += reused + [(ts + 10**9, packet) for ts, packet in reused]  # the same 4-tuple, again, after its FINs
    return sorted(packets, key=lambda p: p[0])


@pytest.mark.parametrize("protocol", FRAMED)
def test_many_interleaved_flows(protocol):
    data = pcap_file(many_flows(protocol, 16, seed=len(protocol)))
    for mode in MODES:  # the tiny flows end inside a frame: in FAILFAST an error, which the pure path raises
        check(data, protocol, mode, path="python" if mode == "FAILFAST" else "compiled")
    check(data, protocol, "PERMISSIVE", batch_rows=7)


@pytest.mark.parametrize("protocol", ["dataproxy", "broadcast"])
def test_many_flows_some_damaged(protocol):
    """Interleaved flows, a few of them with segments swapped, lost, repeated with other bytes or cut: those
    4-tuples are replayed alone, the others stay compiled, and the rows interleave as the pure path's."""
    rng = random.Random(5)
    packets = many_flows(protocol, 12, seed=9)
    flows: dict = {}
    for index, (_, packet) in enumerate(packets):
        seg = tcp.segment_of(LINK_RAW, packet)
        flows.setdefault(tuple(sorted([(seg.src, seg.src_port), (seg.dst, seg.dst_port)])), []).append(index)
    damaged = list(packets)
    for number, indexes in enumerate(list(flows.values())[1::3]):
        carrying = [i for i in indexes if len(tcp.segment_of(LINK_RAW, packets[i][1]).data) > 4]
        if len(carrying) < 3:
            continue
        i, j = sorted(rng.sample(carrying, 2))
        ts, packet = damaged[i]
        if number % 4 == 0:
            damaged[i], damaged[j] = (ts, damaged[j][1]), (damaged[j][0], packet)
        elif number % 4 == 1:
            damaged[i] = (ts, b"")  # lost (dropped below)
        elif number % 4 == 2:
            changed = bytearray(packet)
            changed[-1] ^= 0x55
            damaged.insert(j + 1, (damaged[j][0], bytes(changed)))
        else:
            damaged[i] = (ts, packet[:-3])  # cut by the snap length
    data = pcap_file([p for p in damaged if p[1]])
    for mode in ("PERMISSIVE", "DROPMALFORMED"):
        report = check(data, protocol, mode, path="compiled")
        assert report.get("replayed", 0) >= 2, report


def test_one_protocol_over_flows_of_others():
    """Every framed protocol read as dataproxy: error spans; ordered here when they end each stream."""
    packets = []
    for number, protocol in enumerate(FRAMED):
        client, server = STREAMS[protocol]
        packets += talk(client, server, PORTS[protocol], client_port=44000 + number, mss=41,
                        t0=T0 + number * 10**5)
    data = pcap_file(sorted(packets, key=lambda p: p[0]))
    for protocol in FRAMED:
        for mode in MODES:
            check(data, protocol, mode)


def pcapng_capture(tsresol, le: bool, *, t0: int = T0) -> bytes:
    """Three broadcast flows over two Ethernet interfaces of one if_tsresol."""
    client, server = STREAMS["broadcast"]
    flows = [talk(client, server, 9000, client_port=45000 + i, mss=29, t0=t0 + i * 7000) for i in range(3)]
    units = {None: lambda ns: ns // 1000, 3: lambda ns: ns // 10**6, 9: lambda ns: ns,
             0x80 | 20: lambda ns: (ns << 20) // 10**9, 12: lambda ns: ns * 1000}[tsresol]
    packets = []
    for interface, talked in enumerate(flows):
        for ts, packet in talked:
            data = b"\0" * 12 + b"\x08\x00" + packet
            packets.append((interface % 2, units(ts), data, len(data)))
    return pcapng_file([(LINK_ETHERNET, tsresol), (LINK_ETHERNET, tsresol)], sorted(packets, key=lambda p: p[1]), le=le)


@pytest.mark.parametrize("tsresol", [None, 3, 9, 0x80 | 20, 12])
@pytest.mark.parametrize("le", [True, False])
def test_pcapng(tsresol, le):
    t0 = T0 if tsresol != 12 else 10**15  # picoseconds since 1970 pass 64 bits in 2554
    check(pcapng_capture(tsresol, le, t0=t0), "broadcast", "PERMISSIVE", path="compiled")


def test_pcapng_times_past_int64_nanoseconds_hand_over():
    """Python's integers hold them (the time column is then null); the walker's int64 does not."""
    check(pcapng_capture(3, True, t0=T0 * 1000), "broadcast", "PERMISSIVE", path="python")


def link_capture(packets, linktype: int, head) -> bytes:
    """A pcap of IP packets each behind head(packet) for a link type the writer does not write."""
    from inlong_proto.generated.codec.capture import pcap

    records = [pcap.Packet(ts_sec=ts // 10**9, ts_frac=ts % 10**9 // 1000, incl_len=len(head(p) + p),
                           orig_len=len(head(p) + p), data=head(p) + p) for ts, p in packets]
    header = pcap.Header(version_major=2, version_minor=4, thiszone=0, sigfigs=0, snaplen=262144, linktype=linktype)
    return pcap.encode_pcap(pcap.Pcap(magic=pcap.Magic.le_micro, header=header, packets=records))


@pytest.mark.parametrize("linktype, head", [
    (0, lambda p: (2 if p[0] >> 4 == 4 else 30).to_bytes(4, "little")),  # LINKTYPE_NULL, little-endian host
    (0, lambda p: (2 if p[0] >> 4 == 4 else 24).to_bytes(4, "big")),  # LINKTYPE_NULL from a big-endian host
    (108, lambda p: (2 if p[0] >> 4 == 4 else 28).to_bytes(4, "big")),  # LINKTYPE_LOOP
    (1, lambda p: bytes(12) + b"\x81\x00\x20\x07\x88\xa8\x00\x05" + (b"\x08\x00" if p[0] >> 4 == 4 else b"\x86\xdd")),
    (276, lambda p: (b"\x08\x00" if p[0] >> 4 == 4 else b"\x86\xdd") + bytes(18)),  # Linux SLL2
    (1, lambda p: bytes(12) + b"\x08\x06"),  # ARP: no IP, skipped
    (147, lambda p: b""),  # a link type no reader knows: skipped
], ids=["null-le", "null-be", "loop", "vlan-qinq", "sll2", "arp", "unknown"])
def test_other_link_types(linktype, head):
    client, server = STREAMS["dataproxy"]
    packets = talk(client, server, 46801, mss=101) + flow(client, server, 46801, host="fd00::7", client_port=41000,
                                                          mss=300, t0=T0 + 10**5)
    check(link_capture(sorted(packets, key=lambda p: p[0]), linktype, head), "dataproxy", path="compiled")


def test_pcapng_simple_packet_blocks_and_other_blocks():
    """Simple packet blocks (no time; interface 0's snap length trims them) and blocks no reader needs."""
    from inlong_proto.generated.codec.capture import pcapng

    client, server = STREAMS["broadcast"]
    packets = [b"\0" * 12 + b"\x08\x00" + p for _, p in talk(client, server, 9000, mss=50)]
    base = pcapng_file([(LINK_ETHERNET, None)], [])
    blocks = []
    for packet in packets:
        body = pcapng.SimplePacketBlock(original_packet_length=len(packet), packet_data=packet + bytes(-len(packet) % 4))
        size = len(pcapng.encode_simple_packet_block(body, le=True))
        blocks.append(pcapng.encode_block(pcapng.Block(body=body, block_total_length_trailer=12 + size), le=True))
    statistics = (5).to_bytes(4, "little") + (20).to_bytes(4, "little") + bytes(8) + (20).to_bytes(4, "little")
    data = base + statistics + b"".join(blocks[:5]) + statistics + b"".join(blocks[5:])
    check(data, "broadcast", "PERMISSIVE", path="compiled")
    check(data + base + b"".join(blocks[:3]), "broadcast", "PERMISSIVE", path="compiled")  # a second section


# ------------------------------------------------------------------ anomalies: the pure path must run
def base_packets():
    client, server = STREAMS["dataproxy"]
    return talk(client, server, 46801, mss=113) + talk(client, server, 46801, client_port=40001, mss=57,
                                                        t0=T0 + 10**5)


def anomalies():
    packets = sorted(base_packets(), key=lambda p: p[0])
    data_at = [i for i, (_, p) in enumerate(packets) if len(p) > 40 + 20]
    i, j = data_at[2], data_at[5]
    swapped = list(packets)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    ts, first = packets[i]
    source = ("10.0.0.1", 40000)
    changed = bytearray(first)
    changed[-1] ^= 0xFF
    # one 4-tuple's segments: that 4-tuple is replayed through a CaptureDecoder of its own
    yield "reordered", pcap_file(swapped), 1
    yield "retransmitted with other bytes", pcap_file(packets[:i + 1] + [(ts, bytes(changed))] + packets[i + 1:]), 1
    yield "dropped", pcap_file(packets[:i] + packets[i + 1:]), 1
    yield "cut by the snap length", pcap_file(packets[:i] + [(ts, first[:-5])] + packets[i + 1:]), 1
    yield "SYN moving the stream", pcap_file(packets[:i] + [(ts, segment(source, ("10.0.0.2", 46801), 99, syn=True))]
                                             + packets[i:]), 1
    client, server = STREAMS["dataproxy"]
    lost = talk(client, server, 46801, mss=113)  # its last data segment lost: the FIN after a hole
    yield "FIN after a hole", pcap_file(sorted(lost[:-4] + lost[-3:] + talk(client, server, 46801, client_port=40001,
                                                                             t0=T0 + 10**5), key=lambda p: p[0])), 1
    other = talk(client, server, 46801, client_port=40001, mss=57, t0=T0 + 10**5)
    other[4], other[6] = other[6], other[4]  # two data segments of one side, in the wrong order
    yield "two 4-tuples", pcap_file(sorted(lost[:-4] + lost[-3:] + other, key=lambda p: p[0])), 2
    # the file, a header or the clock: the whole capture goes to the pure path
    yield "truncated file", pcap_file(packets)[:-7], None
    yield "garbage after the file", pcap_file(packets) + b"\x01\x02\x03", None
    # a malformed packet: dropped by both paths (checked by Python's own reading), its 4-tuple then has a hole
    yield "cut inside the TCP header", pcap_file(packets[:i] + [(ts, first[:30])] + packets[i + 1:]), 1
    yield "a bad IPv4 header", pcap_file(packets[:i] + [(ts, b"\x44" + first[1:])] + packets[i:]), 0
    yield "idle 4-tuple", pcap_file([(t + (700 * 10**9 if n > i else 0), p) for n, (t, p) in enumerate(packets)]), None
    yield "not a capture", b"hello, world" * 3, None
    yield "short", b"\xd4\xc3", None


@pytest.mark.parametrize("name, data, replayed", list(anomalies()), ids=[name for name, *_ in anomalies()])
def test_anomalies_hand_over_to_the_pure_path(name, data, replayed):
    for mode in MODES:
        report = check(data, "dataproxy", mode)
        if replayed is None:
            assert report["path"] == "python" and report.get("reason"), report
        elif mode != "FAILFAST":  # (in FAILFAST a gap raises: the whole capture goes to the pure path)
            assert report["path"] == "compiled" and report.get("replayed", 0) == replayed, report


def retransmissions():
    """Retransmitted bytes equal to the first copy: dropped by the reassembler, by the walker too."""
    packets = sorted(base_packets(), key=lambda p: p[0])
    data_at = [i for i, (_, p) in enumerate(packets) if len(p) > 40 + 20]
    i = data_at[2]
    yield "duplicated", packets[:i + 1] + [packets[i]] + packets[i + 1:]
    yield "duplicated late", packets[:data_at[6]] + [packets[i]] + packets[data_at[6]:]
    one, two = tcp.segment_of(LINK_RAW, packets[i][1]), tcp.segment_of(LINK_RAW, packets[i + 1][1])
    if (one.src_port, one.seq + len(one.data)) == (two.src_port, two.seq):  # the next segment of the same side
        both = segment((one.src, one.src_port), (one.dst, one.dst_port), one.seq, one.data + two.data, ack=one.ack)
        yield "overlapping", packets[:i + 1] + [(packets[i][0], both)] + packets[i + 1:]
    yield "SYN again", packets[:1] + packets


@pytest.mark.parametrize("name, packets", list(retransmissions()), ids=[name for name, _ in retransmissions()])
def test_equal_retransmissions_stay_compiled(name, packets):
    for mode in MODES:
        check(pcap_file(packets), "dataproxy", mode, path="compiled")


def test_retransmissions_are_compared_within_what_the_reassembler_keeps():
    """A retransmission that differs in bytes delivered more than Reassembler.recent_limit bytes ago is not
    compared (no conflict): the walker compares the same window."""
    client = STREAMS["dataproxy"][0]
    client = client * (70_000 // len(client) + 1)
    conv = Conversation(("10.0.0.1", 40000), ("10.0.0.2", 46801), mss=1000)
    packets = conv.open(T0) + conv.send("client", client, T0 + 10**6)
    seq = (conv.isn["client"] + 1) % 2**32
    for at, replayed in ((0, None), (len(client) - 2000, 1)):  # a conflict: the 4-tuple is replayed
        changed = bytes([client[at] ^ 0xFF]) + client[at + 1:at + 1000]
        stale = segment(("10.0.0.1", 40000), ("10.0.0.2", 46801), seq + at, changed, ack=conv.next["server"])
        data = pcap_file(packets + [(T0 + 2 * 10**6, stale)] + conv.close(T0 + 3 * 10**6))
        assert check(data, "dataproxy", "PERMISSIVE", path="compiled").get("replayed") == replayed


def test_not_tcp_and_fragments_are_skipped_as_the_pure_path_skips_them():
    packets = sorted(base_packets(), key=lambda p: p[0])
    ts, sample = packets[5]
    udp = bytearray(sample)
    udp[9] = 17  # IPv4 protocol: UDP
    fragment = bytearray(sample)
    fragment[6] |= 0x20  # more fragments
    data = pcap_file(packets[:5] + [(ts, bytes(udp)), (ts, bytes(fragment))] + packets[5:])
    check(data, "dataproxy", "PERMISSIVE", path="compiled")


def test_an_empty_capture():
    check(b"", "dataproxy", "FAILFAST", path="compiled")
    check(pcap_file([]), "dataproxy", "FAILFAST", path="compiled")


def test_auto_over_a_stream_protocol_and_stream_protocols_take_the_pure_path():
    data = (VECTORS / "eventmesh_grpc_lo.pcap").read_bytes()  # auto over framed flows: test_native_capture_auto
    from inlong_proto.core.arrow import auto_batch

    report: dict = {}
    got = pa.Table.from_batches(list(native_path.capture_batches(data, "auto", "PERMISSIVE", "t.pcap", report=report)))
    assert report["path"] == "python"
    items = list(iter_capture_frames(data, "auto", "PERMISSIVE"))
    assert got.equals(pa.Table.from_batches([auto_batch("t.pcap", [i.frame for i in items],
                                                        [arrow.capture_value(i) for i in items])]))
    assert compiled(data, "eventmesh-http", "PERMISSIVE")[1]["path"] == "python"


def test_environment_forces_the_pure_path(monkeypatch):
    monkeypatch.setenv("INLONG_PROTO_BACKEND", "python")
    assert native_path.native.backend() == "python"
    check((VECTORS / "dataproxy_lo.pcap").read_bytes(), "dataproxy", path="python")


# ------------------------------------------------------------------ mutated captures
def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(6)
        at = rng.randrange(len(out)) if out else 0
        if kind <= 2 and out:
            out[at] = rng.randrange(256)
        elif kind == 3:
            del out[at:at + rng.randrange(1, 40)]
        elif kind == 4:
            out[at:at] = out[at:at + rng.randrange(1, 40)]
        else:
            del out[rng.randrange(len(out) + 1):]
    return bytes(out)


def test_mutated_captures():
    """10,000 mutations of small captures (payload, headers, container): equal whichever path runs."""
    rng = random.Random(2026)
    bases = []
    for protocol in FRAMED:
        client, server = STREAMS[protocol]
        packets = talk(client[:300], server[:200], PORTS[protocol], mss=rng.choice([40, 120]), turns=2)
        bases.append((protocol, pcap_file(packets)))
    bases.append(("broadcast", (VECTORS / "broadcast_lo.pcapng").read_bytes()))
    for protocol in FRAMED:  # three connections, interleaved: one side's streams are scanned together
        client, server = STREAMS[protocol]
        packets = []
        for number in range(3):
            packets += talk(client[:150], server[:100], PORTS[protocol], client_port=46000 + number, mss=60,
                            t0=T0 + number * 10**5, turns=2)
        bases.append((protocol, pcap_file(sorted(packets, key=lambda p: p[0]))))
    paths = {"compiled": 0, "python": 0}
    for index in range(10_000):
        protocol, data = bases[index % len(bases)]
        report = check(mutate(data, rng), protocol, MODES[index % 3])
        paths[report["path"]] += 1
    assert paths["compiled"] > 1000 and paths["python"] > 1000, paths


def test_mutated_streams_in_valid_captures():
    """2,000 captures whose TCP is sound but whose streams are mutated: error spans anywhere, frames cut by
    a stream's end; the compiled path runs (but in FAILFAST on an error) and equals the pure one."""
    rng = random.Random(14)
    paths = {"compiled": 0, "python": 0}
    for index in range(2_000):
        protocol = FRAMED[index % len(FRAMED)]
        client, server = STREAMS[protocol]
        packets = []
        for number in range(rng.randrange(1, 4)):
            packets += talk(mutate(client[:rng.randrange(60, 400)], rng), mutate(server[:rng.randrange(0, 300)], rng),
                            PORTS[protocol], client_port=47000 + number, mss=rng.choice([7, 40, 200]),
                            t0=T0 + number * 10**5, turns=rng.randrange(1, 4))
        mode = MODES[index % 3]
        report = check(pcap_file(sorted(packets, key=lambda p: p[0])), protocol, mode)
        paths[report["path"]] += 1
        assert report["path"] == "compiled" or mode == "FAILFAST", report
    assert paths["compiled"] > 1300, paths


# ------------------------------------------------------------------ the generator and the runtime
def test_dispatch_values_are_tcp_py_s():
    import json

    dispatch = json.loads(native_path._extension().DISPATCH)
    assert dispatch == {"LINK_NULL": tcp.LINK_NULL, "LINK_ETHERNET": tcp.LINK_ETHERNET, "LINK_RAW": list(tcp.LINK_RAW),
                        "LINK_LOOP": tcp.LINK_LOOP, "LINK_SLL": tcp.LINK_SLL, "LINK_SLL2": tcp.LINK_SLL2,
                        "ETHERTYPE_IPV4": tcp.ETHERTYPE_IPV4, "ETHERTYPE_IPV6": tcp.ETHERTYPE_IPV6,
                        "AF_INET": tcp.AF_INET, "AF_INET6": list(tcp.AF_INET6), "IPPROTO_TCP": tcp.IPPROTO_TCP}


def test_generated_source_is_current():
    """generated/native/capture_readers.h is what cgen_capture writes from specs/capture, and the runtime that
    includes it is tools/ksygen/capture_runtime.c as copied (make check-generated too)."""
    from tools.ksygen import cgen_capture
    from tools.ksygen.model import Loader

    loader = Loader(ROOT / "specs")
    specs = [loader.load(path) for path in sorted((ROOT / "specs").rglob("*.ksy"))]
    generated = (ROOT / "generated" / "native" / "capture_readers.h").read_text()
    assert cgen_capture.emit_header(specs) == generated
    runtime = (ROOT / "tools" / "ksygen" / "capture_runtime.c").read_text()
    assert (ROOT / "generated" / "native" / "capture_runtime.c").read_text().endswith(runtime)
    assert '#include "capture_readers.h"' in runtime

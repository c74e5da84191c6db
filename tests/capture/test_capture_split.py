"""A capture cut into byte ranges (capture.split): sync points on the sequential walk, and the stitched splits
read exactly the sequential reader's packets and error span, at any split size, chunk grid and window, on
the recorded vectors, on generated captures and on damaged ones. The generators are shared with
tests/test_spark_capture_split.py."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from inlong_proto.capture import IDLE_TIMEOUT, iter_capture_frames
from inlong_proto.capture.container import ContainerError, Packet, PacketReader
from inlong_proto.capture.split import (ALIGNMENT, CHUNK, WINDOW, CaptureSplitError, SplitEnd, read_head,
                                        read_split, split_count, stitch, sync_point)
from inlong_proto.capture.writer import LINK_ETHERNET, LINK_RAW, LINK_SLL, Conversation, pcap_file, segment, wrap
from inlong_proto.generated.codec.capture import pcapng
from inlong_proto.core.sources import BytesSource
from tools.make_captures import pcapng_file
from vectors import SERVER, STREAMS, T0

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "capture"
CAPTURES = sorted(VECTORS.glob("*.pcap*"))
PORTS = {"eventmesh-http": 10105, "tubemq": 8715, "dataproxy": 46801, "broadcast": 9000, "eventmesh": 10000,
         "eventmesh-grpc": 10205}


# ------------------------------------------------------------------------------------------ generated captures


def _flow(rng: random.Random, number: int, protocol: str, *, reuse_of=None, lossy: bool = True) -> list:
    """One connection's packets in capture order, stamped from a random start: segments of a random size,
    some neighbours swapped, some retransmitted (a few with other bytes), some lost (gaps)."""
    client, server = STREAMS[protocol]
    v6 = number % 7 == 3
    host = f"fd00::{number + 1:x}" if v6 else f"10.{number // 200}.{number % 200}.1"
    ends = reuse_of or ((host, 40000 + number), ("fd00::ffff" if v6 else SERVER, PORTS[protocol]))
    conv = Conversation(*ends, isn=(rng.getrandbits(32), rng.getrandbits(32)), mss=rng.randint(9, 900))
    handshake = rng.random() > 0.1  # else a capture that starts mid-stream
    packets = [p for _, p in conv.open(0)] if handshake else []
    data = []
    turns = rng.randint(1, 3)
    for turn in range(turns):
        for side, stream in (("client", client), ("server", server)):
            piece = stream[len(stream) * turn // turns:len(stream) * (turn + 1) // turns]
            data += [p for _, p in conv.send(side, piece, 0)]
    if lossy:
        for index in range(len(data) - 1):
            if rng.random() < 0.15:
                data[index], data[index + 1] = data[index + 1], data[index]
        for index in sorted(rng.sample(range(len(data)), k=min(len(data), rng.randint(0, 3))), reverse=True):
            copy = data[index]
            if rng.random() < 0.3:  # the copy differs: a conflict span
                copy = copy[:-1] + bytes([copy[-1] ^ 0x5A])
            data.insert(index + rng.randint(1, 3), copy)
        if rng.random() < 0.3 and len(data) > 2:
            del data[rng.randrange(len(data))]  # a gap
    packets += data
    if rng.random() < 0.8:
        packets += [p for _, p in conv.close(0)]
    elif rng.random() < 0.5:
        packets.append(segment(ends[0], ends[1], rng.getrandbits(32), rst=True))
    start = T0 + rng.randrange(10**9)
    return [(start + index * rng.randint(1, 5) * 10**5, packet) for index, packet in enumerate(packets)]


def busy_packets(seed: int, flows: int = 24, *, lossy: bool = True) -> list:
    """[(timestamp ns, IP packet)] of many interleaved connections of every protocol (and a 4-tuple used
    twice, a connection without data, one that is reset, one silent for longer than the idle timeout
    halfway, so that connections left open are idle at the end), in capture order."""
    rng = random.Random(seed)
    packets = []
    for number in range(flows):
        protocol = list(STREAMS)[number % len(STREAMS)]
        flow = _flow(rng, number, protocol, lossy=lossy)
        if number == 2:  # the idle timeout forgets it halfway; its second half is a new connection
            silence = int((IDLE_TIMEOUT + 100) * 1e9)
            flow = flow[:len(flow) // 2] + [(ts + silence, p) for ts, p in flow[len(flow) // 2:]]
        packets += flow
        if number == 1:  # the same 4-tuple again once the first connection is over
            ends = ((f"10.0.{number}.1", 40000 + number), (SERVER, PORTS[protocol]))
            packets += [(ts + 10**10, p) for ts, p in _flow(rng, number, protocol, reuse_of=ends, lossy=False)]
    quiet = Conversation(("10.9.9.9", 50000), (SERVER, 46801))
    packets += [(T0 + 5, p) for _, p in quiet.open(0) + quiet.close(0)]
    packets.append((T0 + 7, segment(("10.9.9.8", 50001), (SERVER, 8715), 77, rst=True)))
    return sorted(packets, key=lambda item: item[0])


def busy_pcap(seed: int, flows: int = 24, **kw) -> bytes:
    options = {key: kw.pop(key) for key in ("linktype", "nano", "le") if key in kw}
    return pcap_file(busy_packets(seed, flows, **kw), **options)


def busy_pcapng(seed: int, flows: int = 16, *, le: bool = True, late_interface: bool = False) -> bytes:
    """The same traffic in a pcapng on two interfaces (Ethernet in microseconds, raw IP in nanoseconds);
    late_interface: the second interface's IDB comes after the first packets (a file that cannot be split)."""
    packets = busy_packets(seed, flows)
    rows = []
    for index, (ts, packet) in enumerate(packets):
        if index % 3:
            data = wrap(packet, LINK_ETHERNET)
            rows.append((0, ts // 1000, data, len(data)))
        else:
            rows.append((1, ts, packet, len(packet)))
    interfaces = [(LINK_ETHERNET, None), (LINK_RAW, 9)]
    if not late_interface:
        return pcapng_file(interfaces, rows, le=le)
    first = pcapng_file(interfaces[:1], [row for row in rows if row[0] == 0][:5], le=le)
    rest = pcapng_file(interfaces, rows, le=le)
    head = len(pcapng_file(interfaces, [], le=le))
    idb = rest[len(pcapng_file(interfaces[:1], [], le=le)):head]
    return first + idb + rest[head:]


def damaged(data: bytes, seed: int, how: str) -> bytes:
    """The capture cut inside a record, or with one record's length made invalid, or with bytes of one
    packet's headers overwritten (a malformed packet, the container intact)."""
    rng = random.Random(seed)
    records = [item.file_offset for item in PacketReader("PERMISSIVE").feed(data) if not isinstance(item, ContainerError)]
    at = records[rng.randrange(len(records) // 3, len(records))]
    if how == "cut":
        return data[:at + rng.randint(1, 30)]
    out = bytearray(data)
    if how == "length":
        out[at + 8:at + 12] = (1 << 30).to_bytes(4, "little")  # pcap incl_len / pcapng body, over any limit
    else:  # "packet": the IP version nibble of a raw-IP or Ethernet packet, past the record header
        out[at + 16 + 14] = 0x00
    return bytes(out)


# ------------------------------------------------------------------------------------------ helpers


def comparable(items: list) -> list:
    """Packets as they are, the error span as (offset, length, error type, text): errors are compared by
    what they say, not by identity."""
    return [(item.file_offset, item.length, type(item.error), str(item.error)) if isinstance(item, ContainerError)
            else item for item in items]


def sequential(data: bytes, chunk: int = CHUNK) -> list:
    """What the sequential reader gives fed on the chunk grid: packets, then its error span if any."""
    reader, out = PacketReader("PERMISSIVE"), []
    for start in range(0, len(data), chunk):
        out += reader.feed(data[start:start + chunk])
    return comparable(out + reader.close())


def stitched(data: bytes, split_size: int, *, chunk: int = CHUNK, window: int = 2048) -> tuple[list, object]:
    """Every split read apart, then stitched: the packets kept, then the error span; and the Stitch. The
    window is small, for speed: longer than any record of the generated captures (the default is for
    real ones), so it changes what is read by whom, never the result (test_a_window_shorter_...)."""
    src = BytesSource(data)
    head = read_head(src)
    ends, packets = [], []
    for index in range(split_count(len(data), split_size)):
        for item in read_split(src, index, split_size, head=head, chunk=chunk, window=window):
            if isinstance(item, SplitEnd):
                ends.append(item)
            else:
                packets.append((index, item))
    result = stitch(ends, len(data))
    kept = [packet for index, packet in packets if result.keeps(index, packet.file_offset)]
    return comparable(kept + ([result.broken] if result.broken else [])), result


def walk(data: bytes) -> set[int]:
    """Every record start of the sequential walk, and the end of the file."""
    items = sequential(data)
    return {item.file_offset if isinstance(item, Packet) else item[0] for item in items} | {len(data)}


def longest_record(data: bytes) -> int:
    starts = sorted(walk(data))
    return max(b - a for a, b in zip(starts, starts[1:]))


# ------------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_every_sync_point_of_a_recorded_capture_is_on_its_walk(path):
    """At every boundary offset (so at every split size), with a window that reaches the longest record,
    the sync point is a record start of the sequential walk, or there is none."""
    data = path.read_bytes()
    src, starts = BytesSource(data), walk(data)
    head = read_head(src)
    window = longest_record(data)
    boundaries = range(1, len(data), 1 if len(data) < 4000 else 3)
    found = 0
    for boundary in boundaries:
        point = sync_point(src, head, boundary, len(data), window)
        assert point is None or (point in starts and point >= boundary), boundary
        found += point is not None
    assert found > len(boundaries) * 0.9  # almost every boundary has one (not those in the last record)


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
@pytest.mark.parametrize("split_size", [61, 100, 333, 1024, 4096, 1 << 20])
def test_recorded_captures_split_anywhere_read_as_one(path, split_size):
    data = path.read_bytes()
    got, result = stitched(data, split_size, window=WINDOW)
    assert got == sequential(data)
    assert result.broken is None and result.section is None


def test_tiny_splits_read_as_one():
    data = pcap_file(busy_packets(3, flows=2, lossy=False)[:8])
    for split_size in range(1, 40):
        assert stitched(data, split_size)[0] == sequential(data), split_size


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("options", [{}, {"linktype": LINK_SLL, "nano": True}, {"le": False, "linktype": LINK_RAW}],
                         ids=["ethernet", "sll-nano", "big-endian-raw"])
def test_generated_captures_split_anywhere_read_as_one(seed, options):
    data = busy_pcap(seed, flows=10, **options)
    want = sequential(data)
    for split_size in (1100, 6000):
        assert stitched(data, split_size)[0] == want, split_size


@pytest.mark.parametrize("le", [True, False])
def test_pcapng_splits_read_as_one(le):
    data = busy_pcapng(5, flows=8, le=le)
    want = sequential(data)
    assert {item.interface for item in want} == {0, 1}
    assert read_head(BytesSource(data)).end % ALIGNMENT["pcapng"] == 0
    for split_size in (1000, 4093):
        got, result = stitched(data, split_size)
        assert got == want and result.section is None, split_size


@pytest.mark.parametrize("window", [20, 64, 200, 700])
def test_a_window_shorter_than_the_records_still_reads_exactly(window):
    """Records longer than the window jump over sync points: the split before reads on to a later one
    and the skipped split drops out of the chain."""
    data = busy_pcap(7, flows=6)
    want = sequential(data)
    for split_size in (900, 3000):
        got, result = stitched(data, split_size, window=window)
        assert got == want, (window, split_size)
        if window < 100:
            assert len(result.chain) < split_count(len(data), split_size)  # some split was skipped


@pytest.mark.parametrize("how", ["cut", "length", "packet"])
@pytest.mark.parametrize("seed", range(3))
def test_damaged_captures_break_where_the_sequential_reader_breaks(how, seed):
    """Packets after the break are dropped; the error span (offset, length, text) is the sequential
    reader's on the same chunk grid, whichever split reads it, including chunks smaller than splits."""
    data = damaged(busy_pcap(seed, flows=6), seed, how)
    for chunk, split_size in ((CHUNK, 1100), (4096, 2900), (1000, 700), (333, 5000)):
        want = sequential(data, chunk)
        assert isinstance(want[-1], Packet) == (how == "packet")  # else it ends with the error span
        assert stitched(data, split_size, chunk=chunk)[0] == want, (chunk, split_size)


def test_damaged_pcapng_and_short_windows():
    data = damaged(busy_pcapng(9, flows=6), 1, "length")
    for chunk, window, split_size in ((CHUNK, 4096, 1000), (2048, 100, 1500), (512, 40, 3000)):
        assert stitched(data, split_size, chunk=chunk, window=window)[0] == sequential(data, chunk)


def test_broken_heads_and_files_without_packets():
    data = busy_pcap(1, flows=3)
    for broken in (data[:24] + b"\xff" * 40 + data[64:], data[:30], data[:24], b"\xd4\xc3\xb2\xa1" + bytes(3)):
        for split_size in (7, 16, 1000):
            assert stitched(broken, split_size)[0] == sequential(broken)
    assert read_head(BytesSource(data[:30])).end is None


def test_an_interface_after_the_first_packet_cannot_be_split():
    data = busy_pcapng(2, flows=6, late_interface=True)
    want = sequential(data)
    assert stitched(data, len(data))[0] == want  # one split: read as one, nothing depends on it
    got, result = stitched(data, 2000)
    assert result.section is not None and result.section > read_head(BytesSource(data)).end
    block, _ = pcapng.decode_block(data, result.section, le=True)
    assert isinstance(block.body, pcapng.InterfaceDescriptionBlock)
    message = str(CaptureSplitError("x.pcapng", result.section, "a pcapng section or interface defined"))
    assert "x.pcapng" in message and str(result.section) in message and 'format("inlong")' in message


def test_splits_read_their_range_in_chunks():
    """A split reads its range (and what its last record and the sync need), never the file."""

    class Counting(BytesSource):
        def __init__(self, data):
            super().__init__(data)
            self.largest = self.total = 0

        def read(self, offset, length):
            self.largest, self.total = max(self.largest, length), self.total + length
            return super().read(offset, length)

    data = busy_pcap(4, flows=40)
    split_size = len(data) // 4
    for index in range(4):
        src = Counting(data)
        *_, end = read_split(src, index, split_size, chunk=4096, window=2048)
        assert isinstance(end, SplitEnd) and end.start is not None
        assert src.largest <= CHUNK
        assert src.total < (end.met - end.start) + 4 * (64 << 10)  # its range, the syncs, the head


def test_the_frames_of_a_stitched_capture_are_the_sequential_ones():
    """What the Spark reader does with the packets, without Spark: replayed per 4-tuple in file order, each
    4-tuple through its own decoder told the capture's last time at the end, the flows give the sequential
    frames, flow ids (the first packet's offset) included."""
    from inlong_proto.capture import CaptureDecoder, packet_segment

    data = busy_pcap(11, flows=12)
    conv = Conversation(("10.7.7.7", 40007), ("10.0.0.2", 46801), mss=200)  # left open with a hole
    sent = [p for _, p in conv.open(0) + conv.send("client", STREAMS["dataproxy"][0], 0)]
    late = Conversation(("10.7.7.8", 40008), ("10.0.0.2", 46801))
    tail = [(T0 + int((IDLE_TIMEOUT + 60) * 1e9), p) for _, p in late.open(0)]
    extra = [(T0 + index, p) for index, p in enumerate(sent[:4] + sent[5:])] + tail
    data = pcap_file(sorted(busy_packets(11, flows=12) + extra, key=lambda item: item[0]))
    packets, _ = stitched(data, 1500)
    by_key: dict = {}
    for packet in packets:
        seg = packet_segment(packet)
        if seg is not None:
            key = tuple(sorted(((seg.src, seg.src_port), (seg.dst, seg.dst_port))))
            by_key.setdefault(key, []).append((seg, packet))
    end = max(packet.timestamp_ns for packet in packets)
    items = []
    for key, segments in by_key.items():
        decoder = CaptureDecoder("auto", "PERMISSIVE")
        for seg, packet in segments:
            items += decoder.feed_segment(seg, packet.timestamp_ns, packet.file_offset)
        decoder.see(end)
        items += decoder.close()
    want = list(iter_capture_frames(data, "auto", "PERMISSIVE"))
    assert any("idle for over" in str(i.frame.error) for i in want)  # the hole, declared at the end

    def rows(found):
        return sorted((i.flow.first_packet_offset, i.direction, i.frame.offset, repr(i.frame)) for i in found)

    assert rows(items) == rows(want)

"""The capture writer: what the reader gives back is what was written, and tcpdump reads the files."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from inlong_proto import encode
from inlong_proto.capture import iter_capture_frames, iter_packets
from inlong_proto.capture.writer import LINK_ETHERNET, LINK_RAW, LINK_SLL, Conversation, pcap_file
from vectors import valid_frames

BROADCAST = valid_frames()["broadcast"]
REQUEST = next(f for f in BROADCAST if len(f) == 37)
RESPONSE = next(f for f in BROADCAST if len(f) == 38)
T0 = 1_700_000_000_000_000_000


def two_conversations(client_a=("10.0.0.1", 40000), client_b=("10.0.0.3", 40001), server=("10.0.0.2", 9000)):
    """Two interleaved broadcast conversations; returns the packets and what each side sent when."""
    a = Conversation(client_a, server, isn=(2**32 - 3, 77), mss=10)  # seq wraps inside the request
    b = Conversation(client_b, server, isn=(5, 2**31), mss=1460)
    packets, sent = a.open(T0) + b.open(T0 + 1000), []
    for step in range(3):
        ts = T0 + (step + 1) * 10**9
        for index, conv in enumerate((a, b)):
            packets += conv.send("client", REQUEST, ts + index * 1000)
            packets += conv.send("server", RESPONSE * (step + 1), ts + index * 1000 + 500_000)
            sent += [(index, "request", REQUEST, ts + index * 1000)]
            sent += [(index, "response", RESPONSE, ts + index * 1000 + 500_000)] * (step + 1)
    packets += a.close(T0 + 9 * 10**9) + b.close(T0 + 9 * 10**9)
    return sorted(packets), sent


@pytest.mark.parametrize("linktype", [LINK_ETHERNET, LINK_RAW, LINK_SLL])
@pytest.mark.parametrize("v6", [False, True])
def test_round_trip(linktype, v6):
    ends = (("fd00::1", 40000), ("fd00::3", 40001), ("fd00::2", 9000)) if v6 else ()
    packets, sent = two_conversations(*ends)
    items = list(iter_capture_frames(pcap_file(packets, linktype=linktype, nano=True), "auto", "FAILFAST"))
    got = sorted((i.flow.number, i.direction, encode(i.frame), i.timestamp_ns) for i in items)
    assert got == sorted(sent)
    flows = {i.flow for i in items}
    client_a, client_b, server = ends or (("10.0.0.1", 40000), ("10.0.0.3", 40001), ("10.0.0.2", 9000))
    assert {(f.number, f.client, f.client_port, f.server, f.server_port) for f in flows} == \
        {(0, *client_a, *server), (1, *client_b, *server)}
    assert {p.linktype for p in iter_packets(pcap_file(packets, linktype=linktype))} == {linktype}


def test_segments_respect_mss_and_share_timestamps():
    conv = Conversation(("10.0.0.1", 1), ("10.0.0.2", 2), mss=4)
    packets = conv.send("client", b"0123456789", 42)
    assert [ts for ts, _ in packets] == [42, 42, 42]
    assert [len(p) for _, p in packets] == [44, 44, 42]  # 20 IPv4 + 20 TCP + at most 4
    assert conv.send("server", b"", 43) == []
    with pytest.raises(ValueError):
        conv.send("request", b"x", 44)


def test_microsecond_file_truncates_timestamps():
    packets, _ = two_conversations()
    stamps = [p.timestamp_ns for p in iter_packets(pcap_file(packets, le=False))]
    assert stamps == [ts // 1000 * 1000 for ts, _ in packets]


@pytest.mark.skipif(shutil.which("tcpdump") is None, reason="tcpdump is not installed")
@pytest.mark.parametrize("linktype", [LINK_ETHERNET, LINK_RAW])
@pytest.mark.parametrize("v6", [False, True])
def test_tcpdump_reads_the_file(tmp_path, linktype, v6):
    ends = (("fd00::1", 40000), ("fd00::3", 40001), ("fd00::2", 9000)) if v6 else ()
    packets, _ = two_conversations(*ends)
    path = tmp_path / "written.pcap"
    path.write_bytes(pcap_file(packets, linktype=linktype))
    result = subprocess.run(["tcpdump", "-r", str(path), "-nn"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(packets)
    assert sum("Flags [S]" in line for line in lines) == 2 and sum("Flags [S.]" in line for line in lines) == 2
    assert all(("IP6 " if v6 else "IP ") in line for line in lines)
    assert sum(line.endswith("length 37") for line in lines) == 3  # b's requests; a's (mss 10) are split


@pytest.mark.parametrize("protocol", ["broadcast", "dataproxy", "tubemq", "eventmesh"])
def test_a_dump_becomes_a_conversation_that_reads_back(protocol):
    from inlong_proto import iter_frames
    from inlong_proto.capture.writer import dump_to_pcap

    dump = b"".join(valid_frames()[protocol]) + b"\xffjunk"
    frames = list(iter_frames(dump, protocol, mode="PERMISSIVE"))
    items = list(iter_capture_frames(dump_to_pcap(dump, protocol, server=("10.0.0.2", 9000), start_ns=T0),
                                     protocol, "PERMISSIVE"))
    assert {item.flow.server_port for item in items} == {9000}
    for side in ("request", "response"):  # responses from the server, the rest (junk too) from the client
        mine = [f for f in frames if (f.direction == "response") == (side == "response")]
        got = [item.frame for item in items if item.direction == side]
        assert sum(f.length for f in got) == sum(f.length for f in mine)
        assert [(f.message_type, f.message) for f in got if f.error is None] == \
            [(f.message_type, f.message) for f in mine if f.error is None]


def test_write_pcap_command(tmp_path):
    from click.testing import CliRunner

    from inlong_proto.cli.commands import main

    dump = tmp_path / "dump.bin"
    dump.write_bytes(b"".join(valid_frames()["dataproxy"]))
    out = tmp_path / "dump.pcap"
    result = CliRunner().invoke(main, ["write-pcap", "-p", "dataproxy", "--client", "192.0.2.7:5555", str(dump), str(out)])
    assert result.exit_code == 0, result.output
    (item, *_) = iter_capture_frames(out.read_bytes(), "auto", "FAILFAST")
    assert (item.flow.client, item.flow.client_port, item.flow.server_port, item.frame.protocol) == \
        ("192.0.2.7", 5555, 46801, "dataproxy")
    bad = CliRunner().invoke(main, ["write-pcap", "-p", "dataproxy", "--client", "nohost", str(dump), str(out)])
    assert bad.exit_code == 2 and "HOST:PORT" in bad.output

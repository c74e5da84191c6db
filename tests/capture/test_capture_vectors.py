"""Captures recorded by tools/make_captures.py (Debian's tcpdump on loopback, the project's endpoints)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from inlong_proto import iter_frames
from inlong_proto.backends import reference
from inlong_proto.capture import CaptureDecoder, iter_capture_frames, iter_packets

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "capture"
ROOT = VECTORS.parents[2]


def decoded(name: str, mode: str = "FAILFAST"):
    decoder = CaptureDecoder("auto", mode)
    items = decoder.feed((VECTORS / name).read_bytes()) + decoder.close()
    return decoder, items


def stream(items, direction):
    return [i.frame for i in items if i.direction == direction]


@pytest.mark.parametrize("name, linktype, server_port", [
    ("broadcast_lo.pcap", 1, 9000), ("broadcast_any_nano.pcap", 276, 9000), ("broadcast_lo.pcapng", 1, 9000)])
def test_broadcast_capture_holds_what_the_client_recorded(name, linktype, server_port):
    packets = list(iter_packets((VECTORS / name).read_bytes()))
    assert {p.linktype for p in packets} == {linktype}
    decoder, items = decoded(name)
    received = list(iter_frames((VECTORS / name.split(".")[0]).with_suffix(".client.bin").read_bytes(), "broadcast"))
    responses = stream(items, "response")
    assert [f.message for f in responses[:len(received)]] == [f.message for f in received]
    assert [f.message_type for f in stream(items, "request")] == ["data_request"]
    (flow,) = {i.flow for i in items}
    assert (flow.client, flow.server, flow.server_port, flow.transport) == ("127.0.0.1", "127.0.0.1", server_port, "tcp")
    assert flow.client_port != server_port and decoder.flows[0]["protocol"] == "broadcast"
    times = [i.timestamp_ns for i in items]
    first, last = packets[0].timestamp_ns, packets[-1].timestamp_ns
    assert all(first <= t <= last for t in times)
    assert all(abs(i.timestamp - datetime.now(timezone.utc)).days < 3650 for i in items)
    for item in items:  # the packet named holds the frame's first byte
        assert any(p.file_offset == item.file_offset and p.timestamp_ns == item.timestamp_ns for p in packets)


def test_nanosecond_capture_keeps_nanoseconds():
    packets = list(iter_packets((VECTORS / "broadcast_any_nano.pcap").read_bytes()))
    assert any(p.timestamp_ns % 1000 for p in packets)


def test_pcapng_rewrite_equals_the_pcap():
    pcap_items = decoded("broadcast_lo.pcap")[1]
    pcapng_items = decoded("broadcast_lo.pcapng")[1]
    assert [(i.frame, i.direction, i.timestamp_ns) for i in pcap_items] == \
        [(i.frame, i.direction, i.timestamp_ns) for i in pcapng_items]


def test_dataproxy_capture_both_directions():
    decoder, items = decoded("dataproxy_lo.pcap")
    sent = list(iter_frames((VECTORS / "dataproxy_lo.server.bin").read_bytes(), "dataproxy", "request"))
    answers = list(iter_frames((VECTORS / "dataproxy_lo.client.bin").read_bytes(), "dataproxy", "response"))
    assert [f.message for f in stream(items, "request")] == [f.message for f in sent]
    assert [f.message for f in stream(items, "response")] == [f.message for f in answers]
    assert {i.flow.server_port for i in items} == {46801}


def test_eventmesh_capture():
    decoder, items = decoded("eventmesh_lo.pcap")
    sent = list(iter_frames((VECTORS / "eventmesh_lo.client.bin").read_bytes(), "eventmesh"))
    assert [f.message for f in stream(items, "request")] == [f.message for f in sent]
    assert "HELLO_RESPONSE" in [f.message_type for f in stream(items, "response")]
    assert decoder.flows[0]["protocol"] == "eventmesh"


@pytest.mark.parametrize("name", sorted(p.name for p in VECTORS.glob("*.pcap*")))
def test_frames_tile_every_reassembled_byte(name):
    decoder, items = decoded(name, "PERMISSIVE")
    for direction in ("request", "response"):
        spans = sorted((i.frame.offset, i.frame.length) for i in items if i.direction == direction and i.frame.length)
        at = 0
        for offset, length in spans:
            assert offset == at
            at += length
        assert at == decoder.flows[0]["bytes"][direction]


@pytest.mark.parametrize("name", sorted(p.name for p in VECTORS.glob("*.pcap*")))
def test_official_kaitai_parser_agrees(name):
    data = (VECTORS / name).read_bytes()
    spec = "pcapng" if name.endswith(".pcapng") else "pcap"
    parsed = reference.load("kaitai", spec).__dict__[spec.capitalize()].from_bytes(data)
    ours = list(iter_packets(data))
    if spec == "pcap":
        theirs = [(p.ts_sec * 10**9, p.data, p.orig_len) for p in parsed.packets]
        assert [(p.timestamp_ns // 10**9 * 10**9, p.data, p.orig_len) for p in ours] == theirs
    else:
        epbs = [b.body for b in parsed.blocks if type(b.body).__name__ == "EnhancedPacketBlock"]
        assert [(p.data, p.orig_len) for p in ours] == [(b.packet_data, b.original_packet_length) for b in epbs]
    tcp = reference.load("kaitai", "tcp_segment").TcpSegment
    from inlong_proto.capture.tcp import _ip_of
    from inlong_proto.generated.codec.capture import ipv4_packet, tcp_segment
    for packet in ours:
        version, ip_bytes = _ip_of(packet.linktype, packet.data)
        ip, _ = ipv4_packet.decode_ipv4_packet(ip_bytes)
        own, _ = tcp_segment.decode_tcp_segment(ip.rest)
        theirs = tcp.from_bytes(ip.rest)
        assert (own.seq_num, own.ack_num, own.syn, own.fin, own.ack, own.options, own.data) == \
            (theirs.seq_num, theirs.ack_num, theirs.syn, theirs.fin, theirs.ack, theirs.options, theirs.data)


def _can_capture() -> bool:
    if shutil.which("tcpdump") is None:
        return False
    probe = subprocess.run(["tcpdump", "-i", "lo", "--list-time-stamp-types"], capture_output=True, timeout=10)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_capture(), reason="tcpdump missing or not allowed to capture on lo")
def test_live_capture_of_broadcast_endpoints(tmp_path):
    port = 9000 + (int(time.time()) % 500) + 37
    capture, record = tmp_path / "live.pcap", tmp_path / "client.bin"
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "-w", str(capture), f"tcp port {port}"],
                            stderr=subprocess.DEVNULL)
    cli = [sys.executable, "-m", "inlong_proto", "broadcast"]
    try:
        time.sleep(1.0)
        server = subprocess.Popen(cli + ["serve", "--port", str(port), "--interval", "0.05"], cwd=ROOT,
                                  stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.5)
            subprocess.run(cli + ["client", "--port", str(port), "--count", "6", "--record", str(record)], cwd=ROOT,
                           check=True, timeout=60, capture_output=True)
            time.sleep(0.5)
        finally:
            server.terminate()
            server.wait(10)
    finally:
        time.sleep(0.5)
        dump.terminate()
        dump.wait(10)
    items = list(iter_capture_frames(capture.read_bytes(), "auto", "FAILFAST"))
    received = [f.message for f in iter_frames(record.read_bytes(), "broadcast")]
    assert [i.frame.message for i in items if i.direction == "response"][:6] == received
    assert {i.flow.server_port for i in items} == {port}


def test_cli_decodes_captures_and_summarises_flows():
    import json

    from click.testing import CliRunner

    from inlong_proto.cli.commands import main

    path = str(VECTORS / "dataproxy_lo.pcap")
    result = CliRunner().invoke(main, ["decode", "-p", "auto", "-d", "request", path])
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert result.exit_code == 0 and len(lines) == 10
    assert {(r["stream"], r["protocol"], r["flow"]["server_port"]) for r in lines} == {("request", "dataproxy", 46801)}
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["capture", path])
    assert result.exit_code == 0 and "dataproxy" in result.output and "127.0.0.1:46801" in result.output


def _pcapng_with_a_4_gib_block() -> bytes:
    """Issue 11 reproducer: a section header, one interface, then a block claiming 0xFFFFFFFC bytes."""
    import struct

    section = b"\x0a\x0d\x0d\x0a" + struct.pack("<IIHHqI", 28, 0x1A2B3C4D, 1, 0, -1, 28)
    interface = struct.pack("<IIHHII", 1, 20, 1, 0, 0, 20)
    return section + interface + struct.pack("<II", 6, 0xFFFFFFFC) + bytes(64)


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"])
@pytest.mark.parametrize("name, content, offset, field", [
    ("random.bin", bytes(range(7, 250)) * 4, 0, "magic"),
    ("huge-block.pcapng", _pcapng_with_a_4_gib_block(), 52, "block.block_total_length"),
])
def test_cli_capture_shows_a_broken_container_and_fails(tmp_path, mode, name, content, offset, field):
    """Issue 11: `capture` on a file that is not a capture, or on a pcapng block of 4 GiB, exited 0 with
    "0 packets" and never showed the container error."""
    from click.testing import CliRunner

    from inlong_proto.cli.commands import main

    path = tmp_path / name
    path.write_bytes(content)
    result = CliRunner().invoke(main, ["capture", "--mode", mode, str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}: offset {offset} in {field}" in result.output and "0 packets" not in result.output
    assert "Traceback" not in result.output


def test_cli_capture_shows_packets_read_before_a_break(tmp_path):
    data = (VECTORS / "dataproxy_lo.pcap").read_bytes()
    path = tmp_path / "cut.pcap"
    path.write_bytes(data[:-5])
    from click.testing import CliRunner

    from inlong_proto.cli.commands import main

    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["capture", str(path)])
    assert result.exit_code == 1 and "127.0.0.1:46801" in result.output
    assert "in packet.data: needs 66 bytes, only 61 available" in result.output


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096, 1 << 20])
def test_the_container_error_span_covers_the_rest_of_the_file_however_it_is_fed(chunk):
    """Issue 11: the PERMISSIVE span covered only the bytes buffered at the break (its length depended
    on the chunking) and later chunks were dropped unaccounted."""
    from inlong_proto.capture import PacketReader
    from inlong_proto.capture.container import ContainerError

    data = bytearray((VECTORS / "dataproxy_lo.pcap").read_bytes())
    whole = list(iter_packets(bytes(data)))
    broken_at = whole[3].file_offset
    data[broken_at + 8:broken_at + 12] = (1 << 30).to_bytes(4, "little")  # incl_len past any snap length
    reader, items = PacketReader("PERMISSIVE"), []
    for at in range(0, len(data), chunk):
        items += reader.feed(bytes(data[at:at + chunk]))
    items += reader.close()
    *packets, error = items
    assert [p.file_offset for p in packets] == [p.file_offset for p in whole[:3]]
    assert isinstance(error, ContainerError) and (error.file_offset, error.length) == (broken_at, len(data) - broken_at)


def test_cli_capture_table_is_whole_in_a_pipe():
    """Issue 13: written to a file or a pipe, the table's cells were cut to `127.0…`."""
    done = subprocess.run([sys.executable, "-m", "inlong_proto", "capture", str(VECTORS / "dataproxy_lo.pcap")],
                          capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "COLUMNS"})
    assert done.returncode == 0 and "127.0.0.1:46801" in done.stdout and "…" not in done.stdout

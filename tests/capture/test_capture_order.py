"""Issue 13, item 3: with -p auto, frames come out in the order their last byte was captured, as with a
named protocol, although each flow's frames wait until the flow is classified."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inlong_proto import iter_frames
from inlong_proto.capture import CaptureDecoder, iter_capture_frames
from inlong_proto.capture.writer import Conversation, pcap_file

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "capture"


def _frames(name: str, protocol: str) -> list[bytes]:
    """The well-formed frames of a dump (an error span is only known once later bytes are in, so it comes
    out later than its own bytes were captured, with any protocol setting)."""
    data = (VECTORS / name).read_bytes()
    direction = "request" if ".server." in name else "response"  # what the server received: requests
    return [data[f.offset:f.offset + f.length] for f in iter_frames(data, protocol, direction, mode="PERMISSIVE")
            if f.error is None]


def _interleaved() -> bytes:
    """A DataProxy flow and an EventMesh flow, one frame per packet, alternating, each flow's frames too
    few to classify it before its end (so every one of them waits)."""
    flows = [(Conversation(("10.0.0.1", 40000), ("10.0.0.2", 46801)),
              _frames("dataproxy_lo.server.bin", "dataproxy"), _frames("dataproxy_lo.client.bin", "dataproxy")),
             (Conversation(("10.0.0.1", 40001), ("10.0.0.3", 10000)),
              _frames("eventmesh_lo.server.bin", "eventmesh"), _frames("eventmesh_lo.client.bin", "eventmesh"))]
    ts, packets = 10**9, []
    for conv, _, _ in flows:
        packets += conv.open(ts)
    for index in range(max(len(c) for _, c, _ in flows)):
        for conv, requests, responses in flows:
            for side, frames in (("client", requests), ("server", responses)):
                if index < len(frames):
                    ts += 1000
                    packets += conv.send(side, frames[index], ts)
    for conv, _, _ in flows:
        ts += 1000
        packets += conv.close(ts)
    return pcap_file(packets, nano=True)


def test_auto_gives_capture_order_across_flows_and_directions():
    items = list(iter_capture_frames(_interleaved(), "auto", "FAILFAST"))
    assert {item.frame.protocol for item in items} == {"dataproxy", "eventmesh"}
    stamps = [item.timestamp_ns for item in items]
    assert stamps == sorted(stamps)  # one frame per packet: first byte and last byte are in the same packet
    assert len(set(stamps)) == len(stamps)


@pytest.mark.parametrize("name", sorted(p.name for p in VECTORS.iterdir() if p.suffix in (".pcap", ".pcapng")))
def test_auto_order_is_the_named_protocols_order(name):
    data = (VECTORS / name).read_bytes()
    auto = list(iter_capture_frames(data, "auto", "PERMISSIVE"))
    protocol = auto[0].frame.protocol
    named = list(iter_capture_frames(data, protocol, "PERMISSIVE"))
    key = lambda item: (item.flow.number, item.direction, item.frame.offset, item.frame.length)  # noqa: E731
    assert [key(i) for i in auto] == [key(i) for i in named]


@pytest.mark.parametrize("cap", [3, None])
def test_held_frames_are_bounded(monkeypatch, cap):
    """A flow that never gets classified cannot make every later frame wait: past MAX_HELD_FRAMES the
    oldest go out (out of order), so memory stays bounded."""
    import inlong_proto.capture as capture

    if cap is not None:
        monkeypatch.setattr(capture, "MAX_HELD_FRAMES", cap)
    silent = Conversation(("10.0.0.9", 50000), ("10.0.0.2", 46801))
    busy = Conversation(("10.0.0.1", 40000), ("10.0.0.3", 10000))
    requests = _frames("eventmesh_lo.server.bin", "eventmesh")
    packets = silent.open(1) + silent.send("client", b"\x00\x00", 2) + busy.open(3)
    for index, frame in enumerate(requests):
        packets += busy.send("client", frame, 4 + index)
    packets += busy.close(100)
    decoder = CaptureDecoder("auto", "PERMISSIVE")
    early = decoder.feed(pcap_file(packets, nano=True))  # the silent flow is still open and unclassified
    assert len(early) == (0 if cap is None else len(requests) - cap)  # the rest wait for the silent flow
    rest = decoder.close()
    assert len(early) + len(rest) == len(requests) + 1  # and the silent flow's 2 bytes as an error span
    assert rest[-1].flow.client_port == 50000 and rest[-1].frame.error is not None  # known only at the end


def test_cli_auto_prints_capture_order(tmp_path):
    path = tmp_path / "two.pcap"
    path.write_bytes(_interleaved())
    out = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", str(path)],
                         capture_output=True, text=True, check=True).stdout
    stamps = [json.loads(line)["timestamp_ns"] for line in out.splitlines()]
    assert stamps and stamps == sorted(stamps)

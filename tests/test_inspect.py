"""inspect everywhere (issue 13, item 4): raw dumps of every protocol and captures, -d, EventMesh HTTP,
TubeMQ blocks expanded, decimal offsets, and the dependency it needs in the core install."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.vectors import HTTP_STREAMS, ROOT, mixed_capture, valid_frames

REPO = Path(__file__).resolve().parent.parent


def inspect(*args, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inlong_proto", "inspect", *args], input=stdin,
                          capture_output=True, check=check)


def _frame_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^\s*\d+  (frame|MALFORMED)", line)]


# (protocol, direction) of every group of valid vectors; None: the vectors that name no direction (-d left out)
GROUPS = [(protocol, direction) for direction in ("request", "response", None)
          for protocol in sorted(valid_frames([direction]))]


@pytest.mark.parametrize("protocol, direction", GROUPS)
def test_every_protocols_frames_are_annotated(tmp_path, protocol, direction):
    frames = valid_frames([direction])[protocol]
    assert {p for p, _ in GROUPS} == {"broadcast", "dataproxy", "tubemq", "eventmesh", "eventmesh-legacy", "eventmesh-frame"}
    dump = tmp_path / "dump.bin"
    dump.write_bytes(b"".join(frames))
    text = inspect("-p", protocol, *(["-d", direction] if direction else []), str(dump)).stdout.decode()
    lines = _frame_lines(text)
    assert len(lines) == len(frames) and not any("MALFORMED" in line for line in lines)
    assert "object at 0x" not in text  # every value rendered, lists and structs walked
    offsets = [int(line.split()[0]) for line in lines]
    assert offsets == [sum(map(len, frames[:i])) for i in range(len(frames))]  # decimal stream offsets


def test_tubemq_blocks_are_expanded(tmp_path):
    dump = tmp_path / "tubemq.bin"
    dump.write_bytes(valid_frames(["request"])["tubemq"][0])
    text = inspect("-p", "tubemq", str(dump)).stdout.decode()
    assert "blocks = 1 items" in text and "blocks[0]" in text and "block_len = 55" in text
    assert re.search(r"^\s+16  02 08 00 04 .* data = ", text, re.M)  # the block's data at its decimal offset


def test_malformed_spans_and_decimal_offsets(tmp_path):
    dump = tmp_path / "dump.bin"
    frame = valid_frames(["response"])["broadcast"][0]
    dump.write_bytes(frame + b"zz")
    text = inspect("-p", "broadcast", str(dump)).stdout.decode()
    assert f"{len(frame):>8}  MALFORMED 2 bytes" in text


def test_a_capture_flow_by_flow(tmp_path):
    data, flows = mixed_capture()
    path = tmp_path / "mixed.pcap"
    path.write_bytes(data)
    text = inspect(str(path)).stdout.decode()
    heads = [line for line in text.splitlines() if line.startswith("-- flow ")]
    protocols = {line.split(", ")[1] for line in heads}
    assert {"dataproxy", "tubemq", "eventmesh", "broadcast", "eventmesh-http"} <= protocols
    assert "start_line = 'POST " in text and "eventmesh.fields" not in text or "fields = " in text
    assert "blocks[0]" in text and "total_len = " in text
    requests = inspect("-d", "request", str(path)).stdout.decode()
    assert "response, " not in "".join(l for l in requests.splitlines() if l.startswith("-- flow "))
    assert 0 < requests.count("-- flow ") < text.count("-- flow ")


def test_eventmesh_http_dump_and_stdin():
    text = inspect("-p", "auto", "-", stdin=HTTP_STREAMS["request"]).stdout.decode()
    assert "start_line = 'POST / HTTP/1.1'" in text and "code = '102'" in text
    assert "request_code = " in text and "fields = " in text


def test_every_capture_vector(tmp_path):
    for path in sorted((ROOT / "capture").glob("*.pcap*")):
        result = inspect(str(path))
        assert result.returncode == 0 and b"-- flow 0" in result.stdout and b"object at 0x" not in result.stdout


def test_not_a_known_protocol_is_one_error_line(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(b"garbage\n")
    result = inspect(str(path), check=False)
    assert result.returncode == 1 and b"name one with -p" in result.stderr and b"Traceback" not in result.stderr


def test_core_install_has_what_inspect_needs():
    """After a plain pip install (no extras) inspect must run: kaitaistruct is a core dependency, and CI's
    wheel check runs inspect in such an install."""
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.startswith("kaitaistruct") for d in dependencies)
    assert "inlong-proto inspect" in (REPO / ".ci" / "run").read_text()

"""The sample files in examples/data/ (what the README's tour and the docs decode): tools/make_examples.py
writes them byte for byte, and the command line reads each one whole, without an error span."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
CLI = [sys.executable, "-m", "inlong_proto"]
DUMPS = ["broadcast", "dataproxy", "tubemq", "eventmesh", "eventmesh-http", "eventmesh-grpc"]


def test_the_script_writes_the_committed_files():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_examples.py"), "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shipped = sorted(p.name for p in DATA.iterdir())
    assert shipped == sorted([f"{name}.bin" for name in DUMPS] + ["mixed.pcap"])
    assert all(p.stat().st_size <= 100_000 for p in DATA.iterdir())


def _decode(protocol: str, path: Path) -> list[dict]:
    done = subprocess.run(CLI + ["decode", "-p", protocol, "--mode", "permissive", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("protocol", DUMPS)
def test_each_dump_decodes_without_an_error_span(protocol):
    items = _decode(protocol, DATA / f"{protocol}.bin")
    assert len(items) >= 5
    assert [item for item in items if item.get("error")] == []
    assert {item["protocol"] for item in items} == {protocol}


def test_the_mixed_capture_holds_every_protocol_without_an_error_span():
    items = _decode("auto", DATA / "mixed.pcap")
    assert [item for item in items if item.get("error")] == []
    assert {item["protocol"] for item in items} == set(DUMPS)

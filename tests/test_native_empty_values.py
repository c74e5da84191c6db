"""Empty values through the compiled scanners (issue 24, item 21b): UBSan flagged memcpy(NULL, ..., 0) in the
column appends when a column's first value was empty (a DataProxy binary heartbeat's empty body, the path
column of a scan with path ""). These are plain checks here; `make ubsan` runs them with every report fatal."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from inlong_proto.core import arrow
from inlong_proto import iter_frames
from inlong_proto.backends import compiled as native

ROOT = Path(__file__).parent / "vectors" / "dataproxy" / "valid"
HEARTBEATS = sorted(ROOT.glob("*heartbeat*.json"))
pytestmark = pytest.mark.skipif(native.backend() != "native", reason="the compiled backend is not built")


@pytest.mark.parametrize("path", ["", "dump.bin"])
@pytest.mark.parametrize("vector", HEARTBEATS, ids=lambda p: p.stem)
def test_a_heartbeat_alone_scans_as_the_pure_rows(vector, path):
    assert HEARTBEATS
    data = bytes.fromhex(json.loads(vector.read_text())["hex"])
    got = native.scan_batch(data, "dataproxy", path)
    want = arrow.frames_to_batch(path, iter_frames(data, "dataproxy", None, "PERMISSIVE"), "dataproxy")
    assert got.to_pylist() == want.to_pylist()

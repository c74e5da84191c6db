"""Protocol names are spelt one way (issue 13, item 8): words joined by hyphens. The underscore spelling is
read as the same protocol, and is what a name becomes where an identifier is needed (Spark's columns)."""
from __future__ import annotations

import json
import subprocess
import sys

import inlong_proto
from inlong_proto.core import protocols
from tests.vectors import valid_frames


def test_listed_names_use_hyphens_only():
    listed = subprocess.run([sys.executable, "-m", "inlong_proto", "protocols"], capture_output=True, text=True,
                            check=True).stdout.split()
    assert "eventmesh-legacy" in listed and "eventmesh-http" in listed
    assert not [name for name in listed if "_" in name]


def test_underscores_are_read_as_the_same_protocol():
    frame = valid_frames([None])["eventmesh-legacy"][0]
    assert inlong_proto.decode(frame, "eventmesh_legacy").protocol == "eventmesh-legacy"
    assert protocols.canonical("eventmesh_http") == "eventmesh-http"
    assert protocols.canonical("nonsense_name") == "nonsense_name"  # left for the error that names the known ones
    assert protocols.column_name("eventmesh-legacy") == "eventmesh_legacy"


def test_the_cli_takes_either_spelling(tmp_path):
    dump = tmp_path / "legacy.bin"
    dump.write_bytes(valid_frames([None])["eventmesh-legacy"][0])
    for spelling in ("eventmesh-legacy", "eventmesh_legacy"):
        out = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", spelling, str(dump)],
                             capture_output=True, text=True, check=True).stdout
        assert json.loads(out)["protocol"] == "eventmesh-legacy"

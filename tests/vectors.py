"""Test vectors are data (tests/vectors/<protocol>/{valid,malformed}/*.json); this reads them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).parent / "vectors"


def load(protocol: str, kind: str) -> list:
    """pytest params, one per vector file, with the file name as id."""
    files = sorted((ROOT / protocol / kind).glob("*.json"))
    assert files, f"no {kind} vectors for {protocol}"
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


# Where each protocol's vectors live (EventMesh also has HTTP vectors, which are not frames).
FRAME_FOLDERS = {"broadcast": "broadcast", "dataproxy": "dataproxy", "tubemq": "tubemq", "eventmesh": "eventmesh/tcp"}


def valid_frames(directions=None) -> dict[str, list[bytes]]:
    """protocol -> the bytes of its valid frame vectors, in file order. A vector may name its own protocol
    (EventMesh's legacy length form); `directions`, if given, keeps only vectors sent that way."""
    out: dict[str, list[bytes]] = {}
    for default, folder in FRAME_FOLDERS.items():
        for path in sorted((ROOT / folder / "valid").glob("*.json")):
            vector = json.loads(path.read_text())
            if directions is None or vector.get("direction") in directions:
                out.setdefault(vector.get("protocol") or default, []).append(bytes.fromhex(vector["hex"]))
    return out

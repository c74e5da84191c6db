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

"""Every fenced `python` and `sh` block of the README runs here, so that no example can go stale (the folder
the blocks run in, what a python block is given and how make / pip lines are checked: tests/fenced.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

import fenced

README = fenced.ROOT / "README.md"
BLOCKS = fenced.blocks(README)


@pytest.fixture(scope="module")
def folder(tmp_path_factory, s3) -> Path:
    return fenced.make_folder(tmp_path_factory.mktemp("readme"))


@pytest.mark.parametrize("section, text", [(b[2], b[3]) for b in BLOCKS if b[0] == "python"],
                         ids=[f"python-line-{b[1]}" for b in BLOCKS if b[0] == "python"])
def test_python_example_runs(section, text, folder):
    fenced.run_python(section, text, folder, "README.md")


@pytest.mark.parametrize("text", [b[3] for b in BLOCKS if b[0] == "sh"],
                         ids=[f"sh-line-{b[1]}" for b in BLOCKS if b[0] == "sh"])
def test_shell_example_runs(text, folder):
    fenced.run_shell(text, folder)

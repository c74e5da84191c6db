"""The documentation site: `mkdocs build --strict` passes (no broken link, every page in the nav, every
docstring readable, the generated protocol pages present), and every fenced `python` and `sh` block of
docs/ runs (as the README's do: tests/fenced.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import fenced

DOCS = fenced.ROOT / "docs"
# The pages written by hand: the protocol pages (docs/reference/protocols, a link to generated/docs) hold no
# examples, and docs/protocols holds the upstream facts the specs follow.
PAGES = sorted(p for p in DOCS.rglob("*.md") if "protocols" not in p.relative_to(DOCS).parts)
BLOCKS = [(page, *block) for page in PAGES for block in fenced.blocks(page)]


def _id(page: Path, language: str, line: int) -> str:
    return f"{page.relative_to(DOCS).with_suffix('')}-{language}-line-{line}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory, s3) -> Path:
    return fenced.make_folder(tmp_path_factory.mktemp("docs"))


def test_the_site_builds_strictly(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=fenced.ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    generated = sorted(p.stem for p in (fenced.ROOT / "generated" / "docs").glob("*.md"))
    assert generated and all((site / "reference" / "protocols" / name).is_dir() or name == "index"
                             for name in generated), generated
    assert "inlong-proto decode" in (site / "reference" / "cli" / "index.html").read_text()
    assert "iter_frames" in (site / "reference" / "python-api" / "index.html").read_text()


def test_every_spec_and_protocol_has_a_generated_page():
    """tools/ksygen/docs.py places every .ksy on a page and gives every registry protocol one, and what
    make generate wrote is what it writes now (make check-generated checks the same in CI)."""
    from tools.ksygen import docs, registry

    specs = fenced.ROOT / "specs"
    pages = docs.pages(specs)
    placed = [spec.path for page in pages.values() for spec in page["ksy"]]
    assert sorted(placed) == sorted(p.resolve() for p in specs.rglob("*.ksy"))
    assert set(registry.entries(specs)) <= set(pages)
    written = sorted(p.stem for p in (fenced.ROOT / "generated" / "docs").glob("*.md"))
    assert written == sorted([*pages, "index"])


def test_every_page_has_examples_and_they_use_shipped_files():
    assert len([b for b in BLOCKS if b[1] == "sh"]) >= 10 and len([b for b in BLOCKS if b[1] == "python"]) >= 5
    tour = [b[4] for b in BLOCKS if b[0].name == "tour.md"]
    assert tour and all("examples/data/" in text for text in tour)


@pytest.mark.parametrize("page, section, text", [(b[0], b[3], b[4]) for b in BLOCKS if b[1] == "python"],
                         ids=[_id(b[0], b[1], b[2]) for b in BLOCKS if b[1] == "python"])
def test_python_example_runs(page, section, text, folder):
    fenced.run_python(section, text, folder, str(page.relative_to(fenced.ROOT)))


@pytest.mark.parametrize("text", [b[4] for b in BLOCKS if b[1] == "sh"],
                         ids=[_id(b[0], b[1], b[2]) for b in BLOCKS if b[1] == "sh"])
def test_shell_example_runs(text, folder):
    fenced.run_shell(text, folder)

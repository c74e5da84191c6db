"""Docs point inside the repository or upstream, never to files users do not have (issue 12): specs cite
the upstream source (repository@commit and path), the project's protocol notes under docs/, or a public
document (the capture formats' registries and RFCs)."""
import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _tracked(*folders: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", *folders], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / name for name in listed.stdout.split() if (ROOT / name).is_file()]


TEXT = [p for p in _tracked("specs", "inlong_proto", "tests", "tools", "examples", "docs", "README.md")
        if p.suffix in {".ksy", ".proto", ".yaml", ".json", ".py", ".md"} and p.name != Path(__file__).name]


def test_nothing_cites_the_design_folder_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}:{n}" for p in TEXT
             for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
             if re.search(r"\bshared/(design|seeds)\b", line)]
    assert not found, found


def test_every_docs_path_cited_exists():
    cited = {m for p in TEXT for m in re.findall(r"\bdocs/protocols/[\w.-]+\.md\b", p.read_text(errors="replace"))}
    assert cited and all((ROOT / path).is_file() for path in cited), sorted(cited)


def test_every_spec_doc_ref_cites_upstream_or_the_protocol_notes():
    refs = {}
    for spec in sorted((ROOT / "specs").rglob("*.ksy")) + sorted((ROOT / "specs").rglob("*.yaml")):
        meta = yaml.safe_load(spec.read_text())
        for where in (meta, (meta or {}).get("meta") or {}, (meta or {}).get("doc") or {}):
            if isinstance(where, dict) and "doc-ref" in where:
                refs[spec.relative_to(ROOT)] = where["doc-ref"]
    assert len(refs) >= 15, refs
    for spec, ref in refs.items():
        text = " ".join(ref) if isinstance(ref, list) else str(ref)
        assert re.search(r"apache/(inlong|eventmesh)@[0-9a-f]{7,}|docs/protocols/|https://|\bRFC \d+|IEEE|draft-", text), (spec, text)

"""The strict peers' rule tables (specs/<protocol>/conformance.yaml, issue 29 item 3): every rule links to a
spec line that exists, ids are unique and name their protocol, and a report refuses an unknown rule."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from inlong_proto.core.conformance import Report, rules, spec_line

ROOT = Path(__file__).resolve().parents[1]
PROTOCOLS = sorted(p.parent.name for p in (ROOT / "specs").glob("*/conformance.yaml"))


def test_every_protocol_with_strict_peers_has_a_table():
    assert "broadcast" in PROTOCOLS


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_rules_link_to_their_spec_line(protocol):
    table = rules(protocol)
    assert table
    for rule in table.values():
        assert rule.id.startswith(f"{protocol}."), rule.id
        assert rule.expects.strip(), rule.id
        assert spec_line(rule, ROOT) is not None, f"{rule.id}: {rule.spec} names nothing in that file"


def test_report_writes_json_lines_and_refuses_unknown_rules():
    out = io.StringIO()
    report = Report("broadcast", out)
    report("broadcast.request-frame", peer="127.0.0.1:1", offset=5, got="garbage", length=3)
    with pytest.raises(KeyError):
        report("broadcast.no-such-rule", peer="127.0.0.1:1", offset=0, got="x")
    [line] = out.getvalue().splitlines()
    assert json.loads(line) == {"rule": "broadcast.request-frame", "peer": "127.0.0.1:1", "offset": 5,
                                "expected": rules("broadcast")["broadcast.request-frame"].expects, "got": "garbage",
                                "spec": "specs/broadcast/broadcast_frame.ksy#data_request", "length": 3}
    assert report.counts() == {"broadcast.request-frame": 1}


def test_summary_keeps_rule_ids_and_specs_whole_on_a_narrow_terminal():
    from rich.console import Console

    report = Report("broadcast")
    report("broadcast.request-frame", peer="127.0.0.1:1", offset=0, got="garbage", length=37)
    out = io.StringIO()
    report.summary(Console(file=out, width=80))  # stderr redirected to a file: rich's 80 columns
    rows = [line.split("│")[1:-1] for line in out.getvalue().splitlines() if line.startswith("│")]
    assert "…" not in out.getvalue()
    assert rows[0][0].strip() == "broadcast.request-frame"
    assert "".join(row[3].strip() for row in rows) == "specs/broadcast/broadcast_frame.ksy#data_request"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_client_authors_page_renders_every_protocols_rules(protocol):
    """Every protocol with strict peers has its table on docs/how-to/client-authors.md (broadcast had none)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("conformance_rules", ROOT / "docs/hooks/conformance_rules.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.on_page_markdown((ROOT / "docs/how-to/client-authors.md").read_text(), None, None, None)
    for rule in rules(protocol).values():
        assert f"| `{rule.id}` | {' '.join(rule.expects.split())} |" in page

"""MkDocs hook: a strict peer's rules, rendered at build time from its table (specs/<protocol>/conformance.yaml).

A page holding the marker `<!-- conformance rules: PROTOCOL -->` gets, in its place, a table of that protocol's
rules (id, what a conforming peer does, what upstream answers, where the spec states it), so that the page cannot
drift from the rules the strict peers report.
"""
from __future__ import annotations

import re

MARKER = re.compile(r"<!-- conformance rules: ([a-z_-]+) -->")


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _table(match: re.Match) -> str:
    from inlong_proto.core.conformance import rules

    lines = ["| rule | a conforming peer | upstream's answer | spec |", "| --- | --- | --- | --- |"]
    lines += [f"| `{rule.id}` | {_cell(rule.expects)} | {_cell(rule.answer)} | `` {_cell(rule.spec)} `` |"
              for rule in rules(match.group(1)).values()]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    return MARKER.sub(_table, markdown)

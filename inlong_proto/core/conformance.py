"""Conformance reports of the strict reference peers (issue 29, item 3).

A strict peer checks every frame the other side sends against rules that are data: one table per
protocol, specs/<protocol>/conformance.yaml (generated into generated/tables like every YAML table). Each
rule has an id, what it expects, where a spec states it (``spec``: a spec file and the id or key that holds
the rule, ``specs/dataproxy/dataproxy_request.ksy#total_len``), the upstream code that enforces it, and what
upstream answers. Keeping the rules as data lets a report link a finding to its spec line and lets the tests
check that every rule has a faulty client that trips it.

A Report gets the findings as they happen (one JSON line each, flushed, so a killed peer leaves a usable
report) and prints a summary table at exit. The peers stay sans-IO about it: they call ``report(rule, ...)``.
"""
from __future__ import annotations

import importlib
import json
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import IO

__all__ = ["Finding", "Report", "Rule", "rules", "spec_line"]


@dataclass(frozen=True)
class Rule:
    """One rule a peer's frames must follow."""

    id: str
    protocol: str
    expects: str  # what a conforming peer does, in words
    spec: str  # specs/<file>#<id or key> where the rule is stated
    upstream: str | None = None  # the upstream file that enforces it (repository@commit path)
    answer: str | None = None  # what upstream does about it (an error answer, a close, nothing)


@dataclass(frozen=True)
class Finding:
    """A rule a peer broke: where in its byte stream, what was expected and what came."""

    rule: str
    peer: str
    offset: int  # of the offending frame (or byte) in what that peer sent on its connection
    expected: str
    got: str
    spec: str
    length: int | None = None  # the offending frame's length, when there is a frame

    def to_dict(self) -> dict:
        return asdict(self)


@cache
def rules(protocol: str) -> dict[str, Rule]:
    """A protocol's rules by id, from its generated table (protocol: the specs/ folder's name)."""
    data = importlib.import_module(f"inlong_proto.generated.tables.{protocol}.conformance").DATA
    out = {}
    for item in data["rules"]:
        rule = Rule(id=item["id"], protocol=protocol, expects=item["expects"], spec=item["spec"],
                    upstream=item.get("upstream"), answer=item.get("answer"))
        if rule.id in out:
            raise ValueError(f"specs/{protocol}/conformance.yaml: rule {rule.id} twice")
        out[rule.id] = rule
    return out


def spec_line(rule: Rule, root: Path) -> int | None:
    """The 1-based line of the spec file (under the clone root) where the rule's anchor is first named, or
    None when the file or the anchor is not there (an installed package has no specs/)."""
    path, _, anchor = rule.spec.partition("#")
    try:
        lines = (root / path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for number, line in enumerate(lines, 1):
        if anchor and anchor in line:
            return number
    return None


class Report:
    """The findings of one strict peer: written as JSON lines to `out` as they come, counted for the
    summary. Callable from any thread (the gRPC server's handlers run on a pool)."""

    def __init__(self, protocol: str, out: IO[str] | None = None):
        self.protocol = protocol
        self.rules = rules(protocol)
        self.out = out
        self.findings: list[Finding] = []
        self._lock = threading.Lock()

    def __call__(self, rule: str, *, peer: str, offset: int, got: str, expected: str | None = None,
                 length: int | None = None) -> Finding:
        """Record that `peer` broke `rule` (an id of this protocol's table: a typo is a KeyError, not a
        finding nobody can look up); expected defaults to the rule's own words."""
        known = self.rules[rule]
        finding = Finding(rule=rule, peer=peer, offset=offset, expected=expected or known.expects, got=got,
                          spec=known.spec, length=length)
        with self._lock:
            self.findings.append(finding)
            if self.out is not None:
                self.out.write(json.dumps(finding.to_dict(), ensure_ascii=False) + "\n")
                self.out.flush()
        return finding

    def counts(self) -> Counter:
        with self._lock:
            return Counter(f.rule for f in self.findings)

    def summary(self, console=None) -> None:
        """The table printed at exit: each rule broken, how often, what it expects, where it is stated."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console(stderr=True)
        counts = self.counts()
        if not counts:
            console.print(f"{self.protocol} conformance: no rule broken")
            return
        table = Table(title=f"{self.protocol} conformance: {sum(counts.values())} findings")
        # a rule id and a spec anchor are what a reader looks up: never cut short on a narrow terminal (or
        # stderr to a file, 80 columns); the id on one line, the spec folded
        table.add_column("rule", no_wrap=True, min_width=max(map(len, counts)))
        table.add_column("count", justify="right")
        table.add_column("expects")
        table.add_column("spec", overflow="fold")
        for rule, count in sorted(counts.items()):
            known = self.rules[rule]
            table.add_row(rule, str(count), known.expects, known.spec)
        console.print(table)

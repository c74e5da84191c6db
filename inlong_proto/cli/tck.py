"""The test kit for foreign decoders and encoders (issue 29): ``inlong-proto tck --decoder CMD`` runs any
command over the conformance corpus (inlong_proto.cli.corpus) and compares what it prints, field by field,
with the expected values; ``--encoder CMD`` the reverse.

The contract (docs/how-to/client-authors.md states it for client authors):

* CMD runs through ``sh -c`` once per input, the input's bytes on stdin, and these in its environment:
  INLONG_TCK_PROTOCOL (a protocol name), INLONG_TCK_DIRECTION (request, response or empty: the frame says),
  INLONG_TCK_PAYLOAD (1 when the payload layer is asked for, else empty), INLONG_TCK_RULE, INLONG_TCK_CASE.
* A decoder prints the items it finds, in the decode shape, as JSON lines or one JSON array; a decoder that
  cannot express a case prints ``{"not_covered": "why"}`` alone, and the case counts as not covered.
* An encoder reads the expected items as JSON lines and writes the bytes.

Exit status 0 when nothing failed (not covered is not a failure), 1 otherwise.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from inlong_proto.cli import corpus as corpus_module

ERROR_KEYS = ("offset", "length")  # and error.kind, error.offset: what the reject and cut rules compare
TIMEOUT_S = 60


class Outcome:
    """One check: a case, or one cut of a stream case, under one rule."""

    __slots__ = ("case", "rule", "cut", "status", "problems")

    def __init__(self, case: dict, rule: str, cut: int | None = None):
        self.case, self.rule, self.cut = case, rule, cut
        self.status, self.problems = "passed", []

    def to_dict(self) -> dict:
        out = {"case": self.case["id"], "protocol": self.case["protocol"], "rule": self.rule,
               "status": self.status}
        if self.cut is not None:
            out["cut"] = self.cut
        if self.problems:
            out["problems"] = self.problems
        return out


# ------------------------------------------------------------------------------------------ comparisons
def _same(a, b) -> bool:
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def diff(expected, got, path: str, out: list[str], limit: int = 20) -> None:
    """Every difference between two plain JSON values, as 'path: expected X, got Y' (at most limit)."""
    if len(out) >= limit:
        return
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in expected:
            if key not in got:
                out.append(f"{path}.{key}: missing (expected {_short(expected[key])})")
            else:
                diff(expected[key], got[key], f"{path}.{key}", out, limit)
        for key in got:
            if key not in expected:
                out.append(f"{path}.{key}: not expected (got {_short(got[key])})")
    elif isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            out.append(f"{path}: {len(got)} elements, expected {len(expected)}")
        for index, (a, b) in enumerate(zip(expected, got)):
            diff(a, b, f"{path}[{index}]", out, limit)
    elif not _same(expected, got):
        out.append(f"{path}: expected {_short(expected)}, got {_short(got)}")


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _where(item: dict, index: int) -> str:
    return f"item {index} @{item.get('offset')}"


def _error_view(item: dict) -> dict:
    error = item.get("error") if isinstance(item.get("error"), dict) else {}
    return {**{k: item.get(k) for k in ERROR_KEYS}, "error": {"kind": error.get("kind"), "offset": error.get("offset")}}


def compare_items(expected: list[dict], got: list[dict]) -> list[str]:
    """decode, payload, reject and cut: item for item; frames every field, error spans by offset, length,
    error.kind and error.offset."""
    problems = []
    if len(got) != len(expected):
        problems.append(f"{len(got)} items, expected {len(expected)} "
                        f"(at offsets {[i.get('offset') for i in got]}, expected {[i['offset'] for i in expected]})")
    for index, (want, have) in enumerate(zip(expected, got)):
        if not isinstance(have, dict):
            problems.append(f"{_where(want, index)}: not a JSON object")
        elif "error" in want:
            if "error" not in have:
                problems.append(f"{_where(want, index)}: a frame where an error span is expected")
            else:
                diff(_error_view(want), _error_view(have), _where(want, index), problems)
        elif "error" in have:
            problems.append(f"{_where(want, index)}: an error span where a frame is expected: "
                            f"{_short(have['error'])}")
        else:
            diff(want, have, _where(want, index), problems)
    return problems


def _cover(items: list[dict]) -> set[int]:
    return {b for i in items if "error" in i for b in range(i["offset"], i["offset"] + i["length"])}


def compare_recovery(expected: list[dict], got: list[dict]) -> list[str]:
    """recover: the same frames at the same offsets, and error spans covering exactly the same bytes."""
    if not all(isinstance(i, dict) and isinstance(i.get("offset"), int) and isinstance(i.get("length"), int)
               for i in got):
        return ["every item needs an integer offset and length"]
    problems = []
    frames = {i["offset"]: i for i in got if "error" not in i}
    for item in expected:
        if "error" in item:
            continue
        if item["offset"] not in frames:
            problems.append(f"frame @{item['offset']} ({item.get('message_type')}) not recovered")
        else:
            diff(item, frames.pop(item["offset"]), f"frame @{item['offset']}", problems)
    problems += [f"frame @{offset}: not expected" for offset in sorted(frames)]
    want, have = _cover(expected), _cover(got)
    if want != have:
        missing, extra = sorted(want - have), sorted(have - want)
        problems.append(f"error spans cover {len(have)} bytes, expected {len(want)}"
                        + (f"; uncovered from @{missing[0]}" if missing else "")
                        + (f"; covered beyond from @{extra[0]}" if extra else ""))
    return problems


def cut_points(items: list[dict], size: int, cuts: str) -> list[int]:
    """The prefixes the cut rule checks: every byte, or, for `sample`, each frame's start, start + 1, middle
    and end - 1, or N evenly spread."""
    if cuts == "every":
        return list(range(1, size))
    if cuts == "sample":
        points = set()
        for item in items:
            start, length = item["offset"], item["length"]
            points.update((start, start + 1, start + length // 2, start + length - 1))
        return sorted(k for k in points if 0 < k < size)
    count = int(cuts)
    return sorted({max(1, size * (n + 1) // (count + 1)) for n in range(count)} - {size})


def cut_expected(items: list[dict], k: int) -> list[dict]:
    whole = [i for i in items if i["offset"] + i["length"] <= k]
    start = max((i["offset"] + i["length"] for i in whole), default=0)
    if start < k:
        whole.append({"offset": start, "length": k - start, "error": {"kind": "truncated", "offset": k}})
    return whole


# ------------------------------------------------------------------------------------------ running
def parse_output(text: str):
    """The items a decoder printed (JSON lines or one array); a str when it printed something else."""
    text = text.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"not JSON: {exc}"
        return value if isinstance(value, list) else "not a JSON array"
    items = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError:
                return f"line {number} is not JSON: {_short(line)}"
    return items


def run_command(command: str, data: bytes, case: dict, rule: str, payload: bool = False):
    env = dict(os.environ, INLONG_TCK_PROTOCOL=case["protocol"], INLONG_TCK_DIRECTION=case["direction"] or "",
               INLONG_TCK_PAYLOAD="1" if payload else "", INLONG_TCK_RULE=rule, INLONG_TCK_CASE=case["id"])
    try:
        return subprocess.run(command, shell=True, input=data, capture_output=True, env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def _not_covered(items) -> str | None:
    if isinstance(items, list) and len(items) == 1 and isinstance(items[0], dict) and "not_covered" in items[0]:
        return str(items[0]["not_covered"])
    return None


def check_decode(command: str, root: Path, case: dict, rule: str, cut: int | None, expected: list[dict]) -> Outcome:
    outcome = Outcome(case, rule, cut)
    data = (root / case["input"]).read_bytes()
    if cut is not None:
        data, expected = data[:cut], cut_expected(expected, cut)
    result = run_command(command, data, case, rule, payload=case["rule"] == "payload")
    if result is None:
        outcome.status, outcome.problems = "failed", [f"no answer in {TIMEOUT_S} s"]
        return outcome
    items = parse_output(result.stdout.decode("utf-8", "replace"))
    reason = _not_covered(items)
    if reason is not None:
        outcome.status, outcome.problems = "not covered", [reason]
        return outcome
    if isinstance(items, str):
        problems = [f"{items} (exit {result.returncode}; stderr: {_short(result.stderr.decode('utf-8', 'replace'))})"]
    elif rule == "recover":
        problems = compare_recovery(expected, items)
    else:
        problems = compare_items(expected, items)
        if problems and not items and result.returncode:
            problems.insert(0, f"exit {result.returncode}: {_short(result.stderr.decode('utf-8', 'replace'))}")
    if problems:
        outcome.status, outcome.problems = "failed", problems
    return outcome


def check_encode(command: str, root: Path, case: dict, expected: list[dict]) -> Outcome:
    outcome = Outcome(case, "encode")
    data = (root / case["input"]).read_bytes()
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in expected).encode("utf-8")
    result = run_command(command, lines, case, "encode")
    if result is None:
        outcome.status, outcome.problems = "failed", [f"no answer in {TIMEOUT_S} s"]
    elif result.stdout.strip().startswith(b'{"not_covered"'):
        outcome.status, outcome.problems = "not covered", [result.stdout.decode("utf-8", "replace").strip()]
    elif result.stdout != data:
        got = result.stdout
        first = next((i for i, (a, b) in enumerate(zip(data, got)) if a != b), min(len(data), len(got)))
        outcome.status = "failed"
        outcome.problems = [f"{len(got)} bytes, expected {len(data)}; first difference @{first}"
                            + (f" (exit {result.returncode}: {_short(result.stderr.decode('utf-8', 'replace'))})"
                               if result.returncode else "")]
    return outcome


def plan(manifest: dict, protocols: tuple, rules: tuple, cuts: str, decoder: bool, encoder: bool):
    """(case, rule, cut) of every check to run."""
    for case in manifest["cases"]:
        if protocols and case["protocol"] not in protocols:
            continue
        if decoder:
            if not rules or case["rule"] in rules:
                yield case, case["rule"], None
            if case.get("cut") and (not rules or "cut" in rules) and cuts != "none":
                yield case, "cut", "cuts"
        if encoder and case.get("encode") and (not rules or "encode" in rules):
            yield case, "encode", None


def run_kit(root: Path, decoder: str | None, encoder: str | None, protocols: tuple = (), rules: tuple = (),
            cuts: str = "sample", jobs: int = 2, not_covered: tuple = ()) -> list[Outcome]:
    """Every check of the corpus at root against the commands; the outcomes in manifest order."""
    manifest = corpus_module.load(root)
    tasks = []
    for case, rule, cut in plan(manifest, protocols, rules, cuts, decoder is not None, encoder is not None):
        expected = json.loads((root / case["expected"]).read_text())
        if any(entry in (rule, f"{rule}:{case['protocol']}", case["protocol"]) for entry in not_covered):
            outcome = Outcome(case, rule)
            outcome.status, outcome.problems = "not covered", ["declared with --not-covered"]
            tasks.append(outcome)
        elif rule == "encode":
            tasks.append((check_encode, encoder, root, case, expected))
        elif cut == "cuts":
            tasks += [(check_decode, decoder, root, case, "cut", k, expected)
                      for k in cut_points(expected, case["size"], cuts)]
        else:
            tasks.append((check_decode, decoder, root, case, rule, None, expected))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = [task if isinstance(task, Outcome) else pool.submit(task[0], *task[1:]) for task in tasks]
        return [f if isinstance(f, Outcome) else f.result() for f in futures]


def summary(outcomes: list[Outcome]) -> dict:
    """{protocol: {rule: {"passed": n, "failed": n, "not covered": n}}}"""
    table: dict = {}
    for outcome in outcomes:
        cell = table.setdefault(outcome.case["protocol"], {}).setdefault(
            outcome.rule, {"passed": 0, "failed": 0, "not covered": 0})
        cell[outcome.status] += 1
    return table


def render(outcomes: list[Outcome], verbose: bool) -> str:
    lines = [f"{'protocol':<18}{'rule':<9}{'passed':>8}{'failed':>8}{'not covered':>13}"]
    for protocol, rules in summary(outcomes).items():
        for rule, cell in rules.items():
            lines.append(f"{protocol:<18}{rule:<9}{cell['passed']:>8}{cell['failed']:>8}{cell['not covered']:>13}")
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed if verbose else failed[:20]:
        where = f" (first {outcome.cut} bytes)" if outcome.cut is not None else ""
        lines.append(f"FAIL {outcome.rule} {outcome.case['id']}{where}: " + "; ".join(outcome.problems[:5]))
    if len(failed) > 20 and not verbose:
        lines.append(f"... {len(failed) - 20} more failures (-v, or --report FILE)")
    counts = {s: sum(o.status == s for o in outcomes) for s in ("passed", "failed", "not covered")}
    lines.append(f"{len(outcomes)} checks: {counts['passed']} passed, {counts['failed']} failed, "
                 f"{counts['not covered']} not covered")
    return "\n".join(lines)


@click.command()
@click.option("--decoder", metavar="CMD", help="A decoder command: the bytes on stdin, the decode shape out.")
@click.option("--encoder", metavar="CMD", help="An encoder command: the decode shape in, the bytes out.")
@click.option("--corpus", "corpus_dir", type=click.Path(exists=True, file_okay=False),
              help="An exported corpus (default: exported from the clone's tests/vectors into a temporary folder).")
@click.option("--protocol", "-p", "protocols", multiple=True, help="Only this protocol (repeat).")
@click.option("--rule", "rules", multiple=True, type=click.Choice(sorted(corpus_module.RULES)),
              help="Only this rule (repeat).")
@click.option("--cuts", default="sample", show_default=True,
              help="The prefixes the cut rule checks: every (each byte), sample (each frame's start, start + 1, "
                   "middle and end - 1), none, or a number of prefixes spread evenly.")
@click.option("--not-covered", "not_covered", multiple=True, metavar="RULE[:PROTOCOL]",
              help="What the commands do not cover (a rule, rule:protocol or a protocol): reported as not "
                   "covered, not run (repeat).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Commands run at a time.")
@click.option("--report", type=click.Path(dir_okay=False), help="Also write every check's outcome as JSON here.")
@click.option("--verbose", "-v", is_flag=True, help="List every failure.")
def tck(decoder, encoder, corpus_dir, protocols, rules, cuts, not_covered, jobs, report, verbose):
    """Run a foreign DECODER (and/or ENCODER) over the conformance corpus and compare field by field.

    CMD runs through sh -c once per input, with INLONG_TCK_PROTOCOL, INLONG_TCK_DIRECTION (empty: the frame
    says), INLONG_TCK_PAYLOAD (1 or empty), INLONG_TCK_RULE and INLONG_TCK_CASE in its environment; a decoder
    reads the bytes on stdin and prints JSON lines (or one array) in the shape `decode` prints; an encoder
    reads those lines and writes the bytes. Prints passed / failed / not covered per protocol and rule, and
    each failure with its offsets; exit status 1 when anything failed."""
    if not decoder and not encoder:
        raise click.UsageError("give --decoder CMD, --encoder CMD or both")
    if cuts not in ("every", "sample", "none") and not (cuts.isdigit() and int(cuts) > 0):
        raise click.BadParameter("every, sample, none or a positive number", param_hint="--cuts")
    with tempfile.TemporaryDirectory(prefix="inlong-tck-") as scratch:
        root = Path(corpus_dir) if corpus_dir else Path(scratch)
        if not corpus_dir:
            corpus_module.export(root)
        outcomes = run_kit(root, decoder, encoder, protocols, rules, cuts, jobs, not_covered)
    if not outcomes:
        raise click.UsageError("no check matches --protocol / --rule")
    click.echo(render(outcomes, verbose))
    if report:
        Path(report).write_text(json.dumps({"summary": summary(outcomes),
                                            "checks": [o.to_dict() for o in outcomes]}, indent=1) + "\n")
    sys.exit(1 if any(o.status == "failed" for o in outcomes) else 0)

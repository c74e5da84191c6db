"""The test kit for foreign decoders and encoders (issue 29): ``inlong-proto tck --decoder CMD`` runs any
command over the conformance corpus (inlong_proto.cli.corpus) and compares what it prints, field by field,
with the expected values; ``--encoder CMD`` the reverse.

The contract (docs/how-to/client-authors.md states it for client authors):

* CMD runs through ``sh -c`` once per input, the input's bytes on stdin, and these in its environment:
  INLONG_TCK_PROTOCOL (a protocol name), INLONG_TCK_DIRECTION (request, response or empty: the frame says),
  INLONG_TCK_PAYLOAD (1 when the payload layer is asked for, else empty), INLONG_TCK_RULE, INLONG_TCK_CASE.
* A decoder prints the items it finds, in the decode shape, as JSON lines or one JSON array; a decoder that
  cannot express a case prints ``{"not_covered": "why"}`` alone, and the case counts as not covered. An item
  that lacks some fields names them, ``"not_covered": {"payload": "why"}``: the other fields are compared,
  and a check that passes on them counts as partly covered, never as passed.
* An encoder reads the expected items as JSON lines and writes the bytes.
* With ``--batch``, a decoder runs once per batch of inputs instead: it reads one JSON line per input,
  ``{"case", "protocol", "direction", "payload", "rule", "data"}`` (data: the bytes in base64), and prints
  one JSON line per input, in order: the items as one array, or ``{"not_covered": "why"}``.
* ``run_kit`` also takes a Python function ``(data, env) -> stdout bytes`` for a command, run in this process
  (the kit's own tests compare most of the corpus so; an exception is a failed check with its message).

Exit status 0 when nothing failed (not covered is not a failure), 1 otherwise.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from inlong_proto.cli import corpus as corpus_module
from inlong_proto.core.plain import printable

ERROR_KEYS = ("offset", "length")  # and error.kind, error.offset: what the reject and cut rules compare
TIMEOUT_S = 60
BATCH_SIZE = 200  # inputs per run of a --batch decoder


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


def uncovered(item) -> dict:
    """The fields a decoder's item declares it cannot give: {"key": "why"} under "not_covered" (not compared)."""
    declared = item.get("not_covered") if isinstance(item, dict) else None
    return declared if isinstance(declared, dict) else {}


def _covered(want: dict, have: dict) -> tuple[dict, dict]:
    skip = set(uncovered(have)) | {"not_covered"}
    return ({k: v for k, v in want.items() if k not in skip}, {k: v for k, v in have.items() if k not in skip})


def _unchecked(want: dict, have: dict) -> str | None:
    """Why an expected error is not judged: the frame the decoder gave in its place declares the error's
    field (or a path above it) not covered, so the check belongs to a layer it does not read."""
    field = (want.get("error") or {}).get("field") or ""
    for key, why in uncovered(have).items():
        if field == key or field.startswith((key + ".", key + "[")):
            return f"{field} not checked: {why}"
    return None


def compare_items(expected: list[dict], got: list[dict], unjudged: list[str] | None = None) -> list[str]:
    """decode, payload, reject and cut: item for item; frames every field (but those an item declares not
    covered), error spans by offset, length, error.kind and error.offset. An expected error met by a frame
    that declares the error's field not covered goes to unjudged, when given, instead of the problems."""
    problems = []
    if len(got) != len(expected):
        problems.append(f"{len(got)} items, expected {len(expected)} "
                        f"(at offsets {[i.get('offset') for i in got]}, expected {[i['offset'] for i in expected]})")
    for index, (want, have) in enumerate(zip(expected, got)):
        if not isinstance(have, dict):
            problems.append(f"{_where(want, index)}: not a JSON object")
        elif "error" in want:
            if "error" not in have and unjudged is not None and _unchecked(want, have):
                unjudged.append(_unchecked(want, have))
            elif "error" not in have:
                problems.append(f"{_where(want, index)}: a frame where an error span is expected")
            else:
                diff(_error_view(want), _error_view(have), _where(want, index), problems)
        elif "error" in have:
            problems.append(f"{_where(want, index)}: an error span where a frame is expected: "
                            f"{_short(have['error'])}")
        else:
            diff(*_covered(want, have), _where(want, index), problems)
    return problems


def not_covered_fields(got) -> dict:
    """{"key": "why"} of every field the items declare not covered."""
    out = {}
    for item in got if isinstance(got, list) else ():
        out.update(uncovered(item))
    return out


def _cover(items: list[dict]) -> set[int]:
    return {b for i in items if "error" in i for b in range(i["offset"], i["offset"] + i["length"])}


def compare_recovery(expected: list[dict], got: list[dict]) -> list[str]:
    """recover: the same frames at the same offsets, and error spans covering exactly the same bytes. Items
    that share an offset (zero-length ones at a frame's end) are matched in order."""
    if not all(isinstance(i, dict) and isinstance(i.get("offset"), int) and isinstance(i.get("length"), int)
               for i in got):
        return ["every item needs an integer offset and length"]
    problems = []
    frames: dict[tuple[int, int], list[dict]] = {}
    for item in got:
        if "error" not in item:
            frames.setdefault((item["offset"], item["length"]), []).append(item)
    for item in expected:
        if "error" in item:
            continue
        found = frames.get((item["offset"], item["length"]))
        if not found:
            problems.append(f"frame @{item['offset']} ({item.get('message_type')}) not recovered")
        else:
            diff(*_covered(item, found.pop(0)), f"frame @{item['offset']}", problems)
    problems += [f"frame @{offset}: not expected" for (offset, _), left in sorted(frames.items()) for _ in left]
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


def cut_expected(items: list[dict], k: int, case: dict | None = None) -> list[dict]:
    """The cut rule: the items that end by k, then one error item for the rest. A case with
    `cut_connection` (an HTTP/2 stream) puts error.offset at the cut frame's start, and calls fewer bytes at
    the start than its `invalid_below` invalid."""
    whole = [i for i in items if i["offset"] + i["length"] <= k]
    start = max((i["offset"] + i["length"] for i in whole), default=0)
    if start < k:
        connection = (case or {}).get("cut_connection")
        kind, at = "truncated", k
        if connection:
            at = start
            if start == 0 and k < connection["invalid_below"]:
                kind = "invalid"
        whole.append({"offset": start, "length": k - start, "error": {"kind": kind, "offset": at}})
    return whole


def cut_view(got, k: int, case: dict, expected: list[dict]):
    """What the cut rule compares of a decoder's items for an HTTP/2 stream: calls the cut leaves open
    (zero-length `call` items at k whose stream's call does not end there in the whole stream) are advisory
    and left out, and the truncated error items after the last whole item (a header block's whole frames,
    then the cut frame) count as one."""
    if not case.get("cut_connection") or not isinstance(got, list):
        return got
    ended = {i.get("stream_id") for i in expected if i.get("kind") == "call" and i["offset"] == k}
    out = []
    for item in got:
        if not isinstance(item, dict):
            out.append(item)
            continue
        if (item.get("kind") == "call" and item.get("offset") == k and item.get("length") == 0
                and item.get("stream_id") not in ended):
            continue
        last = out[-1] if out else None
        if ("error" in item and isinstance(last, dict) and "error" in last
                and _error_view(item)["error"]["kind"] == "truncated" == _error_view(last)["error"]["kind"]
                and isinstance(last.get("length"), int) and isinstance(item.get("length"), int)
                and last.get("offset", 0) + last["length"] == item.get("offset")):
            out[-1] = {**last, "length": last["length"] + item["length"]}
            continue
        out.append(item)
    return out


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


def _environment(case: dict, rule: str) -> dict:
    return {"INLONG_TCK_PROTOCOL": case["protocol"], "INLONG_TCK_DIRECTION": case["direction"] or "",
            "INLONG_TCK_PAYLOAD": "1" if case["rule"] == "payload" and rule != "encode" else "",
            "INLONG_TCK_RULE": rule, "INLONG_TCK_CASE": case["id"]}


def run_command(command, data: bytes, env: dict):
    """A CompletedProcess of command (sh -c, or a Python function run here) on data; None after TIMEOUT_S."""
    if callable(command):
        try:
            return subprocess.CompletedProcess((), 0, command(data, env), b"")
        except Exception as exc:  # noqa: BLE001  (a function's failure is the check's failure, with its message)
            return subprocess.CompletedProcess((), 1, b"", f"{type(exc).__name__}: {exc}".encode())
    try:
        return subprocess.run(command, shell=True, input=data, capture_output=True, env={**os.environ, **env},
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def check_starts(option: str, command: str) -> None:
    """A command the shell cannot start (exit 127: not found, 126: not executable) is one usage error, not
    the failure of every check."""
    done = run_command(command, b"", {})
    if done is not None and done.returncode in (126, 127):
        said = done.stderr.decode(errors="replace").strip().splitlines()
        raise click.UsageError(f"{option} {command!r}: the shell cannot run it "
                               f"({printable(said[-1]) if said else f'exit {done.returncode}'})")


def _not_covered(items) -> str | None:
    if isinstance(items, dict) and "not_covered" in items:
        items = [items]
    if isinstance(items, list) and len(items) == 1 and isinstance(items[0], dict) \
            and isinstance(items[0].get("not_covered"), str):
        return items[0]["not_covered"]
    return None


class Check:
    """One decode check to run: its input (the case's bytes, or a cut of them) and what is expected."""

    def __init__(self, root: Path, case: dict, rule: str, cut: int | None, expected: list[dict]):
        self.case, self.rule, self.cut = case, rule, cut
        self.data = (root / case["input"]).read_bytes()
        self.expected = expected
        if cut is not None:
            self.data, self.expected = self.data[:cut], cut_expected(expected, cut, case)

    def judge(self, items, result: subprocess.CompletedProcess | None) -> Outcome:
        """The outcome of what the decoder printed (items: parsed, or a str saying why not)."""
        outcome = Outcome(self.case, self.rule, self.cut)
        if result is None:
            outcome.status, outcome.problems = "failed", [f"no answer in {TIMEOUT_S} s"]
            return outcome
        reason = _not_covered(items)
        if reason is not None:
            outcome.status, outcome.problems = "not covered", [reason]
            return outcome
        stderr = _short(result.stderr.decode("utf-8", "replace"))
        unjudged: list[str] = []  # expected errors of a layer the decoder declares not covered
        if isinstance(items, str):
            problems = [f"{items} (exit {result.returncode}; stderr: {stderr})"]
        elif self.rule == "recover":
            problems = compare_recovery(self.expected, items)
        else:
            if self.cut is not None:
                items = cut_view(items, self.cut, self.case, self.expected)
            problems = compare_items(self.expected, items, unjudged)
            if problems and not items and result.returncode:
                problems.insert(0, f"exit {result.returncode}: {stderr}")
        fields = not_covered_fields(items)
        if problems:
            outcome.status, outcome.problems = "failed", problems
        elif unjudged:
            outcome.status, outcome.problems = "not covered", unjudged
        elif fields:
            outcome.status = "partly covered"
            outcome.problems = [f"{key} not covered: {why}" for key, why in sorted(fields.items())]
        return outcome


def check_decode(command, check: Check) -> Outcome:
    result = run_command(command, check.data, _environment(check.case, check.rule))
    items = parse_output(result.stdout.decode("utf-8", "replace")) if result is not None else None
    return check.judge(items, result)


def check_batch(command: str, checks: list[Check]) -> list[Outcome]:
    """A --batch decoder run once over checks: one JSON line in per input, one out."""
    lines = [json.dumps({"case": c.case["id"], "protocol": c.case["protocol"], "direction": c.case["direction"],
                         "payload": c.case["rule"] == "payload", "rule": c.rule,
                         "data": base64.b64encode(c.data).decode("ascii")}) + "\n" for c in checks]
    try:
        result = subprocess.run(command, shell=True, input="".join(lines).encode("utf-8"), capture_output=True,
                                timeout=TIMEOUT_S + len(checks))
    except subprocess.TimeoutExpired:
        result = None
    answers = result.stdout.decode("utf-8", "replace").splitlines() if result is not None else []
    outcomes = []
    for index, check in enumerate(checks):
        if index >= len(answers):
            items = f"no answer line for input {index + 1} of {len(checks)} in the batch"
        else:
            try:
                items = json.loads(answers[index])
            except json.JSONDecodeError:
                items = f"answer line {index + 1} is not JSON: {_short(answers[index])}"
            if not isinstance(items, (list, str)) and _not_covered(items) is None:
                items = f"answer line {index + 1} is not a JSON array"
        outcomes.append(check.judge(items, result))
    return outcomes


def check_encode(command, root: Path, case: dict, expected: list[dict]) -> Outcome:
    outcome = Outcome(case, "encode")
    data = (root / case["input"]).read_bytes()
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in expected).encode("utf-8")
    result = run_command(command, lines, _environment(case, "encode"))
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


def run_kit(root: Path, decoder=None, encoder=None, protocols: tuple = (), rules: tuple = (),
            cuts: str = "sample", jobs: int = 2, not_covered: tuple = (), batch: bool = False) -> list[Outcome]:
    """Every check of the corpus at root against the commands (sh -c command lines, or Python functions
    `(data, env) -> stdout bytes`, which run one at a time); the outcomes in manifest order. batch: the
    decoder takes many inputs per run (the --batch contract)."""
    manifest = corpus_module.load(root)
    slots: list = []  # an Outcome, an encode task, or a Check
    for case, rule, cut in plan(manifest, protocols, rules, cuts, decoder is not None, encoder is not None):
        expected = json.loads((root / case["expected"]).read_text())
        if any(entry in (rule, f"{rule}:{case['protocol']}", case["protocol"]) for entry in not_covered):
            outcome = Outcome(case, rule)
            outcome.status, outcome.problems = "not covered", ["declared with --not-covered"]
            slots.append(outcome)
        elif rule == "encode":
            slots.append((case, expected))
        elif cut == "cuts":
            slots += [Check(root, case, "cut", k, expected) for k in cut_points(expected, case["size"], cuts)]
        else:
            slots.append(Check(root, case, rule, None, expected))
    workers = 1 if callable(decoder) or callable(encoder) else max(1, jobs)
    with ThreadPoolExecutor(workers) as pool:
        checks = [slot for slot in slots if isinstance(slot, Check)]
        if batch:
            chunks = [checks[at:at + BATCH_SIZE] for at in range(0, len(checks), BATCH_SIZE)]
            done = {id(c): o for chunk, outcomes in zip(chunks, pool.map(lambda c: check_batch(decoder, c), chunks))
                    for c, o in zip(chunk, outcomes)}
        else:
            done = dict(zip(map(id, checks), pool.map(lambda c: check_decode(decoder, c), checks)))
        encoded = {id(slot): pool.submit(check_encode, encoder, root, *slot) for slot in slots
                   if isinstance(slot, tuple)}
        return [slot if isinstance(slot, Outcome) else done[id(slot)] if isinstance(slot, Check)
                else encoded[id(slot)].result() for slot in slots]


STATUSES = ("passed", "partly covered", "failed", "not covered")


def summary(outcomes: list[Outcome]) -> dict:
    """{protocol: {rule: {"passed": n, "partly covered": n, "failed": n, "not covered": n}}}"""
    table: dict = {}
    for outcome in outcomes:
        cell = table.setdefault(outcome.case["protocol"], {}).setdefault(outcome.rule, dict.fromkeys(STATUSES, 0))
        cell[outcome.status] += 1
    return table


def render(outcomes: list[Outcome], verbose: bool) -> str:
    lines = [f"{'protocol':<18}{'rule':<9}{'passed':>8}{'partly':>8}{'failed':>8}{'not covered':>13}"]
    for protocol, rules in summary(outcomes).items():
        for rule, cell in rules.items():
            lines.append(f"{protocol:<18}{rule:<9}{cell['passed']:>8}{cell['partly covered']:>8}"
                         f"{cell['failed']:>8}{cell['not covered']:>13}")
    fields = sorted({problem for o in outcomes if o.status == "partly covered" for problem in o.problems})
    lines += [f"partly: {problem}" for problem in fields]
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed if verbose else failed[:20]:
        where = f" (first {outcome.cut} bytes)" if outcome.cut is not None else ""
        lines.append(f"FAIL {outcome.rule} {outcome.case['id']}{where}: " + "; ".join(outcome.problems[:5]))
    if len(failed) > 20 and not verbose:
        lines.append(f"... {len(failed) - 20} more failures (-v, or --report FILE)")
    counts = {s: sum(o.status == s for o in outcomes) for s in STATUSES}
    lines.append(f"{len(outcomes)} checks: {counts['passed']} passed, {counts['failed']} failed, "
                 f"{counts['not covered']} not covered"
                 + (f", {counts['partly covered']} partly covered" if counts["partly covered"] else ""))
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
@click.option("--batch", is_flag=True,
              help="The decoder takes many inputs per run: JSON lines in ({case, protocol, direction, payload, "
                   "rule, data: base64}), one JSON line out per input (an array of items, or {not_covered}).")
@click.option("--verbose", "-v", is_flag=True, help="List every failure.")
def tck(decoder, encoder, corpus_dir, protocols, rules, cuts, not_covered, jobs, report, batch, verbose):
    """Run a foreign DECODER (and/or ENCODER) over the conformance corpus and compare field by field.

    CMD runs through sh -c once per input, with INLONG_TCK_PROTOCOL, INLONG_TCK_DIRECTION (empty: the frame
    says), INLONG_TCK_PAYLOAD (1 or empty), INLONG_TCK_RULE and INLONG_TCK_CASE in its environment; a decoder
    reads the bytes on stdin and prints JSON lines (or one array) in the shape `decode` prints; an encoder
    reads those lines and writes the bytes. An item may name fields it cannot give under "not_covered"
    ({"payload": "why"}): the rest is compared and the check is partly covered. Prints passed / partly
    covered / failed / not covered per protocol and rule, and each failure with its offsets; exit status 1
    when anything failed."""
    if not decoder and not encoder:
        raise click.UsageError("give --decoder CMD, --encoder CMD or both")
    if cuts not in ("every", "sample", "none") and not (cuts.isdigit() and int(cuts) > 0):
        raise click.BadParameter("every, sample, none or a positive number", param_hint="--cuts")
    for option, command in (("--decoder", decoder), ("--encoder", encoder)):
        if command:
            check_starts(option, command)
    with tempfile.TemporaryDirectory(prefix="inlong-tck-") as scratch:
        root = Path(corpus_dir) if corpus_dir else Path(scratch)
        if not corpus_dir:
            corpus_module.export(root, corpus_module.find_vectors("--corpus DIR (written by `corpus export`)"))
        outcomes = run_kit(root, decoder, encoder, protocols, rules, cuts, jobs, not_covered, batch)
    if not outcomes:
        raise click.UsageError("no check matches --protocol / --rule")
    click.echo(render(outcomes, verbose))
    if report:
        Path(report).write_text(json.dumps({"summary": summary(outcomes),
                                            "checks": [o.to_dict() for o in outcomes]}, indent=1) + "\n")
    sys.exit(1 if any(o.status == "failed" for o in outcomes) else 0)

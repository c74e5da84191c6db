"""Issue 29: the conformance corpus (`inlong-proto corpus export`) and the kit (`inlong-proto tck`), which tests
itself by running this project's own two backends through it: as foreign commands (sh -c, one process per
input) over a sample of the corpus, and over the whole corpus as the same commands run in this process."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from inlong_proto.cli import main
from inlong_proto.cli import corpus, tck

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# this project's decoder and encoder, as a foreign client author would call theirs
DECODER = (f'{PYTHON} -m inlong_proto decode -p "$INLONG_TCK_PROTOCOL" ${{INLONG_TCK_DIRECTION:+-d "$INLONG_TCK_DIRECTION"}}'
           ' ${INLONG_TCK_PAYLOAD:+--payload} --mode permissive -T jsonl -')
ENCODER = f'{PYTHON} -m inlong_proto encode -p "$INLONG_TCK_PROTOCOL"'


def in_process_decoder(scratch: Path):
    """DECODER's command line, run in this process (click's runner; the input as a file, as decode reads
    stdin with os.read)."""
    def decoder(data: bytes, env: dict) -> bytes:
        path = scratch / "input.bin"
        path.write_bytes(data)
        args = ["decode", "-p", env["INLONG_TCK_PROTOCOL"], "--mode", "permissive", "-T", "jsonl", str(path)]
        args[3:3] = (["-d", env["INLONG_TCK_DIRECTION"]] if env["INLONG_TCK_DIRECTION"] else []) + (
            ["--payload"] if env["INLONG_TCK_PAYLOAD"] else [])
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        return result.stdout_bytes
    return decoder


def in_process_encoder(data: bytes, env: dict) -> bytes:
    """ENCODER's command line, run in this process."""
    result = CliRunner().invoke(main, ["encode", "-p", env["INLONG_TCK_PROTOCOL"]], input=data)
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    result = CliRunner().invoke(main, ["corpus", "export", str(out)])
    assert result.exit_code == 0, result.output
    assert "cases" in result.output
    return out


def test_manifest_matches_its_schema(exported):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "specs" / "corpus" / "manifest.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(corpus.load(exported), schema)


def test_every_case_has_its_bytes_and_expected_items(exported):
    manifest = corpus.load(exported)
    assert manifest["version"] == corpus.CORPUS_VERSION
    for case in manifest["cases"]:
        data = (exported / case["input"]).read_bytes()
        assert len(data) == case["size"] and hashlib.sha256(data).hexdigest() == case["sha256"], case["id"]
        items = json.loads((exported / case["expected"]).read_text())
        assert isinstance(items, list) and items, case["id"]
        assert sum("error" not in i for i in items) == case["frames"], case["id"]
        if case["rule"] in ("decode", "payload"):
            assert case["errors"] == 0, case["id"]
        if case["rule"] == "reject":
            assert case["errors"] >= 1, case["id"]
        if case["rule"] == "payload":
            assert all("payload" in i for i in items), case["id"]
        # frames plus error spans tile the input
        assert [i["offset"] for i in items] == [0] + [i["offset"] + i["length"] for i in items[:-1]], case["id"]
        assert items[-1]["offset"] + items[-1]["length"] == len(data), case["id"]


def test_every_protocol_direction_and_rule_is_covered(exported):
    cases = corpus.load(exported)["cases"]
    seen = {(c["protocol"], c["rule"], c["direction"]) for c in cases}
    for protocol in ("broadcast", "dataproxy", "tubemq", "eventmesh"):
        for direction in ("request", "response"):
            assert any(p == protocol and d == direction for p, _, d in seen), (protocol, direction)
            assert (protocol, "recover", direction) in seen
            assert any(c["id"] == f"{protocol}/stream_{direction}" and c.get("cut") for c in cases)
        assert any(p == protocol and r == "reject" for p, r, _ in seen), protocol
        assert any(c["protocol"] == protocol and c.get("encode") for c in cases), protocol
    assert {"eventmesh-http", "eventmesh-legacy", "eventmesh-grpc"} <= {c["protocol"] for c in cases}
    for direction in ("request", "response"):  # gRPC: streams cut at every byte, damaged dumps, hostile frames
        grpc = [c for c in cases if c["protocol"] == "eventmesh-grpc" and c["direction"] == direction]
        hostile = {"reject"} if direction == "request" else set()  # the hostile streams are the client's
        assert {c["rule"] for c in grpc} == {"decode", "recover"} | hostile
        assert all(c["cut"] and c["source"] == "library-produced" for c in grpc if c["rule"] == "decode")
    assert ("dataproxy", "payload", "request") in seen and ("dataproxy", "payload", "response") in seen
    assert {c["source"] for c in cases} >= {"upstream-produced", "sdk-exact", "spec", "hostile", "recovery"}
    # every valid frame of the framed protocols encodes back exactly (the encode rule)
    assert all(c.get("encode") for c in cases
               if c["rule"] == "decode" and c["protocol"] in corpus.FRAMED and "vector" in c)


@pytest.mark.parametrize("case_id", ["broadcast/stream_request", "broadcast/stream_response",
                                     "dataproxy/stream_request", "dataproxy/stream_response",
                                     "eventmesh-grpc/conversation_request", "eventmesh-grpc/capture_response"])
def test_the_cut_rule_holds_at_every_byte(exported, case_id):
    """The rule written in the manifest, checked in process at every byte of the smaller streams (the gRPC
    ones: a header block in CONTINUATION pieces, a response stream without a preface)."""
    case = next(c for c in corpus.load(exported)["cases"] if c["id"] == case_id)
    data = (exported / case["input"]).read_bytes()
    items = json.loads((exported / case["expected"]).read_text())
    for k in tck.cut_points(items, len(data), "every"):
        got = corpus.decode_items(data[:k], case["protocol"], case["direction"])
        want = tck.cut_expected(items, k, case)
        assert tck.compare_items(want, tck.cut_view(got, k, case, want)) == [], k


def test_the_connection_form_of_the_cut_rule():
    case = {"cut_connection": {"invalid_below": 24}}
    frames = [{"offset": 0, "length": 24, "kind": "frame"}, {"offset": 24, "length": 30, "kind": "frame"},
              {"offset": 54, "length": 0, "kind": "call", "stream_id": 1}]
    assert tck.cut_expected(frames, 10, case)[-1] == {"offset": 0, "length": 10,
                                                      "error": {"kind": "invalid", "offset": 0}}
    assert tck.cut_expected(frames, 40, case)[-1] == {"offset": 24, "length": 16,
                                                      "error": {"kind": "truncated", "offset": 24}}
    assert tck.cut_expected(frames, 54, case) == frames  # the call the frame ends comes with it
    assert tck.cut_expected(frames[:2], 40)[-1]["error"]["offset"] == 40  # the framed form: where the input ends
    # a header block's whole frames and the cut frame count as one span; an open call at the cut is advisory
    got = [frames[0], {"offset": 24, "length": 9, "error": {"kind": "truncated", "offset": 24}},
           {"offset": 33, "length": 7, "error": {"kind": "truncated", "offset": 33}},
           {"offset": 40, "length": 0, "kind": "call", "stream_id": 3, "complete": False}]
    want = tck.cut_expected(frames, 40, case)
    assert tck.compare_items(want, tck.cut_view(got, 40, case, want)) == []
    assert tck.compare_items(want, got) != []


def test_comparison_names_the_field_and_the_offset():
    want = [{"protocol": "broadcast", "offset": 0, "length": 37, "body": {"data_request": {"last_data": 99}}},
            {"protocol": "broadcast", "offset": 37, "length": 5, "error": {"kind": "truncated", "offset": 42,
                                                                          "field": "", "reason": "x"}}]
    got = json.loads(json.dumps(want))
    got[0]["body"]["data_request"]["last_data"] = 98
    got[1]["error"]["reason"] = "worded otherwise"  # advisory: not compared
    assert tck.compare_items(want, got) == ["item 0 @0.body.data_request.last_data: expected 99, got 98"]
    got[0]["body"]["data_request"]["last_data"] = True  # a bool is not the number 1
    assert tck.compare_items([{"offset": 0, "x": 1}], [{"offset": 0, "x": True}]) == ["item 0 @0.x: expected 1, got true"]
    assert tck.compare_items(want, got[:1])[0].startswith("1 items, expected 2")
    # recovery: the same frames, error spans over the same bytes however they are split
    damaged = [{"offset": 0, "length": 4, "m": 1}, {"offset": 4, "length": 6, "error": {"kind": "invalid"}},
               {"offset": 10, "length": 4, "m": 2}]
    split = [damaged[0], {"offset": 4, "length": 2, "error": {"kind": "x"}},
             {"offset": 6, "length": 4, "error": {"kind": "y"}}, damaged[2]]
    assert tck.compare_recovery(damaged, split) == []
    assert "frame @10 (None) not recovered" in tck.compare_recovery(damaged, split[:3])
    # items sharing an offset (a gRPC message and a call at a frame's end) match in order
    shared = [{"offset": 0, "length": 4, "m": 1}, {"offset": 4, "length": 0, "m": 2},
              {"offset": 4, "length": 0, "m": 3}]
    assert tck.compare_recovery(shared, shared) == []
    assert tck.compare_recovery(shared, shared[:2]) == ["frame @4 (None) not recovered"]
    # fields an item declares not covered are not compared (the check is partly covered)
    partial = {**want[0], "body": None, "not_covered": {"body": "not in the parser"}}
    assert tck.compare_items(want[:1], [partial]) == []
    assert tck.not_covered_fields([partial]) == {"body": "not in the parser"}
    # an expected error of a layer the decoder's frame declares not covered is unjudged, not a problem
    rejected = [{"offset": 0, "length": 9, "error": {"kind": "invalid", "offset": 5, "field": "rpc.RequestBody"}}]
    frame = {"offset": 0, "length": 9, "not_covered": {"rpc": "protobuf"}}
    unjudged: list = []
    assert tck.compare_items(rejected, [frame], unjudged) == [] and unjudged == ["rpc.RequestBody not checked: protobuf"]
    assert tck.compare_items(rejected, [{**frame, "not_covered": {"rp": "x"}}], []) != []  # a path, not a prefix


def _kit(*args) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "inlong_proto", "tck", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=900)


@pytest.fixture(params=["python", "native"])
def backend(request, monkeypatch) -> str:
    if request.param == "native":
        from inlong_proto.backends import compiled

        if compiled.extension() is None:
            pytest.skip("the compiled backend is not built here")
    monkeypatch.setenv("INLONG_PROTO_BACKEND", request.param)
    return request.param


def test_the_kit_passes_this_projects_backends_as_foreign_commands(exported, tmp_path, backend):
    """The foreign-command path (sh -c, one process per input) over a sample: every decode and encode case of
    the broadcast protocol, and the gRPC streams."""
    report = tmp_path / "report.json"
    env = f"INLONG_PROTO_BACKEND={backend} "
    result = _kit("--corpus", str(exported), "-p", "broadcast", "-p", "eventmesh-grpc", "--rule", "decode",
                  "--rule", "encode", "--cuts", "none", "--decoder", env + DECODER, "--encoder", env + ENCODER,
                  "-j", "2", "--report", str(report))
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(report.read_text())["summary"]
    assert set(summary["broadcast"]) == {"decode", "encode"} and set(summary["eventmesh-grpc"]) == {"decode"}
    assert all(cell["passed"] and cell["passed"] == sum(cell.values()) for cells in summary.values()
               for cell in cells.values())


def test_the_kit_passes_this_projects_backends_over_the_whole_corpus(exported, tmp_path, backend):
    """The same commands over every case, run in this process (what a process per input would cost minutes)."""
    outcomes = tck.run_kit(exported, in_process_decoder(tmp_path), in_process_encoder, cuts="sample")
    summary = tck.summary(outcomes)
    rules = {(p, r) for p, cells in summary.items() for r in cells}
    for protocol in ("broadcast", "dataproxy", "tubemq", "eventmesh"):
        for rule in ("decode", "reject", "recover", "cut", "encode"):
            assert (protocol, rule) in rules
    for rule in ("decode", "reject", "recover", "cut"):
        assert ("eventmesh-grpc", rule) in rules
    assert ("dataproxy", "payload") in rules and ("eventmesh-http", "decode") in rules
    failed = [o.to_dict() for o in outcomes if o.status != "passed"]
    assert failed == []


def test_the_kit_reports_a_wrong_decoder_with_offsets(exported):
    # a decoder that drops the last item, and one that declares what it cannot do
    result = _kit("--corpus", str(exported), "-p", "broadcast", "--rule", "recover", "--rule", "cut", "--cuts", "2",
                  "--decoder", f"{DECODER} | head -n 1")
    assert result.returncode == 1
    assert "FAIL recover broadcast/damaged_request" in result.stdout
    assert "error spans cover" in result.stdout or "not recovered" in result.stdout
    assert "FAIL cut broadcast/stream_request (first 74 bytes): 1 items, expected 2" in result.stdout
    result = _kit("--corpus", str(exported), "-p", "broadcast", "--rule", "decode",
                  "--decoder", "cat >/dev/null; echo '{\"not_covered\": \"no broadcast here\"}'")
    assert result.returncode == 0, result.stdout
    assert "0 passed, 0 failed, 8 not covered" in result.stdout
    result = _kit("--corpus", str(exported), "-p", "broadcast", "--rule", "decode", "--not-covered", "decode",
                  "--decoder", "false")
    assert result.returncode == 0 and "8 not covered" in result.stdout


def test_a_command_the_shell_cannot_start_is_one_usage_error(exported, tmp_path):
    """Not 1,078 failed checks: one line, status 2 (issue 27: every failure of the command line is one line)."""
    (tmp_path / "decoder.sh").write_text("#!/bin/sh\n")  # not executable
    for option, command, said in (("--decoder", str(tmp_path / "missing"), "not found"),
                                  ("--encoder", str(tmp_path / "decoder.sh"), "Permission denied")):
        result = _kit("--corpus", str(exported), option, command)
        assert result.returncode == 2 and not result.stdout, result.stdout[-2000:]
        assert result.stderr.startswith(f"inlong-proto: error: tck: {option} ") and said in result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr


def test_export_replaces_an_old_corpus_and_refuses_other_folders(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["corpus", "export", str(tmp_path / "c")]).exit_code == 0
    stale = tmp_path / "c" / "frames" / "broadcast" / "gone.bin"
    stale.write_bytes(b"x")
    assert runner.invoke(main, ["corpus", "export", str(tmp_path / "c")]).exit_code == 0
    assert not stale.exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    result = runner.invoke(main, ["corpus", "export", str(tmp_path / "other")])
    assert result.exit_code == 1 and "holds no corpus" in result.output


def test_export_and_the_kit_find_the_vectors_of_the_clone_they_run_in(tmp_path, monkeypatch):
    """An installed package has no tests/vectors beside it: run from another folder, export and the kit say in
    one line what to do (not a missing site-packages folder, not "no check matches"); from a clone's root they
    read its tests/vectors."""
    monkeypatch.setattr(corpus, "SOURCE_VECTORS", tmp_path / "site-packages" / "tests" / "vectors")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["corpus", "export", "out"])
    assert result.exit_code == 1 and result.output == (
        "inlong-proto: error: no test vectors found: run this from the root of a clone of inlong-proto"
        " (it reads tests/vectors) or pass --vectors DIR\n")
    assert not (tmp_path / "out").exists()
    result = runner.invoke(main, ["tck", "-p", "broadcast", "--decoder", "false"])
    assert result.exit_code == 1 and "no test vectors found" in result.output
    assert "pass --corpus DIR" in result.output and "no check matches" not in result.output
    (tmp_path / "empty").mkdir()
    result = runner.invoke(main, ["corpus", "export", "out", "--vectors", "empty"])
    assert result.exit_code == 1
    assert result.output.startswith("inlong-proto: error: no test vectors in empty (it holds none of")
    monkeypatch.chdir(ROOT)
    assert corpus.find_vectors() == ROOT / "tests" / "vectors"

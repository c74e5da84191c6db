"""The protocol registry generated from the specs' registry blocks: every entry is complete and points at code
that exists, and every reader's protocol knowledge comes from it (issue 25, item 1)."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from inlong_proto.core import detect, protocols
from inlong_proto.generated.codec import PROTOCOLS as FRAME_CODECS
from tools.ksygen import registry

ROOT = Path(__file__).resolve().parent.parent
NAMES = list(protocols.REGISTRY)


def test_the_generated_registry_is_what_the_specs_say():
    assert protocols.REGISTRY == registry.entries(ROOT / "specs")


def test_every_protocol_a_reader_takes_is_registered_and_nothing_else():
    assert sorted(NAMES) == protocols.every_name()
    assert {n for n in NAMES if protocols.REGISTRY[n]["framing"] == "frames"} == set(FRAME_CODECS)


def _resolve(path: str):
    module, _, name = path.partition(":")
    loaded = importlib.import_module(module if "." in module else f"inlong_proto.{module}")
    return getattr(loaded, name) if name else loaded


@pytest.mark.parametrize("name", NAMES)
def test_each_entry_points_at_code_that_exists(name):
    entry = protocols.REGISTRY[name]
    assert entry["doc"] and (ROOT / "specs" / entry["spec"]).is_file()
    if entry["framing"] == "frames":
        protocols.get(name)  # its codecs load
    else:
        module = _resolve(entry["module"])
        assert all(hasattr(module, attr) for attr in ("HttpStreamDecoder", "iter_messages", "MESSAGE_TYPES"))
    if "extension" in entry:
        assert callable(_resolve(entry["extension"]).describe)
    if "payload_reader" in entry:
        assert callable(_resolve(entry["payload_reader"]).payload)
    if "payload_type" in entry:
        assert _resolve(entry["payload_type"]).JSON_KEYS
    if "connection" in entry:
        assert protocols.connection_context(name) is not None
    if "probe" in entry["detect"]:
        assert callable(_resolve(entry["detect"]["probe"]))
    for key in ("audit_reader", "dump_direction", "replay"):
        if key in entry:
            assert callable(_resolve(entry[key]))
    if "vectors" in entry:
        assert (ROOT / "tests" / "vectors" / entry["vectors"]).is_dir()


def test_ports_and_detection_order_come_from_the_registry():
    assert protocols.SERVER_PORTS[46801] == "dataproxy" and protocols.SERVER_PORTS[10205] == "eventmesh-grpc"
    assert detect.ORDER == ("eventmesh", "eventmesh-legacy", "tubemq", "dataproxy", "broadcast", "eventmesh-frame")
    assert protocols.DETECT_ORDER[:2] == ("eventmesh-grpc", "eventmesh-http")


def test_classify_is_content_first_then_the_server_port():
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    assert detect.classify(preface[:10]) == "eventmesh-grpc"
    assert detect.classify(b"POST /x HTTP/1.1\r\n") == "eventmesh-http"
    assert detect.classify(b"HTTP/1.1 200 OK\r\n") == "eventmesh-http"
    assert detect.classify(b"", b"", 8123) == "tubemq"
    assert detect.classify(b"\x00\x01", b"", 1) is None


@pytest.mark.parametrize("bad, message", [
    ({"framing": "frames", "doc": "x", "ports": [0], "detect": {"order": 1}}, "port"),
    ({"framing": "frames", "doc": "x", "ports": [], "detect": {}}, "order"),
    ({"framing": "http3", "doc": "x", "ports": [], "detect": {"order": 1}}, "framing"),
    ({"framing": "http1", "doc": "x", "ports": [], "detect": {"order": 1}}, "module"),
    ({"framing": "frames", "doc": "x", "ports": [], "detect": {"order": 1}, "colour": "red"}, "unknown"),
    ({"framing": "frames", "doc": "x", "ports": [], "detect": {"order": 1}, "audit-reader": "x.audit"}, "function"),
    ({"framing": "frames", "doc": "x", "ports": [], "detect": {"order": 1}, "vectors": "../x"}, "folder"),
])
def test_a_bad_registry_block_is_a_generation_error(bad, message):
    with pytest.raises(registry.GenerationError, match=message):
        registry._check("x.ksy", bad)


def test_the_protocol_guide_names_every_registry_key():
    """docs/how-to/add-a-protocol.md is the guide to the registry: every key a block may hold is in it."""
    guide = (ROOT / "docs" / "how-to" / "add-a-protocol.md").read_text()
    missing = [key for key in [*registry.KEYS, *registry.DETECT_KEYS, *registry.FRAMINGS] if f"{key}" not in guide]
    assert missing == []


def test_the_protocol_guides_example_block_is_one_make_generate_takes(tmp_path):
    """docs/how-to/add-a-protocol.md's `-inlong` example, as written, registers its protocol."""
    guide = (ROOT / "docs" / "how-to" / "add-a-protocol.md").read_text()
    example = re.search(r"^```yaml\n(.*?)^```", guide, re.S | re.M).group(1)
    (tmp_path / "myproto").mkdir()
    (tmp_path / "myproto" / "myproto.ksy").write_text(example)
    entry = registry.entries(tmp_path)["myproto"]
    assert (entry["framing"], entry["ports"], entry["detect"]) == ("frames", [12345], {"order": 45})


def test_every_compiled_layer_has_the_columns_it_reads():
    """The compiled backend reads a payload layer's input by the part the registry names, never by protocol."""
    from inlong_proto.backends import compiled

    assert set(protocols.COMPILED_LAYERS.values()) == set(compiled.LAYER_INPUTS)


def _protocol_names_in_code(path: Path) -> list[str]:
    """Protocol names written as string constants in a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in protocols.REGISTRY and id(node) not in docstrings]


def test_the_core_capture_backends_audit_and_corpus_name_no_protocol():
    """Everything they know of a protocol (ports, detection, payload layers, connection context, audit readers,
    replay, vector folders) is the registry's: no `if proto.name == "tubemq"` and no per-protocol table in the
    floors below the protocol packages, in the audit above them, or in the corpus export and audit commands."""
    folders = [ROOT / "inlong_proto" / name for name in ("core", "capture", "backends", "audit")]
    paths = [path for folder in folders for path in sorted(folder.rglob("*.py"))]
    paths += [ROOT / "inlong_proto" / "cli" / name for name in ("corpus.py", "audit.py")]
    found = [hit for path in paths for hit in _protocol_names_in_code(path)]
    assert found == []


def _valid_vectors() -> list:
    """Every valid frame vector the corpus exports, as decoded frames with the direction each was sent in."""
    from inlong_proto.cli import corpus
    from inlong_proto.core.frames import iter_frames

    return [(frame, frame.direction or direction)
            for protocol, _, direction, data, valid, *_ in corpus._vectors(ROOT / "tests" / "vectors") if valid
            for frame in iter_frames(data, protocol, direction, "PERMISSIVE") if frame.error is None]


def _legacy_sends(frames: list) -> list:
    """EventMesh TCP sends in the legacy length form (the legacy vectors hold a HELLO, a heartbeat, a reply)."""
    from inlong_proto.core.frames import encode, iter_frames
    from inlong_proto.eventmesh import tcp

    messages = [frame.payload for frame, direction in frames
                if frame.protocol == "eventmesh" and direction == "request"
                and frame.payload.command == tcp.Command.ASYNC_MESSAGE_TO_SERVER]
    data = b"".join(encode(tcp.frame(m.header, m.raw_body if m.protocol_type == "cloudevents" else m.body,
                                     legacy=True)) for m in messages)
    return [(frame, "request") for frame in iter_frames(data, "eventmesh-legacy", "request")]


def test_the_audit_reads_and_replay_renumbers_every_protocol_the_registry_names():
    """Every protocol whose registry names an `audit-reader` has its messages sent audited through it (from its
    vectors), and every one naming a `replay` re-sends them renumbered: the bytes read back as the same message
    with a fresh key (DataProxy's isAck=false dropped, so it is answered)."""
    from inlong_proto.audit.readers import events
    from inlong_proto.audit.replay import PROTOCOLS, fresh_request
    from inlong_proto.core.audit_events import Done, Sent
    from inlong_proto.core.frames import iter_frames

    frames = _valid_vectors()
    frames += _legacy_sends(frames)
    audited, replayed = set(), set()
    for frame, direction in frames:
        for event in events(frame, direction):
            sent = event.sent if isinstance(event, Done) else event
            if not isinstance(sent, Sent):
                continue
            audited.add(frame.protocol)
            if frame.protocol in PROTOCOLS:
                data, key = fresh_request(frame, 4242)
                again = [e for f in iter_frames(data, frame.protocol, "request") for e in events(f, "request")]
                assert len(again) == 1 and again[0].key == key is not None, frame
                assert (again[0].group, again[0].records, again[0].size) == (sent.group, sent.records, sent.size)
                assert key != sent.key or frame.protocol == "eventmesh-http"  # (HTTP/1.1 answers in order)
                replayed.add(frame.protocol)
    assert audited == set(protocols.AUDIT_READERS) >= {"dataproxy", "tubemq", "eventmesh", "eventmesh-grpc"}
    assert replayed == set(protocols.REPLAYERS) == set(PROTOCOLS)


def test_every_protocol_has_vectors_in_the_corpus():
    """The corpus reads each protocol's vectors from the folder its registry names (or its own name)."""
    from inlong_proto.cli import corpus

    assert {vector[0] for vector in corpus._vectors(ROOT / "tests" / "vectors")} == set(NAMES)

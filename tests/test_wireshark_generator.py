"""The Wireshark Lua generator (tools/ksygen/wireshark.py): every spec field gets a ProtoField, the committed
plugin is what the generator writes, and (where tshark is installed) the plugin loads, lists its fields and
dissects captures: several frames per segment, frames split across segments, heuristics on other ports,
the legacy EventMesh form, expert info on malformed frames."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.ksygen import wireshark  # noqa: E402
from tools.ksygen.model import Loader  # noqa: E402

from vectors import SERVER, T0, mixed_capture, talk, valid_frames  # noqa: E402
from inlong_proto.capture.writer import pcap_file  # noqa: E402

SPECS = ROOT / "specs"
PLUGIN = ROOT / "generated" / "wireshark" / "inlong_proto.lua"
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")


@pytest.fixture(scope="module", autouse=True)
def without_personal_plugins(tmp_path_factory):
    """tshark with HOME in a fresh folder: it loads this plugin only, never a copy the user installed."""
    home = tmp_path_factory.mktemp("tshark-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        patch.delenv("WIRESHARK_CONFIG_DIR", raising=False)
        yield


def frame_specs():
    loader = Loader(SPECS)
    return [spec for spec in (loader.load(p) for p in sorted(SPECS.rglob("*.ksy"))) if spec.root.options.get("frame")]


def reachable(spec):
    """Every (type, field) a frame can hold: its root, user types and switch cases, transitively."""
    seen, todo, out = set(), [spec.root], []
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        for attr in t.seq:
            out.append((t, attr))
            if attr.user_type is not None:
                todo.append(attr.user_type)
            todo += [case for _, case in attr.case_types]
    return out


def test_every_spec_field_has_a_protofield():
    names = wireshark.field_names(SPECS, ROOT)
    for spec in frame_specs():
        proto = wireshark.FOLD.get(spec.root.options["protocol"], (spec.root.options["protocol"],))[0].replace("-", "_")
        for t, attr in reachable(spec):
            assert any(n.startswith(proto + ".") and n.rsplit(".", 1)[1] == attr.id for n in names), \
                f"{t.where}: {attr.id} has no ProtoField"
    for example in ("dataproxy.total_len", "dataproxy.base_type", "dataproxy.bin_message.unique_id",
                    "tubemq.serial_no", "tubemq.blocks.block_len", "broadcast.data_response.data",
                    "eventmesh.package.header", "eventmesh.package_length"):
        assert example in names


def test_committed_plugin_is_what_the_generator_writes(tmp_path):
    written = wireshark.generate(SPECS, tmp_path, ROOT)
    for path in written:
        committed = ROOT / "generated" / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale: run make generate"


def test_ports_follow_capture_server_ports():
    from inlong_proto.capture import SERVER_PORTS

    assert wireshark.server_ports(ROOT) == SERVER_PORTS
    text = PLUGIN.read_text()
    for port, name in SERVER_PORTS.items():
        if name in ("dataproxy", "tubemq", "eventmesh"):
            assert f"[{port}] = true" in text


def tshark(*args: str, capture: Path | None = None) -> subprocess.CompletedProcess:
    cmd = [TSHARK] + (list(args[:2]) if args[:1] == ("-G",) else [])
    rest = args[2:] if args[:1] == ("-G",) else args
    cmd += ["-X", f"lua_script:{PLUGIN}", "-o", "tcp.reassemble_out_of_order:TRUE"] + list(rest)
    if capture is not None:
        cmd += ["-r", str(capture)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert "Lua Error:" not in result.stdout + result.stderr, (result.stdout + result.stderr)[-2000:]
    assert "Lua" not in result.stderr, result.stderr[-2000:]  # "Lua: Error during loading": the plugin not run
    assert '"_ws.lua.error"' not in result.stdout, result.stdout[-2000:]
    if args[:1] != ("-G",):
        assert "dissector error:" not in result.stdout, result.stdout[-2000:]
    return result


def frames(result: subprocess.CompletedProcess, proto: str) -> list[dict]:
    """The `proto` layers of tshark -T json output (several per packet when a segment holds several)."""
    def keep_repeats(pairs):  # tshark -T json repeats a key for each frame of a packet
        out: dict = {}
        for key, value in pairs:
            if key in out:
                out[key] = (out[key] if isinstance(out[key], list) else [out[key]]) + [value]
            else:
                out[key] = value
        return out

    found = []
    for packet in json.loads(result.stdout or "[]", object_pairs_hook=keep_repeats):
        layer = packet["_source"]["layers"].get(proto)
        if layer is not None:
            found += layer if isinstance(layer, list) else [layer]
    return found


@needs_tshark
def test_tshark_lists_the_fields():
    result = tshark("-G", "fields")
    listed = {line.split("\t")[2] for line in result.stdout.splitlines() if line.startswith("F\t")}
    assert wireshark.field_names(SPECS, ROOT) <= listed


@needs_tshark
# gRPC is HTTP/2, which Wireshark dissects itself: the generated dissectors are for the framed protocols
@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "tests" / "vectors" / "capture").glob("*.pcap*")
                                        if not p.name.startswith("eventmesh_grpc")))
def test_capture_vectors_decode(name):
    proto = name.split("_")[0]
    result = tshark("-T", "json", capture=ROOT / "tests" / "vectors" / "capture" / name)
    found = frames(result, proto)
    assert found, f"no {proto} frames in {name}"
    assert f"{proto}.malformed" not in result.stdout


@needs_tshark
def test_mixed_capture_every_protocol(tmp_path):
    data, flows = mixed_capture()
    path = tmp_path / "mixed.pcap"
    path.write_bytes(data)
    result = tshark("-T", "json", capture=path)
    counts = {proto: len(frames(result, proto)) for proto in ("broadcast", "dataproxy", "tubemq", "eventmesh")}
    # the project's own decoder on the same capture: as many frames per protocol
    decoded = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "--mode",
                              "dropmalformed", str(path)],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
    expected = {proto: 0 for proto in counts}
    for line in decoded.stdout.splitlines():
        protocol = json.loads(line).get("protocol")
        if protocol in expected:
            expected[protocol] += 1
    assert counts == expected
    for proto in counts:
        assert f"{proto}.malformed" not in result.stdout


@needs_tshark
def test_legacy_eventmesh_and_split_frames(tmp_path):
    legacy = valid_frames().get("eventmesh-legacy")
    if not legacy:
        pytest.skip("no legacy EventMesh vectors")
    stream = b"".join(legacy)
    # 40-byte segments on a port without a dissector (heuristic): every frame crosses segments, and
    # frames end and start inside one
    path = tmp_path / "legacy.pcap"
    path.write_bytes(pcap_file(talk(stream, b"", 31000, mss=40, turns=1), nano=True))
    found = frames(tshark("-T", "json", capture=path), "eventmesh")
    assert len(found) == len(legacy)
    assert all(f["eventmesh.length_form"] == "legacy" for f in found)


@needs_tshark
def test_malformed_frames_get_expert_errors(tmp_path):
    good = valid_frames()["dataproxy"][0]
    bad_type = good[:4] + b"\x1f" + good[5:]  # base_type 31: no such msg_type
    bad_magic = b"\xff\x7f\xf4\xff" + bytes(8)
    cases = {46801: (bad_type, "dataproxy.base_type"), 8715: (bad_magic, "tubemq.begin_token"),
             10000: (b"EventMesh0000" + (5).to_bytes(4, "big") + bytes(4), "eventmesh.package_length")}
    packets = []
    for number, (port, (payload, _)) in enumerate(cases.items()):
        packets += talk(payload, b"", port, client_port=42000 + number, t0=T0 + number * 10**6, turns=1)
    path = tmp_path / "malformed.pcap"
    path.write_bytes(pcap_file(sorted(packets), nano=True))
    result = tshark("-V", capture=path)
    for _, field in cases.values():
        assert f"{field}:" in result.stdout and "Malformed" in result.stdout, field
    assert SERVER in result.stdout

"""The generated Wireshark dissectors (generated/wireshark/inlong_proto.lua) in the real tshark (issue 15):
every capture gives, per flow and direction, the same frames as `inlong-proto decode -p auto` (count, order,
protocol) and the same value for every field both show; display filters pick the frames the decoder's own
filter picks; a malformed frame carries expert info; the README's tshark "screenshot" is what tshark prints.

One tshark run per capture (-T pdml: every field with its name, shown value, raw bytes and label); the
decoder's JSON path `a.b[i].c` of a frame of protocol P is the Lua field `P.a.b.c`, repeated fields in
order, and a switch's field is left out (`body.text_message.attr` is `dataproxy.text_message.attr`). Only
fields the plugin declares (`tshark -G fields`) are compared, and every one it declares must be shown
wherever the decoder shows that path. tshark runs with HOME in a fresh folder (no personal plugins or
preferences) and TZ=UTC. INLONG_PROTO_WIRESHARK_PLUGIN=PATH tests another plugin file (one being edited).
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from ipaddress import ip_address
from pathlib import Path
from typing import NamedTuple

import pytest

from inlong_proto.capture import CaptureDecoder, iter_capture_frames
from inlong_proto.capture.writer import Conversation, pcap_file
from vectors import FRAMES, STREAMS, T0, mixed_capture, reordered_talk, talk, valid_frames

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "tests" / "vectors" / "capture"
TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")

# the decoder's protocol -> the plugin's protocol (its display filter name); flows of other protocols
# (EventMesh HTTP and gRPC) must show none of the plugin's protocols
LUA_PROTOCOL = {"broadcast": "broadcast", "dataproxy": "dataproxy", "tubemq": "tubemq", "eventmesh": "eventmesh",
                "eventmesh-legacy": "eventmesh"}
PLUGIN_PROTOCOLS = sorted(set(LUA_PROTOCOL.values()))
SKIPPED_KEYS = {"protocol", "offset", "length"}  # where the frame lies, not what it holds
# tests/vectors.py mixed_capture() sorts its packets by (time, bytes), which puts the segments of one send
# out of order (a shorter last segment first), and the reordered captures swap and repeat segments;
# Wireshark reassembles those only with tcp.reassemble_out_of_order (off by default in 4.0), the decoder
# always does. tshark reads it, with the other TCP settings the plugin needs, from the preferences file that
# `inlong-proto wireshark install` writes into its fresh HOME (tshark_env), not from -o.
BRACKETED_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
INTEGER_TYPES = re.compile(r"FT_U?INT(8|16|24|32|40|48|56|64)$|FT_FRAMENUM$|FT_CHAR$")


# ------------------------------------------------------------------ tshark
@pytest.fixture(scope="session")
def plugin() -> Path:
    from inlong_proto.cli.wireshark import plugin_path

    return Path(os.environ.get("INLONG_PROTO_WIRESHARK_PLUGIN") or plugin_path())  # the variable: a plugin being edited


def fresh_env(home: Path) -> dict:
    """tshark's environment with HOME in `home` (no personal plugins or preferences of the user's)."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TZ": "UTC", "LC_ALL": "C.UTF-8"}
    env.pop("WIRESHARK_CONFIG_DIR", None)
    return env


@pytest.fixture(scope="session")
def tshark_env(tmp_path_factory) -> dict:
    """A fresh HOME holding only the TCP preferences `inlong-proto wireshark install` sets (no plugin)."""
    from inlong_proto.cli.wireshark import install_preferences, preferences_path

    env = fresh_env(tmp_path_factory.mktemp("tshark-home"))
    install_preferences(preferences_path(environ=env))
    return env


def tshark(plugin: Path, env: dict, *args: str, lua: bool = True) -> str:
    """tshark's stdout; fails on a non-zero status or a Lua error."""
    extra = ["-X", f"lua_script:{plugin}"] if lua else []
    if args and args[0] == "-G":  # -G must come first
        command = [TSHARK, *args[:2], *extra, *args[2:]]
    else:
        command = [TSHARK, *extra, *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-4000:]}"
    assert "Lua" not in done.stderr, done.stderr[-4000:]
    return done.stdout


class Declared(NamedTuple):
    type: str
    protocol: str


@pytest.fixture(scope="session")
def declared(plugin, tshark_env) -> dict[str, Declared]:
    """Every field the plugin registers: filter name -> (FT_ type, protocol)."""
    out = {}
    for line in tshark(plugin, tshark_env, "-G", "fields").splitlines():
        parts = line.split("\t")
        if parts[0] == "F" and len(parts) > 4 and parts[4] in PLUGIN_PROTOCOLS:
            out[parts[2]] = Declared(parts[3], parts[4])
    return out


class Field(NamedTuple):
    name: str
    show: str | None
    value: str | None  # the bytes it covers, hex
    showname: str | None


class Pdu(NamedTuple):
    packet: int
    protocol: str
    fields: dict[str, list[Field]]
    experts: list[str]  # "severity/group: message" of each expert item under it


class Packet(NamedTuple):
    number: int
    src: tuple[str, int] | None
    dst: tuple[str, int] | None
    pdus: list[Pdu]
    problems: list[str]  # Lua errors, malformed markers


def _addr(proto: ET.Element, name: str) -> str | None:
    field = proto.find(f".//field[@name='{name}']")
    return None if field is None else str(ip_address(field.get("show")))


def parse_pdml(text: str) -> list[Packet]:
    packets = []
    for element in ET.fromstring(text).iter("packet"):
        protos = {p.get("name"): p for p in element.findall("proto")}
        number = int(protos["geninfo"].find("field[@name='num']").get("show"))
        src = dst = None
        ip = protos.get("ip") if "ip" in protos else protos.get("ipv6")
        tcp = protos.get("tcp")
        if ip is not None and tcp is not None:
            family = "ip" if "ip" in protos else "ipv6"
            src = (_addr(ip, f"{family}.src"), int(tcp.find("field[@name='tcp.srcport']").get("show")))
            dst = (_addr(ip, f"{family}.dst"), int(tcp.find("field[@name='tcp.dstport']").get("show")))
        pdus, problems = [], []
        for proto in element.findall("proto"):
            name = proto.get("name")
            if name in ("_ws.malformed", "_ws.lua") or name.startswith("_ws.lua"):
                problems.append(proto.get("showname") or name)
            if name not in PLUGIN_PROTOCOLS:
                continue
            fields: dict[str, list[Field]] = defaultdict(list)
            experts = []
            for field in proto.iter("field"):
                fname = field.get("name") or ""
                if fname.startswith(f"{name}."):
                    fields[fname].append(Field(fname, field.get("show"), field.get("value"), field.get("showname")))
                elif fname == "_ws.expert":
                    experts.append(field.get("showname") or "")
                elif fname.startswith("_ws.lua") or fname == "_ws.malformed":
                    problems.append(field.get("showname") or fname)
            pdus.append(Pdu(number, name, dict(fields), experts))
        packets.append(Packet(number, src, dst, pdus, problems))
    return packets


@pytest.fixture(scope="session")
def pdml(plugin, tshark_env, tmp_path_factory):
    """path -> tshark's packets of that capture (one run per file, cached for the session)."""
    cache = {}

    def run(path: Path, *args: str) -> list[Packet]:
        key = (str(path), args)
        if key not in cache:
            cache[key] = parse_pdml(tshark(plugin, tshark_env, "-r", str(path), "-T", "pdml", *args))
        return cache[key]

    return run


# ------------------------------------------------------------------ captures
def _tubemq_numbered() -> tuple[bytes, bytes]:
    """TubeMQ requests and responses with serial numbers 1, 2, 3, ... (a response echoes its request's)."""
    def renumber(frames):
        return b"".join(f[:4] + struct.pack(">i", n) + f[8:] for n, f in enumerate(frames, 1))

    return (renumber(valid_frames(["request"])["tubemq"][:6]), renumber(valid_frames(["response"])["tubemq"][:6]))


def _malformed_dataproxy() -> bytes:
    """A DataProxy flow: a good request, then one whose TotalLen (0xfffffff0) no server accepts."""
    good = valid_frames(["request"])["dataproxy"][0]
    bad = struct.pack(">I", 0xFFFFFFF0) + bytes([7]) + b"impossible length" * 3
    conv = Conversation(("10.0.0.1", 42000), ("10.0.0.2", 46801))
    packets = conv.open(T0) + conv.send("client", good, T0 + 10**6) + conv.send("client", bad, T0 + 2 * 10**6)
    return pcap_file(packets + conv.close(T0 + 3 * 10**6))


def _written() -> dict[str, bytes]:
    """The captures the tests write: every protocol's vectors in one capture, each again alone, cut into
    small segments (TCP reassembly in tshark), with numbered TubeMQ frames, and EventMesh's legacy form."""
    out = {"mixed.pcap": mixed_capture()[0]}
    ports = {"tubemq": 8715, "dataproxy": 46801, "broadcast": 9000, "eventmesh": 10000}
    for number, protocol in enumerate(ports):
        client, server = STREAMS[protocol]
        out[f"{protocol}_mss40.pcap"] = pcap_file(talk(client, server, ports[protocol], client_port=43000 + number,
                                                        mss=40, turns=3))
    requests, responses = _tubemq_numbered()
    out["tubemq_numbered.pcap"] = pcap_file(talk(requests, responses, 8715, client_port=44000))
    legacy = valid_frames()["eventmesh-legacy"]
    conv = Conversation(("10.0.0.1", 44002), ("10.0.0.2", 10000))
    packets = conv.open(T0)
    for index, frame in enumerate(legacy):  # a frame per segment, all of it
        packets += conv.send("client", frame, T0 + (index + 1) * 10**6)
    out["eventmesh_legacy_whole.pcap"] = pcap_file(packets + conv.close(T0 + 10**8))
    out["eventmesh_legacy.pcap"] = pcap_file(talk(b"".join(legacy), b"", 10000, client_port=44001, turns=1))
    for protocol in FRAMES:  # random segment sizes, reordered segments and a retransmission (issue 27)
        out[f"{protocol}_reordered.pcap"] = pcap_file(reordered_talk(protocol, ports[protocol], client_port=45000))
    out["other_ports.pcap"] = _other_ports()
    out["taken_ports.pcap"] = _taken_ports()
    return out


def _recorded_streams(path: Path) -> list[tuple[bytes, bytes]]:
    """Each flow's (client, server) bytes of a recorded capture, reassembled by the decoder."""
    chunks = defaultdict(list)
    decoder = CaptureDecoder("auto", "PERMISSIVE",
                             on_bytes=lambda flow, direction, chunk: chunks[flow.number, direction].append(chunk))
    decoder.feed(path.read_bytes())
    decoder.close()
    assert all(c.data is not None for items in chunks.values() for c in items), f"{path.name}: a gap"
    return [(b"".join(c.data for c in chunks[f, "request"]), b"".join(c.data for c in chunks[f, "response"]))
            for f in sorted({f for f, _ in chunks})]


def _other_ports() -> bytes:
    """Every protocol on a port none of them has by default, so that the plugin finds its own by its
    heuristics only and must leave the others alone: EventMesh HTTP, a real gRPC flow over HTTP/2 (the
    recorded one of tests/vectors/capture/eventmesh_grpc_lo.pcap), TubeMQ, DataProxy, Broadcast and EventMesh
    TCP, interleaved and cut into 97-byte segments (issue 27: DataProxy's heuristic claimed HTTP/2 streams)."""
    streams = {**STREAMS, "eventmesh-grpc": _recorded_streams(CAPTURES / "eventmesh_grpc_lo.pcap")[0]}
    packets = []
    for number, (client, server) in enumerate(streams.values()):
        packets += talk(client, server, 47000 + number, client_port=41000 + number, t0=T0 + number * 10**6 // 2)
    return pcap_file(sorted(packets), nano=True)


# Ports in the ephemeral range that Wireshark 4.0's port table gives to other dissectors (tshark -G decodes):
# a relay or a test server may get one (CI's demo capture once had its TubeMQ master on such a port).
TAKEN_PORTS = (57000, 44818, 44321, 48898, 34980, 48049, 44322)


def _taken_ports() -> bytes:
    """Every plugin protocol's server on a port Wireshark gives to another dissector (TAKEN_PORTS)."""
    packets = []
    streams = [pair for protocol, pair in STREAMS.items() if protocol in LUA_PROTOCOL]
    for number, (client, server) in enumerate(streams):
        packets += talk(client, server, TAKEN_PORTS[number], client_port=41100 + number,
                        t0=T0 + number * 10**6 // 2)
    return pcap_file(sorted(packets), nano=True)


# Known gaps of the plugin, each failing now: capture name -> why (strict xfail: the test says when one is
# fixed). None at present; EventMesh's legacy form cut across segments (eventmesh_legacy.pcap) was one.
KNOWN_GAPS: dict[str, str] = {}


WRITTEN = _written()


@pytest.fixture(scope="session")
def written(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pcaps")
    for name, data in {**WRITTEN, "dataproxy_malformed.pcap": _malformed_dataproxy()}.items():
        (folder / name).write_bytes(data)
    return {name: folder / name for name in [*WRITTEN, "dataproxy_malformed.pcap"]}


CAPTURE_FILES = sorted(p.name for p in [*CAPTURES.glob("*.pcap"), *CAPTURES.glob("*.pcapng")])


def capture_path(name: str, written: dict[str, Path]) -> Path:
    return written[name] if name in written else CAPTURES / name


# ------------------------------------------------------------------ decoder side and alignment
Key = tuple[tuple[str, int, str, int], str]  # (client, client port, server, server port), direction


def decoded(path: Path) -> dict[Key, list]:
    """(flow ends, direction) -> the decoder's CaptureFrames, in stream order."""
    out: dict[Key, list] = defaultdict(list)
    seen = {}
    for item in iter_capture_frames(path.read_bytes(), "auto", "PERMISSIVE"):
        assert item.flow is not None, f"{path.name}: broken container: {item.frame.error}"
        ends = (str(ip_address(item.flow.client)), item.flow.client_port, str(ip_address(item.flow.server)),
                item.flow.server_port)
        assert seen.setdefault(ends, item.flow.number) == item.flow.number, f"{path.name}: {ends} reused"
        out[ends, item.direction].append(item)
    for items in out.values():
        items.sort(key=lambda i: i.frame.offset)
    return out


def shown(packets: list[Packet], flows) -> dict[Key, list[Pdu]]:
    """(flow ends, direction) -> tshark's PDUs of the plugin's protocols, in capture order."""
    out: dict[Key, list[Pdu]] = defaultdict(list)
    for packet in packets:
        if not packet.pdus:
            continue
        assert packet.src is not None, f"packet {packet.number}: a PDU outside TCP"
        request = (*packet.src, *packet.dst)
        response = (*packet.dst, *packet.src)
        if request in flows:
            key = (request, "request")
        elif response in flows:
            key = (response, "response")
        else:
            key = (request, "request")  # a flow the decoder has no frame in: reported by the caller
        out[key].extend(packet.pdus)
    return out


def flatten(value) -> dict[tuple[str, str], list]:
    """The JSON leaves of a frame: (dotted path, Lua path) -> values in order; list indexes are dropped,
    and the Lua path also drops a switch's field, whose JSON value names its case as its one key
    (`body.text_message.attr` is the Lua field `text_message.attr`)."""
    out: dict[tuple[str, str], list] = defaultdict(list)

    def walk(item, at: list[str], lua: list[str]):
        if isinstance(item, dict) and set(item) != {"hex"}:
            switch = len(item) == 1 and isinstance(next(iter(item.values())), dict) and at
            for key, sub in item.items():
                if not at and key in SKIPPED_KEYS:
                    continue
                walk(sub, [*at, key], [*(lua[:-1] if switch else lua), key])
        elif isinstance(item, list):
            for sub in item:
                walk(sub, at, lua)
        else:
            out[".".join(at), ".".join(lua)].append(item)

    walk(value, [], [])
    return out


def same(value, field: Field, ftype: str) -> bool:
    """Whether tshark's field shows the decoder's value (ints as numbers, enums by name or number, text by
    its bytes, bytes as hex)."""
    show = field.show
    if isinstance(value, dict):  # {"hex": ...}: bytes
        return field.value is not None and field.value.lower() == value["hex"].lower()
    if isinstance(value, bool):
        return show is not None and show.lower() in (("1", "true") if value else ("0", "false"))
    if value is None:
        return show in (None, "", "<MISSING>")
    if INTEGER_TYPES.search(ftype):
        try:
            number = int(show, 0)
        except (TypeError, ValueError):
            return False
        if isinstance(value, int):
            return number == value
        if isinstance(value, str):
            if re.fullmatch(r"-?\d+", value):
                return number == int(value)
            label = (field.showname or "").split(": ", 1)[-1]  # "Name: label (3)"
            return label.rsplit(" (", 1)[0] == value
        return False
    if isinstance(value, (int, float)):
        try:
            return float(show) == float(value)
        except (TypeError, ValueError):
            return False
    text = str(value)
    if show == text:
        return True
    if BRACKETED_TIMESTAMP.fullmatch(text) and show == f"[{text}]":
        return True  # specs/common/bracketed_timestamp: the decoder's datetime, the wire's "[...]" text
    if field.value is not None:  # the raw bytes (a shown string escapes control characters)
        try:
            return bytes.fromhex(field.value).decode("utf-8") == text
        except ValueError:
            return False
    return False


class Comparison(NamedTuple):
    problems: list[str]  # frame count / protocol / value mismatches
    compared: Counter  # Lua field -> values compared
    undeclared: dict[str, set]  # Lua protocol -> decoder paths the plugin has no field for


def compare(path: Path, packets: list[Packet], declared: dict[str, Declared]) -> Comparison:
    frames = decoded(path)
    flows = {ends for ends, _ in frames}
    pdus = shown(packets, flows)
    problems, compared, undeclared = [], Counter(), defaultdict(set)
    for packet in packets:
        problems += [f"packet {packet.number}: {p}" for p in packet.problems]
    for key in sorted(set(frames) | set(pdus)):
        mine = [f for f in frames.get(key, []) if f.frame.protocol in LUA_PROTOCOL]
        others = {f.frame.protocol for f in frames.get(key, []) if f.frame.protocol not in LUA_PROTOCOL}
        theirs = pdus.get(key, [])
        where = f"{path.name} {key[0][0]}:{key[0][1]}->{key[0][2]}:{key[0][3]} {key[1]}"
        if others and theirs:
            problems.append(f"{where}: a {sorted(others)} flow shows {Counter(p.protocol for p in theirs)}")
        if len(mine) != len(theirs):
            problems.append(f"{where}: decoder {len(mine)} frames, tshark {len(theirs)} PDUs "
                            f"(tshark packets {[p.packet for p in theirs][:20]})")
        for index, (item, pdu) in enumerate(zip(mine, theirs)):
            frame = item.frame
            at = f"{where} frame {index} (tshark packet {pdu.packet})"
            protocol = LUA_PROTOCOL[frame.protocol]
            if pdu.protocol != protocol:
                problems.append(f"{at}: decoder {frame.protocol}, tshark {pdu.protocol}")
                continue
            if frame.error is not None:
                if not pdu.experts:
                    problems.append(f"{at}: decoder error {frame.error} but no expert info in tshark")
                continue
            for (dpath, lpath), values in flatten(frame.to_dict()).items():
                name = next((n for n in (f"{protocol}.{dpath}", f"{protocol}.{lpath}") if n in declared), None)
                if name is None:
                    undeclared[protocol].add(dpath)
                    continue
                fields = pdu.fields.get(name, [])
                compared[name] += len(values)
                if len(fields) != len(values):
                    problems.append(f"{at}: {name}: decoder {len(values)} values {_short(values)}, tshark "
                                    f"{len(fields)} {_short([f.show for f in fields])}")
                    continue
                for value, field in zip(values, fields):
                    if not same(value, field, declared[name].type):
                        problems.append(f"{at}: {name}: decoder {_short(value)}, tshark show={_short(field.show)} "
                                        f"showname={_short(field.showname)} ({declared[name].type})")
    return Comparison(problems, compared, undeclared)


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _report(problems: list[str], limit: int = 40) -> str:
    by_field = Counter(re.sub(r".*?: (\w+\.[\w.]+): .*", r"\1", p) for p in problems)
    return (f"{len(problems)} problems; most common: {by_field.most_common(10)}\n" + "\n".join(problems[:limit]))


# ------------------------------------------------------------------ tests
def test_plugin_registers_its_protocols(plugin, tshark_env, declared):
    protocols = {line.split("\t")[2] for line in tshark(plugin, tshark_env, "-G", "protocols").splitlines()
                 if line.count("\t") >= 2}
    assert set(PLUGIN_PROTOCOLS) <= protocols
    for protocol in PLUGIN_PROTOCOLS:
        assert any(d.protocol == protocol for d in declared.values()), f"{protocol}: no fields"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[n]))
                                  if n in KNOWN_GAPS else n for n in CAPTURE_FILES + sorted(WRITTEN)])
def test_tshark_shows_what_decode_shows(name, written, pdml, declared):
    """Same frames per flow and direction (count, order, protocol), same value for every field both show."""
    path = capture_path(name, written)
    result = compare(path, pdml(path), declared)
    assert not result.problems, _report(result.problems)
    protocols = {LUA_PROTOCOL[f.frame.protocol] for items in decoded(path).values() for f in items
                 if f.frame.protocol in LUA_PROTOCOL}
    for protocol in protocols:  # not vacuous: each protocol's frames had fields compared
        assert any(n.startswith(f"{protocol}.") for n in result.compared), \
            f"{name}: no {protocol} field compared; decoder paths: {sorted(result.undeclared[protocol])[:30]}"


# The spec fields each protocol's frames must show (JSON paths of the decoder = Lua names without the
# protocol); payload interpretations (TubeMQ's protobuf messages, EventMesh's JSON header) may go further.
CORE_FIELDS = {
    "broadcast": ["total_length", "command_id"],
    "dataproxy": ["total_len", "auth", "encrypted", "compressed", "base_type"],
    "tubemq": ["serial_no", "list_size", "blocks.block_len", "blocks.data"],
    "eventmesh": ["package_length", "package.header_length", "package.header", "package.body"],
}


def test_core_fields_are_declared(declared):
    missing = [f"{p}.{f}" for p, fields in CORE_FIELDS.items() for f in fields if f"{p}.{f}" not in declared]
    assert not missing, f"the plugin declares no {missing}; it has {sorted(declared)[:60]}"


def _selected(packets: list[Packet]) -> set[int]:
    return {p.number for p in packets}


def _decode_filter(path: Path, expression: str) -> list[dict]:
    import json

    done = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "--mode", "permissive",
                           "-Y", expression, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _packets_of(path: Path, packets: list[Packet], declared, keep) -> tuple[set[int], int]:
    """The tshark packets holding a PDU aligned with a decoder frame for which keep(frame dict) holds, and
    how many such frames."""
    frames = decoded(path)
    pdus = shown(packets, set(ends for ends, _ in frames))
    chosen, count = set(), 0
    for key, items in frames.items():
        mine = [f for f in items if f.frame.protocol in LUA_PROTOCOL]
        for item, pdu in zip(mine, pdus.get(key, [])):
            row = item.to_dict()
            if keep(row):
                chosen.add(pdu.packet)
                count += 1
    return chosen, count


@pytest.mark.parametrize("name, tshark_filter, decode_filter", [
    ("tubemq_numbered.pcap", "tubemq.serial_no == 3", "serial_no == 3"),
    ("mixed.pcap", "tubemq.serial_no == 103", "serial_no == 103"),
    ("mixed.pcap", "dataproxy", 'protocol == "dataproxy"'),
    ("mixed.pcap", "tubemq", 'protocol == "tubemq"'),
    ("mixed.pcap", "broadcast", 'protocol == "broadcast"'),
    ("mixed.pcap", "eventmesh", 'protocol == "eventmesh"'),
    ("dataproxy_lo.pcap", "dataproxy", 'protocol == "dataproxy"'),
])
def test_display_filter_selects_the_decoders_frames(name, tshark_filter, decode_filter, written, pdml, declared):
    path = capture_path(name, written)
    wanted = _decode_filter(path, decode_filter)
    assert wanted, f"{decode_filter!r} keeps no frame of {name}: a vacuous test"
    keys = {(w["flow"]["client_port"], w["stream"], w["offset"]) for w in wanted}
    expected, count = _packets_of(path, pdml(path), declared,
                                  lambda row: (row["flow"]["client_port"], row["stream"], row["offset"]) in keys)
    assert count == len(wanted), "every frame the decoder's filter keeps has its PDU in tshark"
    assert _selected(pdml(path, "-Y", tshark_filter)) == expected


def test_malformed_frame_has_expert_info(written, pdml, plugin, tshark_env):
    path = written["dataproxy_malformed.pcap"]
    frames = [f for items in decoded(path).values() for f in items]
    assert [f.frame.error is None for f in frames][:2] == [True, False], "the decoder: a good frame, then an error"
    bad = [pdu for packet in pdml(path) for pdu in packet.pdus if pdu.protocol == "dataproxy" and pdu.experts]
    assert bad, "no dataproxy PDU with expert info"
    assert any(re.search(r"\((Error|Warning)/Malformed\)", e) for pdu in bad for e in pdu.experts), \
        [pdu.experts for pdu in bad]
    good = [pdu for packet in pdml(path) for pdu in packet.pdus if not pdu.experts]
    assert [int(pdu.fields["dataproxy.total_len"][0].show) for pdu in good] == [frames[0].frame.length - 4]
    table = tshark(plugin, tshark_env, "-r", str(path), "-q", "-z", "expert")
    rows = [line for line in table.splitlines() if "dataproxy" in line.lower()]
    assert rows, table
    messages = {e.split(": ", 1)[-1] for pdu in bad for e in pdu.experts}
    assert any(m in table for m in messages), (messages, table)


def test_screenshot_is_current(plugin, tshark_env):
    """docs/wireshark-dataproxy.txt (and the README's copy) is what tshark prints now."""
    from tools import wireshark_screenshot

    text = wireshark_screenshot.screenshot(plugin, env=tshark_env)
    assert "dataproxy" in text.lower()
    assert (ROOT / "docs" / "wireshark-dataproxy.txt").read_text() == text, "run tools/wireshark_screenshot.py"
    readme = (ROOT / "README.md").read_text()
    assert text.strip() in readme, "README's Wireshark section: paste docs/wireshark-dataproxy.txt"


# ------------------------------------------------------------------ the CLI group
def test_cli_path_and_install(tmp_path, plugin, tshark_env):
    from click.testing import CliRunner

    from inlong_proto.cli.wireshark import personal_plugin_dir, wireshark

    runner = CliRunner()
    result = runner.invoke(wireshark, ["path"])
    assert result.exit_code == 0 and Path(result.output.strip()) == plugin
    home = tmp_path / "home"
    result = runner.invoke(wireshark, ["install"], env={"HOME": str(home), "XDG_CONFIG_HOME": None,
                                                        "WIRESHARK_CONFIG_DIR": None})
    assert result.exit_code == 0, result.output
    target = personal_plugin_dir(environ={"HOME": str(home)})
    assert (target / plugin.name).read_bytes() == plugin.read_bytes()
    for proto in plugin.parent.rglob("*.proto"):  # the TubeMQ messages, for the protobuf dissector
        relative = proto.relative_to(plugin.parent)
        assert (target / relative).read_bytes() == proto.read_bytes()
        assert str(target / relative) in result.output
    assert str(target / plugin.name) in result.output
    # Wireshark's own idea of the folder, and it loads the plugin from there without -X
    env = {**tshark_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    folders = tshark(plugin, env, "-G", "folders", lua=False)
    assert re.search(rf"Personal Lua Plugins:\s*{re.escape(str(target))}/?$", folders, re.M), folders
    protocols = tshark(plugin, env, "-G", "protocols", lua=False)
    assert all(re.search(rf"\t{p}$", protocols, re.M) for p in PLUGIN_PROTOCOLS)
    other = tmp_path / "elsewhere"
    result = runner.invoke(wireshark, ["install", "--dir", str(other)])
    assert result.exit_code == 0 and (other / plugin.name).is_file() and str(other) in result.output


def test_an_installed_plugin_and_a_passed_one_load_once(tmp_path, plugin, tshark_env):
    """The README's `tshark -X lua_script:$(inlong-proto wireshark path)` after `wireshark install`: the
    personal folder's copy is loaded, the passed one is skipped without a Lua error (Wireshark would refuse
    its protocols a second time), and named on stderr only when it is another version."""
    from click.testing import CliRunner

    from inlong_proto.cli.wireshark import personal_plugin_dir, wireshark

    home = tmp_path / "home"
    result = CliRunner().invoke(wireshark, ["install", "--no-preferences"], env={"HOME": str(home)})
    assert result.exit_code == 0, result.output
    env = {**tshark_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    mixed = str(ROOT / "examples" / "data" / "mixed.pcap")
    arguments = ["-X", f"lua_script:{plugin}", "-r", mixed, "-Y", "dataproxy", "-T", "fields", "-e", "frame.number"]
    done = subprocess.run([TSHARK, *arguments], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Lua" not in done.stderr and "not loaded" not in done.stderr, done.stderr
    expected = done.stdout.split()
    assert len(expected) == 18  # the DataProxy flow's frames: the installed copy dissects
    installed = personal_plugin_dir(environ={"HOME": str(home)}) / plugin.name
    digest = re.search(r'digest ~= "([0-9a-f]{16})"', plugin.read_text()).group(1)
    installed.write_text(plugin.read_text().replace(digest, "0" * 16))  # another version, as far as it can tell
    done = subprocess.run([TSHARK, *arguments], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Lua" not in done.stderr, done.stderr
    assert f"{plugin} is not loaded" in done.stderr and str(installed) in done.stderr, done.stderr
    assert done.stdout.split() == expected
    # a copy from before the check (no mark in _G): found by its protocols
    installed.write_text(re.sub(r"\nlocal first_copy .*?\n_G\.inlong_proto_plugin = [^\n]*\n", "\n", plugin.read_text(),
                                flags=re.S))
    assert "first_copy" not in installed.read_text()
    done = subprocess.run([TSHARK, *arguments], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Lua" not in done.stderr, done.stderr
    assert f"{plugin} is not loaded" in done.stderr and "an older copy" in done.stderr, done.stderr
    assert done.stdout.split() == expected


REORDERED = [f"{protocol}_reordered.pcap" for protocol in FRAMES]


@pytest.mark.parametrize("config", ["home", "WIRESHARK_CONFIG_DIR"])
def test_install_sets_the_tcp_preferences_a_plain_tshark_needs(config, tmp_path, plugin, written):
    """After `inlong-proto wireshark install` into a fresh HOME (or WIRESHARK_CONFIG_DIR), a plain `tshark -r`,
    without -X or -o, finds every frame of captures with random segment sizes, reordering and a
    retransmission, as the decoder does; the preferences file keeps what else it held."""
    from click.testing import CliRunner

    from inlong_proto.cli.wireshark import TCP_PREFERENCES, wireshark

    home = tmp_path / "home"
    env = fresh_env(home)
    prefs = home / ".config" / "wireshark" / "preferences"
    if config == "WIRESHARK_CONFIG_DIR":
        env["WIRESHARK_CONFIG_DIR"] = str(tmp_path / "wsconfig")
        prefs = tmp_path / "wsconfig" / "preferences"
    before = "# the user's own\ngui.recent_files_count.max: 7\ntcp.reassemble_out_of_order: FALSE\n" \
             "#tcp.check_checksum: FALSE\nhttp.tcp.port: 8080\n"
    prefs.parent.mkdir(parents=True)
    prefs.write_text(before)
    runner = CliRunner()
    result = runner.invoke(wireshark, ["install"], env={k: env.get(k) for k in
                                                        ("HOME", "XDG_CONFIG_HOME", "WIRESHARK_CONFIG_DIR")})
    assert result.exit_code == 0, result.output
    assert str(prefs) in result.output
    after = prefs.read_text()
    lines = after.splitlines()
    for keep in ("# the user's own", "gui.recent_files_count.max: 7", "#tcp.check_checksum: FALSE",
                 "http.tcp.port: 8080"):
        assert keep in lines, after
    for name, (value, _) in TCP_PREFERENCES.items():
        assert [line for line in lines if line.startswith(f"{name}:")] == [f"{name}: {value}"], after
    assert lines.index("tcp.reassemble_out_of_order: TRUE") == 2, "edited in place"
    assert runner.invoke(wireshark, ["install"], env={k: env.get(k) for k in ("HOME", "XDG_CONFIG_HOME",
                                                                              "WIRESHARK_CONFIG_DIR")}).exit_code == 0
    assert prefs.read_text() == after, "a second install changes nothing"
    folders = tshark(plugin, env, "-G", "folders", lua=False)
    assert re.search(rf"Personal configuration:\s*{re.escape(str(prefs.parent))}/?$", folders, re.M), folders
    for name in REORDERED:
        path = written[name]
        frames = sum(len(items) for items in decoded(path).values())
        assert frames == 60
        packets = parse_pdml(tshark(plugin, env, "-r", str(path), "-T", "pdml", lua=False))
        assert sum(len(p.pdus) for p in packets) == frames, name
        assert not [p for packet in packets for p in packet.problems], name
        assert not [e for packet in packets for pdu in packet.pdus for e in pdu.experts if _error(e)], name


def _error(expert: str) -> bool:
    return re.search(r"\((Error|Warning)/", expert) is not None


def test_reordered_captures_need_the_preferences(plugin, written, tmp_path):
    """Without the preferences (Wireshark 4.0's defaults) the plugin loses frames of the reordered captures:
    the captures do test what the preferences are for."""
    env = fresh_env(tmp_path / "bare")
    lost = {}
    for name in REORDERED:
        packets = parse_pdml(tshark(plugin, env, "-r", str(written[name]), "-T", "pdml"))
        found = sum(1 for p in packets for pdu in p.pdus if not any(_error(e) for e in pdu.experts))
        lost[name] = 60 - found
    assert all(lost.values()), lost


def test_no_preferences_leaves_the_profile_alone(tmp_path):
    from click.testing import CliRunner

    from inlong_proto.cli.wireshark import wireshark

    config = tmp_path / "wsconfig"
    result = CliRunner().invoke(wireshark, ["install", "--dir", str(tmp_path / "plugins"), "--no-preferences"],
                                env={"WIRESHARK_CONFIG_DIR": str(config)})
    assert result.exit_code == 0, result.output
    assert not config.exists() and not [line for line in result.output.splitlines() if line.startswith("preferences ")]
    result = CliRunner().invoke(wireshark, ["install", "--dir", str(tmp_path / "plugins"), "--profile", "work"],
                                env={"WIRESHARK_CONFIG_DIR": str(config)})
    assert result.exit_code == 0, result.output
    assert "tcp.reassemble_out_of_order: TRUE" in (config / "profiles" / "work" / "preferences").read_text()


def test_install_reports_a_setting_it_changes_even_where_another_line_had_its_value(tmp_path):
    """Wireshark takes a name's last line: a later line of the user's that undid the setting is changed, and
    install says so rather than 'already set'."""
    from inlong_proto.cli.wireshark import install_preferences

    path = tmp_path / "preferences"
    install_preferences(path)
    path.write_text(path.read_text() + "# mine\ntcp.reassemble_out_of_order: FALSE\ngui.column.format: x\n")
    _, changed = install_preferences(path)
    assert changed == ["tcp.reassemble_out_of_order: TRUE"]
    text = path.read_text()
    assert "tcp.reassemble_out_of_order: FALSE" not in text and "# mine\ngui.column.format: x" in text
    assert install_preferences(path)[1] == []


def test_the_readme_says_why_install_sets_preferences():
    wireshark = (ROOT / "README.md").read_text().partition("**Wireshark.**")[2].partition("```")[0]
    assert "out-of-order reassembly" in wireshark and "Wireshark leaves off" in wireshark
    assert "`--no-preferences`" in wireshark and "wireshark.md#the-tcp-preferences-install-sets" in wireshark


def test_preferences_folder():
    from inlong_proto.cli.wireshark import personal_config_dir, preferences_path

    assert personal_config_dir("linux", {"HOME": "/h"}) == Path("/h/.config/wireshark")
    assert personal_config_dir("linux", {"HOME": "/h", "XDG_CONFIG_HOME": "/x"}) == Path("/x/wireshark")
    assert personal_config_dir("linux", {"HOME": "/h", "WIRESHARK_CONFIG_DIR": "/w"}) == Path("/w")
    assert personal_config_dir("win32", {"APPDATA": "C:/A"}) == Path("C:/A") / "Wireshark"
    assert preferences_path("p", "linux", {"HOME": "/h"}) == Path("/h/.config/wireshark/profiles/p/preferences")


def _errors(packets: list[Packet]) -> list[str]:
    """Malformed markers, Lua errors and Error / Warning expert items of the plugin's PDUs."""
    return [f"packet {p.number}: {problem}" for p in packets for problem in p.problems] + \
        [f"packet {p.number}: {e}" for p in packets for pdu in p.pdus for e in pdu.experts if _error(e)]


def test_heuristics_claim_only_their_own_flows(written, pdml, declared):
    """On ports no protocol has by default the heuristics find every frame of the plugin's protocols and
    leave the HTTP and HTTP/2 (gRPC) flows alone: no malformed frame, no PDU outside its own flow."""
    path = written["other_ports.pcap"]
    packets = pdml(path)
    frames = decoded(path)
    grpc = {ends for (ends, _), items in frames.items() if {i.frame.protocol for i in items} == {"eventmesh-grpc"}}
    assert grpc and len(frames) == 12, "six flows, both directions, one of them gRPC"
    assert not _errors(packets)
    mine = Counter(LUA_PROTOCOL[i.frame.protocol] for items in frames.values() for i in items
                   if i.frame.protocol in LUA_PROTOCOL)
    assert Counter(pdu.protocol for p in packets for pdu in p.pdus) == mine
    assert set(mine) == set(PLUGIN_PROTOCOLS)


def test_heuristics_go_before_ports_taken_by_other_dissectors(written, pdml, plugin, tmp_path):
    """A server on a port Wireshark gives to another protocol (irc, enip, ...) is found with the preferences
    `wireshark install` sets, and lost without them (so the capture does test tcp.try_heuristic_first)."""
    path = written["taken_ports.pcap"]
    frames = decoded(path)
    mine = Counter(LUA_PROTOCOL[i.frame.protocol] for items in frames.values() for i in items
                   if i.frame.protocol in LUA_PROTOCOL)
    assert set(mine) == set(PLUGIN_PROTOCOLS)
    packets = pdml(path)
    assert not _errors(packets)
    assert Counter(pdu.protocol for p in packets for pdu in p.pdus) == mine
    env = fresh_env(tmp_path / "bare")
    bare = parse_pdml(tshark(plugin, env, "-r", str(path), "-T", "pdml"))
    assert sum(len(p.pdus) for p in bare) < sum(mine.values())


@pytest.mark.skipif(importlib.util.find_spec("grpc") is None, reason="grpcio (the grpc extra) is not installed")
def test_demo_capture_has_no_malformed_frame(tmp_path, plugin, tshark_env):
    """The demo's capture (every endpoint pair on loopback on ports the OS picks, gRPC included): `tshark -z
    expert` shows no malformed frame, and tshark finds as many frames of each protocol as the decoder."""
    import asyncio

    from inlong_proto.endpoints.demo import record_capture

    path, _, _ = asyncio.run(record_capture(tmp_path, "relay"))
    table = tshark(plugin, tshark_env, "-r", str(path), "-q", "-z", "expert")
    assert "Malformed" not in table, table
    packets = parse_pdml(tshark(plugin, tshark_env, "-r", str(path), "-T", "pdml"))
    assert not _errors(packets)
    items = list(iter_capture_frames(path.read_bytes(), "auto", "PERMISSIVE"))
    mine = Counter(LUA_PROTOCOL[i.frame.protocol] for i in items if i.frame.protocol in LUA_PROTOCOL)
    assert Counter(pdu.protocol for p in packets for pdu in p.pdus) == mine
    assert set(mine) == set(PLUGIN_PROTOCOLS)


@pytest.mark.parametrize("injected, expected", [
    # a failure outside the spec's fields (dissect_frame as a whole, e.g. a payload layer's helper)
    ("dissect_frame = function() error('injected failure') end", "dissector error: .*injected failure"),
    # Wireshark's json dissector raising (EventMesh headers and bodies go to it)
    ("json = {call = function() error('injected json failure') end}", "the json dissector refused"),
])
def test_lua_errors_become_expert_info(injected, expected, tmp_path, plugin, tshark_env, written):
    """An error in a frame's dissection is expert info on that frame, never a Lua error: the plugin with a
    failure injected at its end (a local of the chunk, so its closures see the replacement)."""
    broken = tmp_path / "inlong_proto.lua"
    broken.write_text(plugin.read_text() + "\n" + injected + "\n")
    path = written["mixed.pcap"]
    done = subprocess.run([TSHARK, "-X", f"lua_script:{broken}", "-r", str(path), "-T", "pdml"], env=tshark_env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Lua" not in done.stderr, done.stderr[-2000:]
    packets = parse_pdml(done.stdout)
    assert not [p for packet in packets for p in packet.problems], "no Lua error item, no malformed marker"
    experts = [e for packet in packets for pdu in packet.pdus for e in pdu.experts]
    assert any(re.search(expected, e) for e in experts), experts[:10]


def test_windows_folder():
    from inlong_proto.cli.wireshark import personal_plugin_dir

    assert personal_plugin_dir("win32", {"APPDATA": "C:/Users/u/AppData/Roaming"}) == \
        Path("C:/Users/u/AppData/Roaming") / "Wireshark" / "plugins"
    assert personal_plugin_dir("darwin", {"HOME": "/Users/u"}) == Path("/Users/u/.local/lib/wireshark/plugins")

"""Hostile text in otherwise valid frames, every protocol: whatever decodes, to_dict() and json.dumps of it
never raise (issue 11). Text rules (values.render_text): text a format checks (JSON, the specs' `str`
fields) that is not UTF-8 is a DecodeError at its byte; text nobody checks (TubeMQ's proto2 strings) and
opaque bytes keep their exact bytes, shown as {"hex": ...}."""
from __future__ import annotations

import json
import struct

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError
from inlong_proto.core import protocols
from inlong_proto.dataproxy.payload import payload as dataproxy_payload
from inlong_proto.eventmesh import http
from inlong_proto.generated.protobuf.tubemq import RPC_pb2
from inlong_proto.tubemq import rpc

import strategies
import vectors

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(item) -> dict:
    """The invariant: to_dict() works and is JSON; returns it for further checks."""
    record = item.to_dict()
    json.dumps(record)
    json.dumps(record, ensure_ascii=False)
    return record


def decoded(data: bytes, protocol: str, direction: str | None = None):
    """Every frame of data in PERMISSIVE mode and the FAILFAST decode of it, each checked."""
    for frame in inlong_proto.iter_frames(data, protocol, direction, mode="PERMISSIVE"):
        check(frame)
    try:
        frame = inlong_proto.decode(data, protocol, direction)
    except DecodeError:
        return None
    check(frame)
    return frame


# ------------------------------------------------------------------ every protocol, frames from the specs
FRAME_CASES = [(name, direction) for name in protocols.names()
               for direction in ((None,) if not protocols.get(name).directional else protocols.DIRECTIONS)]


@pytest.mark.parametrize("protocol,direction", FRAME_CASES)
@SETTINGS
@given(data=st.data())
def test_spec_frames_of_every_protocol(protocol, direction, data):
    """Frames drawn from the .ksy (random text and bytes in every field), then their payload layers."""
    message = data.draw(strategies.frames(protocol, direction))
    try:
        wire = inlong_proto.encode(message)
    except inlong_proto.EncodeError:
        assume(False)
    frame = decoded(wire, protocol, direction)
    if frame is not None and protocol in protocols.PAYLOAD_READERS:
        try:
            check(dataproxy_payload(frame))
        except DecodeError:
            pass


# ------------------------------------------------------------------ TubeMQ: protobuf strings of any bytes
def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


HOSTILE_TEXT = st.one_of(st.binary(max_size=24), st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")),
                         st.sampled_from([b"\xff", b"\xed\xa0\x80", b"a\xc3", b"\xc0\xaf", b"x.StandbyException"]))


def wire_message(descriptor, depth: int = 0, fixed: dict | None = None) -> st.SearchStrategy:
    """Wire bytes of a message of `descriptor`, written by hand so that string fields can hold any bytes
    (the protobuf classes refuse non-UTF-8 text): required fields always, optional ones sometimes,
    repeated ones 0-2 times; `fixed` gives some fields' encoded values."""
    fixed = fixed or {}

    @st.composite
    def build(draw):
        out = []
        for field in descriptor.fields:
            if field.name in fixed:
                out.append(fixed[field.name])
                continue
            if field.is_repeated:
                count = draw(st.integers(0, 2 if depth < 3 else 0))
            else:
                count = 1 if field.is_required or (depth < 3 and draw(st.booleans())) else 0
            for _ in range(count):
                out.append(draw(_wire_field(field, depth)))
        return b"".join(out)
    return build()


def _wire_field(field, depth: int) -> st.SearchStrategy:
    number, types = field.number, field.__class__
    if field.type in (types.TYPE_STRING, types.TYPE_BYTES, types.TYPE_MESSAGE):
        inner = (wire_message(field.message_type, depth + 1) if field.type == types.TYPE_MESSAGE
                 else HOSTILE_TEXT if field.type == types.TYPE_STRING else st.binary(max_size=40))
        return inner.map(lambda data: _key(number, 2) + _varint(len(data)) + data)
    if field.type == types.TYPE_ENUM:
        values = st.sampled_from([value.number for value in field.enum_type.values])
    elif field.type == types.TYPE_BOOL:
        values = st.integers(0, 1)
    elif field.type == types.TYPE_INT32:
        values = st.integers(-2**31, 2**31 - 1)
    elif field.type == types.TYPE_INT64:
        values = st.integers(-2**63, 2**63 - 1)
    else:
        raise NotImplementedError(f"{field.full_name}: protobuf type {field.type}")  # none in TubeMQ's protos
    return values.map(lambda value: _key(number, 0) + _varint(value))


def _delimited(*parts: bytes) -> bytes:
    return b"".join(_varint(len(part)) + part for part in parts)


@st.composite
def tubemq_frames(draw) -> bytes:
    """A request, response or exception frame whose business message (or exception) has hostile strings."""
    kind = draw(st.sampled_from(["request", "response", "exception"]))
    serial = draw(st.integers(0, 2**31 - 1))
    if kind == "exception":
        body = draw(wire_message(RPC_pb2.RspExceptionBody.DESCRIPTOR))
        stream = _delimited(RPC_pb2.RpcConnHeader(flag=rpc.FLAG_RESPONSE).SerializeToString(),
                            RPC_pb2.ResponseHeader(status=draw(st.sampled_from([1, 2])),
                                                   protocolVer=3).SerializeToString(), body)
        return inlong_proto.encode(rpc.frame_of(serial, stream))
    entry = draw(st.sampled_from(sorted(rpc.METHODS.values(), key=lambda e: e["id"])))
    business = draw(wire_message(rpc.message_class(entry[kind]).DESCRIPTOR))
    if kind == "request":
        stream = _delimited(RPC_pb2.RpcConnHeader(flag=0).SerializeToString(),
                            RPC_pb2.RequestHeader(serviceType=1, protocolVer=3).SerializeToString(),
                            RPC_pb2.RequestBody(method=entry["id"], timeout=1, request=business).SerializeToString())
    else:
        stream = _delimited(RPC_pb2.RpcConnHeader(flag=rpc.FLAG_RESPONSE).SerializeToString(),
                            RPC_pb2.ResponseHeader(status=0, protocolVer=3).SerializeToString(),
                            RPC_pb2.RspResponseBody(method=entry["id"], data=business).SerializeToString())
    return inlong_proto.encode(rpc.frame_of(serial, stream))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tubemq_frames())
def test_tubemq_strings_of_any_bytes(data):
    frame = decoded(data, "tubemq")
    assert frame is not None, "required fields are always present: every such frame is valid"
    record = check(frame.payload)
    if frame.payload.exception is not None:
        for name in ("class_name", "message"):
            value = getattr(frame.payload.exception, name)
            assert record["exception"][name] == (value if isinstance(value, str) else {"hex": value.hex()})


@pytest.mark.parametrize("name", ["response_exception_name_not_utf8", "response_stack_trace_not_utf8"])
def test_hostile_reproducers_decode_with_their_bytes_kept(name):
    vector = next(p.values[0] for p in vectors.load("tubemq", "valid") if p.id == name)
    data = bytes.fromhex(vector["hex"])
    exception = inlong_proto.decode(data, "tubemq").payload.exception
    rendered = check(inlong_proto.decode(data, "tubemq"))["payload"]["exception"]
    raw = [value for value in (exception.class_name, exception.message) if isinstance(value, bytes)]
    assert len(raw) == 1 and raw[0].hex() in (rendered["class_name"].get("hex") if isinstance(
        rendered["class_name"], dict) else None, rendered["message"].get("hex") if isinstance(
        rendered["message"], dict) else None)


# ------------------------------------------------------------------ EventMesh TCP: JSON strings of any text
EM_VECTORS = [bytes.fromhex(v.values[0]["hex"]) for v in vectors.load("eventmesh/tcp", "valid")
              if v.values[0].get("protocol", "eventmesh") == "eventmesh"]
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=16)  # lone surrogates included


def _mutate_strings(value, draw):
    """The same JSON value with some of its strings replaced by arbitrary text."""
    if isinstance(value, str):
        return draw(ANY_TEXT) if draw(st.booleans()) else value
    if isinstance(value, dict):
        return {key: _mutate_strings(item, draw) for key, item in value.items()}
    if isinstance(value, list):
        return [_mutate_strings(item, draw) for item in value]
    return value


def _json_text(value, draw) -> str:
    ascii_only = draw(st.booleans())
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates travel as \\u escapes, as Jackson writes them
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text


@st.composite
def eventmesh_frames(draw) -> bytes:
    """A valid EventMesh TCP vector with strings of its header (and JSON body) replaced, or its body
    replaced by any bytes."""
    frame = inlong_proto.decode(draw(st.sampled_from(EM_VECTORS)), "eventmesh")
    package = frame.message.package
    header = _json_text(_mutate_strings(json.loads(package.header), draw), draw)
    body = package.body
    choice = draw(st.sampled_from(["json", "bytes", "keep"]))
    if choice == "bytes":
        body = draw(st.binary(max_size=40))
    elif choice == "json":
        try:
            body = _json_text(_mutate_strings(json.loads(body), draw), draw).encode("utf-8")
        except ValueError:
            pass
    return inlong_proto.encode(frame.message._replace(package=package._replace(header=header, body=body)))


@SETTINGS
@given(eventmesh_frames())
def test_eventmesh_json_strings_of_any_text(data):
    decoded(data, "eventmesh")


# ------------------------------------------------------------------ EventMesh HTTP: forms and bodies of any bytes
def _percent(data: bytes) -> bytes:
    return b"".join(b"%%%02X" % byte for byte in data)


@st.composite
def http_messages(draw) -> bytes:
    """A request with form fields of any bytes (%-escaped or raw) or a response with any body."""
    if draw(st.booleans()):
        body = draw(st.binary(max_size=40))
        headers = [("Content-Type", draw(st.sampled_from(["application/json", "text/plain"])))]
        return http.build_response(draw(st.sampled_from([200, 500])), headers, body)
    fields = draw(st.lists(st.tuples(st.sampled_from([b"topic", b"content", b"bizseqno", b"uniqueid", b"ttl"]),
                                     HOSTILE_TEXT, st.booleans()), max_size=5))
    body = b"&".join(key + b"=" + (_percent(value) if escape else value) for key, value, escape in fields)
    headers = [("code", draw(st.sampled_from(["104", "101", "206"]))), ("Host", "h"),
               ("Content-Type", "application/x-www-form-urlencoded")]
    return http.build_request("POST", "/", headers, body)


@SETTINGS
@given(http_messages())
def test_eventmesh_http_fields_of_any_bytes(data):
    for message in http.iter_messages(data, None, "PERMISSIVE"):
        check(message)


# ------------------------------------------------------------------ DataProxy: attributes and bodies
@st.composite
def dataproxy_frames(draw) -> tuple[bytes, str]:
    """Text-protocol frames (MsgType 3) with any attribute text and any body bytes, and a binary body
    whose records are any bytes: the attributes are typed UTF-8 in the spec, the bodies opaque."""
    attrs = "&".join(f"{key}={value}" for key, value in draw(st.lists(
        st.tuples(st.sampled_from(["groupId", "streamId", "dt", "m", "cp", "cnt", "mid", "x"]), ANY_TEXT),
        max_size=5)))
    body = draw(st.binary(max_size=60))
    attr_bytes = attrs.encode("utf-8", "surrogatepass")
    frame = (struct.pack(">iB", 1 + 4 + len(body) + 4 + len(attr_bytes), 3) + struct.pack(">i", len(body)) + body
             + struct.pack(">i", len(attr_bytes)) + attr_bytes)
    return frame, "request"


@SETTINGS
@given(dataproxy_frames())
def test_dataproxy_attributes_of_any_text(case):
    data, direction = case
    frame = decoded(data, "dataproxy", direction)
    if frame is not None:
        try:
            check(dataproxy_payload(frame))
        except DecodeError:
            pass


LONE_SURROGATE_FRAME = bytes.fromhex(
    "4576656e744d657368303030300000012b000000767b22636d64223a224153594e435f4d4553534147455f544f5f434c49454e"
    "545f41434b222c22636f6465223a302c22736571223a225c756438303078222c2270726f70657274696573223a7b7d2c2263"
    "6f6d6d616e64223a224153594e435f4d4553534147455f544f5f434c49454e545f41434b227d227b5c22746f7069635c223a"
    "5c22544553542d544f5049435c222c5c2270726f706572746965735c223a7b5c2270726f746f636f6c747970655c223a5c22"
    "6576656e746d6573686d6573736167655c222c5c2274746c5c223a5c22343030305c227d2c5c22686561646572735c223a7b"
    "5c2264617461636f6e74656e74747970655c223a5c22746578742f706c61696e5c227d2c5c22626f64795c223a5c2268656c"
    "6c6f5c227d22")


def test_the_cli_prints_json_with_a_lone_surrogate(tmp_path):
    """Found by tools/fuzz.py: EventMesh JSON may hold "\\ud800" (Java writes it); the CLI crashed writing
    it as UTF-8. It now escapes that record instead."""
    import subprocess
    import sys

    dump = tmp_path / "frame.bin"
    dump.write_bytes(LONE_SURROGATE_FRAME)
    done = subprocess.run([sys.executable, "-m", "inlong_proto.cli", "decode", "-p", "eventmesh", str(dump)],
                          capture_output=True, text=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    record = json.loads(done.stdout)
    assert "\ud800" in record["package"]["header"] or "\\ud800" in record["package"]["header"]

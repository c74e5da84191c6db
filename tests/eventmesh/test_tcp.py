"""EventMesh TCP: frame vectors (facts 1.8 and every command family), malformed input with offsets, the
legacy length form, streams, builders byte for byte, the official compiler as reference, round trips
generated from the JSON Schemas, and fuzzing (only DecodeError escapes)."""
import base64
import importlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError, EncodeError, ValidationError
from inlong_proto.eventmesh import tcp
from inlong_proto.generated.eventmesh import commands
from inlong_proto.core.plain import json_text

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs" / "eventmesh"
VECTORS = ROOT / "tests" / "vectors" / "eventmesh" / "tcp"


def load(kind):
    files = sorted((VECTORS / kind).glob("*.json"))
    assert files
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


VALID = load("valid")
MALFORMED = load("malformed")
BY_NAME = {p.id: p.values[0] for p in VALID}


def data_of(name):
    return bytes.fromhex(BY_NAME[name]["hex"])


# ------------------------------------------------------------------------------------------ vectors
@pytest.mark.parametrize("vector", VALID)
def test_valid_vector(vector):
    data = bytes.fromhex(vector["hex"])
    frame = inlong_proto.decode(data, vector["protocol"], vector["direction"])
    assert (frame.message_type, frame.direction) == (vector["message_type"], vector["expected_direction"])
    assert frame.payload.to_dict() == vector["expected"]
    assert json.loads(json.dumps(frame.to_dict()))["payload"] == vector["expected"]  # JSON-able
    assert inlong_proto.encode(frame) == data
    assert frame.length == len(data) == frame.message.package_length + (8 if vector["protocol"] == "eventmesh" else 13)


@pytest.mark.parametrize("vector", [v for v in VALID if v.values[0]["java_encoder"]])
def test_builders_write_what_the_java_encoder_writes(vector):
    """Rebuilding each Java-encoded vector from its decoded header and body gives the same bytes."""
    data = bytes.fromhex(vector["hex"])
    payload = inlong_proto.decode(data, vector["protocol"], vector["direction"]).payload
    if payload.protocol_type == "cloudevents":
        body = payload.raw_body
    elif payload.body is None and payload.raw_body:
        body = json.loads(payload.raw_body)
    elif payload.body_kind == "text" and payload.body is not None:
        body = json.loads(payload.body)
    else:
        body = payload.body
    rebuilt = tcp.frame(payload.header, body, legacy=vector["protocol"] == "eventmesh-legacy")
    assert inlong_proto.encode(rebuilt) == data


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector(vector):
    with pytest.raises(DecodeError) as caught:
        inlong_proto.decode(bytes.fromhex(vector["hex"]), vector["protocol"], vector["direction"])
    assert (type(caught.value).__name__, caught.value.offset, caught.value.field) == (
        vector["error"], vector["offset"], vector["field"]), str(caught.value)


def test_every_command_has_a_valid_vector_family():
    seen = {v.values[0]["message_type"] for v in VALID}
    served = {c.name for c in tcp.Command if c.value not in (28, 29, 31, 32, 33, 34)}
    assert served - seen == set()


# ---------------------------------------------------------------------------------- facts 1.8 bytes
CODEC_TEST = bytes.fromhex(
    "4576656e744d65736830303030000000590000004a7b22636d64223a2248454c4c4f5f52455155455354222c22636f64"
    "65223a302c2270726f70657274696573223a7b7d2c22636f6d6d616e64223a2248454c4c4f5f52455155455354227d7b7d")
WORKED_A = bytes.fromhex(
    "4576656e744d6573683030303000000072000000657b22636d64223a224845415254424541545f52455155455354222c"
    "22636f6465223a302c22736571223a2231323334353637383930222c2270726f70657274696573223a7b7d2c22636f6d"
    "6d616e64223a224845415254424541545f52455155455354227d")
WORKED_B = bytes.fromhex(
    "4576656e744d65736830303030000000e60000005d7b22636d64223a2248454c4c4f5f52455155455354222c22636f64"
    "65223a302c22736571223a2231323334353637383930222c2270726f70657274696573223a7b7d2c22636f6d6d616e64"
    "223a2248454c4c4f5f52455155455354227d7b22656e76223a22646576222c2273756273797374656d223a2235303233"
    "222c22706964223a34322c22686f7374223a223132372e302e302e31222c22706f7274223a302c2276657273696f6e22"
    "3a22312e30222c2267726f7570223a226731222c22707572706f7365223a22737562222c22756e61636b223a307d")


def test_facts_vectors_byte_for_byte():
    assert len(CODEC_TEST) == 97 and len(WORKED_A) == 122 and len(WORKED_B) == 238
    assert CODEC_TEST == data_of("codectest_hello_default_useragent")
    assert WORKED_A == data_of("worked_a_heartbeat_request")
    assert WORKED_B == data_of("worked_b_hello_request")
    codec_test = tcp.frame(tcp.TcpHeader(cmd=tcp.Command.HELLO_REQUEST, command="HELLO_REQUEST"), {})
    assert inlong_proto.encode(codec_test) == CODEC_TEST
    assert inlong_proto.encode(tcp.heartbeat("1234567890")) == WORKED_A
    agent = tcp.UserAgent(env="dev", subsystem="5023", pid=42, host="127.0.0.1", port=0, version="1.0",
                          group="g1", purpose="sub")
    assert inlong_proto.encode(tcp.hello(agent, "1234567890")) == WORKED_B
    reply = inlong_proto.encode(tcp.reply(tcp.Command.HELLO_RESPONSE, "1234567890"))
    assert len(reply) == 133 and reply[13:21] == bytes.fromhex("0000007d00000070") and reply == data_of(
        "worked_c_hello_response")
    decoded = inlong_proto.decode(CODEC_TEST, "eventmesh").payload
    assert decoded.body == tcp.UserAgent() and decoded.header.seq is None and decoded.header.desc is None


def test_header_key_order_and_duplicate_command_key():
    text = inlong_proto.decode(WORKED_A, "eventmesh").message.package.header
    assert list(json.loads(text)) == ["cmd", "code", "seq", "properties", "command"]
    header = tcp.header(tcp.Command.ASYNC_MESSAGE_TO_SERVER, seq="1", properties={"protocoltype": "x"})
    assert tcp.dumps(header.to_json()) == ('{"cmd":"ASYNC_MESSAGE_TO_SERVER","code":0,"seq":"1","properties":'
                                           '{"protocoltype":"x"},"command":"ASYNC_MESSAGE_TO_SERVER"}')
    no_properties = tcp.TcpHeader(cmd=tcp.Command.HEARTBEAT_RESPONSE, seq="1", properties=None, command="HEARTBEAT_RESPONSE")
    assert tcp.dumps(no_properties.to_json()) == '{"cmd":"HEARTBEAT_RESPONSE","code":0,"seq":"1","command":"HEARTBEAT_RESPONSE"}'


def test_command_read_by_name_or_ordinal_as_jackson_does():
    assert tcp.Command.from_json("HELLO_REQUEST") is tcp.Command.HELLO_REQUEST
    assert tcp.Command.from_json(2) is tcp.Command.from_json("2") is tcp.Command.HELLO_REQUEST
    assert tcp.Command.from_json("36") is tcp.Command.RECOMMEND_RESPONSE
    for bad in ("hello_request", 99, "99", -1, "-1", True, 2.0, None, "", " 2"):
        with pytest.raises(ValidationError):
            tcp.Command.from_json(bad, "cmd", 21)
    assert [c.value for c in tcp.Command] == list(range(37))  # ordinals equal the upstream values
    assert tcp.Command.REDIRECT_TO_CLIENT == 30 and tcp.Command.ASYNC_MESSAGE_TO_SERVER == 20


def test_direction_follows_the_sender_of_the_command():
    for command, info in commands.COMMANDS.items():
        assert info.direction == {"client": "request", "server": "response"}[info.sender]
    hello = data_of("worked_b_hello_request")
    assert inlong_proto.decode(hello, "eventmesh", "request").direction == "request"
    with pytest.raises(ValidationError):
        inlong_proto.decode(hello, "eventmesh", "response")
    echo = data_of("error_echo_no_session")
    assert inlong_proto.decode(echo, "eventmesh").direction == "request"  # unknown direction: from the table
    assert inlong_proto.decode(echo, "eventmesh", "response").payload.error_echo


def test_string_bodies_are_json_quoted_and_cloudevents_raw():
    push = inlong_proto.decode(data_of("async_message_to_client_push"), "eventmesh")
    ack = inlong_proto.encode(tcp.ack(push))
    assert ack == data_of("async_message_to_client_ack")
    assert inlong_proto.decode(ack, "eventmesh").payload.body == push.message.package.body.decode()
    recommend = tcp.reply(tcp.Command.RECOMMEND_RESPONSE, "1234567890", body="10.0.0.1:10000")
    assert recommend.package.body == b'"10.0.0.1:10000"'
    ce = inlong_proto.decode(data_of("broadcast_message_to_server_cloudevents"), "eventmesh").payload
    assert isinstance(ce.body, tcp.CloudEvent) and ce.body.extra == {"ttl": "4000", "protocoltype": "cloudevents"}
    rebuilt = tcp.message(tcp.Command.BROADCAST_MESSAGE_TO_SERVER, ce.raw_body, "1234567890")
    assert rebuilt.package.body == ce.raw_body  # written as they are, no quoting
    with pytest.raises(EncodeError):
        tcp.frame(ce.header, "not bytes")  # Java casts a cloudevents body to byte[]
    with pytest.raises(EncodeError):
        tcp.frame(tcp.header(tcp.Command.HELLO_RESPONSE), b"raw")  # raw bytes only for cloudevents


def test_jackson_escapes_use_upper_case_hex():
    assert tcp.dumps("a\x1b\x00\n\"\\/é😀") == '"a\\u001B\\u0000\\n\\"\\\\/é😀"'
    assert tcp.dumps({"a": [1, True, None, 1.5]}) == '{"a":[1,true,null,1.5]}'


# ------------------------------------------------------------------- text outside the BMP (issue 12, item 5)
GRIN = "\U0001F600"  # U+1F600, the UTF-16 pair D83D DE00
GRIN_JACKSON = b"\\uD83D\\uDE00"  # what UTF8JsonGenerator writes for it: one upper-case escape per surrogate


def test_json_bytes_escape_surrogates_as_jackson_writes_them():
    """writeValueAsBytes: control characters escaped, BMP raw UTF-8, every surrogate its own \\uXXXX escape."""
    assert tcp.json_bytes("a\x1b é中" + GRIN) == b'"a\\u001B \xc3\xa9\xe4\xb8\xad' + GRIN_JACKSON + b'"'
    assert tcp.json_bytes("\U00010000\U0010FFFF") == b'"\\uD800\\uDC00\\uDBFF\\uDFFF"'
    assert tcp.json_bytes("\ud83d\ude00") == tcp.json_bytes(GRIN)  # a Java pair held as two code points
    assert tcp.json_bytes("x\ud800y\udfff") == b'"x\\uD800y\\uDFFF"'  # lone surrogates: escaped, no crash
    assert tcp.json_bytes({GRIN: [GRIN]}) == b'{"' + GRIN_JACKSON + b'":["' + GRIN_JACKSON + b'"]}'
    assert tcp.json_bytes("\ue000\uffff") == '"\ue000\uffff"'.encode()  # BMP past the surrogates stays raw
    # the pre-1.9 encoder (writeValueAsString, then String.getBytes(UTF_8)): raw pairs, '?' for a lone one
    assert tcp.json_bytes(GRIN + "\ud83d\ude00\ud800", legacy=True) == b'"' + GRIN.encode() * 2 + b'?"'
    assert tcp.dumps(GRIN) == '"' + GRIN + '"'  # the char-level text (HTTP form fields) keeps the character


@pytest.mark.parametrize("legacy", [False, True])
def test_builders_write_supplementary_characters_as_the_java_encoder_does(legacy):
    properties = {"protocoltype": "eventmeshmessage", "protocolversion": "1.0", "protocoldesc": "tcp",
                  "k" + GRIN: "v" + GRIN}
    header = tcp.header(tcp.Command.ASYNC_MESSAGE_TO_SERVER, desc=GRIN, seq="1", properties=properties)
    body = tcp.EventMeshMessage(topic="T" + GRIN, body="b" + GRIN, properties={"p": GRIN})
    built = tcp.frame(header, body, legacy=legacy)
    encoded = inlong_proto.encode(built)
    wanted = GRIN.encode() if legacy else GRIN_JACKSON
    assert encoded.count(wanted) == 6 and encoded.count(GRIN.encode() if not legacy else GRIN_JACKSON) == 0
    if not legacy:
        assert max(encoded[13 + 8:]) < 0x80  # nothing but ASCII here: no 4-byte UTF-8 sequence at all
    payload = inlong_proto.decode(encoded, "eventmesh-legacy" if legacy else "eventmesh").payload
    assert payload.header == header and payload.body == body
    hello = inlong_proto.encode(tcp.hello(tcp.UserAgent(group=GRIN, purpose="pub", version="1"), "1"))
    assert b'"group":"' + GRIN_JACKSON + b'"' in hello
    assert tcp.reply(tcp.Command.RECOMMEND_RESPONSE, "1", body=GRIN).package.body == b'"' + GRIN_JACKSON + b'"'
    event = tcp.CloudEvent(specversion="1.0", id="1", source="/", type="t", subject=GRIN, data=GRIN)
    sent = tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, event, "1", legacy=legacy).package.body
    assert sent.count(GRIN_JACKSON) == 2  # the CloudEvents SDK's writeValueAsBytes, whichever frame form


def test_fixed_unicode_vector_is_jackson_output_and_both_forms_decode_alike():
    """unicode_and_escapes holds U+1F600 as Jackson writes it; the same frame with 4 raw UTF-8 bytes (as
    a non-Java writer may send it) decodes to the very same message."""
    jackson, raw = data_of("unicode_and_escapes"), data_of("unicode_supplementary_raw_utf8")
    assert GRIN_JACKSON in jackson and GRIN.encode() not in jackson
    assert raw == jackson.replace(GRIN_JACKSON, GRIN.encode())[:13] + (
        int.from_bytes(jackson[13:17], "big") - 8).to_bytes(4, "big") + jackson.replace(
        GRIN_JACKSON, GRIN.encode())[17:]
    a, b = (inlong_proto.decode(d, "eventmesh").payload for d in (jackson, raw))
    assert a.to_dict() == b.to_dict() and a.body.body.endswith("é中" + GRIN)
    for data in (jackson, raw):  # the decoded message, rebuilt by the builders, is what Java writes
        payload = inlong_proto.decode(data, "eventmesh").payload
        assert inlong_proto.encode(tcp.frame(payload.header, payload.body)) == jackson
        assert inlong_proto.encode(inlong_proto.decode(data, "eventmesh")) == data  # the frame itself kept


def test_escaped_pairs_and_lone_surrogates_decode_without_crashing():
    header = tcp.dumps(tcp.header(tcp.Command.REQUEST_TO_CLIENT_ACK, seq="1").to_json()).encode()
    for text, expected in ((b'"\\uD83D\\uDE00"', GRIN), (b'"\\ud83d\\ude00"', GRIN),
                           (b'"\xf0\x9f\x98\x80"', GRIN), (b'"\\uD800 \\uDFFF"', "\ud800 \udfff")):
        data = inlong_proto.encode(tcp.TcpFrame(package=tcp.Package(header=header.decode(), body=text)))
        frame = inlong_proto.decode(data, "eventmesh")
        assert frame.payload.body == expected
        assert json.loads(json_text(frame.to_dict()))["payload"]["body"] == expected
        rebuilt = inlong_proto.encode(tcp.frame(frame.payload.header, frame.payload.body))
        assert inlong_proto.decode(rebuilt, "eventmesh").payload.body == expected


@settings(max_examples=100, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=()), max_size=10), legacy=st.booleans())
def test_any_text_encodes_and_reads_back(text, legacy):
    """Any Python string, lone surrogates included, encodes without error; the current form gives it back
    exactly (Jackson's escapes carry lone surrogates too), the legacy form with '?' for a lone one."""
    header = tcp.header(tcp.Command.REQUEST_TO_CLIENT_ACK, desc=text, seq="1", properties={text: text})
    encoded = inlong_proto.encode(tcp.frame(header, text, legacy=legacy))
    payload = inlong_proto.decode(encoded, "eventmesh-legacy" if legacy else "eventmesh").payload
    paired = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    expected = paired.encode("utf-8", "replace").decode() if legacy else paired
    assert payload.header.desc == expected and payload.body == expected
    assert payload.header.properties == {expected: expected}


# -------------------------------------------------------------------------------- legacy length form
def test_legacy_form_is_its_own_protocol_and_flagged():
    go = data_of("legacy_go_sdk_heartbeat")
    frame = inlong_proto.decode(go, "eventmesh-legacy")
    assert frame.payload.length_form == "legacy" and frame.message.package_length == len(go) - 13
    assert any("legacy" in w for w in frame.payload.warnings)
    with pytest.raises(ValidationError):
        inlong_proto.decode(go, "eventmesh")  # the current runtime reads it 5 bytes short
    built = inlong_proto.encode(tcp.heartbeat("1234567890", legacy=True))
    assert int.from_bytes(built[13:17], "big") == len(built) - 13
    current = inlong_proto.encode(tcp.heartbeat("1234567890"))
    assert built[17:] == current[17:] and int.from_bytes(current[13:17], "big") == len(current) - 8


# ------------------------------------------------------------------------------------------- streams
def current_vectors():
    return [bytes.fromhex(p.values[0]["hex"]) for p in VALID if p.values[0]["protocol"] == "eventmesh"
            and p.values[0]["direction"] is None]


def test_multi_frame_stream_any_split():
    frames = current_vectors()
    stream = b"".join(frames)
    found = list(inlong_proto.iter_frames(stream, "eventmesh"))
    assert [f.length for f in found] == [len(f) for f in frames]
    decoder = inlong_proto.StreamDecoder("eventmesh")
    out = []
    for i in range(0, len(stream), 7):
        out += decoder.feed(stream[i:i + 7])
    out += decoder.close()
    assert [f.offset for f in out] == [f.offset for f in found] and decoder.buffered == 0


def test_permissive_resynchronises_and_covers_every_byte():
    frames = current_vectors()[:5]
    garbage = b"EventMesh0000\x7f\xff\xff\xffjunk"
    stream = frames[0] + garbage + frames[1] + b"\x00" * 10 + b"".join(frames[2:])
    found = list(inlong_proto.iter_frames(stream, "eventmesh", mode="PERMISSIVE"))
    assert sum(f.length for f in found) == len(stream)
    assert [f.error is None for f in found] == [True, False, True, False, True, True, True]
    assert found[1].raw == garbage


def test_size_limits_checked_from_the_header():
    huge = b"EventMesh0000" + (4194297).to_bytes(4, "big")
    with pytest.raises(ValidationError) as caught:
        inlong_proto.StreamDecoder("eventmesh").feed(huge)
    assert caught.value.offset == 13
    small = inlong_proto.encode(tcp.heartbeat("1"))
    with pytest.raises(inlong_proto.FrameTooLargeError):
        inlong_proto.StreamDecoder("eventmesh", max_frame_size=len(small) - 1).feed(small[:17])


def test_four_mib_limit_and_the_off_by_8():
    header = tcp.header(tcp.Command.RECOMMEND_RESPONSE, desc="success", seq="1")  # a JSON-quoted String body
    head = len(tcp.dumps(header.to_json()).encode())
    largest = 4194304 - 8 - 13 - head - 2  # frame of exactly 4 MiB (a JSON string body: 2 quotes)
    data = inlong_proto.encode(tcp.frame(header, "x" * largest))
    assert len(data) == 4194304 and len(inlong_proto.decode(data, "eventmesh").payload.body) == largest
    with pytest.raises(EncodeError):  # package length 4194297: the Java encoder writes it, no decoder reads it
        inlong_proto.encode(tcp.frame(header, "x" * (largest + 1)))


# ------------------------------------------------------------------------- official compiler reference
@pytest.fixture(scope="module")
def kaitai_modules(tmp_path_factory):
    if shutil.which("node") is None or not (ROOT / "tools" / "ksc" / "node_modules").exists():
        pytest.skip("the official Kaitai compiler is not installed")
    out = tmp_path_factory.mktemp("ksc")
    subprocess.run(["node", str(ROOT / "tools" / "ksc" / "compile.js"), "python", str(out),
                    str(SPECS / "tcp_frame.ksy"), str(SPECS / "tcp_frame_legacy.ksy")], check=True,
                   capture_output=True)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("tcp_frame"), importlib.import_module("tcp_frame_legacy")
    finally:
        sys.path.remove(str(out))


@pytest.mark.parametrize("vector", VALID)
def test_official_compiler_agrees(vector, kaitai_modules):
    from kaitaistruct import KaitaiStream

    data = bytes.fromhex(vector["hex"])
    current, legacy = kaitai_modules
    cls = current.TcpFrame if vector["protocol"] == "eventmesh" else legacy.TcpFrameLegacy
    ref = cls(KaitaiStream(io.BytesIO(data)))
    own = inlong_proto.decode(data, vector["protocol"], vector["direction"]).message
    assert (ref.package_length, ref.package.header_length, ref.package.header, ref.package.body) == (
        own.package_length, own.package.header_length, own.package.header, own.package.body)


# -------------------------------------------------------------- round trips generated from the schemas
def _resolve(ref, base: Path, root: dict):
    file, _, fragment = ref.partition("#")
    path = (base.parent / file) if file else base
    doc = json.loads(path.read_text()) if file else root
    if fragment:
        doc = doc["$defs"][fragment.split("/")[-1]]
    return doc, path, (json.loads(path.read_text()) if file else root)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                       max_size=3), max_leaves=6)
TEXT = st.text(st.characters(codec="utf-8"), max_size=12)


def strategy(schema: dict, path: Path, root: dict | None = None, jackson: bool | None = None):
    """Valid JSON values of a schema (the subset the code generator supports), Jackson's coercions included
    where the file declares them."""
    root = root if root is not None else schema
    jackson = root.get("x-inlong-coercion") == "jackson" if jackson is None else jackson
    if "$ref" in schema:
        target, target_path, target_root = _resolve(schema["$ref"], path, root)
        return strategy(target, target_path, target_root, None if target_root is not root else jackson)
    if "anyOf" in schema:
        return st.one_of([strategy(s, path, root, jackson) for s in schema["anyOf"]])
    if "x-inlong-enum" in schema:
        return st.sampled_from([c.name for c in tcp.Command]) | st.integers(0, 36) | st.integers(0, 36).map(str)
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or ["any"])
    options = []
    for kind in types:
        if kind == "null":
            options.append(st.none())
        elif kind == "any":
            options.append(JSON_VALUES)
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "integer":
            ints = st.integers(-2**31, 2**31 - 1)
            options.append(ints | ints.map(str) | st.just("") if jackson else ints)
        elif kind == "string":
            options.append(_strings(schema, jackson))
        elif kind == "array":
            options.append(st.lists(strategy(schema["items"], path, root, jackson), max_size=3))
        elif kind == "object":
            options.append(_objects(schema, path, root, jackson))
    return st.one_of(options)


def _strings(schema: dict, jackson: bool):
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    fmt = schema.get("format")
    if fmt == "date-time":
        return st.datetimes().map(lambda t: t.isoformat(timespec="milliseconds") + "Z")
    if fmt == "uri":
        return st.from_regex(r"\Ahttps://[a-z]{1,8}(/[a-z0-9]{0,5}){0,2}\Z")
    if fmt == "uri-reference":
        return st.from_regex(r"\A/?[a-z0-9]{1,8}(/[a-z0-9]{0,5}){0,2}\Z")
    if schema.get("contentEncoding") == "base64":
        return st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())
    text = st.text(st.characters(codec="utf-8"), min_size=schema.get("minLength", 0), max_size=12)
    return text | st.integers(-999, 999) | st.booleans() if jackson else text


def _objects(schema: dict, path: Path, root: dict, jackson: bool):
    properties = schema.get("properties", {})
    required = {k: strategy(v, path, root, jackson) for k, v in properties.items() if k in schema.get("required", [])}
    optional = {k: strategy(v, path, root, jackson) for k, v in properties.items() if k not in required}
    extra_schema = schema.get("additionalProperties", True)
    values = JSON_VALUES if extra_schema is True else strategy(extra_schema, path, root, jackson)
    extra = st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6).filter(lambda k: k not in properties),
                            values, max_size=2)
    base = st.fixed_dictionaries(required, optional=optional)
    if not properties:  # a map
        return st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), values, max_size=3)
    return st.tuples(base, extra).map(lambda pair: {**pair[0], **pair[1]})


SCHEMA_FILES = sorted(SPECS.rglob("*.schema.json"))


def schema_module(path: Path):
    dotted = ".".join(path.relative_to(SPECS).with_suffix("").with_suffix("").parts)
    return importlib.import_module(f"inlong_proto.generated.eventmesh.{dotted}")


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_schema_round_trip(path, data):
    """Anything valid under a schema reads, writes back, and reads again to the same typed value.

    One exception, Jackson's own: a null where the field has a default (properties: null) is written
    as nothing and read back as the default, so after one write every value is a fixed point."""
    schema = json.loads(path.read_text())
    module = schema_module(path)
    value = module.from_json(data.draw(strategy(schema, path)), "body", 0)
    plain = module.to_json(value)
    once = module.from_json(plain)
    assert module.from_json(module.to_json(once)) == once and module.to_json(once) == module.to_json(
        module.from_json(module.to_json(once)))
    if hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            if getattr(value, name) is not None:
                assert getattr(once, name) == getattr(value, name), name
    else:
        assert once == value
    assert json.loads(tcp.dumps(plain)) == plain  # and the text Jackson would write parses back the same


def header_strategy(cmd):
    properties = st.dictionaries(st.sampled_from(["ttl", "req0ip", "x"]), TEXT | st.integers(0, 2**40), max_size=2)
    return st.builds(tcp.header, st.just(cmd), code=st.integers(-2**31, 2**31 - 1),
                     desc=st.none() | TEXT, seq=st.none() | TEXT, properties=properties)


BODY_SCHEMAS = {name: SPECS / kind.schema for name, kind in commands.BODY_KINDS.items() if kind.schema}
PROTOCOL_SCHEMAS = {name: SPECS / kind.schema for name, kind in commands.PROTOCOL_TYPES.items() if kind.schema}


def _normalised(path, obj):
    """A body after one write-read cycle (see test_schema_round_trip on nulls with defaults)."""
    module = schema_module(path)
    return module.from_json(module.to_json(module.from_json(obj)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cmd=st.sampled_from(list(tcp.Command)), legacy=st.booleans())
def test_frame_round_trip_for_every_command(data, cmd, legacy):
    """Header + body of any command, typed from the schemas, encode and decode back to the same values."""
    header = data.draw(header_strategy(cmd))
    kind = commands.COMMANDS[cmd].body
    body = None
    if kind == "message":
        protocol = data.draw(st.sampled_from(sorted(PROTOCOL_SCHEMAS)))
        header = tcp.header(cmd, header.code, header.desc, header.seq,
                            {**header.properties, "protocoltype": protocol, "protocolversion": "1.0",
                             "protocoldesc": "tcp"})
        path = PROTOCOL_SCHEMAS[protocol]
        body = _normalised(path, data.draw(strategy(json.loads(path.read_text()), path)))
        if protocol == "cloudevents":
            body = tcp.dumps(body).encode()
    elif kind in BODY_SCHEMAS:
        path = BODY_SCHEMAS[kind]
        body = _normalised(path, data.draw(strategy(json.loads(path.read_text()), path)))
    elif kind == "text":
        body = data.draw(st.none() | JSON_VALUES.filter(lambda v: v is not None))
    protocol = "eventmesh-legacy" if legacy else "eventmesh"
    encoded = inlong_proto.encode(tcp.frame(header, body, legacy=legacy))
    payload = inlong_proto.decode(encoded, protocol).payload
    assert payload.header == header and payload.command is cmd
    assert payload.direction == commands.COMMANDS[cmd].direction
    if kind == "text" and body is not None:
        assert json.loads(payload.body) == body
    elif kind == "message" and isinstance(body, bytes):
        assert payload.raw_body == body
    elif kind != "none":
        assert payload.body == body


# ------------------------------------------------------------------------------------------- fuzzing
def _only_decode_errors(data: bytes, protocol: str = "eventmesh"):
    try:
        inlong_proto.decode(data, protocol)
    except DecodeError:
        pass
    frames = list(inlong_proto.iter_frames(data, protocol, mode="PERMISSIVE"))
    assert sum(f.length for f in frames) == len(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes(data):
    _only_decode_errors(data)
    _only_decode_errors(b"EventMesh0000" + data)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([bytes.fromhex(p.values[0]["hex"]) for p in VALID]), st.data())
def test_fuzz_mutated_vectors(data, draw):
    mutated = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 4))):
        index = draw.draw(st.integers(0, len(mutated) - 1))
        mutated[index] = draw.draw(st.integers(0, 255))
    cut = draw.draw(st.integers(0, len(mutated)))
    for candidate in (bytes(mutated), bytes(mutated[:cut]), bytes(mutated) + data):
        _only_decode_errors(candidate)
        _only_decode_errors(candidate, "eventmesh-legacy")


@settings(max_examples=300, deadline=None)
@given(header=st.one_of(TEXT, JSON_VALUES.map(json.dumps),
                        st.fixed_dictionaries({"cmd": JSON_VALUES | st.sampled_from(["HELLO_REQUEST", "SUBSCRIBE_REQUEST",
                                                                                     "REDIRECT_TO_CLIENT", "ASYNC_MESSAGE_TO_SERVER"])},
                                              optional={"code": JSON_VALUES, "seq": JSON_VALUES,
                                                        "properties": JSON_VALUES | st.just({"protocoltype": "cloudevents"})}
                                              ).map(json.dumps)),
       body=st.one_of(st.binary(max_size=40), JSON_VALUES.map(lambda v: json.dumps(v).encode())))
def test_fuzz_headers_and_bodies_inside_a_valid_envelope(header, body):
    raw = header.encode()
    assume(raw)
    data = b"EventMesh0000" + (13 + len(raw) + len(body)).to_bytes(4, "big") + len(raw).to_bytes(4, "big") + raw + body
    try:
        frame = inlong_proto.decode(data, "eventmesh")
    except DecodeError as exc:
        assert 0 <= exc.offset <= len(data)
    else:
        json.dumps(frame.to_dict())


def test_deeply_nested_json_is_a_validation_error():
    raw = b"[" * 100000 + b"]" * 100000
    data = b"EventMesh0000" + (13 + len(raw)).to_bytes(4, "big") + len(raw).to_bytes(4, "big") + raw
    with pytest.raises(ValidationError):
        inlong_proto.decode(data, "eventmesh")

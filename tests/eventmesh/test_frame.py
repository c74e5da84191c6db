"""EventMeshFrame (protocol eventmesh-frame): vectors made from upstream's layout (tests/tools/
make_eventmesh_frame_vectors.py), malformed input with offsets and fields, dumps of concatenated frames through
iter_frames / StreamDecoder / the CLI, the builders byte for byte, round trips (hypothesis), the official
compiler's reference decoders, and the event model."""
import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError, EncodeError
from inlong_proto.eventmesh import convert, frame as em_frame
from inlong_proto.generated.codec.eventmesh.eventmesh_wire_frame import MsgType

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "eventmesh" / "frame"
P = "eventmesh-frame"


def load(kind):
    files = sorted((VECTORS / kind).glob("*.json"))
    assert files
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


VALID = load("valid")
MALFORMED = load("malformed")
BY_NAME = {p.id: p.values[0] for p in VALID}
ALL_VALID = b"".join(bytes.fromhex(p.values[0]["hex"]) for p in VALID)


# ------------------------------------------------------------------------------------------ vectors
@pytest.mark.parametrize("vector", VALID)
def test_valid_vector_decodes_to_the_layout_it_was_written_from(vector):
    data = bytes.fromhex(vector["hex"])
    frame = inlong_proto.decode(data, P)
    message = frame.message
    assert frame.message_type == vector["message_type"] and frame.length == len(data)
    assert (int(message.msg_type), message.flags, message.seq) == (
        {"stream_req": 1, "stream_chunk": 2, "event": 3}[vector["message_type"]], vector["flags"], vector["seq"])
    assert [[a.name, a.value] for a in message.attributes] == vector["attributes"]  # order kept, duplicates too
    assert message.data == bytes.fromhex(vector["data_hex"])
    assert message.key_count == len(vector["attributes"]) and message.data_len == len(message.data)
    json.dumps(frame.to_dict())  # JSON-able


@pytest.mark.parametrize("vector", VALID)
def test_encode_round_trip_is_byte_exact(vector):
    data = bytes.fromhex(vector["hex"])
    assert inlong_proto.encode(inlong_proto.decode(data, P)) == data


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector(vector):
    data = bytes.fromhex(vector["hex"])
    with pytest.raises(DecodeError) as info:
        inlong_proto.decode(data, P)
    assert type(info.value).__name__ == vector["error"]
    assert (info.value.offset, info.value.field) == (vector["offset"], vector["field"])


def test_reference_decoders_agree_on_every_valid_vector():
    """The official Kaitai compiler's Python output reads every valid vector the same way."""
    from inlong_proto.generated.kaitai.eventmesh_wire_frame import EventmeshWireFrame as Kaitai

    for param in VALID:
        vector = param.values[0]
        ours = inlong_proto.decode(bytes.fromhex(vector["hex"]), P).message
        theirs = Kaitai.from_bytes(bytes.fromhex(vector["hex"]))
        assert [(a.name, a.value) for a in theirs.attributes] == [(a.name, a.value) for a in ours.attributes]
        assert (theirs.seq, theirs.flags, theirs.data, theirs.done, theirs.has_error) == (
            ours.seq, ours.flags, ours.data, ours.done, ours.has_error)


# ------------------------------------------------------------------------------------------ payload layer
def test_payload_reads_flags_attributes_and_text():
    frame = inlong_proto.decode(bytes.fromhex(BY_NAME["stream_chunk_terminal"]["hex"]), P)
    payload = frame.payload
    assert (payload.done, payload.has_error, payload.has_meta, payload.seq) == (True, True, True, 12)
    assert list(payload.to_dict()["attributes"]) == ["sid", "err", "etype", "meta"]
    assert frame.to_dict()["payload"]["attributes"]["err"] == "boom"


def test_duplicate_names_keep_first_place_and_last_value_with_a_warning():
    payload = inlong_proto.decode(bytes.fromhex(BY_NAME["event_duplicate_name"]["hex"]), P).payload
    assert payload.attribute_map == {"id": "second", "type": "t"} and list(payload.attribute_map) == ["id", "type"]
    assert payload.warnings and "'id'" in payload.warnings[0]


def test_binary_event_data_is_base64_in_json():
    payload = inlong_proto.decode(bytes.fromhex(BY_NAME["event_binary_data"]["hex"]), P).payload
    assert base64.b64decode(payload.to_dict()["data_base64"]) == bytes([0, 0xFF, 0xC3, 0x28])


@pytest.mark.parametrize("name,build", [
    ("stream_chunk", lambda: em_frame.chunk_frame("s-9", 7, "Hello", event_type="token")),
    ("stream_chunk_terminal", lambda: em_frame.chunk_frame("s-9", 12, "", done=True, error="boom",
                                                           event_type="error", meta_json='{"tokens":3}')),
    ("stream_chunk_timeout", lambda: em_frame.chunk_frame("s-9", -1, "", done=True, error="timeout")),
    ("stream_req", lambda: em_frame.request_frame("s-9", "héllo 世界 😀", reply_to="agent.reply", model="m-1",
                                                  conversation_id="c-1")),
    ("event_security_stub", lambda: em_frame.event_frame({})),
    ("event_order_kept", lambda: em_frame.event_frame([("zeta", "1"), ("alpha", "2"), ("mid", "3")], b"x")),
])
def test_builders_write_what_upstream_factories_write(name, build):
    assert inlong_proto.encode(build()).hex() == BY_NAME[name]["hex"]


def test_encoder_refuses_what_the_spec_refuses():
    with pytest.raises(EncodeError):
        inlong_proto.encode(em_frame.frame(3, [("a", "\ud800")]))  # a lone surrogate is no UTF-8
    with pytest.raises(EncodeError):
        em_frame.event_frame([("a", 1)])
    with pytest.raises(EncodeError):
        inlong_proto.encode(em_frame.frame(2, seq=2**31))


_text = st.text(max_size=12)


@settings(max_examples=150, deadline=None)
@given(msg_type=st.sampled_from([1, 2, 3]), flags=st.integers(0, 7), seq=st.integers(-2**31, 2**31 - 1),
       attrs=st.lists(st.tuples(_text, _text), max_size=5), data=st.binary(max_size=40))
def test_round_trip_property(msg_type, flags, seq, attrs, data):
    attrs = [(n, v) for n, v in attrs if not any(0xD800 <= ord(c) <= 0xDFFF for c in n + v)]
    built = em_frame.frame(msg_type, attrs, data, seq=seq, done=bool(flags & 1), has_error=bool(flags & 2),
                           has_meta=bool(flags & 4))
    raw = inlong_proto.encode(built)
    back = inlong_proto.decode(raw, P).message
    assert back == built and inlong_proto.encode(back) == raw


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80))
def test_only_decode_errors_escape_and_permissive_spans_tile_the_input(junk):
    data = bytes.fromhex(BY_NAME["stream_chunk"]["hex"]) + junk
    try:
        inlong_proto.decode(data, P)
    except DecodeError:
        pass
    items = list(inlong_proto.iter_frames(data, P, mode="PERMISSIVE"))
    at = 0
    for item in items:
        assert item.offset == at
        at += item.length
    assert at == len(data)


# ------------------------------------------------------------------------------------------ dumps and streams
def test_iter_frames_cuts_a_dump_of_concatenated_frames():
    frames = list(inlong_proto.iter_frames(ALL_VALID, P))
    assert [f.message_type for f in frames] == [p.values[0]["message_type"] for p in VALID]
    assert sum(f.length for f in frames) == len(ALL_VALID) and all(f.error is None for f in frames)


def test_permissive_resynchronises_after_garbage():
    chunk = bytes.fromhex(BY_NAME["stream_chunk"]["hex"])
    data = chunk + b"\xef\x01\x09garbage" + chunk
    items = list(inlong_proto.iter_frames(data, P, mode="PERMISSIVE"))
    assert [i.error is None for i in items] == [True, False, True]
    assert items[-1].offset == len(chunk) + 10
    with pytest.raises(DecodeError):
        list(inlong_proto.iter_frames(data, P, mode="FAILFAST"))
    assert len(list(inlong_proto.iter_frames(data, P, mode="DROPMALFORMED"))) == 2


def test_stream_decoder_fed_byte_by_byte_gives_the_same_frames():
    decoder = inlong_proto.StreamDecoder(P)
    out = []
    for index in range(len(ALL_VALID)):
        out += decoder.feed(ALL_VALID[index:index + 1])
    out += decoder.close()
    assert [(f.offset, f.length) for f in out] == [(f.offset, f.length) for f in inlong_proto.iter_frames(ALL_VALID, P)]


def test_max_frame_size_bounds_a_frame_before_it_is_buffered():
    big = inlong_proto.encode(em_frame.event_frame({"id": "x"}, b"y" * 5000))
    items = list(inlong_proto.iter_frames(big, P, mode="PERMISSIVE", max_frame_size=1024))
    assert items[0].error is not None
    assert list(inlong_proto.iter_frames(big, P, max_frame_size=8192))[0].length == len(big)


def test_cli_decodes_a_dump(tmp_path):
    dump = tmp_path / "frames.bin"
    dump.write_bytes(ALL_VALID)
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", P, "-T", "json", str(dump)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["message_type"] for r in rows] == [p.values[0]["message_type"] for p in VALID]
    assert rows[0]["payload"]["attributes"] or rows[0]["payload"]["msg_type"]


def test_auto_detection_finds_the_frames(tmp_path):
    from inlong_proto.core import detect

    assert "eventmesh-frame" in detect.ORDER


# ------------------------------------------------------------------------------------------ event model
def test_event_frame_maps_to_the_event_model_and_back():
    frame = inlong_proto.decode(bytes.fromhex(BY_NAME["event_cloudevent"]["hex"]), P)
    event = convert.event_from_frame(frame.message)
    assert (event.id, event.source, event.type, event.subject, event.data_content_type) == (
        "e-1", "/orders", "com.example.created", "orders", "application/json")
    assert event.data == '{"orderId":42}' and event.spec_version == "1.0"
    assert event.extensions == {"time": "2026-01-02T03:04:05.678Z", "emttl": "4000", "emtenantid": "t1"}
    again = convert.event_from_frame(convert.frame_of_event(event))
    assert again == event


def test_stream_frames_are_not_events():
    frame = inlong_proto.decode(bytes.fromhex(BY_NAME["stream_chunk"]["hex"]), P)
    with pytest.raises(EncodeError):
        convert.event_from_frame(frame.message)


def test_binary_event_data_stays_bytes():
    frame = inlong_proto.decode(bytes.fromhex(BY_NAME["event_binary_data"]["hex"]), P)
    assert convert.event_from_frame(frame.message).data == bytes([0, 0xFF, 0xC3, 0x28])


@pytest.mark.skipif(__import__("shutil").which("javac") is None, reason="needs a JDK")
def test_java_reads_the_vectors_as_upstream_would(tmp_path):
    """tests/tools/java/EventMeshFrameCheck.java makes upstream's ByteBuffer / LinkedHashMap / String(UTF_8) calls:
    every valid vector decodes and re-encodes byte for byte (but the duplicate name, which the map folds), and a
    malformed one throws exactly when its `upstream` note says so."""
    source = ROOT / "tests" / "tools" / "java" / "EventMeshFrameCheck.java"
    subprocess.run(["javac", "-d", str(tmp_path), str(source)], check=True, timeout=120)
    lines = [f"{kind}/{p.id} {p.values[0]['hex']}" for kind, params in (("valid", VALID), ("malformed", MALFORMED))
             for p in params]
    listing = tmp_path / "vectors.txt"
    listing.write_text("\n".join(lines) + "\n")
    out = subprocess.run(["java", "-cp", str(tmp_path), "EventMeshFrameCheck", str(listing)], check=True,
                         capture_output=True, text=True, timeout=120).stdout.splitlines()
    said = dict(line.split(" ", 1) for line in out)
    for param in VALID:
        expected = "REENCODED-DIFFERENT" if param.id == "event_duplicate_name" else "REENCODED-EQUAL"
        assert said[f"valid/{param.id}"].endswith(expected), param.id
    for param in MALFORMED:
        throws = param.values[0]["upstream"].startswith("throws")
        assert said[f"malformed/{param.id}"].startswith("THROWS") == throws, param.id

"""DataProxy frames: vectors through the own codec and the Kaitai reference, both directions, round trips,
malformed input and fuzzing. (Construct's target has no bit fields, so it cannot take these specs.)"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError
from inlong_proto.core import protocols
from inlong_proto.backends import reference
from inlong_proto.core.plain import from_plain, to_plain

import backends
import strategies
import vectors

VALID = vectors.load("dataproxy", "valid")
MALFORMED = vectors.load("dataproxy", "malformed")


@pytest.mark.parametrize("vector", VALID)
@pytest.mark.parametrize("backend", ["own", "kaitai"])
def test_valid_vector_decodes_identically(vector, backend):
    data = bytes.fromhex(vector["hex"])
    assert backends.ALL[backend]("dataproxy", data, vector["direction"]) == vector["expected"]


def test_construct_reference_says_it_cannot_express_bit_fields():
    with pytest.raises(reference.UnsupportedBackendError, match="incomplete"):
        reference.load("construct", "dataproxy_request")


@pytest.mark.parametrize("vector", VALID)
def test_valid_vector_metadata_and_encode(vector):
    data = bytes.fromhex(vector["hex"])
    frame = inlong_proto.decode(data, "dataproxy", vector["direction"])
    assert (frame.message_type, frame.direction, frame.length) == (vector["message_type"], vector["direction"],
                                                                   len(data))
    assert inlong_proto.encode(frame) == data
    frame_type = protocols.get("dataproxy").frame_type_for(vector["direction"])
    assert inlong_proto.encode(from_plain(frame_type, vector["expected"])) == data


@pytest.mark.parametrize("vector", VALID)
def test_without_a_direction_the_layout_that_decodes_is_reported(vector):
    data = bytes.fromhex(vector["hex"])
    frame = inlong_proto.decode(data, "dataproxy")
    assert to_plain(frame.message) == vector["expected"] and frame.message_type == vector["message_type"]
    other = "response" if vector["direction"] == "request" else "request"
    try:
        inlong_proto.decode(data, "dataproxy", other)
        unique = False
    except DecodeError:
        unique = True
    assert frame.direction == (vector["direction"] if unique else None)


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector_is_a_typed_error(vector):
    with pytest.raises(DecodeError) as caught:
        inlong_proto.decode(bytes.fromhex(vector["hex"]), "dataproxy", vector["direction"])
    assert (type(caught.value).__name__, caught.value.offset, caught.value.field) == (
        vector["error"], vector["offset"], vector["field"]), str(caught.value)


def test_flags_and_ids_are_separate_fields():
    frame = inlong_proto.decode(bytes.fromhex(
        vectors.load("dataproxy", "valid")[[p.id for p in VALID].index(
            "request_bin_message_numeric_ids_compressed")].values[0]["hex"]), "dataproxy")
    message = frame.message
    assert (message.compressed, message.encrypted, message.auth, int(message.base_type)) == (True, False, False, 7)
    assert (message.body.group_num, message.body.stream_num, message.body.ext_field.separated_by_lf) == (12, 34, True)


def test_frame_limit_is_enforced_before_reading():
    huge = (70000).to_bytes(4, "big") + b"\x03"
    decoder = inlong_proto.StreamDecoder("dataproxy", "request")
    with pytest.raises(inlong_proto.FrameTooLargeError):
        decoder.feed(huge)
    assert inlong_proto.StreamDecoder("dataproxy", "request", max_frame_size=20 << 20).feed(huge) == []


@pytest.mark.parametrize("direction", ["request", "response"])
@settings(max_examples=60)
@given(data=st.data())
def test_round_trips_with_messages_drawn_from_the_spec(direction, data):
    message = data.draw(strategies.frames("dataproxy", direction))
    try:
        encoded = inlong_proto.encode(message)
    except inlong_proto.EncodeError:
        return  # drawn values the spec refuses as a whole (e.g. an attr longer than 32767 bytes)
    frame = inlong_proto.decode(encoded, "dataproxy", direction)
    assert frame.message == message
    assert inlong_proto.encode(frame) == encoded
    assert backends.kaitai("dataproxy", encoded, direction) == to_plain(frame.message)


@settings(max_examples=300)
@given(st.binary(max_size=120), st.sampled_from([None, "request", "response"]))
def test_fuzz_only_decode_errors_and_every_byte_accounted(data, direction):
    try:
        inlong_proto.decode(data, "dataproxy", direction)
    except DecodeError:
        pass
    position = 0
    for frame in inlong_proto.iter_frames(data, "dataproxy", direction, mode="PERMISSIVE"):
        assert frame.offset == position and frame.length > 0
        position += frame.length
    assert position == len(data)


@settings(max_examples=100)
@given(st.lists(st.sampled_from([p.values[0]["hex"] for p in VALID if p.values[0]["direction"] == "request"]),
                max_size=6), st.integers(1, 50))
def test_request_stream_in_chunks(hexes, chunk):
    stream = b"".join(bytes.fromhex(h) for h in hexes)
    decoder = inlong_proto.StreamDecoder("dataproxy", "request")
    frames = []
    for start in range(0, len(stream), chunk):
        frames += decoder.feed(stream[start:start + chunk])
    frames += decoder.close()
    assert [inlong_proto.encode(f) for f in frames] == [bytes.fromhex(h) for h in hexes]


@pytest.mark.parametrize("vector", VALID)
def test_every_vector_payload_reads(vector):
    from inlong_proto.dataproxy.payload import payload

    frame = inlong_proto.decode(bytes.fromhex(vector["hex"]), "dataproxy", vector["direction"])
    read = payload(frame)
    assert read.direction == vector["direction"]
    if vector["message_type"] in ("bin_message", "text_message") and vector["direction"] == "request" \
            and not read.encrypted and int(read.base_type) != 1:
        assert read.records, "a data request carries records"


def test_cli_decode_with_payload(tmp_path):
    import json
    import subprocess
    import sys

    dump = tmp_path / "requests.bin"
    dump.write_bytes(b"".join(bytes.fromhex(p.values[0]["hex"]) for p in VALID
                              if p.values[0]["direction"] == "request"))
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "dataproxy", "-d", "request",
                             "--payload", str(dump)], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    hello = next(line for line in lines if line["payload"]["records"] and
                 line["payload"]["records"][0]["data"] == "hello")
    assert (hello["payload"]["group_id"], hello["payload"]["stream_id"]) == ("g1", "s1")

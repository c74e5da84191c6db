"""Bad input: every way a broadcast stream can be wrong yields the typed error, never a crash or a hang."""
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError, EncodeError, FrameTooLargeError, TruncatedError
from inlong_proto.generated.codec.broadcast import broadcast_frame as bf

import vectors

VALID = [bytes.fromhex(p.values[0]["hex"]) for p in vectors.load("broadcast", "valid")]
REQUEST = inlong_proto.encode(bf.BroadcastFrame(body=bf.DataRequest(last_timestamp=datetime(2026, 1, 2), last_data=3)))
RESPONSE = inlong_proto.encode(bf.BroadcastFrame(body=bf.DataResponse(
    status=bf.Status.real_time, timestamp=datetime(2026, 1, 2, 3, 4, 5, 6000), data=7)))


@pytest.mark.parametrize("frame", VALID, ids=range(len(VALID)))
def test_truncated_at_every_byte(frame):
    for cut in range(len(frame)):
        with pytest.raises(TruncatedError) as caught:
            inlong_proto.decode(frame[:cut], "broadcast")
        assert caught.value.offset == cut
        decoder = inlong_proto.StreamDecoder("broadcast")
        assert decoder.feed(frame[:cut]) == []  # need more data is not an error
        if cut:  # an empty stream is a complete stream
            with pytest.raises(TruncatedError):
                decoder.close()


def test_trailing_bytes_after_a_single_frame():
    with pytest.raises(inlong_proto.ValidationError, match="follow the frame"):
        inlong_proto.decode(REQUEST + b"x", "broadcast")


def test_garbage_between_frames_permissive_covers_every_byte():
    garbage = b"\x00\x00\x00\x26junk!!"
    data = REQUEST + garbage + RESPONSE + garbage
    frames = list(inlong_proto.iter_frames(data, "broadcast", mode="PERMISSIVE"))
    assert [(f.offset, f.length, f.error is None) for f in frames] == [
        (0, 37, True), (37, len(garbage), False), (37 + len(garbage), 38, True),
        (75 + len(garbage), len(garbage), False)]
    assert frames[1].raw == garbage
    assert (frames[1].error.offset, frames[1].error.field) == (41, "command_id")
    assert b"".join(f.raw or data[f.offset:f.offset + f.length] for f in frames) == data


def test_garbage_between_frames_dropmalformed_and_failfast():
    data = REQUEST + b"garbage" + RESPONSE
    kept = list(inlong_proto.iter_frames(data, "broadcast", mode="DROPMALFORMED"))
    assert [f.message_type for f in kept] == ["data_request", "data_response"]
    frames = inlong_proto.iter_frames(data, "broadcast")
    assert next(frames).message_type == "data_request"  # frames before the error are still delivered
    with pytest.raises(DecodeError) as caught:
        next(frames)
    assert caught.value.offset == 37 and caught.value.field == "total_length"


def test_stream_decoder_failfast_returns_good_frames_then_raises():
    decoder = inlong_proto.StreamDecoder("broadcast")
    assert [f.message_type for f in decoder.feed(REQUEST + b"garbage!")] == ["data_request"]
    with pytest.raises(DecodeError) as caught:
        decoder.feed(b"")
    assert caught.value.offset == 37


def test_stream_decoder_permissive_matches_iter_frames_byte_by_byte():
    data = b"xx" + REQUEST + b"\x00" * 50 + RESPONSE + RESPONSE[:20]
    expected = list(inlong_proto.iter_frames(data, "broadcast", mode="PERMISSIVE"))
    decoder = inlong_proto.StreamDecoder("broadcast", mode="PERMISSIVE")
    got = [f for i in range(len(data)) for f in decoder.feed(data[i:i + 1])] + decoder.close()
    assert [(f.offset, f.length, f.message_type) for f in got] == \
        [(f.offset, f.length, f.message_type) for f in expected]


def test_max_frame_size_is_enforced_before_buffering():
    with pytest.raises(FrameTooLargeError):
        inlong_proto.decode(REQUEST, "broadcast", max_frame_size=36)
    decoder = inlong_proto.StreamDecoder("broadcast", mode="PERMISSIVE", max_frame_size=64)
    for _ in range(100):  # 10 kB of garbage never accumulates past the limit
        decoder.feed(b"\x7f" * 100)
        assert decoder.buffered <= 2 * 64


@pytest.mark.parametrize("bad, field", [
    (dict(last_timestamp=datetime(2026, 1, 1), last_data=100), "body.last_data"),
    (dict(last_timestamp=datetime(2026, 1, 1, 0, 0, 0, 1), last_data=1), "body.last_timestamp"),
    (dict(last_timestamp="2026-01-01", last_data=1), "body.last_timestamp"),
    (dict(last_timestamp=datetime(2026, 1, 1), last_data="1"), "body.last_data"),
])
def test_encode_refuses_values_the_spec_forbids(bad, field):
    with pytest.raises(EncodeError) as caught:
        inlong_proto.encode(bf.BroadcastFrame(body=bf.DataRequest(**bad)))
    assert caught.value.field == field


def test_encode_checks_given_derived_fields():
    body = bf.DataRequest(last_timestamp=datetime(2026, 1, 1), last_data=1)
    assert inlong_proto.encode(bf.BroadcastFrame(total_length=37, command_id=0, body=body)) == \
        inlong_proto.encode(bf.BroadcastFrame(body=body))
    with pytest.raises(EncodeError, match="derived"):
        inlong_proto.encode(bf.BroadcastFrame(total_length=38, body=body))
    with pytest.raises(EncodeError, match="derived"):
        inlong_proto.encode(bf.BroadcastFrame(command_id=bf.Command.data_response, body=body))
    with pytest.raises(EncodeError):
        inlong_proto.encode(bf.BroadcastFrame(body=b"raw"))
    with pytest.raises(EncodeError):
        inlong_proto.encode(object())


def test_bad_arguments_are_clear():
    with pytest.raises(inlong_proto.UnknownProtocolError):
        inlong_proto.decode(REQUEST, "nope")
    with pytest.raises(ValueError, match="direction"):
        inlong_proto.decode(REQUEST, "broadcast", "sideways")
    with pytest.raises(ValueError, match="mode"):
        inlong_proto.StreamDecoder("broadcast", mode="LENIENT")


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes_only_decode_errors(data):
    try:
        inlong_proto.decode(data, "broadcast")
    except DecodeError:
        pass
    try:
        list(inlong_proto.iter_frames(data, "broadcast"))
    except DecodeError:
        pass
    frames = list(inlong_proto.iter_frames(data, "broadcast", mode="PERMISSIVE"))
    position = 0
    for frame in frames:  # frames and error spans tile the input exactly
        assert frame.offset == position and frame.length > 0
        position += frame.length
    assert position == len(data)


@settings(max_examples=200)
@given(st.lists(st.sampled_from([REQUEST, RESPONSE, b"\x00", b"\xff" * 3, b"\x00\x00\x00\x25"]), max_size=12),
       st.integers(1, 40))
def test_fuzz_mixed_stream_in_chunks(parts, chunk):
    data = b"".join(parts)
    expected = [(f.offset, f.length, f.error is None) for f in
                inlong_proto.iter_frames(data, "broadcast", mode="PERMISSIVE")]
    decoder = inlong_proto.StreamDecoder("broadcast", mode="PERMISSIVE")
    got = []
    for start in range(0, len(data), chunk):
        got += decoder.feed(data[start:start + chunk])
    got += decoder.close()
    assert [(f.offset, f.length, f.error is None) for f in got] == expected


def test_stream_decoder_direction_errors_are_stream_offsets():
    data = REQUEST * 3 + RESPONSE
    decoder = inlong_proto.StreamDecoder("broadcast", "request", mode="PERMISSIVE")
    frames = [f for i in range(0, len(data), 5) for f in decoder.feed(data[i:i + 5])] + decoder.close()
    errors = [f.error.offset for f in frames if f.error is not None]
    assert errors and errors[0] == 3 * len(REQUEST)

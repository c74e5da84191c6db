"""detect(): which protocol a dump holds, from its first bytes (sans-IO)."""
import random

import pytest

from inlong_proto import ValidationError, decode
from inlong_proto.core import protocols
from inlong_proto.core.detect import HEAD_SIZE, SIGNATURES, candidates, detect, score

import vectors

VALID = vectors.valid_frames()
CASES = [pytest.param(name, i, id=f"{name}-{i}") for name, frames in VALID.items() for i in range(len(frames))]


def test_every_protocol_has_vectors_and_is_a_candidate():
    assert set(VALID) == set(protocols.names()) == set(candidates())


@pytest.mark.parametrize("name,index", CASES)
def test_a_dump_of_vectors_is_detected(name, index):
    frames = VALID[name]
    one = frames[index]
    assert detect(one) == name
    rng = random.Random(index)
    dump = b"".join([one] + [rng.choice(frames) for _ in range(5)])
    assert detect(dump) == name
    assert detect(dump + b"\x00garbage after the first frames") == name  # later corruption does not matter


@pytest.mark.parametrize("name", sorted(VALID))
def test_a_head_that_ends_inside_a_frame_is_enough(name):
    dump = b"".join(VALID[name][:3] * 2)
    first = len(VALID[name][0])
    assert detect(dump[:first + 20]) == name  # one whole frame, then a piece of the next
    assert detect(dump[:HEAD_SIZE]) == name


def test_legacy_eventmesh_is_told_from_the_current_form_by_its_lengths():
    for legacy in VALID["eventmesh-legacy"]:
        assert score(legacy, "eventmesh-legacy") > score(legacy, "eventmesh")
    for current in VALID["eventmesh"]:
        assert score(current * 2, "eventmesh") > score(current * 2, "eventmesh-legacy")


@pytest.mark.parametrize("data", [
    b"", b"\x00", bytes(100), bytes(range(256)) * 4, b"hello, world\n" * 50, b"EventMesh", b"EventMesh0000",
    b"\xff\x7f\xf4\xfe" + bytes(8), b"\x00\x00\x00\x25\x00\x00\x00\x07" + bytes(29),
], ids=["empty", "one-byte", "zeros", "bytes", "text", "magic-only", "magic-version", "token-no-blocks",
        "broadcast-bad-command"])
def test_nothing_matches_junk(data):
    assert detect(data) is None


@pytest.mark.parametrize("name", sorted(VALID))
def test_a_corrupted_first_frame_matches_nothing_of_its_protocol(name):
    frame = bytearray(b"".join(VALID[name][:2]))
    frame[0] ^= 0xFF  # the length's or signature's first byte
    assert detect(bytes(frame)) != name


def test_payload_bytes_do_not_fool_detection():
    """A broadcast frame's value field holding DataProxy-looking bytes, and a DataProxy record holding a
    whole broadcast dump: each is detected as what it is on the outside."""
    from inlong_proto import encode
    from inlong_proto.dataproxy import builders

    broadcast_dump = b"".join(VALID["broadcast"])
    outer = encode(builders.bin_request([broadcast_dump], group_id="g", stream_id="s",
                                        data_time_ms=1_700_000_000_000, unique_id=1, report_time_ms=None))
    assert detect(outer * 2) == "dataproxy"
    assert detect(broadcast_dump) == "broadcast"


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_what_the_codecs_require(name):
    signature = SIGNATURES[name]
    for frame in VALID[name]:
        assert frame.startswith(signature)
        for i in range(len(signature)):
            broken = bytearray(frame)
            broken[i] ^= 0x01
            with pytest.raises(ValidationError):
                decode(bytes(broken), name)

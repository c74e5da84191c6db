"""Every vector through every backend: own generated codec, Kaitai, Construct must agree."""
import pytest

import inlong_proto
from inlong_proto.core import protocols
from inlong_proto.core.plain import from_plain

import backends
import vectors

VALID = vectors.load("broadcast", "valid")
MALFORMED = vectors.load("broadcast", "malformed")


@pytest.mark.parametrize("vector", VALID)
@pytest.mark.parametrize("backend", sorted(backends.ALL))
def test_valid_vector_decodes_identically_in_every_backend(vector, backend):
    assert backends.ALL[backend]("broadcast", bytes.fromhex(vector["hex"])) == vector["expected"]


@pytest.mark.parametrize("vector", VALID)
def test_valid_vector_frame_metadata(vector):
    frame = inlong_proto.decode(bytes.fromhex(vector["hex"]), "broadcast")
    assert (frame.message_type, frame.direction, frame.offset, frame.length) == (
        vector["message_type"], vector["direction"], 0, len(vector["hex"]) // 2)
    assert inlong_proto.decode(bytes.fromhex(vector["hex"]), "broadcast", vector["direction"]) == frame


@pytest.mark.parametrize("vector", VALID)
def test_valid_vector_encodes_back_to_the_same_bytes(vector):
    data = bytes.fromhex(vector["hex"])
    assert inlong_proto.encode(inlong_proto.decode(data, "broadcast")) == data
    message = from_plain(protocols.get("broadcast").frame_type_for(vector["direction"]), vector["expected"])
    assert inlong_proto.encode(message) == data


@pytest.mark.parametrize("vector", VALID)
def test_wrong_direction_is_a_decode_error(vector):
    other = "response" if vector["direction"] == "request" else "request"
    with pytest.raises(inlong_proto.ValidationError, match="direction"):
        inlong_proto.decode(bytes.fromhex(vector["hex"]), "broadcast", other)


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector_is_a_typed_error_at_the_right_place(vector):
    with pytest.raises(inlong_proto.DecodeError) as caught:
        inlong_proto.decode(bytes.fromhex(vector["hex"]), "broadcast")
    error = caught.value
    assert type(error).__name__ == vector["error"]
    assert (error.offset, error.field) == (vector["offset"], vector["field"]), str(error)
    assert error.reason and str(error.offset) in str(error)


@pytest.mark.parametrize("vector", MALFORMED)
def test_kaitai_reference_rejects_malformed_vectors_too(vector):
    """The spec's checks are real Kaitai `valid` keys, so the official parser refuses the same input."""
    with pytest.raises(Exception):
        backends.kaitai("broadcast", bytes.fromhex(vector["hex"]))

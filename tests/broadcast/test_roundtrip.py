"""Round trips with messages drawn from the spec: encode∘decode and decode∘encode are identities."""
from hypothesis import given, settings
from hypothesis import strategies as st

import inlong_proto
import backends
import strategies

FRAMES = strategies.frames("broadcast")


@given(FRAMES)
def test_decode_of_encode_is_identity(message):
    data = inlong_proto.encode(message)
    frame = inlong_proto.decode(data, "broadcast")
    assert frame.message == message
    assert frame.length == len(data) == frame.message.total_length


@given(FRAMES)
def test_encode_of_decode_is_identity(message):
    data = inlong_proto.encode(message)
    assert inlong_proto.encode(inlong_proto.decode(data, "broadcast")) == data


@settings(max_examples=50)
@given(FRAMES)
def test_backends_agree_on_random_frames(message):
    data = inlong_proto.encode(message)
    results = {name: decode("broadcast", data) for name, decode in backends.ALL.items()}
    assert results["own"] == results["kaitai"] == results["construct"]


@given(st.lists(FRAMES, max_size=8), st.data())
def test_stream_split_anywhere_gives_the_same_frames(messages, data):
    stream = b"".join(inlong_proto.encode(m) for m in messages)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = inlong_proto.StreamDecoder("broadcast")
    got = []
    for start, end in zip([0] + cuts, cuts + [len(stream)]):
        got += decoder.feed(stream[start:end])
    got += decoder.close()
    assert [f.message for f in got] == messages
    assert decoder.buffered == 0

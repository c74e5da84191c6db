"""The compiled TubeMQ payload layer (inlong_proto._compiled.tubemq_layer) against the Python one (rpc.describe).

Its contract: a code >= 0 means describe accepts the frame in that direction with exactly that message
type and direction; -1 leaves the decision to Python. Every frame here is checked in the three directions
(None, "request", "response"): the TubeMQ vectors, frames built from the descriptors for every method
(hypothesis), more than 100,000 mutated RPC streams, and the bench's traffic, where -1 must not occur.
"""
import ctypes
import json
import mmap
import random
import struct
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor, message_factory
from google.protobuf.internal.encoder import _VarintBytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inlong_proto.backends import compiled as native
from inlong_proto.generated.codec.tubemq import tubemq_frame
from inlong_proto.tubemq import rpc

layer = native.part("tubemq_layer")
if layer is None:
    pytest.skip("the compiled TubeMQ layer is not built", allow_module_level=True)

FD = descriptor.FieldDescriptor
VECTORS = Path(__file__).parent.parent / "vectors" / "tubemq"
DIRECTIONS = (None, "request", "response")
WANT = {None: 0, "request": 1, "response": 2}
INT32 = (-2**31, 2**31 - 1)
VARINT_RANGES = {FD.TYPE_INT32: INT32, FD.TYPE_INT64: (-2**63, 2**63 - 1), FD.TYPE_UINT32: (0, 2**32 - 1),
                 FD.TYPE_UINT64: (0, 2**64 - 1)}
LENGTH_DELIMITED = (FD.TYPE_STRING, FD.TYPE_BYTES, FD.TYPE_MESSAGE)
INVALID_UTF8 = (b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"ab\xe2\x82", b"\x80", b"\xf8\x88")
SPECIAL_VARINTS = (0, 1, 2, 3, 127, 128, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1)
PROT_NONE = 0  # mprotect: no access (the mmap module names only PROT_READ and PROT_WRITE)


# ------------------------------------------------------------------------------------------ the comparison
def buffers(frames):
    """The three Arrow buffers verdicts reads, laid out as the blocks column holds them."""
    lists, items, data, blocks, size = [0], [0], [], 0, 0
    for frame in frames:
        for block in frame.blocks:
            data.append(block.data)
            size += len(block.data)
            items.append(size)
        blocks += len(frame.blocks)
        lists.append(blocks)
    return struct.pack(f"<{len(lists)}i", *lists), struct.pack(f"<{len(items)}i", *items), b"".join(data)


def framed(serial_no: int, stream: bytes):
    """The stream in a frame as the Python path sees one: rpc.frame_of, encoded and decoded by the codec."""
    frame, _ = tubemq_frame.decode(tubemq_frame.encode(rpc.frame_of(serial_no, stream)))
    return frame


def codes(frames, direction):
    raw = layer.verdicts(len(frames), *buffers(frames), WANT[direction])
    return struct.unpack(f"<{len(frames)}i", raw)


def python_answer(frame, direction):
    """(message type, direction) as describe gives them, or None where it raises."""
    try:
        message_type, answered, _ = rpc.describe(frame, direction)
    except Exception:  # noqa: BLE001 - any refusal is "not accepted"
        return None
    return message_type, answered


def compiled_answer(code):
    return None if code < 0 else (layer.MESSAGE_TYPES[code >> 1], "response" if code & 1 else "request")


def check(frames):
    """Assert the invariant on every frame in every direction; returns the codes, per direction."""
    out = {}
    for direction in DIRECTIONS:
        found = codes(frames, direction)
        for index, (frame, code) in enumerate(zip(frames, found)):
            assert code >= -1
            if code >= 0:
                stream = b"".join(block.data for block in frame.blocks)
                assert python_answer(frame, direction) == compiled_answer(code), \
                    f"frame {index}, direction {direction}: stream {stream.hex()}"
        out[direction] = found
    return out


def accepted_everywhere(frames, found):
    """The frames Python accepts (in the direction its flag says) must get the same answer, never -1."""
    for frame, code in zip(frames, found[None]):
        assert python_answer(frame, None) is not None
        assert code >= 0


# ------------------------------------------------------------------------------------------ valid messages
def filled(cls, rng: random.Random, depth: int = 0):
    """A message of cls with its required fields and a random choice of the others set to random values."""
    message = cls()
    for field in cls.DESCRIPTOR.fields:
        if field.is_repeated:
            count = rng.randrange(3)
        elif field.is_required or rng.random() < 0.5:
            count = 1
        else:
            continue
        for _ in range(count):
            if field.type == FD.TYPE_MESSAGE:
                target = getattr(message, field.name)
                item = target.add() if field.is_repeated else target
                item.CopyFrom(filled(message_factory.GetMessageClass(field.message_type), rng, depth + 1))
                continue
            value = random_value(field, rng)
            if field.is_repeated:
                getattr(message, field.name).append(value)
            else:
                setattr(message, field.name, value)
    return message


def random_value(field, rng: random.Random):
    if field.type in VARINT_RANGES:
        low, high = VARINT_RANGES[field.type]
        return rng.choice((rng.randint(low, high), rng.randint(-3, 300) if low < 0 else rng.randint(0, 300)))
    if field.type == FD.TYPE_BOOL:
        return rng.random() < 0.5
    if field.type == FD.TYPE_ENUM:
        return rng.choice(field.enum_type.values).number
    if field.type == FD.TYPE_STRING:
        return "".join(rng.choice("abc-=,:#@é中\U0001F600") for _ in range(rng.randrange(12)))
    if field.type == FD.TYPE_BYTES:
        return rng.randbytes(rng.randrange(20))
    raise AssertionError(f"no random value for {field.full_name}")


def valid_call(rng: random.Random, method_id: int, side: str):
    """[conn header, header, body] of a call (side "request", "response" or "exception") and its business
    message's bytes, which the body carries."""
    entry = rpc.METHODS.get(method_id)
    business = filled(rpc.message_class(entry[side]), rng).SerializeToString() \
        if entry is not None and side != "exception" else rng.randbytes(rng.randrange(8))
    r = rpc.RPC_pb2
    if side == "request":
        return [r.RpcConnHeader(flag=rng.choice((0, 0, 10))), r.RequestHeader(serviceType=rng.randrange(1, 4),
                protocolVer=rng.choice((2, 3))), r.RequestBody(method=method_id, timeout=10000)], business
    if side == "response":
        return [r.RpcConnHeader(flag=1), r.ResponseHeader(status=0, protocolVer=3),
                r.RspResponseBody(method=method_id)], business
    header = r.ResponseHeader(status=rng.choice((1, 2)))
    body = r.RspExceptionBody(exceptionName=rpc.STANDBY_CLASS)
    if rng.random() < 0.5:
        body.stackTrace = "java.lang.Exception: é" * rng.randrange(3)
    return [r.RpcConnHeader(flag=1), header, body], b""


def stream_of(parts, business: bytes) -> bytes:
    """The RPC stream: each part delimited, the business bytes inside the body's payload field."""
    body = parts[2]
    if isinstance(body, rpc.RPC_pb2.RequestBody):
        body.request = business
    elif isinstance(body, rpc.RPC_pb2.RspResponseBody):
        body.data = business
    return b"".join(_VarintBytes(len(data)) + data for data in
                    (part if isinstance(part, bytes) else part.SerializePartialToString() for part in parts))


ALL_METHOD_IDS = sorted(rpc.METHODS) + sorted(rpc.UNSUPPORTED_METHODS)


def test_message_types_are_describes():
    assert layer.MESSAGE_TYPES == tuple([entry["name"] for entry in rpc.METHODS.values()] +
                                        [entry["constant"] for entry in rpc.UNSUPPORTED_METHODS.values()] +
                                        ["exception"])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), method_id=st.sampled_from(ALL_METHOD_IDS),
       side=st.sampled_from(("request", "response", "exception")))
def test_valid_frames_of_every_method(seed, method_id, side):
    rng = random.Random(seed)
    parts, business = valid_call(rng, method_id, side)
    frames = [framed(1, stream_of(parts, business))]
    found = check(frames)
    accepted_everywhere(frames, found)


# ------------------------------------------------------------------------------------------ vectors, traffic
def vector_frames(kind: str):
    frames = []
    for path in sorted((VECTORS / kind).glob("*.json")):
        data = bytes.fromhex(json.loads(path.read_text())["hex"])
        try:
            frame, _ = tubemq_frame.decode(data)
        except Exception:  # noqa: BLE001 - a vector malformed at the frame level has no RPC stream to judge
            continue
        frames.append(frame)
    return frames


def test_valid_vectors():
    frames = vector_frames("valid")
    assert len(frames) >= 40
    accepted_everywhere(frames, check(frames))


def test_malformed_vectors():
    frames = vector_frames("malformed")
    assert frames
    check(frames)


def blocks_buffers(batch):
    """The buffers of a scanned batch's blocks column, as the native integration hands them over."""
    blocks = batch.column(batch.schema.get_field_index("blocks"))
    data = blocks.values.field("data")
    assert blocks.offset == 0 and data.offset == 0
    return blocks.buffers()[1], data.buffers()[1], data.buffers()[2]


def test_scanned_vectors_and_bench_traffic():
    """Through the compiled scanner's own Arrow column: every valid vector and the bench's producer traffic
    answered in C, never -1, as describe answers them."""
    from tools.bench.native import make_tubemq_frames

    dumps = [tubemq_frame.encode(frame) for frame in vector_frames("valid")] + make_tubemq_frames(2000)
    batch = native.scan_batch(b"".join(dumps), "tubemq", "test")
    assert batch.num_rows == len(dumps)
    found = struct.unpack(f"<{batch.num_rows}i", layer.verdicts(batch.num_rows, *blocks_buffers(batch), 0))
    assert min(found) >= 0
    assert [compiled_answer(code) for code in found] == list(zip(batch.column("message_type").to_pylist(),
                                                                  batch.column("direction").to_pylist()))


# ------------------------------------------------------------------------------------------ mutations
def tag(number: int, wire_type: int) -> bytes:
    return _VarintBytes((number << 3) | wire_type)


def varint(value: int) -> bytes:
    """A varint of any value below 2^70 (protobuf's encoder stops at 64 bits)."""
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def wrong_wire_type(field, rng) -> bytes:
    """The field's number with a wire type its kind does not have, and a value of that wire type (3 starts
    a group)."""
    expected = 2 if field.type in LENGTH_DELIMITED else 0
    wire_type = rng.choice([wire_type for wire_type in (0, 1, 2, 3, 5) if wire_type != expected])
    return tag(field.number, wire_type) + {0: b"\x01", 1: bytes(8), 2: b"\x01\x01", 3: b"", 5: bytes(4)}[wire_type]


def mutate_message(data: bytes, descriptor_, rng: random.Random) -> bytes:
    """One structural change to a message's bytes: a field appended (a later field wins, or adds an item)
    holding a wrong wire type, an out-of-enum value, invalid UTF-8, an odd varint, an unknown field; or a
    required field removed."""
    fields = list(descriptor_.fields)
    op = rng.randrange(7)
    if op == 0 and any(f.is_required for f in fields):
        message = message_factory.GetMessageClass(descriptor_)()
        message.ParseFromString(data)
        message.ClearField(rng.choice([f for f in fields if f.is_required]).name)
        return message.SerializePartialToString()
    if op == 1 and fields:
        return data + wrong_wire_type(rng.choice(fields), rng)
    enums = [f for f in fields if f.type == FD.TYPE_ENUM]
    if op == 2 and enums:
        field = rng.choice(enums)
        return data + tag(field.number, 0) + varint(rng.choice((3, 7, 2**32 - 1, 2**64 - 1, 2**31)))
    strings = [f for f in fields if f.type == FD.TYPE_STRING]
    if op == 3 and strings:
        text = rng.choice(INVALID_UTF8)
        return data + tag(rng.choice(strings).number, 2) + varint(len(text)) + text
    if op == 4 and fields:
        field = rng.choice([f for f in fields if f.type not in LENGTH_DELIMITED] or fields)
        value = rng.choice(SPECIAL_VARINTS + (rng.getrandbits(64), rng.getrandbits(70)))
        return data + tag(field.number, 0) + varint(value)
    if op == 5:  # an unknown field, or a tag that is no field at all
        number = rng.choice((0, 99, 2**29 - 1, 2**29, rng.randrange(1, 40)))
        wire_type = rng.randrange(8)
        payload = {0: varint(rng.choice(SPECIAL_VARINTS)), 1: bytes(8), 2: b"\x02ab", 5: bytes(4)}.get(wire_type, b"")
        return data + varint((number << 3) | wire_type) + payload
    messages = [f for f in fields if f.type == FD.TYPE_MESSAGE]
    if messages:  # an embedded message that is itself damaged
        field = rng.choice(messages)
        inner = mutate_message(filled(message_factory.GetMessageClass(field.message_type), rng).SerializeToString(),
                               field.message_type, rng)
        return data + tag(field.number, 2) + varint(len(inner)) + inner
    return data + rng.randbytes(rng.randrange(1, 4))


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """A byte-level change: a flipped bit or replaced byte, a cut, inserted bytes, a deleted run."""
    if not data:
        return rng.randbytes(rng.randrange(1, 6))
    at = rng.randrange(len(data))
    op = rng.randrange(5)
    if op == 0:
        return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
    if op == 1:
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    if op == 2:
        return data[:at]
    if op == 3:
        return data[:at] + rng.choice((rng.randbytes(rng.randrange(1, 5)), varint(rng.getrandbits(64)))) + data[at:]
    return data[:at] + data[at + rng.randrange(1, 6):]


def mutated_stream(rng: random.Random) -> bytes:
    side = rng.choice(("request", "response", "exception"))
    method_id = rng.choice(ALL_METHOD_IDS)
    parts, business = valid_call(rng, method_id, side)
    entry = rpc.METHODS.get(method_id) if side != "exception" else None
    if entry is not None and rng.random() < 0.5:
        business = mutate_message(business, rpc.message_class(entry[side]).DESCRIPTOR, rng)
    elif rng.random() < 0.5:
        at = rng.randrange(3)
        parts[at] = mutate_message(parts[at].SerializePartialToString(), parts[at].DESCRIPTOR, rng)
        if at == 2:
            business = b""
    if side != "exception" and not isinstance(parts[2], bytes) and rng.random() < 0.15:
        # a method id the payload was not made for
        parts[2].method = rng.choice(ALL_METHOD_IDS + [0, -1, 10, 23, 2**31 - 1, -2**31, rng.randint(*INT32)])
    stream = stream_of(parts, business)
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        stream = mutate_bytes(stream, rng)
    return stream


def test_mutated_streams():
    rng = random.Random(20261125)
    frames = [framed(index, mutated_stream(rng)) for index in range(100_000)]
    found = check(frames)
    # the mutations leave many frames valid: those the C layer answered must be plenty, or the test proves little
    answered = sum(code >= 0 for code in found[None])
    assert 10_000 < answered < 90_000


def test_large_streams_cross_blocks():
    """A business message over several 8192-byte blocks is one slice of the data buffer."""
    rng = random.Random(5)
    call = rpc.BrokerService_pb2.SendMessageRequestP2B(clientId="c", topicName="t", partitionId=1,
                                                       data=rng.randbytes(30_000), flag=0, checkSum=-1, sentAddr=1)
    frame = rpc.request_frame(3, "sendMessageP2B", call)
    assert len(frame.blocks) == 4
    found = check([frame, rpc.response_frame(3, "sendMessageP2B", rpc.BrokerService_pb2.SendMessageResponseB2P(
        success=True, errCode=200, errMsg="OK"))])[None]
    sent = layer.MESSAGE_TYPES.index("sendMessageP2B")
    assert found == (sent << 1, (sent << 1) | 1)


# ------------------------------------------------------------------------------------------ the buffers
def test_inconsistent_buffers_are_refused():
    lists, items, data = buffers([rpc.frame_of(1, b"\x02\x08\x00")])
    assert layer.verdicts(0, b"", b"", b"", 0) == b""
    with pytest.raises(ValueError):
        layer.verdicts(2, lists, items, data, 0)  # one row's offsets, two rows asked
    with pytest.raises(ValueError):
        layer.verdicts(1, lists, items, data[:1], 0)  # data shorter than the offsets say
    with pytest.raises(ValueError):
        layer.verdicts(1, struct.pack("<2i", 0, 5), items, data, 0)  # a list offset past item_offsets
    with pytest.raises(ValueError):
        layer.verdicts(1, struct.pack("<2i", 1, 0), items, data, 0)  # offsets going back
    with pytest.raises(ValueError):
        layer.verdicts(1, lists, items, data, 3)
    with pytest.raises(ValueError):
        layer.verdicts(-1, lists, items, data, 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect through ctypes")
def test_reads_stay_inside_the_stream():
    """Each mutated stream placed so that its last byte is the last readable one (an unreadable page follows):
    a read past a stream's end would crash the test."""
    rng = random.Random(77)
    streams = [mutated_stream(rng) for _ in range(20_000)]
    page = mmap.PAGESIZE
    readable = -(-max(map(len, streams)) // page) * page
    area = mmap.mmap(-1, readable + page)
    anchor = ctypes.c_char.from_buffer(area)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(ctypes.addressof(anchor) + readable, page, PROT_NONE) == 0
    data = memoryview(area)[:readable]
    try:
        for stream in streams:
            start = readable - len(stream)
            data[start:] = stream
            for want in (0, 1, 2):
                layer.verdicts(1, struct.pack("<2i", 0, 1), struct.pack("<2i", start, readable), data, want)
    finally:
        data.release()
        libc.mprotect(ctypes.addressof(anchor) + readable, page, mmap.PROT_READ | mmap.PROT_WRITE)
        del anchor
        area.close()


def test_generated_source_is_current():
    """generated/native/tubemq_tables.h is what the generator writes from the descriptors and the method table
    (make check-generated too)."""
    from tools.generate import ROOT
    from tools.ksygen import cgen_protobuf

    assert cgen_protobuf.emit_header() == (ROOT / "generated" / "native" / "tubemq_tables.h").read_text()

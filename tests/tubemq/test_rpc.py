"""TubeMQ frames and the RPC layer: vectors, builders byte for byte, multi-block payloads, exceptions,
message data with checksums, correlation, spec-derived round trips and fuzzing."""
import pytest
from google.protobuf import descriptor
from hypothesis import given, settings
from hypothesis import strategies as st

import inlong_proto
from inlong_proto import DecodeError
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
from inlong_proto.generated.protobuf.tubemq import RPC_pb2
from inlong_proto.tubemq import rpc
from inlong_proto.core.plain import lenient_text

import backends
import vectors

VALID = vectors.load("tubemq", "valid")
MALFORMED = vectors.load("tubemq", "malformed")


@pytest.mark.parametrize("vector", VALID)
def test_valid_vector(vector):
    data = bytes.fromhex(vector["hex"])
    frame = inlong_proto.decode(data, "tubemq")
    assert (frame.message_type, frame.direction) == (vector["message_type"], vector["direction"])
    assert frame.to_dict()["payload"] == vector["expected"]
    assert inlong_proto.encode(frame) == data
    assert backends.kaitai("tubemq", data) == backends.own("tubemq", data) == backends.construct("tubemq", data)


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector(vector):
    with pytest.raises(DecodeError) as caught:
        inlong_proto.decode(bytes.fromhex(vector["hex"]), "tubemq")
    assert (type(caught.value).__name__, caught.value.offset, caught.value.field) == (
        vector["error"], vector["offset"], vector["field"]), str(caught.value)


def hex_of(name):
    return bytes.fromhex(next(p.values[0]["hex"] for p in VALID if p.id == name))


def test_builders_reproduce_the_worked_examples_byte_for_byte():
    close = rpc.request_frame(1, "producerCloseClientP2M", master.CloseRequestP2M(clientId="c1"))
    assert inlong_proto.encode(close) == hex_of("request_producer_close_worked_example")
    ok = rpc.response_frame(1, 3, master.CloseResponseM2P(success=True, errCode=200, errMsg="OK!"))
    assert inlong_proto.encode(ok) == hex_of("response_producer_close_worked_example")
    standby = rpc.exception_frame(1, "org.apache.inlong.tubemq.corerpc.exception.StandbyException", "m")
    assert inlong_proto.encode(standby) == hex_of("response_standby_exception_worked_example")


def test_fatal_answers_are_built_as_the_server_writes_them():
    """Issue 12, item 4. A FATAL answer comes from NettyRpcServer.NettyServerHandler (apache/inlong,
    inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyRpcServer.java):
    its prepareResponse sets ResponseHeader.status only (no protocolVer, unlike NettyRequestContext's ERROR
    and SUCCESS answers), and channelRead writes "IPC server handle request error :" + the message of
    PbEnDecoder.pbDecode's exception ("Unsupported method ID :<id>", a java.lang.Exception)."""
    trace = b"IPC server handle request error :Unsupported method ID :11"
    body = b"\x0a\x13java.lang.Exception" + b"\x12" + bytes([len(trace)]) + trace
    stream = bytes.fromhex("020801" "020802") + bytes([len(body)]) + body  # RpcConnHeader, ResponseHeader
    expected = bytes.fromhex("ff7ff4fe 00000008 00000001") + len(stream).to_bytes(4, "big") + stream
    assert inlong_proto.encode(rpc.unsupported_method_frame(8, 11)) == expected
    assert hex_of("response_fatal_unsupported_method") == expected
    read = rpc.fatal_frame(2, "java.io.IOException", "boom", stage="read")
    assert inlong_proto.decode(inlong_proto.encode(read), "tubemq").payload.exception.message == (
        "IPC server unable to read call parameters:boom")
    fatal = rpc.exception_frame(3, "x.Y", "m", status=2, protocol_ver=3)
    assert not inlong_proto.decode(inlong_proto.encode(fatal), "tubemq").payload.header.HasField("protocolVer")
    with pytest.raises(inlong_proto.EncodeError):
        rpc.exception_frame(3, "x.Y", "m", status=0)
    with pytest.raises(inlong_proto.EncodeError):
        rpc.fatal_frame(3, "x.Y", "m", stage="later")


def test_every_exception_vector_has_the_header_and_text_the_server_writes():
    """ERROR answers carry status and protocolVer; FATAL ones the status only and a stack trace that starts
    with one of the server's prefixes (the FATAL vector once had neither right)."""
    prefixes = tuple(p["text"] for p in rpc.ANSWERS["fatal_stack_trace_prefixes"].values())
    seen = set()
    for param in VALID:
        vector = param.values[0]
        payload = inlong_proto.decode(bytes.fromhex(vector["hex"]), "tubemq").payload
        if payload.direction != "response":
            continue
        status = RPC_pb2.ResponseHeader.Status.Name(payload.header.status)
        seen.add(status)
        set_fields = [field.name for field, _ in payload.header.ListFields()]
        assert set_fields == rpc.ANSWERS["response_header_fields"][status], param.id
        if status == "FATAL":
            assert lenient_text(payload.exception.message).startswith(prefixes), param.id
    assert seen == {"SUCCESS", "ERROR", "FATAL"}


def test_a_payload_over_8_kb_is_cut_into_8192_byte_blocks_anywhere():
    frame = inlong_proto.decode(hex_of("request_send_message_multi_block"), "tubemq")
    sizes = [block.block_len for block in frame.message.blocks]
    assert sizes[:-1] == [8192, 8192] and 0 < sizes[-1] < 8192 and sum(sizes) > 20000
    carried = frame.payload.messages[0]
    assert carried.payload == b"x" * 20000 and carried.checksum is None and carried.attributes == ()


@pytest.mark.parametrize("prefix", ["org.apache.inlong.tubemq", "com.apache.tubemq", "com.tencent.tubemq"])
def test_standby_is_recognised_whatever_the_package(prefix):
    frame = rpc.exception_frame(5, f"{prefix}.corerpc.exception.StandbyException", "not master")
    payload = inlong_proto.decode(inlong_proto.encode(frame), "tubemq").payload
    assert payload.exception.is_standby and payload.message_type == "exception"
    other = rpc.exception_frame(5, f"{prefix}.corerpc.exception.ServiceStoppingException", "stopping")
    assert not inlong_proto.decode(inlong_proto.encode(other), "tubemq").payload.exception.is_standby


def test_message_data_attributes_and_checksum_mismatch_is_reported():
    data = (11).to_bytes(4, "big") + b"$msgType$=t" + b"pay"
    good = rpc.message_data(data, 1, rpc.checksum_of(data))
    assert good.attributes == (("$msgType$", "t"),) and good.payload == b"pay" and good.checksum_ok is True
    assert rpc.message_data(data, 1, 12345).checksum_ok is False
    assert rpc.checksum_of(b"hi") == 1486039724  # facts 2.10
    container = b"\x0f\x04" + b"frame" + b"\x0f\x04"
    assert rpc.message_data(container, 0).container == "InLongMsg v4"
    with pytest.raises(inlong_proto.ValidationError):
        rpc.message_data(b"\x00\x00\x00\x09ab", 1)
    lenient = rpc.message_data(b"ab", 1, strict=False)  # quirk Q-T11: bit 0 set, no header
    assert lenient.payload == b"ab" and "unreadable" in lenient.error


def test_get_message_response_messages_are_decoded():
    payloads = [b"one", (3).to_bytes(4, "big") + b"a=b" + b"two"]
    messages = [broker.TransferedMessage(messageId=i, checkSum=rpc.checksum_of(p), payLoadData=p, flag=i)
                for i, p in enumerate(payloads)]
    response = broker.GetMessageResponseB2C(success=True, errCode=200, messages=messages)
    decoded = inlong_proto.decode(inlong_proto.encode(rpc.response_frame(9, "getMessagesC2B", response)), "tubemq")
    assert [(m.payload, m.attributes, m.checksum_ok) for m in decoded.payload.messages] == [
        (b"one", (), True), (b"two", (("a", "b"),), True)]


def test_calls_pair_by_serial_number_with_latency():
    frames = list(inlong_proto.iter_frames(b"".join(
        inlong_proto.encode(f) for f in (
            rpc.request_frame(1, 3, master.CloseRequestP2M(clientId="a")),
            rpc.request_frame(2, 3, master.CloseRequestP2M(clientId="b")),
            rpc.response_frame(2, 3, master.CloseResponseM2P(success=True, errCode=200, errMsg="OK!")),
            rpc.exception_frame(1, "x.StandbyException", "m"),
            rpc.response_frame(7, 3, master.CloseResponseM2P(success=True, errCode=200, errMsg="OK!")))),
        "tubemq"))
    calls = rpc.pair_calls(frames, [0.0, 0.5, 0.75, 2.0, 3.0])
    assert [(c.serial_no, c.request is not None, c.response is not None, c.latency, c.failed) for c in calls] == [
        (1, True, True, 2.0, True), (2, True, True, 0.25, False), (7, False, True, None, False)]
    assert calls[0].method == "producerCloseClientP2M"
    # Capture times as datetimes (issue 13: the latency came back as a timedelta): the same seconds.
    from datetime import datetime, timedelta, timezone

    t0 = datetime(2026, 11, 24, 12, 0, tzinfo=timezone.utc)
    stamps = [t0 + timedelta(seconds=s) for s in (0.0, 0.5, 0.75, 2.0, 3.0)]
    for times in (stamps, [stamp.replace(tzinfo=None) for stamp in stamps]):
        latencies = [c.latency for c in rpc.pair_calls(frames, times)]
        assert latencies == [2.0, 0.25, None] and all(isinstance(x, float) for x in latencies[:2])


def test_resync_on_the_next_begin_token():
    good = inlong_proto.encode(rpc.request_frame(1, 3, master.CloseRequestP2M(clientId="c1")))
    data = b"\xff\x7f\xf4" + b"noise" + good
    frames = list(inlong_proto.iter_frames(data, "tubemq", mode="PERMISSIVE"))
    assert [(f.offset, f.length, f.error is None) for f in frames] == [(0, 8, False), (8, len(good), True)]


def test_memory_is_bounded_whatever_list_size_claims():
    header = b"\xff\x7f\xf4\xfe" + (1).to_bytes(4, "big") + (3584).to_bytes(4, "big")
    decoder = inlong_proto.StreamDecoder("tubemq", max_frame_size=4096)
    decoder.feed(header + (8192).to_bytes(4, "big"))
    with pytest.raises(inlong_proto.FrameTooLargeError):
        decoder.feed(b"\x00" * 8192)


# --- round trips with business messages drawn from the protobuf descriptors -------------------------

_SCALARS = {
    descriptor.FieldDescriptor.TYPE_INT32: st.integers(-2**31, 2**31 - 1),
    descriptor.FieldDescriptor.TYPE_SINT32: st.integers(-2**31, 2**31 - 1),
    descriptor.FieldDescriptor.TYPE_INT64: st.integers(-2**63, 2**63 - 1),
    descriptor.FieldDescriptor.TYPE_SINT64: st.integers(-2**63, 2**63 - 1),
    descriptor.FieldDescriptor.TYPE_UINT32: st.integers(0, 2**32 - 1),
    descriptor.FieldDescriptor.TYPE_UINT64: st.integers(0, 2**64 - 1),
    descriptor.FieldDescriptor.TYPE_BOOL: st.booleans(),
    descriptor.FieldDescriptor.TYPE_STRING: st.text(max_size=12),
    descriptor.FieldDescriptor.TYPE_BYTES: st.binary(max_size=24),
    descriptor.FieldDescriptor.TYPE_DOUBLE: st.floats(allow_nan=False),
}


def _field(field, depth):
    if field.type == descriptor.FieldDescriptor.TYPE_MESSAGE:
        return messages(field.message_type, depth + 1)
    if field.type == descriptor.FieldDescriptor.TYPE_ENUM:
        return st.sampled_from([value.number for value in field.enum_type.values])
    return _SCALARS[field.type]


def messages(message_descriptor, depth=0):
    """Messages of a descriptor: required fields always set, optional ones sometimes, repeated 0-2."""
    cls = rpc.message_class(message_descriptor.name)

    @st.composite
    def build(draw):
        message = cls()
        for field in message_descriptor.fields:
            if field.is_repeated:
                if depth > 2:
                    continue
                for item in draw(st.lists(_field(field, depth), max_size=2)):
                    if field.type == descriptor.FieldDescriptor.TYPE_MESSAGE:
                        getattr(message, field.name).add().CopyFrom(item)
                    else:
                        getattr(message, field.name).append(item)
            elif field.is_required or (depth <= 2 and draw(st.booleans())):
                value = draw(_field(field, depth))
                if field.type == descriptor.FieldDescriptor.TYPE_MESSAGE:
                    getattr(message, field.name).CopyFrom(value)
                else:
                    setattr(message, field.name, value)
        return message
    return build()


@st.composite
def calls(draw):
    entry = draw(st.sampled_from(sorted(rpc.METHODS.values(), key=lambda e: e["id"])))
    side = draw(st.sampled_from(["request", "response"]))
    message = draw(messages(rpc.message_class(entry[side]).DESCRIPTOR))
    serial = draw(st.integers(-2**31, 2**31 - 1))
    build = rpc.request_frame if side == "request" else rpc.response_frame
    return side, entry, message, build(serial, entry["id"], message)


@settings(max_examples=150, deadline=None)
@given(calls())
def test_round_trip_of_every_method_both_directions(call):
    side, entry, message, frame = call
    data = inlong_proto.encode(frame)
    decoded = inlong_proto.decode(data, "tubemq")
    assert (decoded.direction, decoded.message_type) == (side, entry["name"])
    assert decoded.payload.business == message
    assert inlong_proto.encode(decoded) == data


@settings(max_examples=300)
@given(st.binary(max_size=80))
def test_fuzz_only_decode_errors(data):
    for candidate in (data, b"\xff\x7f\xf4\xfe" + data):
        try:
            inlong_proto.decode(candidate, "tubemq")
        except DecodeError:
            pass
        covered = sum(f.length for f in inlong_proto.iter_frames(candidate, "tubemq", mode="PERMISSIVE"))
        assert covered == len(candidate)


@pytest.mark.parametrize("chunk", [1, 7, 50])
def test_stream_decoder_reports_payload_errors_at_the_same_offsets_as_iter_frames(chunk):
    """Errors raised by the payload layer (and direction checks) are stream offsets once, not twice."""
    good = inlong_proto.encode(rpc.request_frame(1, 3, master.CloseRequestP2M(clientId="c1")))
    bad = bytes.fromhex(next(p.values[0]["hex"] for p in MALFORMED if p.id == "business_message_garbage"))
    data = good * 3 + bad + good
    expected = [(f.offset, f.length, f.error.offset if f.error else None)
                for f in inlong_proto.iter_frames(data, "tubemq", mode="PERMISSIVE")]
    decoder = inlong_proto.StreamDecoder("tubemq", mode="PERMISSIVE")
    got = [f for i in range(0, len(data), chunk) for f in decoder.feed(data[i:i + chunk])] + decoder.close()
    assert [(f.offset, f.length, f.error.offset if f.error else None) for f in got] == expected
    assert expected[3][2] == 3 * len(good) + 35

"""payload(): records, attributes, times and status of DataProxy frames, checked against the facts
document's worked examples (section 1.15) and the server's rules; malformed payloads fail with offsets."""
from datetime import datetime

import cramjam
import pytest

import inlong_proto as ip
from inlong_proto.dataproxy import (ErrCode, MsgType, bin_request, bin_response, format_attrs, heartbeat_request,
                                    heartbeat_response, infer_direction, legacy_heartbeat_request,
                                    legacy_heartbeat_response, parse_attrs, read_payload as payload, response_status,
                                    text_request, text_response)
from inlong_proto.core.errors import EncodeError, ValidationError
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common
from inlong_proto.generated.codec.dataproxy import dataproxy_request as req


def h(*parts) -> bytes:
    """Bytes from hex strings (spaces allowed) and literal bytes, in order."""
    return b"".join(bytes.fromhex(p) if isinstance(p, str) else p for p in parts)


ATTR_A = b"groupId=g1&streamId=s1&rtms=1700000000000"
ATTR_B = b"groupId=g1&streamId=s1&dt=1700000000000&cnt=2&messageId=7&rt=1&rtms=1"
T0 = datetime(2023, 11, 14, 22, 13, 20)  # 1700000000 s

# Section 1.15 of docs/protocols/inlong-dataproxy-and-tubemq.md, byte for byte.
A = h("00 00 00 4b 07 00 00 00 00 00 04 65 53 f1 00 00 01 00 00 00 01 00 00 00 09 00 00 00 05 68 65 6c 6c 6f 00 29",
      ATTR_A, "ee 01")
A_REPLY = h("00 00 00 40 07 00 00 00 01 00 37", b"dpIp=10.0.0.1&", ATTR_A, "ee 01")
B = h("00 00 00 51 03 00 00 00 03 61 0a 62 00 00 00 45", ATTR_B)
B_REPLY = h("00 00 00 5d 03 00 00 00 01 32 00 00 00 53", b"dpIp=10.0.0.1&", ATTR_B)
C_BODY = h("00 00 00 01 61 00 00 00 01 62")
D = h("00 00 00 0e 08 12 34 56 78 02 00 00 00 00 00 00 ee 01")
D_REPLY = h("00 00 00 10 08 65 53 f1 00 02 00 00 00 02 ff ff 00 00 ee 01")
E = h("00 00 00 09 01 00 00 00 00 00 00 00 00")
E_REPLY = h("00 00 00 01 01")


def text_frame(msg_type: int, body: bytes, attr: bytes, flags: int = 0) -> bytes:
    """The MsgType 2-6 text layout of section 1.4 (the test writes it by hand on purpose, as an oracle)."""
    return ((9 + len(body) + len(attr)).to_bytes(4, "big") + bytes([msg_type | flags])
            + len(body).to_bytes(4, "big") + body + len(attr).to_bytes(4, "big") + attr)


def bin_frame(body: bytes, attr: bytes, *, ext: int = 0x0004, flags: int = 0, group_num: int = 0,
              stream_num: int = 0, data_time: int = 1700000000, msg_cnt: int = 1, unique_id: int = 1) -> bytes:
    """The MsgType 7 layout of section 1.7, by hand."""
    fixed = (group_num.to_bytes(2, "big") + stream_num.to_bytes(2, "big") + ext.to_bytes(2, "big")
             + data_time.to_bytes(4, "big") + msg_cnt.to_bytes(2, "big") + unique_id.to_bytes(4, "big"))
    rest = fixed + len(body).to_bytes(4, "big") + body + len(attr).to_bytes(2, "big") + attr + b"\xee\x01"
    return (len(rest) + 1).to_bytes(4, "big") + bytes([7 | flags]) + rest


def items(*records: bytes) -> bytes:
    return b"".join(len(r).to_bytes(4, "big") + r for r in records)


def snappy(data: bytes) -> bytes:
    return bytes(cramjam.snappy.compress_raw(data))


def decoded(data: bytes, direction=None):
    return payload(ip.decode(data, "dataproxy", direction))


# ---------------------------------------------------------------------------------------------------
# Worked examples: decoding


def test_example_a_bin_request():
    p = decoded(A)
    assert (p.base_type, p.direction, p.group_id, p.stream_id) == (MsgType.bin_multi_body, "request", "g1", "s1")
    assert p.attrs == (("groupId", "g1"), ("streamId", "s1"), ("rtms", "1700000000000"))
    assert (p.data_time, p.data_time_unit, p.unique_id, p.record_count) == (T0, "s", 1, 1)
    assert [(r.data, r.index, r.group_id, r.data_time, r.attrs) for r in p.records] == [(b"hello", 0, "g1", T0, ())]
    assert p.records[0].text == "hello"
    assert (p.compressed, p.encrypted, p.error_code) == (False, False, None)


def test_example_a_reply():
    p = decoded(A_REPLY)
    assert (p.direction, p.unique_id, p.records, p.error_code, p.error_message) == (
        "response", 1, (), ErrCode.success, None)
    assert p.attrs[0] == ("dpIp", "10.0.0.1") and p.attr("rtms") == "1700000000000"
    assert (p.group_id, p.stream_id) == ("g1", "s1")


def test_example_b_text_request():
    p = decoded(B)
    assert (p.base_type, p.direction, p.message_id, p.record_count) == (MsgType.ack_service, "request", "7", 2)
    assert (p.data_time, p.data_time_unit) == (T0, "ms")
    assert [r.data for r in p.records] == [b"a", b"b"]
    assert [r.index for r in p.records] == [0, 1]
    assert p.attr("rt") == "1" and len(p.attrs) == 7


def test_example_b_reply():
    frame = ip.decode(B_REPLY, "dataproxy")
    assert frame.direction is None  # the text layout fits both directions
    p = payload(frame)
    assert (p.direction, p.body, p.records, p.error_code, p.message_id) == ("response", b"2", (), ErrCode.success, "7")
    assert p.attrs[:2] == (("dpIp", "10.0.0.1"), ("groupId", "g1"))


def test_example_c_multi_body():
    p = decoded(text_frame(5, C_BODY, b"groupId=g1&streamId=s1&cnt=2"))
    assert [r.data for r in p.records] == [b"a", b"b"]
    assert p.record_count == 2 and p.data_time is None


def test_example_d_heartbeats():
    p = decoded(D)
    assert (p.base_type, p.direction, p.records, p.data_time, p.attrs) == (
        MsgType.bin_heartbeat, "request", (), None, ())
    reply = decoded(D_REPLY)
    assert (reply.direction, reply.data_time, reply.data_time_unit, reply.body) == ("response", T0, "s", b"\xff\xff")
    assert reply.error_code == ErrCode.success


def test_example_e_legacy_heartbeat():
    p = decoded(E)
    assert (p.base_type, p.direction, p.records, p.body) == (MsgType.heartbeat, "request", (), b"")
    reply = decoded(E_REPLY)
    assert (reply.base_type, reply.direction, reply.error_code) == (MsgType.heartbeat, "response", ErrCode.success)


# ---------------------------------------------------------------------------------------------------
# Worked examples: the builders write the same bytes


def test_builders_reproduce_a_and_its_reply():
    message = bin_request([b"hello"], group_id="g1", stream_id="s1", data_time_ms=1_700_000_000_000, unique_id=1,
                          report_time_ms=1_700_000_000_000, sdk_version=None)
    assert ip.encode(message) == A
    assert ip.encode(bin_response(message, dp_ip="10.0.0.1")) == A_REPLY


def test_builders_reproduce_b_and_its_reply():
    message = text_request([b"a", b"b"], group_id="g1", stream_id="s1", data_time_ms=1_700_000_000_000,
                           message_id=7, extra_attrs={"rt": 1}, report_time_ms=1, sdk_version=None)
    assert ip.encode(message) == B
    assert ip.encode(text_response(message, dp_ip="10.0.0.1")) == B_REPLY


def test_builders_reproduce_c_body():
    message = text_request([b"a", b"b"], msg_type=5, group_id="g1", stream_id="s1", data_time_ms=0, message_id=1)
    assert message.body.body == C_BODY


def test_builders_reproduce_d_and_e():
    request = heartbeat_request(data_time_ms=0x12345678)
    assert ip.encode(request) == D
    assert ip.encode(heartbeat_response(request, server_time_s=1_700_000_000)) == D_REPLY
    assert ip.encode(legacy_heartbeat_request()) == E
    assert ip.encode(legacy_heartbeat_response()) == E_REPLY


# ---------------------------------------------------------------------------------------------------
# Attributes


def test_parse_attrs_strict_trims_entries_like_guava():
    assert parse_attrs("") == () and parse_attrs("  ") == ()
    assert parse_attrs(" a=1 & b=2\t") == (("a", "1"), ("b", "2"))
    assert parse_attrs("k=&=v") == (("k", ""), ("", "v"))  # Guava accepts empty keys and values
    # Only whole entries are trimmed: whitespace by the '=' stays, as in Splitter.on("=").
    assert parse_attrs("a = 1") == (("a ", " 1"),)
    assert parse_attrs("a=\x1f") == (("a", "\x1f"),)  # not whitespace to Guava


@pytest.mark.parametrize("text, position, words", [
    ("a=1&&b=2", 4, "is empty"),
    ("a=1&", 4, "is empty"),
    ("a=1& &b=2", 4, "is empty"),
    ("a=1&flag", 4, "has no '='"),
    ("a=1&b=2=3", 4, "more than one '='"),
    ("a=1&b=2&a=3", 8, "repeats the key 'a'"),
    ("é=1&x", 5, "has no '='"),  # byte positions: é is two bytes in UTF-8
])
def test_parse_attrs_strict_rules(text, position, words):
    with pytest.raises(ValidationError) as info:
        parse_attrs(text, offset=100, field="body.attr")
    assert (info.value.offset, info.value.field) == (100 + position, "body.attr")
    assert words in info.value.reason and "109 SPLIT_ATTR_ERROR" in info.value.reason


def test_parse_attrs_lenient_keeps_what_the_server_writes():
    text = "dpIp=1.2.3.4&&groupId=g1&flag&errMsg=magicInMsg(1) != 60929&groupId=g1&"
    assert parse_attrs(text, strict=False) == (
        ("dpIp", "1.2.3.4"), ("groupId", "g1"), ("flag", ""), ("errMsg", "magicInMsg(1) != 60929"), ("groupId", "g1"))


def test_format_attrs():
    assert format_attrs({"a": 1, "b": "x"}) == "a=1&b=x"
    assert format_attrs([("a", "1"), ("a", "2")], strict=False) == "a=1&a=2"
    assert parse_attrs(format_attrs({"groupId": "g", "dt": 5})) == (("groupId", "g"), ("dt", "5"))
    for bad in ({"a": "x&y"}, {"a=b": "1"}, {"": "1"}, {"a": " 1"}, [("a", "1"), ("a", "2")]):
        with pytest.raises(EncodeError):
            format_attrs(bad)


def test_response_status():
    assert response_status(()) == (ErrCode.success, None)
    assert response_status((("errCode", "0"),)) == (ErrCode.success, None)
    assert response_status({"errCode": "115", "errMsg": "no topic"}) == (ErrCode.topic_is_blank, "no topic")
    assert response_status((("errCode", "999"),)) == (999, None)
    with pytest.raises(ValidationError, match="not a decimal number"):
        response_status((("errCode", "bad"),))


def test_error_response_with_server_text():
    attr = b"dpIp=10.0.0.1&errCode=115&errMsg=Topic not configured for groupId=(g1), streamId=(s1)&groupId=g1"
    p = decoded(text_frame(3, b"2", attr))
    assert p.direction == "response"
    assert p.error_code == ErrCode.topic_is_blank
    assert p.error_message == "Topic not configured for groupId=(g1), streamId=(s1)"


def test_response_with_duplicate_keys_q14():
    attr = b"dpIp=x&groupId=g1&streamId=s1&rtms=5&groupId=g1&streamId=s1"
    frame = (9 + len(attr)).to_bytes(4, "big") + h("07 00 00 00 05") + len(attr).to_bytes(2, "big") + attr + h("ee 01")
    p = decoded(frame)
    assert (p.direction, p.unique_id) == ("response", 5)
    assert [k for k, _ in p.attrs] == ["dpIp", "groupId", "streamId", "rtms", "groupId", "streamId"]


# ---------------------------------------------------------------------------------------------------
# Body layouts and compression


def test_text_lines_strip_one_trailing_newline():
    assert [r.data for r in decoded(text_frame(3, b"a\r\nb\r\n", b"groupId=g")).records] == [b"a\r", b"b"]
    assert [r.data for r in decoded(text_frame(2, b"a\n\nb\n\n", b"groupId=g")).records] == [b"a", b"", b"b", b""]
    assert [r.data for r in decoded(text_frame(4, b"x\r", b"groupId=g")).records] == [b"x\r"]


def test_text_mt_pb_keeps_the_body_whole():
    p = decoded(text_frame(3, b"\x08\x01\n\x02hi\n", b"groupId=g&mt=pb"))
    assert [r.data for r in p.records] == [b"\x08\x01\n\x02hi\n"]
    assert p.records[0].text is not None and decoded(text_frame(3, b"\xff\n", b"groupId=g")).records[0].text is None


def test_text_type_6_is_inlongmsg_v3_pairs():
    """Issue 12: a MsgType 6 body is {len, data}{len, attr} pairs (CodecTextMsg packs it as InLongMsg v3)."""
    p = decoded(text_frame(6, h("00000004", b"a\nb\n", "00000003", b"k=v", "00000001", b"c", "00000003", b"x=1"),
                           b"groupId=g"))
    assert [(r.data, r.attrs, r.index) for r in p.records] == [(b"a\nb\n", (("k", "v"),), 0), (b"c", (("x", "1"),), 1)]
    assert p.error is None and "error" not in p.to_dict()
    # The old reading (the body as one record) is what the server drops: flagged, not raised, not a record.
    old = decoded(text_frame(6, b"a\nb\n", b"groupId=g"))
    assert old.records == () and isinstance(old.error, ValidationError)
    assert (old.error.offset, old.error.field) == (9 + 4, "body.body.items[0].data")  # the body ends first
    assert "InLongMsg v3" in old.to_dict()["error"]
    with pytest.raises(ValidationError, match="InLongMsg v3"):
        payload(ip.decode(text_frame(6, b"a\nb\n", b"groupId=g"), "dataproxy", "request"), strict=True)


def test_text_snappy_when_cp_is_non_blank():
    body = b"one\ntwo\nthree"
    for cp in (b"snappy", b"anything"):
        p = decoded(text_frame(3, snappy(body), b"groupId=g&cp=" + cp))
        assert p.compressed and p.body == body
        assert [r.data for r in p.records] == [b"one", b"two", b"three"]
    blank = decoded(text_frame(3, body, b"groupId=g&cp="))
    assert not blank.compressed and len(blank.records) == 3
    multi = decoded(text_frame(5, snappy(items(b"x", b"yz")), b"groupId=g&cp=snappy"))
    assert [r.data for r in multi.records] == [b"x", b"yz"]


def test_bin_snappy_flag_and_layouts():
    plain = items(b"r1", b"r2")
    p = decoded(bin_frame(snappy(plain), b"groupId=g&streamId=s", flags=0x20, msg_cnt=2))
    assert p.compressed and p.body == plain and [r.data for r in p.records] == [b"r1", b"r2"]
    lf = decoded(bin_frame(items(b"a\nb\nc"), b"groupId=g", ext=0x0024, msg_cnt=3))
    assert [r.data for r in lf.records] == [b"a", b"b", b"c"]
    with_attrs = items(b"a") + items(b"k=1&k=2&x") + items(b"b") + items(b"")
    per = decoded(bin_frame(with_attrs, b"groupId=g", ext=0x0005, msg_cnt=2))
    assert [(r.data, r.attrs) for r in per.records] == [(b"a", (("k", "1"), ("k", "2"), ("x", ""))), (b"b", ())]


def test_bin_numeric_ids_and_zero_length_item():
    p = decoded(bin_frame(items(b"", b"x"), b"", ext=0, group_num=12, stream_num=0, msg_cnt=2))
    assert (p.group_id, p.stream_id, p.attrs) == ("12", None, ())
    assert [r.data for r in p.records] == [b"", b"x"] and p.records[0].group_id == "12"


def test_encrypted_bodies_are_not_decoded():
    message = bin_request([b"x"], group_id="g", data_time_ms=0, unique_id=1, sdk_version=None)
    secret = req.DataproxyRequest(auth=False, encrypted=True, compressed=False, base_type=message.base_type,
                                  body=message.body)
    p = payload(secret)
    assert (p.encrypted, p.records, p.body) == (True, (), message.body.body)
    text = decoded(text_frame(3, b"\x01\x02 ciphertext", b"groupId=g&cp=snappy&_encyVersion=1", flags=0x40))
    assert (text.encrypted, text.compressed, text.records, text.body) == (True, True, (), b"\x01\x02 ciphertext")


# ---------------------------------------------------------------------------------------------------
# Direction


def test_direction_is_inferred_for_ambiguous_frames_and_can_be_forced():
    frame = ip.decode(B, "dataproxy")
    assert frame.direction is None and infer_direction(frame.message) == "request"
    forced = payload(frame, "response")
    assert (forced.direction, forced.records) == ("response", ())
    assert payload(ip.decode(B, "dataproxy", "request")).direction == "request"
    sink_reply = text_frame(3, b"", ATTR_B)  # the sink path answers with no body and no dpIp
    assert decoded(sink_reply).direction == "response"
    with pytest.raises(ValueError, match="is a request"):
        payload(ip.decode(A, "dataproxy"), "response")


def test_error_frame_raises_its_error():
    frame = next(ip.iter_frames(b"\x00" * 8, "dataproxy", mode="PERMISSIVE"))
    with pytest.raises(ip.DecodeError):
        payload(frame)


# ---------------------------------------------------------------------------------------------------
# Malformed payloads: ValidationError with the offset in the input


def test_bad_request_attrs_point_into_the_frame():
    frame = text_frame(3, b"abc", b"groupId=g1&&x=1")  # attr at 4+1+4+3+4 = 16, empty entry at 11
    with pytest.raises(ValidationError) as info:
        decoded(frame)
    assert (info.value.offset, info.value.field) == (27, "body.attr")
    stream = E + frame  # the same frame 13 bytes into a stream
    found = list(ip.iter_frames(stream, "dataproxy", "request"))
    with pytest.raises(ValidationError) as info:
        payload(found[1])
    assert info.value.offset == 13 + 27
    bad_bin = bin_frame(items(b"x"), b"groupId=g&groupId=h")  # attr at 4+1+16+4+5+2 = 32
    with pytest.raises(ValidationError, match="repeats the key") as info:
        decoded(bad_bin)
    assert info.value.offset == 32 + 10


def test_undecompressible_bodies():
    with pytest.raises(ValidationError, match="96 UNCOMPRESS_DATA_ERROR") as info:
        decoded(text_frame(3, b"\xff\xff\xff", b"groupId=g&cp=snappy"))
    assert (info.value.offset, info.value.field) == (9, "body.body")
    with pytest.raises(ValidationError, match="Snappy") as info:
        decoded(bin_frame(b"\x05abc", b"groupId=g", flags=0x20))
    assert info.value.offset == 25
    with pytest.raises(ValidationError, match="holds no data"):
        decoded(text_frame(3, snappy(b""), b"groupId=g&cp=snappy"))


def test_snappy_size_claim_is_bounded_before_allocating():
    bomb = b"\xff\xff\xff\xff\x07" + b"\x00" * 8  # claims 2 GiB uncompressed
    with pytest.raises(ValidationError, match="over max_body_size") as info:
        decoded(text_frame(3, bomb, b"cp=snappy"))
    assert info.value.offset == 9
    body = snappy(b"x" * 1000)
    with pytest.raises(ValidationError, match="over max_body_size"):
        payload(ip.decode(text_frame(3, body, b"cp=snappy"), "dataproxy"), max_body_size=999)


def test_snappy_claim_beyond_what_the_block_can_hold_allocates_nothing():
    """Under max_body_size but more than 22x the compressed bytes (Snappy's densest element writes 64 bytes
    from 3): refused before allocating; the fuzzer's reproducer claimed 60 MB from a 133-byte frame."""
    import tracemalloc

    claim = b"\x80\x80\x80\x1d" + b"\x00" * 8  # 60,817,408 bytes from 12
    tracemalloc.start()
    with pytest.raises(ValidationError, match="more than 12 compressed bytes can hold") as info:
        decoded(text_frame(3, claim, b"cp=snappy"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert info.value.offset == 9 and peak < 1 << 20
    dense = snappy(bytes(100_000))  # the densest real block still reads: about 21.3x
    assert 100_000 / len(dense) > 21
    assert decoded(text_frame(3, dense, b"cp=snappy")).body == bytes(100_000)


@pytest.mark.parametrize("body, offset, field", [
    (items(b"ok") + h("00 00 00 00"), 9 + 6, "body.body.items[1].item_len"),  # zero
    (items(b"ok") + h("ff ff ff fe") + b"zz", 9 + 6, "body.body.items[1].item_len"),  # negative
    (items(b"ok") + h("00 00 00 09") + b"short", 9 + 15, "body.body.items[1].data"),  # overruns: where it ends
    (items(b"ok") + b"\x00\x00", 9 + 8, "body.body.items[1].item_len"),  # a cut length field
])
def test_bad_text_item_lengths(body, offset, field):
    with pytest.raises(ValidationError) as info:
        decoded(text_frame(5, body, b"groupId=g"))
    assert (info.value.offset, info.value.field) == (offset, field)


def test_bad_bin_item_lengths():
    with pytest.raises(ValidationError, match="overruns the body") as info:  # u4: 0xFFFFFFFF is no negative
        decoded(bin_frame(items(b"a") + h("ff ff ff ff") + b"zz", b"groupId=g"))
    assert (info.value.offset, info.value.field) == (25 + 11, "body.body.items[1].data")
    with pytest.raises(ValidationError) as info:  # the LF block must fill the body
        decoded(bin_frame(items(b"abc") + b"!", b"groupId=g", ext=0x0024))
    assert info.value.field == "body.body.data"
    with pytest.raises(ValidationError) as info:  # per-record attrs cut
        decoded(bin_frame(items(b"a") + h("00 00 00 05") + b"k=1", b"groupId=g", ext=0x0005))
    assert info.value.field == "body.body.items[0].attr"


def test_errors_inside_a_compressed_body_point_at_the_body():
    body = snappy(items(b"ok") + h("00 00 00 00"))
    with pytest.raises(ValidationError, match="at offset 6 of the decompressed body") as info:
        decoded(text_frame(5, body, b"groupId=g&cp=snappy"))
    assert info.value.offset == 9


def test_bad_times_and_counts_are_left_out_as_the_server_defaults_them():
    p = decoded(text_frame(3, b"x", b"groupId=g&dt=soon&cnt=many"))
    assert (p.data_time, p.data_time_unit, p.record_count) == (None, None, None)
    assert p.records[0].data_time is None


def test_builder_objects_and_bare_messages():
    message = text_request([b"x"], group_id="g", stream_id="s", data_time_ms=1_700_000_000_123, message_id="m1")
    p = payload(message)  # a bare DataproxyRequest is a request
    assert (p.direction, p.message_id, p.data_time) == ("request", "m1", datetime(2023, 11, 14, 22, 13, 20, 123000))
    reply = payload(text_response(message, dp_ip="h", err_code=ErrCode.topic_is_blank, err_msg="none"))
    assert (reply.direction, reply.error_code, reply.error_message) == ("response", ErrCode.topic_is_blank, "none")
    with pytest.raises(TypeError):
        payload(common.TextMessage(body=b"", attr=""))

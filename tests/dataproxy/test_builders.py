"""Builders write what the Java SDK and the DataProxy server write; everything they build decodes back.

(The byte-for-byte worked examples of the facts document are in test_payload.py, next to their decoding.)
"""
from datetime import datetime, timedelta

import cramjam
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import inlong_proto as ip
from inlong_proto.dataproxy import (ErrCode, MsgType, bin_request, bin_response, heartbeat_request,
                                    heartbeat_response, parse_attrs, read_payload as payload, text_request, text_response)
from inlong_proto.dataproxy.builders import SDK_VERSION
from inlong_proto.core.errors import EncodeError

DT = 1_700_000_000_123


def roundtrip(message, direction=None):
    """encode -> decode -> payload, the way a reader of a dump sees the message."""
    return payload(ip.decode(ip.encode(message), "dataproxy", direction))


def test_text_request_attrs_in_documented_order():
    message = text_request([b"a"], group_id="g", stream_id="s", data_time_ms=DT, message_id=9, compress=True,
                           is_ack=False, extra_attrs={"partitionKey": "p", "k": 2}, report_time_ms=5)
    assert parse_attrs(message.body.attr) == (
        ("groupId", "g"), ("streamId", "s"), ("dt", str(DT)), ("cnt", "1"), ("messageId", "9"),
        ("partitionKey", "p"), ("k", "2"), ("rtms", "5"), ("sdkVersion", SDK_VERSION), ("cp", "snappy"),
        ("isAck", "false"))
    assert (message.base_type, message.compressed) == (MsgType.ack_service, False)  # text types use cp, not bit 5


def test_text_request_mt_pb_keeps_one_record_whole():
    record = b"\x08\x01\x12\x0a0123456789\n"
    message = text_request([record], group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                           extra_attrs={"mt": "pb"})
    assert message.body.body == record and [r.data for r in roundtrip(message).records] == [record]


def test_text_request_default_report_time_is_now():
    rtms = int(dict(parse_attrs(text_request([b"a"], group_id="g", stream_id="s", data_time_ms=0,
                                             message_id=1).body.attr))["rtms"])
    assert rtms > DT


@pytest.mark.parametrize("msg_type", [2, 3, 4, 5])
def test_text_request_snappy_round_trip(msg_type):
    records = [b"first record " * 20, b"second", b"\x00\xffbinary"]
    message = text_request(records, msg_type=msg_type, group_id="g", stream_id="s", data_time_ms=DT,
                           message_id=1, compress=True)
    assert bytes(cramjam.snappy.decompress_raw(message.body.body)).count(b"first record") == 20
    p = roundtrip(message)
    assert p.compressed and [r.data for r in p.records] == records and p.record_count == 3


def test_bin_request_flags_and_fields():
    message = bin_request([b"x", b"y"], group_id="g", stream_id="s", data_time_ms=DT, unique_id=77, compress=True,
                          extra_attrs={"user": "u"}, is_ack=True, report_time_ms=3, sdk_version=None)
    assert (message.base_type, message.compressed, message.encrypted) == (MsgType.bin_multi_body, True, False)
    body = message.body
    assert (body.data_time, body.msg_cnt, body.unique_id) == (DT // 1000, 2, 77)
    assert body.ext_field.ids_as_strings and not body.ext_field.per_record_attributes
    assert body.attr == "groupId=g&streamId=s&user=u&rtms=3&isAck=true"
    p = roundtrip(message)
    assert [r.data for r in p.records] == [b"x", b"y"] and p.compressed and p.unique_id == 77


def test_bin_request_layouts():
    per = bin_request([b"a", b"b"], group_id="g", data_time_ms=DT, unique_id=1,
                      record_attrs=[{"k": "1"}, {}], compress=True)
    assert per.body.ext_field.per_record_attributes
    assert [(r.data, r.attrs) for r in roundtrip(per).records] == [(b"a", (("k", "1"),)), (b"b", ())]
    lf = bin_request([b"a", b"b", b"c"], group_id="g", data_time_ms=DT, unique_id=1, separated_by_lf=True)
    assert lf.body.ext_field.separated_by_lf and lf.body.body == b"\x00\x00\x00\x05a\nb\nc"
    assert [r.data for r in roundtrip(lf).records] == [b"a", b"b", b"c"]
    numeric = bin_request([b"a"], group_num=12, stream_num=34, data_time_ms=DT, unique_id=1, sdk_version=None,
                          report_time_ms=None)
    assert not numeric.body.ext_field.ids_as_strings and numeric.body.attr == ""
    assert (roundtrip(numeric).group_id, roundtrip(numeric).stream_id) == ("12", "34")


@pytest.mark.parametrize("call, words", [
    (lambda: text_request([], group_id="g", stream_id="s", data_time_ms=0, message_id=1), "105"),
    (lambda: text_request([b"a\nb"], group_id="g", stream_id="s", data_time_ms=0, message_id=1), "LF"),
    (lambda: text_request([b"a", b""], group_id="g", stream_id="s", data_time_ms=0, message_id=1), "trailing LF"),
    (lambda: text_request([b""], msg_type=5, group_id="g", stream_id="s", data_time_ms=0, message_id=1), "item_len"),
    (lambda: text_request([b"a", b"b"], msg_type=6, group_id="g", stream_id="s", data_time_ms=0, message_id=1),
     "give record_attrs"),
    (lambda: text_request([b"a"], msg_type=6, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          record_attrs=[{}]), "record_attrs\\[0\\]"),
    (lambda: text_request([b"a", b""], msg_type=6, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          record_attrs=[{"k": 1}, {"k": 2}]), "records\\[1\\]"),
    (lambda: text_request([b"a"], msg_type=6, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          record_attrs=[{"k": 1}, {"k": 2}]), "2 attribute"),
    (lambda: text_request([b"a"], msg_type=6, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          record_attrs=[{"k": "a&b"}]), "escaped"),
    (lambda: text_request([b"a"], msg_type=3, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          record_attrs=[{"k": 1}]), "no per-record"),
    (lambda: text_request([b"a"], msg_type=7, group_id="g", stream_id="s", data_time_ms=0, message_id=1), "2-6"),
    (lambda: text_request([b"a", b"b"], group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          extra_attrs={"mt": "pb"}), "one record"),
    (lambda: text_request(["text"], group_id="g", stream_id="s", data_time_ms=0, message_id=1), "bytes"),
    (lambda: text_request([b"a"], group_id="g&x", stream_id="s", data_time_ms=0, message_id=1), "escaped"),
    (lambda: text_request([b"a"], group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                          extra_attrs={"dt": 1}), "keyword"),
    (lambda: bin_request([b"a"], data_time_ms=0, unique_id=1), "non-zero group_num"),
    (lambda: bin_request([b"a"], group_id="g", group_num=1, data_time_ms=0, unique_id=1), "not both"),
    (lambda: bin_request([b"a"], group_num=1, stream_id="s", data_time_ms=0, unique_id=1), "stream_num"),
    (lambda: bin_request([b"a"], group_id="g", data_time_ms=0, unique_id=1, record_attrs=[{}],
                         separated_by_lf=True), "different body layouts"),
    (lambda: bin_request([b"a"], group_id="g", data_time_ms=0, unique_id=1, record_attrs=[{}, {}]), "2 attribute"),
    (lambda: bin_request([b"a\n"], group_id="g", data_time_ms=0, unique_id=1, separated_by_lf=True), "LF"),
    (lambda: bin_request([b""], group_id="g", data_time_ms=0, unique_id=1, separated_by_lf=True), "no record"),
    (lambda: bin_request([b"a"] * 65536, group_id="g", data_time_ms=0, unique_id=1), "msg_cnt"),
    (lambda: bin_request([b"a"], group_id="g", data_time_ms=0, unique_id=2**32), "unique_id"),
])
def test_builders_refuse_what_would_not_come_back(call, words):
    """Refused when built, or (ranges of frame fields) when encoded: never bytes that read back wrong."""
    with pytest.raises(EncodeError, match=words):
        ip.encode(call())


def test_responses_as_the_server_writes_them():
    request = text_request([b"a"], msg_type=4, group_id="g", stream_id="s", data_time_ms=0, message_id=1,
                           report_time_ms=None, sdk_version=None)
    reply = text_response(request, dp_ip="10.0.0.1", err_code=ErrCode.topic_is_blank, err_msg="no topic",
                          receive_time_ms=42)
    assert reply.body.body == b"a"  # MsgType 4 echoes the original body
    assert reply.body.attr == "dpIp=10.0.0.1&errCode=115&errMsg=no topic&rt=42&rtms=42&" + request.body.attr
    sink = text_response(request, dp_ip=None)
    assert (sink.body.body, sink.body.attr) == (b"", request.body.attr)
    p = roundtrip(reply)
    assert (p.direction, p.error_code, p.error_message, p.message_id) == ("response", ErrCode.topic_is_blank,
                                                                          "no topic", "1")
    binary = bin_request([b"a"], group_id="g", data_time_ms=0, unique_id=9, report_time_ms=5, sdk_version=None)
    bin_reply = bin_response(binary, dp_ip="h", err_code=94, err_msg="magicInMsg(1) != 60929", receive_time_ms=7)
    assert bin_reply.body.attr == "dpIp=h&errCode=94&errMsg=magicInMsg(1) != 60929&groupId=g&rtms=5"
    p = roundtrip(bin_reply)
    assert (p.unique_id, p.error_code, p.error_message) == (9, ErrCode.field_magic_not_equal, "magicInMsg(1) != 60929")
    with pytest.raises(EncodeError):
        bin_response(request, dp_ip="h")


def test_heartbeats():
    request = heartbeat_request(data_time_ms=DT, attrs={"_userName": "u", "_nonce": 5})
    assert (request.auth, request.body.data_time, request.body.version) == (True, DT % 2**32, 2)
    reply = heartbeat_response(request, server_time_s=1_700_000_000)
    assert (reply.auth, reply.body.attr, reply.body.body) == (False, "_userName=u&_nonce=5", b"\xff\xff")
    assert roundtrip(reply).attrs == (("_userName", "u"), ("_nonce", "5"))
    assert roundtrip(request).direction == "request"


# ---------------------------------------------------------------------------------------------------
# Property: whatever the builders accept decodes back to the same records.

_ids = st.text(st.sampled_from("abcxyz_-.0123456789"), min_size=1, max_size=12)
_attr_maps = st.dictionaries(_ids, st.text(st.sampled_from("abc 019:/_"), max_size=8).map(str.strip), max_size=3)
_line = st.binary(max_size=40).filter(lambda b: b"\n" not in b)


@st.composite
def text_case(draw):
    msg_type = draw(st.sampled_from([2, 3, 4, 5, 6]))
    if msg_type == 6:
        records = draw(st.lists(st.binary(min_size=1, max_size=60), min_size=1, max_size=6))
    elif msg_type == 5:
        records = draw(st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=6))
    else:
        records = draw(st.lists(_line, min_size=1, max_size=6).filter(lambda r: r[-1] != b""))
    return msg_type, records


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=text_case(), compress=st.booleans(), group=_ids, stream=_ids, dt=st.integers(0, 2**41),
       extra=_attr_maps.filter(lambda m: not set(m) & {"groupId", "streamId", "dt", "cnt", "messageId", "rtms",
                                                        "sdkVersion", "cp", "isAck", "mt"}))
def test_text_builder_round_trip(case, compress, group, stream, dt, extra):
    msg_type, records = case
    record_attrs = [{"i": i, **extra} for i in range(len(records))] if msg_type == 6 else None
    message = text_request(records, msg_type=msg_type, group_id=group, stream_id=stream, data_time_ms=dt,
                           message_id=dt % 1000, compress=compress, extra_attrs=extra, record_attrs=record_attrs)
    p = roundtrip(message, "request")
    assert [r.data for r in p.records] == records and p.error is None
    if record_attrs is not None:  # MsgType 6: each record comes back with its own attributes
        assert [dict(r.attrs) for r in p.records] == [{k: str(v) for k, v in m.items()} for m in record_attrs]
    assert (p.group_id, p.stream_id, p.record_count, p.compressed) == (group, stream, len(records), compress)
    assert p.data_time is not None and int(p.attr("dt")) == dt


@settings(max_examples=150, deadline=None)
@given(layout=st.sampled_from(["items", "attrs", "lf"]), compress=st.booleans(), named=st.booleans(),
       records=st.lists(_line, min_size=1, max_size=6).filter(lambda r: r != [b""]),
       attr_maps=st.lists(_attr_maps, min_size=6, max_size=6),
       dt=st.integers(0, 2**32 * 1000 - 1), unique_id=st.integers(0, 2**32 - 1), group=_ids)
def test_bin_builder_round_trip(layout, compress, named, records, attr_maps, dt, unique_id, group):
    record_attrs = attr_maps[:len(records)] if layout == "attrs" else None
    ids = {"group_id": group, "stream_id": group} if named else {"group_num": 7, "stream_num": 8}
    message = bin_request(records, data_time_ms=dt, unique_id=unique_id, compress=compress,
                          record_attrs=record_attrs, separated_by_lf=layout == "lf", **ids)
    p = roundtrip(message)
    assert [r.data for r in p.records] == records
    if record_attrs is not None:
        assert [dict(r.attrs) for r in p.records] == [{k: str(v) for k, v in m.items()} for m in record_attrs]
    assert (p.unique_id, p.record_count, p.compressed) == (unique_id, len(records), compress)
    assert p.group_id == (group if named else "7")
    assert p.data_time == datetime(1970, 1, 1) + timedelta(seconds=dt // 1000)

"""Build the DataProxy frames the real SDKs and server put on the wire, as generated message objects.

The generated encoders derive every length, count field and the magic; these builders decide only what the
Java SDK and the DataProxy server decide: which MsgType and flags, how records are packed in the body,
which attributes are written and what the response echoes. ``inlong_proto.encode(message)`` gives bytes.

Attribute order: the Java SDK joins a HashMap (quirk Q13), so its order is arbitrary. The builders write
a fixed, documented order instead, so that their bytes can be compared: the ids and counts first
(groupId, streamId, dt, cnt, messageId), then ``extra_attrs`` in their order, then what the sender adds on
the way out (rtms, sdkVersion, cp, isAck). Keys the builder writes cannot be given again in extra_attrs
(the server would answer 109 SPLIT_ATTR_ERROR to a repeated key); their values are set with the keyword
arguments, and ``report_time_ms=None`` / ``sdk_version=None`` leave rtms / sdkVersion out.
"""
from __future__ import annotations

import time
from typing import Mapping, Sequence

import cramjam

from inlong_proto.core import __version__
from inlong_proto.core.errors import EncodeError
from inlong_proto.core.frames import Frame
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common
from inlong_proto.generated.codec.dataproxy import dataproxy_payload as layouts
from inlong_proto.generated.codec.dataproxy import dataproxy_request as request_codec
from inlong_proto.generated.codec.dataproxy import dataproxy_response as response_codec
from inlong_proto.dataproxy.payload import ErrCode, MsgType, format_attrs, parse_attrs

SDK_VERSION = f"inlong-proto-{__version__}"
# The heartbeat response body: the node load, which the server always reports as 0xFFFF at the cited
# commit (it passes 0, and "0 or -1 means 0xFFFF"). A value the server writes, not a layout.
UNKNOWN_LOAD = b"\xff\xff"
# What the builder passes for report_time_ms by default: the time of the call, as the SDK does.
NOW = object()

_TEXT_TYPES = (MsgType.common_service, MsgType.ack_service, MsgType.original_return, MsgType.multi_body,
               MsgType.multi_body_attr)
_OWN_KEYS = frozenset({"groupId", "streamId", "dt", "cnt", "messageId", "rtms", "sdkVersion", "cp", "isAck"})


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _attrs(head: list, extra_attrs: Mapping | None, tail: list) -> str:
    """head + extra_attrs + tail, checked so that the server parses them back unchanged."""
    extras = list((extra_attrs or {}).items())
    clash = sorted(key for key, _ in extras if key in _OWN_KEYS)
    if clash:
        raise EncodeError("attr", f"extra_attrs sets {', '.join(clash)}, which the builder writes itself "
                                  f"(a repeated key draws 109 SPLIT_ATTR_ERROR); use the keyword arguments")
    return format_attrs([(key, value) for key, value in head + extras + tail if value is not None])


def _tail(report_time_ms, sdk_version: str | None) -> list:
    rtms = _now_ms() if report_time_ms is NOW else report_time_ms
    return [("rtms", rtms), ("sdkVersion", sdk_version)]


def _snappy(data: bytes) -> bytes:
    """Raw Snappy block, what xerial Snappy.compress writes (not the framing format)."""
    return bytes(cramjam.snappy.compress_raw(data))


def _check_records(records: Sequence[bytes], lines: bool) -> list[bytes]:
    for index, record in enumerate(records):
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise EncodeError(f"records[{index}]", f"expected bytes, got {type(record).__name__}")
    records = [bytes(record) for record in records]
    if not records:
        raise EncodeError("records", "at least one record is needed: the server answers 105 BODY_LENGTH_ZERO "
                                     "to an empty body")
    if lines:
        for index, record in enumerate(records):
            if b"\n" in record:
                raise EncodeError(f"records[{index}]", "holds a LF, which separates records in this layout")
    return records


def text_request(records: Sequence[bytes], *, group_id: str, stream_id: str, data_time_ms: int,
                 message_id: int | str, msg_type: int = MsgType.ack_service, compress: bool = False,
                 is_ack: bool | None = None, extra_attrs: Mapping[str, object] | None = None,
                 record_attrs: Sequence[Mapping[str, object]] | None = None,
                 report_time_ms: int | None | object = NOW,
                 sdk_version: str | None = SDK_VERSION) -> request_codec.DataproxyRequest:
    """A MsgType 2-6 request as the Java SDK writes MsgType 3 and 5 (InLongTcpMsgSender).

    Types 2/3/4: records joined by LF (no trailing LF). 5: length-prefixed items. 6: InLongMsg v3 pairs,
    each record followed by its own attributes, record_attrs (one non-empty mapping per record, required
    for MsgType 6 and only there: the consumer's InLongMsg v3 reader stops at an empty one).
    compress: the body becomes a raw Snappy block and ``cp=snappy`` is added. is_ack: None writes no isAck;
    False makes the server send no response; True is what the SDK's NO_ACK writes (quirk Q6).
    extra_attrs: user attributes, in their order; None values are left out, as the SDK drops them.
    """
    msg_type = MsgType(msg_type)
    if msg_type not in _TEXT_TYPES:
        raise EncodeError("base_type", f"{msg_type.name} is not a text-layout data type (2-6)")
    paired = msg_type == MsgType.multi_body_attr
    if (record_attrs is not None) != paired:
        raise EncodeError("record_attrs", "MsgType 6 packs each record with its own attributes: give record_attrs"
                          if paired else f"{msg_type.name} has no per-record attributes (MsgType 6 has)")
    whole = not paired and (extra_attrs or {}).get("mt") == "pb"  # one record, kept whole
    records = _check_records(records, lines=msg_type != MsgType.multi_body and not whole and not paired)
    if msg_type == MsgType.multi_body:
        body = layouts.encode_text_items(layouts.TextItems(items=[layouts.TextItem(data=r) for r in records]))
    elif paired:
        if len(record_attrs) != len(records):
            raise EncodeError("record_attrs", f"{len(record_attrs)} attribute sets for {len(records)} records")
        for index, (record, attrs) in enumerate(zip(records, record_attrs)):
            if not record or not attrs:
                raise EncodeError(f"records[{index}]" if not record else f"record_attrs[{index}]",
                                  "empty: the InLongMsg v3 reader stops at a zero length and drops the rest")
        body = layouts.encode_multi_body_attr_items(layouts.MultiBodyAttrItems(items=[
            layouts.MultiBodyAttrItem(data=record, attr=format_attrs(attrs))
            for record, attrs in zip(records, record_attrs)]))
    elif whole:  # mt=pb: a protobuf is neither cut at LF bytes nor stripped of a last one
        if len(records) != 1:
            raise EncodeError("records", f"mt=pb carries one record, not {len(records)}")
        body = records[0]
        if not body:
            raise EncodeError("records[0]", "an empty record makes an empty body, which the server refuses (105)")
    else:
        if records[-1] == b"":  # the body would be empty or end with the LF the server strips
            raise EncodeError(f"records[{len(records) - 1}]", "an empty last record does not survive the "
                                                              "server's stripping of one trailing LF")
        body = b"\n".join(records)
    head = [("groupId", group_id), ("streamId", stream_id), ("dt", data_time_ms), ("cnt", len(records)),
            ("messageId", message_id)]
    tail = _tail(report_time_ms, sdk_version)
    if compress:
        body = _snappy(body)
        tail.append(("cp", "snappy"))
    if is_ack is not None:
        tail.append(("isAck", "true" if is_ack else "false"))
    attr = _attrs(head, extra_attrs, tail)
    return request_codec.DataproxyRequest(auth=False, encrypted=False, compressed=False, base_type=msg_type,
                                          body=common.TextMessage(body=body, attr=attr))


def bin_request(records: Sequence[bytes], *, group_id: str | None = None, stream_id: str | None = None,
                group_num: int = 0, stream_num: int = 0, data_time_ms: int, unique_id: int,
                compress: bool = False, record_attrs: Sequence[Mapping[str, object]] | None = None,
                separated_by_lf: bool = False, extra_attrs: Mapping[str, object] | None = None,
                is_ack: bool | None = None, report_time_ms: int | None | object = NOW,
                sdk_version: str | None = SDK_VERSION) -> request_codec.DataproxyRequest:
    """A MsgType 7 request as the Java SDK writes it (ProtocolEncoder, EncodeObject).

    Ids: group_id (and stream_id) as attributes with ExtField bit 2, or group_num/stream_num without it.
    DataTime is data_time_ms // 1000 (seconds); MsgCnt is len(records). record_attrs (one mapping per
    record) packs each record with its own attributes (ExtField bit 0); separated_by_lf packs one
    LF-joined block (bit 5). compress sets MsgType bit 5 and makes the body a raw Snappy block. is_ack as
    for text_request.
    """
    if group_id is not None:
        if group_num or stream_num:
            raise EncodeError("group_num", "give group_id/stream_id or group_num/stream_num, not both")
    elif not group_num:
        raise EncodeError("group_num", "give group_id or a non-zero group_num (the server needs a group)")
    elif stream_id is not None:
        raise EncodeError("stream_id", "stream_id goes with group_id; with numeric ids give stream_num")
    if record_attrs is not None and separated_by_lf:
        raise EncodeError("ext_field", "per-record attributes and the LF block are different body layouts")
    records = _check_records(records, lines=separated_by_lf)
    if record_attrs is not None:
        if len(record_attrs) != len(records):
            raise EncodeError("record_attrs", f"{len(record_attrs)} attribute sets for {len(records)} records")
        body = layouts.encode_bin_items_with_attrs(layouts.BinItemsWithAttrs(items=[
            layouts.BinItemWithAttrs(data=record, attr=format_attrs(attrs))
            for record, attrs in zip(records, record_attrs)]))
    elif separated_by_lf:
        if records == [b""]:
            raise EncodeError("records[0]", "an LF block holding one empty record reads back as no record")
        body = layouts.encode_lf_block(layouts.LfBlock(data=b"\n".join(records)))
    else:
        body = layouts.encode_bin_items(layouts.BinItems(items=[layouts.BinItem(data=r) for r in records]))
    if compress:
        body = _snappy(body)
    ext_field = common.ExtField(reserved=0, separated_by_lf=separated_by_lf, index_message=False,
                                file_check=False, ids_as_strings=group_id is not None, trace=False,
                                per_record_attributes=record_attrs is not None)
    head = [("groupId", group_id), ("streamId", stream_id if group_id is not None else None)]
    tail = _tail(report_time_ms, sdk_version)
    if is_ack is not None:
        tail.append(("isAck", "true" if is_ack else "false"))
    attr = _attrs(head, extra_attrs, tail)
    return request_codec.DataproxyRequest(
        auth=False, encrypted=False, compressed=compress, base_type=MsgType.bin_multi_body,
        body=request_codec.BinMessage(group_num=group_num, stream_num=stream_num, ext_field=ext_field,
                                      data_time=data_time_ms // 1000, msg_cnt=len(records),
                                      unique_id=unique_id, body=body, attr=attr))


def heartbeat_request(*, data_time_ms: int, version: int = 2,
                      attrs: Mapping[str, object] | Sequence[tuple[str, object]] | str | None = None,
                      auth: bool | None = None) -> request_codec.DataproxyRequest:
    """A MsgType 8 heartbeat as the Java SDK writes it: DataTime is the low 32 bits of data_time_ms
    (its ``(int) currentTimeMillis()``, quirk Q5), version 2, no body. attrs are the authorization
    attributes; auth (MsgType bit 7) defaults to whether there are any."""
    attr = attrs if isinstance(attrs, str) else format_attrs(attrs or (), strict=False)
    return request_codec.DataproxyRequest(
        auth=bool(attr) if auth is None else auth, encrypted=False, compressed=False,
        base_type=MsgType.bin_heartbeat,
        body=common.BinHeartbeat(data_time=data_time_ms % 2**32,  # Java's (int) cast
                                  version=version, body=b"", attr=attr))


def legacy_heartbeat_request() -> request_codec.DataproxyRequest:
    """The Go SDK's MsgType 1 heartbeat: the text layout with no body and no attributes."""
    return request_codec.DataproxyRequest(auth=False, encrypted=False, compressed=False,
                                          base_type=MsgType.heartbeat, body=common.TextMessage(body=b"", attr=""))


def _request(request_message):
    message = request_message.message if isinstance(request_message, Frame) else request_message
    if type(message) is not request_codec.DataproxyRequest:
        raise EncodeError("", f"expected a DataproxyRequest (or its Frame), not {type(message).__name__}")
    return message


def _echoed_attr(message, receive_time_ms: int | None, listen_port: int | None = None) -> str:
    """The request attr as the server echoes it.

    With the server's receive time, ``rt=``/``rtms=`` (types 2-6, CodecTextMsg.validAndFillFields) or
    ``rtms=`` (type 7) are prepended when missing or blank, as the server does once a request has passed
    decoding; without it (errors found before that step, or to compare bytes) the attr is echoed verbatim.
    A type 7 request with the ExtField trace bit then also gets ``node2ip=<listen_port>&rtime2=<receive
    time>`` after them (CodecBinMsg.validAndFillFields): the server's listen *port* under a key named for
    its IP, an upstream quirk written as the server writes it.
    """
    attr = message.body.attr
    if receive_time_ms is None:
        return attr
    present = {key for key, value in parse_attrs(attr, strict=False) if value.strip()}
    keys = ("rt", "rtms") if message.base_type != MsgType.bin_multi_body else ("rtms",)
    added = [f"{key}={receive_time_ms}" for key in keys if key not in present]
    if type(message.body) is request_codec.BinMessage and message.body.ext_field.trace:
        if listen_port is None:
            raise EncodeError("listen_port", "the request sets the ExtField trace bit: the server echoes "
                                             "node2ip=<its listen port>; give listen_port")
        added += [f"node2ip={int(listen_port)}", f"rtime2={receive_time_ms}"]
    return "&".join(part for part in ("&".join(added), attr) if part)


def _response_attr(dp_ip: str | None, err_code: int, err_msg: str | None, echoed: str) -> str:
    """ServerMessageHandler.responseV0Msg: dpIp[&errCode=n[&errMsg=...]][&request attr]."""
    parts = [] if dp_ip is None else [f"dpIp={dp_ip}"]
    if int(err_code) != ErrCode.success:
        parts.append(f"errCode={int(err_code)}")
        if err_msg:
            parts.append(f"errMsg={err_msg}")
    if echoed:
        parts.append(echoed)
    return "&".join(parts)


def text_response(request_message, *, dp_ip: str | None, err_code: int = ErrCode.success,
                  err_msg: str | None = None,
                  receive_time_ms: int | None = None) -> response_codec.DataproxyResponse:
    """The server's response to a MsgType 2-6 request (buildTxtMsgRspPackage, source path): the request's
    base type, body ``'2'`` (type 4: the original body), attr ``dpIp=..[&errCode=..[&errMsg=..]]&<attr>``.
    dp_ip=None writes no dpIp (the sink path's form, which also has an empty body)."""
    message = _request(request_message)
    if type(message.body) is not common.TextMessage or message.base_type not in _TEXT_TYPES:
        raise EncodeError("base_type", f"text_response answers MsgType 2-6, not {MsgType(message.base_type).name}")
    if dp_ip is None:
        body = b""
    elif message.base_type == MsgType.original_return:
        body = message.body.body
    else:
        body = b"2"
    attr = _response_attr(dp_ip, err_code, err_msg, _echoed_attr(message, receive_time_ms))
    return response_codec.DataproxyResponse(auth=False, encrypted=False, compressed=False,
                                            base_type=MsgType(message.base_type),
                                            body=common.TextMessage(body=body, attr=attr))


def bin_response(request_message, *, dp_ip: str | None, err_code: int = ErrCode.success,
                 err_msg: str | None = None, receive_time_ms: int | None = None,
                 listen_port: int | None = None) -> response_codec.DataproxyResponse:
    """The server's response to a MsgType 7 request (buildBinMsgRspPackage): the UniqueId echoed, attr
    ``dpIp=..[&errCode=..[&errMsg=..]]&<attr>`` (dp_ip=None: the sink path's form, without dpIp).

    With receive_time_ms (the request passed the server's checks), the echoed attr gains ``rtms=`` when
    missing and, when the request sets the ExtField trace bit, ``node2ip=<listen_port>&rtime2=<receive
    time>``: the server writes its listen port there, not its IP (quirk Q10); listen_port is then
    required."""
    message = _request(request_message)
    if type(message.body) is not request_codec.BinMessage:
        raise EncodeError("base_type", f"bin_response answers MsgType 7, not {MsgType(message.base_type).name}")
    attr = _response_attr(dp_ip, err_code, err_msg, _echoed_attr(message, receive_time_ms, listen_port))
    return response_codec.DataproxyResponse(
        auth=False, encrypted=False, compressed=False, base_type=MsgType.bin_multi_body,
        body=response_codec.BinResponse(unique_id=message.body.unique_id, attr=attr))


def heartbeat_response(request_message, *, server_time_s: int) -> response_codec.DataproxyResponse:
    """The server's MsgType 8 reply (buildHBRspPackage): its time in seconds, the request's version, the
    load 0xFFFF as body, and the request's attr echoed verbatim."""
    message = _request(request_message)
    if type(message.body) is not common.BinHeartbeat:
        raise EncodeError("base_type", f"heartbeat_response answers MsgType 8, not {MsgType(message.base_type).name}")
    return response_codec.DataproxyResponse(
        auth=False, encrypted=False, compressed=False, base_type=MsgType.bin_heartbeat,
        body=common.BinHeartbeat(data_time=server_time_s, version=message.body.version, body=UNKNOWN_LOAD,
                                 attr=message.body.attr))


def legacy_heartbeat_response() -> response_codec.DataproxyResponse:
    """The fixed reply to MsgType 1 (buildHeartBeatMsgRspPackage), 00 00 00 01 01."""
    return response_codec.DataproxyResponse(auth=False, encrypted=False, compressed=False,
                                            base_type=MsgType.heartbeat, body=response_codec.LegacyHeartbeatReply())

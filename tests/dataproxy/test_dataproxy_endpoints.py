"""The DataProxy reference server and sender over loopback: acks per type, errCodes, closes, records, CLI.

Every test is bounded: async bodies run under asyncio timeouts, sender timeouts are short where a
silence is expected, subprocesses are waited for with deadlines.
"""
from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import sys

import pytest

import inlong_proto
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode, payload, response_status
from inlong_proto.endpoints.dataproxy_sender import DataProxySender, SendReport, parse_mix
from inlong_proto.endpoints.dataproxy_server import DataProxyServer, DataProxySession
from inlong_proto.generated.codec.dataproxy.dataproxy_common import MsgType
from peers import HOST, run, until

T_MS = 1_700_000_000_000
CLOCK_S = 1_700_000_000.5  # the fixed server clock of the exact-reply tests


def records(n: int, prefix: str = "record") -> list[bytes]:
    return [f"{prefix}-{i}".encode() for i in range(n)]


def received(server: DataProxyServer) -> list[bytes]:
    return [record.data for p in server.payloads for record in p.records]


def wire(message) -> bytes:
    return inlong_proto.encode(message)


def text(records_=(b"a", b"b"), message_id="1", **options):
    options.setdefault("group_id", "g1")
    options.setdefault("stream_id", "s1")
    return builders.text_request(list(records_), data_time_ms=T_MS, message_id=message_id, **options)


def binary(records_=(b"a", b"b"), unique_id=1, **options):
    if "group_num" not in options:
        options.setdefault("group_id", "g1")
        options.setdefault("stream_id", "s1")
    return builders.bin_request(list(records_), data_time_ms=T_MS, unique_id=unique_id, **options)


def heartbeat():
    return builders.heartbeat_request(data_time_ms=T_MS)


def with_body(message, **changes):
    """The same request with fields of its inner message changed (lengths re-derived on encode)."""
    return message._replace(body=message.body._replace(**changes))


class RawPeer:
    """A hand-driven SDK over a plain socket, to see exactly what the server answers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.decoder = inlong_proto.StreamDecoder("dataproxy", direction="response")
        self.responses: list = []
        self.raw = bytearray()

    @classmethod
    async def connect(cls, port: int) -> "RawPeer":
        return cls(*await asyncio.open_connection(HOST, port))

    async def send(self, *chunks) -> None:
        for chunk in chunks:
            self.writer.write(chunk if isinstance(chunk, (bytes, bytearray)) else wire(chunk))
        await self.writer.drain()

    async def expect(self, n: int, timeout: float = 5.0) -> list:
        """Read until at least n responses have arrived in all."""
        async with asyncio.timeout(timeout):
            while len(self.responses) < n:
                data = await self.reader.read(4096)
                assert data, f"server closed the connection after {len(self.responses)} responses"
                self.raw += data
                self.responses += [frame.message for frame in self.decoder.feed(data)]
        return self.responses

    async def expect_closed(self, timeout: float = 5.0) -> bytes:
        """Read until the server closes; returns whatever arrived meanwhile."""
        got = bytearray()
        async with asyncio.timeout(timeout):
            while True:
                try:
                    data = await self.reader.read(4096)
                except ConnectionResetError:
                    break
                if not data:
                    break
                got += data
        return bytes(got)

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


def status(response) -> tuple:
    return response_status(payload(response).attrs)


# -- sender <-> server -------------------------------------------------------------------------------

@pytest.mark.parametrize("mix, batch", [("3,5,7,8", 4), ("2,3,4,5,6,7,8,1", 3), ("7", 10), ("5", 1)])
def test_every_type_in_the_mix_is_acknowledged_and_records_arrive_intact(mix, batch):
    sent = records(53)

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            report = await DataProxySender(HOST, server.port, mix=mix, timeout=5).run(sent, batch)
            return report, server

    report, server = run(body())
    assert report.ok, report.to_dict()
    assert report.acknowledged == report.sent > 0
    assert (report.failed, report.lost, report.unexpected, report.no_ack_expected) == (0, 0, 0, 0)
    assert report.records == report.acknowledged_records == len(sent)
    assert set(report.by_type) == set(parse_mix(mix))
    assert received(server) == sent
    assert server.stats.frames == server.stats.replies == report.sent
    assert server.stats.errors == 0


def test_compressed_bodies_are_decompressed_by_the_server():
    sent = [b"x" * 150 + str(i).encode() for i in range(40)]

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            report = await DataProxySender(HOST, server.port, mix="3,5,7,8", compress=True, timeout=5).run(sent, 5)
            return report, server

    report, server = run(body())
    assert report.ok and report.acknowledged == report.sent, report.to_dict()
    assert received(server) == sent
    assert server.payloads and all(p.compressed for p in server.payloads)
    assert {p.base_type for p in server.payloads} == {MsgType.ack_service, MsgType.multi_body, MsgType.bin_multi_body}


def test_is_ack_false_gets_no_reply_and_the_sender_expects_none():
    sent = records(30)

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            report = await DataProxySender(HOST, server.port, mix="3,5,7,8", is_ack=False, timeout=5).run(sent, 5)
            return report, server

    report, server = run(body())
    assert report.ok, report.to_dict()
    data_messages = sum(count for kind, count in report.by_type.items() if kind != 8)
    assert report.no_ack_expected == data_messages == 6
    assert report.acknowledged == report.by_type[8]  # only the heartbeats are answered
    assert (report.lost, report.unexpected) == (0, 0)
    assert received(server) == sent
    assert server.stats.replies == report.by_type[8]


@pytest.mark.parametrize("value", ["false", "FALSE", "False"])
def test_is_ack_false_is_case_insensitive_and_silences_only_that_message(value):
    quiet_text = with_body(text(message_id="7"), attr=text(message_id="7").body.attr + f"&isAck={value}")
    quiet_bin = with_body(binary(unique_id=8), attr=binary(unique_id=8).body.attr + f"&isAck={value}")

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(quiet_text, quiet_bin, heartbeat(), text(message_id="9"))
            got = await peer.expect(2)
            await peer.close()
            return got, server

    got, server = run(body())
    assert [MsgType(r.base_type) for r in got] == [MsgType.bin_heartbeat, MsgType.ack_service]
    assert payload(got[1]).message_id == "9"
    assert server.stats.records == 6  # the silent messages were still accepted


# -- exact replies -----------------------------------------------------------------------------------

def test_replies_are_the_real_servers_for_each_type():
    clock = lambda: CLOCK_S  # noqa: E731
    requests = [text(msg_type=2), text(message_id="3"), text(msg_type=4, message_id="4"),
                text(msg_type=5, message_id="5"), text([b"one"], msg_type=6, message_id="6", record_attrs=[{"k": "v"}]),
                binary(unique_id=77), heartbeat(), builders.legacy_heartbeat_request(),
                builders.heartbeat_request(data_time_ms=5, version=1, attrs={"_userName": "u"})]
    received_ms = int(CLOCK_S * 1000)
    expected = [builders.text_response(r, dp_ip="10.0.0.1", receive_time_ms=received_ms) for r in requests[:5]]
    expected += [builders.bin_response(requests[5], dp_ip="10.0.0.1", receive_time_ms=received_ms),
                 builders.heartbeat_response(requests[6], server_time_s=int(CLOCK_S)),
                 builders.legacy_heartbeat_response(),
                 builders.heartbeat_response(requests[8], server_time_s=int(CLOCK_S))]

    async def body():
        async with DataProxyServer(HOST, 0, dp_ip="10.0.0.1", clock=clock) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(*requests)
            got = await peer.expect(len(requests))
            await peer.close()
            return got, bytes(peer.raw)

    got, raw = run(body())
    assert got == expected
    assert raw == b"".join(wire(m) for m in expected)
    # What the design doc says they hold: dpIp first, rt prepended (rtms was sent), '2' or the body.
    assert got[1].body.attr.startswith(f"dpIp=10.0.0.1&rt={received_ms}&groupId=g1&")
    assert got[1].body.body == b"2" and got[2].body.body == requests[2].body.body
    assert got[5].body.unique_id == 77 and got[5].body.attr.startswith("dpIp=10.0.0.1&groupId=g1&")
    assert (got[6].body.data_time, got[6].body.version, got[6].body.body) == (int(CLOCK_S), 2, b"\xff\xff")
    assert (got[8].body.version, got[8].body.attr) == (1, "_userName=u")
    assert wire(got[7]) == bytes.fromhex("0000000101")


# The worked examples of the design doc (part 1, section 1.15), request -> response, dpIp 10.0.0.1.
EXAMPLE_A = bytes.fromhex(
    "0000004b07000000000004 6553f100 0001 00000001 00000009 0000000568656c6c6f 0029".replace(" ", "")
) + b"groupId=g1&streamId=s1&rtms=1700000000000" + bytes.fromhex("ee01")
EXAMPLE_A_REPLY = bytes.fromhex("0000004007000000010037") + \
    b"dpIp=10.0.0.1&groupId=g1&streamId=s1&rtms=1700000000000" + bytes.fromhex("ee01")
_B_ATTR = b"groupId=g1&streamId=s1&dt=1700000000000&cnt=2&messageId=7&rt=1&rtms=1"
EXAMPLE_B = bytes.fromhex("000000510300000003610a6200000045") + _B_ATTR
EXAMPLE_B_REPLY = bytes.fromhex("0000005d03000000013200000053") + b"dpIp=10.0.0.1&" + _B_ATTR
EXAMPLE_D = bytes.fromhex("0000000e0812345678020000000000 00ee01".replace(" ", ""))
EXAMPLE_D_REPLY = bytes.fromhex("000000100865 53f1000200000002ffff0000ee01".replace(" ", ""))
EXAMPLE_E = bytes.fromhex("00000009010000000000000000")
EXAMPLE_E_REPLY = bytes.fromhex("0000000101")


def test_design_doc_worked_examples_get_the_documented_replies():
    async def body():
        async with DataProxyServer(HOST, 0, dp_ip="10.0.0.1", clock=lambda: 1_700_000_000) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(EXAMPLE_A + EXAMPLE_B + EXAMPLE_D + EXAMPLE_E)
            await peer.expect(4)
            await peer.close()
            return bytes(peer.raw)

    assert run(body()) == EXAMPLE_A_REPLY + EXAMPLE_B_REPLY + EXAMPLE_D_REPLY + EXAMPLE_E_REPLY


# -- error replies and closed connections ------------------------------------------------------------

def _bad_magic(message) -> bytes:
    data = wire(message)
    return data[:-2] + b"\xee\x02"


ERROR_CASES = {
    "zero body": (with_body(text(), body=b""), ErrCode.body_length_zero),
    "zero body, MsgType 7": (with_body(binary(), body=b""), ErrCode.body_length_zero),
    "attr without '='": (with_body(text(), attr=text().body.attr + "&oops"), ErrCode.split_attr_error),
    "attr with a trailing '&'": (with_body(text(), attr=text().body.attr + "&"), ErrCode.split_attr_error),
    "attr with a duplicate key": (with_body(binary(), attr=binary().body.attr + "&groupId=g2"),
                                  ErrCode.split_attr_error),
    "Snappy body that is not Snappy": (with_body(text(compress=True), body=b"\xff\xff\xff\xff"),
                                       ErrCode.uncompress_data_error),
    "MsgType 5 body without items": (with_body(text(msg_type=5), body=b"\x00\x00\x00\x09ab"),
                                     ErrCode.msg_body_items_invalid),
    "ExtField file check": (with_body(binary(), ext_field=binary().body.ext_field._replace(file_check=True)),
                            ErrCode.unsupported_extend_field_value),
    "ExtField index": (with_body(binary(), ext_field=binary().body.ext_field._replace(index_message=True)),
                       ErrCode.unsupported_extend_field_value),
    "syncSend with isAck=false": (text(is_ack=False, extra_attrs={"syncSend": "true"}),
                                  ErrCode.attr_order_control_conflict_error),
    "proxySend with isAck=false": (with_body(binary(), attr=binary().body.attr + "&proxySend=TRUE&isAck=false"),
                                   ErrCode.attr_proxy_control_conflict_error),
    "no groupId": (with_body(text(), attr="streamId=s1&messageId=1"), ErrCode.miss_required_groupid_argument),
    "MsgType 7 bad magic": (_bad_magic(binary(unique_id=4242)), ErrCode.field_magic_not_equal),
}


@pytest.mark.parametrize("case", ERROR_CASES, ids=list(ERROR_CASES))
def test_bad_requests_get_the_servers_errcode_and_the_connection_stays_open(case):
    request, code = ERROR_CASES[case]

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(request, heartbeat())
            got = await peer.expect(2)
            await peer.close()
            return got, server

    (reply, after), server = run(body())
    assert status(reply)[0] == code
    assert MsgType(after.base_type) == MsgType.bin_heartbeat  # the same connection still works
    assert server.stats.error_codes == {int(code): 1}
    assert server.stats.records == 0 and server.stats.closed_for_bad_input == 0
    if isinstance(request, bytes):  # the bad magic: the UniqueId is echoed so an SDK can match it
        assert reply.body.unique_id == 4242
        assert payload(reply).error_message == "magicInMsg(60930) != 60929"
    else:
        assert MsgType(reply.base_type) == MsgType(request.base_type)


def test_errors_found_after_the_attrs_respect_is_ack_false():
    silent = with_body(text(compress=True, is_ack=False), body=b"\xff\xff\xff\xff")

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(silent, heartbeat())
            got = await peer.expect(1)
            await peer.close()
            return got, server

    got, server = run(body())
    assert [MsgType(r.base_type) for r in got] == [MsgType.bin_heartbeat]
    assert server.stats.error_codes == {int(ErrCode.uncompress_data_error): 1}


CLOSING_CASES = {
    "unknown base type": bytes.fromhex("000000091f") + bytes(8),
    "base type 0 (protobuf v1)": bytes.fromhex("000000050001020304"),
    "TotalLen 0": bytes(9),
    "frame over max_frame_size": bytes.fromhex("0001000003") + bytes(16),
    "MsgType 8 bad magic": None,  # filled below (needs builders)
    "text lengths that do not add up": bytes.fromhex("0000000d03 00000001 61 00000009".replace(" ", "")) + b"a=b",
    "negative body length": bytes.fromhex("0000000903ffffffff00000000"),
    "MsgType 7 shorter than its fixed part": bytes.fromhex("000000050700000000"),
    "MsgType 7 body length beyond the frame": bytes.fromhex("00000017070000000000040000000100010000000100000064") + b"ab",
}
CLOSING_CASES["MsgType 8 bad magic"] = _bad_magic(heartbeat())


@pytest.mark.parametrize("case", CLOSING_CASES, ids=list(CLOSING_CASES))
def test_unusable_frames_close_the_connection_without_a_reply(case):
    async def body():
        async with DataProxyServer(HOST, 0) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(heartbeat(), CLOSING_CASES[case], heartbeat())
            got = await peer.expect_closed()
            return got, server

    got, server = run(body())
    replies = list(inlong_proto.iter_frames(got, "dataproxy", "response"))
    assert [MsgType(f.message.base_type) for f in replies] == [MsgType.bin_heartbeat]  # only the first one
    assert server.stats.closed_for_bad_input == 1


def test_bad_clients_do_not_disturb_a_good_sender():
    sent = records(600)

    async def garbage(port):
        peer = await RawPeer.connect(port)
        await peer.send(bytes(range(256)) * 8)
        return await peer.expect_closed()

    async def bad_magic(port):
        peer = await RawPeer.connect(port)
        got = []
        for i in range(20):
            await peer.send(_bad_magic(binary(unique_id=1000 + i)))
            got += (await peer.expect(i + 1))[-1:]
            await asyncio.sleep(0.001)
        await peer.close()
        return got

    async def bad_attrs(port):
        peer = await RawPeer.connect(port)
        await peer.send(*[with_body(text(message_id=str(i)), attr=f"messageId={i}&broken") for i in range(20)])
        got = await peer.expect(20)
        await peer.close()
        return got

    async def unknown_type(port):
        peer = await RawPeer.connect(port)
        await peer.send(heartbeat(), bytes.fromhex("0000000919") + bytes(8))
        return await peer.expect_closed()

    async def vanishing(port):
        peer = await RawPeer.connect(port)
        await peer.send(wire(text())[:10])
        peer.writer.transport.abort()

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            port = server.port
            sender = DataProxySender(HOST, port, mix="3,5,7,8", timeout=10, max_in_flight=8)
            results = await asyncio.gather(sender.run(sent, 2), garbage(port), bad_magic(port), bad_attrs(port),
                                           unknown_type(port), vanishing(port))
            await until(lambda: server.clients == 0)
            return results, server

    (report, garbage_got, magic_got, attrs_got, unknown_got, _), server = run(body(), timeout=60)
    assert report.ok and report.acknowledged == report.sent, report.to_dict()
    assert received(server) == sent
    assert garbage_got == b""
    assert [r.body.unique_id for r in magic_got] == list(range(1000, 1020))
    assert {status(r)[0] for r in magic_got} == {ErrCode.field_magic_not_equal}
    assert {status(r)[0] for r in attrs_got} == {ErrCode.split_attr_error}
    assert [payload(r).message_id for r in attrs_got] == [str(i) for i in range(20)]
    assert [MsgType(f.message.base_type) for f in inlong_proto.iter_frames(unknown_got, "dataproxy", "response")] \
        == [MsgType.bin_heartbeat]
    assert server.stats.closed_for_bad_input >= 3  # garbage, unknown type, the torn frame


def test_session_answers_the_same_whatever_the_split():
    stream = b"".join(wire(m) for m in [text(), binary(), heartbeat(), builders.legacy_heartbeat_request(),
                                        text(msg_type=5, message_id="2")]) + _bad_magic(binary(unique_id=3))

    def replies(chunks) -> list[bytes]:
        session = DataProxySession(clock=lambda: CLOCK_S)
        outcomes = [o for chunk in chunks for o in session.feed(chunk)] + session.close()
        assert not any(o.close for o in outcomes)
        return [wire(o.reply) for o in outcomes]

    whole = replies([stream])
    assert len(whole) == 6
    assert replies([stream[i:i + 1] for i in range(len(stream))]) == whole
    assert replies([stream[:7], stream[7:50], stream[50:]]) == whole


def test_session_refuses_a_stream_that_ends_inside_a_frame():
    session = DataProxySession()
    data = wire(text())
    assert session.feed(data[:-1]) == []
    (outcome,) = session.close()
    assert outcome.close and outcome.reply is None and "ends inside a frame" in outcome.reason


# -- the record files --------------------------------------------------------------------------------

def test_server_record_file_is_a_clean_dump_of_the_frames_sent(tmp_path):
    dump = tmp_path / "requests.bin"
    good = [text(), binary(unique_id=5, compress=True), heartbeat(), builders.legacy_heartbeat_request(),
            text(msg_type=5, message_id="2"), with_body(text(message_id="3"), attr="messageId=3&x")]  # 109: kept

    async def body():
        async with DataProxyServer(HOST, 0, record=dump) as server:
            peer = await RawPeer.connect(server.port)
            await peer.send(good[0], good[1], _bad_magic(binary(unique_id=9)), *good[2:])
            await peer.expect(len(good) + 1)
            await peer.close()
            second = await DataProxySender(HOST, server.port, mix="3,5,7,8", timeout=5).run(records(12), 3)
            return second

    report = run(body())
    data = dump.read_bytes()
    frames = list(inlong_proto.iter_frames(data, "dataproxy", "request"))
    assert [f.message for f in frames[:len(good)]] == good
    assert data[:frames[len(good)].offset] == b"".join(wire(m) for m in good)
    assert len(frames) == len(good) + report.sent
    rest = [payload(f) for f in frames[len(good):]]
    assert [r.data for p in rest for r in p.records] == records(12)


def test_sender_record_file_is_a_clean_dump_of_the_responses(tmp_path):
    dump = tmp_path / "responses.bin"

    async def body():
        async with DataProxyServer(HOST, 0) as server:
            return await DataProxySender(HOST, server.port, mix="3,5,7,8", record=dump, timeout=5).run(records(20), 4)

    report = run(body())
    frames = list(inlong_proto.iter_frames(dump.read_bytes(), "dataproxy", "response"))
    assert len(frames) == report.acknowledged == report.sent
    assert all(payload(f).error_code == ErrCode.success for f in frames)


# -- the sender against servers that misbehave -------------------------------------------------------

async def _fake_server(answer):
    """A server that hands each decoded request to answer(message) -> list of response messages."""
    async def handle(reader, writer):
        decoder = inlong_proto.StreamDecoder("dataproxy", direction="request")
        try:
            while data := await reader.read(65536):
                for frame in decoder.feed(data):
                    for response in answer(frame.message):
                        writer.write(response if isinstance(response, bytes) else wire(response))
                await writer.drain()
        except (OSError, inlong_proto.DecodeError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(handle, HOST, 0)


def test_sender_counts_refusals_with_their_codes():
    def answer(message):
        if message.base_type == MsgType.bin_heartbeat:
            return [builders.heartbeat_response(message, server_time_s=1)]
        if message.base_type == MsgType.bin_multi_body:
            return [builders.bin_response(message, dp_ip="x", err_code=ErrCode.topic_is_blank, err_msg="no topic")]
        return [builders.text_response(message, dp_ip="x", err_code=ErrCode.put_event_to_channel_failure)]

    async def body():
        server = await _fake_server(answer)
        async with server:
            port = server.sockets[0].getsockname()[1]
            return await DataProxySender(HOST, port, mix="3,7,8", timeout=5).run(records(30), 5)

    report = run(body())
    assert not report.ok
    assert report.failed == 6 and report.acknowledged == report.by_type[8] == 3
    assert report.error_codes == {115: 3, 114: 3}
    assert report.lost == 0


def test_sender_reports_silence_as_lost_and_stray_replies_as_unexpected():
    stray = builders.bin_response(binary(unique_id=999_999), dp_ip="x")

    def answer(message):
        if message.base_type == MsgType.ack_service:
            return [stray]  # never the right id
        return []

    async def body():
        server = await _fake_server(answer)
        async with server:
            port = server.sockets[0].getsockname()[1]
            return await DataProxySender(HOST, port, mix="3,7,8", timeout=0.5).run(records(20), 5)

    report = run(body())
    assert not report.ok
    assert report.lost == report.sent == 6
    assert report.unexpected == 2 and report.acknowledged == 0


def test_sender_stops_when_the_server_closes_the_connection():
    async def handle(reader, writer):
        await reader.read(100)
        writer.close()

    async def body():
        server = await asyncio.start_server(handle, HOST, 0)
        async with server:
            port = server.sockets[0].getsockname()[1]
            return await DataProxySender(HOST, port, mix="3", timeout=5, max_in_flight=2).run(records(100), 1)

    report = run(body(), timeout=20)
    assert not report.ok and report.error is not None
    assert report.lost >= 1 and report.acknowledged == 0


def test_sender_reports_a_refused_connection():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    report = run(DataProxySender(HOST, port, timeout=2).run(records(3)))
    assert isinstance(report, SendReport) and not report.ok
    assert "cannot connect" in report.error and report.sent == 0


def test_sender_refuses_records_its_types_cannot_carry():
    async def body():
        async with DataProxyServer(HOST, 0) as server:
            return await DataProxySender(HOST, server.port, mix="3", timeout=5).run([b"ok", b"two\nlines"], 1)

    report = run(body())
    assert report.unsendable == 1 and report.acknowledged == 1 and not report.ok


@pytest.mark.parametrize("mix", ["", "8", "9", "3,x", "0"])
def test_bad_mixes_are_refused(mix):
    with pytest.raises(ValueError):
        parse_mix(mix)


# -- the CLI, as a user runs it ----------------------------------------------------------------------

CLI = [sys.executable, "-m", "inlong_proto", "dataproxy"]


async def _cli(*args: str, stdin: bytes | None = None, timeout: float = 60.0):
    process = await asyncio.create_subprocess_exec(
        *CLI, *args, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(stdin), timeout)
    return process.returncode, stdout.decode(), stderr.decode()


async def _start_cli_server(*args: str):
    server = await asyncio.create_subprocess_exec(*CLI, "serve", "--port", "0", *args, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        line = ""
        while "listening on" not in line:
            line = (await server.stderr.readline()).decode()
            assert line, "server exited before listening"
    return server, re.search(r"listening on [\d.]+:(\d+)", line).group(1)


async def _interrupt(process: asyncio.subprocess.Process) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, stderr.decode()


def test_cli_serve_and_send(tmp_path):
    requests, responses = tmp_path / "requests.bin", tmp_path / "responses.bin"

    async def body():
        server, port = await _start_cli_server("--record", str(requests), "--dp-ip", "10.1.2.3")
        try:
            first = await _cli("send", "--port", port, "--count", "25", "--mix", "3,5,7,8", "--batch-size", "4",
                               "--record", str(responses))
            second = await _cli("send", "--port", port, "--mix", "7", "--compress", "--log-level", "warning",
                                stdin=b"alpha\n\nbeta\r\ngamma")
            stopped = await _interrupt(server)
        finally:
            if server.returncode is None:
                server.kill()
                await server.wait()
        return first, second, stopped

    (rc1, out1, err1), (rc2, out2, err2), (server_rc, server_err) = run(body(), timeout=150)
    assert rc1 == 0, err1
    report = json.loads(out1)
    assert out1.count("\n") == 1 and report["ok"] is True
    assert report["records"] == report["acknowledged_records"] == 25
    assert report["acknowledged"] == report["sent"] and report["lost"] == report["failed"] == 0
    assert set(report["by_type"]) == {"3", "5", "7", "8"}
    assert "acknowledged_records" not in err1  # one report, on stdout (issue 13: a second one on stderr)
    assert rc2 == 0 and json.loads(out2)["records"] == 3, err2
    assert server_rc == 0 and "Traceback" not in server_err + err1 + err2, server_err
    assert "stopped" in server_err

    sent = [payload(f) for f in inlong_proto.iter_frames(requests.read_bytes(), "dataproxy", "request")]
    data = [r.data for p in sent for r in p.records]
    assert data == records(25) + [b"alpha", b"beta", b"gamma"]
    replies = [payload(f) for f in inlong_proto.iter_frames(responses.read_bytes(), "dataproxy", "response")]
    assert len(replies) == report["sent"]
    assert all(p.attr("dpIp") == "10.1.2.3" for p in replies if p.base_type != MsgType.bin_heartbeat)


def test_cli_send_exits_1_when_messages_are_lost_or_the_server_is_gone():
    async def silent(reader, writer):
        while await reader.read(65536):
            pass
        writer.close()

    async def body():
        server = await asyncio.start_server(silent, HOST, 0)
        async with server:
            port = str(server.sockets[0].getsockname()[1])
            lost = await _cli("send", "--port", port, "--count", "5", "--mix", "3", "--timeout", "0.5")
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            free = str(probe.getsockname()[1])
        refused = await _cli("send", "--port", free, "--count", "5", "--timeout", "2")
        bad_mix = await _cli("send", "--port", free, "--mix", "3,12")
        return lost, refused, bad_mix

    (rc1, out1, err1), (rc2, out2, err2), (rc3, _, err3) = run(body(), timeout=150)
    assert rc1 == 1 and json.loads(out1)["lost"] == 1, err1
    assert rc2 == 1 and "cannot connect" in json.loads(out2)["error"], err2
    assert rc3 == 2 and "--mix" in err3
    assert "Traceback" not in err1 + err2 + err3


def test_cli_send_streams_stdin_lines_as_they_come_and_ctrl_c_exits_cleanly():
    async def body():
        async with DataProxyServer(HOST, 0) as server:
            process = await asyncio.create_subprocess_exec(
                *CLI, "send", "--port", str(server.port), "--mix", "3,7", "--batch-size", "50",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            try:
                process.stdin.write(b"first\nsecond\n")
                await process.stdin.drain()
                await until(lambda: server.stats.records == 2, timeout=60)  # sent without waiting for 50
                process.stdin.write(b"third\n")
                await process.stdin.drain()
                await until(lambda: server.stats.records == 3, timeout=30)
                await asyncio.sleep(0.3)  # let the last reply reach the sender
                process.send_signal(signal.SIGINT)
                stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            return process.returncode, stdout.decode(), stderr.decode(), received(server)

    rc, out, err, got = run(body(), timeout=120)
    assert got == [b"first", b"second", b"third"]
    assert "Traceback" not in err, err
    report = json.loads(out)
    assert report["interrupted"] is True and report["records"] == 3 and report["failed"] == 0
    assert report["acknowledged_records"] == 3 or report["lost"] >= 1  # a reply still in flight counts as lost
    assert rc == (0 if report["ok"] else 1), out + err

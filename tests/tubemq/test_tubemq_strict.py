"""The strict TubeMQ peers (issue 29, item 3): for each rule of specs/tubemq/conformance.yaml a client (or, for
the client's rules, a server) that breaks exactly that rule, and the report naming exactly that rule at the
offending frame's offset, while the answers stay the reference servers'."""
from __future__ import annotations

import asyncio
import json
import re
import signal
import sys

import pytest

import inlong_proto
from inlong_proto.core.conformance import Report, rules
from inlong_proto.endpoints.tubemq_broker import TubeMQBroker
from inlong_proto.endpoints.tubemq_client import RpcChannel, TubeMQConsumer, TubeMQProducer
from inlong_proto.endpoints.tubemq_master import TubeMQMaster
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker_pb
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master_pb
from inlong_proto.tubemq import rpc, strings
from peers import HOST, run, until

TOPIC = "demo"


def wire(frame) -> bytes:
    return frame if isinstance(frame, bytes) else inlong_proto.encode(frame)


def close_producer(serial: int) -> bytes:
    return wire(rpc.request_frame(serial, "producerCloseClientP2M", master_pb.CloseRequestP2M(clientId="p")))


def send(serial: int, data: bytes = b"x", *, check_sum: int = -1, flag: int = 0, timeout_ms: int = 10000) -> bytes:
    return wire(rpc.request_frame(serial, "sendMessageP2B", broker_pb.SendMessageRequestP2B(
        clientId="p", topicName=TOPIC, partitionId=0, data=data, flag=flag, checkSum=check_sum, sentAddr=0),
        timeout_ms=timeout_ms))


def register_producer(serial: int, client_id: str = "p") -> bytes:
    return wire(rpc.request_frame(serial, "producerRegisterP2M", master_pb.RegisterRequestP2M(
        clientId=client_id, topicList=[TOPIC], brokerCheckSum=-1, hostName="h")))


def producer_heartbeat(serial: int) -> bytes:
    return wire(rpc.request_frame(serial, "producerHeartbeatP2M", master_pb.HeartRequestP2M(
        clientId="p", brokerCheckSum=-1, hostName="h", topicList=[TOPIC])))


def register_consumer(serial: int, client_id: str, op_type: int = 31) -> bytes:
    return wire(rpc.request_frame(serial, "consumerRegisterC2B", broker_pb.RegisterRequestC2B(
        opType=op_type, clientId=client_id, groupName="g", topicName=TOPIC, partitionId=0, readStatus=0)))


def fetch(serial: int, client_id: str) -> bytes:
    return wire(rpc.request_frame(serial, "getMessagesC2B", broker_pb.GetMessageRequestC2B(
        clientId=client_id, partitionId=0, groupName="g", topicName=TOPIC)))


def with_list_size(frame: bytes, value: int) -> bytes:
    return frame[:8] + value.to_bytes(4, "big") + frame[12:]


GOOD = close_producer(1)
# rule -> (the server, the frames before the faulty one, the faulty one, the length reported (None: no frame
# could be cut, ...: the faulty frame's), whether the server closes the connection, server options)
SERVER_CASES = {
    "tubemq.begin-token": ("master", [GOOD], b"\xff\x7f\xf4\xfd" + GOOD[4:], None, True, {}),
    "tubemq.list-size": ("master", [GOOD], with_list_size(close_producer(2), 0), None, True, {}),
    "tubemq.block-len": ("master", [GOOD], close_producer(2)[:12] + (0x3000).to_bytes(4, "big"), None, True, {}),
    "tubemq.max-frame-size": ("broker", [send(1)], send(2, b"x" * 200), None, True, {"max_frame_size": 128}),
    "tubemq.rpc-envelope": ("master", [GOOD], wire(rpc.frame_of(2, b"\x05\x08")), ..., False, {}),
    "tubemq.serial-order": ("master", [GOOD, close_producer(2)], close_producer(2), ..., False, {}),
    "tubemq.method-known": ("broker", [send(1)], wire(rpc.frame_of(2, rpc.delimited(
        rpc.RPC_pb2.RpcConnHeader(flag=0), rpc.RPC_pb2.RequestHeader(serviceType=2, protocolVer=3),
        rpc.RPC_pb2.RequestBody(method=11, timeout=1000, request=b"")))), ..., False, {}),
    "tubemq.service-method": ("broker", [send(1)], register_producer(2), ..., False, {}),
    "tubemq.timeout": ("broker", [send(1)], send(2, timeout_ms=0), ..., False, {}),
    "tubemq.required-fields": ("master", [GOOD], register_producer(2, client_id=" "), ..., False, {}),
    "tubemq.register-first": ("master", [GOOD], producer_heartbeat(2), ..., False, {}),
    "tubemq.partition-owner": ("broker", [register_consumer(1, "c1")], fetch(2, "c2"), ..., False, {}),
    "tubemq.register-op": ("broker", [send(1)], register_consumer(2, "c1", op_type=33), ..., False, {}),
    "tubemq.message-size": ("broker", [send(1)], send(2, b""), ..., False, {}),
    "tubemq.checksum": ("broker", [send(1)], send(2, check_sum=1), ..., False, {}),
    "tubemq.message-flag": ("broker", [send(1)], send(2, b"no header", flag=rpc.FLAG_HAS_ATTRIBUTE), ..., False,
                            {}),
}
# the same rule broken at the other server
MORE_SERVER_CASES = {
    "tubemq.register-first at the broker": ("broker", [send(1)], fetch(2, "c1"), ..., False, {}),
}


LAST = {"master": close_producer(99), "broker": send(99)}  # a good request after the faulty one


def _server(kind: str, report: Report, **options):
    if kind == "master":
        return TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, 8123), strict=report, **options)
    return TubeMQBroker(HOST, 0, strict=report, **options)


async def _answers(reader: asyncio.StreamReader, count: int | None) -> list:
    """The answers until `count` came (None: until the server closes)."""
    decoder = inlong_proto.StreamDecoder("tubemq", "response")
    answers = []
    while count is None or len(answers) < count:
        data = await reader.read(65536)
        if not data:
            break
        answers += [frame.payload for frame in decoder.feed(data)]
    return answers


@pytest.mark.parametrize("case", [*SERVER_CASES, *MORE_SERVER_CASES])
def test_the_servers_report_each_rule_a_client_breaks(case):
    kind, before, faulty, length, closes, options = {**SERVER_CASES, **MORE_SERVER_CASES}[case]
    rule = case.split()[0]
    report = Report("tubemq")

    async def body():
        async with _server(kind, report, **options) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b"".join(before) + faulty + LAST[kind])
            await writer.drain()
            answers = await asyncio.wait_for(_answers(reader, None if closes else answered), 10)
            await until(lambda: report.findings)
            writer.close()
            return answers

    answered = len(before) + (not closes and rule != "tubemq.timeout") + (not closes)  # as without --strict
    answers = run(body())
    offset = sum(len(frame) for frame in before)
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [
        (rule, offset, len(faulty) if length is ... else length)]
    assert report.findings[0].peer.startswith("127.0.0.1:") and report.findings[0].got
    assert len(answers) == answered


@pytest.mark.parametrize("rule", ["tubemq.begin-token", "tubemq.list-size", "tubemq.block-len",
                                  "tubemq.max-frame-size"])
def test_a_bad_frame_start_with_nothing_after_it_is_reported_and_closed_at_once(rule):
    """A faulty client that sends one bad frame and waits: no valid frame follows for the decoder to resync on,
    and still the server reports it and closes at once, as the real server's decoder does (before: nothing
    until the idle deadline, then only tubemq.idle)."""
    kind, before, faulty, _, _, options = SERVER_CASES[rule]
    report = Report("tubemq")

    async def body():
        async with _server(kind, report, **options) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b"".join(before) + faulty)
            await writer.drain()
            answers = await asyncio.wait_for(_answers(reader, None), 10)  # None: until the server closes
            writer.close()
            return answers

    answers = run(body())
    assert len(answers) == len(before)
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [(rule, sum(map(len, before)), None)]


def test_a_heartbeat_after_the_session_timeout_is_reported_at_the_master():
    report = Report("tubemq")
    now = [1000.0]

    async def body():
        async with _server("master", report) as master:
            master.state.clock = lambda: now[0]
            reader, writer = await asyncio.open_connection(HOST, master.port)
            writer.write(register_producer(1))
            [registered] = await asyncio.wait_for(_answers(reader, 1), 10)
            now[0] += master.state.session_timeout + 1
            heartbeat = producer_heartbeat(2)
            writer.write(heartbeat)
            [late] = await asyncio.wait_for(_answers(reader, 1), 10)
            writer.close()
            return registered.business, late.business, len(heartbeat)

    registered, late, length = run(body())
    assert registered.success and (late.success, late.errCode) == (False, 411)  # forgotten, as upstream does
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [
        ("tubemq.heartbeat-timeout", len(register_producer(1)), length)]


def test_a_frame_cut_by_the_end_of_the_stream_is_reported():
    report = Report("tubemq")

    async def body():
        async with _server("master", report) as master:
            reader, writer = await asyncio.open_connection(HOST, master.port)
            writer.write(GOOD + GOOD[:10])
            writer.write_eof()
            await asyncio.wait_for(_answers(reader, None), 10)
            writer.close()
            await until(lambda: report.findings)

    run(body())
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [("tubemq.whole-frames", len(GOOD), None)]


@pytest.mark.parametrize("stream, stage", [
    (b"\x05\x08", "IPC server unable to read call parameters:"),  # the envelope does not parse
    (rpc.delimited(rpc.RPC_pb2.RpcConnHeader(flag=0), rpc.RPC_pb2.RequestHeader(serviceType=1, protocolVer=3),
                   rpc.RPC_pb2.RequestBody(method=1, timeout=1000, request=b"\xff\xff")),
     "IPC server handle request error :"),  # the business message does not
])
def test_an_unreadable_request_gets_the_fatal_answer_and_the_connection_goes_on(stream, stage):
    """As NettyRpcServer's channelRead answers it (methods.yaml answers.unreadable_request): FATAL under the
    frame's serial, the header holding the status only, the stage's prefix; the next request is answered."""
    async def body():
        async with _server("master", None) as master:
            reader, writer = await asyncio.open_connection(HOST, master.port)
            writer.write(wire(rpc.frame_of(7, stream)) + close_producer(8))
            await writer.drain()
            answers = await asyncio.wait_for(_answers(reader, 2), 10)
            writer.close()
            return answers

    fatal, after = run(body())
    assert (fatal.serial_no, fatal.header.status, fatal.header.HasField("protocolVer")) == (7, 2, False)
    assert fatal.exception.class_name == "com.google.protobuf.InvalidProtocolBufferException"
    assert fatal.exception.message.startswith(stage)
    assert (after.serial_no, after.header.status) == (8, 0)


def test_a_client_silent_past_the_idle_timeout_is_reported():
    report = Report("tubemq")

    async def body():
        async with _server("broker", report, idle_timeout=0.3) as broker:
            reader, writer = await asyncio.open_connection(HOST, broker.port)
            writer.write(send(1) + send(2)[:10])  # a request begun, never finished
            await asyncio.wait_for(_answers(reader, None), 10)  # closed by the deadline
            writer.close()
            await until(lambda: report.findings)

    run(body())
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [("tubemq.idle", len(send(1)) + 10, None)]


def test_conforming_clients_break_no_rule():
    report = Report("tubemq")

    async def body():
        async with TubeMQBroker(HOST, 0, strict=report) as broker:
            async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, broker.port),
                                    strict=report) as master:
                produced = await TubeMQProducer(HOST, master.port, TOPIC, attribute="k=v", strict=report).run(
                    [b"a", b"b", b"c"])
                consumed = await TubeMQConsumer(HOST, master.port, TOPIC, "g", count=3, timeout=10,
                                                strict=report).run()
                return produced, consumed

    produced, consumed = run(body())
    assert produced.ok and consumed.ok
    assert report.findings == []


# -- the clients' rules: a faulty server -----------------------------------------------------------

def _stray_serial(serial: int) -> list[bytes]:
    return [wire(rpc.response_frame(serial + 100, "producerCloseClientP2M", master_pb.CloseResponseM2P(
        success=True, errCode=200, errMsg="OK!")))]


def _garbage(serial: int) -> list[bytes]:
    return [b"\x00" * 7]


CLIENT_CASES = {"tubemq.response-serial": _stray_serial, "tubemq.response-frame": _garbage}


@pytest.mark.parametrize("rule", CLIENT_CASES)
def test_the_client_reports_each_rule_a_server_breaks(rule):
    report = Report("tubemq")
    first = []

    async def handle(reader, writer):
        decoder = inlong_proto.StreamDecoder("tubemq", "request")
        while data := await reader.read(65536):
            for frame in decoder.feed(data):
                serial = frame.payload.serial_no
                faulty = CLIENT_CASES[rule](serial)
                first.append(len(faulty[0]))
                writer.write(b"".join(faulty) + wire(rpc.response_frame(
                    serial, "producerCloseClientP2M", master_pb.CloseResponseM2P(success=True, errCode=200,
                                                                                 errMsg="OK!"))))
        writer.close()

    async def body():
        async with await asyncio.start_server(handle, HOST, 0) as server:
            port = server.sockets[0].getsockname()[1]
            channel = await RpcChannel(HOST, port, timeout=5, strict=report).open()
            try:
                answer = await channel.call("producerCloseClientP2M", master_pb.CloseRequestP2M(clientId="p"))
            finally:
                await channel.close()
            return answer, port

    answer, port = run(body())
    assert answer.success  # the right answer still came through
    assert [(f.rule, f.offset, f.length, f.peer) for f in report.findings] == [
        (rule, 0, first[0], f"{HOST}:{port}")]


def test_every_rule_has_a_faulty_peer():
    tested = {*SERVER_CASES, *CLIENT_CASES, "tubemq.heartbeat-timeout", "tubemq.whole-frames", "tubemq.idle"}
    assert tested == set(rules("tubemq"))


def test_strict_option_of_the_broker_writes_the_report(tmp_path):
    found = tmp_path / "broker.jsonl"

    async def body():
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inlong_proto", "tubemq", "broker", "--port", "0", "--strict", str(found),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            async with asyncio.timeout(60):
                line = ""
                while "listening on" not in line:
                    line = (await server.stderr.readline()).decode()
                    assert line, "the broker exited before listening"
            port = int(re.search(r"listening on [\d.]+:(\d+)", line).group(1))
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(send(1) + send(2, check_sum=1))
            answers = await asyncio.wait_for(_answers(reader, 2), 10)
            writer.close()
            server.send_signal(signal.SIGINT)
            _, stderr = await asyncio.wait_for(server.communicate(), 30)
            return answers, server.returncode, stderr.decode()
        finally:
            if server.returncode is None:
                server.kill()
                await server.wait()

    answers, status, stderr = run(body(), timeout=120)
    assert [a.business.errCode for a in answers] == [200, 403] and status == 0
    [line] = found.read_text().splitlines()
    item = json.loads(line)
    assert (item["rule"], item["offset"], item["length"]) == ("tubemq.checksum", len(send(1)),
                                                              len(send(2, check_sum=1)))
    assert item["spec"] == "specs/tubemq/BrokerService.proto#CRC32(data) & 0x7FFFFFFF, or -1"
    assert "tubemq conformance: 1 findings" in stderr and "tubemq.checksum" in stderr

"""The strict EventMesh peers (issue 29, item 3; named apart from tests/broadcast/test_strict.py: the test
folders share one module namespace): for every rule of specs/eventmesh/conformance.yaml a
deliberately faulty peer breaks exactly that rule, and the report names exactly that rule, at the offset of
the offending frame in what that peer sent; the answers stay the reference servers' own."""
from __future__ import annotations

import asyncio
import json
import signal
import struct
import subprocess

import grpc
import pytest

import inlong_proto
from inlong_proto.core.conformance import Report, rules
from inlong_proto.endpoints.eventmesh_client import EventMeshClient, make_user_agent, text_message
from inlong_proto.endpoints.eventmesh_server import NO_SESSION, EventMeshServer
from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient, EventMeshGrpcError
from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer
from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpClient, EventMeshHttpError
from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer, RequestReader
from inlong_proto.eventmesh import grpc as grpc_mesh
from inlong_proto.eventmesh import http, tcp
from inlong_proto.eventmesh.tcp import Command
from inlong_proto.generated.protobuf.eventmesh import eventmesh_cloudevents_pb2 as ce_pb2
from inlong_proto.generated.protobuf.eventmesh import eventmesh_service_pb2_grpc as service_grpc
from peers import HOST, free_port, run, start_server, until, wait_for_line

SEQ = "0123456780"
HELLO = inlong_proto.encode(tcp.hello(make_user_agent(), SEQ))
HEARTBEAT = inlong_proto.encode(tcp.frame(tcp.header(Command.HEARTBEAT_REQUEST, seq=SEQ)))
DONE = "8888888888"  # the seq of the heartbeat that tells a test the server has answered everything before it
SENTINEL = inlong_proto.encode(tcp.frame(tcp.header(Command.HEARTBEAT_REQUEST, seq=DONE)))
MESSAGE_PROPERTIES = {"protocoltype": "eventmeshmessage", "protocolversion": "1.0", "protocoldesc": "tcp"}


def raw_frame(header: dict, body: bytes = b"", *, header_length: int | None = None,
              package_length: int | None = None) -> bytes:
    """A TCP frame written by hand (a faulty peer's bytes: any field may be wrong)."""
    head = json.dumps(header, separators=(",", ":")).encode()
    package_length = 13 + len(head) + len(body) if package_length is None else package_length
    header_length = len(head) if header_length is None else header_length
    return b"EventMesh0000" + struct.pack(">ii", package_length, header_length) + head + body


def message(body: dict, properties: dict | None = None, seq: str = SEQ) -> bytes:
    return raw_frame({"cmd": "ASYNC_MESSAGE_TO_SERVER", "code": 0, "seq": seq,
                      "properties": MESSAGE_PROPERTIES if properties is None else properties},
                     json.dumps(body).encode())


def hello_with(**changes) -> bytes:
    agent = make_user_agent().to_json() | changes
    return raw_frame({"cmd": "HELLO_REQUEST", "code": 0, "seq": SEQ, "properties": {}}, json.dumps(agent).encode())


# rule -> (the bytes before the faulty frame, the faulty frame, what comes after it)
TCP_CLIENT_FAULTS = {
    "eventmesh.tcp-magic": (HELLO, b"X" + HEARTBEAT[1:], b""),
    "eventmesh.tcp-package-length": (HELLO, HEARTBEAT[:13] + struct.pack(">i", 5_000_000) + HEARTBEAT[17:], b""),
    "eventmesh.tcp-header-length": (HELLO, HEARTBEAT[:17] + struct.pack(">i", 0) + HEARTBEAT[21:], b""),
    "eventmesh.tcp-header": (HELLO, raw_frame({"cmd": "HEARTBEAT_REQUEST", "seq": SEQ, "code": "x"}), b""),
    "eventmesh.tcp-command": (HELLO, raw_frame({"cmd": "HEARTBEAT", "seq": SEQ}), b""),
    "eventmesh.tcp-body": (b"", hello_with(port="abc"), b""),
    "eventmesh.tcp-hello-first": (b"", HEARTBEAT, HELLO + SENTINEL),
    "eventmesh.tcp-served-command": (HELLO, raw_frame({"cmd": "SYS_LOG_TO_LOGSERVER", "seq": SEQ}), SENTINEL),
    "eventmesh.tcp-seq": (HELLO, raw_frame({"cmd": "HEARTBEAT_REQUEST", "code": 0}), SENTINEL),
    "eventmesh.tcp-user-agent": (b"", hello_with(purpose="both"), b""),
    "eventmesh.tcp-subscription": (HELLO, raw_frame({"cmd": "SUBSCRIBE_REQUEST", "seq": SEQ},
                                                    b'{"topicList":null}'), SENTINEL),
    "eventmesh.tcp-protocol-properties": (HELLO, message({"topic": "T", "body": "x"}, properties={}), SENTINEL),
    "eventmesh.tcp-message": (HELLO, message({"topic": "T", "properties": {"Bad-Key": "1"}, "body": "x"}),
                              SENTINEL),
    "eventmesh.tcp-event-size": (HELLO, message({"topic": "T", "body": "x" * 1001}), SENTINEL),
    "eventmesh.tcp-ack-seq": (HELLO, raw_frame({"cmd": "ASYNC_MESSAGE_TO_CLIENT_ACK", "seq": "42"}), SENTINEL),
    "eventmesh.tcp-heartbeat": (HELLO, b"", b""),  # then silence until the idle timeout
}


async def replies_until_done(reader: asyncio.StreamReader) -> list[tcp.TcpMessage]:
    """The server's answers, up to the sentinel heartbeat's answer or the server closing the connection."""
    decoder = inlong_proto.StreamDecoder("eventmesh", direction="response")
    answers = []
    while True:
        data = await reader.read(65536)
        answers += [frame.payload for frame in (decoder.feed(data) if data else decoder.close())]
        if not data or any(a.header.seq == DONE for a in answers):
            return answers


@pytest.mark.parametrize("rule", sorted(TCP_CLIENT_FAULTS))
def test_tcp_server_reports_the_one_rule_a_faulty_client_breaks(rule):
    before, faulty, after = TCP_CLIENT_FAULTS[rule]
    report = Report("eventmesh")

    async def body():
        async with EventMeshServer(port=0, idle_timeout=0.3, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(before + faulty + after)
            answers = await asyncio.wait_for(replies_until_done(reader), 10)
            writer.close()
            await until(lambda: report.findings)
            return answers

    answers = run(body())
    [finding] = report.findings
    assert finding.rule == rule, finding
    assert finding.offset == len(before) and finding.peer.startswith(HOST)
    assert finding.length in (None, len(faulty))
    assert finding.spec == rules("eventmesh")[rule].spec
    if rule == "eventmesh.tcp-hello-first":  # answered as the runtime does: refused, then served
        assert (answers[0].command, answers[0].header.code, answers[0].header.desc) == (
            Command.HEARTBEAT_RESPONSE, 1, NO_SESSION)


def test_tcp_server_reports_nothing_for_the_reference_client():
    report = Report("eventmesh")

    async def body():
        async with EventMeshServer(port=0, strict=report) as server:
            async with EventMeshClient(HOST, server.port, heartbeat_interval=None, timeout=5) as sub:
                await sub.subscribe("T")
                await sub.listen()
                async with EventMeshClient(HOST, server.port, heartbeat_interval=None, timeout=5) as pub:
                    await pub.publish_async(text_message("T", "hello"))
                    await pub.heartbeat()
                assert (await sub.receive(5)).body.body == "hello"
                await until(lambda: server.stats.push_acked == 1)

    run(body())
    assert report.findings == []


async def faulty_tcp_server(frames_after_hello: bytes):
    """A server that answers HELLO properly, then sends frames_after_hello."""
    async def handle(reader, writer):
        decoder = inlong_proto.StreamDecoder("eventmesh", direction="request")
        while not (frames := decoder.feed(await reader.read(65536))):
            pass
        seq = frames[0].payload.header.seq
        writer.write(inlong_proto.encode(tcp.frame(tcp.header(Command.HELLO_RESPONSE, desc="success", seq=seq))))
        writer.write(frames_after_hello)
        await writer.drain()
        await reader.read()

    return await asyncio.start_server(handle, HOST, 0)


HELLO_RESPONSE = inlong_proto.encode(tcp.frame(tcp.header(Command.HELLO_RESPONSE, desc="success", seq=SEQ)))


@pytest.mark.parametrize("rule, frames", [
    ("eventmesh.tcp-reply-seq", tcp.header(Command.HEARTBEAT_RESPONSE, desc="success", seq="777")),
    ("eventmesh.tcp-magic", None),
])
def test_tcp_client_reports_the_one_rule_a_faulty_server_breaks(rule, frames):
    data = b"XventMesh" + HEARTBEAT[9:] if frames is None else inlong_proto.encode(tcp.frame(frames))
    report = Report("eventmesh")

    async def body():
        server = await faulty_tcp_server(data)
        port = server.sockets[0].getsockname()[1]
        async with server:
            client = EventMeshClient(HOST, port, heartbeat_interval=None, timeout=5, strict=report)
            async with client:
                await until(lambda: report.findings)
                await client.close()

    run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset) == (rule, len(HELLO_RESPONSE))
    assert finding.peer.startswith(HOST)


# -- HTTP ----------------------------------------------------------------------------------------------

CONFIG = http.ClientConfig()
FORM = "application/x-www-form-urlencoded; charset=UTF-8"


def publish(content: str = "hello", topic: str = "T", config: http.ClientConfig = CONFIG) -> bytes:
    return http.send_message(config, topic, content, ttl="1000", bizseqno="1", uniqueid="1")


def post(code: str, body: bytes) -> bytes:
    headers = [("Host", "x"), ("code", code), ("idc", "idc"), ("pid", "1"), ("sys", "1"), ("Content-Type", FORM),
               ("Content-Length", None)]
    return http.build_request("POST", "/", headers, body)


GOOD = publish()
HTTP_CLIENT_FAULTS = {
    "eventmesh.http-message": b"GARBAGE\r\n\r\n",
    "eventmesh.http-method": http.build_request("PUT", "/", [("Host", "x"), ("code", "104"),
                                                                  ("Content-Length", None)]),
    "eventmesh.http-version": GOOD.replace(b"version: 1.0", b"version: 3.0"),
    "eventmesh.http-request-code": GOOD.replace(b"code: 104", b"code: 999"),
    "eventmesh.http-content-type": GOOD.replace(FORM.encode(), b"application/json"),
    "eventmesh.http-form": post("104", b"topic=T&content=%zz"),
    "eventmesh.http-header-checks": publish(config=http.ClientConfig(pid="abc")),
    "eventmesh.http-required-fields": publish(topic=""),
    "eventmesh.http-event-size": publish("x" * 1001),
}


async def http_answers(reader: asyncio.StreamReader, decoder, wanted: int) -> list:
    """The server's answers, until `wanted` came or it closed the connection."""
    answers = []
    while len(answers) < wanted:
        data = await reader.read(65536)
        answers += decoder.feed(data) if data else decoder.close()
        if not data:
            break
    return answers


@pytest.mark.parametrize("rule", sorted(HTTP_CLIENT_FAULTS))
def test_http_server_reports_the_one_rule_a_faulty_client_breaks(rule):
    faulty = HTTP_CLIENT_FAULTS[rule]
    report = Report("eventmesh")

    async def body():
        async with EventMeshHttpServer(HOST, 0, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(GOOD)
            decoder = http.HttpStreamDecoder("response")
            answers = await asyncio.wait_for(http_answers(reader, decoder, 1), 10)
            writer.write(faulty + GOOD)
            answers += await asyncio.wait_for(http_answers(reader, decoder, 2), 10)
            writer.close()
            await until(lambda: report.findings)
            return answers

    answers = run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset) == (rule, len(GOOD)), finding
    assert finding.length in (None, len(faulty)) and finding.peer.startswith(HOST)
    assert answers[0].status == 200 and answers[0].ret.ret_code == 0
    if rule == "eventmesh.http-content-type":  # read as a form all the same
        assert [a.ret.ret_code for a in answers] == [0, 0, 0]
    if rule == "eventmesh.http-message":  # the bytes as text, not h11's bytearray(b'...')
        assert finding.got == "HTTP 400: illegal request line: GARBAGE"


def test_http_server_reports_nothing_for_the_reference_client():
    report = Report("eventmesh")

    async def body():
        async with EventMeshHttpServer(HOST, 0, strict=report) as server:
            client = EventMeshHttpClient(HOST, server.port, timeout=5, strict=report)
            await client.publish("T", "hello")
            await client.heartbeat(["T"], "http://127.0.0.1:9/hook")
            await client.close()

    run(body())
    assert report.findings == []


def test_http_client_reports_an_answer_that_is_not_the_runtimes():
    first = http.response(203, 0, "success", 1)
    report = Report("eventmesh")

    async def answer(reader, writer):
        requests = RequestReader(1 << 20)
        for wrong in (False, True):
            while not requests.feed(await reader.read(65536)):
                pass
            writer.write(http.build_response(200, [("Content-Type", "application/json"), ("Content-Length", None)],
                                             b'{"retCode":0}') if wrong else first)
        await writer.drain()

    async def body():
        server = await asyncio.start_server(answer, HOST, 0)
        async with server:
            client = EventMeshHttpClient(HOST, server.sockets[0].getsockname()[1], timeout=5, strict=report)
            await client.heartbeat(["T"], "http://127.0.0.1:9/hook")
            with pytest.raises(EventMeshHttpError):
                await client.heartbeat(["T"], "http://127.0.0.1:9/hook")
            await client.close()

    run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset) == ("eventmesh.http-answer", len(first))


# -- gRPC ----------------------------------------------------------------------------------------------

SERVICE = "/org.apache.eventmesh.cloudevents.v1."
IDENTITY = grpc_mesh.client_extensions(env="env", idc="idc", ip="127.0.0.1", pid=1, sys="s", username="u",
                                       passwd="p")


def published(**changes):
    event = grpc_mesh.message_event("T", "hello", client=IDENTITY, producer_group="g")
    proto = grpc_mesh.to_cloud_event(event)
    for key, value in changes.items():
        if hasattr(proto, key) and key != "attributes":
            setattr(proto, key, value)
        else:
            proto.attributes[key].ce_string = value
    return proto


def heartbeat_of(client_type: int):
    proto = grpc_mesh.to_cloud_event(grpc_mesh.heartbeat_event(2, "g", [("T", "")], client=IDENTITY))
    proto.attributes[grpc_mesh.Key.CLIENT_TYPE].ce_integer = client_type
    return proto


def raw_call(method: str, data: bytes):
    return lambda channel: channel.unary_unary(SERVICE + method)(data, timeout=5)


def typed_call(service: str, method: str, request):
    stub = {"PublisherService": service_grpc.PublisherServiceStub, "ConsumerService": service_grpc.ConsumerServiceStub,
            "HeartbeatService": service_grpc.HeartbeatServiceStub}[service]
    return lambda channel: getattr(stub(channel), method)(request, timeout=5)


GRPC_CLIENT_FAULTS = {
    "eventmesh.grpc-method": (raw_call("PublisherService/nope", b""), "UNIMPLEMENTED"),
    "eventmesh.grpc-message": (raw_call("PublisherService/publish", b"\x0a\xff"), "INTERNAL"),
    "eventmesh.grpc-cloudevent": (typed_call("PublisherService", "publish", published(id="")), "0"),
    "eventmesh.grpc-identity": (typed_call("PublisherService", "publish", published(pid="abc")), "6"),
    "eventmesh.grpc-publish": (typed_call("PublisherService", "publish", published(ttl="")), "7"),
    "eventmesh.grpc-subscription": (typed_call("ConsumerService", "subscribe", grpc_mesh.to_cloud_event(
        grpc_mesh.subscription_event("g", [], client=IDENTITY, url="http://127.0.0.1:9/"))), "7"),
    "eventmesh.grpc-heartbeat": (typed_call("HeartbeatService", "heartbeat", heartbeat_of(3)), "7"),
}


@pytest.mark.parametrize("rule", sorted(GRPC_CLIENT_FAULTS))
def test_grpc_server_reports_the_one_rule_a_faulty_client_breaks(rule):
    call, answered = GRPC_CLIENT_FAULTS[rule]
    report = Report("eventmesh")

    async def body():
        async with EventMeshGrpcServer(HOST, 0, strict=report) as server:
            async with grpc.aio.insecure_channel(f"{HOST}:{server.port}") as channel:
                try:
                    answer = await call(channel)
                except grpc.aio.AioRpcError as exc:
                    return exc.code().name
                return grpc_mesh.response_of(answer).code

    assert run(body()) == answered
    [finding] = report.findings
    assert (finding.rule, finding.offset) == (rule, 0), finding
    assert finding.peer.startswith("ipv4:127.0.0.1:")


@pytest.mark.parametrize("rule", ["eventmesh.grpc-reply", "eventmesh.grpc-stream-heartbeat"])
def test_grpc_server_reports_a_faulty_stream_subscriber(rule):
    report = Report("eventmesh")

    async def body():
        async with EventMeshGrpcServer(HOST, 0, idle_timeout=0.5, strict=report) as server:
            async with EventMeshGrpcClient(HOST, server.port, timeout=5) as client:
                stream = await client.stream(["T"])
                if rule == "eventmesh.grpc-reply":  # a reply nobody asked for, as the stream's message 1
                    await stream.reply(published(seqnum="nope"), "answer")
                    await until(lambda: report.findings)
                else:  # silence: the subscription expires
                    with pytest.raises(EventMeshGrpcError):
                        await asyncio.wait_for(stream.receive(), 10)
                    assert stream.ended.code == "30"

    run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset) == (rule, 1), finding


def test_grpc_server_reports_nothing_for_the_reference_client():
    report = Report("eventmesh")

    async def body():
        async with EventMeshGrpcServer(HOST, 0, strict=report) as server:
            async with EventMeshGrpcClient(HOST, server.port, timeout=5, strict=report) as client:
                stream = await client.stream(["T"])
                await client.publish(client.message("T", "hello"))
                await client.batch_publish([client.message("T", "again")])
                await client.heartbeat(["T"])
                assert len([await stream.receive() for _ in range(2)]) == 2

    run(body())
    assert report.findings == []


def test_grpc_client_reports_an_answer_without_a_statuscode():
    report = Report("eventmesh")

    class Silent(service_grpc.PublisherServiceServicer):
        async def publish(self, request, context):
            return ce_pb2.CloudEvent(id="1")

    async def body():
        server = grpc.aio.server()
        service_grpc.add_PublisherServiceServicer_to_server(Silent(), server)
        port = server.add_insecure_port(f"{HOST}:0")
        await server.start()
        try:
            async with EventMeshGrpcClient(HOST, port, timeout=5, strict=report) as client:
                await client.publish(client.message("T", "hello"))
        finally:
            await server.stop(None)

    run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset) == ("eventmesh.grpc-answer", 0)


# -- the commands --------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["serve"], ["client"], ["http-serve"], ["http-client"], ["grpc-serve"],
                                     ["grpc-client"]])
def test_every_eventmesh_peer_command_takes_strict(command):
    from click.testing import CliRunner

    from inlong_proto.cli.eventmesh import eventmesh

    result = CliRunner().invoke(eventmesh, [*command, "--help"])
    assert result.exit_code == 0 and "--strict" in result.output, result.output


def test_serve_strict_writes_the_findings_as_json_lines(tmp_path):
    port = free_port()
    report = tmp_path / "findings.jsonl"
    server, peer = start_server("eventmesh", "serve", "--port", str(port), "--strict", str(report), port=port,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with peer:
            peer.sendall(HELLO + HEARTBEAT[:9] + b"0001" + HEARTBEAT[13:])
            while peer.recv(65536):  # the hello is answered, then the connection closed
                pass
        wait_for_line(report)
    finally:
        server.send_signal(signal.SIGINT)  # Ctrl-C: the summary table comes at exit
        _, stderr = server.communicate(timeout=30)
    [line] = report.read_text().splitlines()
    item = json.loads(line)
    assert (item["rule"], item["offset"], item["spec"]) == ("eventmesh.tcp-magic", len(HELLO),
                                                            "specs/eventmesh/tcp_frame.ksy#contents: EventMesh")
    assert item["got"].startswith(f"offset {len(HELLO) + 9} in version")
    assert "eventmesh.tcp-magic" in stderr  # the summary table at exit


def test_every_rule_has_a_faulty_peer():
    covered = {*TCP_CLIENT_FAULTS, *HTTP_CLIENT_FAULTS, *GRPC_CLIENT_FAULTS, "eventmesh.tcp-reply-seq",
               "eventmesh.http-answer", "eventmesh.grpc-reply", "eventmesh.grpc-stream-heartbeat",
               "eventmesh.grpc-answer"}
    assert covered == set(rules("eventmesh"))

"""The TubeMQ reference master, broker, producer and consumer over loopback: messages moved intact, the
standby master, the broker's refusals, rebalancing within a group, bounded memory, recorded dumps, the CLI.

Every test is bounded: async bodies run under asyncio timeouts, subprocesses are waited for with
deadlines. Only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys

import pytest

import inlong_proto
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker_pb
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master_pb
from inlong_proto.tubemq import rpc, strings
from inlong_proto.endpoints.tubemq_broker import BrokerState, TubeMQBroker
from inlong_proto.endpoints.tubemq_client import CallFailed, RpcChannel, TubeMQConsumer, TubeMQProducer
from inlong_proto.endpoints.tubemq_master import TubeMQMaster
from peers import HOST, closed_by_server, run

TOPIC = "demo"


@contextlib.asynccontextmanager
async def cluster():
    """A broker and a master announcing it."""
    async with TubeMQBroker(HOST, 0) as broker:
        async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, broker.port)) as master:
            yield master, broker


def methods(data: bytes) -> list[str]:
    """The methods of a dump, decoded strictly: any malformed byte fails the test."""
    return [frame.message_type for frame in inlong_proto.iter_frames(data, "tubemq")]


def test_the_codec_builds_message_data_and_strings_as_the_java_side_does():
    data, flag = rpc.encode_message_data(b"body", "k=v")
    assert (data, flag) == (b"\x00\x00\x00\x03k=vbody", rpc.FLAG_HAS_ATTRIBUTE)  # attrLen s32 BE, attr, payload
    assert rpc.message_data(data, flag).attributes == (("k", "v"),)
    assert rpc.encode_message_data(b"body", " ") == (b"body", 0)  # a blank attribute: no header, no flag
    assert strings.format_broker_info(strings.BrokerInfo(1, HOST, 8123)) == f"1:{HOST}: "  # default port blank
    assert strings.format_topic_info(strings.TopicInfo("t", (strings.PartitionSlot(1, 2, 2),), None)) == "t#1:2:2#"
    assert strings.PartitionSlot(1, 2, 2).partition_ids == [0, 1, 10000, 10001]
    subscription = strings.Subscription("c", "g", strings.Partition(1, HOST, 8124, "t", 3))
    assert strings.subscribe_info(strings.format_subscribe_info(subscription)) == subscription
    assert rpc.exception_class(rpc.STANDBY_CLASS, 1) == "com.tencent.tubemq.corerpc.exception.StandbyException"
    assert rpc.exception_class(rpc.STANDBY_CLASS, 3) == rpc.STANDBY_CLASS
    assert rpc.exception_class("java.lang.Exception", 2) == "java.lang.Exception"


def test_messages_go_from_producer_through_broker_to_consumer_intact():
    payloads = [f"message-{i}".encode() for i in range(40)] + ["ünïcode".encode(), bytes(range(256))]

    async def body():
        async with cluster() as (master, broker):
            producer = TubeMQProducer(HOST, master.port, TOPIC, attribute="k=v,source=test")
            report = await producer.run(payloads)
            assert report.ok and report.to_dict()["acked"] == len(payloads), report.to_dict()
            assert sorted(report.partitions) == [0, 1, 2]  # sent to each partition in turn
            received = []
            consumer = TubeMQConsumer(HOST, master.port, TOPIC, "g", count=len(payloads), timeout=10)
            summary = await consumer.run(received.append)
            assert summary.ok and not summary.corrupt, summary.to_dict()
            return broker.state, received

    state, received = run(body())
    assert sorted(r.data.payload for r in received) == sorted(payloads)
    assert all(dict(r.data.attributes) == {"k": "v", "source": "test"} and r.data.checksum_ok for r in received)
    assert all(r.flag == rpc.FLAG_HAS_ATTRIBUTE for r in received)
    # Per partition, in the order sent; the broker keeps the data exactly as the producer built it.
    for partition_id in (0, 1, 2):
        stored = state.stored(TOPIC, partition_id)
        assert [r.data.payload for r in received if r.partition_id == partition_id] == \
               [rpc.message_data(m.data, m.flag).payload for m in stored] == payloads[partition_id::3]
        assert [m.offset for m in stored] == list(range(len(stored)))


def test_a_second_consumer_of_the_group_gets_only_what_is_new():
    async def body():
        async with cluster() as (master, _):
            await TubeMQProducer(HOST, master.port, TOPIC).run([b"a", b"b", b"c"])
            first = await TubeMQConsumer(HOST, master.port, TOPIC, "g", count=3, timeout=10).run()
            await TubeMQProducer(HOST, master.port, TOPIC).run([b"d"])
            again = []
            second = await TubeMQConsumer(HOST, master.port, TOPIC, "g", count=1, timeout=10).run(again.append)
            other = await TubeMQConsumer(HOST, master.port, TOPIC, "other", count=4, timeout=10).run()
            return first, second, again, other

    first, second, again, other = run(body())
    assert first.ok and second.ok and other.ok
    assert [r.data.payload for r in again] == [b"d"]  # the group's offsets were confirmed on leaving
    assert other.received == 4  # another group starts at the first stored message


def test_two_consumers_of_a_group_share_the_partitions_and_lose_nothing():
    payloads = [f"m{i}".encode() for i in range(30)]

    async def body():
        async with cluster() as (master, _):
            got: list[list] = [[], []]
            consumers = [TubeMQConsumer(HOST, master.port, TOPIC, "shared", timeout=2.5, heartbeat_interval=0.1,
                                        poll_interval=0.02) for _ in got]
            runs = [asyncio.create_task(c.run(g.append)) for c, g in zip(consumers, got)]
            await asyncio.sleep(0.6)  # both have joined and the rebalance has settled
            report = await TubeMQProducer(HOST, master.port, TOPIC).run(payloads)
            summaries = await asyncio.gather(*runs)
            return report, summaries, got

    report, summaries, got = run(body())
    assert report.ok
    assert all(s.error is None for s in summaries), [s.to_dict() for s in summaries]
    assert sorted(p for g in got for p in (r.data.payload for r in g)) == sorted(payloads)  # once each
    held = [set(s.partitions) for s in summaries]
    assert held[0] and held[1] and not held[0] & held[1] and held[0] | held[1] == {0, 1, 2}


def test_a_standby_master_answers_every_request_with_standby_exception(tmp_path):
    sent = tmp_path / "sent.bin"

    async def body():
        async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, 8123), standby=True,
                                record_sent=sent) as master:
            producer = await TubeMQProducer(HOST, master.port, TOPIC).run([b"x"])
            consumer = await TubeMQConsumer(HOST, master.port, TOPIC, "g", count=1, timeout=5).run()
            channel = await RpcChannel(HOST, master.port).open()
            try:
                with pytest.raises(CallFailed) as caught:
                    await channel.call("producerCloseClientP2M", master_pb.CloseRequestP2M(clientId="c1"))
            finally:
                await channel.close()
            return master.port, producer, consumer, caught.value

    port, producer, consumer, failure = run(body())
    for report in (producer, consumer):
        assert report.standby and not report.ok and "StandbyException" in report.error
    assert producer.sent == 0
    exception = failure.exception
    assert exception.is_standby and exception.class_name == rpc.STANDBY_CLASS
    assert exception.message == f"{HOST}:{port} is not master now. the connecting client id is c1"
    frames = list(inlong_proto.iter_frames(sent.read_bytes(), "tubemq"))
    assert len(frames) == 3 and all(f.payload.exception.is_standby for f in frames)
    assert all(f.payload.header.status == rpc.STATUS["ERROR"] for f in frames)


def test_exception_names_follow_the_request_protocol_version():
    async def body():
        async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, 8123), standby=True) as master:
            reader, writer = await asyncio.open_connection(HOST, master.port)
            request = rpc.request_frame(7, "producerCloseClientP2M", master_pb.CloseRequestP2M(clientId="c"),
                                        protocol_ver=2)
            writer.write(inlong_proto.encode(request))
            decoder = inlong_proto.StreamDecoder("tubemq", "response")
            frames = []
            while not frames:
                frames = decoder.feed(await reader.read(65536))
            writer.close()
            return frames[0].payload

    answer = run(body())
    assert answer.serial_no == 7 and answer.exception.class_name == \
        "com.apache.tubemq.corerpc.exception.StandbyException"


async def raw_answers(port: int, *frames) -> list:
    """Send frames on one connection; the answers that come within a short while."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(b"".join(inlong_proto.encode(frame) for frame in frames))
    decoder = inlong_proto.StreamDecoder("tubemq", "response")
    answers = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(0.5):
            while len(answers) < len(frames):
                answers += [frame.payload for frame in decoder.feed(await reader.read(65536))]
    writer.close()
    return answers


def send_request(serial: int, topic: str = TOPIC, partition: int = 0, data: bytes = b"x", check_sum: int = -1):
    return rpc.request_frame(serial, "sendMessageP2B", broker_pb.SendMessageRequestP2B(
        clientId="p", topicName=topic, partitionId=partition, data=data, flag=0, checkSum=check_sum, sentAddr=0))


def test_the_broker_refuses_what_the_real_one_refuses():
    async def body():
        async with TubeMQBroker(HOST, 0, max_message_size=10) as broker:
            no_timeout = rpc.request_frame(9, "sendMessageP2B", broker_pb.SendMessageRequestP2B(
                clientId="p", topicName=TOPIC, partitionId=0, data=b"x", flag=0, checkSum=-1, sentAddr=0),
                timeout_ms=0)
            fetch = rpc.request_frame(6, "getMessagesC2B", broker_pb.GetMessageRequestC2B(
                clientId="c", partitionId=0, groupName="g", topicName=TOPIC))
            return await raw_answers(
                broker.port, send_request(1, topic="nope"), send_request(2, partition=3), send_request(3, data=b""),
                send_request(4, data=b"x" * 11), send_request(5, check_sum=1), fetch, no_timeout,
                rpc.request_frame(10, "producerRegisterP2M", master_pb.RegisterRequestP2M(
                    clientId="p", brokerCheckSum=-1, hostName="h")),
                send_request(11, check_sum=rpc.checksum_of(b"x")))

    answers = {a.serial_no: a for a in run(body())}
    codes = {serial: (a.business.errCode, a.business.errMsg) for serial, a in answers.items() if a.business}
    assert codes[1] == (403, "Topic nope-0 not existed, please check your configure")
    assert codes[2][0] == 403 and codes[3] == (400, "data length is zero!") and codes[4][0] == 400
    assert codes[5][0] == 403 and codes[5][1].startswith("Checksum msg data failure: 1 of demo")
    assert codes[6] == (411, "UnRegistered Consumer:c, you have to register firstly!")
    assert 9 not in answers  # no timeout: the real server does not answer either
    assert answers[10].exception.class_name == "java.lang.Exception"
    assert answers[10].exception.message == "Unsupported method 1in service type MASTER_SERVICE!"
    assert codes[11][0] == 200 and answers[11].business.messageId == 1 and codes[11][1] == "1"


def test_unsupported_method_ids_get_the_fatal_answer():
    async def body():
        async with TubeMQBroker(HOST, 0) as broker:
            frame = rpc.frame_of(3, rpc.delimited(rpc.RPC_pb2.RpcConnHeader(flag=0),
                                                  rpc.RPC_pb2.RequestHeader(serviceType=2, protocolVer=3),
                                                  rpc.RPC_pb2.RequestBody(method=11, timeout=1000, request=b"")))
            return await raw_answers(broker.port, frame)

    (answer,) = run(body())
    assert answer.header.status == rpc.STATUS["FATAL"]
    assert answer.exception.message == "IPC server handle request error :Unsupported method ID :11"


def test_partition_memory_is_capped_and_a_late_group_resumes_at_the_oldest_kept():
    state = BrokerState(strings.BrokerInfo(1, HOST, 8123), partitions=1, max_messages=3)

    def call(method, **fields):
        return state.handle(method, getattr(broker_pb, rpc.METHODS[
            next(i for i, e in rpc.METHODS.items() if e["name"] == method)]["request"])(**fields), "peer")

    for i in range(5):
        assert call("sendMessageP2B", clientId="p", topicName=TOPIC, partitionId=0, data=b"%d" % i, flag=0,
                    checkSum=-1, sentAddr=0).errCode == 200
    assert [m.data for m in state.stored(TOPIC, 0)] == [b"2", b"3", b"4"]
    registered = call("consumerRegisterC2B", opType=31, clientId="c", groupName="g", topicName=TOPIC,
                      partitionId=0, readStatus=0)
    assert (registered.currOffset, registered.maxOffset) == (2, 5)
    fetched = call("getMessagesC2B", clientId="c", partitionId=0, groupName="g", topicName=TOPIC)
    assert [m.payLoadData for m in fetched.messages] == [b"2", b"3", b"4"] and fetched.currOffset == 2
    again = call("getMessagesC2B", clientId="c", partitionId=0, groupName="g", topicName=TOPIC)
    assert [m.payLoadData for m in again.messages] == [b"2", b"3", b"4"]  # not confirmed: served again
    done = call("getMessagesC2B", clientId="c", partitionId=0, groupName="g", topicName=TOPIC,
                lastPackConsumed=True)
    assert (done.errCode, done.errMsg) == (404, "The request offset reached maxOffset!")
    occupied = call("consumerRegisterC2B", opType=31, clientId="d", groupName="g", topicName=TOPIC,
                    partitionId=0, readStatus=0)
    assert occupied.errCode == 410
    beat = call("consumerHeartbeatC2B", clientId="d", groupName="g", readStatus=0,
                partitionInfo=[f"1:{HOST}:8123#{TOPIC}:0"])
    assert beat.hasPartFailure and list(beat.failureInfo) == [f"412:1:{HOST}:8123#{TOPIC}:0"]


def test_a_silent_connection_is_closed_after_the_idle_timeout():
    async def body():
        async with TubeMQBroker(HOST, 0, idle_timeout=0.2) as broker:
            reader, writer = await asyncio.open_connection(HOST, broker.port)
            writer.write(inlong_proto.encode(send_request(1))[:20])  # part of a frame is no progress
            await closed_by_server(reader)
            writer.close()
            return broker.stats

    assert run(body()).links.closed_idle == 1


def test_the_recorded_dumps_decode_and_hold_every_method(tmp_path):
    files = {name: tmp_path / f"{name}.bin" for name in ("master", "broker", "client", "client_sent")}

    async def body():
        async with TubeMQBroker(HOST, 0, record=files["broker"]) as broker:
            async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, broker.port),
                                    record=files["master"]) as master:
                options = {"record": files["client"], "record_sent": files["client_sent"]}
                assert (await TubeMQProducer(HOST, master.port, TOPIC, **options).run([b"hello"])).ok
                assert (await TubeMQConsumer(HOST, master.port, TOPIC, "g", count=1, timeout=5, **options).run()).ok

    run(body())
    assert methods(files["master"].read_bytes()) == [
        "producerRegisterP2M", "producerHeartbeatP2M", "producerCloseClientP2M", "consumerRegisterC2M",
        "consumerHeartbeatC2M", "consumerCloseClientC2M"]
    broker_methods = methods(files["broker"].read_bytes())
    assert {"sendMessageP2B", "consumerRegisterC2B", "getMessagesC2B"} <= set(broker_methods)
    # The client's two dumps pair up call by call; the answers carry what was sent.
    answers = list(inlong_proto.iter_frames(files["client"].read_bytes(), "tubemq"))
    assert len(answers) == len(methods(files["client_sent"].read_bytes()))
    fetched = [m for f in answers if f.message_type == "getMessagesC2B" for m in f.payload.messages]
    assert [m.payload for m in fetched] == [b"hello"]
    done = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "tubemq", "--payload",
                           str(files["broker"])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "sendMessageP2B" in done.stdout and "getMessagesC2B" in done.stdout


# -- the CLI, through subprocesses -----------------------------------------------------------------

CLI = [sys.executable, "-c", "from inlong_proto.cli.tubemq import tubemq; tubemq()"]


@contextlib.contextmanager
def server(*args):
    """A CLI server on port 0; yields (its port, the process)."""
    process = subprocess.Popen([*CLI, *args, "--port", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stderr:
            found = re.search(r"listening on [\d.]+:(\d+)", line)
            if found:
                break
        else:
            raise AssertionError(f"{args[0]} did not start")
        yield int(found.group(1)), process
    finally:
        process.terminate()
        process.wait(timeout=10)


def cli(*args, stdin: str | None = None) -> tuple[int, list[dict]]:
    done = subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def test_cli_produce_and_consume_on_loopback(tmp_path):
    with server("broker") as (broker_port, _), server("master", "--broker", f"{HOST}:{broker_port}",
                                                      "--record", str(tmp_path / "m.bin")) as (master_port, _):
        master = f"{HOST}:{master_port}"
        status, (report,) = cli("produce", "--master", master, "--count", "5")
        assert status == 0 and report["acked"] == 5 and report["ok"], report
        status, (report,) = cli("produce", "--master", master, "--attribute", "a=1", stdin="x\n\ny\n")
        assert status == 0 and report["sent"] == 2, report  # empty lines are skipped
        status, lines = cli("consume", "--master", master, "--count", "7", "--timeout", "10")
        *messages, summary = lines
        assert status == 0 and summary["received"] == 7 and summary["ok"], summary
        assert sorted(m["payload"] for m in messages) == sorted([f"message-{i}" for i in range(5)] + ["x", "y"])
        assert [m["attributes"] for m in messages if m["payload"] in ("x", "y")] == [{"a": "1"}] * 2
        status, (summary,) = cli("consume", "--master", master, "--count", "1", "--timeout", "0.5")
        assert status == 1 and summary["timed_out"] and summary["received"] == 0
    assert "producerRegisterP2M" in methods((tmp_path / "m.bin").read_bytes())


def test_cli_produce_reports_a_standby_master_and_exits_1():
    with server("master", "--standby") as (master_port, _):
        status, (report,) = cli("produce", "--master", f"{HOST}:{master_port}", "--count", "3")
    assert status == 1 and report["standby"] and not report["ok"] and report["sent"] == 0
    assert "StandbyException" in report["error"] and "is not master now" in report["error"]


def test_cli_produce_without_a_master_says_so():
    with server("broker") as (port, _):
        pass  # now closed: nobody listens there
    status, (report,) = cli("produce", "--master", f"{HOST}:{port}", "--count", "1", "--timeout", "2")
    assert status == 1 and "cannot connect" in report["error"]
